"""Graceful master transfer, the broker's side: the write gate's rules (``write_gate``, table-driven,
the clock passed in), the HA master's write pause, waiting for the target's acknowledgement, the ReplicasManager
that carries the gate out, and the agent API around them.

The stores are real (tmp_path). Slave acknowledgements are driven through ``HAMaster._on_ack``, the method a
slave connection calls for every ``SlaveAcked`` it decodes, so no slave process or socket is needed. No test
asserts on durations: waits are bounded generously and only their outcome is checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agents.broker import write_gate
from agents.broker.manager import ReplicasManager
from agents.broker.worker_events import Poll
from agents.broker.write_gate import Gate, Step, TransferReady, WritePause
from agents.ha.actions import SlaveAcked
from agents.ha.config import HAConfig
from agents.ha.master_service import HAMaster, PutResult
from agents.ha.role import Position, Role
from agents.ha.sync_state import PutStatus, SyncState
from agents.store.epochs import EpochCache
from agents.store.message_store import MessageStore
from mqbase.clock import SYSTEM
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from tests.harness.ha_master import (
    SEG,
    WAIT_S,
    become_master,
    call_in_thread,
    ha_master,
    manager_config,
    msg,
    serve_topics,
    servicer_for,
)
from tests.harness.wait import wait_until

TARGET_ADDRESS = "127.0.0.1:30912"
LEASE_S = 100.0
"""The managers' transfer lease: shorter than their stall limit (300 s), so a test that moves the clock to the
lease's end sees the lease alone."""


# --- the write gate's rules (pure) --------------------------------------------------------------------

PAUSE = WritePause("t1", 2, TARGET_ADDRESS, 1, until=10.1)
RAN_OUT = "the write pause of the transfer to broker 2 ran out"


@pytest.mark.parametrize(
    ("gate", "now", "tick", "step"),
    [
        pytest.param(Gate(10.0), 10.2, True, Step(Gate(10.2)), id="watchdog_tick_moves_the_last_tick"),
        pytest.param(Gate(10.0), 10.2, False, Step(Gate(10.0)), id="a_put_only_looks"),
        pytest.param(Gate(10.0), 10.5, True, Step(Gate(10.5)), id="a_gap_of_exactly_the_limit_is_no_stall"),
        pytest.param(Gate(10.0), 11.0, True, Step(Gate(11.0, 11.0), write_gate.STALL), id="stall_closes"),
        pytest.param(Gate(10.0), 11.0, False, Step(Gate(10.0, 11.0), write_gate.STALL), id="a_put_notices_a_stall"),
        pytest.param(Gate(10.0, 5.0), 11.0, True, Step(Gate(11.0, 5.0)), id="stall_while_waiting_changes_nothing"),
        pytest.param(Gate(10.0, 10.0), 10.2, True, Step(Gate(10.2, 10.0)), id="waiting_lasts_until_answered"),
        pytest.param(Gate(10.0, pause=PAUSE), 10.1, True, Step(Gate(10.1, pause=PAUSE)), id="lease_not_ended_early"),
        pytest.param(
            Gate(10.0, pause=PAUSE), 10.2, True, Step(Gate(10.2, 10.2), RAN_OUT, PAUSE), id="lease_end_closes"
        ),
        pytest.param(
            Gate(10.0, pause=PAUSE), 11.0, True, Step(Gate(11.0, 11.0), write_gate.STALL, PAUSE), id="stall_and_lease"
        ),
        pytest.param(
            Gate(10.0, 9.0, PAUSE), 10.2, True, Step(Gate(10.2, 9.0), "", PAUSE), id="lease_end_while_waiting"
        ),
    ],
)
def test_observe(gate: Gate, now: float, tick: bool, step: Step) -> None:
    """A stall longer than the limit (0.5 s here) or a lease past its end makes writes wait for the controller."""
    assert write_gate.observe(gate, now, 0.5, tick=tick) == step


