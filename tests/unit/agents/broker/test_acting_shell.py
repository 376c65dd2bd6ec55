"""RIP-32's slave acting master in the ReplicasManager: the view it builds, the start and stop it records, and
that an acting replica still refuses sends. The controller address has no listener, so every controller call
fails at once, as with a controller group that is down; peers' agents are addresses with no listener too."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from agents.broker.manager import ReplicasManager
from agents.broker.roles import View
from agents.broker.service import AgentServicer
from agents.ha.acting import ControllerAnswer
from agents.ha.role import Role
from agents.pop.model import QueueKey
from mqbase.clock import SYSTEM
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from tests.harness.ha_master import manager_config, serve_topics, servicer_for

NOBODY = "127.0.0.1:1"
"""An address nothing listens on: a master's HA port or a peer's agent that is down."""


def now_ms() -> int:
    return int(time.monotonic() * 1000)


@pytest.fixture
def slave(tmp_path: Path) -> Iterator[ReplicasManager]:
    """broker-a's replica 2, a slave of epoch 1 whose master (1) is unreachable, with enableSlaveActingMaster."""
    config = replace(manager_config(tmp_path / "broker"), enable_slave_acting_master=True)
    m = ReplicasManager(config, clock=SYSTEM)
    m.open_replica(2)
    assert m.replica is not None
    m.replica.change_to_slave(NOBODY, 1)
    serve_topics(m, "Orders")
    yield m
    if m.replica is not None:
        m.replica.close()


def no_master_reported(m: ReplicasManager, alive: frozenset[int]) -> None:
    """The controller just said the set has no master, and which replicas are alive; it listed the set's replicas
    (1, 2 and 3) before."""
    m.rip32.peers = {1: NOBODY, 2: "127.0.0.1:2", 3: NOBODY}
    m.rip32.answer = ControllerAnswer(None, now_ms())
    m.rip32.alive = alive


def test_the_smallest_alive_slave_acts_and_says_since_when(slave: ReplicasManager) -> None:
    no_master_reported(slave, frozenset({2, 3}))
    before = int(time.time() * 1000)
    slave.rip32.decide(reachable=True)
    status = slave.status()
    assert slave.acting and status.acting_episodes == 1
    assert before <= status.acting_since_ms <= int(time.time() * 1000)


def test_list_brokers_reports_the_acting_replica_and_since_when(slave: ReplicasManager) -> None:
    slave.config = replace(slave.config, ha_listen_port=20912)  # ListBrokers shows the bound HA address
    host = SimpleNamespace(proxy_address="", managers=lambda: [("b.conf", slave)], failed=lambda: [])
    servicer = AgentServicer(host)
    [before] = servicer.ListBrokers(pb.ListBrokersRequest(), None).brokers
    assert (before.acting_master, before.acting_since_millis) == (False, 0)
    no_master_reported(slave, frozenset({2}))
    slave.rip32.decide(reachable=True)
    [listed] = servicer.ListBrokers(pb.ListBrokersRequest(), None).brokers
    assert listed.acting_master and listed.acting_since_millis == slave.status().acting_since_ms > 0
    assert listed.role == Role.SLAVE.value  # acting is no role change


def test_a_larger_id_does_not_act(slave: ReplicasManager) -> None:
    no_master_reported(slave, frozenset({1, 2}))  # 1 alive but not master (its agent answers, its store is fenced)
    slave.rip32.decide(reachable=True)
    assert not slave.acting and slave.status().acting_since_ms == 0


def test_an_acting_replica_refuses_sends_and_writes_nothing(slave: ReplicasManager) -> None:
    no_master_reported(slave, frozenset({2}))
    slave.rip32.decide(reachable=True)
    assert slave.acting and slave.replica is not None
    end = slave.replica.store.max_offset
    sent = servicer_for(slave).SendMessage(
        pb.SendMessageRequest(message=pb.Message(topic="Orders", queue_id=-1, body=b"x")), None
    )
    assert sent.code == ResponseCode.SLAVE_NOT_AVAILABLE
    assert slave.replica.store.max_offset == end


