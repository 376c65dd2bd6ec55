"""The election policy (Java's ``DefaultElectPolicy``) and ElectMaster end to end: request, event, response codes."""

from __future__ import annotations

import pytest

from controller.election import elect
from controller.events import ElectMaster
from controller.model import ControllerState, LiveInfo
from controller.requests import ElectMasterReply, ElectMasterRequest
from controller.state import apply_event, scan_need_reelect
from mqbase.codes import ResponseCode
from tests.harness.controller_state import (
    BROKER,
    CLUSTER,
    NOBODY,
    addr,
    alive_of,
    apply_ids,
    broker_set,
    elect_first,
    ha_addr,
    live,
    master_view,
    reply_of,
    run,
    three_replicas,
    with_master,
)

LEARNER = live(epoch=9, max_offset=10**9, priority=0, async_learner=True)

# --- the pure policy ----------------------------------------------------------------------------

ELECT_CASES: list[tuple[str, list[int], list[int] | None, dict[int, LiveInfo], int | None, int | None, int | None]] = [
    # (case id, SSS, all replicas (unclean) or None, alive, old master, designated, expected)
    ("sticky_old_master", [1, 2, 3], None, {1: live(1, 100), 2: live(5, 900), 3: live(5, 900)}, 1, None, 1),
    ("sticky_when_designated_is_old_master", [1, 2], None, {1: live(1, 10), 2: live(2, 10)}, 1, 1, 1),
    ("dead_old_master_is_not_sticky", [1, 2, 3], None, {2: live(1, 100), 3: live(1, 200)}, 1, None, 3),
    ("designated_member_beats_old_master", [1, 2, 3], None, {1: live(), 2: live(), 3: live()}, 1, 2, 2),
    ("designated_non_member_gives_none", [1, 2], None, {1: live(), 2: live(), 3: live(9, 999)}, 1, 3, None),
    ("designated_dead_member_gives_none", [1, 2, 3], None, {1: live(), 2: live()}, 1, 3, None),
    ("designated_learner_gives_none", [1, 2], [1, 2, 3], {1: live(), 3: LEARNER}, 1, 3, None),
    ("unclean_falls_back_to_all_alive_replicas", [1], [1, 2, 3], {2: live(1, 10), 3: live(1, 20)}, 1, None, 3),
    ("unclean_retries_the_designated_broker", [1, 2], [1, 2, 3], {1: live(), 2: live(), 3: live()}, 1, 3, 3),
    ("unclean_not_used_while_sss_has_a_candidate", [1, 2], [1, 2, 3], {2: live(1, 0), 3: live(9, 999)}, 1, None, 2),
    ("without_unclean_no_fallback", [1], None, {2: live(), 3: live()}, 1, None, None),
    ("higher_epoch_wins_over_higher_offset", [1, 2, 3], None, {2: live(5, 100), 3: live(4, 1_000)}, None, None, 2),
    ("higher_offset_wins_in_same_epoch", [1, 2, 3], None, {2: live(4, 100), 3: live(4, 101)}, None, None, 3),
    ("lower_priority_number_breaks_ties", [2, 3], None, {2: live(4, 100, 5), 3: live(4, 100, 2)}, None, None, 3),
    ("priority_does_not_beat_offset", [2, 3], None, {2: live(4, 100, 1), 3: live(4, 101, 9)}, None, None, 3),
    ("lowest_id_among_equals", [3, 2, 4], None, {4: live(4, 9, 1), 3: live(4, 9, 1), 2: live(4, 9, 1)}, None, None, 2),
    ("offsets_more_than_2_31_apart", [2, 3], None, {2: live(1, 2**31 + 10), 3: live(1, 5)}, None, None, 2),
    ("offsets_more_than_2_31_apart_reversed", [2, 3], None, {2: live(1, 5), 3: live(1, 2**31 + 10)}, None, None, 3),
    ("offsets_more_than_2_40_apart", [2, 3], None, {2: live(1, 7), 3: live(1, 2**40 + 7)}, None, None, 3),
    ("huge_offsets_one_apart", [2, 3], None, {2: live(1, 2**40 + 1), 3: live(1, 2**40)}, None, None, 2),
    ("async_learner_excluded_even_if_best", [1, 2], [1, 2, 3], {2: live(1, 0), 3: LEARNER}, 1, None, 2),
    ("only_learner_alive_gives_none", [1], [1, 2, 3], {3: LEARNER}, 1, None, None),
    ("dead_brokers_excluded", [1, 2, 3], None, {3: live(1, 0)}, None, None, 3),
    ("alive_non_member_is_not_a_clean_candidate", [1, 2], None, {3: live(9, 999)}, None, None, None),
    ("empty_sss_gives_none", [], None, {1: live(), 2: live()}, None, None, None),
    ("nobody_alive_gives_none", [1, 2, 3], [1, 2, 3], {}, 1, None, None),
]


