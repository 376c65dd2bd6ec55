"""Consumer-state records: one change of a group's consumption, as the body of a system-topic message.

A record is ``version kind seq fields...`` (every integer a canonical varint, every string its length then UTF-8;
see ``wire``), carried as the body of a message of `SYSTEM_TOPIC`, queue 0, without properties (one request's
several records share one message as a batch: ``to_message``)::

    version | kind | seq | group | topic | queueId | fields of the kind
    kind 1 OffsetCommitted: offset, timestampMs [, epoch  (version 3 only)]
    kind 2 Popped:          floor, scanned, n, skipped..., n, dead...,
                            n, (offset ticket deadlineMs attempt)..., attemptId
    kind 3 Acked:           offset, ticket
    kind 4 Changed:         offset, oldTicket, newTicket, deadlineMs
    version=1 | kind=5 | seq | group | topic   (Forgotten: every queue of the group on the topic; no queueId)
    version=1 | kind=6 | seq | n | offset...   (TimerDelivered: timer queue offsets, increasing; no names)
    version=3 | kind=7 | seq | home | origin | episode | n | versionEpoch | versionSeq | innerKind | inner fields
                                               (Escaped: the inner change's kind 1/2/3/4/6/10/11, then its
                                               fields as its own record has them after seq, names included)
    version=3 | kind=8 | seq | home | n | (origin episode n)...   (EscapeReleased: keys increasing, at least one)
    version=3 | kind=9 | seq | group | topic | queueId | versionEpoch | versionSeq | timestampMs | queue
                                               (QueueMerged; queue as in a snapshot: committed, scanned,
                                               nextTicket, attemptId, n (offset ticket deadlineMs attempt)...,
                                               n (offset ticket)...)
    version=3 | kind=10 | seq | resolution | n | offset...   (TransactionEnded: half queue offsets, increasing;
                                               resolution 1 COMMIT, 2 ROLLBACK, 3 DROPPED)
    version=3 | kind=11 | seq | n | offset...  (TransactionChecked: half queue offsets checked back, increasing)

A record is written as version 1 whenever version 1 can say it (kinds 1-6, an OffsetCommitted of epoch 0), so a
set that never escapes or merges writes records an older broker reads; version 3 adds the commit's masterEpoch,
kinds 7-9 (RIP-32's escaped changes and pre-online merge, ``agents.consumer.pre_online``) and kinds 10-11
(transactions, ``agents.transaction``), and a version 1
OffsetCommitted reads as epoch 0.

``seq`` is the idempotency key: the broker set numbers its records 1, 2, 3... in log order, and a record whose
``seq`` is not above the state's is a replay and changes nothing (``state.apply``). An unknown version or kind is
refused, not skipped: skipping a change would rebuild a state that redelivers what was acked, so a new kind is only
written once every replica of the set reads it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import assert_never

from agents.consumer.errors import StateFormatError
from agents.consumer.wire import MAX_QUEUE_ID, MAX_TEXT, Reader, Writer, int_problem, name_problem
from agents.pop.events import Acked, Changed, Delivery, Popped
from agents.pop.model import Inflight, QueueKey, QueueState
from agents.store.record import Message
from agents.transaction.half import Resolution
from mqbase.metadata import GROUP_MAX_LENGTH, SYSTEM_TOPIC_PREFIX, TOPIC_MAX_LENGTH

VERSION, ESCAPE_VERSION = 1, 3
"""Record versions: 2 is skipped, as it is `BATCH_VERSION`, the first byte that tells a batch from a lone record."""
SYSTEM_TOPIC = SYSTEM_TOPIC_PREFIX + "CONSUMER_STATE"
"""The one topic of a broker set's consumer-state records (queue 0); a system topic, so no operator creates it."""


@dataclass(frozen=True, slots=True)
class OffsetCommitted:
    """A group's consumer offset of one queue, set (forwards or back, as a reset does) at `timestamp_ms`."""

    queue: QueueKey
    offset: int
    timestamp_ms: int
    epoch: int = 0
    """The masterEpoch of the master that wrote it (an acting replica: its last known master's); a commit that
    moves the offset back is a reset, and (epoch, seq) becomes the queue's `Version`."""


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


