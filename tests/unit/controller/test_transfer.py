"""Graceful master transfer, the controller's side: who may take over, the scan's plan, the fenced
election (``transfer_master``), the proposer's deadline, the config keys and the gRPC request validation.

Everything here is pure except the proposer tests, which use the in-memory Raft stand-in of test_proposer.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller import convert
from controller import transferer as transferer_module
from controller.codec import decode_events, encode_events
from controller.config import RUNTIME_KEYS, ConfigError, ControllerConfig, load, to_properties, validate, with_overrides
from controller.convert import InvalidRequest
from controller.election import preferred_of
from controller.events import ElectMaster
from controller.model import AliveView, BrokerSet, ControllerState, LiveInfo, Replica
from controller.proposer import Proposer
from controller.requests import (
    ElectMasterReply,
    ElectMasterRequest,
    GetNextBrokerIdRequest,
    Request,
    Result,
    TransferMasterRequest,
)
from controller.state import METADATA_NOT_EXIST, apply_events, compute
from controller.transfer import (
    DECIDED,
    Planned,
    Record,
    ScanLimits,
    after_election,
    check_transfer,
    deadlines,
    missing_from_full_set,
    outcome_code,
    plan_transfers,
    scan_warning,
    too_late,
)
from controller.transferer import Transferer
from mqbase.codes import ResponseCode as C
from mqbase.proto import controller_pb2 as pb
from tests.harness.controller_invariants import (
    ALIVE,
    REQUESTS,
    Spec,
    check_result,
    check_state,
    check_transition,
    materialize,
)
from tests.harness.controller_state import (
    BROKER,
    CLUSTER,
    InMemoryRaft,
    addr,
    alive_of,
    broker_set,
    check_code,
    ha_addr,
    live,
    master_view,
    run,
    three_replicas,
    two_sets_of_three,
    with_master,
)

LEARNER = live(epoch=9, max_offset=10**9, async_learner=True)
PEERS = "n0-127.0.0.1:9878:9876"


def alive(broker_name: str = BROKER, **by_id: LiveInfo) -> dict[tuple[str, int], LiveInfo]:
    """An alive view of one set from keyword ids: ``alive(b1=live(), b3=LEARNER)``."""
    return {(broker_name, int(key[1:])): info for key, info in by_id.items()}


NOW = 1000.0
"""The leader's clock in the clock-driven tests: every time in them is relative to it."""


def transfer(
    target: int, master: int = 1, epoch: int = 1, broker_name: str = BROKER, not_after: float = float("inf")
) -> TransferMasterRequest:
    return TransferMasterRequest(CLUSTER, broker_name, target, master, epoch, not_after)


def make_set(
    name: str,
    master: int | None,
    sync_state_set: Iterable[int],
    *,
    preferred: int | None = None,
    ids: Iterable[int] = (1, 2, 3),
    master_epoch: int = 1,
) -> BrokerSet:
    """A broker set built directly (the planner only reads it)."""
    registered = tuple(sorted(ids))
    return BrokerSet(
        cluster_name=CLUSTER,
        broker_name=name,
        replicas=tuple(Replica(i, addr(i), check_code(i), ha_addr(i)) for i in registered),
        next_broker_id=max(registered) + 1,
        master_id=master,
        master_epoch=master_epoch,
        sync_state_set=frozenset(sync_state_set),
        sync_state_set_epoch=2,
        preferred_id=preferred,
    )


def state_of(*sets: BrokerSet) -> ControllerState:
    return ControllerState(MappingProxyType({bs.broker_name: bs for bs in sets}))


def everyone(*names: str, ids: Iterable[int] = (1, 2, 3), **overrides: LiveInfo) -> dict[tuple[str, int], LiveInfo]:
    """Every id of the named sets alive (plain ``live()``), with ``b<id>=`` overrides in every set."""
    view = {(name, i): live() for name in names for i in ids}
    for name in names:
        view.update(alive(name, **overrides))
    return view


# --- check_transfer: every refusal, and the allowed case ----------------------------------------


FULL = broker_set(with_master(1, (1, 2, 3)))
"""Master 1 (masterEpoch 1), SyncStateSet {1, 2, 3} (syncStateSetEpoch 2)."""


@pytest.mark.parametrize(
    ("bs", "target", "views", "required", "reason"),
    [
        pytest.param(
            FULL, 9, alive_of(1, 2, 3), True,
            "broker 9 is not registered in broker set broker-a (registered ids: 1, 2, 3)", id="not_registered",
        ),
        pytest.param(
            replace(FULL, replicas=(), sync_state_set=frozenset(), master_id=None), 1, {}, True,
            "broker 1 is not registered in broker set broker-a (registered ids: none)", id="not_registered_empty",
        ),
        pytest.param(
            broker_set(three_replicas()), 2, alive_of(1, 2, 3), True,
            "broker set broker-a has no master; elect one first (mqadmin electMaster)", id="no_master",
        ),
        pytest.param(
            FULL, 1, alive_of(1, 2, 3), True,
            "broker 1 is already the master of broker-a (masterEpoch 1)", id="already_master",
        ),
        pytest.param(
            FULL, 2, alive_of(2, 3), True,
            "master 1 of broker-a is not alive; the controller elects a new master by itself", id="master_dead",
        ),
        pytest.param(
            FULL, 2, alive_of(1, 3), True,
            "broker 2 of broker-a is not alive (no heartbeat within its timeout)", id="target_dead",
        ),
        pytest.param(
            FULL, 2, alive(b1=live(), b2=LEARNER, b3=live()), False,
            "broker 2 of broker-a is an async learner, which never becomes master", id="async_learner",
        ),
        pytest.param(
            broker_set(with_master(1, (1, 3))), 2, alive_of(1, 2, 3), False,
            "broker 2 is not in the SyncStateSet of broker-a (1, 3); it must catch up with the master first",
            id="not_in_sync_state_set",
        ),
        pytest.param(
            broker_set(with_master(1, (1, 2))), 2, alive_of(1, 2, 3), True,
            "the SyncStateSet of broker-a is below its full size (not in sync: 3); wait for them, clean dead "
            "brokers (mqadmin cleanBrokerMetadata), or set transferMasterRequireFullSyncStateSet=false",
            id="below_full_size",
        ),
        pytest.param(
            broker_set(with_master(1, (1, 2))), 2, alive_of(1, 2), True,
            "the SyncStateSet of broker-a is below its full size (not in sync: 3); wait for them, clean dead "
            "brokers (mqadmin cleanBrokerMetadata), or set transferMasterRequireFullSyncStateSet=false",
            id="dead_registered_broker_counts_as_missing",
        ),
    ],
)  # fmt: skip
def test_check_transfer_refusals_say_why(
    bs: BrokerSet, target: int, views: dict[tuple[str, int], LiveInfo], required: bool, reason: str
) -> None:
    assert check_transfer(bs, target, views, require_full_sync_state_set=required) == reason


