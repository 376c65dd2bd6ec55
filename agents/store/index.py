"""The message index: ``topic#key`` -> commit-log offsets, so operators find a message by its keys or its unique key.

Hash files in the manner of Java's ``IndexFile`` (learned from apache/rocketmq's IndexService and IndexFile; the
meaning of two header fields differs, see below). Files ``index/<20 digits>``, named by the commit-log offset
from which the file indexes, each created at its full size (sparse) and used through mmap; big-endian::

    header, 40 bytes, written only by a flush or a truncation, after everything it claims is synced:
      beginTimestamp i64 | endTimestamp i64 | beginPhyOffset i64 | endPhyOffset i64 | hashSlotCount i32 | indexCount i32
    slots, slot_count x i32: the number of the newest entry whose key hashes to the slot (0: none)
    entries, entry_count x 20 bytes, numbered from 1:
      keyHash i32 | phyOffset i64 | timeDiff i32 (s after beginTimestamp) | prevIndex i32 (older entry, 0: none)

``endPhyOffset`` is the commit-log boundary up to which every record has been indexed (Java: the last entry's
offset), and ``indexCount`` the number of entries (Java counts one more). Each word of the ``KEYS`` property
(space separated) and the ``UNIQ_KEY`` is filed under the hash of ``topic#key`` (``key_hash``); a lookup walks the
slot's chain newest first and the caller reads each record to drop hash collisions (``matches``), as Java's query
client does.

Durability: entries and slots are written into the mapping at dispatch; a flush syncs the mapping, then writes the
header and syncs it again, so the header never claims entries the disk may not hold. Recovery trusts the header:
the entries past its count are ignored, and if any slot points past it (written back before the crash) the slots
are rebuilt from the trusted entries. The store then indexes again from ``endPhyOffset`` (``covered_to``) up to
its dispatch point. A truncation cuts the entries of the cut records and syncs at once; an index that claims more
than the log holds (a crash during a truncation) is cut when it is opened. Retention deletes the files whose
records all lie below the log's new minimum, never the file being written.

Dispatch hands the index packed key entries (``KEY_ENTRY``: offset, store time, hash), read from the log by
``CommitLog.key_entries``; where ``_fastscan`` is built both that reading and the filing (``add_packed``) are
compiled, and ``record_entries``/``add_entries`` are what they must match (``test_fastpath.py``).

Pure functions over buffers (hashing, layout, the chain walk, filtering) come first; ``IndexFile`` and
``MessageIndex`` are the shell. ``MessageStore`` serialises every call (its flush lock and store lock), and runs
``flush_write`` outside the store lock, like the consume queues'.
"""

from __future__ import annotations

import mmap
import os
import re
import struct
import sys
from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from agents.errors import AgentError
from agents.store import record
from agents.store.crc import crc32
from agents.store.record import KEYS, UNIQ_KEY, Message, RecordKeys
from mqbase.files import fsync_dir

DEFAULT_SLOTS = 500_000
DEFAULT_ENTRIES = 2_000_000
"""A file's hash slots and entries (Java: maxHashSlotNum 5 M, maxIndexNum 20 M): 42 MB, sparse, per file."""

HEADER = struct.Struct(">qqqqii")
ENTRY = struct.Struct(">iqii")
SLOT = struct.Struct(">i")
KEY_ENTRY = struct.Struct("=qqi4x")
"""A key to file, packed as dispatch hands it over (in memory only): commit-log offset, store time (ms), key hash."""
_INT32_MAX = 2**31 - 1
_FILE_NAME = re.compile(r"[0-9]{20}")


class IndexFileError(AgentError, ValueError):
    """An index file that does not fit its layout (another slot or entry count, a short file)."""


# --- pure core -------------------------------------------------------------------------------------


def key_hash(topic: bytes, key: bytes) -> int:
    """The non-negative hash a key is filed under: CRC-32 of ``topic#key`` (utf-8), 31 bits. Java hashes the same
    string with ``String.hashCode``, a loop per character here, the dearest step of a slave's dispatch."""
    return crc32(key, crc32(b"#", crc32(topic))) & _INT32_MAX


def index_keys(keys: bytes, unique_key: bytes) -> list[bytes]:
    """The keys a message is found by: each word of KEYS, then UNIQ_KEY, each once."""
    return [k for k in dict.fromkeys([*keys.split(b" "), unique_key]) if k]


