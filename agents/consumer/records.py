"""Consumer-state records: one change of a group's consumption, as the body of a system-topic message.

A record is ``version kind seq fields...`` (every integer a canonical varint, every string its length then UTF-8;
see ``wire``), carried as the body of a message of `SYSTEM_TOPIC`, queue 0, without properties (one request's
several records share one message as a batch: ``to_message``)::

    version=1 | kind | seq | group | topic | queueId | fields of the kind
    kind 1 OffsetCommitted: offset, timestampMs
    kind 2 Popped:          floor, scanned, n, skipped..., n, dead...,
                            n, (offset ticket deadlineMs attempt)..., attemptId
    kind 3 Acked:           offset, ticket
    kind 4 Changed:         offset, oldTicket, newTicket, deadlineMs
    version=1 | kind=5 | seq | group | topic   (Forgotten: every queue of the group on the topic; no queueId)
    version=1 | kind=6 | seq | n | offset...   (TimerDelivered: timer queue offsets, increasing; no names)

``seq`` is the idempotency key: the broker set numbers its records 1, 2, 3... in log order, and a record whose
``seq`` is not above the state's is a replay and changes nothing (``state.apply``). An unknown version or kind is
refused, not skipped: skipping a change would rebuild a state that redelivers what was acked, so a new kind is only
written once every replica of the set reads it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import assert_never

from agents.consumer.errors import StateFormatError
from agents.consumer.wire import MAX_QUEUE_ID, MAX_TEXT, Reader, Writer, int_problem, name_problem
from agents.pop.events import Acked, Changed, Delivery, Popped
from agents.pop.model import QueueKey
from agents.store.record import Message
from mqbase.metadata import GROUP_MAX_LENGTH, SYSTEM_TOPIC_PREFIX, TOPIC_MAX_LENGTH

VERSION = 1
SYSTEM_TOPIC = SYSTEM_TOPIC_PREFIX + "CONSUMER_STATE"
"""The one topic of a broker set's consumer-state records (queue 0); a system topic, so no operator creates it."""


@dataclass(frozen=True, slots=True)
class OffsetCommitted:
    """A group's consumer offset of one queue, set (forwards or back, as a reset does) at `timestamp_ms`."""

    queue: QueueKey
    offset: int
    timestamp_ms: int


@dataclass(frozen=True, slots=True)
class Forgotten:
    """The group's offsets and POP state on every queue of the topic are dropped (the group or topic was deleted)."""

    group: str
    topic: str


@dataclass(frozen=True, slots=True)
class TimerDelivered:
    """The timer messages at these offsets of the timer queue (``agents.delay.timer``) were re-put into their
    topics, by the same put that carries this record (increasing, at least one)."""

    offsets: tuple[int, ...]