@pytest.mark.parametrize(
    ("bs", "views", "required"),
    [
        pytest.param(FULL, alive_of(1, 2, 3), True, id="full_set"),
        pytest.param(FULL, alive_of(1, 2, 3), False, id="full_set_not_required"),
        pytest.param(broker_set(with_master(1, (1, 2))), alive_of(1, 2, 3), False, id="below_full_not_required"),
        pytest.param(broker_set(with_master(1, (1, 2))), alive_of(1, 2), False, id="dead_member_not_required"),
        pytest.param(
            broker_set(with_master(1, (1, 2))), alive(b1=live(), b2=live(), b3=LEARNER), True,
            id="alive_async_learner_is_not_missing",
        ),
    ],
)  # fmt: skip
def test_check_transfer_allows(bs: BrokerSet, views: dict[tuple[str, int], LiveInfo], required: bool) -> None:
    assert check_transfer(bs, 2, views, require_full_sync_state_set=required) is None


def test_a_dead_target_outside_the_set_is_reported_dead_first() -> None:
    """The order of the checks: liveness before SyncStateSet membership before the full-size rule."""
    bs = broker_set(with_master(1, (1, 3)))
    assert check_transfer(bs, 2, alive_of(1, 3), require_full_sync_state_set=True) == (
        "broker 2 of broker-a is not alive (no heartbeat within its timeout)"
    )
    learner_outside = alive(b1=live(), b2=LEARNER, b3=live())
    reason = check_transfer(bs, 2, learner_outside, require_full_sync_state_set=True)
    assert reason is not None and "async learner" in reason


@pytest.mark.parametrize(
    ("sss", "views", "missing"),
    [
        pytest.param((1, 2, 3), alive_of(1, 2, 3), (), id="full"),
        pytest.param((1, 2), alive_of(1, 2, 3), (3,), id="alive_outside"),
        pytest.param((1, 2), alive_of(1, 2), (3,), id="dead_outside"),
        pytest.param((1,), alive_of(1), (2, 3), id="two_dead"),
        pytest.param((1, 2), alive(b1=live(), b2=live(), b3=LEARNER), (), id="alive_learner_outside"),
        pytest.param((1,), alive(b1=live(), b2=live(), b3=LEARNER), (2,), id="learner_skipped_other_listed"),
        pytest.param((1, 2, 3), alive_of(1), (), id="dead_members_are_members"),
    ],
)
def test_missing_from_full_set(
    sss: tuple[int, ...], views: dict[tuple[str, int], LiveInfo], missing: tuple[int, ...]
) -> None:
    assert missing_from_full_set(broker_set(with_master(1, sss)), views) == missing


def test_liveness_of_another_set_with_the_same_ids_does_not_count() -> None:
    views = alive_of(1, 2, 3, broker_name="broker-b")
    assert check_transfer(FULL, 2, views, require_full_sync_state_set=True) == (
        "master 1 of broker-a is not alive; the controller elects a new master by itself"
    )


# --- plan_transfers: the preferred-master scan's safeguards -------------------------------------

LIMITS = ScanLimits(require_full_sync_state_set=True, min_interval_s=60.0, max_per_scan=100)


def plan(
    state: ControllerState,
    views: AliveView,
    *,
    busy: Iterable[str] = (),
    last_attempt: dict[str, float] | None = None,
    now: float = 1000.0,
    limits: ScanLimits = LIMITS,
) -> list[Planned]:
    return plan_transfers(state, views, busy=set(busy), last_attempt=last_attempt or {}, now=now, limits=limits)


def test_a_set_without_a_preferred_broker_is_not_listed() -> None:
    state = state_of(make_set("broker-a", 1, (1, 2, 3)))
    assert plan(state, everyone("broker-a")) == []
    assert plan(state, everyone("broker-a", b2=live(priority=1))) == [], "only priority 0 marks a preferred broker"


def test_a_set_whose_master_is_its_preferred_is_not_listed() -> None:
    assert plan(state_of(make_set("broker-a", 2, (1, 2, 3), preferred=2)), everyone("broker-a")) == []
    assert plan(state_of(make_set("broker-a", 1, (1, 2, 3))), everyone("broker-a", b1=live(priority=0))) == []


def test_an_assigned_preferred_that_is_not_master_is_moved_to() -> None:
    state = state_of(make_set("broker-a", 1, (1, 2, 3), preferred=2))
    assert plan(state, everyone("broker-a")) == [Planned("broker-a", 2, None)]


def test_the_lowest_alive_priority_0_broker_is_the_preferred_when_none_is_assigned() -> None:
    state = state_of(make_set("broker-a", 1, (1, 2, 3)))
    views = everyone("broker-a", b2=live(priority=0), b3=live(priority=0))
    assert plan(state, views) == [Planned("broker-a", 2, None)]
    views = everyone("broker-a", b2=replace(LEARNER, election_priority=0), b3=live(priority=0))
    state = state_of(make_set("broker-a", 1, (1, 3), ids=(1, 2, 3)))
    assert plan(state, views) == [Planned("broker-a", 3, None)], "a priority-0 learner is never the preferred"


def test_an_assignment_overrides_priority_0() -> None:
    views = everyone("broker-a", b3=live(priority=0))
    assert plan(state_of(make_set("broker-a", 1, (1, 2, 3), preferred=2)), views) == [Planned("broker-a", 2, None)]
    assert plan(state_of(make_set("broker-a", 1, (1, 2, 3), preferred=1)), views) == [], "assigned 1 is master"


def test_a_dead_assigned_preferred_is_listed_as_blocked() -> None:
    state = state_of(make_set("broker-a", 1, (1, 2, 3), preferred=2))
    views = alive(b1=live(), b3=live())
    assert plan(state, views) == [
        Planned("broker-a", 2, "broker 2 of broker-a is not alive (no heartbeat within its timeout)")
    ]