def record_entries(offset: int, found: RecordKeys, max_keys: int) -> bytes:
    """The packed key entries (``KEY_ENTRY``) of the record at commit-log `offset`: its first `max_keys` keys."""
    keys = index_keys(found.keys, found.unique_key)[:max_keys]
    return b"".join(KEY_ENTRY.pack(offset, found.store_timestamp, key_hash(found.topic, key)) for key in keys)


def whole_records(packed: bytes | bytearray | memoryview, first: int, count: int) -> int:
    """How many of the `count` entries from entry `first` on belong to records whose entries all lie among them (a
    record's entries are consecutive and share its offset); `count` must leave at least one entry after them."""

    def offset(k: int) -> int:
        return int(KEY_ENTRY.unpack_from(packed, k * KEY_ENTRY.size)[0])

    while count > 0 and offset(first + count) == offset(first + count - 1):
        count -= 1
    return count


def matches(topic: str, key: str, unique: bool, found: Message, begin_ms: int, end_ms: int) -> bool:
    """Whether a record a lookup led to is one that was asked for (a hash collision, another topic, a time outside
    the range, or a key that is only the other kind, are not)."""
    if found.topic != topic or not begin_ms <= found.store_timestamp <= end_ms:
        return False
    if unique:
        return found.properties.get(UNIQ_KEY) == key
    return key in found.properties.get(KEYS, "").split(" ")


@dataclass(frozen=True, slots=True)
class Header:
    """An index file's header (see the module docstring); ``count`` entries, covering the log up to ``end_phy``."""

    begin_ts: int = 0
    end_ts: int = 0
    begin_phy: int = 0
    end_phy: int = 0
    used_slots: int = 0
    count: int = 0

    def pack(self) -> bytes:
        return HEADER.pack(self.begin_ts, self.end_ts, self.begin_phy, self.end_phy, self.used_slots, self.count)

    @classmethod
    def unpack(cls, blob: bytes | mmap.mmap) -> Header:
        return cls(*HEADER.unpack_from(blob, 0))


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the slots and entries of a file with `slots` hash slots and room for `entries` entries lie."""

    slots: int
    entries: int

    def __post_init__(self) -> None:
        if not 1 <= self.slots <= _INT32_MAX or not 1 <= self.entries <= _INT32_MAX:
            raise ValueError(f"index slots {self.slots} and entries {self.entries} must be 1..{_INT32_MAX}")

    @property
    def size(self) -> int:
        return HEADER.size + self.slots * SLOT.size + self.entries * ENTRY.size

    def slot_pos(self, h: int) -> int:
        return HEADER.size + (h % self.slots) * SLOT.size

    def entry_pos(self, number: int) -> int:
        return HEADER.size + self.slots * SLOT.size + (number - 1) * ENTRY.size


DEFAULT_LAYOUT = Layout(DEFAULT_SLOTS, DEFAULT_ENTRIES)


def _load_compiled() -> tuple[Callable[..., int], Callable[..., tuple[int, int, int]]] | None:
    """``_fastscan``'s index_keys and index_add when it was built for these entry layouts, else None (the Python
    code below does the same, several times slower)."""
    module = record.compiled
    if module is None or (KEY_ENTRY.size, ENTRY.size) != (
        getattr(module, "KEY_ENTRY_SIZE", None),
        getattr(module, "INDEX_ENTRY_SIZE", None),
    ):
        return None
    return module.index_keys, module.index_add


_compiled = _load_compiled()
fast_index_keys = _compiled[0] if _compiled is not None else None
"""The compiled reading of a log window's key entries (``CommitLog.key_entries``), or None."""
_fast_add = _compiled[1] if _compiled is not None else None