@pytest.mark.parametrize(
    ("gate", "asked_at", "after"),
    [
        pytest.param(Gate(1.0), 5.0, Gate(1.0), id="not_waiting"),
        pytest.param(Gate(1.0, 5.0), 4.9, Gate(1.0, 5.0), id="asked_before_the_gate_closed"),
        pytest.param(Gate(1.0, 5.0), 5.0, Gate(1.0), id="asked_when_it_closed"),
        pytest.param(Gate(1.0, 5.0, PAUSE), 6.0, Gate(1.0, None, PAUSE), id="asked_after_it_closed"),
    ],
)
def test_only_an_answer_asked_after_the_gate_closed_reopens_it(gate: Gate, asked_at: float, after: Gate) -> None:
    assert write_gate.answered(gate, asked_at) == after


@pytest.mark.parametrize(
    ("gate", "token", "after"),
    [
        pytest.param(Gate(1.0), "t1", None, id="no_pause"),
        pytest.param(Gate(1.0, pause=PAUSE), "other", None, id="another_token"),
        pytest.param(Gate(1.0, 0.5, PAUSE), "t1", Gate(1.0, 0.5), id="its_token"),
    ],
)
def test_resume_needs_the_pause_token(gate: Gate, token: str, after: Gate | None) -> None:
    assert write_gate.resume(gate, token) == after


@pytest.mark.parametrize(("timeout_ms", "limit_s"), [(600_000, 300.0), (10_000, 5.0), (600, 0.3), (0, 0.3)])
def test_the_stall_limit_is_half_the_heartbeat_timeout_at_least_300_ms(timeout_ms: int, limit_s: float) -> None:
    assert write_gate.pause_limit_s(timeout_ms) == limit_s


@pytest.mark.parametrize(
    ("broker_id", "role", "epoch", "has_master", "target", "master_epoch", "refused"),
    [
        pytest.param(
            -1, Role.FENCED, 0, False, 2, 1, (ResponseCode.CONTROLLER_INVALID_MASTER, "broker -1 is not a master"),
            id="unregistered",
        ),
        pytest.param(
            1, Role.FENCED, 0, False, 2, 1, (ResponseCode.CONTROLLER_INVALID_MASTER, "broker 1 is not a master"),
            id="fenced",
        ),
        pytest.param(
            1, Role.SLAVE, 1, False, 2, 1, (ResponseCode.CONTROLLER_INVALID_MASTER, "broker 1 is not a master"),
            id="slave",
        ),
        pytest.param(
            1, Role.MASTER, 1, False, 2, 1, (ResponseCode.CONTROLLER_INVALID_MASTER, "broker 1 is not a master"),
            id="master_role_without_an_ha_master",
        ),
        pytest.param(
            1, Role.MASTER, 3, True, 2, 2,
            (ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH, "broker 1 is master in epoch 3, not 2"), id="older_epoch",
        ),
        pytest.param(
            1, Role.MASTER, 3, True, 2, 4,
            (ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH, "broker 1 is master in epoch 3, not 4"), id="newer_epoch",
        ),
        pytest.param(
            1, Role.MASTER, 1, True, 1, 1, (ResponseCode.CONTROLLER_INVALID_REQUEST, "broker 1 is this master"),
            id="to_itself",
        ),
        pytest.param(1, Role.MASTER, 1, True, 2, 1, None, id="master_of_that_epoch"),
    ],
)  # fmt: skip
def test_who_may_prepare_a_transfer(
    broker_id: int, role: Role, epoch: int, has_master: bool, target: int, master_epoch: int,
    refused: tuple[int, str] | None,
) -> None:  # fmt: skip
    got = write_gate.refusal(broker_id, role, epoch, has_master, target, master_epoch)
    assert got == (TransferReady(*refused) if refused is not None else None)