def test_sets_without_a_master_are_not_listed() -> None:
    state = state_of(make_set("broker-a", None, (1, 2, 3), preferred=2, master_epoch=2))
    assert plan(state, everyone("broker-a", b2=live(priority=0))) == []


def test_check_transfer_refusals_block_with_its_reason_and_the_full_set_rule_follows_the_limits() -> None:
    state = state_of(make_set("broker-a", 1, (1, 2), preferred=2))
    (verdict,) = plan(state, everyone("broker-a"))
    assert verdict.target == 2 and verdict.blocked_by is not None
    assert verdict.blocked_by.startswith("the SyncStateSet of broker-a is below its full size (not in sync: 3)")
    relaxed = replace(LIMITS, require_full_sync_state_set=False)
    assert plan(state, everyone("broker-a"), limits=relaxed) == [Planned("broker-a", 2, None)]
    state = state_of(make_set("broker-a", 1, (1, 3), preferred=2))
    assert plan(state, everyone("broker-a"), limits=relaxed) == [
        Planned(
            "broker-a",
            2,
            "broker 2 is not in the SyncStateSet of broker-a (1, 3); it must catch up with the master first",
        )
    ]


def test_a_busy_set_waits() -> None:
    state = state_of(make_set("broker-a", 1, (1, 2, 3), preferred=2))
    assert plan(state, everyone("broker-a"), busy={"broker-a"}) == [
        Planned("broker-a", 2, "a transfer of broker-a is already running")
    ]
    assert plan(state, everyone("broker-a"), busy={"broker-b"}) == [Planned("broker-a", 2, None)]


def test_a_refusal_is_reported_before_busy() -> None:
    state = state_of(make_set("broker-a", 1, (1, 3), preferred=2))
    (verdict,) = plan(state, everyone("broker-a"), busy={"broker-a"})
    assert verdict.blocked_by is not None and "not in the SyncStateSet" in verdict.blocked_by


@pytest.mark.parametrize(
    ("now", "blocked_by"),
    [
        pytest.param(100.0, "the last transfer attempt of broker-a is within the minimum interval (next in 60 s)",
                     id="just_attempted"),
        pytest.param(130.0, "the last transfer attempt of broker-a is within the minimum interval (next in 30 s)",
                     id="half_way"),
        pytest.param(159.5, "the last transfer attempt of broker-a is within the minimum interval (next in 0 s)",
                     id="half_a_second_before"),
        pytest.param(160.0, None, id="exactly_the_interval_later"),
        pytest.param(1000.0, None, id="long_after"),
    ],
)  # fmt: skip
def test_the_minimum_interval_per_set(now: float, blocked_by: str | None) -> None:
    state = state_of(make_set("broker-a", 1, (1, 2, 3), preferred=2))
    assert plan(state, everyone("broker-a"), last_attempt={"broker-a": 100.0}, now=now) == [
        Planned("broker-a", 2, blocked_by)
    ]


def test_the_interval_is_per_set_and_a_set_never_attempted_is_not_limited() -> None:
    state = state_of(make_set("broker-a", 1, (1, 2, 3), preferred=2), make_set("broker-b", 1, (1, 2, 3), preferred=2))
    got = plan(state, everyone("broker-a", "broker-b"), last_attempt={"broker-b": 0.0}, now=0.0)
    assert [(p.broker_name, p.blocked_by is None) for p in got] == [("broker-a", True), ("broker-b", False)]
    zero = replace(LIMITS, min_interval_s=0.0)
    got = plan(state, everyone("broker-a", "broker-b"), last_attempt={"broker-b": 0.0}, now=0.0, limits=zero)
    assert all(p.blocked_by is None for p in got), "an interval of 0 never blocks"


NAMES4 = ("broker-d", "broker-c", "broker-b", "broker-a")  # inserted in reverse order on purpose


def four_movable_sets() -> ControllerState:
    return state_of(*(make_set(n, 1, (1, 2, 3), preferred=2) for n in NAMES4))


def test_verdicts_come_in_broker_name_order() -> None:
    got = plan(four_movable_sets(), everyone(*NAMES4))
    assert [p.broker_name for p in got] == sorted(NAMES4)
    assert all(p.blocked_by is None for p in got)


def test_the_cap_per_scan_lets_the_first_sets_by_name_go_and_tells_the_rest_why() -> None:
    got = plan(four_movable_sets(), everyone(*NAMES4), limits=replace(LIMITS, max_per_scan=2))
    cap = "2 transfers started in this scan already (cap per scan)"
    assert got == [
        Planned("broker-a", 2, None),
        Planned("broker-b", 2, None),
        Planned("broker-c", 2, cap),
        Planned("broker-d", 2, cap),
    ]


def test_the_cap_counts_only_transfers_that_start() -> None:
    got = plan(
        four_movable_sets(),
        everyone(*NAMES4),
        busy={"broker-a"},
        last_attempt={"broker-c": 990.0},
        limits=replace(LIMITS, max_per_scan=1),
    )
    assert [(p.broker_name, p.blocked_by) for p in got] == [
        ("broker-a", "a transfer of broker-a is already running"),
        ("broker-b", None),
        ("broker-c", "the last transfer attempt of broker-c is within the minimum interval (next in 50 s)"),
        ("broker-d", "1 transfers started in this scan already (cap per scan)"),
    ]


def test_a_mixed_cluster_lists_only_movable_sets() -> None:
    state = state_of(
        make_set("a-no-preferred", 1, (1, 2, 3)),
        make_set("b-at-preferred", 2, (1, 2, 3), preferred=2),
        make_set("c-no-master", None, (1, 2, 3), preferred=2),
        make_set("d-movable", 1, (1, 2, 3), preferred=3),
    )
    names = [bs.broker_name for bs in state]
    assert plan(state, everyone(*names)) == [Planned("d-movable", 3, None)]


# --- TransferMaster through compute ---------------------------------------------------------------


def test_a_transfer_elects_the_target_in_the_next_master_epoch() -> None:
    state = with_master(1, (1, 2, 3))
    after, result = run(state, transfer(2), alive_of(1, 2, 3))
    assert (result.code, result.remark) == (C.SUCCESS, "")
    kept = frozenset({1, 2, 3})  # unlike an election, a transfer keeps the SyncStateSet it started with
    assert result.events == (ElectMaster(BROKER, 2, 1, kept),)
    assert master_view(after) == (2, 2, kept, 3)
    assert result.reply == ElectMasterReply(
        CLUSTER, BROKER, 2, addr(2), ha_addr(2), 2, 3, ((1, addr(1)), (2, addr(2)), (3, addr(3))), kept
    )
    assert broker_set(after).replicas == broker_set(state).replicas
    assert decode_events(encode_events(result.events)) == list(result.events)