def test_a_master_in_a_controller_answer_stops_acting_at_once(slave: ReplicasManager) -> None:
    no_master_reported(slave, frozenset({2, 3}))
    slave.rip32.decide(reachable=True)
    assert slave.acting
    slave.roles._apply(View(3, "127.0.0.1:3", NOBODY, 2, frozenset({3}), 1), may_elect=False)  # a push: 3 is master
    status = slave.status()
    assert not slave.acting and status.acting_since_ms == 0 and status.acting_episodes == 1
    assert status.role is Role.SLAVE and status.master_id == 3


def test_with_no_controller_and_no_peer_answering_a_slave_that_never_saw_a_master_acts(
    slave: ReplicasManager,
) -> None:
    slave.rip32.peers = {1: NOBODY, 2: "127.0.0.1:2", 3: NOBODY}
    slave.rip32.check(reachable=False)
    assert slave.rip32.alive == frozenset({2})
    assert slave.acting


def test_a_poll_no_controller_answers_decides_as_unreachable(slave: ReplicasManager) -> None:
    slave.rip32.peers = {1: NOBODY, 2: "127.0.0.1:2", 3: NOBODY}
    slave.roles._poll_cycle()  # the controller address has no listener
    assert slave.rip32.answer is None and slave.rip32.alive == frozenset({2})
    assert slave.acting  # never answered, no master ever seen, no peer answers


def test_a_replica_no_controller_ever_listed_the_set_to_does_not_act(slave: ReplicasManager) -> None:
    """Without the set's replicas it cannot tell a smaller alive replica from none: acting then could make two."""
    slave.roles._poll_cycle()
    assert slave.rip32.peers == {} and not slave.acting


def test_with_no_controller_a_master_named_recently_holds_acting_off(slave: ReplicasManager) -> None:
    slave.rip32.answer = ControllerAnswer(1, now_ms())
    slave.rip32.check(reachable=False)
    assert not slave.acting


def test_off_by_default_nothing_is_looked_up_and_nothing_acts(slave: ReplicasManager) -> None:
    slave.update_config(replace(slave.config, enable_slave_acting_master=False))
    slave.rip32.peers = {1: NOBODY}
    slave.rip32.check(reachable=False)
    assert not slave.acting and slave.rip32.alive == frozenset()


def test_switching_the_key_off_stops_an_acting_replica(slave: ReplicasManager) -> None:
    no_master_reported(slave, frozenset({2}))
    slave.rip32.decide(reachable=True)
    assert slave.acting
    slave.update_config(replace(slave.config, enable_slave_acting_master=False))
    slave.rip32.check(reachable=True)
    assert not slave.acting


def test_an_acting_replica_locks_orderly_queues_and_releases_them_when_it_stops(tmp_path: Path) -> None:
    """RIP-32's lock quorum: the acting replica coordinates, so it takes the locks (not strict: its own table);
    when a master is reported it stops and frees them, so the master need not wait for them to expire."""
    m = ReplicasManager(replace(manager_config(tmp_path / "broker"), enable_slave_acting_master=True), clock=SYSTEM)
    m.open_replica(2)
    assert m.replica is not None
    m.replica.change_to_slave(NOBODY, 1)
    keys = [QueueKey("G", "Orders", 0)]
    try:
        assert m.lock_queues(keys) == frozenset() and m.queue_locks.alive() == 0  # a slave does not coordinate
        no_master_reported(m, frozenset({2, 3}))
        m.rip32.decide(reachable=True)
        assert m.lock_queues(keys) == frozenset(keys) and m.queue_locks.alive() == 1
        m.rip32.answer = ControllerAnswer(1, now_ms())
        m.rip32.decide(reachable=True)
        assert not m.acting and m.queue_locks.alive() == 0
    finally:
        m.replica.close()
