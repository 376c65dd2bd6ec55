"""ConsumerState: records applied in sequence, replays ignored, gaps refused, POP events through agents.pop."""

from __future__ import annotations

import pytest
from hypothesis import given

from agents.consumer.errors import SequenceGap
from agents.consumer.records import Change, Forgotten, OffsetCommitted, StateRecord, TimerDelivered
from agents.consumer.state import Committed, ConsumerState, apply, apply_all, queue_state
from agents.delay.timer import TimerProgress
from agents.pop import rules
from agents.pop.events import Acked, Delivery, Popped
from agents.pop.model import QueueKey, QueueState
from tests.harness.consumer_runs import STEPS, play
from tests.harness.fuzzing import fuzz

Q = QueueKey("G", "T", 0)
R = QueueKey("G", "T", 1)


def _records(*changes: Change) -> list[StateRecord]:
    return [StateRecord(i, c) for i, c in enumerate(changes, 1)]


POPPED = Popped(R, 0, 2, (), (), (Delivery(0, 1, 500, 1), Delivery(1, 2, 500, 1)))
ACKED = Acked(R, 0, 1)
LOG = _records(OffsetCommitted(Q, 10, 100), POPPED, OffsetCommitted(Q, 4, 200), ACKED)


@pytest.mark.parametrize(
    ("records", "offsets", "committed_r", "seq"),
    [
        ([], {}, None, 0),
        (LOG[:1], {Q: Committed(10, 100)}, None, 1),
        (LOG[:3], {Q: Committed(4, 200)}, 0, 3),  # a reset moves an offset back: the later record wins
        (LOG, {Q: Committed(4, 200)}, 1, 4),
        (LOG + LOG, {Q: Committed(4, 200)}, 1, 4),  # the whole log again: replays change nothing
        (LOG[:2] + LOG[:1] + LOG[2:], {Q: Committed(4, 200)}, 1, 4),  # an old offset replayed does not win
    ],
)
def test_records_apply_in_sequence(
    records: list[StateRecord], offsets: dict[QueueKey, Committed], committed_r: int | None, seq: int
) -> None:
    state = apply_all(None, records)
    assert (dict(state.offsets), state.seq) == (offsets, seq)
    assert (state.queues[R].committed if R in state.queues else None) == committed_r


def test_pop_events_change_the_queue_as_agents_pop_applies_them() -> None:
    state = apply_all(None, LOG)
    assert state.queues[R] == rules.apply_all(None, [POPPED, ACKED])


def test_the_sequence_number_is_what_makes_a_popped_replay_safe() -> None:
    """POP's tickets alone would put an acked message back in flight when its Popped is replayed."""
    once = rules.apply_all(None, [POPPED, ACKED])
    assert 0 in rules.apply(once, POPPED).inflight
    assert 0 not in apply_all(apply_all(None, LOG), LOG[1:2]).queues[R].inflight


def test_a_replayed_record_returns_the_same_state() -> None:
    state = apply_all(None, LOG)
    assert apply(state, LOG[2]) is state


def test_forgetting_drops_one_group_on_one_topic() -> None:
    other = QueueKey("H", "T", 0)
    elsewhere = QueueKey("G", "U", 0)
    log = _records(
        *(c.change for c in LOG),
        OffsetCommitted(other, 7, 300),
        OffsetCommitted(elsewhere, 8, 300),
        Forgotten("G", "T"),
    )
    state = apply_all(None, log)
    assert dict(state.offsets) == {other: Committed(7, 300), elsewhere: Committed(8, 300)}
    assert dict(state.queues) == {}
    assert state.seq == len(log)


def test_a_gap_in_the_sequence_is_refused() -> None:
    with pytest.raises(SequenceGap, match=r"^consumer-state record 4 follows record 2: records 3\.\.3 are missing"):
        apply_all(None, LOG[:2] + LOG[3:])


def test_the_first_record_must_be_number_one() -> None:
    with pytest.raises(SequenceGap, match="record 2 follows record 0"):
        apply(ConsumerState(), LOG[1])


@fuzz(200)
@given(STEPS)
def test_the_rebuilt_state_is_the_state_the_master_kept(steps: list[tuple[str, int, int]]) -> None:
    run = play(steps)
    assert apply_all(None, run.records) == run.state


@fuzz(200)
@given(STEPS)
def test_applying_a_log_twice_equals_once(steps: list[tuple[str, int, int]]) -> None:
    run = play(steps)
    once = apply_all(None, run.records)
    assert apply_all(once, run.records) == once
    assert apply_all(None, [r for record in run.records for r in (record, record)]) == once


def test_an_offset_commit_starts_pop_over_at_the_offset_and_old_handles_stay_stale() -> None:
    state = apply_all(None, _records(POPPED, OffsetCommitted(R, 0, 300)))
    assert state.queues[R] == QueueState(0, 0, next_ticket=3)  # tickets 1 and 2 are never issued again
    assert queue_state(state, R) == state.queues[R]


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ((), None),
        ((OffsetCommitted(Q, 7, 1),), QueueState(7, 7)),  # a committed offset without POP state: POP starts there
        ((POPPED,), None),  # another queue's state is not this one's
    ],
)
def test_queue_state_is_what_a_receive_decides_against(
    changes: tuple[Change, ...], expected: QueueState | None
) -> None:
    assert queue_state(apply_all(None, _records(*changes)), Q) == expected


def test_timer_deliveries_mark_progress_and_a_replay_changes_nothing() -> None:
    """``TimerDelivered`` records rebuild which delayed messages are delivered; the other kinds leave it be."""
    log = _records(TimerDelivered((1, 2)), OffsetCommitted(Q, 3, 100), TimerDelivered((0,)), Forgotten("G", "T"))
    state = apply_all(None, log)
    assert (state.timer, state.seq) == (TimerProgress(3, frozenset()), 4)
    assert apply_all(state, log) is state
    assert apply_all(None, log[:1]).timer == TimerProgress(0, frozenset({1, 2}))