def test_a_transfer_ignores_the_full_set_rule_and_the_election_switches() -> None:
    state = with_master(1, (1, 2))
    for unclean in (False, True):
        for preferred in (False, True):
            after, result = run(state, transfer(2), alive_of(1, 2, 3), unclean, preferred)
            assert result.code == C.SUCCESS
            assert master_view(after) == (2, 2, frozenset({1, 2}), 3)


@pytest.mark.parametrize(
    ("request_", "views", "code", "remark"),
    [
        pytest.param(
            transfer(2, epoch=0), alive_of(1, 2, 3), C.CONTROLLER_FENCED_MASTER_EPOCH,
            "the master of broker-a changed during the transfer: masterEpoch is 1, not 0", id="older_epoch",
        ),
        pytest.param(
            transfer(2, epoch=2), alive_of(1, 2, 3), C.CONTROLLER_FENCED_MASTER_EPOCH,
            "the master of broker-a changed during the transfer: masterEpoch is 1, not 2", id="newer_epoch",
        ),
        pytest.param(
            transfer(2, master=3, epoch=0), alive_of(1, 2, 3), C.CONTROLLER_FENCED_MASTER_EPOCH,
            "the master of broker-a changed during the transfer: masterEpoch is 1, not 0",
            id="epoch_checked_before_master",
        ),
        pytest.param(
            transfer(2, master=3), alive_of(1, 2, 3), C.CONTROLLER_INVALID_MASTER,
            "the master of broker-a is 1, not 3", id="changed_master",
        ),
        pytest.param(
            transfer(2, broker_name="broker-z"), alive_of(1, 2, 3), C.CONTROLLER_BROKER_METADATA_NOT_EXIST,
            METADATA_NOT_EXIST, id="unknown_set",
        ),
        pytest.param(
            transfer(2), alive_of(1, 3), C.CONTROLLER_ELECT_MASTER_FAILED,
            "broker 2 of broker-a is not alive (no heartbeat within its timeout)", id="target_died",
        ),
        pytest.param(
            transfer(2), alive_of(2, 3), C.CONTROLLER_ELECT_MASTER_FAILED,
            "master 1 of broker-a is not alive; the controller elects a new master by itself", id="master_died",
        ),
        pytest.param(
            transfer(1), alive_of(1, 2, 3), C.CONTROLLER_ELECT_MASTER_FAILED,
            "broker 1 is already the master of broker-a (masterEpoch 1)", id="target_is_master",
        ),
        pytest.param(
            transfer(7), alive_of(1, 2, 3), C.CONTROLLER_ELECT_MASTER_FAILED,
            "broker 7 is not registered in broker set broker-a (registered ids: 1, 2, 3)", id="unknown_target",
        ),
        pytest.param(
            transfer(2), alive(b1=live(), b2=LEARNER, b3=live()), C.CONTROLLER_ELECT_MASTER_FAILED,
            "broker 2 of broker-a is an async learner, which never becomes master", id="target_is_learner",
        ),
    ],
)  # fmt: skip
def test_transfer_refusals_change_nothing(
    request_: TransferMasterRequest, views: dict[tuple[str, int], LiveInfo], code: C, remark: str
) -> None:
    state = with_master(1, (1, 2, 3))
    after, result = run(state, request_, views)
    assert (result.code, result.remark, result.reply, result.events) == (code, remark, None, ())
    assert after == state


def test_a_target_that_left_the_sync_state_set_meanwhile_is_not_elected() -> None:
    state = with_master(1, (1, 3))
    after, result = run(state, transfer(2), alive_of(1, 2, 3))
    assert result.code == C.CONTROLLER_ELECT_MASTER_FAILED
    assert result.remark == (
        "broker 2 is not in the SyncStateSet of broker-a (1, 3); it must catch up with the master first"
    )
    assert (result.events, after) == ((), state)


def test_a_set_with_no_master_fences_the_transfer() -> None:
    """A master lost after the pause: masterEpoch moved on (the clear bumps it), so the transfer is fenced."""
    state = with_master(1, (1, 2, 3))
    cleared, result = run(state, ElectMasterRequest("", BROKER), {})
    assert broker_set(cleared).master_id is None, result.remark
    _, result = run(cleared, transfer(2), alive_of(1, 2, 3))
    assert result.code == C.CONTROLLER_FENCED_MASTER_EPOCH
    _, result = run(cleared, transfer(2, epoch=broker_set(cleared).master_epoch), alive_of(1, 2, 3))
    assert result.code == C.CONTROLLER_INVALID_MASTER


def test_a_transfer_decided_twice_commits_once() -> None:
    """A retried request (or a stale duplicate) after the first one committed is fenced by masterEpoch."""
    state = with_master(1, (1, 2, 3))
    first = compute(state, transfer(2), alive_of(1, 2, 3), allow_unclean=False)
    second = compute(state, transfer(2), alive_of(1, 2, 3), allow_unclean=False)
    after = apply_events(state, (*first.events, *second.events))
    assert master_view(after) == (2, 2, frozenset({1, 2, 3}), 3), "the second ElectMaster is stale and a no-op"
    _, again = run(after, transfer(2), alive_of(1, 2, 3))
    assert again.code == C.CONTROLLER_FENCED_MASTER_EPOCH


def test_a_transfer_decided_before_an_election_is_a_no_op_when_committed_after_it() -> None:
    state = with_master(1, (1, 2, 3))
    decided = compute(state, transfer(2), alive_of(1, 2, 3), allow_unclean=False)
    elected, result = run(state, ElectMasterRequest(CLUSTER, BROKER, 3, designate_elect=True), alive_of(1, 2, 3))
    assert result.ok
    assert apply_events(elected, decided.events) == elected


def test_transfer_requests_are_decided_the_same_on_equal_inputs() -> None:
    state = with_master(1, (1, 2, 3))
    views = alive_of(1, 2, 3)
    a = compute(state, transfer(3), views, allow_unclean=False)
    b = compute(state, transfer(3), dict(views), allow_unclean=False)
    assert a == b and a.ok


