"""Preferred master, Assign and Elect: the decisions, their events, and the flag-off guarantee."""

from __future__ import annotations

import json
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller import convert
from controller.codec import CodecError, decode_state, encode_events, encode_state
from controller.convert import InvalidRequest
from controller.election import elect, preferred_of
from controller.events import AssignPreferredMaster, CleanBrokerData
from controller.model import BrokerSet, ControllerState, LiveInfo
from controller.requests import (
    AssignPreferredMasterReply,
    AssignPreferredMasterRequest,
    CleanBrokerDataRequest,
    ElectMasterReply,
    ElectMasterRequest,
    GetSyncStateDataRequest,
    Request,
    Result,
    SyncStateDataReply,
)
from controller.state import apply_event, apply_events, compute
from mqbase.codes import ResponseCode as C
from mqbase.proto import controller_pb2 as pb
from tests.harness.controller_invariants import ALIVE, REQUESTS, Spec, materialize
from tests.harness.controller_state import (
    BROKER,
    CLUSTER,
    NOBODY,
    alive_of,
    broker_set,
    live,
    master_view,
    reply_of,
    run,
    three_replicas,
    two_sets_of_three,
    with_master,
)

LEARNER = live(epoch=9, max_offset=10**9, async_learner=True)
CONTROLLER_TRIGGER = ElectMasterRequest("", BROKER)


def assign(broker_id: int | None, cluster_name: str = CLUSTER, broker_name: str = BROKER) -> Request:
    return AssignPreferredMasterRequest(cluster_name, broker_name, broker_id)


def preferring(state: ControllerState, broker_id: int | None) -> ControllerState:
    """`state` with `broker_id` assigned as the preferred master of BROKER (the assignment must succeed)."""
    after, result = run(state, assign(broker_id), NOBODY)
    assert result.ok, result.remark
    assert broker_set(after).preferred_id == broker_id
    return after


def alive(**by_id: LiveInfo) -> dict[tuple[str, int], LiveInfo]:
    """An alive view of BROKER from keyword ids: ``alive(b2=live(), b3=LEARNER)``."""
    return {(BROKER, int(key[1:])): info for key, info in by_id.items()}


# --- who is preferred ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("assigned", "infos", "expected"),
    [
        pytest.param(None, {}, None, id="nobody"),
        pytest.param(None, {1: live(), 2: live(priority=1)}, None, id="no_priority_0"),
        pytest.param(None, {1: live(), 3: live(priority=0), 2: live(priority=0)}, 2, id="lowest_id_at_priority_0"),
        pytest.param(None, {2: live(priority=0, async_learner=True), 3: live(priority=0)}, 3, id="learner_skipped"),
        pytest.param(1, {2: live(priority=0)}, 1, id="assignment_overrides_priority"),
        pytest.param(4, {2: live(priority=0)}, 4, id="assigned_even_while_down"),
    ],
)
def test_preferred_of(assigned: int | None, infos: dict[int, LiveInfo], expected: int | None) -> None:
    assert preferred_of(assigned, infos) == expected


# --- the pure policy with a preferred master ----------------------------------------------------

PREFERRED_CASES: list[tuple[str, list[int], list[int] | None, dict[int, LiveInfo], int | None, int | None, int]] = [
    # (case id, SSS, all replicas (unclean) or None, alive, old master, designated, expected); preferred is 3
    ("preferred_beats_epoch_and_offset", [1, 2, 3], None, {2: live(9, 900), 3: live(1, 10)}, 1, None, 3),
    ("preferred_beats_priority", [1, 2, 3], None, {2: live(1, 10, 0), 3: live(1, 10, 9)}, None, None, 3),
    ("dead_preferred_normal_policy", [1, 2, 3], None, {1: live(1, 5), 2: live(1, 10)}, None, None, 2),
    ("preferred_outside_sss_normal_policy", [1, 2], None, {2: live(1, 10), 3: live(9, 99)}, 1, None, 2),
    ("learner_preferred_normal_policy", [1, 2, 3], None, {2: live(1, 10), 3: LEARNER}, 1, None, 2),
    ("old_master_stays_sticky", [1, 2, 3], None, {1: live(1, 5), 3: live(1, 10)}, 1, None, 1),
    ("designated_beats_preferred", [1, 2, 3], None, {2: live(), 3: live()}, 1, 2, 2),
    ("unclean_pass_ignores_preferred", [1], [1, 2, 3], {2: live(1, 50), 3: live(1, 10)}, 1, None, 2),
]


