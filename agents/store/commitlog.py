"""The commit log: records in fixed-size segment files, with crash-safe recovery and truncation.

Offsets are continuous across segments. Segment ``N`` is the file named ``f"{N:020d}"`` and holds offsets
``N .. N + segment_size``; files are created at full size (sparse). A record never spans segments: when the
next one does not fit, a blank record pads the segment to its end (``record.py``).

Invariants, kept by every method and restored by recovery:

1. the segments are contiguous, and the last one contains ``max_offset`` (it is created as soon as the
   previous one is full, so retention can never delete the segment that records where the log ends);
2. every byte at or past ``max_offset`` is zero, so stale bytes can never be read back as records;
3. ``last_message_boundary() <= max_offset``: on a replica the bytes between them are a partial record;
4. while ``truncate.intent`` exists, the data past its offset is garbage.

Crash-safe truncation (the fix for RocketMQ #10666, where ``truncateFiles`` only moved in-memory positions
and a restart found the stale tail valid again): write the target to ``truncate.intent`` (atomic, fsynced);
delete the later segments, zero the target's segment past the target, fsync the file and the directory;
remove the intent. Opening the log completes a leftover intent before anything else, so a crash at any
point either keeps the whole old log (no intent yet: the truncation never happened) or ends truncated.

Recovery scans from ``recover_from`` (a record boundary below which the data was fsynced, kept by the
caller's checkpoint) or from the first segment, and cuts everything after the last valid record the same
crash-safe way, logging the cut at WARNING.

One thread at a time: ``MessageStore`` serialises the calls; only the fsyncs of a ``flush_begin`` run outside
(on duplicate descriptors). A file descriptor from ``segment_view`` stays valid until the next ``truncate``,
``start_at``, ``delete_segments_before`` or ``close``.
"""

from __future__ import annotations

import errno
import logging
import mmap
import os
import re
import struct
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple, TypeVar

from agents.errors import AgentError
from agents.store.checkpoint import duplicates
from agents.store.index import fast_index_keys, record_entries
from agents.store.record import (
    BLANK_SIZE,
    MAX_RECORD_SIZE,
    MIN_RECORD_SIZE,
    Message,
    RecordError,
    RecordHeader,
    RecordKeys,
    Scan,
    blank_size_at,
    bytes_needed,
    decode_at,
    encode_blank,
    header_at,
    keys_at,
    record_sizes,
    scan_replicated,
)
from mqbase.files import atomic_write, fsync_dir

log = logging.getLogger(__name__)

T = TypeVar("T")
Step = Callable[[bytes | memoryview, int, int], tuple[T | None, int] | None]
"""Reads the record at a buffer position: (what it read, or None for a blank; size), or None for no record."""

INTENT_FILE = "truncate.intent"
MIN_SEGMENT_SIZE = BLANK_SIZE + MIN_RECORD_SIZE
MAX_SEGMENT_SIZE = 2**31 - 1  # a blank record's size field is an int32
_SEGMENT_NAME = re.compile(r"[0-9]{20}")
_INTENT = struct.Struct(">qI")
_WINDOW = 1 << 20  # bytes read at a time while scanning


class CommitLogError(AgentError, RuntimeError):
    """The files on disk are not a commit log this configuration can open (or an intent file is damaged)."""


class OffsetTooSmall(AgentError, LookupError):
    """A read below the minimum offset: retention deleted that data. ``min_offset`` is where reading can start."""

    def __init__(self, offset: int, min_offset: int, what: str = "commit-log offset") -> None:
        super().__init__(f"{what} {offset} is below the minimum {min_offset} (older data was deleted by retention)")
        self.offset = offset
        self.min_offset = min_offset


# --- pure helpers ---------------------------------------------------------------------------------


def segment_name(start: int) -> str:
    """The file name of the segment starting at `start` (Java's 20-digit zero-padded offset)."""
    return f"{start:020d}"