# --- properties -------------------------------------------------------------------------------------

IDS = st.integers(1, 4)
INFOS = st.builds(
    LiveInfo,
    epoch=st.integers(0, 2),
    max_offset=st.sampled_from([0, 100]),
    election_priority=st.integers(0, 2),
    async_learner=st.sampled_from([False] * 5 + [True]),
)


@st.composite
def broker_sets(draw: st.DrawFn, name: str = BROKER) -> BrokerSet:
    """A set that keeps the model's invariants: master registered and in the SyncStateSet."""
    ids = sorted(draw(st.sets(IDS, min_size=1, max_size=4)))
    master = draw(st.none() | st.sampled_from(ids))
    sss = set(draw(st.sets(st.sampled_from(ids), max_size=4)))
    if master is not None:
        sss.add(master)
    preferred = draw(st.none() | st.sampled_from(ids))
    return make_set(name, master, sss, preferred=preferred, ids=ids, master_epoch=draw(st.integers(1, 3)))


@st.composite
def views_of(draw: st.DrawFn, names: Iterable[str]) -> dict[tuple[str, int], LiveInfo]:
    return {(n, i): draw(INFOS) for n in names for i in (1, 2, 3, 4) if draw(st.booleans())}


@settings(max_examples=400, deadline=None)
@given(data=st.data(), required=st.booleans())
def test_check_transfer_passing_means_the_fenced_transfer_succeeds(data: st.DataObject, required: bool) -> None:
    bs = data.draw(broker_sets())
    views = data.draw(views_of([BROKER]))
    target = data.draw(IDS)
    state = state_of(bs)
    reason = check_transfer(bs, target, views, require_full_sync_state_set=required)
    relaxed = check_transfer(bs, target, views, require_full_sync_state_set=False)
    assert relaxed is None or reason is not None, "the full-set rule only ever adds a refusal"
    request = transfer(target, master=bs.master_id or 1, epoch=bs.master_epoch)
    after, result = run(state, request, views)
    if bs.master_id is not None:
        assert (result.code == C.SUCCESS) == (relaxed is None), result.remark
        if relaxed is not None:
            assert result.remark == relaxed
    if reason is None:
        assert result.code == C.SUCCESS
        kept = (bs.sync_state_set & frozenset(bs.broker_ids)) | {target}
        assert master_view(after) == (target, bs.master_epoch + 1, kept, bs.sync_state_set_epoch + 1)
        check_state(after)
    else:
        assert reason
    if not result.ok:
        assert (result.events, after) == ((), state)


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    cap=st.integers(1, 4),
    min_interval=st.sampled_from([0.0, 30.0, 60.0]),
    required=st.booleans(),
    now=st.sampled_from([0.0, 50.0, 100.0]),
)
def test_the_plan_keeps_its_safeguards(
    data: st.DataObject, cap: int, min_interval: float, required: bool, now: float
) -> None:
    names = data.draw(st.lists(st.sampled_from(["s1", "s2", "s3", "s4", "s5", "s6"]), unique=True, max_size=6))
    state = state_of(*(data.draw(broker_sets(n)) for n in names))
    views = data.draw(views_of(names))
    busy = set(data.draw(st.lists(st.sampled_from(names), unique=True))) if names else set()
    last = {n: data.draw(st.sampled_from([0.0, 40.0, 90.0])) for n in names if data.draw(st.booleans())}
    limits = ScanLimits(require_full_sync_state_set=required, min_interval_s=min_interval, max_per_scan=cap)
    got = plan_transfers(state, views, busy=busy, last_attempt=last, now=now, limits=limits)

    started = [p for p in got if p.blocked_by is None]
    assert len(started) <= cap
    assert [p.broker_name for p in got] == sorted(p.broker_name for p in got)
    eligible = 0
    for p in got:
        bs = broker_set(state, p.broker_name)
        assert bs.master_id is not None and p.target != bs.master_id
        reason = check_transfer(bs, p.target, views, require_full_sync_state_set=required)
        waits = p.broker_name in busy or now - last.get(p.broker_name, float("-inf")) < min_interval
        if reason is not None:
            assert p.blocked_by == reason
        eligible += reason is None and not waits
        if p.blocked_by is None:
            assert reason is None and not waits
            run_after, result = run(state, transfer(p.target, bs.master_id, bs.master_epoch, p.broker_name), views)
            assert result.ok, "a planned transfer passes the election's own checks"
            check_state(run_after)
    assert len(started) == min(cap, eligible)
    listed = {p.broker_name for p in got}
    for bs in state:
        in_set = {i: views[(bs.broker_name, i)] for i in bs.broker_ids if (bs.broker_name, i) in views}
        target = preferred_of(bs.preferred_id, in_set)
        assert (bs.broker_name in listed) == (target is not None and bs.master_id not in (None, target))


@dataclass(frozen=True)
class TransferSpec:
    """A TransferMasterRequest built against the deciding state: mostly its current master and epoch."""

    broker_name: str
    target: int
    master_delta: int
    epoch_delta: int

    def request(self, state: ControllerState) -> TransferMasterRequest:
        bs = state.get(self.broker_name)
        master = (bs.master_id if bs and bs.master_id is not None else 1) + self.master_delta
        epoch = (bs.master_epoch if bs else 0) + self.epoch_delta
        return TransferMasterRequest(CLUSTER, self.broker_name, self.target, master, epoch)


TRANSFERS = st.builds(
    TransferSpec,
    st.sampled_from(["broker-a", "broker-b"]),
    IDS,
    st.sampled_from([0, 0, 0, 1]),
    st.sampled_from([0, 0, 0, -1, 1]),
)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), alive_now=ALIVE)
def test_transfers_among_random_requests_keep_the_invariants(
    data: st.DataObject, alive_now: dict[tuple[str, int], LiveInfo]
) -> None:
    state = two_sets_of_three()
    for _ in range(data.draw(st.integers(1, 25), label="steps")):
        drawn: Request | Spec | TransferSpec = data.draw(TRANSFERS | REQUESTS, label="request")
        request = drawn.request(state) if isinstance(drawn, TransferSpec) else materialize(drawn, state, alive_now)
        result = compute(state, request, alive_now, allow_unclean=data.draw(st.booleans()), preferred_master=True)
        check_result(request, result)
        after = apply_events(state, decode_events(encode_events(result.events)))
        check_transition(state, after)
        check_state(after)
        if isinstance(request, TransferMasterRequest):
            bs = state.get(request.broker_name)
            if result.ok:
                assert bs is not None and bs.master_id == request.expected_master_id
                assert bs.master_epoch == request.expected_master_epoch
                assert check_transfer(bs, request.broker_id, alive_now, require_full_sync_state_set=False) is None
                assert master_view(after, request.broker_name)[:2] == (request.broker_id, bs.master_epoch + 1)
            else:
                assert after == state
        state = after