@pytest.mark.parametrize(
    ("ack", "timeout_s", "same_role", "code", "remark"),
    [
        pytest.param(100, 0.05, False, ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH, "the role changed while waiting",
                     id="role_changed"),
        pytest.param(-1, 0.05, False, ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH, "the role changed while waiting",
                     id="role_change_outranks_a_missing_ack"),
        pytest.param(-1, 0.05, True, ResponseCode.CONTROLLER_ELECT_MASTER_FAILED,
                     "broker 2 is not connected, not the final offset 100, within 50 ms", id="not_connected"),
        pytest.param(0, 0.01, True, ResponseCode.CONTROLLER_ELECT_MASTER_FAILED,
                     "broker 2 acknowledged 0, not the final offset 100, within 10 ms", id="behind"),
        pytest.param(100, 30.0, True, ResponseCode.SUCCESS, "", id="caught_up"),
        pytest.param(200, 30.0, True, ResponseCode.SUCCESS, "", id="ahead"),
    ],
)  # fmt: skip
def test_the_outcome_of_the_wait(ack: int, timeout_s: float, same_role: bool, code: int, remark: str) -> None:
    got = write_gate.outcome(2, 100, ack, timeout_s, 0.5, same_role=same_role)
    assert got == TransferReady(code, remark, 100, ack, 0.5)


BAD_REQUESTS = [
    pytest.param({"token": ""}, id="no_token"),
    pytest.param({"timeout_millis": 0}, id="no_timeout"),
    pytest.param({"timeout_millis": -5}, id="negative_timeout"),
    pytest.param({"lease_millis": 1000}, id="lease_equal_to_timeout"),
    pytest.param({"lease_millis": 10}, id="lease_shorter_than_timeout"),
    pytest.param({"target_broker_id": -1}, id="negative_target"),
    pytest.param({"target_broker_id": 0}, id="target_0"),
    pytest.param({"timeout_millis": 60_001, "lease_millis": 70_000}, id="timeout_above_60000"),
    pytest.param({"lease_millis": 600_001}, id="lease_above_600000"),
    pytest.param({"timeout_millis": 2**63 - 1, "lease_millis": 2**63 - 1}, id="huge_timeout"),
    pytest.param({"lease_millis": 2**62}, id="huge_lease"),
]
GOOD_REQUEST: dict[str, Any] = {"token": "t1", "target_broker_id": 2, "timeout_millis": 1000, "lease_millis": 5000}


@pytest.mark.parametrize("fields", BAD_REQUESTS)
def test_malformed_prepare_requests(fields: dict[str, Any]) -> None:
    r = {**GOOD_REQUEST, **fields}
    problem = write_gate.request_problem(r["token"], r["target_broker_id"], r["timeout_millis"], r["lease_millis"])
    assert problem == (
        "token, target_broker_id >= 1, timeout_millis 1..60000 and lease_millis above timeout_millis, "
        "at most 600000, are required"
    )


@pytest.mark.parametrize(
    "fields", [{}, {"timeout_millis": 60_000, "lease_millis": 600_000}, {"timeout_millis": 1, "lease_millis": 2}]
)
def test_well_formed_prepare_requests(fields: dict[str, Any]) -> None:
    r = {**GOOD_REQUEST, **fields}
    assert write_gate.request_problem(r["token"], r["target_broker_id"], r["timeout_millis"], r["lease_millis"]) is None


# --- HAMaster ------------------------------------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MessageStore]:
    s = MessageStore(tmp_path / "store", SEG)
    yield s
    s.close()


@pytest.fixture
def master(store: MessageStore) -> Iterator[HAMaster]:
    m = ha_master(store)
    yield m
    m.stop()


def ack(master: HAMaster, broker_id: int, offset: int) -> None:
    """What the master's connection to `broker_id` does when that slave acknowledges `offset`."""
    master._on_ack(SlaveAcked(broker_id, offset, caught_up=True), False)


