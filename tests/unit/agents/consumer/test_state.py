"""ConsumerState: records applied in sequence, replays ignored, gaps refused, POP events through agents.pop."""

from __future__ import annotations

from types import MappingProxyType

import pytest
from hypothesis import given

from agents.consumer.errors import SequenceGap
from agents.consumer.progress import OffsetProgress
from agents.consumer.records import (
    Change,
    Escaped,
    EscapeKey,
    EscapeReleased,
    Forgotten,
    OffsetCommitted,
    QueueMerged,
    StateRecord,
    TimerDelivered,
    TransactionChecked,
    TransactionEnded,
    Version,
)
from agents.consumer.state import RESOLUTIONS_KEPT, Committed, ConsumerState, apply, apply_all, queue_state
from agents.pop import rules
from agents.pop.events import Acked, Delivery, Popped
from agents.pop.model import Inflight, QueueKey, QueueState
from agents.transaction.half import Resolution
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
    assert (state.timer, state.seq) == (OffsetProgress(3, frozenset()), 4)
    assert apply_all(state, log) is state
    assert apply_all(None, log[:1]).timer == OffsetProgress(0, frozenset({1, 2}))


def test_transactions_end_once_and_count_their_check_backs_while_open() -> None:
    """An ended transaction's count goes, a check of an ended one counts nothing, and a replay changes nothing."""
    log = _records(
        TransactionChecked((0, 1, 3)),
        TransactionChecked((1, 3)),
        TransactionEnded((1,), Resolution.COMMIT),
        TransactionEnded((0,), Resolution.ROLLBACK),
        TransactionChecked((0, 1, 3)),
        TransactionEnded((2, 3), Resolution.DROPPED),
        TransactionChecked((5,)),
    )
    state = apply_all(None, log)
    assert (state.transactions, dict(state.checks), state.seq) == (OffsetProgress(4, frozenset()), {5: 1}, 7)
    assert apply_all(state, log) is state
    middle = apply_all(None, log[:5])
    assert (middle.transactions, dict(middle.checks)) == (OffsetProgress(2, frozenset()), {3: 3})
    in_one_batch = apply_all(None, _records(TransactionEnded((4,), Resolution.COMMIT), TransactionChecked((4,))))
    assert (in_one_batch.transactions, dict(in_one_batch.checks)) == (OffsetProgress(0, frozenset({4})), {})


def test_the_first_end_of_each_transaction_keeps_its_resolution_in_the_order_they_ended() -> None:
    """A second end of one transaction (a record no book writes, but a log may hold) does not change how it ended."""
    log = _records(
        TransactionEnded((5,), Resolution.ROLLBACK),
        TransactionEnded((1, 5), Resolution.COMMIT),
        TransactionEnded((0,), Resolution.DROPPED),
    )
    state = apply_all(None, log)
    assert list(state.resolutions.items()) == [
        (5, Resolution.ROLLBACK),
        (1, Resolution.COMMIT),
        (0, Resolution.DROPPED),
    ]
    assert apply_all(apply_all(None, log[:1]), log).resolutions == state.resolutions
    later = apply_all(state, [StateRecord(4, OffsetCommitted(Q, 1, 1)), StateRecord(5, TransactionChecked((7,)))])
    assert later.seq == 5 and later.resolutions is state.resolutions  # a batch that ends nothing shares the table


def test_only_the_latest_ends_keep_their_resolution() -> None:
    many = tuple(range(RESOLUTIONS_KEPT + 2))
    state = apply_all(
        None, _records(TransactionEnded(many, Resolution.COMMIT), TransactionEnded((10**6,), Resolution.ROLLBACK))
    )
    assert len(state.resolutions) == RESOLUTIONS_KEPT
    assert list(state.resolutions)[:1] == [3] and list(state.resolutions)[-1:] == [10**6]  # 0, 1 and 2 went first
    assert state.transactions.done(0) and 0 not in state.resolutions  # still ended


E1, E2 = EscapeKey(2, 1_000, 1), EscapeKey(2, 1_000, 2)


@pytest.mark.parametrize(
    ("changes", "versions"),
    [
        ((OffsetCommitted(Q, 10, 1, epoch=3),), {}),  # a first commit is no reset
        ((OffsetCommitted(Q, 10, 1, epoch=3), OffsetCommitted(Q, 12, 2, epoch=4)), {}),  # forward keeps it
        ((OffsetCommitted(Q, 10, 1), OffsetCommitted(Q, 4, 2, epoch=3)), {Q: Version(3, 2)}),  # back: a reset
        ((OffsetCommitted(Q, 10, 1), OffsetCommitted(Q, 10, 2, epoch=3)), {}),  # the same offset is no reset
        ((POPPED, ACKED, OffsetCommitted(R, 0, 2, epoch=5)), {R: Version(5, 3)}),  # below POP's consumer offset
        ((OffsetCommitted(Q, 10, 1), OffsetCommitted(Q, 4, 2, epoch=3), Forgotten("G", "T")), {}),
        (
            (
                OffsetCommitted(Q, 10, 1),
                OffsetCommitted(Q, 4, 2, epoch=3),
                QueueMerged(Q, Version(6, 9), QueueState(8, 8), 3),
            ),
            {Q: Version(6, 9)},
        ),
        (
            (
                OffsetCommitted(Q, 10, 1),
                OffsetCommitted(Q, 4, 2, epoch=3),
                QueueMerged(Q, Version(), QueueState(8, 8), 3),
            ),
            {},
        ),
    ],
)
def test_a_commit_that_moves_the_offset_back_versions_the_queue(
    changes: tuple[Change, ...], versions: dict[QueueKey, Version]
) -> None:
    assert apply_all(None, _records(*changes)).versions == versions


def test_a_merged_queue_is_set_whole() -> None:
    merged = QueueState(1, 3, MappingProxyType({1: Inflight(4, 900, 2)}), MappingProxyType({2: 0}), 5)
    state = apply_all(None, _records(POPPED, QueueMerged(R, Version(1, 1), merged, 700)))
    assert (state.queues[R], state.offsets[R], state.versions[R]) == (merged, Committed(1, 700), Version(1, 1))


@pytest.mark.parametrize(
    ("changes", "held"),
    [
        ((Escaped("b", E1, Version(), ACKED),), {"b": {E1: Escaped("b", E1, Version(), ACKED)}}),
        (  # a key held already changes nothing: the first change stays
            (Escaped("b", E1, Version(), ACKED), Escaped("b", E1, Version(), POPPED)),
            {"b": {E1: Escaped("b", E1, Version(), ACKED)}},
        ),
        (
            (Escaped("b", E1, Version(), ACKED), Escaped("b", E2, Version(), POPPED), EscapeReleased("b", (E1,))),
            {"b": {E2: Escaped("b", E2, Version(), POPPED)}},
        ),
        ((Escaped("b", E1, Version(), ACKED), EscapeReleased("b", (E1, E2))), {}),  # the last one: the home goes
        ((EscapeReleased("c", (E1,)),), {}),  # releasing what is not held changes nothing
        (
            (Escaped("b", E1, Version(), ACKED), Escaped("c", E1, Version(), ACKED), EscapeReleased("c", (E1,))),
            {"b": {E1: Escaped("b", E1, Version(), ACKED)}},
        ),
    ],
)
def test_escaped_changes_are_held_until_released_and_never_touch_the_own_queues(
    changes: tuple[Change, ...], held: dict[str, dict[EscapeKey, Escaped]]
) -> None:
    state = apply_all(None, _records(*changes))
    assert state.escaped == held
    assert (state.queues, state.offsets, state.versions) == ({}, {}, {})
