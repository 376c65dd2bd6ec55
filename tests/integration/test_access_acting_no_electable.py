"""RIP-32 with the controller up: broker-a has no electable master (every SyncStateSet member down, unclean election
off), and its replica outside the SyncStateSet serves the group through the escape bridge.

Two broker sets of three replicas, agent k hosting replica k of both, one controller, ``enableSlaveActingMaster``
on. An agent that hosts neither set's master is SIGSTOPped until both masters drop its replicas from their
SyncStateSets; broker-a's two members are then stopped in their agents (``removeBroker``: a broker of a RIP-31
container dies, its agent and broker-b's replicas there go on), and the stopped agent continues. The controller
tries to elect and finds no candidate, so it reports no master; the left-out replica acts at once and the
official client consumes the rest from it, its changes escaping over the agent API to broker-b's master on another
agent (the escape bridge, no local master to take them). When the members come back (``addBroker``), one is
elected, takes the escaped changes back in its pre-online, and no acked message is delivered again.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from rocketmq import ClientConfiguration, Credentials, FilterExpression, SimpleConsumer

from mqadmin_py.sandbox import Sandbox
from tests.harness.escape_sets import CLUSTER, ESCAPE, GROUP, HOME, TOPIC, agent_of, healthy, held, listed, sets
from tests.harness.official_client import consume, send
from tests.harness.sandbox import Cli, all_learnt, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

BROKER_CONF = {"enableSlaveActingMaster": "true", "syncBrokerMetadataPeriod": "500"}


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with serving_sandbox(
        Path(tmp_path_factory.mktemp("rip32-bridge")), controllers=1, replicas=3, broker_sets=2,
        broker_config=BROKER_CONF,
    ) as sandbox:  # fmt: skip
        cli = Cli(sandbox.dir, sandbox.addresses())
        cli.json("updateTopic", "-c", CLUSTER, "-t", TOPIC, "-r", "2", "-w", "2")
        made = cli.json("updateSubGroup", "-c", CLUSTER, "-g", GROUP)

        wait_until(
            lambda: all_learnt(cli, sandbox, made["metadataVersion"]),
            60,
            "every broker to learn the topic and the group",
        )
        yield sandbox


def test_the_left_out_replica_serves_the_group_through_the_escape_bridge(box: Sandbox) -> None:
    cli = Cli(box.dir, box.addresses())
    found = healthy(box, replicas=3)
    masters = {agent_of(box, info.master_address) for info in found.values()}
    outsider = next(a for a in box.agents() if a.id not in masters)
    others = [a for a in box.agents() if a.id != outsider.id]
    home_ids = {agent_of(box, r.broker_address): r.broker_id for r in found[HOME].in_sync_replicas}
    endpoints = outsider.proxyAddress

    sent = send(endpoints, TOPIC, 30)
    consumer = SimpleConsumer(ClientConfiguration(endpoints, Credentials()), GROUP, {TOPIC: FilterExpression()}, 2)
    consumer.startup()
    try:
        acked: dict[str, int] = {}
        consume(consumer, acked, lambda: len(acked) >= 8, batch=2, timeout_s=30)
        assert len(acked) >= 8

        # The outsider falls out of both SyncStateSets; then broker-a's members die; then the outsider goes on.
        box.signal(outsider.id, signal.SIGSTOP)
        try:

            def left_out() -> bool:
                now = sets(box)
                in_home = {r.broker_id for r in now[HOME].in_sync_replicas}
                return home_ids[outsider.id] not in in_home and len(now[ESCAPE].in_sync_replicas) == 2

            wait_until(left_out, 60, "both masters to drop the stopped agent's replicas from their SyncStateSets")
            for agent in others:
                cli.json("removeBroker", "-c", agent.address, "-b", f"{CLUSTER}:{HOME}:{home_ids[agent.id]}")
        finally:
            box.signal(outsider.id, signal.SIGCONT)
        wait_until(lambda: not sets(box)[HOME].HasField("master_broker_id"), 60, "the controller to report no master")
        acting = wait_until(
            lambda: listed(outsider.address, HOME).acting_master or None, 30, "the left-out replica to act"
        )
        assert acting

        consume(consumer, acked, lambda: sent <= set(acked))
        assert set(acked) == sent
        assert all(n == 1 for n in acked.values()), "a message acked was delivered again during the episode"
        escape_master = sets(box)[ESCAPE].master_address
        assert agent_of(box, escape_master) != outsider.id  # the bridge, not a local escape
        assert held(escape_master), "the acting replica escaped nothing"

        # broker-a's members come back: one is elected and takes the escaped changes back before it serves.
        for agent in others:
            config = next(b.configFile for b in agent.brokers if b.brokerName == HOME)
            cli.json("addBroker", "-c", agent.address, "-b", config)
        elected = wait_until(lambda: sets(box)[HOME].master_address or None, 60, "broker-a's new master")
        wait_until(lambda: not listed(outsider.address, HOME).acting_master, 30, "acting to stop")
        # Until its pre-online ends the new master serves no consumer: a receive is held, then PROXY_TIMEOUT.
        host = next(a.address for a in box.agents() if a.id == agent_of(box, elected))
        wait_until(lambda: not listed(host, HOME).pre_online, 60, "the new master's pre-online to end")
        for _ in range(4):  # each receive asks one set: ask both, twice
            assert consumer.receive(32, 30) == [], "a message acked during the episode came back"
        wait_until(lambda: not held(escape_master), 30, "the escape master to release what was taken back")
    finally:
        consumer.shutdown()