def test_a_paused_master_refuses_puts_and_appends_nothing(master: HAMaster, store: MessageStore) -> None:
    first = master.put([msg(0)])
    assert first.status is PutStatus.PUT_OK and first.end_offset == store.max_offset > 0
    final = master.pause_writes()
    assert final == store.max_offset == first.end_offset
    for i in range(3):
        assert master.put([msg(i)]) == PutResult(PutStatus.MASTER_TRANSFERRING, -1, -1)
    assert store.max_offset == final, "nothing was appended while paused"
    assert master.pause_writes() == final, "pausing again changes nothing"


def test_resumed_writes_continue_where_the_pause_stopped(master: HAMaster, store: MessageStore) -> None:
    master.put([msg(0)])
    final = master.pause_writes()
    master.resume_writes()
    after = master.put([msg(1), msg(2)])
    assert (after.status, after.start_offset) == (PutStatus.PUT_OK, final)
    assert store.max_offset == after.end_offset > final


def test_resume_without_a_pause_is_harmless(master: HAMaster) -> None:
    master.resume_writes()
    assert master.put([msg()]).status is PutStatus.PUT_OK


def test_an_empty_store_pauses_at_offset_0(master: HAMaster) -> None:
    assert master.pause_writes() == 0


def test_the_pause_outranks_other_refusals(store: MessageStore) -> None:
    """A paused master says MASTER_TRANSFERRING (retry at the target) even when it could not take the write anyway."""
    m = ha_master(store, min_in_sync_replicas=2)
    try:
        assert m.put([msg()]).status is PutStatus.IN_SYNC_REPLICAS_NOT_ENOUGH
        m.pause_writes()
        assert m.put([msg()]).status is PutStatus.MASTER_TRANSFERRING
    finally:
        m.stop()


def test_wait_acked_gives_minus_1_when_the_target_never_connected(master: HAMaster) -> None:
    master.put([msg()])
    assert master.wait_acked(2, master.pause_writes(), 0.01) == -1
    assert master.wait_acked(2, 0, 0.0) == -1, "an unknown slave has acknowledged nothing, not even offset 0"


def test_wait_acked_returns_at_once_when_the_target_is_there_already(master: HAMaster) -> None:
    master.put([msg()])
    final = master.pause_writes()
    ack(master, 2, final)
    assert master.wait_acked(2, final, 0.0) == final
    ack(master, 3, final + 100)  # a slave that is ahead (a longer log from an older epoch) also satisfies it
    assert master.wait_acked(3, final, 0.0) == final + 100


def test_wait_acked_returns_when_the_acknowledgement_arrives(master: HAMaster) -> None:
    master.put([msg(0), msg(1)])
    final = master.pause_writes()
    waiter, result = call_in_thread(lambda: master.wait_acked(2, final, WAIT_S))
    ack(master, 3, final)  # another slave's ack does not count
    ack(master, 2, final - 1)  # nor does a partial one
    waiter.join(0.2)
    assert waiter.is_alive(), "still waiting for broker 2 to reach the final offset"
    ack(master, 2, final)
    waiter.join(WAIT_S)
    assert result == [final]


def test_wait_acked_gives_the_last_partial_ack_on_timeout(master: HAMaster) -> None:
    master.put([msg()])
    final = master.pause_writes()
    ack(master, 2, 0)
    assert master.wait_acked(2, final, 0.01) == 0


@pytest.mark.parametrize("listening", [False, True], ids=["not_listening", "listening"])
def test_stop_wakes_a_waiter_early(store: MessageStore, listening: bool) -> None:
    m = ha_master(store)
    if listening:
        assert m.start("127.0.0.1", 0) > 0
    m.put([msg()])
    final = m.pause_writes()
    waiter, result = call_in_thread(lambda: m.wait_acked(2, final, 600.0))
    waiter.join(0.05)
    m.stop()
    waiter.join(WAIT_S)
    assert not waiter.is_alive(), "stop() woke the waiter long before its 600 s timeout"
    assert result == [-1]


