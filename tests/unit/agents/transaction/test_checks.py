"""Check-back scheduling: first after the immunity, then every interval, dropped after the maximum. Pure."""

from __future__ import annotations

from types import MappingProxyType

from hypothesis import given
from hypothesis import strategies as st

from agents.consumer.progress import NO_PROGRESS, OffsetProgress
from agents.transaction.checks import CheckPolicy, OpenHalf, Plan, due_at, next_due, plan
from tests.harness.fuzzing import fuzz

POLICY = CheckPolicy(interval_ms=30_000, max_checks=15)
OPEN = {0: OpenHalf("T", 1_000, 6_000), 1: OpenHalf("T", 2_000, 6_000), 2: OpenHalf("U", 2_000, 60_000)}


def test_nothing_is_checked_before_its_immunity_ends() -> None:
    assert plan(OPEN, NO_PROGRESS, {}, {}, 6_999, POLICY) == Plan()
    assert plan(OPEN, NO_PROGRESS, {}, {}, 7_000, POLICY) == Plan(check=(0,))
    assert plan(OPEN, NO_PROGRESS, {}, {}, 62_000, POLICY) == Plan(check=(0, 1, 2))


def test_a_checked_half_waits_an_interval_and_an_ended_one_is_never_checked() -> None:
    last = {0: 8_000}
    assert plan(OPEN, OffsetProgress(0, frozenset({1})), {0: 1}, last, 37_999, POLICY) == Plan()
    assert plan(OPEN, OffsetProgress(0, frozenset({1})), {0: 1}, last, 38_000, POLICY) == Plan(check=(0,))
    assert next_due(OPEN, OffsetProgress(0, frozenset({1})), last, POLICY) == 38_000
    assert next_due(OPEN, OffsetProgress(3), {}, POLICY) is None


def test_a_half_checked_the_maximum_is_dropped_at_its_next_turn() -> None:
    counts = MappingProxyType({0: 15, 1: 14})
    assert plan(OPEN, NO_PROGRESS, counts, {}, 10_000, POLICY) == Plan(check=(1,), drop=(0,))


def test_a_pass_does_at_most_its_limit() -> None:
    many = {o: OpenHalf("T", 0, 0) for o in range(100)}
    done = plan(many, NO_PROGRESS, {o: 15 for o in range(0, 100, 2)}, {}, 1, POLICY, limit=10)
    assert done == Plan(check=(1, 3, 5, 7, 9), drop=(0, 2, 4, 6, 8))


HALVES = st.dictionaries(
    st.integers(0, 50), st.builds(OpenHalf, st.just("T"), st.integers(0, 10**6), st.integers(0, 10**5)), max_size=12
)


@fuzz(300)
@given(HALVES, st.integers(0, 50), st.dictionaries(st.integers(0, 50), st.integers(0, 20)),
       st.dictionaries(st.integers(0, 50), st.integers(0, 10**6)), st.integers(0, 2 * 10**6))  # fmt: skip
def test_a_plan_holds_only_open_due_halves_once_each(
    halves: dict[int, OpenHalf], floor: int, counts: dict[int, int], last: dict[int, int], now: int
) -> None:
    ended = OffsetProgress(floor)
    done = plan(halves, ended, counts, last, now, POLICY)
    picked = done.check + done.drop
    assert len(set(picked)) == len(picked) and list(done.check) == sorted(done.check)
    for o in picked:
        assert o in halves and not ended.done(o) and due_at(halves[o], last.get(o), POLICY) <= now
        assert (counts.get(o, 0) >= POLICY.max_checks) == (o in done.drop)
    earliest = next_due(halves, ended, last, POLICY)
    assert (earliest is not None and earliest <= now) == bool(picked)