Change = OffsetCommitted | Popped | Acked | Changed | Forgotten | TimerDelivered
_KINDS: dict[type[Change], int] = {
    OffsetCommitted: 1, Popped: 2, Acked: 3, Changed: 4, Forgotten: 5, TimerDelivered: 6,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class StateRecord:
    """One change with its sequence number in the broker set's consumer-state log (1-based)."""

    seq: int
    change: Change


# --- rules -------------------------------------------------------------------------------------


def _problem(record: StateRecord) -> str | None:
    """The first rule `record` breaks, or None; encode and decode both apply these."""
    c = record.change
    if isinstance(c, TimerDelivered):
        return int_problem("seq", record.seq, 1) or _offsets_problem(c.offsets)
    group, topic = (c.group, c.topic) if isinstance(c, Forgotten) else (c.queue.group, c.queue.topic)
    if problem := (
        int_problem("seq", record.seq, 1)
        or name_problem("group", group, GROUP_MAX_LENGTH)
        or name_problem("topic", topic, TOPIC_MAX_LENGTH)
    ):
        return problem
    if isinstance(c, Forgotten):
        return None
    checks = _change_checks(c)
    return int_problem("queueId", c.queue.queue_id, 0, MAX_QUEUE_ID) or next((p for p in checks if p), None)


def _offsets_problem(offsets: Sequence[int]) -> str | None:
    """Why a TimerDelivered's offsets are not one or more increasing offsets, or None."""
    if not offsets:
        return "a TimerDelivered record names at least one offset"
    for before, offset in zip((-1, *offsets), offsets, strict=False):
        if problem := int_problem("timer offset", offset, before + 1):
            return problem
    return None


def _change_checks(c: OffsetCommitted | Popped | Acked | Changed) -> Iterator[str | None]:
    """The checks of a change's own fields, lazily: the first failing one ends the caller's search."""
    if isinstance(c, Acked):  # the most frequent record: one per acked message
        yield int_problem("offset", c.offset) or int_problem("ticket", c.ticket, 1)
    elif isinstance(c, OffsetCommitted):
        yield int_problem("offset", c.offset) or int_problem("timestampMs", c.timestamp_ms)
    elif isinstance(c, Popped):
        yield int_problem("floor", c.floor) or int_problem("scanned", c.scanned)
        yield from (int_problem("skipped offset", o) for o in c.skipped)
        yield from (int_problem("dead offset", o) for o in c.dead)
        for d in c.deliveries:
            yield int_problem("delivery offset", d.offset) or int_problem("delivery ticket", d.ticket, 1)
            yield int_problem("delivery deadlineMs", d.deadline_ms) or int_problem("delivery attempt", d.attempt, 1)
        if len(c.attempt_id.encode()) > MAX_TEXT:
            yield f"attemptId is longer than {MAX_TEXT} bytes"
    elif isinstance(c, Changed):
        yield int_problem("offset", c.offset) or int_problem("oldTicket", c.old_ticket, 1)
        yield int_problem("newTicket", c.new_ticket, c.old_ticket + 1) or int_problem("deadlineMs", c.deadline_ms)
    else:
        assert_never(c)


# --- encode ------------------------------------------------------------------------------------


def encode(record: StateRecord) -> bytes:
    """The record's one body; `StateFormatError` names a rule it breaks."""
    if problem := _problem(record):
        raise StateFormatError(f"consumer-state record: {problem}")
    c = record.change
    w = Writer()
    w.uint(VERSION)
    w.uint(_KINDS[type(c)])
    w.uint(record.seq)
    if isinstance(c, TimerDelivered):
        w.uint(len(c.offsets))
        for n in c.offsets:
            w.uint(n)
        return bytes(w.out)
    if isinstance(c, Forgotten):
        w.text(c.group)
        w.text(c.topic)
        return bytes(w.out)
    w.key(c.queue)
    if isinstance(c, OffsetCommitted):
        for n in (c.offset, c.timestamp_ms):
            w.uint(n)
    elif isinstance(c, Popped):
        w.uint(c.floor)
        w.uint(c.scanned)
        for offsets in (c.skipped, c.dead):
            w.uint(len(offsets))
            for n in offsets:
                w.uint(n)
        w.uint(len(c.deliveries))
        for d in c.deliveries:
            for n in (d.offset, d.ticket, d.deadline_ms, d.attempt):
                w.uint(n)
        w.text(c.attempt_id)
    elif isinstance(c, Acked):
        for n in (c.offset, c.ticket):
            w.uint(n)
    elif isinstance(c, Changed):
        for n in (c.offset, c.old_ticket, c.new_ticket, c.deadline_ms):
            w.uint(n)
    else:
        assert_never(c)
    return bytes(w.out)


# --- decode ------------------------------------------------------------------------------------


def decode(body: bytes) -> StateRecord:
    """The record `body` holds; `StateFormatError` for anything else (a damaged, cut or unknown record)."""
    r = Reader(body, "consumer-state record")
    version = r.uint("version")
    if version != VERSION:
        raise r.fail(f"version {version} is not {VERSION} (written by a newer broker?)")
    kind = r.uint("kind")
    seq = r.uint("seq", 1)
    if kind not in _KINDS.values():
        raise r.fail(f"kind {kind} is unknown (written by a newer broker?)")
    change: Change
    if kind == 6:
        last = -1
        offsets: list[int] = []
        for _ in range(r.count("timer offsets")):
            offsets.append(last := r.uint("timer offset", last + 1))
        if not offsets:
            raise r.fail("a TimerDelivered record names at least one offset")
        r.end()
        return StateRecord(seq, TimerDelivered(tuple(offsets)))
    if kind == 5:
        change = Forgotten(r.name("group", GROUP_MAX_LENGTH), r.name("topic", TOPIC_MAX_LENGTH))
        r.end()
        return StateRecord(seq, change)
    queue = r.key()
    if kind == 1:
        change = OffsetCommitted(queue, r.uint("offset"), r.uint("timestampMs"))
    elif kind == 2:
        floor, scanned = r.uint("floor"), r.uint("scanned")
        skipped = tuple(r.uint("skipped offset") for _ in range(r.count("skipped")))
        dead = tuple(r.uint("dead offset") for _ in range(r.count("dead")))
        deliveries = tuple(
            Delivery(
                r.uint("delivery offset"),
                r.uint("delivery ticket", 1),
                r.uint("delivery deadlineMs"),
                r.uint("delivery attempt", 1),
            )
            for _ in range(r.count("deliveries"))
        )
        change = Popped(queue, floor, scanned, skipped, dead, deliveries, r.text("attemptId"))
    elif kind == 3:
        change = Acked(queue, r.uint("offset"), r.uint("ticket", 1))
    else:
        offset, old = r.uint("offset"), r.uint("oldTicket", 1)
        change = Changed(queue, offset, old, r.uint("newTicket", old + 1), r.uint("deadlineMs"))
    r.end()
    return StateRecord(seq, change)


# --- messages ----------------------------------------------------------------------------------


BATCH_VERSION = 2
"""The first varint of a message body that holds several records: ``2 | n | (length | record)...``."""


def to_message(records: Sequence[StateRecord], store_timestamp: int) -> Message:
    """The one commit-log message that carries `records` (one request's, in order; the store assigns its queue
    offset): a lone record is the body itself, several are a batch, so a request costs one message however many
    acks it holds."""
    if not records:
        raise ValueError("a consumer-state message carries at least one record")
    if len(records) == 1:
        return Message(SYSTEM_TOPIC, 0, encode(records[0]), {}, store_timestamp)
    w = Writer()
    w.uint(BATCH_VERSION)
    w.uint(len(records))
    for record in records:
        body = encode(record)
        w.uint(len(body))
        w.out += body
    return Message(SYSTEM_TOPIC, 0, bytes(w.out), {}, store_timestamp)


def from_message(message: Message) -> tuple[StateRecord, ...]:
    """The records a message of `SYSTEM_TOPIC` carries, in order; none for any other topic's message.
    `StateFormatError` for a damaged body (a batch's every part is checked as a record of its own)."""
    if message.topic != SYSTEM_TOPIC:
        return ()
    body = message.body
    if body[:1] != bytes([BATCH_VERSION]):
        return (decode(body),)
    r = Reader(body, "consumer-state batch")
    r.uint("version")
    out: list[StateRecord] = []
    for _ in range(r.count("records")):
        size = r.uint("record length", 1, len(body) - r.pos)
        out.append(decode(body[r.pos : r.pos + size]))
        r.pos += size
    r.end()
    if len(out) < 2:
        raise r.fail(f"a batch of {len(out)} record(s): a batch holds at least two")
    return tuple(out)