def test_a_put_waiting_for_acks_is_included_in_the_final_offset(store: MessageStore) -> None:
    """The pause is atomic with appends: a put that appended and waits for its acks is below the final offset."""
    m = ha_master(store, frozenset({1, 2}), all_ack_in_sync_state_set=True, sync_flush_timeout_s=WAIT_S)
    try:
        before = store.max_offset
        putter, put_result = call_in_thread(lambda: m.put([msg()]))
        wait_until(lambda: store.max_offset > before, WAIT_S, "the put's append", interval=0.005)
        final = m.pause_writes()
        assert final == store.max_offset
        assert m.put([msg(1)]).status is PutStatus.MASTER_TRANSFERRING
        waiter, acked = call_in_thread(lambda: m.wait_acked(2, final, WAIT_S))
        ack(m, 2, final)
        putter.join(WAIT_S)
        waiter.join(WAIT_S)
        assert put_result[0].status is PutStatus.PUT_OK and put_result[0].end_offset == final
        assert acked == [final]
    finally:
        m.stop()


# --- ReplicasManager.prepare_transfer ----------------------------------------------------------------


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[ReplicasManager]:
    """A manager whose threads never start: no controller, no heartbeats; broker id 1 opened but fenced."""
    m = ReplicasManager(manager_config(tmp_path / "broker"), clock=SYSTEM)
    m.open_replica(1)
    yield m
    if m.replica is not None:
        m.replica.close()


def prepare(m: ReplicasManager, target: int = 2, epoch: int = 1, timeout_s: float = 0.01, token: str = "t1") -> Any:
    return m.writes.prepare_transfer(target, TARGET_ADDRESS, epoch, timeout_s, LEASE_S, token)


def test_a_manager_without_a_replica_is_not_a_master(tmp_path: Path) -> None:
    m = ReplicasManager(manager_config(tmp_path / "broker"), clock=SYSTEM)
    assert prepare(m) == TransferReady(ResponseCode.CONTROLLER_INVALID_MASTER, "broker -1 is not a master")
    assert m.writes.pause is None


def test_a_fenced_replica_is_not_a_master(manager: ReplicasManager) -> None:
    assert prepare(manager) == TransferReady(ResponseCode.CONTROLLER_INVALID_MASTER, "broker 1 is not a master")
    assert manager.writes.pause is None


def test_a_master_of_another_epoch_refuses(manager: ReplicasManager) -> None:
    master = become_master(manager, epoch=3)
    for epoch in (2, 4):
        got = prepare(manager, epoch=epoch)
        assert got == TransferReady(
            ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH, f"broker 1 is master in epoch 3, not {epoch}"
        )
    assert manager.writes.pause is None
    assert master.put([msg()]).status is PutStatus.PUT_OK, "a refusal never pauses writes"


def test_the_master_cannot_transfer_to_itself(manager: ReplicasManager) -> None:
    become_master(manager)
    assert prepare(manager, target=1) == TransferReady(
        ResponseCode.CONTROLLER_INVALID_REQUEST, "broker 1 is this master"
    )
    assert manager.writes.pause is None


def test_a_target_that_never_acknowledges_aborts_and_writes_resume(manager: ReplicasManager) -> None:
    become_master(manager)
    assert manager.writes.put([msg()]).status is PutStatus.PUT_OK
    assert manager.replica is not None
    final = manager.replica.store.max_offset
    got = prepare(manager, timeout_s=0.05)
    assert (got.code, got.final_offset, got.target_ack_offset) == (
        ResponseCode.CONTROLLER_ELECT_MASTER_FAILED,
        final,
        -1,
    )
    assert got.remark == f"broker 2 is not connected, not the final offset {final}, within 50 ms"
    assert manager.writes.pause is None
    assert manager.writes.put([msg(1)]).status is PutStatus.PUT_OK