# --- the scan's safeguards, end to end (the Transferer runs the plan) -------------------------------


def test_a_set_still_queued_from_the_last_scan_is_not_attempted_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    """The minimum interval per set must hold even when the transfer pool is saturated.

    One worker stands for a saturated pool (WORKERS transfers running, more planned). broker-a's attempt holds
    the only worker; broker-b waits in the pool's queue. The next scan must see broker-b as running already
    (it is marked when queued), not queue it a second time to run right after the first attempt aborts.
    """
    monkeypatch.setattr(transferer_module, "WORKERS", 1)
    state = state_of(make_set("broker-a", 1, (1, 2, 3), preferred=2), make_set("broker-b", 1, (1, 2, 3), preferred=2))
    views = everyone("broker-a", "broker-b")
    config = replace(ControllerConfig(), enable_preferred_master=True)  # at most one attempt per set per 60 s

    def no_elections(_request: Request) -> Any:
        raise AssertionError("the patched attempt never submits an election")

    transferer = Transferer(lambda: state, lambda: views, no_elections, lambda: config, clock=time.monotonic)
    gate = threading.Event()
    attempts: list[str] = []

    def attempt(record: Record, *_args: Any) -> Record:
        """Stands in for PrepareTransfer + election: the target never catches up."""
        attempts.append(record.broker_name)
        gate.wait(60.0)
        return replace(record, state="aborted", reason=f"broker {record.to_id} did not catch up")

    monkeypatch.setattr(transferer, "_attempt", attempt)
    try:
        first = transferer.scan()
        deadline = time.monotonic() + 60.0
        while attempts != ["broker-a"]:
            assert time.monotonic() < deadline, "broker-a's attempt did not start"
            time.sleep(0.005)
        second = transferer.scan()
        gate.set()
    finally:
        gate.set()
        transferer._pool.shutdown(wait=True)
    assert [p.blocked_by for p in first] == [None, None]
    assert [p.blocked_by for p in second] == [
        "a transfer of broker-a is already running",
        "a transfer of broker-b is already running",
    ]
    assert attempts.count("broker-b") == 1, f"attempts in order: {attempts}"