@pytest.mark.parametrize(
    ("sss", "all_replicas", "alive", "old_master", "designated", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in ELECT_CASES],
)
def test_elect_policy(
    sss: list[int],
    all_replicas: list[int] | None,
    alive: dict[int, LiveInfo],
    old_master: int | None,
    designated: int | None,
    expected: int | None,
) -> None:
    assert elect(sss, all_replicas, alive, old_master=old_master, designated=designated, preferred=None) == expected


@pytest.mark.parametrize("order", [[1, 2, 3, 4], [4, 3, 2, 1], [3, 1, 4, 2], [2, 4, 1, 3]])
def test_elect_equal_brokers_pick_the_lowest_id_whatever_the_input_order(order: list[int]) -> None:
    alive = {i: live(3, 4_096, 7) for i in order}
    assert elect(order, None, alive, old_master=None, designated=None, preferred=None) == 1
    reversed_alive = dict(reversed(alive.items()))
    assert elect(list(reversed(order)), None, reversed_alive, old_master=None, designated=None, preferred=None) == 1


# --- ElectMaster end to end ---------------------------------------------------------------------


def test_first_election_makes_the_requester_master() -> None:
    state, result = run(three_replicas(), ElectMasterRequest(CLUSTER, BROKER, 2), alive_of(1, 2, 3))
    assert result.code == ResponseCode.SUCCESS
    assert result.reply == ElectMasterReply(
        CLUSTER, BROKER, 2, addr(2), ha_addr(2), 1, 1, ((1, addr(1)), (2, addr(2)), (3, addr(3))), frozenset({2})
    )
    assert result.events == (ElectMaster(BROKER, 2, 0),)
    assert master_view(state) == (2, 1, frozenset({2}), 1)


def test_first_election_does_not_check_the_requesters_liveness_as_in_java() -> None:
    state, result = run(three_replicas(), ElectMasterRequest(CLUSTER, BROKER, 3), NOBODY)
    assert result.ok
    assert broker_set(state).master_id == 3


def test_first_election_by_admin_designation_makes_the_designated_id_master() -> None:
    request = ElectMasterRequest(CLUSTER, BROKER, 3, designate_elect=True)
    state, result = run(three_replicas(), request, alive_of(1, 2, 3))
    assert result.ok
    assert master_view(state) == (3, 1, frozenset({3}), 1)


@pytest.mark.parametrize("cluster", ["OtherCluster", ""])
def test_admin_election_in_another_cluster_is_refused_like_assign_preferred_master(cluster: str) -> None:
    """Fixed: electMaster -c was ignored; a set is named by cluster and name, as assign-preferred-master does."""
    state = with_master(1, (1, 2))
    after, result = run(state, ElectMasterRequest(cluster, BROKER, 2, designate_elect=True), alive_of(1, 2, 3))
    assert result.code == ResponseCode.CONTROLLER_BROKER_METADATA_NOT_EXIST
    assert result.remark == (
        f"Broker-set: {BROKER} hasn't been registered in cluster {cluster}, it belongs to cluster {CLUSTER}"
    )
    assert after == state


def test_broker_elections_do_not_check_the_cluster_as_in_java() -> None:
    state, result = run(three_replicas(), ElectMasterRequest("", BROKER, 2), alive_of(1, 2, 3))
    assert result.ok
    assert broker_set(state).master_id == 2


def test_first_election_by_an_unregistered_requester_falls_back_to_the_policy() -> None:
    state, result = run(three_replicas(), ElectMasterRequest(CLUSTER, BROKER, 9), alive_of(1, 2))
    assert result.code == ResponseCode.CONTROLLER_ELECT_MASTER_FAILED
    assert broker_set(state).master_id is None
    state, result = run(three_replicas(), ElectMasterRequest(CLUSTER, BROKER, 9), alive_of(1, 2), allow_unclean=True)
    assert result.ok
    assert broker_set(state).master_id == 1