def test_a_target_behind_is_named_with_its_ack(manager: ReplicasManager) -> None:
    master = become_master(manager)
    manager.writes.put([msg()])
    ack(master, 2, 0)
    got = prepare(manager, timeout_s=0.01)
    assert got.code == ResponseCode.CONTROLLER_ELECT_MASTER_FAILED
    assert got.target_ack_offset == 0
    assert got.remark.startswith(f"broker 2 acknowledged 0, not the final offset {got.final_offset}")
    assert manager.writes.put([msg(1)]).status is PutStatus.PUT_OK


def test_a_caught_up_target_leaves_writes_paused_until_resumed_with_the_token(manager: ReplicasManager) -> None:
    master = become_master(manager)
    manager.writes.put([msg()])
    assert manager.replica is not None
    final = manager.replica.store.max_offset
    ack(master, 2, final)
    got = prepare(manager, timeout_s=WAIT_S)
    assert (got.code, got.remark, got.final_offset, got.target_ack_offset) == (ResponseCode.SUCCESS, "", final, final)
    pause = manager.writes.pause
    assert isinstance(pause, WritePause)
    assert (pause.token, pause.target_id, pause.target_address, pause.master_epoch) == ("t1", 2, TARGET_ADDRESS, 1)
    assert manager.writes.put([msg(1)]).status is PutStatus.MASTER_TRANSFERRING
    assert manager.replica.store.max_offset == final
    assert manager.writes.resume_writes("other", "a stale abort") is False
    assert manager.writes.put([msg(1)]).status is PutStatus.MASTER_TRANSFERRING
    assert manager.writes.resume_writes("t1", "aborted by the controller") is True
    assert manager.writes.pause is None
    assert manager.writes.put([msg(1)]).status is PutStatus.PUT_OK
    assert manager.writes.resume_writes("t1", "again") is False


def test_the_acknowledgement_may_arrive_while_the_master_waits(manager: ReplicasManager) -> None:
    master = become_master(manager)
    manager.writes.put([msg()])
    preparing, ready = call_in_thread(lambda: prepare(manager, timeout_s=WAIT_S))
    wait_until(lambda: manager.writes.pause is not None, WAIT_S, "the write pause", interval=0.005)
    assert manager.replica is not None
    ack(master, 2, manager.replica.store.max_offset)
    preparing.join(WAIT_S)
    assert ready[0].code == ResponseCode.SUCCESS


@pytest.fixture
def all_ack_manager(tmp_path: Path) -> Iterator[ReplicasManager]:
    """As `manager`, with allAckInSyncStateSet=true: a put waits for every SyncStateSet member."""
    m = ReplicasManager(replace(manager_config(tmp_path / "broker"), all_ack_in_sync_state_set=True), clock=SYSTEM)
    m.open_replica(1)
    yield m
    if m.replica is not None:
        m.replica.close()


def test_a_put_in_flight_gets_its_answer_before_the_transfer_is_ready(all_ack_manager: ReplicasManager) -> None:
    """The target holding the final offset is not enough: a put still waiting for the third member of the
    SyncStateSet would be answered FLUSH_SLAVE_TIMEOUT by the role change that follows a ready transfer."""
    manager = all_ack_manager
    master = become_master(manager, members=frozenset({1, 2, 3}))
    assert manager.replica is not None
    store = manager.replica.store
    before = store.max_offset
    putter, put_result = call_in_thread(lambda: manager.writes.put([msg()]))
    wait_until(lambda: store.max_offset > before, WAIT_S, "the put's append", interval=0.005)
    final = store.max_offset

    def transfer_then_step_down() -> Any:
        ready = prepare(manager, timeout_s=WAIT_S)
        master.stop()  # what the controller's election of the target does to this master next
        return ready

    preparing, ready = call_in_thread(transfer_then_step_down)
    wait_until(lambda: manager.writes.pause is not None, WAIT_S, "the write pause", interval=0.005)
    ack(master, 2, final)
    preparing.join(0.5)  # the old code answers at once and steps down: the put it leaves waiting fails
    putter.join(0.5)
    ack(master, 3, final)
    putter.join(WAIT_S)
    preparing.join(WAIT_S)
    assert ready[0].code == ResponseCode.SUCCESS
    assert put_result[0].status is PutStatus.PUT_OK