@dataclass(frozen=True, slots=True)
class TransactionEnded:
    """The transactions whose half messages are at these offsets of the half queue ended with `resolution` (a
    commit's copies are in the put that carries this record); increasing, at least one."""

    offsets: tuple[int, ...]
    resolution: Resolution


@dataclass(frozen=True, slots=True)
class TransactionChecked:
    """The open transactions at these half queue offsets were checked back once more (increasing, at least one)."""

    offsets: tuple[int, ...]


@dataclass(frozen=True, slots=True, order=True)
class Version:
    """Which reset a queue's progress descends from: the (masterEpoch, seq) of the commit that last moved its
    offset back; (0, 0) before any. Forward progress keeps the version (Java's DataVersion, stepped per reset)."""

    epoch: int = 0
    seq: int = 0


@dataclass(frozen=True, slots=True, order=True)
class EscapeKey:
    """An escaped change's idempotency key: the acting broker, its acting episode (the episode's start time in
    ms) and the change's count within it."""

    origin: int
    episode: int
    n: int


Queueless = TimerDelivered | TransactionEnded | TransactionChecked
"""The changes that name offsets of a system queue (the timer's, the half messages'), no consumer queue."""
EscapedChange = OffsetCommitted | Popped | Acked | Changed | TimerDelivered | TransactionEnded | TransactionChecked


@dataclass(frozen=True, slots=True)
class Escaped:
    """A consumer change an acting replica wrote to another set's master, for its `home` set to take back."""

    home: str
    key: EscapeKey
    version: Version
    """The version of the queue's progress the change was decided against."""
    change: EscapedChange


@dataclass(frozen=True, slots=True)
class EscapeReleased:
    """The `home` set's master took these escaped changes back: the escape master holding them drops them."""

    home: str
    keys: tuple[EscapeKey, ...]


@dataclass(frozen=True, slots=True)
class QueueMerged:
    """Pre-online's result for one queue: its POP state, committed offset and version, set wholesale."""

    queue: QueueKey
    version: Version
    state: QueueState
    timestamp_ms: int


Change = (
    OffsetCommitted
    | Popped
    | Acked
    | Changed
    | Forgotten
    | TimerDelivered
    | Escaped
    | EscapeReleased
    | QueueMerged
    | TransactionEnded
    | TransactionChecked
)
_KINDS: dict[type[Change], int] = {
    OffsetCommitted: 1, Popped: 2, Acked: 3, Changed: 4, Forgotten: 5, TimerDelivered: 6,
    Escaped: 7, EscapeReleased: 8, QueueMerged: 9, TransactionEnded: 10, TransactionChecked: 11,
}  # fmt: skip
_ESCAPED_KINDS = frozenset({1, 2, 3, 4, 6, 10, 11})
HOME_MAX_LENGTH = TOPIC_MAX_LENGTH
"""A broker set's name (the home of escaped changes): RocketMQ's name characters, as long as a topic's."""


@dataclass(frozen=True, slots=True)
class StateRecord:
    """One change with its sequence number in the broker set's consumer-state log (1-based)."""

    seq: int
    change: Change


# --- rules -------------------------------------------------------------------------------------


def _problem(record: StateRecord) -> str | None:
    """The first rule `record` breaks, or None; encode and decode both apply these."""
    return int_problem("seq", record.seq, 1) or _change_problem(record.change)


def _change_problem(c: Change) -> str | None:
    if isinstance(c, TimerDelivered | TransactionEnded | TransactionChecked):
        return _offsets_problem(type(c).__name__, c.offsets)
    if isinstance(c, Escaped):
        return (
            name_problem("home", c.home, HOME_MAX_LENGTH)
            or _escape_key_problem(c.key)
            or _version_problem(c.version)
            or _change_problem(c.change)
        )
    if isinstance(c, EscapeReleased):
        if not c.keys:
            return "an EscapeReleased record names at least one key"
        if any(a >= b for a, b in zip(c.keys, c.keys[1:], strict=False)):
            return "an EscapeReleased record's keys are increasing"
        return name_problem("home", c.home, HOME_MAX_LENGTH) or next(
            (p for p in map(_escape_key_problem, c.keys) if p), None
        )
    group, topic = (c.group, c.topic) if isinstance(c, Forgotten) else (c.queue.group, c.queue.topic)
    if problem := name_problem("group", group, GROUP_MAX_LENGTH) or name_problem("topic", topic, TOPIC_MAX_LENGTH):
        return problem
    if isinstance(c, Forgotten):
        return None
    checks = _change_checks(c)
    return int_problem("queueId", c.queue.queue_id, 0, MAX_QUEUE_ID) or next((p for p in checks if p), None)


