"""RIP-32's acting-master decision: scenarios, every combination of small inputs, and properties."""

from __future__ import annotations

import itertools
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from agents.ha.acting import (
    ActingPolicy,
    ControllerAnswer,
    SetView,
    Verdict,
    Why,
    decide,
    escape_target,
    master_missing,
    may_have_been_replaced,
    watches,
)
from agents.ha.role import Role
from tests.harness.fuzzing import fuzz

ON = ActingPolicy(enable_slave_acting_master=True)
BOUND = ON.broker_not_active_timeout_ms
ALL = frozenset({1, 2, 3})


def view(
    broker_id: int = 2,
    *,
    role: Role = Role.SLAVE,
    master: int | None = None,
    answered: int | None = 0,
    reachable: bool = True,
    seen: int | None = None,
    alive: frozenset[int] = frozenset({2, 3}),
) -> SetView:
    answer = None if answered is None else ControllerAnswer(master, answered)
    return SetView(broker_id, role, answer, reachable, seen, alive)


# --- scenarios ---------------------------------------------------------------------------------


def test_off_by_default_whatever_the_view() -> None:
    assert ActingPolicy().enable_slave_acting_master is False
    assert decide(view(), 1_000, ActingPolicy()) == Verdict(False, None, Why.DISABLED)


def test_the_controller_reporting_no_master_makes_the_smallest_alive_slave_act_at_once() -> None:
    assert decide(view(2), 1, ON) == Verdict(True, 2, Why.CONTROLLER_REPORTS_NONE)
    assert decide(view(3), 1, ON) == Verdict(False, 2, Why.CONTROLLER_REPORTS_NONE)


def test_a_reported_master_means_nobody_acts_even_if_unseen_for_long() -> None:
    assert decide(view(2, master=1, seen=None), 10 * BOUND, ON) == Verdict(False, None, Why.MASTER_REPORTED)


def test_a_master_seen_after_the_controller_said_none_is_newer_than_the_answer() -> None:
    assert decide(view(2, answered=100, seen=101), 200, ON) == Verdict(False, None, Why.MASTER_SEEN)
    assert decide(view(2, answered=100, seen=100), 200, ON).act  # seen before the answer: the answer is newer


def test_an_unreachable_controller_waits_for_the_master_to_be_unseen_for_the_bound() -> None:
    v = view(2, master=1, answered=0, reachable=False, seen=1_000)
    assert decide(v, 1_000 + BOUND - 1, ON) == Verdict(False, None, Why.MASTER_SEEN)
    assert decide(v, 1_000 + BOUND, ON) == Verdict(True, 2, Why.MASTER_LOST)


def test_an_unreachable_controller_s_recent_answer_naming_a_master_still_counts() -> None:
    v = view(2, master=1, answered=5_000, reachable=False, seen=None)
    assert decide(v, 5_000 + BOUND - 1, ON).why is Why.MASTER_REPORTED
    assert decide(v, 5_000 + BOUND, ON) == Verdict(True, 2, Why.MASTER_LOST)


def test_a_replica_that_never_heard_of_a_master_or_a_controller_counts_it_lost() -> None:
    assert decide(view(2, answered=None, reachable=False, seen=None), 0, ON) == Verdict(True, 2, Why.MASTER_LOST)


def test_a_replica_no_controller_listed_the_set_to_does_not_act() -> None:
    """Fixed (issue 38's open item): knowing no peers, it counted itself the smallest alive id and acted alone, beside
    the replica the others chose (registered, then every controller down before its first list of the set)."""
    lost = replace(view(alive=frozenset({3}), answered=None, reachable=False), broker_id=3, replicas_known=False)
    assert decide(lost, 60_000, ON) == Verdict(False, None, Why.REPLICAS_UNKNOWN)
    assert decide(replace(lost, replicas_known=True), 60_000, ON).act
    reported = replace(lost, answer=ControllerAnswer(1, 59_000), controller_reachable=True)
    assert decide(reported, 60_000, ON) == Verdict(False, None, Why.MASTER_REPORTED)  # the master check comes first


def test_a_master_never_acts_and_the_others_defer_to_the_smallest_id_whatever_its_role() -> None:
    assert decide(view(2, role=Role.MASTER), 1, ON) == Verdict(False, 2, Why.CONTROLLER_REPORTS_NONE)
    assert not decide(view(3), 1, ON).act  # 2 is expected, even while it cannot act


def test_a_replica_restarted_during_the_episode_acts_though_it_never_learnt_a_role() -> None:
    """Fenced: it registered while the set had no master to follow (a rack restart)."""
    assert decide(view(2, role=Role.FENCED), 1, ON) == Verdict(True, 2, Why.CONTROLLER_REPORTS_NONE)
    unreachable = view(2, role=Role.FENCED, answered=None, reachable=False, seen=None)
    assert decide(unreachable, 0, ON) == Verdict(True, 2, Why.MASTER_LOST)


def test_a_replica_watches_only_while_its_master_stream_is_down_or_it_acts() -> None:
    for role, up, acts in itertools.product(Role, (True, False), (True, False)):
        assert not watches(ActingPolicy(), role, up, acts)
        assert watches(ON, role, up, acts) == (role is not Role.MASTER and (not up or acts))


def test_nobody_alive_nobody_expected() -> None:
    assert decide(view(2, alive=frozenset()), 1, ON) == Verdict(False, None, Why.CONTROLLER_REPORTS_NONE)


def test_a_push_naming_a_master_stops_the_actor() -> None:
    acting = view(2, master=1, answered=0, reachable=False, seen=0)
    assert decide(acting, 2 * BOUND, ON).act
    pushed = replace(acting, answer=ControllerAnswer(3, 2 * BOUND), controller_reachable=True)
    assert decide(pushed, 2 * BOUND, ON) == Verdict(False, None, Why.MASTER_REPORTED)