def master_acked_by_target(manager: ReplicasManager) -> HAMaster:
    """Make `manager` master with one message that the target (broker 2) has acknowledged."""
    master = become_master(manager)
    manager.writes.put([msg()])
    assert manager.replica is not None
    ack(master, 2, manager.replica.store.max_offset)
    return master


def test_a_second_prepare_takes_the_pause_over_with_its_token(manager: ReplicasManager) -> None:
    master_acked_by_target(manager)
    assert prepare(manager, token="t1").code == ResponseCode.SUCCESS
    assert prepare(manager, token="t2").code == ResponseCode.SUCCESS
    assert manager.writes.pause is not None and manager.writes.pause.token == "t2"
    assert manager.writes.resume_writes("t1", "old leader") is False
    assert manager.writes.put([msg(1)]).status is PutStatus.MASTER_TRANSFERRING
    assert manager.writes.resume_writes("t2", "new leader") is True
    assert manager.writes.put([msg(1)]).status is PutStatus.PUT_OK


def test_an_expired_lease_waits_for_the_controller_instead_of_resuming(manager: ReplicasManager) -> None:
    master = master_acked_by_target(manager)
    assert prepare(manager).code == ResponseCode.SUCCESS
    pause = manager.writes.pause
    assert pause is not None
    manager.writes.observe(tick=True, now=pause.until + 1.0)  # what the watchdog does once the lease ran out
    assert manager.writes.pause is None
    assert manager.writes.put([msg(1)]).status is PutStatus.SERVICE_NOT_AVAILABLE, "fenced until the controller answers"
    assert manager.roles._events.get_nowait() == Poll(), "the controller is asked at once"
    assert master.put([msg(1)]).status is PutStatus.PUT_OK, "the HA master itself is no longer paused"


def test_the_lease_does_not_end_a_pause_early(manager: ReplicasManager) -> None:
    master_acked_by_target(manager)
    assert prepare(manager).code == ResponseCode.SUCCESS
    pause = manager.writes.pause
    assert pause is not None
    manager.writes.observe(tick=True, now=pause.until)
    assert manager.writes.pause == pause
    assert manager.writes.put([msg(1)]).status is PutStatus.MASTER_TRANSFERRING


def test_the_role_and_epoch_have_one_record_the_replicas_position(manager: ReplicasManager) -> None:
    """The manager keeps no copy of its role and epoch: what the replica was told is what the broker reports."""
    assert (manager.status().role, manager.status().master_epoch) == (Role.FENCED, 0)
    assert manager.replica is not None
    manager.replica.change_to_master(4, frozenset({1}), 1, lambda _s: None)
    assert manager.replica.position == Position(Role.MASTER, 4)
    assert (manager.status().role, manager.status().master_epoch) == (Role.MASTER, 4)
    assert manager.readable()


def test_a_role_change_ends_the_pause(manager: ReplicasManager) -> None:
    master_acked_by_target(manager)
    assert prepare(manager).code == ResponseCode.SUCCESS
    become_master(manager, epoch=2)  # e.g. the transfer was aborted by an election that kept this broker
    assert manager.writes.pause is None
    assert manager.writes.put([msg(1)]).status is PutStatus.PUT_OK, "the new epoch's master starts unpaused"


# --- the agent API ------------------------------------------------------------------------------------