def next_record(buf: bytes | memoryview, pos: int, segment_remaining: int) -> tuple[Message | None, int] | None:
    """What the scan finds at ``buf[pos:]``: (message, size), (None, size) for the blank closing the segment,
    or None where the log ends (nothing valid, or a record that breaks the placement rules)."""
    blank = blank_size_at(buf, pos)
    if blank is not None:
        return (None, blank) if blank == segment_remaining else None
    found = decode_at(buf, pos)
    if found is None or found[1] + BLANK_SIZE > segment_remaining:
        return None
    return found


def next_header(buf: bytes | memoryview, pos: int, segment_remaining: int) -> tuple[RecordHeader | None, int] | None:
    """Like ``next_record`` but reads only the header and checks framing and placement, not the CRCs.

    For bytes whose CRCs were already checked: below the validated record boundary (dispatch, truncation).
    """
    blank = blank_size_at(buf, pos)
    if blank is not None:
        return (None, blank) if blank == segment_remaining else None
    header = header_at(buf, pos, verify_crc=False)
    if header is None or header.size + BLANK_SIZE > segment_remaining:
        return None
    return header, header.size


def next_keys(buf: bytes | memoryview, pos: int, segment_remaining: int) -> tuple[RecordKeys | None, int] | None:
    """Like ``next_header`` but with what the message index takes (``record.keys_at``)."""
    blank = blank_size_at(buf, pos)
    if blank is not None:
        return (None, blank) if blank == segment_remaining else None
    found = keys_at(buf, pos)
    if found is None or found.size + BLANK_SIZE > segment_remaining:
        return None
    return found, found.size


def encode_intent(target: int) -> bytes:
    """The content of the truncation intent file."""
    head = struct.pack(">q", target)
    return head + struct.pack(">I", zlib.crc32(head))


def decode_intent(blob: bytes) -> int:
    """Inverse of ``encode_intent``; CommitLogError if damaged (the file is replaced atomically, so it never is
    after a crash; refusing to open is the only safe answer to a truncation target we cannot read)."""
    if len(blob) != _INTENT.size:
        raise CommitLogError(f"{INTENT_FILE} is {len(blob)} bytes, expected {_INTENT.size}")
    target, crc = _INTENT.unpack(blob)
    if crc != zlib.crc32(blob[:8]) or target < 0:
        raise CommitLogError(f"{INTENT_FILE} is damaged; the truncation it records cannot be completed")
    return int(target)


class PendingFlush(NamedTuple):
    """What ``CommitLog.flush_begin`` took: descriptors to fdatasync (duplicates, so that a segment closed
    meanwhile cannot turn them into another file's), the end and record boundary they make durable, and the
    directory to fsync when segments were created since the last flush (their directory entries)."""

    fds: tuple[int, ...]
    max_offset: int
    boundary: int
    generation: int
    segments_created: int = 0
    directory: Path | None = None

    def sync(self) -> None:
        for fd in self.fds:
            os.fdatasync(fd)
        if self.directory is not None:
            fsync_dir(self.directory)

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)


def _scan_segments(
    fds: Mapping[int, int], segment_size: int, start: int, limit: int, step: Step[T]
) -> Iterator[tuple[int, T | None, int]]:
    """(offset, what `step` read or None for a blank, size) of the records in segments `fds` (start -> fd) from
    boundary `start` to `limit`; stops at the first position where `step` finds no record."""
    pos = start
    while pos < limit:
        seg = pos - pos % segment_size
        fd, seg_end = fds[seg], seg + segment_size
        read_end = min(seg_end, limit)
        buf, buf_at = b"", pos
        while pos < read_end:
            i = pos - buf_at
            found = step(buf, i, seg_end - pos)
            if found is None:
                held, needed = len(buf) - i, bytes_needed(buf, i)
                if held >= needed or buf_at + len(buf) >= read_end:
                    return
                buf, buf_at = os.pread(fd, min(max(_WINDOW, needed), read_end - pos), pos - seg), pos
                if len(buf) <= held:  # the file is shorter than it should be: nothing more to find
                    return
                continue
            msg, size = found
            if pos + size > limit:
                return
            yield pos, msg, size
            pos += size


