"""RIP-32's slave acting master on real processes: one controller and one broker set of three replicas, each its own
mqagent. The controller is stopped and the master's agent SIGKILLed, so the set has no master and nobody to elect
one. With ``enableSlaveActingMaster`` the alive slave with the smallest id acts as a read-only master: it serves
what was sent before, still refuses sends, and its access point routes the set read-only at itself; once the
controller is back and a master elected, it stops and the set is writable again. With the default (off) nobody
acts. Each test restarts what it stopped (the sandbox stops everything by pid at the end).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.access.protocol import v2
from mqadmin_py.sandbox import Sandbox
from mqbase.codes import ResponseCode
from tests.harness.acting_probes import TOPIC, listed, pull, route, send
from tests.harness.sandbox import Cli, Cluster, Master, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

NOT_ACTIVE_MS = 2000
BROKER_CONF = {"brokerNotActiveTimeoutMillis": str(NOT_ACTIVE_MS), "syncBrokerMetadataPeriod": "500"}
"""Acting off (the default) in the files: each test sets it on the surviving replicas (a runtime key)."""


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with serving_sandbox(
        Path(tmp_path_factory.mktemp("acting")), controllers=1, replicas=3, broker_config=BROKER_CONF
    ) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def cluster(box: Sandbox) -> Iterator[Cluster]:
    cli = Cli(box.dir, box.addresses())
    c = Cluster(cli, box.addresses())
    c.create_topic(TOPIC, 1)
    yield c
    c.close()


@pytest.fixture(autouse=True)
def restored(box: Sandbox, cluster: Cluster) -> Iterator[None]:
    """Each test starts from, and leaves, every process running and a full SyncStateSet."""
    cluster.healthy(timeout=90)
    yield
    for process in box.processes():
        box.start(process.id)
    cluster.healthy(timeout=90)


def set_acting(cli: Cli, addresses: list[str], enabled: bool) -> None:
    for address in addresses:
        cli.json("updateBrokerConfig", "-b", address, "-k", "enableSlaveActingMaster", "-v", str(enabled).lower())


def masterless(box: Sandbox, cluster: Cluster, master: Master) -> None:
    """Stop the controller, then SIGKILL the master's agent: no master, and nobody to elect one."""
    agent = cluster.agent_of(master.broker_id)
    for controller in box.controllers():
        box.stop(controller.id)
    box.signal(agent, signal.SIGKILL)


def test_the_smallest_alive_slave_acts_read_only_until_a_master_is_elected(box: Sandbox, cluster: Cluster) -> None:
    master = cluster.healthy()
    first, second = sorted(master.slaves())
    addresses = {i: cluster.address_of(i) for i in (first, second)}
    access_point = next(a.proxyAddress for a in box.agents() if a.id == cluster.agent_of(first))
    set_acting(cluster.cli, list(addresses.values()), True)
    before = len(pull(addresses[first]).messages)
    assert send(master.address).code == ResponseCode.SUCCESS
    wait_until(lambda: len(pull(addresses[first]).messages) == before + 1, 30, f"broker {first} to replicate")
    time.sleep(1.0)  # two polls: each slave learns its set's replicas while the controller still answers
    masterless(box, cluster, master)

    def acting() -> dict[str, Any] | None:
        broker = listed(cluster.cli, addresses[first])
        return broker if broker["actingMaster"] else None

    started = wait_until(acting, 30 + NOT_ACTIVE_MS / 1000, f"broker {first} to act as master")
    assert started["role"] == "slave" and started["actingSince"] > 0
    assert not listed(cluster.cli, addresses[second])["actingMaster"]

    pulled = pull(addresses[first])
    assert pulled.code == ResponseCode.SUCCESS and len(pulled.messages) == before + 1, pulled
    refused = send(addresses[first])
    assert refused.code == ResponseCode.SLAVE_NOT_AVAILABLE, refused
    assert pull(addresses[first]).next_offset == pulled.next_offset  # the refused send wrote nothing
    # Its access point routes the set read-only, at that access point only: producers route around the set.
    wait_until(lambda: route(access_point) == [(v2.READ, [access_point])], 30, "the read-only acting route")

    for controller in box.controllers():
        box.start(controller.id)
    cluster.wait_master(lambda m: m.broker_id != master.broker_id, 60, "a new master")
    wait_until(lambda: not listed(cluster.cli, addresses[first])["actingMaster"], 30, "acting to stop")
    assert listed(cluster.cli, addresses[first])["actingSince"] is None
    assert cluster.sync_state_doc()["actingMaster"] is None  # getSyncStateSet asks the agents too: nobody acts
    wait_until(lambda: route(access_point)[0][0] == v2.READ_WRITE, 30, "the set writable again")


def test_with_the_default_nobody_acts(box: Sandbox, cluster: Cluster) -> None:
    master = cluster.healthy()
    addresses = [cluster.address_of(i) for i in master.slaves()]
    set_acting(cluster.cli, addresses, False)
    masterless(box, cluster, master)
    time.sleep(3 * NOT_ACTIVE_MS / 1000)  # past the bound, several polls
    assert [listed(cluster.cli, a)["actingMaster"] for a in addresses] == [False, False]