def _escape_key_problem(key: EscapeKey) -> str | None:
    return int_problem("origin", key.origin) or int_problem("episode", key.episode) or int_problem("n", key.n)


def _version_problem(v: Version) -> str | None:
    return int_problem("version epoch", v.epoch) or int_problem("version seq", v.seq)


_OFFSET_FIELD = {
    "TimerDelivered": "timer offset",
    "TransactionEnded": "half offset",
    "TransactionChecked": "half offset",
}


def _offsets_problem(kind: str, offsets: Sequence[int]) -> str | None:
    """Why a record's offsets (a TimerDelivered's, a transaction record's) are not one or more increasing offsets,
    or None."""
    if not offsets:
        return f"a {kind} record names at least one offset"
    for before, offset in zip((-1, *offsets), offsets, strict=False):
        if problem := int_problem(_OFFSET_FIELD[kind], offset, before + 1):
            return problem
    return None


def queue_problem(q: QueueState) -> str | None:
    """Why `q` breaks `QueueState`'s invariant (or a field's bounds), or None: what `read_queue` refuses."""
    if problem := (
        int_problem("committed", q.committed)
        or int_problem("scanned", q.scanned, q.committed)
        or int_problem("nextTicket", q.next_ticket, 1)
    ):
        return problem
    if len(q.attempt_id.encode()) > MAX_TEXT:
        return f"attemptId is longer than {MAX_TEXT} bytes"
    for offset, f in q.inflight.items():
        if problem := (
            int_problem("in-flight offset", offset, q.committed, q.scanned - 1)
            or int_problem("ticket", f.ticket, 1, q.next_ticket - 1)
            or int_problem("deadlineMs", f.deadline_ms)
            or int_problem("attempt", f.attempt, 1)
        ):
            return problem
    for offset, ticket in q.done.items():
        if problem := int_problem("done offset", offset, q.committed + 1, q.scanned - 1) or int_problem(
            "done ticket", ticket, 0, q.next_ticket - 1
        ):
            return problem
        if offset in q.inflight:
            return f"offset {offset} is both in flight and done"
    return None


def _change_checks(c: OffsetCommitted | Popped | Acked | Changed | QueueMerged) -> Iterator[str | None]:
    """The checks of a change's own fields, lazily: the first failing one ends the caller's search."""
    if isinstance(c, Acked):  # the most frequent record: one per acked message
        yield int_problem("offset", c.offset) or int_problem("ticket", c.ticket, 1)
    elif isinstance(c, OffsetCommitted):
        yield int_problem("offset", c.offset) or int_problem("timestampMs", c.timestamp_ms)
        yield int_problem("epoch", c.epoch)
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
    elif isinstance(c, QueueMerged):
        yield _version_problem(c.version) or int_problem("timestampMs", c.timestamp_ms)
        yield queue_problem(c.state)
    else:
        assert_never(c)


# --- encode ------------------------------------------------------------------------------------


def _version_of(c: Change) -> int:
    """The oldest record version that can say `c`."""
    if isinstance(c, Escaped | EscapeReleased | QueueMerged | TransactionEnded | TransactionChecked) or (
        isinstance(c, OffsetCommitted) and c.epoch
    ):
        return ESCAPE_VERSION
    return VERSION


def encode(record: StateRecord) -> bytes:
    """The record's one body; `StateFormatError` names a rule it breaks."""
    if problem := _problem(record):
        raise StateFormatError(f"consumer-state record: {problem}")
    c = record.change
    w = Writer()
    version = _version_of(c)
    w.uint(version)
    w.uint(_KINDS[type(c)])
    w.uint(record.seq)
    _write_change(w, c, version)
    return bytes(w.out)