# --- every combination of small inputs ---------------------------------------------------------

IDS = (1, 2, 3)
ANSWERS = (None, ControllerAnswer(None, 0), ControllerAnswer(None, 6_000), ControllerAnswer(1, 0))
SEEN = (None, 0, 3_000, 9_000)
NOWS = (9_000, 12_000, 25_000)
ALIVES = tuple(frozenset(c) for n in range(4) for c in itertools.combinations(IDS, n))


def test_every_combination_obeys_the_rules() -> None:
    for answer, reachable, seen, alive, now in itertools.product(ANSWERS, (True, False), SEEN, ALIVES, NOWS):
        actors = []
        for broker_id, role in itertools.product(IDS, Role):
            v = SetView(broker_id, role, answer, reachable, seen, alive)
            verdict = decide(v, now, ON)
            assert decide(v, now, ActingPolicy()) == Verdict(False, None, Why.DISABLED)
            assert verdict.why is master_missing(v, now, ON)
            if verdict.act:
                assert role is not Role.MASTER and broker_id == min(alive) == verdict.expected
                actors.append(broker_id)
            if reachable and answer is not None and answer.master_id is not None:
                assert verdict == Verdict(False, None, Why.MASTER_REPORTED)
            if seen is not None and now - seen < BOUND and not (reachable and answer is not None):
                assert not verdict.act  # no controller to ask: a master seen within the bound is alive
            if verdict.why is Why.MASTER_LOST:
                assert not (reachable and answer is not None)
                assert seen is None or now - seen >= BOUND
        assert len(set(actors)) <= 1  # one id, whichever role it has


# --- properties --------------------------------------------------------------------------------

TIMES = st.integers(0, 40_000)
VIEWS = st.builds(
    lambda answer, reachable, seen, alive: (answer, reachable, seen, alive),
    st.none() | st.builds(ControllerAnswer, st.none() | st.integers(1, 5), TIMES),
    st.booleans(),
    st.none() | TIMES,
    st.frozensets(st.integers(1, 5)),
)


@fuzz(300)
@given(VIEWS, st.dictionaries(st.integers(1, 5), st.sampled_from(list(Role))), TIMES)
def test_at_most_one_replica_acts_per_consistent_view(
    shared: tuple[ControllerAnswer | None, bool, int | None, frozenset[int]], roles: dict[int, Role], now: int
) -> None:
    answer, reachable, seen, alive = shared
    verdicts = [decide(SetView(i, role, answer, reachable, seen, alive), now, ON) for i, role in roles.items()]
    assert sum(v.act for v in verdicts) <= 1
    assert len({v.expected for v in verdicts}) <= 1


@fuzz(300)
@given(VIEWS, st.integers(1, 5), TIMES)
def test_never_acts_while_a_master_is_reported_and_stops_as_soon_as_one_is(
    shared: tuple[ControllerAnswer | None, bool, int | None, frozenset[int]], broker_id: int, now: int
) -> None:
    answer, reachable, seen, alive = shared
    v = SetView(broker_id, Role.SLAVE, answer, reachable, seen, alive)
    if reachable and answer is not None and answer.master_id is not None:
        assert not decide(v, now, ON).act
    if not decide(v, now, ON).act:
        return
    pushed = replace(v, answer=ControllerAnswer(broker_id % 5 + 1, now), controller_reachable=True)
    polled_unreachable = replace(v, answer=ControllerAnswer(broker_id % 5 + 1, now), controller_reachable=False)
    later = max(now, seen or 0, answer.received_ms if answer else 0) + 1  # after everything the view holds
    sighted = replace(v, master_seen_ms=later)
    assert not decide(pushed, now, ON).act
    assert not decide(polled_unreachable, now, ON).act  # an answer that came just before the group went away
    assert not decide(sighted, later, ON).act


# --- escape ------------------------------------------------------------------------------------


def test_escape_goes_to_a_master_of_the_same_agent_first_else_the_smallest_serving_set() -> None:
    assert escape_target("b", ["d", "c"], ["a", "c", "d"]) == "c"
    assert escape_target("b", [], ["d", "a", "b"]) == "a"
    assert escape_target("b", ["b"], ["b", "e"]) == "e"  # never home: it has no master to take it
    assert escape_target("b", [], ["b"]) is None


@fuzz(200)
@given(st.sampled_from("abcd"), st.lists(st.sampled_from("abcd")), st.lists(st.sampled_from("abcd")))
def test_escape_never_goes_home_prefers_the_agent_s_own_masters_and_ignores_order(
    home: str, local: list[str], serving: list[str]
) -> None:
    target = escape_target(home, local, serving)
    assert target != home
    assert target == escape_target(home, reversed(local), reversed(serving))
    if set(local) - {home}:
        assert target in local
    elif set(serving) - {home}:
        assert target in serving
    else:
        assert target is None


# --- a master's own gap -----------------------------------------------------------------------


def test_a_master_gap_of_half_the_bound_may_have_let_a_slave_act() -> None:
    assert not may_have_been_replaced(BOUND // 2 - 1, ON)
    assert may_have_been_replaced(BOUND // 2, ON)
    assert may_have_been_replaced(10 * BOUND, ON)


@given(st.integers(-(10**6), 10**7), st.integers(1, 10**6), st.booleans())
def test_only_a_gap_of_half_the_bound_with_the_key_on_counts(gap_ms: int, bound_ms: int, enabled: bool) -> None:
    policy = ActingPolicy(enabled, bound_ms)
    assert may_have_been_replaced(gap_ms, policy) == (enabled and 2 * gap_ms >= bound_ms)