def add_entries(
    buf: bytearray | mmap.mmap, layout: Layout, header: Header, entries: Sequence[tuple[int, int, int]]
) -> Header:
    """File each (key hash, commit-log offset, store time in ms) of `entries` in `buf`, which has room for them,
    each chained in front of its slot's newest entry; returns the new header."""
    count, used = header.count, header.used_slots
    if count + len(entries) > layout.entries:
        raise ValueError("the index file is full")
    if not entries:
        return header
    begin_ts = header.begin_ts if count else entries[0][2]
    slots, base = HEADER.size, layout.entry_pos(1)
    for h, phy, ts in entries:
        at = slots + (h % layout.slots) * SLOT.size
        (prev,) = SLOT.unpack_from(buf, at)
        if not 0 < prev <= count:  # a slot pointing past the count is stale (a crashed file's)
            prev = 0
            used += 1
        count += 1
        ENTRY.pack_into(
            buf, base + (count - 1) * ENTRY.size, h, phy, min(max(0, (ts - begin_ts) // 1000), _INT32_MAX), prev
        )
        SLOT.pack_into(buf, at, count)
    end_ts = max(header.end_ts, max(ts for _, _, ts in entries))
    begin_phy = header.begin_phy if header.count else entries[0][1]
    return Header(begin_ts, end_ts, begin_phy, header.end_phy, used, count)


def add_packed(
    buf: bytearray | mmap.mmap, layout: Layout, header: Header, packed: bytes | bytearray | memoryview
) -> Header:
    """``add_entries`` of packed key entries (``KEY_ENTRY``): in one compiled call where ``_fastscan`` is built."""
    count = len(packed) // KEY_ENTRY.size
    if _fast_add is None or count == 0:
        return add_entries(buf, layout, header, [(h, phy, ts) for phy, ts, h in KEY_ENTRY.iter_unpack(packed)])
    begin_ts = header.begin_ts if header.count else int(KEY_ENTRY.unpack_from(packed, 0)[1])
    total, used, end_ts = _fast_add(buf, layout.slots, layout.entries, header.count, header.used_slots, begin_ts,
                                    packed)  # fmt: skip
    begin_phy = header.begin_phy if header.count else int(KEY_ENTRY.unpack_from(packed, 0)[0])
    return Header(begin_ts, max(header.end_ts, end_ts), begin_phy, header.end_phy, used, total)


def candidates(
    buf: bytes | bytearray | mmap.mmap, layout: Layout, header: Header, h: int, begin_ms: int, end_ms: int, limit: int
) -> list[int]:
    """The commit-log offsets of up to `limit` entries of hash `h` whose store second overlaps
    ``[begin_ms, end_ms]``, newest first (entries keep whole seconds: the caller checks the exact time)."""
    out: list[int] = []
    (number,) = SLOT.unpack_from(buf, layout.slot_pos(h))
    while 0 < number <= header.count and len(out) < limit:
        entry_hash, phy, diff, prev = ENTRY.unpack_from(buf, layout.entry_pos(number))
        at = header.begin_ts + diff * 1000
        if at + 999 < begin_ms:  # the chain only gets older
            break
        if entry_hash == h and at <= end_ms:
            out.append(phy)
        if prev >= number:  # never loop on a damaged chain
            break
        number = prev
    return out


def rebuild_slots(buf: bytearray | mmap.mmap, layout: Layout, count: int) -> int:
    """Point every slot at its newest entry among the first `count` (recovery, truncation); returns the used
    slots."""
    newest: dict[int, int] = {}
    base = layout.entry_pos(1)
    for number, (h, _, _, _) in enumerate(ENTRY.iter_unpack(buf[base : base + count * ENTRY.size]), start=1):
        newest[h % layout.slots] = number
    buf[HEADER.size : layout.entry_pos(1)] = bytes(layout.slots * SLOT.size)
    for slot, number in newest.items():
        SLOT.pack_into(buf, HEADER.size + slot * SLOT.size, number)
    return len(newest)


def max_slot(buf: bytes | bytearray | mmap.mmap, layout: Layout) -> int:
    """The highest entry number any slot holds (recovery: more than the header's count means rebuild)."""
    slots = array("i", buf[HEADER.size : layout.entry_pos(1)])
    if sys.byteorder == "little":  # the slots are big-endian
        slots.byteswap()
    return max(slots, default=0)


def entries_below(buf: bytes | bytearray | mmap.mmap, layout: Layout, count: int, phy: int) -> int:
    """How many of the first `count` entries point below commit-log offset `phy` (entries are in log order)."""

    def offset_of(number: int) -> int:
        return int(ENTRY.unpack_from(buf, layout.entry_pos(number))[1])

    numbers = range(1, count + 1)
    return bisect_left(numbers, phy, key=offset_of)


# --- files -----------------------------------------------------------------------------------------


class IndexFile:
    """One index file, mapped; ``header`` is the live one, ``durable`` the one on disk."""

    def __init__(self, path: Path, layout: Layout, *, create_at: int | None = None) -> None:
        self.path, self.layout = path, layout
        flags = os.O_RDWR | os.O_CLOEXEC | (os.O_CREAT | os.O_EXCL if create_at is not None else 0)
        self._fd = os.open(path, flags, 0o644)
        try:
            if create_at is not None:
                os.ftruncate(self._fd, layout.size)
            elif os.fstat(self._fd).st_size != layout.size:
                raise IndexFileError(
                    f"{path}: {os.fstat(self._fd).st_size} bytes, not the {layout.size} of an index with "
                    f"{layout.slots} slots and {layout.entries} entries (delete the index directory to rebuild it)"
                )
            self.mm = mmap.mmap(self._fd, layout.size)
        except BaseException:
            os.close(self._fd)
            raise
        if create_at is not None:
            self.durable = self.header = Header(begin_phy=create_at, end_phy=create_at)
            self.mm[: HEADER.size] = self.header.pack()
        else:
            self.durable = self.header = Header.unpack(self.mm)
            if not 0 <= self.header.count <= layout.entries:
                self.close()
                raise IndexFileError(f"{path}: header claims {self.header.count} entries of {layout.entries}")
            if max_slot(self.mm, layout) > self.header.count:  # written back past the last flush: rebuild
                self.header = replace(self.header, used_slots=rebuild_slots(self.mm, layout, self.header.count))

    @property
    def room(self) -> int:
        return self.layout.entries - self.header.count

    def add(self, packed: bytes | bytearray | memoryview) -> None:
        self.header = add_packed(self.mm, self.layout, self.header, packed)

    def lookup(self, h: int, begin_ms: int, end_ms: int, limit: int) -> list[int]:
        if self.header.count == 0 or self.header.end_ts + 999 < begin_ms or self.header.begin_ts > end_ms:
            return []
        return candidates(self.mm, self.layout, self.header, h, begin_ms, end_ms, limit)

    def cut(self, phy: int) -> None:
        """Drop the entries of records at or past `phy` and make that durable."""
        kept = entries_below(self.mm, self.layout, self.header.count, phy)
        used = rebuild_slots(self.mm, self.layout, kept)
        end_ts = self.header.end_ts if kept == self.header.count else self._last_ts(kept)
        self.header = replace(
            self.header, count=kept, used_slots=used, end_ts=end_ts, end_phy=min(self.header.end_phy, phy)
        )
        self.sync(self.header)

    def _last_ts(self, count: int) -> int:
        """The store second of the last kept entry (the header's end time after a cut)."""
        if count == 0:
            return self.header.begin_ts
        diff = ENTRY.unpack_from(self.mm, self.layout.entry_pos(count))[2]
        return int(self.header.begin_ts + diff * 1000)

    def sync(self, header: Header) -> None:
        """Sync what the mapping holds, then claim `header` (taken at flush_begin) and sync it."""
        self.mm.flush()
        self.mm[: HEADER.size] = header.pack()
        self.mm.flush(0, min(mmap.PAGESIZE, self.layout.size))
        self.durable = header

    def close(self) -> None:
        self.mm.close()
        os.close(self._fd)

    def delete(self) -> None:
        self.close()
        os.unlink(self.path)


@dataclass(frozen=True)
class PendingIndexFlush:
    """What ``MessageIndex.flush_begin`` took: each file with the header to claim, and directories to fsync."""

    files: list[tuple[IndexFile, Header]]
    dirs: set[Path]


class MessageIndex:
    """The index files in `directory`; see the module docstring. `log_min` and `log_boundary` bound what the
    commit log holds now: an index claiming more is cut, one claiming less than its start is started again."""

    def __init__(self, directory: Path, layout: Layout, *, log_min: int, log_boundary: int) -> None:
        self.directory = Path(directory)
        self.layout = layout
        fresh = not self.directory.is_dir()
        self.directory.mkdir(parents=True, exist_ok=True)
        self._dirty_dirs: set[Path] = {self.directory, self.directory.parent} if fresh else set()
        self._files: list[IndexFile] = []
        for name in sorted(p.name for p in self.directory.iterdir() if _FILE_NAME.fullmatch(p.name)):
            self._files.append(IndexFile(self.directory / name, layout))
        while self._files and self._files[-1].header.count == 0:  # created, nothing claimed: the files before
            self._files.pop().delete()  # it say where indexing stands
            self._dirty_dirs.add(self.directory)
        self._covered = self._files[-1].header.end_phy if self._files else log_min
        if self._covered > log_boundary:
            self.truncate(log_boundary)
        if self._covered < log_min:
            self.reset(log_min)

    @property
    def covered_to(self) -> int:
        """Every record below this commit-log boundary is indexed."""
        return self._covered

    def add(self, packed: bytes | bytearray, to_offset: int) -> None:
        """File the packed key entries (``KEY_ENTRY``, in log order, at most ``layout.entries`` a record) of the log
        from ``covered_to`` up to the boundary `to_offset`."""
        view, size = memoryview(packed), KEY_ENTRY.size
        total, first = len(view) // size, 0
        while first < total:
            room = self._files[-1].room if self._files else 0
            take = min(room, total - first)
            if take < total - first:  # a record's entries stay in one file (retention)
                take = whole_records(view, first, take)
            if take == 0:
                self._roll(int(KEY_ENTRY.unpack_from(view, first * size)[0]))
                continue
            self._files[-1].add(view[first * size : (first + take) * size])
            first += take
        self._covered = max(self._covered, to_offset)
        if self._files:
            last = self._files[-1]
            last.header = replace(last.header, end_phy=self._covered)

    def lookup(self, topic: str, key: str, begin_ms: int, end_ms: int, limit: int) -> list[int]:
        """Commit-log offsets of up to `limit` records that may hold `key` (newest first, each once); the caller
        reads them and keeps those that ``matches``."""
        h, out = key_hash(topic.encode(), key.encode()), dict[int, None]()
        for file in reversed(self._files):
            for phy in file.lookup(h, begin_ms, end_ms, limit - len(out)):
                out[phy] = None
            if len(out) >= limit:
                break
        return list(out)

    def truncate(self, offset: int) -> None:
        """Drop the entries of records at or past `offset` (a record boundary), durably."""
        while self._files and self._files[-1].header.begin_phy >= offset and len(self._files) > 1:
            self._files.pop().delete()
            self._dirty_dirs.add(self.directory)
        for file in self._files[:-1]:  # the files before the cut one claim what they hold first
            if file.header != file.durable:
                file.sync(file.header)
        if self._files:
            self._files[-1].cut(offset)
        self._covered = min(self._covered, offset)
        self._sync_dirs()

    def delete_before(self, log_min: int) -> None:
        """Retention: delete the files (never the last) whose records all lie below `log_min`."""
        while len(self._files) > 1 and self._files[0].header.end_phy <= log_min:
            self._files.pop(0).delete()
            self._dirty_dirs.add(self.directory)
        self._sync_dirs()

    def reset(self, offset: int) -> None:
        """Start empty at `offset` (a replica whose log starts there)."""
        for file in self._files:
            file.delete()
        self._files = []
        self._covered = offset
        self._dirty_dirs.add(self.directory)
        self._sync_dirs()

    def flush_begin(self) -> PendingIndexFlush:
        """Under the store lock: the files whose header changed since they were last synced, with the header to
        claim (what was indexed so far)."""
        pending = PendingIndexFlush([(f, f.header) for f in self._files if f.header != f.durable], self._dirty_dirs)
        self._dirty_dirs = set()
        return pending

    def flush_write(self, pending: PendingIndexFlush) -> None:
        """Outside the store lock (see the module docstring): sync each file, then its header."""
        for file, header in pending.files:
            file.sync(header)

    def mark_dirty(self, pending: PendingIndexFlush) -> None:
        """A flush failed: its directories still need their fsyncs (the headers are retried anyway)."""
        self._dirty_dirs |= pending.dirs

    def close(self) -> None:
        for file in self._files:
            file.close()
        self._files = []

    def _roll(self, offset: int) -> IndexFile:
        """A new last file, from the record at `offset` on (the one before it covers the records below)."""
        if self._files:
            last = self._files[-1]
            last.header = replace(last.header, end_phy=offset)
        self._files.append(IndexFile(self.directory / f"{offset:020d}", self.layout, create_at=offset))
        self._dirty_dirs.add(self.directory)
        return self._files[-1]

    def _sync_dirs(self) -> None:
        for directory in self._dirty_dirs:
            fsync_dir(directory)
        self._dirty_dirs = set()