def write_escaped(w: Writer, e: Escaped) -> None:
    """An escaped change as a kind 7 record's fields (home on), for a snapshot's escaped changes."""
    _write_change(w, e, ESCAPE_VERSION)


def _write_key(w: Writer, key: EscapeKey) -> None:
    for n in (key.origin, key.episode, key.n):
        w.uint(n)


def _write_change(w: Writer, c: Change, version: int) -> None:
    """`c`'s fields after its kind (and seq) in the record layout of `version`."""
    if isinstance(c, TransactionEnded):
        w.uint(c.resolution)
    if isinstance(c, TimerDelivered | TransactionEnded | TransactionChecked):
        w.uint(len(c.offsets))
        for n in c.offsets:
            w.uint(n)
        return
    if isinstance(c, Forgotten):
        w.text(c.group)
        w.text(c.topic)
        return
    if isinstance(c, Escaped):
        w.text(c.home)
        _write_key(w, c.key)
        w.uint(c.version.epoch)
        w.uint(c.version.seq)
        w.uint(_KINDS[type(c.change)])
        _write_change(w, c.change, version)
        return
    if isinstance(c, EscapeReleased):
        w.text(c.home)
        w.uint(len(c.keys))
        for key in c.keys:
            _write_key(w, key)
        return
    w.key(c.queue)
    if isinstance(c, OffsetCommitted):
        for n in (c.offset, c.timestamp_ms, c.epoch)[: 3 if version == ESCAPE_VERSION else 2]:
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
    elif isinstance(c, QueueMerged):
        for n in (c.version.epoch, c.version.seq, c.timestamp_ms):
            w.uint(n)
        write_queue(w, c.state)
    else:
        assert_never(c)


def write_queue(w: Writer, q: QueueState) -> None:
    """A queue's POP state (the layout a snapshot's queues and a QueueMerged record share)."""
    for n in (q.committed, q.scanned, q.next_ticket):
        w.uint(n)
    w.text(q.attempt_id)
    w.uint(len(q.inflight))
    for offset in sorted(q.inflight):
        f = q.inflight[offset]
        for n in (offset, f.ticket, f.deadline_ms, f.attempt):
            w.uint(n)
    w.uint(len(q.done))
    for offset in sorted(q.done):
        w.uint(offset)
        w.uint(q.done[offset])


# --- decode ------------------------------------------------------------------------------------


def decode(body: bytes) -> StateRecord:
    """The record `body` holds; `StateFormatError` for anything else (a damaged, cut or unknown record)."""
    r = Reader(body, "consumer-state record")
    version = r.uint("version")
    if version not in (VERSION, ESCAPE_VERSION):
        raise r.fail(f"version {version} is not {VERSION} or {ESCAPE_VERSION} (written by a newer broker?)")
    kind = r.uint("kind")
    seq = r.uint("seq", 1)
    if kind not in _KINDS.values():
        raise r.fail(f"kind {kind} is unknown (written by a newer broker?)")
    change = _read_change(r, kind, version)
    r.end()
    if _version_of(change) != version:  # one encoding per record: the oldest version that says it
        raise r.fail(f"a {type(change).__name__} record is written as version {_version_of(change)}")
    return StateRecord(seq, change)


def read_escaped(r: Reader) -> Escaped:
    """An escaped change as `write_escaped` writes it, checked as a record's."""
    change = _read_change(r, 7, ESCAPE_VERSION)
    assert isinstance(change, Escaped)
    return change


def _read_escape_key(r: Reader) -> EscapeKey:
    return EscapeKey(r.uint("origin"), r.uint("episode"), r.uint("n"))