def test_first_election_by_an_async_learner_is_refused() -> None:
    alive = {(BROKER, 3): LEARNER, (BROKER, 1): live()}
    state, result = run(three_replicas(), ElectMasterRequest(CLUSTER, BROKER, 3), alive, allow_unclean=True)
    assert result.ok
    assert broker_set(state).master_id == 1
    _, result = run(three_replicas(), ElectMasterRequest(CLUSTER, BROKER, 3), {(BROKER, 3): LEARNER})
    assert result.code == ResponseCode.CONTROLLER_ELECT_MASTER_FAILED
    assert result.events == ()


def test_elect_when_the_master_is_alive_returns_master_still_exist_with_current_epochs() -> None:
    state = with_master(1, sync_state_set=(1, 2))
    after, result = run(state, ElectMasterRequest(CLUSTER, BROKER, 2), alive_of(1, 2, 3))
    assert result.code == ResponseCode.CONTROLLER_MASTER_STILL_EXIST
    assert result.reply == ElectMasterReply(CLUSTER, BROKER, 1, addr(1), ha_addr(1), 1, 2, (), frozenset({1, 2}))
    assert result.events == ()
    assert after == state


def test_elect_success_bumps_both_epochs_and_resets_the_sync_state_set() -> None:
    state = with_master(1, sync_state_set=(1, 2))
    after, result = run(state, ElectMasterRequest(CLUSTER, BROKER, 3), alive_of(2, 3))
    assert result.code == ResponseCode.SUCCESS
    assert result.reply == ElectMasterReply(
        CLUSTER, BROKER, 2, addr(2), ha_addr(2), 2, 3, ((1, addr(1)), (2, addr(2)), (3, addr(3))), frozenset({2})
    )
    assert result.events == (ElectMaster(BROKER, 2, 1),)
    assert master_view(after) == (2, 2, frozenset({2}), 3)


# --- the grace after a controller start: an unseen master is presumed alive for broker requests ---------------


def test_in_the_grace_a_brokers_election_keeps_an_unseen_master() -> None:
    """Fixed: after every controller restarted, a slave registering before the live master's first heartbeat got
    itself elected (Java does the same): a needless failover."""
    state = with_master(1, sync_state_set=(1, 2))
    after, result = run(state, ElectMasterRequest(CLUSTER, BROKER, 2), alive_of(2, 3), master_grace=True)
    assert result.code == ResponseCode.CONTROLLER_MASTER_STILL_EXIST
    assert result.reply == ElectMasterReply(CLUSTER, BROKER, 1, addr(1), ha_addr(1), 1, 2, (), frozenset({1, 2}))
    assert (result.events, after) == ((), state)
    _, later = run(state, ElectMasterRequest(CLUSTER, BROKER, 2), alive_of(2, 3))  # the grace over: elected
    assert later.code == ResponseCode.SUCCESS and later.events == (ElectMaster(BROKER, 2, 1),)


@pytest.mark.parametrize(
    "request_",
    [ElectMasterRequest("", BROKER), ElectMasterRequest(CLUSTER, BROKER, 2, designate_elect=True)],
    ids=["controller", "admin"],
)
def test_the_grace_does_not_hold_back_the_controllers_or_an_admins_election(request_: ElectMasterRequest) -> None:
    state = with_master(1, sync_state_set=(1, 2))
    after, result = run(state, request_, alive_of(2, 3), master_grace=True)
    assert result.code == ResponseCode.SUCCESS and broker_set(after).master_id == 2


def test_in_the_grace_a_set_without_master_elects_as_ever() -> None:
    state, _ = run(with_master(1, (1, 2)), ElectMasterRequest("", BROKER), NOBODY)  # the master cleared
    after, result = run(state, ElectMasterRequest(CLUSTER, BROKER, 2), alive_of(2), master_grace=True)
    assert result.code == ResponseCode.SUCCESS and broker_set(after).master_id == 2


