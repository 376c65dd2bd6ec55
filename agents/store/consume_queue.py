"""A consume queue: for one (topic, queueId), where each dispatched message lies in the commit log.

Files ``<directory>/<20-digit queue offset of the first entry>``, each holding up to ``entries_per_file``
entries (big-endian)::

    +------------------------------+--------------+
    | commitLogOffset i64          | size i32     |     12 bytes; entry i has queue offset i
    +------------------------------+--------------+

Queue offsets come from the records (the master numbers them at put time), so a replica whose log starts in
the middle of a queue starts that queue at the first record's offset: the entries before it are a zero hole
(size 0) below ``min_offset``. Files grow by appending (no preallocation), so a torn entry shows as a short
file and a lost one as a short or zero-filled tail. Truncation and recovery keep the first file; retention
deletes from the front.

Recovery trusts only the entries of records below ``keep_below``, the checkpoint's consumeQueueOffset (they
were fsynced before the checkpoint said so). It drops everything after them (torn entries, zeros, entries
dispatched but never checkpointed) and the caller dispatches those records again from the commit log, in
the same order, so they get the same queue offsets back.

Directory entries (a new queue's directories, a new file, recovery's cuts) are made durable by the next flush,
with the entries, not when they are made: the checkpoint claims entries only after that flush, and until then
recovery does not trust them anyway. A catching-up replica creates queues by the thousand; an fsync of three
directories for each, on the thread that receives the log, would queue behind every flush.
"""

from __future__ import annotations

import os
import re
import struct
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agents.store.checkpoint import duplicates, fsync_dir

ENTRY = struct.Struct(">qi")
_FILE_NAME = re.compile(r"[0-9]{20}")


class ConsumeQueueError(ValueError):
    """Consume-queue files that do not fit together (a gap, or ``entries_per_file`` changed), or a record whose
    queue offset does not follow on (a ValueError: the HA client closes the connection that brought it)."""


def kept_entries(blob: bytes, keep_below: int) -> int:
    """How many leading entries of a file's content recovery keeps: it walks back from the end over entries that
    are torn, zero, or of records at or past `keep_below` (entries are in commit-log order)."""
    n = len(blob) // ENTRY.size
    while n:
        offset, size = ENTRY.unpack_from(blob, (n - 1) * ENTRY.size)
        if 0 <= offset < keep_below and size > 0:
            break
        n -= 1
    return n


@dataclass(frozen=True)
class PendingQueueFlush:
    """What ``ConsumeQueue.flush_begin`` took: the files to fdatasync (their first queue offsets and duplicate
    descriptors) and the directories to fsync."""

    starts: list[int]
    fds: tuple[int, ...]
    dirs: set[Path]

    def sync(self) -> None:
        self.sync_files()
        for directory in self.dirs:
            fsync_dir(directory)

    def sync_files(self) -> None:
        """Only the files: a store syncs the directories of all its queues at once (they share parents)."""
        for fd in self.fds:
            os.fdatasync(fd)

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)