def _read_change(r: Reader, kind: int, version: int) -> Change:
    """The fields of a change of `kind` (known) in the record layout of `version`."""
    if kind >= 7 and version != ESCAPE_VERSION:
        raise r.fail(f"kind {kind} is a version {ESCAPE_VERSION} record")
    if kind in (6, 10, 11):
        name = {6: "TimerDelivered", 10: "TransactionEnded", 11: "TransactionChecked"}[kind]
        resolution = r.uint("resolution", min(Resolution), max(Resolution)) if kind == 10 else 0
        last = -1
        offsets: list[int] = []
        for _ in range(r.count(_OFFSET_FIELD[name] + "s")):
            offsets.append(last := r.uint(_OFFSET_FIELD[name], last + 1))
        if not offsets:
            raise r.fail(f"a {name} record names at least one offset")
        if kind == 10:
            return TransactionEnded(tuple(offsets), Resolution(resolution))
        return TimerDelivered(tuple(offsets)) if kind == 6 else TransactionChecked(tuple(offsets))
    if kind == 5:
        return Forgotten(r.name("group", GROUP_MAX_LENGTH), r.name("topic", TOPIC_MAX_LENGTH))
    if kind == 7:
        home, key = r.name("home", HOME_MAX_LENGTH), _read_escape_key(r)
        at = Version(r.uint("version epoch"), r.uint("version seq"))
        inner = r.uint("inner kind")
        if inner not in _ESCAPED_KINDS:
            raise r.fail(f"inner kind {inner} is not a change that escapes")
        change = _read_change(r, inner, version)
        assert isinstance(change, EscapedChange)  # the kinds in _ESCAPED_KINDS
        return Escaped(home, key, at, change)
    if kind == 8:
        home = r.name("home", HOME_MAX_LENGTH)
        keys: list[EscapeKey] = []
        for _ in range(r.count("keys")):
            key = _read_escape_key(r)
            if keys and keys[-1] >= key:
                raise r.fail("an EscapeReleased record's keys are increasing")
            keys.append(key)
        if not keys:
            raise r.fail("an EscapeReleased record names at least one key")
        return EscapeReleased(home, tuple(keys))
    queue = r.key()
    if kind == 1:
        offset, timestamp_ms = r.uint("offset"), r.uint("timestampMs")
        return OffsetCommitted(queue, offset, timestamp_ms, r.uint("epoch") if version == ESCAPE_VERSION else 0)
    if kind == 2:
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
        return Popped(queue, floor, scanned, skipped, dead, deliveries, r.text("attemptId"))
    if kind == 3:
        return Acked(queue, r.uint("offset"), r.uint("ticket", 1))
    if kind == 4:
        offset, old = r.uint("offset"), r.uint("oldTicket", 1)
        return Changed(queue, offset, old, r.uint("newTicket", old + 1), r.uint("deadlineMs"))
    at = Version(r.uint("version epoch"), r.uint("version seq"))
    timestamp_ms = r.uint("timestampMs")
    return QueueMerged(queue, at, read_queue(r, queue), timestamp_ms)


def read_queue(r: Reader, key: QueueKey) -> QueueState:
    """A queue's POP state as `write_queue` writes it, its invariant checked (offsets increasing)."""
    where = f"{key.group}/{key.topic}/{key.queue_id}"
    committed = r.uint("committed")
    scanned = r.uint("scanned", committed)
    next_ticket = r.uint("nextTicket", 1)
    attempt_id = r.text("attemptId")
    inflight: dict[int, Inflight] = {}
    last = committed - 1
    for _ in range(r.count("in-flight")):
        offset = r.uint(f"{where} in-flight offset", last + 1, scanned - 1)
        ticket = r.uint(f"{where} ticket", 1, next_ticket - 1)
        inflight[offset] = Inflight(ticket, r.uint("deadlineMs"), r.uint("attempt", 1))
        last = offset
    done: dict[int, int] = {}
    last = committed  # the committed offset is never done: apply moves past it
    for _ in range(r.count("done")):
        offset = r.uint(f"{where} done offset", last + 1, scanned - 1)
        if offset in inflight:
            raise r.fail(f"{where} offset {offset} is both in flight and done")
        done[offset] = r.uint(f"{where} done ticket", 0, next_ticket - 1)
        last = offset
    return QueueState(committed, scanned, MappingProxyType(inflight), MappingProxyType(done), next_ticket, attempt_id)


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
