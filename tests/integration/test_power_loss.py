"""Power loss under a real controller group: each node's store on a file system that loses every write not fsynced
(``tests.harness.powerfs``), the processes SIGKILLed at the cut, the machine back with a cold cache.

Without the journal sync (``controller.journal_sync``) pysyncobj's mmap'd journal reaches the disk only when the
kernel writes it back (after ~30 s), so a rack power cut right after a burst of writes took every one of them,
acknowledged or not; the first test fails on that code.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqadmin_py.sandbox import Sandbox
from mqbase.proto import controller_pb2 as pb
from tests.harness import powerfs
from tests.harness.controllers import CONTROLLER_CONFIG, Client, FakeBroker, catch_up, leader, wait_dead
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

WHY_NOT = powerfs.available()
if WHY_NOT is not None:
    if os.environ.get("MQADMIN_REQUIRE_POWERFS"):
        raise RuntimeError(f"MQADMIN_REQUIRE_POWERFS is set, but {WHY_NOT}")
    pytestmark.append(pytest.mark.skip(reason=WHY_NOT))

SETS = 12


@pytest.fixture
def group(tmp_path: Path) -> Iterator[tuple[Sandbox, dict[str, powerfs.PowerFs]]]:
    """A 3-node controller group whose nodes each keep their store on their own power-loss file system."""
    box = Sandbox(tmp_path / "box")
    disks = {n: powerfs.PowerFs(tmp_path / "disk" / n, tmp_path / "box" / "store" / n) for n in ("n0", "n1", "n2")}
    try:
        for disk in disks.values():
            disk.mount()
        box.up(controllers=3, extra_config=dict(CONTROLLER_CONFIG), timeout=30.0)
        assert sorted(c.id for c in box.controllers()) == sorted(disks), "the sandbox names its nodes otherwise"
        yield box, disks
    finally:
        box.down()
        for disk in disks.values():
            disk.unmount()


def power_cut(box: Sandbox, disks: dict[str, powerfs.PowerFs], nodes: list[str]) -> None:
    """The power goes on `nodes` at once, then comes back; they start again on what their disks kept."""
    procs = {c.id: c for c in box.controllers()}
    for n in nodes:
        disks[n].cut()
    for n in nodes:
        pid = procs[n].pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        wait_dead(box, n)
    for n in nodes:
        disks[n].restart()
    box.up(timeout=30.0)


def registered(client: Client, names: list[str]) -> dict[str, int]:
    """Each set's next broker id (2: its broker 1 was applied and registered)."""
    out = {}
    for name in names:
        r = client.call("GetNextBrokerId", pb.GetNextBrokerIdRequest(cluster_name="DefaultCluster", broker_name=name))
        out[name] = r.next_broker_id
    return out


def test_a_rack_power_cut_loses_no_acknowledged_controller_write(
    group: tuple[Sandbox, dict[str, powerfs.PowerFs]],
) -> None:
    box, disks = group
    names = [f"power-{i}" for i in range(SETS)]
    addresses = [c.address for c in box.controllers()]
    for name in names:  # each: GetNextBrokerId, then ApplyBrokerId and RegisterBroker, both Raft commits
        broker = FakeBroker(addresses, name)
        try:
            broker.register()
        finally:
            broker.close()
    with Client(addresses, timeout=3.0) as client:
        assert registered(client, names) == dict.fromkeys(names, 2)
        power_cut(box, disks, list(disks))
        leader(box)
        after = wait_until(lambda: registered(client, names), 20, "the group to serve after the power came back")
    assert after == dict.fromkeys(names, 2), "acknowledged registrations were lost"


def test_the_leader_losing_power_alone_loses_nothing_and_rejoins(
    group: tuple[Sandbox, dict[str, powerfs.PowerFs]],
) -> None:
    box, disks = group
    addresses = [c.address for c in box.controllers()]
    names = [f"leader-cut-{i}" for i in range(SETS)]
    for name in names:
        broker = FakeBroker(addresses, name)
        try:
            broker.register()
        finally:
            broker.close()
    first = leader(box).id
    with Client(addresses, timeout=3.0) as client:
        power_cut(box, disks, [first])
        assert registered(client, names) == dict.fromkeys(names, 2)
    catch_up(box, first)
