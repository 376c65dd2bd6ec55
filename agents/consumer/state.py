"""`ConsumerState`: the table the consumer-state records rebuild, and ``apply``, the only way it changes.

It holds the committed offset of each (group, topic, queue) with the commit's time, each POP queue state
(``agents.pop``, changed by its own ``apply``), the delayed messages delivered (``timer``, ``agents.delay.timer``),
the transactions ended (``transactions``) with how the last `RESOLUTIONS_KEPT` of them ended (``resolutions``), and
the check-backs of those still open (``checks``, ``agents.transaction``), and ``seq``, the last record applied;
``Forgotten`` drops a group's keys on a topic. An offset commit (a reset) also starts the queue's POP state over at
that offset, so one offset per queue is the group's progress whichever way it consumes (``consumer_offset``).
Records are applied in sequence: one at or below ``seq`` is a replay and changes nothing, so applying a log twice
equals applying it once; one that skips a number raises `SequenceGap`, since the records between are missing from
the log.

For RIP-32 (``agents.consumer.pre_online``) it also holds each queue's `Version` (``versions``: the (masterEpoch,
seq) of the offset commit that last moved the queue's offset back, absent before any) and the changes other sets'
acting replicas escaped to this set (``escaped``, by home set, until that set's master releases them). Escaped
changes are held, never applied to this set's own queues; a ``QueueMerged`` (pre-online's result) sets a queue's
POP state, committed offset and version at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import assert_never

from agents.consumer.errors import SequenceGap
from agents.consumer.progress import NO_PROGRESS, OffsetProgress, mark
from agents.consumer.records import (
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
from agents.pop import rules
from agents.pop.events import Acked, Changed, Event, Popped
from agents.pop.model import QueueKey, QueueState
from agents.transaction.half import Resolution

RESOLUTIONS_KEPT = 16_384
"""How many of the latest ends keep their resolution: what a later end asking the other one is told about (a
producer's COMMIT after its check-back was answered ROLLBACK). Some minutes of ends at hundreds per second; an older
one answers as a repeat, since only which transactions ended is kept for all."""


@dataclass(frozen=True, slots=True)
class Committed:
    """A committed consumer offset (the next message to consume) and when it was committed."""

    offset: int
    timestamp_ms: int


def _no_offsets() -> Mapping[QueueKey, Committed]:
    return MappingProxyType({})


def _no_queues() -> Mapping[QueueKey, QueueState]:
    return MappingProxyType({})


def _no_versions() -> Mapping[QueueKey, Version]:
    return MappingProxyType({})


def _no_escaped() -> Mapping[str, Mapping[EscapeKey, Escaped]]:
    return MappingProxyType({})


def _no_checks() -> Mapping[int, int]:
    return MappingProxyType({})


def _no_resolutions() -> Mapping[int, Resolution]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class ConsumerState:
    """A broker set's consumer state after the records up to and including `seq`."""

    seq: int = 0
    offsets: Mapping[QueueKey, Committed] = field(default_factory=_no_offsets)
    queues: Mapping[QueueKey, QueueState] = field(default_factory=_no_queues)
    timer: OffsetProgress = NO_PROGRESS
    versions: Mapping[QueueKey, Version] = field(default_factory=_no_versions)
    """Each reset queue's version; a queue never reset is at ``Version()`` and absent."""
    escaped: Mapping[str, Mapping[EscapeKey, Escaped]] = field(default_factory=_no_escaped)
    """Home set → the changes its acting replicas escaped to this set, not yet released."""
    transactions: OffsetProgress = NO_PROGRESS
    """The half queue offsets of the transactions ended (committed, rolled back or dropped)."""
    checks: Mapping[int, int] = field(default_factory=_no_checks)
    """Half queue offset → check-backs so far, of the open transactions checked at least once."""
    resolutions: Mapping[int, Resolution] = field(default_factory=_no_resolutions)
    """Half queue offset → how it ended, of the last `RESOLUTIONS_KEPT` transactions ended, in the order they ended
    (the first end of each; the oldest go first)."""


EMPTY = ConsumerState()


def apply_all(state: ConsumerState | None, records: Iterable[StateRecord]) -> ConsumerState:
    """The state after `records` in log order: replays skipped, a gap refused (`SequenceGap`)."""
    st = state or EMPTY
    seq = st.seq
    offsets = dict(st.offsets)
    queues = dict(st.queues)
    versions = dict(st.versions)
    escaped = {home: dict(held) for home, held in st.escaped.items()}
    pending: dict[QueueKey, list[Event]] = {}  # POP events not yet applied, by queue: one copy per run of them
    delivered: list[int] = []  # timer offsets, marked once at the end (marking is order-free)
    ended: set[int] = set()  # half offsets, likewise
    transactions = st.transactions
    checks = dict(st.checks)
    resolved: dict[int, Resolution] | None = None  # copied at the first end: most batches end nothing

    def settle(keys: Iterable[QueueKey]) -> None:
        for key in list(keys):
            events = pending.pop(key, None)
            if events:
                queues[key] = rules.apply_all(queues.get(key), events)

    for record in records:
        if record.seq <= seq:
            continue
        if record.seq != seq + 1:
            raise SequenceGap(
                f"consumer-state record {record.seq} follows record {seq}: "
                f"records {seq + 1}..{record.seq - 1} are missing from the log"
            )
        seq = record.seq
        c = record.change
        if isinstance(c, OffsetCommitted):
            settle([c.queue])
            current = _consumer_offset(queues.get(c.queue), offsets.get(c.queue))
            if current is not None and c.offset < current:  # a reset: what was decided before it is void
                versions[c.queue] = Version(c.epoch, record.seq)
            offsets[c.queue] = Committed(c.offset, c.timestamp_ms)
            popped = queues.get(c.queue)
            if popped is not None:  # POP starts over at the offset; old tickets stay used, so old handles are stale
                queues[c.queue] = QueueState(c.offset, c.offset, next_ticket=popped.next_ticket)
        elif isinstance(c, Popped | Acked | Changed):
            pending.setdefault(c.queue, []).append(c)
        elif isinstance(c, TimerDelivered):
            delivered += c.offsets
        elif isinstance(c, TransactionEnded):
            if resolved is None:
                resolved = dict(st.resolutions)
            for offset in c.offsets:
                if not transactions.done(offset) and offset not in ended:  # the first end stands
                    resolved[offset] = c.resolution
                checks.pop(offset, None)
            ended.update(c.offsets)
        elif isinstance(c, TransactionChecked):
            for offset in c.offsets:
                if not transactions.done(offset) and offset not in ended:
                    checks[offset] = checks.get(offset, 0) + 1
        elif isinstance(c, Forgotten):
            settle(k for k in pending if (k.group, k.topic) == (c.group, c.topic))
            for table in (offsets, queues, versions):
                for key in [k for k in table if (k.group, k.topic) == (c.group, c.topic)]:
                    del table[key]
        elif isinstance(c, QueueMerged):
            settle([c.queue])
            queues[c.queue] = c.state
            offsets[c.queue] = Committed(c.state.committed, c.timestamp_ms)
            if c.version == Version():  # absent is (0, 0): a queue never reset keeps no entry
                versions.pop(c.queue, None)
            else:
                versions[c.queue] = c.version
        elif isinstance(c, Escaped):
            escaped.setdefault(c.home, {}).setdefault(c.key, c)
        elif isinstance(c, EscapeReleased):
            held = escaped.get(c.home, {})
            for released in c.keys:
                held.pop(released, None)
            if not held:
                escaped.pop(c.home, None)
        else:
            assert_never(c)
    settle(pending)
    if seq == st.seq:
        return st
    return ConsumerState(
        seq,
        MappingProxyType(offsets),
        MappingProxyType(queues),
        mark(st.timer, delivered),
        MappingProxyType(versions),
        MappingProxyType({home: MappingProxyType(held) for home, held in escaped.items()}),
        mark(transactions, ended),
        MappingProxyType(checks),
        st.resolutions if resolved is None else MappingProxyType(_latest(resolved)),
    )


def _latest(resolved: dict[int, Resolution]) -> dict[int, Resolution]:
    """`resolved` without the oldest ends beyond `RESOLUTIONS_KEPT`."""
    over = len(resolved) - RESOLUTIONS_KEPT
    return dict(list(resolved.items())[over:]) if over > 0 else resolved


def queue_state(state: ConsumerState, key: QueueKey) -> QueueState | None:
    """What POP decides a queue's receive against: its POP state, else a start at the committed offset, else
    None (a group new to the queue, which starts at the queue's first readable offset)."""
    return _queue_state(state.queues.get(key), state.offsets.get(key))


def _queue_state(popped: QueueState | None, committed: Committed | None) -> QueueState | None:
    if popped is not None:
        return popped
    return QueueState(committed.offset, committed.offset) if committed is not None else None


def consumer_offset(state: ConsumerState, key: QueueKey) -> int | None:
    """The group's offset on a queue: every message below it is consumed; None when the group never touched it."""
    return _consumer_offset(state.queues.get(key), state.offsets.get(key))


def _consumer_offset(popped: QueueState | None, committed: Committed | None) -> int | None:
    """`consumer_offset` of a queue's POP state and committed offset."""
    found = _queue_state(popped, committed)
    return found.committed if found is not None else None


def apply(state: ConsumerState | None, record: StateRecord) -> ConsumerState:
    """The state after one record (see `apply_all`)."""
    return apply_all(state, (record,))
