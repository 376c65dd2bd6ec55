"""Offset questions the broker answers over plain data: a reset's target offset, a queue's progress, POP's codes.

Kept apart from the broker's threads so that each answer is tested with a table, a clock and no store.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from agents.consumer.records import Forgotten
from agents.consumer.state import ConsumerState, consumer_offset, queue_state
from agents.pop.errors import PopCode
from agents.pop.model import QueueKey
from mqbase.codes import ResponseCode
from mqbase.metadata import TOPIC_START_GROUP


def offset_at_time(min_offset: int, max_offset: int, timestamp_ms: int, stored_at: Callable[[int], int]) -> int:
    """The first offset in ``[min_offset, max_offset)`` whose message was stored at or after `timestamp_ms`, or
    `max_offset` when every message is older (Java's ``getOffsetInQueueByTime``): a binary search, since a queue's
    store times rise with its offsets; `stored_at` reads one message's store time."""
    offsets = range(min_offset, max_offset)
    return offsets.start + bisect_left(offsets, timestamp_ms, key=stored_at)


def clamp_offset(offset: int, min_offset: int, max_offset: int) -> int:
    """A committed offset kept inside the queue: below its first readable message is the first, past its end the end."""
    return max(min_offset, min(offset, max_offset))


@dataclass(frozen=True, slots=True)
class Progress:
    """A group's progress on one queue (``consumerProgress``): `consumer_offset` below `min_offset` means retention
    deleted messages the group never consumed."""

    consumer_offset: int
    inflight: int


def progress(state: ConsumerState, key: QueueKey, min_offset: int) -> Progress:
    """Where the group is on the queue; a group that never consumed it starts at the queue's first message."""
    found = queue_state(state, key)
    if found is None:
        return Progress(min_offset, 0)
    return Progress(found.committed, len(found.inflight))


def forgotten(
    state: ConsumerState,
    topics_before: frozenset[str],
    topics_after: frozenset[str],
    groups_before: frozenset[str],
    groups_after: frozenset[str],
) -> list[Forgotten]:
    """What a change of the metadata deletes: the state on every topic that was known and is gone, and of every
    group that was configured and is gone (a group never configured is consumed with defaults and kept)."""
    keys = {(k.group, k.topic) for k in (*state.offsets, *state.queues) if k.group != TOPIC_START}
    gone_topics, gone_groups = topics_before - topics_after, groups_before - groups_after
    return [Forgotten(g, t) for g, t in sorted(keys) if t in gone_topics or g in gone_groups]


TOPIC_START = TOPIC_START_GROUP
"""The reserved pseudo-group whose committed offset on a queue is where the topic of that name starts now. When a
topic is deleted, the master commits each of its queues' end for it (`topic_starts`), so a topic created again
under the name starts after the old one for every group, old or new, as Java's deleteTopic (which destroys the
consume queues) has it; no group replays what it acked. Kept as an offset, it is replicated with the log,
snapshotted and rebuilt as every offset is, and a replica of an older version reads it. No group may be named so
(``mqbase.metadata.group_problem``), and `forgotten` never drops it."""


def topic_starts(state: ConsumerState, ends: Mapping[tuple[str, int], int]) -> list[tuple[QueueKey, int]]:
    """The starts to commit for the queues of deleted topics, `ends` ((topic, queueId) → the queue's next offset
    now): each queue's end, where that is past the start it already has."""
    out: list[tuple[QueueKey, int]] = []
    for (topic, queue_id), end in sorted(ends.items()):
        key = QueueKey(TOPIC_START, topic, queue_id)
        if end > (consumer_offset(state, key) or 0):
            out.append((key, end))
    return out


def readable_range(state: ConsumerState, topic: str, queue_id: int, low: int, high: int) -> tuple[int, int]:
    """A queue's range for its groups: the store's (`low`, `high`), from the topic's start on. A start not yet
    confirmed on this replica (past `high`) leaves the queue empty until it is, never open below it."""
    start = max(low, consumer_offset(state, QueueKey(TOPIC_START, topic, queue_id)) or 0)
    return start, max(high, start)


REMOTING_CODES = {
    PopCode.OK: ResponseCode.SUCCESS,
    PopCode.MESSAGE_NOT_FOUND: ResponseCode.PULL_NOT_FOUND,
}
"""A POP outcome's RocketMQ remoting code; every other `PopCode` is a request that breaks a rule: MESSAGE_ILLEGAL."""


def remoting_code(code: PopCode) -> ResponseCode:
    """The remoting code that goes with a POP outcome (the answer also carries the `PopCode` itself)."""
    return REMOTING_CODES.get(code, ResponseCode.MESSAGE_ILLEGAL)