class ConsumeQueue:
    """The consume queue stored in `directory` (created if missing)."""

    def __init__(self, directory: Path, entries_per_file: int, *, keep_below: int, commit_log_min: int) -> None:
        if entries_per_file < 1:
            raise ValueError(f"entries per file must be positive, not {entries_per_file}")
        self.directory = Path(directory)
        self.entries_per_file = entries_per_file
        self._fds: dict[int, int] = {}  # first queue offset -> fd, ascending
        self._dirty: set[int] = set()
        # The directories whose entries the next flush makes durable: this one and its parents, always, because
        # a crash of the previous run may have left their entries unsynced (they are shared, the store dedupes).
        self._dirty_dirs = {self.directory, self.directory.parent, self.directory.parent.parent}
        self.directory.mkdir(parents=True, exist_ok=True)
        self._open_files()
        self._max = self._recover(keep_below)
        self._min = self._first_at_or_after(commit_log_min)

    @property
    def min_offset(self) -> int:
        """The first queue offset still readable (older entries point at deleted commit-log data)."""
        return self._min

    @property
    def max_offset(self) -> int:
        """The queue offset the next entry gets."""
        return self._max

    def append(self, commit_log_offset: int, size: int, queue_offset: int) -> None:
        """Add the entry of the next dispatched message, which the record numbers `queue_offset`.

        That must be ``max_offset``, or any later offset while the queue holds no readable entry (a replica
        starting mid-queue); anything else means the log and the queue disagree: ConsumeQueueError.
        """
        self.append_many([(commit_log_offset, size, queue_offset)])

    def append_many(self, entries: Sequence[tuple[int, int, int]]) -> None:
        """``append`` each (commit-log offset, size, queue offset) in turn, with one write per file; nothing is
        written if any would be refused."""
        if not entries:
            return
        first = entries[0][2]
        problem = self.refusal(entries[0][0], first)
        if problem is None:
            for k, (offset, _, queue_offset) in enumerate(entries):
                if queue_offset != first + k:
                    problem = self.refusal(offset, queue_offset, first + k)
                    break
        if problem is not None:
            raise ConsumeQueueError(problem)
        self._write(first, b"".join([ENTRY.pack(offset, size) for offset, size, _ in entries]))

    def append_packed(self, commit_log_offset: int, queue_offset: int, packed: bytes) -> None:
        """``append_many`` for entries already packed (``ENTRY`` each) and numbered from `queue_offset` on, the
        first one for the record at `commit_log_offset`: what dispatch's compiled grouping produces."""
        if len(packed) % ENTRY.size:
            raise ValueError(f"{len(packed)} bytes are not whole consume-queue entries")
        problem = self.refusal(commit_log_offset, queue_offset)
        if problem is not None:
            raise ConsumeQueueError(problem)
        self._write(queue_offset, packed)

    def _write(self, first: int, packed: bytes) -> None:
        """Write the packed entries numbered from `first` (checked by the caller), one ``pwrite`` per file."""
        if first != self._max:
            self._skip_to(first)
        view = memoryview(packed)
        i, count = 0, len(packed) // ENTRY.size
        while i < count:
            last = next(reversed(self._fds))
            if self._max == last + self.entries_per_file:
                self._create_file(self._max)
                last = self._max
            n = min(count - i, last + self.entries_per_file - self._max)
            os.pwrite(self._fds[last], view[i * ENTRY.size : (i + n) * ENTRY.size], (self._max - last) * ENTRY.size)
            self._dirty.add(last)
            self._max += n
            i += n

    def refusal(self, commit_log_offset: int, queue_offset: int, next_offset: int | None = None) -> str | None:
        """Why the entry of the record at `commit_log_offset`, numbered `queue_offset`, cannot come next (after
        this queue's entries, or after a batch about to be appended whose next number is `next_offset`), or None.
        """
        if next_offset is None:
            if queue_offset == self._max or (queue_offset > self._max and self._min == self._max):
                return None
            next_offset = self._max
        elif queue_offset == next_offset:
            return None
        return (
            f"{self.directory}: the record at commit-log offset {commit_log_offset} has queue offset "
            f"{queue_offset}, but the queue's next offset is {next_offset}"
        )

    def read(self, queue_offset: int, max_entries: int) -> list[tuple[int, int]]:
        """Up to `max_entries` (commit-log offset, size) entries from `queue_offset` (at least ``min_offset``)."""
        end = min(self._max, queue_offset + max_entries)
        out: list[tuple[int, int]] = []
        while queue_offset < end:
            start = self._file_of(queue_offset)
            n = min(end, start + self.entries_per_file) - queue_offset
            blob = os.pread(self._fds[start], n * ENTRY.size, (queue_offset - start) * ENTRY.size)
            out.extend((int(o), int(s)) for o, s in ENTRY.iter_unpack(blob))
            queue_offset += n
        return out

    def truncate_from(self, commit_log_offset: int) -> None:
        """Drop the entries of records at or past `commit_log_offset`."""
        cut = self._first_at_or_after(commit_log_offset)
        first = next(iter(self._fds))
        for start in reversed(list(self._fds)):
            if start >= cut and start != first:
                self._delete_file(start)
            elif start <= cut < start + self.entries_per_file:
                os.ftruncate(self._fds[start], (cut - start) * ENTRY.size)
        fsync_dir(self.directory)  # deleted files stay deleted; the shortened one is rebuilt if a crash undoes it
        self._max, self._min = cut, min(self._min, cut)

    def delete_before(self, commit_log_min: int) -> None:
        """Retention: delete the files whose entries all point below `commit_log_min` (never the last file)."""
        deleted = False
        while len(self._fds) > 1:
            first = next(iter(self._fds))
            if self._entry(first + self.entries_per_file - 1)[0] >= commit_log_min:
                break
            self._delete_file(first)
            deleted = True
        if deleted:
            fsync_dir(self.directory)
        self._min = max(self._min, self._first_at_or_after(commit_log_min))

    def flush(self) -> None:
        """fsync the entries appended and the directory entries made since the last flush."""
        pending = self.flush_begin()
        try:
            pending.sync()
        except OSError:
            self.mark_dirty(pending)
            raise
        finally:
            pending.close()

    def flush_begin(self) -> PendingQueueFlush:
        """What ``flush`` syncs, taken now so the fsyncs need not block appends: the files written since the last
        flush (no longer marked) with a duplicate descriptor of each, and the directories to fsync. The caller
        syncs and closes it; if a sync fails, it marks everything again (``mark_dirty``) for the next flush."""
        starts = sorted(self._dirty & self._fds.keys())
        pending = PendingQueueFlush(starts, duplicates(self._fds[start] for start in starts), self._dirty_dirs)
        self._dirty, self._dirty_dirs = set(), set()
        return pending

    def mark_dirty(self, pending: PendingQueueFlush) -> None:
        """What `pending` held still needs its fsyncs (its sync failed)."""
        self._dirty.update(start for start in pending.starts if start in self._fds)
        self._dirty_dirs |= pending.dirs

    def close(self) -> None:
        fds, self._fds = self._fds, {}
        for fd in fds.values():
            os.close(fd)

    # --- internals ----------------------------------------------------------------------------------

    def _skip_to(self, queue_offset: int) -> None:
        """Make an entry-less queue continue at `queue_offset` (files before its file hold nothing readable)."""
        start = self._file_of(queue_offset)
        if start not in self._fds:
            for old in list(self._fds):
                self._delete_file(old)
            self._create_file(start)  # a crash in between reopens as an empty queue, and dispatch skips again
        self._min = self._max = queue_offset

    def _file_of(self, queue_offset: int) -> int:
        return queue_offset - queue_offset % self.entries_per_file

    def _entry(self, queue_offset: int) -> tuple[int, int]:
        start = self._file_of(queue_offset)
        offset, size = ENTRY.unpack(os.pread(self._fds[start], ENTRY.size, (queue_offset - start) * ENTRY.size))
        return int(offset), int(size)

    def _first_at_or_after(self, commit_log_offset: int) -> int:
        """The queue offset of the first stored entry whose record starts at or after `commit_log_offset`."""
        entries = range(next(iter(self._fds)), self._max)
        return entries.start + bisect_left(entries, commit_log_offset, key=self._entry_offset)

    def _entry_offset(self, queue_offset: int) -> int:
        """The commit-log offset an entry points at; -1 for the zero hole in front of a mid-queue start."""
        offset, size = self._entry(queue_offset)
        return offset if size else -1

    def _open_files(self) -> None:
        starts = sorted(int(p.name) for p in self.directory.iterdir() if _FILE_NAME.fullmatch(p.name))
        for i, start in enumerate(starts):
            if start % self.entries_per_file or (i and start != starts[i - 1] + self.entries_per_file):
                raise ConsumeQueueError(
                    f"{self.directory}: file {start:020d} does not follow on from the one before it with "
                    f"{self.entries_per_file} entries per file"
                )
        for start in starts:
            self._fds[start] = os.open(self.directory / f"{start:020d}", os.O_RDWR | os.O_CLOEXEC)
        if not self._fds:
            self._create_file(0)

    def _recover(self, keep_below: int) -> int:
        """Cut the untrusted tail (see the module docstring); returns the next queue offset."""
        starts = list(self._fds)
        while True:
            start = starts.pop()
            fd = self._fds[start]
            blob = os.pread(fd, os.fstat(fd).st_size, 0)
            if len(blob) > self.entries_per_file * ENTRY.size:
                self.close()
                raise ConsumeQueueError(f"{self.directory}: file {start:020d} holds more than {self.entries_per_file}")
            kept = kept_entries(blob, keep_below)
            if kept == 0 and starts:  # never delete the first file: it keeps the queue's base offset
                self._delete_file(start)
                continue
            if kept * ENTRY.size != len(blob):
                os.ftruncate(fd, kept * ENTRY.size)
            return start + kept  # the cuts need no fsync: after a crash, recovery makes them again

    def _create_file(self, start: int) -> None:
        self._fds[start] = os.open(
            self.directory / f"{start:020d}", os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644
        )
        self._dirty_dirs.add(self.directory)

    def _delete_file(self, start: int) -> None:
        self._dirty.discard(start)
        os.close(self._fds.pop(start))
        os.unlink(self.directory / f"{start:020d}")
