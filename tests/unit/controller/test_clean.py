"""CleanBrokerData (admin `cleanBrokerMetadata`): the request and its event."""

from __future__ import annotations

import pytest

from controller.events import CleanBrokerData
from controller.requests import (
    AlterSyncStateSetRequest,
    ApplyBrokerIdRequest,
    CleanBrokerDataRequest,
    ElectMasterRequest,
    GetNextBrokerIdRequest,
    NextBrokerIdReply,
)
from controller.state import apply_event, apply_events, compute
from mqbase.codes import ResponseCode
from tests.harness.controller_state import (
    BROKER,
    CLUSTER,
    NOBODY,
    alive_of,
    apply_ids,
    broker_set,
    check_code,
    master_view,
    reply_of,
    run,
    three_replicas,
    with_master,
)

REFUSED = ResponseCode.CONTROLLER_INVALID_CLEAN_BROKER_METADATA


def clean(
    ids: str = "", *, living: bool = False, whole: bool = False, broker_name: str = BROKER
) -> CleanBrokerDataRequest:
    return CleanBrokerDataRequest(CLUSTER, broker_name, ids, living, whole)


# --- refusals -----------------------------------------------------------------------------------


def test_clean_whole_set_with_a_master_is_refused_even_if_the_master_is_dead() -> None:
    state = with_master(1, (1, 2))
    after, result = run(state, clean(whole=True), NOBODY)
    assert result.code == REFUSED
    assert result.remark == "Broker broker-a is still alive, clean up failure"
    assert result.events == ()
    assert after == state


def test_clean_alive_listed_id_is_refused_with_the_two_space_java_remark() -> None:
    state = with_master(1, (1, 2))
    after, result = run(state, clean("3;2"), alive_of(1, 2))
    assert result.code == REFUSED
    assert result.remark == "Broker [broker-a,  2] is still alive, clean up failure"
    assert after == state


@pytest.mark.parametrize("raw", ["1;x", "abc", "2;3.5"])
def test_clean_malformed_ids_is_refused_with_the_format_remark(raw: str) -> None:
    _, result = run(with_master(1), clean(raw), NOBODY)
    assert result.code == REFUSED
    assert result.remark.startswith(
        "Please set the option <brokerControllerIdsToClean> according to the format, exception: "
    )
    assert result.events == ()


@pytest.mark.parametrize("living", [True, False])
@pytest.mark.parametrize("ids", ["", ";"])
def test_clean_without_ids_is_refused_unless_the_whole_set_is_asked_for(ids: str, living: bool) -> None:
    """Fixed: an empty list (an unset shell variable) once removed a live set with -l."""
    state = with_master(1, (1, 2))
    after, result = run(state, clean(ids, living=living), alive_of(1, 2, 3))
    assert result.code == REFUSED
    assert result.remark == (
        "no brokerControllerIdsToClean given: list the ids to clean, or set cleanWholeSet to remove the whole "
        "broker set broker-a"
    )
    assert result.events == ()
    assert after == state


def test_clean_whole_set_with_ids_is_refused() -> None:
    _, result = run(with_master(1, (1, 2)), clean("2", living=True, whole=True), alive_of(1, 2))
    assert result.code == REFUSED
    assert result.remark == "with cleanWholeSet, list no brokerControllerIdsToClean"
    assert result.events == ()


def test_clean_malformed_ids_is_refused_with_living_option_too() -> None:
    _, result = run(with_master(1), clean("1;x", living=True), alive_of(1))
    assert result.code == REFUSED
    assert result.remark.startswith("Please set the option <brokerControllerIdsToClean>")


@pytest.mark.parametrize("request_", [clean(whole=True, broker_name="broker-z"), clean("2", broker_name="broker-z")])
def test_clean_unknown_set_is_refused_with_the_java_remark(request_: CleanBrokerDataRequest) -> None:
    _, result = run(three_replicas(), request_, NOBODY)
    assert result.code == REFUSED
    assert result.remark == "Broker broker-z is not existed,clean broker data failure."


# --- removals -----------------------------------------------------------------------------------


def test_clean_some_dead_ids_removes_them_from_replicas_and_sync_state_set() -> None:
    state = with_master(1, (1, 2, 3))
    after, result = run(state, clean("2;3"), alive_of(1))
    assert result.code == ResponseCode.SUCCESS
    assert result.events == (CleanBrokerData(BROKER, frozenset({2, 3})),)
    bs = broker_set(after)
    assert bs.broker_ids == (1,)
    assert bs.sync_state_set == frozenset({1})
    # The SyncStateSet changed, so its epoch moved (docs/decisions.md D12).
    assert (bs.master_id, bs.master_epoch, bs.sync_state_set_epoch, bs.next_broker_id) == (1, 1, 3, 4)


def test_clean_keeps_next_broker_id_so_a_cleaned_id_is_not_handed_out_again() -> None:
    state, _ = run(with_master(1, (1, 2, 3)), clean("3"), alive_of(1, 2))
    _, result = run(state, GetNextBrokerIdRequest(CLUSTER, BROKER), NOBODY)
    assert reply_of(result, NextBrokerIdReply).next_broker_id == 4