def test_in_the_grace_a_master_the_table_sees_is_read_as_it_is() -> None:
    state = with_master(1, sync_state_set=(1, 2))
    _, result = run(state, ElectMasterRequest(CLUSTER, BROKER, 2), alive_of(1, 2), master_grace=True)
    assert result.code == ResponseCode.CONTROLLER_MASTER_STILL_EXIST


def test_controller_trigger_with_nobody_alive_clears_the_master_and_keeps_the_sync_state_set() -> None:
    state = with_master(1, sync_state_set=(1, 2))
    after, result = run(state, ElectMasterRequest("", BROKER), alive_of(3))
    assert result.code == ResponseCode.CONTROLLER_MASTER_NOT_AVAILABLE
    assert result.remark == "Old master has down and failed to elect a new broker master"
    assert result.events == (ElectMaster(BROKER, None, 1),)
    assert master_view(after) == (None, 2, frozenset({1, 2}), 2)


def test_controller_trigger_without_a_master_gives_2004_but_no_event() -> None:
    state, _ = run(with_master(1, (1, 2)), ElectMasterRequest("", BROKER), NOBODY)
    after, result = run(state, ElectMasterRequest("", BROKER), NOBODY)
    assert result.code == ResponseCode.CONTROLLER_MASTER_NOT_AVAILABLE
    assert result.events == ()
    assert broker_set(after).master_epoch == 2
    _, result = run(three_replicas(), ElectMasterRequest("", BROKER), alive_of(1, 2, 3))
    assert result.code == ResponseCode.CONTROLLER_MASTER_NOT_AVAILABLE
    assert result.events == ()


def test_controller_trigger_before_first_election_elects_only_with_unclean() -> None:
    state, result = run(three_replicas(), ElectMasterRequest("", BROKER), alive_of(2, 3), allow_unclean=True)
    assert result.ok
    assert broker_set(state).master_id == 2


@pytest.mark.parametrize(
    "request_",
    [ElectMasterRequest(CLUSTER, BROKER, 2), ElectMasterRequest(CLUSTER, BROKER, 2, designate_elect=True)],
    ids=["broker_trigger", "admin_trigger"],
)
def test_broker_or_admin_trigger_with_nobody_gives_2012_and_no_event(request_: ElectMasterRequest) -> None:
    state = with_master(1, sync_state_set=(1, 3))
    after, result = run(state, request_, alive_of(2))
    assert result.code == ResponseCode.CONTROLLER_ELECT_MASTER_FAILED
    assert result.remark.startswith("Failed to elect a new master")
    assert result.events == ()
    assert result.reply is None
    assert after == state


@pytest.mark.parametrize(
    ("designated", "alive", "allow_unclean", "why"),
    [
        (99, (1, 2, 3), False, "broker 99 is not registered in the set (registered ids: 1, 2, 3); eligible ids: 1, 3"),
        (3, (1, 2), False, "broker 3 is not alive (no heartbeat within its timeout); eligible ids: 1"),
        (2, (2,), False, "broker 2 is not in the SyncStateSet (1, 3); enableElectUncleanMaster=true allows any alive "
         "replica, and may lose acknowledged messages; eligible ids: none"),
        (99, (2,), True, "broker 99 is not registered in the set (registered ids: 1, 2, 3); eligible ids: 2"),
    ],
)  # fmt: skip
def test_a_refused_designated_election_says_why_and_which_ids_are_eligible(
    designated: int, alive: tuple[int, ...], allow_unclean: bool, why: str
) -> None:
    """Fixed: ``electMaster -b 99`` or a dead broker answered a bare "Failed to elect a new master"."""
    state = with_master(1, sync_state_set=(1, 3))
    request = ElectMasterRequest(CLUSTER, BROKER, designated, designate_elect=True)
    after, result = run(state, request, alive_of(*alive), allow_unclean=allow_unclean)
    assert (result.code, result.remark) == (ResponseCode.CONTROLLER_ELECT_MASTER_FAILED,
                                            f"Failed to elect a new master: {why}")  # fmt: skip
    assert after == state


def test_elect_unknown_set_needs_registration() -> None:
    _, result = run(three_replicas(), ElectMasterRequest(CLUSTER, "broker-z", 1), alive_of(1))
    assert result.code == ResponseCode.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED
    assert result.remark == "Broker hasn't been registered"