@pytest.mark.parametrize(
    ("sss", "all_replicas", "infos", "old_master", "designated", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in PREFERRED_CASES],
)
def test_elect_policy_with_preferred_3(
    sss: list[int],
    all_replicas: list[int] | None,
    infos: dict[int, LiveInfo],
    old_master: int | None,
    designated: int | None,
    expected: int,
) -> None:
    assert elect(sss, all_replicas, infos, old_master=old_master, designated=designated, preferred=3) == expected


INFOS = st.builds(
    LiveInfo,
    epoch=st.integers(0, 3),
    max_offset=st.sampled_from([0, 100, 2**31 + 5]),
    election_priority=st.integers(0, 2),
    async_learner=st.sampled_from([False] * 5 + [True]),
)
SOME_IDS = st.sets(st.integers(1, 5), max_size=5)


@settings(max_examples=400, deadline=None)
@given(
    sss=SOME_IDS,
    unclean=st.booleans(),
    infos=st.dictionaries(st.integers(1, 5), INFOS, max_size=5),
    old_master=st.none() | st.integers(1, 5),
    designated=st.none() | st.integers(1, 5),
    preferred=st.integers(1, 5),
)
def test_preferred_wins_exactly_when_it_is_a_clean_candidate_and_nothing_outranks_it(
    sss: set[int],
    unclean: bool,
    infos: dict[int, LiveInfo],
    old_master: int | None,
    designated: int | None,
    preferred: int,
) -> None:
    everyone = [1, 2, 3, 4, 5] if unclean else None
    with_pref = elect(sss, everyone, infos, old_master=old_master, designated=designated, preferred=preferred)
    without = elect(sss, everyone, infos, old_master=old_master, designated=designated, preferred=None)
    clean_candidates = {i for i in sss if i in infos and not infos[i].async_learner}
    outranked = designated is not None or old_master in clean_candidates
    if preferred in clean_candidates and not outranked:
        assert with_pref == preferred
    else:
        assert with_pref == without


# --- elections end to end -----------------------------------------------------------------------


def master_lost(preferred: int | None) -> ControllerState:
    """Master 1 of SyncStateSet {1, 2, 3}, `preferred` assigned; the views below leave 1 out (it is dead)."""
    return preferring(with_master(1, (1, 2, 3)), preferred)


def test_master_lost_elects_the_assigned_preferred_over_a_more_advanced_member() -> None:
    views = alive(b2=live(5, 900), b3=live(1, 10))
    after, result = run(master_lost(3), CONTROLLER_TRIGGER, views, preferred_master=True)
    assert result.code == C.SUCCESS
    assert master_view(after) == (3, 2, frozenset({3}), 3)
    _, off = run(master_lost(3), CONTROLLER_TRIGGER, views)
    assert reply_of(off, ElectMasterReply).master_broker_id == 2, (
        "with enablePreferredMaster=false the policy is unchanged"
    )


@pytest.mark.parametrize("preferred", [1, 2, None], ids=["preferred_master_died", "preferred_dead_too", "none"])
def test_master_lost_without_an_alive_preferred_follows_the_normal_policy(preferred: int | None) -> None:
    views = alive(b3=live(1, 90)) if preferred == 2 else alive(b2=live(1, 10), b3=live(1, 90))
    after, result = run(master_lost(preferred), CONTROLLER_TRIGGER, views, preferred_master=True)
    assert (result.code, broker_set(after).master_id) == (C.SUCCESS, 3)
    assert broker_set(after).preferred_id == preferred, "an election never changes the preference"


def test_priority_0_marks_the_preferred_when_none_is_assigned_and_an_assignment_overrides_it() -> None:
    views = alive(b2=live(5, 900), b3=live(1, 10, priority=0))
    _, result = run(master_lost(None), CONTROLLER_TRIGGER, views, preferred_master=True)
    assert reply_of(result, ElectMasterReply).master_broker_id == 3
    views = alive(b2=live(1, 10), b3=live(5, 900, priority=0))
    _, result = run(master_lost(2), CONTROLLER_TRIGGER, views, preferred_master=True)
    assert reply_of(result, ElectMasterReply).master_broker_id == 2


