"""Snapshots of the consumer state, ``rebuild`` from a snapshot and the records after it, and the retention floor.

A snapshot is the whole `ConsumerState` at one cut of the commit log::

    magic "MQCS" | version | covered | seq | offsets | queues [| timer] [| versions | escaped] [| transactions]
    [| resolutions]
    | crc32 (u32, big-endian, of every byte before it)
    offsets: n, then per key in sorted order: group, topic, queueId, offset, timestampMs
    queues:  n, then per key in sorted order: group, topic, queueId, committed, scanned, nextTicket, attemptId,
             n in flight (offset ticket deadlineMs attempt)..., n done (offset ticket)..., each by offset
    timer:   floor, n delivered offsets (increasing, above the floor)...   (versions 2 to 5)
    versions: n, then per key in sorted order: group, topic, queueId, epoch, seq   (versions 3 to 5)
    escaped:  n, then per (home, key) in sorted order: an Escaped record's fields from home on
              (``agents.consumer.records``' kind 7)   (versions 3 to 5)
    transactions: floor, n ended offsets (increasing, above the floor)..., n checked (offset count)... by offset
              (versions 4 and 5)
    resolutions: n (at most ``RESOLUTIONS_KEPT``), then per ended transaction in the order they ended: half
              offset, resolution   (version 5 only)

Version 1 is a state without delayed-message progress, version 2 one with it, version 3 one with RIP-32 state (a
reset queue's version, or changes escaped to this set; its timer may be empty), version 4 one with transactions (its
other parts may be empty), version 5 one that also knows how its latest transactions ended: a broker set keeps
writing the oldest version that holds its state, so one that never delivered a delayed message or escaped keeps
writing snapshots an older broker reads.

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
from agents.consumer.progress import NO_PROGRESS, OffsetProgress
from agents.consumer.records import (
    Escaped,
    EscapeKey,
    StateRecord,
    Version,
    read_escaped,
    read_queue,
    write_escaped,
    write_queue,
)
from agents.consumer.state import RESOLUTIONS_KEPT, Committed, ConsumerState, apply_all
from agents.consumer.wire import Reader, Writer
from agents.pop.model import QueueKey, QueueState
from agents.store.crc import crc32
from agents.transaction.half import Resolution

MAGIC = b"MQCS"
VERSION, TIMER_VERSION, ESCAPE_VERSION, TRANSACTION_VERSION, RESOLUTION_VERSION = 1, 2, 3, 4, 5
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


def _version_of(st: ConsumerState) -> int:
    """The oldest format that holds `st`."""
    if st.resolutions:
        return RESOLUTION_VERSION
    if st.transactions != NO_PROGRESS or st.checks:
        return TRANSACTION_VERSION
    if st.versions or st.escaped:
        return ESCAPE_VERSION
    return VERSION if st.timer == NO_PROGRESS else TIMER_VERSION


def encode(snapshot: Snapshot) -> bytes:
    """The snapshot's one byte string."""
    st = snapshot.state
    w = Writer()
    w.out += MAGIC
    version = _version_of(st)
    for n in (version, snapshot.covered, st.seq, len(st.offsets)):
        w.uint(n)
    for key in _sorted_keys(st.offsets):
        w.key(key)
        c = st.offsets[key]
        w.uint(c.offset)
        w.uint(c.timestamp_ms)
    w.uint(len(st.queues))
    for key in _sorted_keys(st.queues):
        w.key(key)
        write_queue(w, st.queues[key])
    if version >= TIMER_VERSION:
        w.uint(st.timer.floor)
        w.uint(len(st.timer.above))
        for offset in sorted(st.timer.above):
            w.uint(offset)
    if version >= ESCAPE_VERSION:
        w.uint(len(st.versions))
        for key in _sorted_keys(st.versions):
            w.key(key)
            w.uint(st.versions[key].epoch)
            w.uint(st.versions[key].seq)
        held = sorted((e for by_key in st.escaped.values() for e in by_key.values()), key=lambda e: (e.home, e.key))
        w.uint(len(held))
        for e in held:
            write_escaped(w, e)
    if version >= TRANSACTION_VERSION:
        w.uint(st.transactions.floor)
        w.uint(len(st.transactions.above))
        for offset in sorted(st.transactions.above):
            w.uint(offset)
        w.uint(len(st.checks))
        for offset in sorted(st.checks):
            w.uint(offset)
            w.uint(st.checks[offset])
    if version == RESOLUTION_VERSION:
        w.uint(len(st.resolutions))
        for offset, resolution in st.resolutions.items():
            w.uint(offset)
            w.uint(resolution)
    w.out += _CRC.pack(crc32(w.out))
    return bytes(w.out)