def test_admin_designated_non_member_fails_without_unclean_and_wins_with_unclean() -> None:
    state = with_master(1, sync_state_set=(1, 2))
    request = ElectMasterRequest(CLUSTER, BROKER, 3, designate_elect=True)
    _, result = run(state, request, alive_of(1, 2, 3))
    assert result.code == ResponseCode.CONTROLLER_ELECT_MASTER_FAILED
    after, result = run(state, request, alive_of(1, 2, 3), allow_unclean=True)
    assert result.code == ResponseCode.SUCCESS
    assert master_view(after) == (3, 2, frozenset({3}), 3)


def test_admin_designated_member_takes_over_from_an_alive_master() -> None:
    state = with_master(1, sync_state_set=(1, 2))
    after, result = run(state, ElectMasterRequest(CLUSTER, BROKER, 2, designate_elect=True), alive_of(1, 2))
    assert result.ok
    assert broker_set(after).master_id == 2


def test_admin_designating_the_current_master_gives_master_still_exist() -> None:
    state = with_master(1, sync_state_set=(1, 2))
    _, result = run(state, ElectMasterRequest(CLUSTER, BROKER, 1, designate_elect=True), alive_of(1, 2))
    assert result.code == ResponseCode.CONTROLLER_MASTER_STILL_EXIST


def test_former_sync_state_set_member_recovers_a_masterless_set() -> None:
    state, _ = run(with_master(1, sync_state_set=(1, 2)), ElectMasterRequest("", BROKER), NOBODY)
    assert broker_set(state).master_id is None
    _, refused = run(state, ElectMasterRequest(CLUSTER, BROKER, 3), alive_of(3))
    assert refused.code == ResponseCode.CONTROLLER_ELECT_MASTER_FAILED
    after, result = run(state, ElectMasterRequest(CLUSTER, BROKER, 2), alive_of(2, 3))
    assert result.code == ResponseCode.SUCCESS
    assert reply_of(result, ElectMasterReply).master_epoch == 3
    assert master_view(after) == (2, 3, frozenset({2}), 3)


def test_liveness_of_the_same_id_in_another_set_does_not_count() -> None:
    state = with_master(1, sync_state_set=(1, 2))
    _, result = run(state, ElectMasterRequest(CLUSTER, BROKER, 2), alive_of(2, broker_name="broker-b"))
    assert result.code == ResponseCode.CONTROLLER_ELECT_MASTER_FAILED


def test_stale_elect_event_is_a_no_op() -> None:
    state = with_master(1, sync_state_set=(1, 2))
    assert apply_event(state, ElectMaster(BROKER, 2, 0)) == state
    assert apply_event(state, ElectMaster(BROKER, None, 5)) == state


def test_elect_event_for_an_unregistered_id_or_unknown_set_is_a_no_op() -> None:
    state = with_master(1)
    assert apply_event(state, ElectMaster(BROKER, 9, 1)) == state
    assert apply_event(state, ElectMaster("broker-z", 1, 0)) == state


# --- scan_need_reelect --------------------------------------------------------------------------


def _two_sets() -> ControllerState:
    state = with_master(1, sync_state_set=(1, 2))
    state = apply_ids(state, [1, 2], broker_name="broker-b")
    return elect_first(state, 2, broker_name="broker-b")


def test_scan_flags_a_set_whose_master_is_dead_and_another_broker_alive() -> None:
    alive = {**alive_of(3), **alive_of(2, broker_name="broker-b")}
    assert scan_need_reelect(_two_sets(), alive) == [BROKER]


def test_scan_ignores_sets_with_an_alive_master() -> None:
    alive = {**alive_of(1), **alive_of(2, broker_name="broker-b")}
    assert scan_need_reelect(_two_sets(), alive) == []


def test_scan_ignores_a_set_with_nobody_alive() -> None:
    assert scan_need_reelect(_two_sets(), NOBODY) == []


def test_scan_ignores_sets_without_a_master() -> None:
    assert scan_need_reelect(three_replicas(), alive_of(1, 2, 3)) == []


def test_scan_flags_every_set_that_lost_its_master() -> None:
    alive = {**alive_of(2), **alive_of(1, broker_name="broker-b")}
    assert sorted(scan_need_reelect(_two_sets(), alive)) == [BROKER, "broker-b"]