def test_an_alive_preferred_does_not_unseat_an_alive_master() -> None:
    state = master_lost(3)
    after, result = run(state, ElectMasterRequest(CLUSTER, BROKER, 3), alive_of(1, 2, 3), preferred_master=True)
    assert result.code == C.CONTROLLER_MASTER_STILL_EXIST
    assert after == state


def test_admin_designation_wins_over_the_preferred() -> None:
    request = ElectMasterRequest(CLUSTER, BROKER, 2, designate_elect=True)
    after, result = run(master_lost(3), request, alive_of(1, 2, 3), preferred_master=True)
    assert (result.code, broker_set(after).master_id) == (C.SUCCESS, 2)
    first, result = run(preferring(three_replicas(), 3), request, alive_of(1, 2, 3), preferred_master=True)
    assert (result.code, broker_set(first).master_id) == (C.SUCCESS, 2)


@pytest.mark.parametrize(
    ("preferred", "views", "expected"),
    [
        pytest.param(3, alive(b1=live(), b3=live()), 3, id="alive_assigned_preferred_wins"),
        pytest.param(None, alive(b1=live(), b2=live(priority=0)), 2, id="alive_priority_0_wins"),
        pytest.param(3, alive(b1=live()), 1, id="dead_preferred_requester_wins"),
        pytest.param(3, alive(b1=live(), b3=LEARNER), 1, id="learner_preferred_requester_wins"),
        pytest.param(3, alive(b1=LEARNER, b3=live()), 3, id="learner_requester_preferred_wins"),
    ],
)
def test_first_election_goes_to_the_registered_alive_preferred(
    preferred: int | None, views: dict[tuple[str, int], LiveInfo], expected: int
) -> None:
    state = preferring(three_replicas(), preferred)
    after, result = run(state, ElectMasterRequest(CLUSTER, BROKER, 1), views, preferred_master=True)
    assert result.code == C.SUCCESS
    assert master_view(after) == (expected, 1, frozenset({expected}), 1)
    _, off = run(state, ElectMasterRequest(CLUSTER, BROKER, 1), views)
    assert off.reply is None or off.reply.master_broker_id == 1


# --- AssignPreferredMaster ----------------------------------------------------------------------


def test_assign_reports_before_and_after_and_commits_one_event() -> None:
    state = with_master(1, (1, 2))
    after, result = run(state, assign(2), alive_of(1, 2), preferred_master=True)
    assert result.code == C.SUCCESS
    assert result.reply == AssignPreferredMasterReply(CLUSTER, BROKER, None, 2, 1, 1, True)
    assert result.events == (AssignPreferredMaster(BROKER, 2),)
    assert replace(broker_set(after), preferred_id=None) == broker_set(state)
    _, again = run(after, assign(3), NOBODY)
    assert again.reply == AssignPreferredMasterReply(CLUSTER, BROKER, 2, 3, 1, 1, False)


def test_assigning_the_same_broker_again_is_a_no_op_success() -> None:
    state = preferring(with_master(1), 2)
    after, result = run(state, assign(2), NOBODY)
    assert (result.code, result.events, after) == (C.SUCCESS, (), state)
    reply = reply_of(result, AssignPreferredMasterReply)
    assert (reply.previous_preferred_id, reply.preferred_id) == (2, 2)


def test_clear_removes_the_preference_and_clearing_nothing_is_a_no_op() -> None:
    state = preferring(with_master(1), 2)
    cleared, result = run(state, assign(None), NOBODY)
    assert result.events == (AssignPreferredMaster(BROKER, None),)
    assert broker_set(cleared).preferred_id is None
    again, result = run(cleared, assign(None), NOBODY)
    assert (result.code, result.events, again) == (C.SUCCESS, (), cleared)


def test_a_broker_that_is_down_can_be_assigned() -> None:
    assert broker_set(preferring(three_replicas(), 3)).preferred_id == 3


