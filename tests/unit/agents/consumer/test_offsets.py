"""Offset answers over plain data: a reset's target, clamping, a queue's progress, POP outcome codes."""

from __future__ import annotations

import pytest

from agents.consumer.offsets import (
    TOPIC_START,
    Progress,
    clamp_offset,
    forgotten,
    offset_at_time,
    progress,
    readable_range,
    remoting_code,
    topic_starts,
)
from agents.consumer.records import Forgotten, OffsetCommitted, StateRecord
from agents.consumer.state import ConsumerState, apply_all
from agents.pop.errors import PopCode
from agents.pop.events import Acked, Delivery, Popped
from agents.pop.model import QueueKey
from mqbase.codes import ResponseCode
from mqbase.metadata import group_problem

TIMES = {10: 100, 11: 100, 12: 200, 13: 300, 14: 300}
"""Store times of a queue holding offsets 10..14 (equal times: two messages stored in one millisecond)."""


@pytest.mark.parametrize(
    ("timestamp", "expected"),
    [(0, 10), (100, 10), (101, 12), (200, 12), (250, 13), (300, 13), (301, 15)],
)
def test_a_reset_goes_to_the_first_message_stored_at_or_after_the_time(timestamp: int, expected: int) -> None:
    assert offset_at_time(10, 15, timestamp, TIMES.__getitem__) == expected


def test_an_empty_queue_resets_to_its_end() -> None:
    assert offset_at_time(7, 7, 0, lambda _o: pytest.fail("an empty queue has no message to read")) == 7


@pytest.mark.parametrize(("offset", "expected"), [(0, 5), (5, 5), (7, 7), (9, 9), (12, 9)])
def test_a_committed_offset_is_kept_inside_the_queue(offset: int, expected: int) -> None:
    assert clamp_offset(offset, 5, 9) == expected


Q = QueueKey("G", "T", 0)


@pytest.mark.parametrize(
    ("records", "min_offset", "expected"),
    [
        ([], 3, Progress(3, 0)),  # never consumed: the group starts at the queue's first message
        ([OffsetCommitted(Q, 2, 0)], 5, Progress(2, 0)),  # below the minimum: retention outran the group
        ([Popped(Q, 0, 2, (), (), (Delivery(0, 1, 9, 1), Delivery(1, 2, 9, 1)))], 0, Progress(0, 2)),
        ([Popped(Q, 0, 2, (), (), (Delivery(0, 1, 9, 1), Delivery(1, 2, 9, 1))), Acked(Q, 0, 1)], 0, Progress(1, 1)),
    ],
)
def test_progress_is_the_group_offset_and_its_deliveries_in_flight(
    records: list[OffsetCommitted | Popped | Acked], min_offset: int, expected: Progress
) -> None:
    state = apply_all(None, [StateRecord(i, c) for i, c in enumerate(records, 1)])
    assert progress(state, Q, min_offset) == expected


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (PopCode.OK, ResponseCode.SUCCESS),
        (PopCode.MESSAGE_NOT_FOUND, ResponseCode.PULL_NOT_FOUND),
        (PopCode.INVALID_RECEIPT_HANDLE, ResponseCode.MESSAGE_ILLEGAL),
        (PopCode.ILLEGAL_INVISIBLE_TIME, ResponseCode.MESSAGE_ILLEGAL),
        (PopCode.ILLEGAL_FILTER_EXPRESSION, ResponseCode.MESSAGE_ILLEGAL),
        (PopCode.BAD_REQUEST, ResponseCode.MESSAGE_ILLEGAL),
    ],
)
def test_pop_outcomes_have_a_remoting_code(code: PopCode, expected: ResponseCode) -> None:
    assert remoting_code(code) == expected


def _state_of(*keys: QueueKey) -> ConsumerState:
    return apply_all(None, [StateRecord(i, OffsetCommitted(k, 1, 0)) for i, k in enumerate(keys, 1)])


GA_T, GA_U, GB_T = QueueKey("GA", "T", 0), QueueKey("GA", "U", 1), QueueKey("GB", "T", 0)


@pytest.mark.parametrize(
    ("topics", "groups", "expected"),
    [
        (({"T", "U"}, {"T", "U"}), ({"GA"}, {"GA"}), []),
        (({"T", "U"}, {"U"}), (set(), set()), [Forgotten("GA", "T"), Forgotten("GB", "T")]),  # topic T deleted
        (({"T", "U"}, {"T", "U"}), ({"GA", "GB"}, {"GB"}), [Forgotten("GA", "T"), Forgotten("GA", "U")]),
        (({"U"}, {"U"}), ({"GA"}, {"GA"}), []),  # T was never known here: nothing is deleted by this change
        (({"T", "U"}, {"T", "U"}), (set(), set()), []),  # GB was never configured (defaults): kept
    ],
)
def test_a_metadata_change_forgets_deleted_topics_and_groups(
    topics: tuple[set[str], set[str]], groups: tuple[set[str], set[str]], expected: list[Forgotten]
) -> None:
    state = _state_of(GA_T, GA_U, GB_T)
    got = forgotten(state, frozenset(topics[0]), frozenset(topics[1]), frozenset(groups[0]), frozenset(groups[1]))
    assert got == expected


# --- a topic deleted and created again starts after the old one -------------------------------------------


def _starts(*starts: tuple[str, int, int]) -> ConsumerState:
    records = [OffsetCommitted(QueueKey(TOPIC_START, t, q), o, 0) for t, q, o in starts]
    return apply_all(None, [StateRecord(i, r) for i, r in enumerate(records, 1)])


def test_a_deleted_topic_starts_at_each_queues_end_and_a_start_never_moves_back() -> None:
    state = _starts(("T", 0, 5), ("T", 1, 9))
    got = topic_starts(state, {("T", 0): 7, ("T", 1): 9, ("T", 2): 3, ("T", 3): 0})
    assert got == [(QueueKey(TOPIC_START, "T", 0), 7), (QueueKey(TOPIC_START, "T", 2), 3)]


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        pytest.param(0, 12, (7, 12), id="the_topics_start_is_above_the_stores_first_offset"),
        pytest.param(9, 12, (9, 12), id="retention_passed_the_start"),
        pytest.param(0, 4, (7, 7), id="a_start_not_yet_confirmed_here_leaves_the_queue_empty"),
    ],
)
def test_a_queue_is_read_from_its_topics_start(low: int, high: int, expected: tuple[int, int]) -> None:
    assert readable_range(_starts(("T", 0, 7)), "T", 0, low, high) == expected
    assert readable_range(_starts(("T", 0, 7)), "T", 1, low, high) == (low, high)  # another queue: no start


def test_a_group_new_to_a_created_again_topic_starts_after_the_old_messages() -> None:
    state = _starts(("T", 0, 7))
    low, _ = readable_range(state, "T", 0, 0, 10)
    assert progress(state, QueueKey("G", "T", 0), low) == Progress(7, 0)


def test_the_starts_are_never_forgotten_with_the_topic() -> None:
    state = apply_all(_starts(("T", 0, 7)), [StateRecord(2, OffsetCommitted(GA_T, 1, 0))])
    assert forgotten(state, frozenset({"T"}), frozenset(), frozenset({"GA"}), frozenset({"GA"})) == [
        Forgotten("GA", "T")
    ]


def test_no_group_may_take_the_reserved_name() -> None:
    assert group_problem(TOPIC_START) == f"the specified group[{TOPIC_START}] is reserved by the broker"