def _segment_keys(view: memoryview, i: int, pos: int, seg_end: int, max_keys: int, out: bytearray) -> int:
    """``CommitLog.key_entries`` within one segment: the entries of the records of ``view[i:]`` (commit-log offset
    `pos`; the view ends at a record boundary) into `out`; returns where reading stopped."""
    while i < len(view):
        if fast_index_keys is not None:
            stopped = fast_index_keys(view, i, pos, seg_end - pos, MIN_RECORD_SIZE, MAX_RECORD_SIZE, max_keys, out)
            pos, i = pos + stopped - i, stopped
            if i >= len(view):
                break
        found = next_keys(view, i, seg_end - pos)
        if found is None or i + found[1] > len(view):
            break
        keys, size = found
        if keys is not None:
            out += record_entries(pos, keys, max_keys)
        pos, i = pos + size, i + size
    return pos


def _valid_end(directory: Path, fds: Mapping[int, int], segment_size: int, start: int, limit: int) -> int:
    """Recovery's scan: the end of the last valid record from boundary `start`.

    A record whose CRCs match but which breaks the format (``RecordError``) cannot come from a torn write, only
    from another format or a bug, so it is not cut as garbage: the log is refused (CommitLogError).
    """
    end = start
    try:
        for pos, _, size in _scan_segments(fds, segment_size, start, limit, next_record):
            end = pos + size
    except RecordError as exc:
        raise CommitLogError(
            f"{directory}: the record at offset {end} passes its CRCs but breaks the record format ({exc}), so it "
            "is not a torn write; refusing to open a log this release did not write. Move the commit log away to "
            "let the replica copy it from the master again"
        ) from exc
    return end


def read_only_bounds(directory: Path, recover_from: int = 0) -> tuple[int, int]:
    """(min offset, end of the last valid record) of the log in `directory`, opened read-only: no recovery, no
    cut, no file created. For post-mortems of a stopped broker (``mqadmin epochs collect --from-stores``); the
    end is what recovery would keep. An interrupted truncation counts as done. CommitLogError if there is no
    log or its segments do not fit together."""
    files = sorted(
        (int(p.name), p) for p in Path(directory).iterdir() if p.is_file() and _SEGMENT_NAME.fullmatch(p.name)
    )
    if not files:
        raise CommitLogError(f"{directory}: no commit-log segment files")
    segment_size = max(p.stat().st_size for _, p in files)
    starts = [start for start, _ in files]
    if any(b != a + segment_size for a, b in pairwise(starts)) or starts[0] % segment_size:
        raise CommitLogError(f"{directory}: the segments do not follow on from each other with size {segment_size}")
    fds = {start: os.open(p, os.O_RDONLY | os.O_CLOEXEC) for start, p in files}
    try:
        last_end = starts[-1] + segment_size
        begin = recover_from if starts[0] <= recover_from < last_end else starts[0]
        end = _valid_end(Path(directory), fds, segment_size, begin, last_end)
    finally:
        for fd in fds.values():
            os.close(fd)
    intent = Path(directory) / INTENT_FILE
    if intent.exists():
        end = min(end, decode_intent(intent.read_bytes()))
    return starts[0], end


# --- the log --------------------------------------------------------------------------------------