@pytest.mark.parametrize(
    ("request_", "views", "code", "remark"),
    [
        pytest.param(
            assign(1, broker_name="broker-z"), NOBODY, C.CONTROLLER_BROKER_METADATA_NOT_EXIST,
            "Broker-set: broker-z hasn't been registered in cluster DefaultCluster", id="unknown_set",
        ),
        pytest.param(
            assign(1, cluster_name="Other"), NOBODY, C.CONTROLLER_BROKER_METADATA_NOT_EXIST,
            "Broker-set: broker-a hasn't been registered in cluster Other, it belongs to cluster DefaultCluster",
            id="set_of_another_cluster",
        ),
        pytest.param(
            assign(9), NOBODY, C.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED,
            "BrokerId: 9 hasn't been registered in broker-set: broker-a (registered ids: 1, 2, 3)", id="unknown_id",
        ),
        pytest.param(
            assign(3), alive(b3=LEARNER), C.CONTROLLER_INVALID_REPLICAS,
            "Broker 3 of broker-a is an async learner, which never becomes master", id="async_learner",
        ),
    ],
)  # fmt: skip
def test_assign_refusals_change_nothing(
    request_: Request, views: dict[tuple[str, int], LiveInfo], code: C, remark: str
) -> None:
    state = preferring(with_master(1), 2)
    after, result = run(state, request_, views, preferred_master=True)
    assert (result.code, result.remark, result.reply, result.events) == (code, remark, None, ())
    assert after == state


# --- apply --------------------------------------------------------------------------------------


def test_cleaning_the_preferred_id_clears_the_preference_and_other_ids_keep_it() -> None:
    state = preferring(three_replicas(), 2)
    assert broker_set(apply_event(state, CleanBrokerData(BROKER, frozenset({3})))).preferred_id == 2
    assert broker_set(apply_event(state, CleanBrokerData(BROKER, frozenset({2, 3})))).preferred_id is None
    assert apply_event(state, CleanBrokerData(BROKER, None)).get(BROKER) is None
    after, result = run(state, CleanBrokerDataRequest(CLUSTER, BROKER, "2"), NOBODY)
    assert result.ok and broker_set(after).preferred_id is None


def test_an_assignment_committed_after_a_clean_of_its_id_is_a_no_op() -> None:
    state = three_replicas()
    stale = compute(state, assign(3), NOBODY, allow_unclean=False).events
    cleaned = apply_event(state, CleanBrokerData(BROKER, frozenset({3})))
    assert apply_events(cleaned, stale) == cleaned
    assert apply_events(ControllerState(), stale) == ControllerState()


def test_the_snapshot_names_the_preference_as_documented() -> None:
    state = preferring(with_master(1), 3)
    assert json.loads(encode_state(state))["brokerSets"][0]["preferredBrokerId"] == 3
    assert decode_state(encode_state(state)) == state


def test_a_snapshot_written_before_preferred_masters_decodes_without_one() -> None:
    doc = json.loads(encode_state(with_master(1)))
    del doc["brokerSets"][0]["preferredBrokerId"]
    assert decode_state(json.dumps(doc).encode()) == with_master(1)
    doc["brokerSets"][0]["preferredBrokerId"] = "2"
    with pytest.raises(CodecError, match="'preferredBrokerId' of broker-a must be an integer or null"):
        decode_state(json.dumps(doc).encode())


def test_sync_state_data_carries_the_assigned_preferred() -> None:
    request = GetSyncStateDataRequest(all_broker_sets=True)
    (info,) = reply_of(
        compute(preferring(with_master(1), 3), request, NOBODY, allow_unclean=False), SyncStateDataReply
    ).replicas_info
    assert info.preferred_broker_id == 3
    (info,) = reply_of(compute(with_master(1), request, NOBODY, allow_unclean=False), SyncStateDataReply).replicas_info
    assert info.preferred_broker_id is None


# --- with the flag off nothing changes ----------------------------------------------------------


def _forget_preferences(state: ControllerState) -> ControllerState:
    return ControllerState(MappingProxyType({n: replace(bs, preferred_id=None) for n, bs in state.broker_sets.items()}))


def _without_preferred(result: Result[Any]) -> Result[Any]:
    """The result with the preferred id of GetSyncStateData replies dropped (the only place it shows)."""
    reply = result.reply
    if reply is not None and hasattr(reply, "replicas_info"):
        infos = tuple(replace(x, preferred_broker_id=None) for x in reply.replicas_info)
        return replace(result, reply=replace(reply, replicas_info=infos))
    return result


