"""Snapshots of the consumer state, ``rebuild`` from a snapshot and the records after it, and the retention floor.

A snapshot is the whole `ConsumerState` at one cut of the commit log::

    magic "MQCS" | version | covered | seq | offsets | queues [| timer] | crc32 (u32, big-endian, of every byte
    before it)
    offsets: n, then per key in sorted order: group, topic, queueId, offset, timestampMs
    queues:  n, then per key in sorted order: group, topic, queueId, committed, scanned, nextTicket, attemptId,
             n in flight (offset ticket deadlineMs attempt)..., n done (offset ticket)..., each by offset
    timer:   floor, n delivered offsets (increasing, above the floor)...   (version 2 only)

Version 1 is a state without delayed-message progress, version 2 one with it: a broker set that never delivered
a delayed message keeps writing snapshots an older broker reads.

``covered`` is the commit-log offset the snapshot covers: the state holds every consumer-state record stored below
it and none at or above it. Keys and offsets are strictly increasing, so a state has one snapshot and a reordered
or duplicated entry is damage. A snapshot is cut at or below the confirmOffset only (`take`), so no truncation of
an unconfirmed tail ever falls below it. Retention may delete the log below ``covered`` and never above
(`retained_floor`); with no snapshot it deletes nothing, since the whole log is the state.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass
from types import MappingProxyType

from agents.consumer.errors import StateFormatError
from agents.consumer.records import StateRecord
from agents.consumer.state import Committed, ConsumerState, apply_all
from agents.consumer.wire import Reader, Writer
from agents.delay.timer import NO_PROGRESS, TimerProgress
from agents.pop.model import Inflight, QueueKey, QueueState
from agents.store.crc import crc32

MAGIC = b"MQCS"
VERSION, TIMER_VERSION = 1, 2
_CRC = struct.Struct(">I")


@dataclass(frozen=True, slots=True)
class Snapshot:
    """`state` holds exactly the consumer-state records stored below commit-log offset `covered`."""

    covered: int
    state: ConsumerState


def take(state: ConsumerState, covered: int, confirm_offset: int) -> Snapshot:
    """A snapshot of `state` at `covered`; ValueError above `confirm_offset`, which a truncation could undo."""
    if covered > confirm_offset:
        raise ValueError(
            f"a snapshot at offset {covered} would cover unconfirmed records (confirmOffset {confirm_offset})"
        )
    return Snapshot(covered, state)


def advance(base: Snapshot | None, stored: Iterable[tuple[int, int, StateRecord]], confirm_offset: int) -> Snapshot:
    """The snapshot after `base` at `confirm_offset`, from the (commit-log offset, size, record) stored from its
    covered offset on, in log order: the records that end at or below the confirmOffset are applied, and the
    snapshot covers up to it, or up to the start of the first record it cuts (which the next snapshot takes)."""
    if base is not None and confirm_offset <= base.covered:
        return base
    covered = confirm_offset
    taken: list[StateRecord] = []
    for offset, size, record in stored:
        if offset + size > confirm_offset:
            covered = min(confirm_offset, offset)
            break
        taken.append(record)
    return take(apply_all(base.state if base else None, taken), covered, confirm_offset)


def rebuild(snapshot: Snapshot | None, records_after: Iterable[StateRecord]) -> ConsumerState:
    """The state after `snapshot` and then the records stored at or above its covered offset, in log order.

    Records the snapshot already holds are replays and change nothing, so a reader may start anywhere below.
    """
    return apply_all(snapshot.state if snapshot else None, records_after)


def retained_floor(snapshot: Snapshot | None) -> int:
    """The ``retained`` floor of ``agents.ha.retention.Floors``: the latest durable snapshot's covered offset."""
    return snapshot.covered if snapshot else 0


# --- encode ------------------------------------------------------------------------------------


def _order(key: QueueKey) -> tuple[str, str, int]:
    return key.group, key.topic, key.queue_id


def _sorted_keys(keys: Iterable[QueueKey]) -> list[QueueKey]:
    return sorted(keys, key=_order)


def encode(snapshot: Snapshot) -> bytes:
    """The snapshot's one byte string."""
    st = snapshot.state
    w = Writer()
    w.out += MAGIC
    for n in (VERSION if st.timer == NO_PROGRESS else TIMER_VERSION, snapshot.covered, st.seq, len(st.offsets)):
        w.uint(n)
    for key in _sorted_keys(st.offsets):
        w.key(key)
        c = st.offsets[key]
        w.uint(c.offset)
        w.uint(c.timestamp_ms)
    w.uint(len(st.queues))
    for key in _sorted_keys(st.queues):
        w.key(key)
        q = st.queues[key]
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
    if st.timer != NO_PROGRESS:
        w.uint(st.timer.floor)
        w.uint(len(st.timer.delivered))
        for offset in sorted(st.timer.delivered):
            w.uint(offset)
    w.out += _CRC.pack(crc32(w.out))
    return bytes(w.out)


# --- decode ------------------------------------------------------------------------------------


def _read_key(r: Reader, previous: QueueKey | None) -> QueueKey:
    key = r.key()
    if previous is not None and _order(previous) >= _order(key):
        raise r.fail(f"key {key.group}/{key.topic}/{key.queue_id} is out of order or repeated")
    return key


def _read_queue(r: Reader, key: QueueKey) -> QueueState:
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


def decode(data: bytes) -> Snapshot:
    """The snapshot `data` holds; `StateFormatError` names what is wrong with anything else."""
    if data[: len(MAGIC)] != MAGIC:
        raise StateFormatError("consumer-state snapshot: no MQCS magic at its start (not a snapshot)")
    if len(data) < len(MAGIC) + _CRC.size:
        raise StateFormatError(f"consumer-state snapshot: {len(data)} bytes is too short")
    body, (stored,) = data[: -_CRC.size], _CRC.unpack(data[-_CRC.size :])
    r = Reader(body, "consumer-state snapshot")
    r.pos = len(MAGIC)
    version = r.uint("version")
    if version not in (VERSION, TIMER_VERSION):
        raise r.fail(f"version {version} is not {VERSION} or {TIMER_VERSION} (written by a newer broker?)")
    if crc32(body) != stored:
        raise StateFormatError(f"consumer-state snapshot: checksum {crc32(body):08x} does not match {stored:08x}")
    covered, seq = r.uint("covered"), r.uint("seq")
    offsets: dict[QueueKey, Committed] = {}
    key: QueueKey | None = None
    for _ in range(r.count("offsets")):
        key = _read_key(r, key)
        offsets[key] = Committed(r.uint("offset"), r.uint("timestampMs"))
    queues: dict[QueueKey, QueueState] = {}
    key = None
    for _ in range(r.count("queues")):
        key = _read_key(r, key)
        queues[key] = _read_queue(r, key)
    timer = _read_timer(r) if version == TIMER_VERSION else NO_PROGRESS
    r.end()
    return Snapshot(covered, ConsumerState(seq, MappingProxyType(offsets), MappingProxyType(queues), timer))


def _read_timer(r: Reader) -> TimerProgress:
    floor = r.uint("timer floor")
    delivered: list[int] = []
    for _ in range(r.count("timer delivered")):
        delivered.append(r.uint("timer delivered offset", (delivered[-1] if delivered else floor) + 1))
    if not floor and not delivered:
        raise r.fail(f"version {TIMER_VERSION} without timer progress (that state is a version {VERSION} snapshot)")
    return TimerProgress(floor, frozenset(delivered))
