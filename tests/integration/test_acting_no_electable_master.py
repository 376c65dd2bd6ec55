"""RIP-32's slave acting master when the controller answers but can elect nobody: one controller, one broker set
of three replicas on three agents, ``enableSlaveActingMaster=true``, unclean election off (the default).

One replica is left out of the SyncStateSet (SIGSTOP until the master shrinks the set), then every SyncStateSet
member is SIGKILLed: the controller may elect only a member, so the set has no master. The left-out replica acts
as read-only master: it serves what was confirmed before, its access point routes the set read-only at itself,
and ``getSyncStateSet`` names it while the controller still names no master. Once a member is back the
controller elects it, the acting replica stops, and ``getSyncStateSet`` shows no acting replica.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.access.protocol import v2
from mqadmin_py.sandbox import Sandbox
from mqbase.codes import ResponseCode
from tests.harness.acting_probes import TOPIC, listed, pull, route, send
from tests.harness.sandbox import Cli, Cluster, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

NOT_CAUGHT_UP_MS = 3000
BROKER_CONF = {
    "enableSlaveActingMaster": "true",
    "brokerNotActiveTimeoutMillis": "2000",
    "syncBrokerMetadataPeriod": "500",
    "haMaxTimeSlaveNotCatchup": str(NOT_CAUGHT_UP_MS),
}


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with serving_sandbox(
        Path(tmp_path_factory.mktemp("no-electable")), controllers=1, replicas=3, broker_config=BROKER_CONF
    ) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def cluster(box: Sandbox) -> Iterator[Cluster]:
    c = Cluster(Cli(box.dir, box.addresses()), box.addresses())
    c.create_topic(TOPIC, 1)
    yield c
    c.close()


def in_sync_ids(cluster: Cluster) -> set[int]:
    return {r.broker_id for r in cluster.info().in_sync_replicas}


def acting_view(cluster: Cluster) -> tuple[Any, Any, Any]:
    """getSyncStateSet's master, acting master and acting-since of the set (the CLI as a user runs it)."""
    doc = cluster.sync_state_doc()
    return doc["masterBrokerId"], doc["actingMaster"], doc["actingSince"]


def acting_shown(cluster: Cluster) -> tuple[Any, Any, Any] | None:
    view = acting_view(cluster)
    return view if view[1] is not None else None


def test_the_replica_outside_the_sync_state_set_acts_until_a_member_is_back(box: Sandbox, cluster: Cluster) -> None:
    master = cluster.healthy(timeout=90)
    outsider = max(master.slaves())
    members = [i for i in master.ids if i != outsider]
    address = cluster.address_of(outsider)
    agent = cluster.agent_of(outsider)
    access_point = next(a.proxyAddress for a in box.agents() if a.id == agent)
    before = len(pull(address).messages)
    assert send(master.address).code == ResponseCode.SUCCESS
    wait_until(lambda: len(pull(address).messages) == before + 1, 30, f"broker {outsider} to replicate")
    member_agents = {i: cluster.agent_of(i) for i in members}
    try:
        box.signal(agent, signal.SIGSTOP)
        wait_until(lambda: in_sync_ids(cluster) == set(members), 30 + NOT_CAUGHT_UP_MS / 1000, "the set to shrink")
        for member_agent in member_agents.values():
            box.signal(member_agent, signal.SIGKILL)
        box.signal(agent, signal.SIGCONT)

        started = wait_until(lambda: listed(cluster.cli, address)["actingMaster"] or None, 60, "acting to start")
        assert started is True
        master_id, acting, since = wait_until(lambda: acting_shown(cluster), 30, "getSyncStateSet to name it")
        assert (master_id, acting, since) == (None, outsider, listed(cluster.cli, address)["actingSince"])
        assert sorted(cluster.sync_state_doc()["actingUnknown"]) == sorted(members)  # their agents are dead
        pulled = pull(address)
        assert pulled.code == ResponseCode.SUCCESS and len(pulled.messages) == before + 1, pulled
        wait_until(lambda: route(access_point) == [(v2.READ, [access_point])], 30, "the read-only acting route")
        # Nobody electable: the outsider stays out. The set is the members, or one of them alone when the controller
        # saw that member's last heartbeat as fresh after the master's had expired and elected it before it expired.
        survivors = in_sync_ids(cluster)
        assert cluster.master() is None and survivors and survivors <= set(members), survivors

        box.start(member_agents[min(survivors)])
        back = cluster.wait_master(lambda m: m.broker_id in survivors, 60, "a SyncStateSet member to become master")
        wait_until(lambda: not listed(cluster.cli, address)["actingMaster"], 30, "acting to stop")
        assert acting_view(cluster)[1:] == (None, None)
        assert cluster.master() is not None and back.broker_id in survivors
        wait_until(lambda: route(access_point)[0][0] == v2.READ_WRITE, 30, "the set writable again")
    finally:
        with contextlib.suppress(Exception):
            box.signal(agent, signal.SIGCONT)
        for process in box.processes():
            box.start(process.id)
    cluster.healthy(timeout=90)