def test_a_refused_admin_attempt_is_kept_apart_from_the_last_real_transfer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixed: a refused (or mistyped) transferMaster replaced lastTransfer, hiding the last real transfer."""
    state = state_of(make_set("broker-a", 1, (1, 2, 3)))
    views = everyone("broker-a")

    def no_elections(_request: Request) -> Any:
        raise AssertionError("the patched attempt never submits an election")

    transferer = Transferer(lambda: state, lambda: views, no_elections, ControllerConfig, clock=time.monotonic)
    monkeypatch.setattr(transferer, "_attempt", lambda record, *_a: replace(record, state="done", to_epoch=2))
    try:
        done = transferer.run(CLUSTER, "broker-a", 2, 1.0, "admin")
        refused = transferer.run(CLUSTER, "broker-a", 9, 1.0, "admin")
    finally:
        transferer.stop()
    assert (done.code, refused.code) == (C.SUCCESS, C.CONTROLLER_ELECT_MASTER_FAILED)
    record, refusal = transferer.record_of("broker-a"), transferer.refusal_of("broker-a")
    assert record is not None and (record.state, record.to_id) == ("done", 2)
    assert refusal is not None and (refusal.state, refusal.to_id) == ("refused", 9)
    assert refusal.reason == "broker 9 is not registered in broker set broker-a (registered ids: 1, 2, 3)"


def test_the_transferer_times_attempts_on_the_clock_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """The attempt's duration and the scan's minimum interval read the injected clock, not time.monotonic."""
    state = state_of(make_set("broker-a", 1, (1, 2, 3), preferred=2))
    views = everyone("broker-a")
    config = replace(ControllerConfig(), enable_preferred_master=True)  # at most one attempt per set per 60 s
    now = [NOW]

    def no_elections(_request: Request) -> Any:
        raise AssertionError("the patched attempt never submits an election")

    def attempt(record: Record, *_args: Any) -> Record:
        now[0] += 2.5  # the attempt takes 2.5 s on the given clock
        return replace(record, state="aborted", reason="broker 2 did not catch up")

    transferer = Transferer(lambda: state, lambda: views, no_elections, lambda: config, clock=lambda: now[0])
    monkeypatch.setattr(transferer, "_attempt", attempt)
    try:
        outcome = transferer.run(CLUSTER, "broker-a", 2, 1.0, "admin")
    finally:
        transferer.stop()
    assert outcome.record is not None and outcome.record.duration_s == 2.5
    now[0] = NOW + 30.0
    assert transferer.blocked() == {
        "broker-a": "the last transfer attempt of broker-a is within the minimum interval (next in 30 s)"
    }
    now[0] = NOW + 60.0
    assert transferer.blocked() == {}


@pytest.mark.parametrize(
    ("preferred", "new_master", "warned"),
    [(None, 2, False), (2, 2, False), (1, 2, True), (3, 2, True)],
)
def test_scan_warning_names_the_preferred_broker_the_scan_moves_back_to(
    preferred: int | None, new_master: int, warned: bool
) -> None:
    bs = make_set("broker-a", 1, (1, 2, 3), preferred=preferred)
    warning = scan_warning(bs, new_master, everyone("broker-a"), 5000)
    assert (warning is not None) == warned
    if warned:
        assert warning == (
            f"the preferred master of broker-a is broker {preferred}: with enablePreferredMaster the controller "
            "moves the role back to it (at most every 5000 ms); assign-preferred-master first to make the move stick"
        )


# --- one attempt's timing, the proposer's deadline and the election's outcome ------------------------------


@pytest.mark.parametrize(
    ("started", "timeout_s", "lease_s", "not_after"),
    [(NOW, 3.0, 5.0, NOW + 4.5), (0.0, 0.1, 2.1, 1.6), (NOW, 60.0, 62.0, NOW + 61.5)],
)
def test_the_election_deadline_falls_before_the_masters_lease_runs_out(
    started: float, timeout_s: float, lease_s: float, not_after: float
) -> None:
    assert deadlines(started, timeout_s) == pytest.approx((lease_s, not_after))


@pytest.mark.parametrize(
    ("request_", "refused"),
    [
        pytest.param(transfer(2, not_after=NOW - 1.0), True, id="past_deadline"),
        pytest.param(transfer(2, not_after=NOW - 1e-6), True, id="just_past_deadline"),
        pytest.param(transfer(2, not_after=NOW), False, id="at_deadline"),
        pytest.param(transfer(2, not_after=NOW + 3600.0), False, id="future_deadline"),
        pytest.param(transfer(2), False, id="no_deadline"),
        pytest.param(ElectMasterRequest(CLUSTER, BROKER, 2), False, id="election"),
        pytest.param(GetNextBrokerIdRequest(CLUSTER, BROKER), False, id="read"),
    ],
)
def test_too_late_refuses_only_a_transfer_past_its_deadline(request_: Request, refused: bool) -> None:
    result = too_late(request_, NOW)
    if not refused:
        assert result is None
        return
    assert result is not None
    assert result.code == C.CONTROLLER_ELECT_MASTER_FAILED
    assert result.events == () and result.reply is None
    assert result.remark == "the election was not decided before the master's write pause ran out; nothing changed"


ELECTED = ElectMasterReply(CLUSTER, BROKER, 2, "127.0.0.1:2", "", 2, 3, ((1, "127.0.0.1:1"), (2, "127.0.0.1:2")),
                           frozenset({1, 2}))  # fmt: skip
RUNNING = Record(CLUSTER, BROKER, "running", "admin", 1, 2, 1, 0.0, final_offset=4096)
UNKNOWN = "the master keeps writes paused until the controller confirms its role"


@pytest.mark.parametrize(
    ("result", "state", "to_epoch", "reason", "resume"),
    [
        pytest.param(Result(C.SUCCESS, reply=ELECTED), "done", 2, "", False, id="elected"),
        pytest.param(Result(C.SUCCESS), "aborted", 0, f"the election's outcome is unknown (); {UNKNOWN}", False,
                     id="success_without_reply"),
        *(
            pytest.param(Result(code, "refused: x"), "aborted", 0, "refused: x", True, id=code.name)
            for code in sorted(DECIDED)
        ),
        pytest.param(Result(C.SYSTEM_ERROR, "Raft commit not confirmed within 5 s; outcome unknown"), "aborted", 0,
                     f"the election's outcome is unknown (Raft commit not confirmed within 5 s; outcome unknown); "
                     f"{UNKNOWN}", False, id="commit_timed_out"),
        pytest.param(Result(C.CONTROLLER_NOT_LEADER, "not leader"), "aborted", 0,
                     f"the election's outcome is unknown (not leader); {UNKNOWN}", False, id="leadership_moved"),
    ],
)  # fmt: skip
def test_the_elections_answer_decides_the_record_and_whether_the_pause_ends_at_once(
    result: Result[Any], state: str, to_epoch: int, reason: str, resume: bool
) -> None:
    record, resumed = after_election(RUNNING, result, 1.25)
    assert record == replace(RUNNING, state=state, to_epoch=to_epoch, reason=reason, paused_s=1.25)
    assert resumed == resume
    assert outcome_code(record) == (C.SUCCESS if state == "done" else C.CONTROLLER_ELECT_MASTER_FAILED)


def test_only_a_done_record_answers_success() -> None:
    assert [outcome_code(replace(RUNNING, state=s)) for s in ("done", "aborted", "refused", "running")] == [
        C.SUCCESS, *[C.CONTROLLER_ELECT_MASTER_FAILED] * 3
    ]  # fmt: skip


def _proposer_with(state: ControllerState) -> tuple[InMemoryRaft, Proposer]:
    raft = InMemoryRaft()
    raft.state = state
    proposer = Proposer(raft, alive=lambda: alive_of(1, 2, 3), allow_unclean=lambda: False,  # type: ignore[arg-type]
                        clock=lambda: NOW)  # fmt: skip
    return raft, proposer


def test_the_proposer_commits_nothing_for_a_transfer_past_its_deadline() -> None:
    state = with_master(1, (1, 2, 3))
    raft, proposer = _proposer_with(state)
    late = proposer.submit(transfer(2, not_after=NOW - 1.0))
    proposer.start()
    try:
        result = late.result(timeout=30)
    finally:
        proposer.stop()
    assert result.code == C.CONTROLLER_ELECT_MASTER_FAILED
    assert raft.commits == [(), ()], "only the leader barrier and the answer's barrier (controller.reads)"
    assert raft.state == state


def test_the_proposer_commits_a_transfer_within_its_deadline_and_a_late_one_in_the_same_batch_is_dropped() -> None:
    state = with_master(1, (1, 2, 3))
    raft, proposer = _proposer_with(state)
    late = proposer.submit(transfer(3, not_after=NOW - 1.0))
    on_time = proposer.submit(transfer(2, not_after=NOW + 3600.0))
    proposer.start()
    try:
        results = [late.result(timeout=30), on_time.result(timeout=30)]
    finally:
        proposer.stop()
    assert [r.code for r in results] == [C.CONTROLLER_ELECT_MASTER_FAILED, C.SUCCESS]
    assert raft.commits == [(), (ElectMaster(BROKER, 2, 1, frozenset({1, 2, 3})),)]
    assert master_view(raft.state) == (2, 2, frozenset({1, 2, 3}), 3)


# --- config -------------------------------------------------------------------------------------------

NEW_KEYS = {
    "scanPreferredMasterInterval": ("scan_preferred_master_interval", "2500", 2500, "5000"),
    "preferredMasterTransferIntervalMs": ("preferred_master_transfer_interval_ms", "1000", 1000, "60000"),
    "preferredMasterTransferMaxPerScan": ("preferred_master_transfer_max_per_scan", "3", 3, "100"),
    "transferMasterTimeoutMs": ("transfer_master_timeout_ms", "100", 100, "3000"),
    "transferMasterRequireFullSyncStateSet": ("transfer_master_require_full_sync_state_set", "false", False, "true"),
}
BASE = {"controllerPeers": PEERS, "controllerSelfId": "n0"}


@pytest.mark.parametrize("key", sorted(NEW_KEYS))
def test_each_transfer_key_parses_is_runtime_and_round_trips(key: str) -> None:
    field, text, value, default = NEW_KEYS[key]
    config = validate(with_overrides(ControllerConfig(), {**BASE, key: text}))
    assert getattr(config, field) == value
    assert key in RUNTIME_KEYS
    assert to_properties(ControllerConfig())[key] == default
    changed: dict[str, Any] = {field: value}
    assert with_overrides(ControllerConfig(), {key: to_properties(config)[key]}) == replace(
        ControllerConfig(), **changed
    )


@pytest.mark.parametrize("text", ["100", "60000", "3000"])
def test_transfer_timeout_bounds_are_inclusive(text: str) -> None:
    config = validate(with_overrides(ControllerConfig(), {**BASE, "transferMasterTimeoutMs": text}))
    assert config.transfer_master_timeout_ms == int(text)


@pytest.mark.parametrize(
    ("key", "text", "message"),
    [
        ("transferMasterTimeoutMs", "50", "transferMasterTimeoutMs must be 100..60000 (writes pause up to this long), "
                                          "got 50"),
        ("transferMasterTimeoutMs", "99", "transferMasterTimeoutMs must be 100..60000"),
        ("transferMasterTimeoutMs", "70000", "transferMasterTimeoutMs must be 100..60000 (writes pause up to this "
                                             "long), got 70000"),
        ("transferMasterTimeoutMs", "0", "transferMasterTimeoutMs must be 100..60000"),
        ("preferredMasterTransferMaxPerScan", "0", "preferredMasterTransferMaxPerScan must be positive"),
        ("scanPreferredMasterInterval", "0", "scanPreferredMasterInterval must be positive"),
    ],
)  # fmt: skip
def test_bad_transfer_values_are_refused_by_validate(key: str, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        validate(with_overrides(ControllerConfig(), {**BASE, key: text}))


@pytest.mark.parametrize(
    ("key", "text", "message"),
    [
        ("preferredMasterTransferMaxPerScan", "-1", "preferredMasterTransferMaxPerScan must not be negative, got -1"),
        ("preferredMasterTransferIntervalMs", "-5", "preferredMasterTransferIntervalMs must not be negative, got -5"),
        ("transferMasterTimeoutMs", "-100", "transferMasterTimeoutMs must not be negative, got -100"),
        ("scanPreferredMasterInterval", "5s", "scanPreferredMasterInterval must be an integer, got '5s'"),
        ("transferMasterRequireFullSyncStateSet", "maybe",
         "transferMasterRequireFullSyncStateSet must be true or false"),
    ],
)  # fmt: skip
def test_bad_transfer_values_are_refused_when_parsed(key: str, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        with_overrides(ControllerConfig(), {key: text})


def test_a_config_file_with_a_bad_transfer_timeout_does_not_load(tmp_path: Path) -> None:
    conf = tmp_path / "c.conf"
    conf.write_text(f"controllerPeers={PEERS}\ncontrollerSelfId=n0\ncontrollerStorePath={tmp_path}/s\n"
                    "transferMasterTimeoutMs=70000\n")  # fmt: skip
    with pytest.raises(ConfigError, match=r"transferMasterTimeoutMs must be 100\.\.60000"):
        load(conf)


# --- the gRPC edge ---------------------------------------------------------------------------------


def transfer_pb(**fields: Any) -> pb.TransferMasterRequest:
    base: dict[str, Any] = {"cluster_name": "c", "broker_name": "b", "broker_id": 2}
    return pb.TransferMasterRequest(**{**base, **fields})


@pytest.mark.parametrize(
    ("millis", "seconds"),
    [(0, None), (100, 0.1), (2500, 2.5), (60_000, 60.0)],
)
def test_convert_accepts_timeouts_of_0_or_100_to_60000_ms(millis: int, seconds: float | None) -> None:
    assert convert.transfer_master(transfer_pb(timeout_millis=millis)) == ("c", "b", 2, seconds)


def test_convert_ignores_dry_run_and_keeps_the_names() -> None:
    assert convert.transfer_master(transfer_pb(dry_run=True, broker_id=7)) == ("c", "b", 7, None)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        pytest.param({"timeout_millis": 1}, "timeoutMillis must be at least 100, got 1", id="1ms"),
        pytest.param({"timeout_millis": 99}, "timeoutMillis must be at least 100, got 99", id="99ms"),
        pytest.param({"timeout_millis": 60_001}, r"timeoutMillis must be 0\.\.60000 \(0: transferMasterTimeoutMs\), "
                     "got 60001", id="over_60s"),
        pytest.param({"timeout_millis": -1}, r"timeoutMillis must be 0\.\.60000", id="negative"),
        pytest.param({"cluster_name": ""}, "clusterName is required", id="no_cluster"),
        pytest.param({"broker_name": ""}, "brokerName is required", id="no_broker_name"),
        pytest.param({"broker_name": "a;b"}, "brokerName must not contain", id="bad_broker_name"),
        pytest.param({"broker_id": 0}, "brokerId must be a positive broker id, got 0", id="no_broker_id"),
        pytest.param({"broker_id": -3}, "brokerId must be a positive broker id, got -3", id="negative_broker_id"),
    ],
)  # fmt: skip
def test_convert_refuses_bad_transfer_requests(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidRequest, match=message):
        convert.transfer_master(transfer_pb(**fields))


def test_transfer_record_to_proto() -> None:
    done = Record(CLUSTER, BROKER, "done", "preferred", 1, 2, 4, 1_700_000_000.25, to_epoch=5, reason="",
                  duration_s=0.0425, paused_s=0.0123, final_offset=4096)  # fmt: skip
    assert convert.transfer_record(done) == pb.TransferRecord(
        state="done", trigger="preferred", from_broker_id=1, to_broker_id=2, from_master_epoch=4, to_master_epoch=5,
        reason="", started_at_millis=1_700_000_000_250, duration_millis=42, writes_paused_millis=12,
        final_offset=4096,
    )  # fmt: skip
    refused = Record(CLUSTER, BROKER, "refused", "admin", None, 2, 0, 10.0, reason="no master")
    got = convert.transfer_record(refused)
    assert (got.from_broker_id, got.to_master_epoch, got.final_offset, got.reason) == (-1, 0, -1, "no master")
    assert (got.started_at_millis, got.duration_millis, got.writes_paused_millis) == (10_000, 0, 0)