# --- decode ------------------------------------------------------------------------------------


def _read_key(r: Reader, previous: QueueKey | None) -> QueueKey:
    key = r.key()
    if previous is not None and _order(previous) >= _order(key):
        raise r.fail(f"key {key.group}/{key.topic}/{key.queue_id} is out of order or repeated")
    return key


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
    if not VERSION <= version <= RESOLUTION_VERSION:
        raise r.fail(f"version {version} is not {VERSION}..{RESOLUTION_VERSION} (written by a newer broker?)")
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
        queues[key] = read_queue(r, key)
    timer = _read_timer(r, version) if version >= TIMER_VERSION else NO_PROGRESS
    versions: dict[QueueKey, Version] = {}
    escaped: dict[str, dict[EscapeKey, Escaped]] = {}
    if version >= ESCAPE_VERSION:
        key = None
        for _ in range(r.count("versions")):
            key = _read_key(r, key)
            versions[key] = Version(r.uint("version epoch"), r.uint("version seq"))
        last: tuple[str, EscapeKey] | None = None
        for _ in range(r.count("escaped")):
            e = read_escaped(r)
            if last is not None and last >= (e.home, e.key):
                raise r.fail(
                    f"escaped change {e.home}/{e.key.origin}/{e.key.episode}/{e.key.n} is out of order or repeated"
                )
            last = (e.home, e.key)
            escaped.setdefault(e.home, {})[e.key] = e
        if version == ESCAPE_VERSION and not versions and not escaped:
            raise r.fail(f"version {ESCAPE_VERSION} without versions or escaped changes (an older version's state)")
    transactions, checks = _read_transactions(r) if version >= TRANSACTION_VERSION else (NO_PROGRESS, {})
    resolutions = _read_resolutions(r, transactions) if version == RESOLUTION_VERSION else {}
    r.end()
    state = ConsumerState(
        seq,
        MappingProxyType(offsets),
        MappingProxyType(queues),
        timer,
        MappingProxyType(versions),
        MappingProxyType({home: MappingProxyType(held) for home, held in escaped.items()}),
        transactions,
        MappingProxyType(checks),
        MappingProxyType(resolutions),
    )
    return Snapshot(covered, state)


def _read_timer(r: Reader, version: int) -> OffsetProgress:
    floor = r.uint("timer floor")
    delivered: list[int] = []
    for _ in range(r.count("timer delivered")):
        delivered.append(r.uint("timer delivered offset", (delivered[-1] if delivered else floor) + 1))
    if version == TIMER_VERSION and not floor and not delivered:
        raise r.fail(f"version {TIMER_VERSION} without timer progress (that state is a version {VERSION} snapshot)")
    return OffsetProgress(floor, frozenset(delivered))


def _read_transactions(r: Reader) -> tuple[OffsetProgress, dict[int, int]]:
    floor = r.uint("transactions floor")
    ended: list[int] = []
    for _ in range(r.count("transactions ended")):
        ended.append(r.uint("ended half offset", (ended[-1] if ended else floor) + 1))
    checks: dict[int, int] = {}
    last = -1
    for _ in range(r.count("transactions checked")):
        last = r.uint("checked half offset", last + 1)
        if last < floor or last in ended:
            raise r.fail(f"half offset {last} is both ended and checked")
        checks[last] = r.uint("check count", 1)
    if not floor and not ended and not checks:
        raise r.fail(f"version {TRANSACTION_VERSION} without transactions (an older version's state)")
    return OffsetProgress(floor, frozenset(ended)), checks


def _read_resolutions(r: Reader, ended: OffsetProgress) -> dict[int, Resolution]:
    resolutions: dict[int, Resolution] = {}
    n = r.count("resolutions")
    if not 0 < n <= RESOLUTIONS_KEPT:
        raise r.fail(f"{n} resolutions is not 1..{RESOLUTIONS_KEPT}")
    for _ in range(n):
        offset = r.uint("resolved half offset")
        if not ended.done(offset) or offset in resolutions:
            raise r.fail(f"half offset {offset} has a resolution but is not ended, or has two")
        resolutions[offset] = Resolution(r.uint("resolution", min(Resolution), max(Resolution)))
    return resolutions