class CommitLog:
    """Segment files under `directory`; see the module docstring for the invariants."""

    def __init__(self, directory: Path, segment_size: int, *, recover_from: int | None = None) -> None:
        if not MIN_SEGMENT_SIZE <= segment_size <= MAX_SEGMENT_SIZE:
            raise ValueError(f"segment size {segment_size} is outside {MIN_SEGMENT_SIZE}..{MAX_SEGMENT_SIZE}")
        self.directory = Path(directory)
        self.segment_size = segment_size
        self._fds: dict[int, int] = {}  # segment start -> fd, in ascending order
        self._written_to = 0  # how far the current append wrote (to take it back if it fails)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._open_segments()
        try:
            intent = self._intent_path()
            if intent.exists():
                target = decode_intent(intent.read_bytes())
                log.warning("commit log %s: completing an interrupted truncation to offset %d", self.directory, target)
                self._apply_cut(target)
                self._remove_intent()
                if recover_from is not None and recover_from > target:  # the hint predates the truncation
                    recover_from = None
            self._max = self._boundary = self._flushed = self._flushed_boundary = self.min_offset
            self._tail = b""  # the bytes from the boundary to max_offset: a replica's partial last record
            self._generation = 0  # counts truncations and restarts, which void a flush in progress
            self._created = self._created_synced = 0  # segments the appends created / whose creation a flush synced
            self._recover(recover_from)
        except BaseException:  # a log that cannot be opened keeps no descriptor open
            self.close()
            raise

    # --- properties ---------------------------------------------------------------------------------

    @property
    def min_offset(self) -> int:
        """The first offset still stored (the start of the oldest segment)."""
        return next(iter(self._fds))

    @property
    def max_offset(self) -> int:
        """The next write position."""
        return self._max

    @property
    def flushed_offset(self) -> int:
        """Everything below this offset has been fsynced."""
        return self._flushed

    def last_message_boundary(self) -> int:
        """The end of the last complete record (a replica may hold part of the next one up to ``max_offset``)."""
        return self._boundary

    # --- writing ------------------------------------------------------------------------------------

    def append(self, data: bytes) -> list[int]:
        """Append whole encoded records (``record.encode``); returns the offset of each, in order.

        Each record goes into the current segment if it leaves room for a closing blank, else the segment is
        padded with a blank and the record starts the next one. RecordError if `data` is not whole records
        or a record can never fit a segment, ValueError while the log ends in a partial record; nothing is
        written then.
        """
        if self._boundary != self._max:
            raise ValueError(
                f"the log ends in a partial record at {self._boundary}..{self._max}; truncate to "
                "last_message_boundary() before appending"
            )
        sizes = record_sizes(data)
        if any(size + BLANK_SIZE > self.segment_size for size in sizes):
            raise RecordError(f"a record of {max(sizes)} bytes does not fit a segment of {self.segment_size} bytes")
        view, i, k, placed = memoryview(data), 0, 0, list[int]()
        with self._all_or_nothing():
            while k < len(sizes):
                room = self._segment_start(self._max) + self.segment_size - self._max
                j = i
                while k < len(sizes) and j - i + sizes[k] + BLANK_SIZE <= room:
                    j, k = j + sizes[k], k + 1
                if j == i:
                    self._write(self._max, encode_blank(room))
                    self._advance(self._max + room)
                    continue
                at = self._max
                for size in sizes[len(placed) : k]:
                    placed.append(at)
                    at += size
                self._write(self._max, view[i:j])
                self._advance(self._max + j - i)
                self._boundary, i = self._max, j
        return placed

    def scan_replicated(self, offset: int, data: bytes | memoryview) -> Scan:
        """Validate replicated bytes for ``append_at(offset, data)`` without writing them (``record.scan_replicated``,
        with the partial record this log ends in); RecordError names the first problem."""
        if offset == self._max:
            return scan_replicated(self._tail, data, self._boundary, self.segment_size)
        return scan_replicated(b"", data, offset, self.segment_size)  # append_at will refuse the offset

    def append_at(self, offset: int, data: bytes | memoryview, scan: Scan | None = None) -> Scan:
        """Replication: write the master's raw bytes at `offset`, which must be ``max_offset``; returns their scan.

        The bytes are copied as they are (blanks, padding, a partial last record), split only at segment ends,
        so the replica's files are byte-identical to the master's. `scan` is what ``scan_replicated`` said of
        them just before (it is redone if it was not of these bytes at this log's end); nothing is written if
        they fail it (RecordError), and nothing stays written if a write fails half-way (OSError: a full disk),
        as for ``append``.
        """
        if offset != self._max:
            raise ValueError(f"replicated bytes start at {offset}, but the log ends at {self._max}")
        if scan is None or (scan.start, scan.end) != (self._boundary, offset + len(data)):
            scan = self.scan_replicated(offset, data)
        view, i = memoryview(data).cast("B"), 0
        with self._all_or_nothing():
            while i < len(view):
                n = min(len(view) - i, self._segment_start(self._max) + self.segment_size - self._max)
                self._write(self._max, view[i : i + n])
                self._advance(self._max + n)
                i += n
        self._boundary, self._tail = scan.boundary, scan.tail
        return scan

    def start_at(self, offset: int) -> None:
        """Make an empty log begin at segment-aligned `offset` (a new replica of a master whose log starts there)."""
        if offset == self._max:
            return
        if self._max != self.min_offset or offset < self._max or offset % self.segment_size:
            raise ValueError(
                f"start_at({offset}) needs an empty log and a later multiple of the segment size {self.segment_size}"
                f" (the log holds {self.min_offset}..{self._max})"
            )
        self._generation += 1
        for start in list(self._fds):
            self._delete_segment(start)  # first: a crash before the new file exists reopens as an empty log
        fsync_dir(self.directory)
        self._create_segment(offset)
        self._max = self._boundary = self._flushed = self._flushed_boundary = offset
        self._tail = b""

    def flush(self) -> None:
        """fsync everything written; ``flushed_offset`` becomes ``max_offset``."""
        pending = self.flush_begin()
        try:
            pending.sync()
        finally:
            pending.close()
        self.flush_end(pending)

    def flush_begin(self) -> PendingFlush:
        """``flush`` in three steps, so that the fsyncs need not block writers: this takes what is to be synced
        (duplicate descriptors of the segments written since the last flush, and the end they cover); the caller
        runs ``sync()`` on it, ``close()``s it, and on success reports it with ``flush_end``."""
        directory = self.directory if self._created > self._created_synced else None
        if self._flushed == self._max and directory is None:
            return PendingFlush((), self._max, self._boundary, self._generation)
        fds = duplicates(fd for start, fd in self._fds.items() if start + self.segment_size > self._flushed)
        return PendingFlush(fds, self._max, self._boundary, self._generation, self._created, directory)

    def flush_end(self, pending: PendingFlush) -> None:
        """The data `pending` covers is durable: raise ``flushed_offset`` to it (ignored if the log was truncated
        or restarted at another offset since ``flush_begin``)."""
        if pending.generation == self._generation and pending.max_offset > self._flushed:
            self._flushed, self._flushed_boundary = pending.max_offset, pending.boundary
        self._created_synced = max(self._created_synced, pending.segments_created)

    def truncate(self, offset: int) -> None:
        """Cut the log back to `offset` for good (crash-safe, see the module docstring); no-op at or past the end."""
        if offset < self.min_offset:
            raise ValueError(f"cannot truncate to {offset}, below the minimum offset {self.min_offset}")
        if offset >= self._max:
            return
        boundary = self.boundary_at_or_below(offset)
        self._generation += 1
        self._cut(offset)
        self._max, self._boundary = offset, boundary
        self._tail = self.read(boundary, offset - boundary)
        self._flushed, self._flushed_boundary = min(self._flushed, offset), min(self._flushed_boundary, boundary)

    def delete_segments_before(self, offset: int) -> int:
        """Retention: delete the segments lying wholly below `offset` (never the last); returns the new minimum."""
        limit = min(offset, self._max)
        deleted = False
        while self.min_offset + self.segment_size <= limit:
            self._delete_segment(self.min_offset)
            deleted = True
        if deleted:
            fsync_dir(self.directory)
        return self.min_offset

    def segment_times(self) -> list[tuple[int, int]]:
        """(start, last write in ms since the epoch) of every segment, oldest first: retention's input."""
        return [(start, os.fstat(fd).st_mtime_ns // 1_000_000) for start, fd in self._fds.items()]

    def close(self) -> None:
        """Close the segment files (idempotent); unflushed data is left to the OS."""
        fds, self._fds = self._fds, {}
        for fd in fds.values():
            os.close(fd)

    def __enter__(self) -> CommitLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading ------------------------------------------------------------------------------------

    def read(self, offset: int, size: int) -> bytes:
        """Up to `size` bytes from `offset`, never past ``max_offset``; OffsetTooSmall below the minimum."""
        if size < 0:
            raise ValueError(f"negative read size {size}")
        if offset < self.min_offset:
            raise OffsetTooSmall(offset, self.min_offset)
        end, parts = min(offset + size, self._max), []
        while offset < end:
            start = self._segment_start(offset)
            n = min(end, start + self.segment_size) - offset
            parts.append(os.pread(self._fds[start], n, offset - start))
            offset += n
        return b"".join(parts)

    def segment_view(self, offset: int) -> tuple[int, int, int]:
        """(fd, position in the file, bytes readable up to the segment end or ``max_offset``), for os.sendfile."""
        if offset < self.min_offset:
            raise OffsetTooSmall(offset, self.min_offset)
        if offset > self._max:
            raise ValueError(f"offset {offset} is past the end of the log {self._max}")
        start = self._segment_start(offset)
        return self._fds[start], offset - start, min(start + self.segment_size, self._max) - offset

    def iter_messages(self, from_offset: int, to_offset: int | None = None) -> Iterator[tuple[int, Message, int]]:
        """(offset, message, size) of each record from the record boundary `from_offset`, skipping blanks.

        Stops at ``max_offset`` (or `to_offset`: only records ending at or before it) or at the first position
        holding no complete record, such as a replica's partial last record.
        """
        if from_offset < self.min_offset:  # checked now, not at the first next()
            raise OffsetTooSmall(from_offset, self.min_offset)
        limit = self._max if to_offset is None else min(to_offset, self._max)
        return ((pos, msg, size) for pos, msg, size in self._scan(from_offset, limit, next_record) if msg is not None)

    def iter_headers(self, from_offset: int, to_offset: int) -> Iterator[tuple[int, RecordHeader, int]]:
        """(offset, header, size) of each message record between two validated boundaries (dispatch)."""
        if from_offset < self.min_offset:
            raise OffsetTooSmall(from_offset, self.min_offset)
        limit = min(to_offset, self._boundary)
        return ((pos, h, size) for pos, h, size in self._scan(from_offset, limit, next_header) if h is not None)

    def key_entries(self, from_offset: int, to_offset: int, max_keys: int) -> bytearray:
        """The message index's packed key entries (``index.KEY_ENTRY``) of the message records between two
        validated boundaries, at most `max_keys` a record.

        Read through a read-only mapping of each segment's part, not copied out: the index needs only the records'
        headers and properties (copying 1 KiB records out of the page cache cost more than the rest of a slave's
        apply). The compiled path reads every record it can; the Python step reads the ones it stops at (a blank,
        a record past its key cap) and all of them where it is not built."""
        if from_offset < self.min_offset:
            raise OffsetTooSmall(from_offset, self.min_offset)
        out = bytearray()
        pos, limit = from_offset, min(to_offset, self._boundary)
        while pos < limit:
            seg = self._segment_start(pos)
            end = min(limit, seg + self.segment_size)
            base = (pos - seg) - (pos - seg) % mmap.ALLOCATIONGRANULARITY
            mapping = mmap.mmap(
                self._fds[seg], end - seg - base, mmap.MAP_SHARED | mmap.MAP_POPULATE, mmap.PROT_READ, offset=base
            )
            with mapping, memoryview(mapping) as view:
                pos = _segment_keys(view, pos - seg - base, pos, seg + self.segment_size, max_keys, out)
            if pos < end:  # a record no step reads: the log ends there for the index, as for every scan
                break
        return out

    def boundary_at_or_below(self, offset: int) -> int:
        """The end of the last complete record at or below `offset` (scans at most one segment)."""
        if offset >= self._boundary:
            return self._boundary
        start = self._segment_start(offset)
        if start <= self._flushed_boundary <= offset:
            start = self._flushed_boundary
        for pos, _, size in self._scan(start, offset, next_header):
            start = pos + size
        return start

    # --- internals ----------------------------------------------------------------------------------

    def _segment_start(self, offset: int) -> int:
        return offset - offset % self.segment_size

    def _intent_path(self) -> Path:
        return self.directory / INTENT_FILE

    def _scan(self, start: int, limit: int, step: Step[T]) -> Iterator[tuple[int, T | None, int]]:
        """(offset, what `step` read or None for a blank, size) of the records from boundary `start` to `limit`."""
        return _scan_segments(self._fds, self.segment_size, start, limit, step)

    def _write(self, offset: int, data: bytes | memoryview) -> None:
        start = self._segment_start(offset)
        fd, view, pos = self._fds[start], memoryview(data), offset - start
        try:
            while view:
                n = os.pwrite(fd, view, pos)
                view, pos = view[n:], pos + n
        finally:
            self._written_to = max(self._written_to, start + pos)

    @contextmanager
    def _all_or_nothing(self) -> Iterator[None]:
        """An append inside takes itself back if a write fails half-way (``_undo_append``), then re-raises."""
        start, boundary = self._max, self._boundary
        self._written_to = start
        try:
            yield
        except OSError:
            self._undo_append(start, boundary)
            raise

    def _undo_append(self, start: int, boundary: int) -> None:
        """Take back an append that failed half-way (a full disk: EFBIG, ENOSPC), so that it wrote nothing.

        The log ends at `start` again (invariant 1) and the bytes the append wrote past it are zeroed
        (invariant 2), so the next append after space returns goes exactly where this one would have.
        """
        segment = self._segment_start(start)
        for later in [s for s in self._fds if s > segment]:
            self._delete_segment(later)
        written = min(self._written_to, segment + self.segment_size) - start
        if written > 0:
            os.pwrite(self._fds[segment], bytes(written), start - segment)  # overwrites: needs no new space
        self._max, self._boundary = start, boundary

    def _advance(self, new_max: int) -> None:
        """Move the end; open the next segment as soon as one fills (invariant 1). If the new segment cannot be
        created, the end does not move.

        The new file and its directory entry are made durable by the next flush, not here: the writer does not
        wait for two fsyncs queued behind a flush of the previous segment. Until then only bytes no checkpoint
        claims depend on the file; if a power loss takes it, recovery finds the previous segment full and
        creates it again.
        """
        if new_max == next(reversed(self._fds)) + self.segment_size:
            self._create_segment(new_max, sync=False)
            self._created += 1
        self._max = new_max

    def _create_segment(self, start: int, *, sync: bool = True) -> None:
        path = self.directory / segment_name(start)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        try:
            os.ftruncate(fd, self.segment_size)
            if sync:
                os.fsync(fd)
                fsync_dir(self.directory)
        except OSError:  # a full disk: leave no half-made segment behind to trip the next attempt
            os.close(fd)
            path.unlink()
            raise
        self._fds[start] = fd

    def _delete_segment(self, start: int) -> None:
        os.close(self._fds.pop(start))
        os.unlink(self.directory / segment_name(start))

    def _open_segments(self) -> None:
        starts = sorted(int(p.name) for p in self.directory.iterdir() if _SEGMENT_NAME.fullmatch(p.name))
        for i, start in enumerate(starts):
            if start % self.segment_size or (i and start != starts[i - 1] + self.segment_size):
                raise CommitLogError(
                    f"{self.directory}: segment {segment_name(start)} does not follow on from the one before it with "
                    f"segment size {self.segment_size} (was mappedFileSizeCommitLog changed?)"
                )
        for start in starts:
            self._fds[start] = os.open(self.directory / segment_name(start), os.O_RDWR | os.O_CLOEXEC)
        for start, fd in self._fds.items():
            size = os.fstat(fd).st_size
            if size > self.segment_size or (size < self.segment_size and start != starts[-1]):
                self.close()
                raise CommitLogError(
                    f"{self.directory}: segment {segment_name(start)} is {size} bytes, expected {self.segment_size}"
                )
            if size < self.segment_size:  # a crash while creating the newest segment
                os.ftruncate(fd, self.segment_size)
        if not self._fds:
            self._create_segment(0)

    def _recover(self, recover_from: int | None) -> None:
        """Find the last valid record from a known-good boundary and cut whatever follows it."""
        last_end = next(reversed(self._fds)) + self.segment_size
        start = self.min_offset
        if recover_from is not None and start <= recover_from < last_end:
            start = recover_from
        end = _valid_end(self.directory, self._fds, self.segment_size, start, last_end)
        if end == last_end:  # the blank closing the last segment was written, the next file not yet
            self._create_segment(end)
        else:
            garbage = self._first_data_after(end)
            if garbage is not None:
                log.warning(
                    "commit log %s: cutting a torn or corrupt tail: the last valid record ends at offset %d, "
                    "non-zero bytes follow from offset %d (last segment %s); the log now ends at %d",
                    self.directory,
                    end,
                    garbage,
                    segment_name(next(reversed(self._fds))),
                    end,
                )
            if garbage is not None or next(reversed(self._fds)) > self._segment_start(end):
                self._cut(end)
        for seg, fd in self._fds.items():  # what survived a process crash may still be only in the page cache
            if seg + self.segment_size > start:
                os.fdatasync(fd)
        self._max = self._boundary = self._flushed = self._flushed_boundary = end

    def _first_data_after(self, offset: int) -> int | None:
        """The offset of the first non-zero byte at or after `offset`, skipping sparse holes; None if none."""
        for start, fd in self._fds.items():
            pos = max(offset - start, 0)
            while pos < self.segment_size:
                try:
                    data = os.lseek(fd, pos, os.SEEK_DATA)
                except OSError as exc:
                    if exc.errno == errno.ENXIO:
                        break
                    raise
                hole = os.lseek(fd, data, os.SEEK_HOLE)
                while data < hole:
                    chunk = os.pread(fd, min(_WINDOW, hole - data), data)
                    if not chunk:
                        break
                    rest = chunk.lstrip(b"\0")
                    if rest:
                        return start + data + len(chunk) - len(rest)
                    data += len(chunk)
                pos = hole
        return None

    def _cut(self, target: int) -> None:
        atomic_write(self._intent_path(), encode_intent(target))
        self._apply_cut(target)
        self._remove_intent()

    def _apply_cut(self, target: int) -> None:
        """Delete the segments after `target`'s and zero its own past `target` (idempotent, so it can be redone)."""
        seg = self._segment_start(target)
        if seg not in self._fds:
            raise CommitLogError(f"{self.directory}: truncation target {target} lies outside the stored segments")
        for start in reversed(list(self._fds)):
            if start > seg:
                self._delete_segment(start)
        fd = self._fds[seg]
        os.ftruncate(fd, target - seg)  # drops the blocks: zeros (a hole) once extended again
        os.ftruncate(fd, self.segment_size)
        os.fsync(fd)
        fsync_dir(self.directory)

    def _remove_intent(self) -> None:
        os.unlink(self._intent_path())
        fsync_dir(self.directory)