@st.composite
def preferences(draw: st.DrawFn, state: ControllerState) -> ControllerState:
    """`state` with a random registered id (or none) preferred in each set."""

    def pick(bs: BrokerSet) -> BrokerSet:
        return replace(bs, preferred_id=draw(st.none() | st.sampled_from(bs.broker_ids)))

    return ControllerState(MappingProxyType({n: pick(bs) for n, bs in state.broker_sets.items()}))


ELECTIONS = st.builds(ElectMasterRequest, st.just(CLUSTER), st.sampled_from(["broker-a", "broker-b"]),
                      st.none() | st.integers(1, 4), st.booleans())  # fmt: skip
"""Half of the drawn requests are elections, where preferences could matter."""


@settings(max_examples=300, deadline=None)
@given(data=st.data(), alive_now=ALIVE, unclean=st.booleans())
def test_with_the_flag_off_every_decision_is_what_it_was_without_preferences(
    data: st.DataObject, alive_now: dict[tuple[str, int], LiveInfo], unclean: bool
) -> None:
    """Assigned preferences and priority-0 brokers change no decision while enablePreferredMaster=false.

    Also: with the flag on, a set that has no preference at all decides as before.
    """
    state = data.draw(preferences(two_sets_of_three()), label="state")
    plain = _forget_preferences(state)
    for _ in range(data.draw(st.integers(1, 8), label="steps")):
        drawn: Request | Spec = data.draw(ELECTIONS | REQUESTS, label="request")
        request = materialize(drawn, state, alive_now)
        off = compute(state, request, alive_now, allow_unclean=unclean, preferred_master=False)
        if isinstance(request, AssignPreferredMasterRequest):
            state = apply_events(state, off.events)
            continue
        assert _without_preferred(off) == compute(plain, request, alive_now, allow_unclean=unclean)
        assert encode_events(off.events) == encode_events(
            compute(plain, request, alive_now, allow_unclean=unclean).events
        )
        no_priority_0 = {k: replace(v, election_priority=max(1, v.election_priority)) for k, v in alive_now.items()}
        on = compute(plain, request, no_priority_0, allow_unclean=unclean, preferred_master=True)
        assert on == compute(plain, request, no_priority_0, allow_unclean=unclean)
        state, plain = apply_events(state, off.events), apply_events(plain, off.events)


# --- the gRPC edge ------------------------------------------------------------------------------


def test_convert_takes_either_an_id_or_clear() -> None:
    m = pb.AssignPreferredMasterRequest
    assert convert.assign_preferred_master(m(cluster_name="c", broker_name="b", broker_id=2)) == (
        AssignPreferredMasterRequest("c", "b", 2)
    )
    assert convert.assign_preferred_master(m(cluster_name="c", broker_name="b", clear=True)) == (
        AssignPreferredMasterRequest("c", "b", None)
    )
    for bad, message in [
        (m(cluster_name="c", broker_name="b"), "brokerId is required"),
        (m(cluster_name="c", broker_name="b", broker_id=2, clear=True), "either brokerId or clear=true, not both"),
        (m(cluster_name="c", broker_name="b", broker_id=0), "brokerId must be a positive broker id"),
        (m(broker_name="b", broker_id=2), "clusterName is required"),
    ]:
        with pytest.raises(InvalidRequest, match=message):
            convert.assign_preferred_master(bad)


def test_convert_replies_leave_absent_ids_unset() -> None:
    reply = convert.assign_preferred_reply(
        Result(C.SUCCESS, reply=AssignPreferredMasterReply("c", "b", None, 2, None, 0, True))
    )
    message = pb.AssignPreferredMasterResponse(**reply)
    assert not message.HasField("previous_preferred_broker_id") and not message.HasField("master_broker_id")
    assert (message.preferred_broker_id, message.preferred_master_enabled) == (2, True)
    assert convert.assign_preferred_reply(Result(C.CONTROLLER_INVALID_REPLICAS, "learner")) == {}
    state = preferring(with_master(1), 3)
    result = compute(state, GetSyncStateDataRequest(all_broker_sets=True), NOBODY, allow_unclean=False)
    (info,) = convert.sync_state_data_reply(result)["replicas_info"]
    assert info.preferred_broker_id == 3
    result = compute(with_master(1), GetSyncStateDataRequest(all_broker_sets=True), NOBODY, allow_unclean=False)
    assert not convert.sync_state_data_reply(result)["replicas_info"][0].HasField("preferred_broker_id")