def prepare_request(**fields: Any) -> pb.PrepareTransferRequest:
    base: dict[str, Any] = {
        "target_broker_id": 2, "target_address": TARGET_ADDRESS, "master_epoch": 1,
        "timeout_millis": 1000, "lease_millis": 5000, "token": "t1",
    }  # fmt: skip
    return pb.PrepareTransferRequest(**{**base, **fields})


@pytest.mark.parametrize("fields", BAD_REQUESTS)
def test_prepare_transfer_requests_are_validated_before_anything_pauses(
    manager: ReplicasManager, fields: dict[str, Any]
) -> None:
    become_master(manager)
    r = servicer_for(manager).PrepareTransfer(prepare_request(**fields), None)
    assert r.code == ResponseCode.CONTROLLER_INVALID_REQUEST
    assert r.remark.startswith("token, target_broker_id >= 1, timeout_millis 1..60000 and lease_millis")
    assert manager.writes.pause is None


def test_prepare_transfer_reports_the_manager_answer(manager: ReplicasManager) -> None:
    r = servicer_for(manager).PrepareTransfer(prepare_request(), None)
    assert (r.code, r.remark, r.final_offset, r.target_ack_offset) == (
        ResponseCode.CONTROLLER_INVALID_MASTER, "broker 1 is not a master", -1, -1
    )  # fmt: skip


def test_a_send_during_the_pause_is_refused_with_14_and_the_target_address(manager: ReplicasManager) -> None:
    master = become_master(manager)
    serve_topics(manager, "Orders")
    service = servicer_for(manager)
    send = pb.SendMessageRequest(message=pb.Message(topic="Orders", queue_id=0, body=b"x"))
    assert service.SendMessage(send, None).code == ResponseCode.SUCCESS
    assert manager.replica is not None
    ack(master, 2, manager.replica.store.max_offset)
    r = service.PrepareTransfer(prepare_request(timeout_millis=int(WAIT_S * 1000), lease_millis=600_000), None)
    assert (r.code, r.final_offset) == (ResponseCode.SUCCESS, manager.replica.store.max_offset)
    refused = service.SendMessage(send, None)
    assert (refused.code, refused.status, refused.master_address) == (14, "MASTER_TRANSFERRING", TARGET_ADDRESS)
    assert "retry there" in refused.remark and not refused.results
    resumed = service.ResumeWrites(pb.ResumeWritesRequest(token="nope"), None)
    assert (resumed.code, resumed.remark) == (ResponseCode.SUCCESS, "no write pause with this token")
    resumed = service.ResumeWrites(pb.ResumeWritesRequest(token="t1", reason="test"), None)
    assert (resumed.code, resumed.remark) == (ResponseCode.SUCCESS, "")
    assert service.SendMessage(send, None).code == ResponseCode.SUCCESS


def test_a_put_reports_the_epoch_of_the_master_that_wrote_it(store: MessageStore) -> None:
    """The epoch in a send's answer is the writing master's, fixed when it was made (a role change in between
    cannot relabel the write: chaos invariant 2 counts writers per epoch from these answers)."""
    cache = EpochCache.from_pairs([(1, 0), (4, 1)])
    master = HAMaster(store, lambda: cache, SyncState(1, frozenset({1}), 1), HAConfig(), on_propose=lambda _s: None)
    cache = EpochCache.from_pairs([(1, 0), (4, 1), (5, 2)])  # the book moves on; this master stays epoch 4's
    try:
        result = master.put([msg()])
        assert (result.status, result.epoch) == (PutStatus.PUT_OK, 4)
    finally:
        master.stop()


def test_a_stopped_master_refuses_puts_and_appends_nothing(master: HAMaster, store: MessageStore) -> None:
    """A put that reaches a master after a role change stopped it must not write in the epoch that ended."""
    master.put([msg(0)])
    end = store.max_offset
    master.stop()
    assert master.put([msg(1)]) == PutResult(PutStatus.SERVICE_NOT_AVAILABLE)
    assert store.max_offset == end