def test_clean_all_ids_removes_the_set() -> None:
    after, result = run(with_master(1, (1, 2)), clean("1;2;3"), NOBODY)
    assert result.ok
    assert after.get(BROKER) is None
    assert len(after) == 0


def test_clean_whole_set_without_a_master_removes_it() -> None:
    after, result = run(three_replicas(), clean(whole=True), alive_of(1, 2, 3))
    assert result.ok
    assert result.events == (CleanBrokerData(BROKER, None),)
    assert after.get(BROKER) is None


def test_clean_whole_masterless_set_after_a_failed_election_removes_it() -> None:
    state, _ = run(with_master(1, (1, 2)), ElectMasterRequest("", BROKER), NOBODY)
    after, result = run(state, clean(whole=True), NOBODY)
    assert result.ok
    assert after.get(BROKER) is None


def test_clean_living_with_ids_removes_only_those_ids() -> None:
    state = with_master(1, (1, 2, 3))
    after, result = run(state, clean("2", living=True), alive_of(1, 2, 3))
    assert result.ok
    assert result.events == (CleanBrokerData(BROKER, frozenset({2})),)
    bs = broker_set(after)
    assert bs.broker_ids == (1, 3)
    assert bs.sync_state_set == frozenset({1, 3})
    assert bs.master_id == 1


def test_clean_living_whole_set_removes_it_even_with_an_alive_master() -> None:
    after, result = run(with_master(1, (1, 2)), clean(living=True, whole=True), alive_of(1, 2, 3))
    assert result.ok
    assert result.events == (CleanBrokerData(BROKER, None),)
    assert after.get(BROKER) is None


def test_clean_does_not_touch_other_sets() -> None:
    state = apply_ids(with_master(1), [1, 2], broker_name="broker-b")
    after, _ = run(state, clean(living=True, whole=True), NOBODY)
    assert after.get(BROKER) is None
    assert after.get("broker-b") == state.get("broker-b")


def test_clean_the_master_id_clears_the_master() -> None:
    state = with_master(1, (1, 2))
    after, result = run(state, clean("1"), alive_of(2))
    assert result.ok
    bs = broker_set(after)
    assert bs.master_id is None
    assert bs.broker_ids == (2, 3)
    assert bs.sync_state_set == frozenset({2})
    assert bs.master_epoch == 1


def test_remaining_sync_state_set_member_is_elected_after_the_master_was_cleaned() -> None:
    state, _ = run(with_master(1, (1, 2)), clean("1"), alive_of(2))
    after, result = run(state, ElectMasterRequest(CLUSTER, BROKER, 2), alive_of(2, 3))
    assert result.ok
    assert master_view(after) == (2, 2, frozenset({2}), 4)


def test_clean_unregistered_dead_id_changes_nothing_but_succeeds() -> None:
    state = with_master(1, (1, 2))
    after, result = run(state, clean("7"), alive_of(1, 2))
    assert result.ok
    assert after == state


def test_clean_event_with_an_empty_id_set_removes_the_whole_set() -> None:
    assert apply_event(with_master(1), CleanBrokerData(BROKER, frozenset())).get(BROKER) is None


def test_clean_event_for_an_unknown_set_is_a_no_op() -> None:
    state = three_replicas()
    assert apply_event(state, CleanBrokerData("broker-z", None)) == state


def test_cleaned_id_can_be_applied_again() -> None:
    state, _ = run(with_master(1, (1, 2)), clean("3"), alive_of(1, 2))
    state, result = run(state, ApplyBrokerIdRequest(CLUSTER, BROKER, 3, check_code(3, millis=1_800_000_000_000)), {})
    assert result.ok
    assert broker_set(state).broker_ids == (1, 2, 3)
    assert broker_set(state).next_broker_id == 5


# --- stale events around a clean ----------------------------------------------------------------


def test_alter_computed_before_a_clean_does_not_put_the_cleaned_id_back_in_the_sync_state_set() -> None:
    state = with_master(1)
    request = AlterSyncStateSetRequest(BROKER, 1, 1, frozenset({1, 2}), 1)
    pending = compute(state, request, alive_of(1, 2, 3), allow_unclean=False)
    assert pending.ok
    state, cleaned = run(state, clean("2", living=True), alive_of(1, 2, 3))
    assert cleaned.ok
    state = apply_events(state, pending.events)
    bs = broker_set(state)
    assert bs.sync_state_set <= frozenset(bs.broker_ids), f"SSS {set(bs.sync_state_set)} has an unregistered id"
    # Consequence if it does: a fresh broker that applies the unused id 2 is in the SSS without having
    # replicated anything, and wins a clean election once the master dies.
    state = apply_ids(state, [2])
    state, _ = run(state, ElectMasterRequest("", BROKER), alive_of(2, 3))
    assert broker_set(state).master_id != 2
