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

Appends go to memory; the flush writes them. A queue holds its entries from ``stored`` on in a buffer (reads
answer from it), and ``flush_begin`` / ``flush_write`` / ``flush_end`` put them in the files, creating the
queue's directory and files on the way, and fdatasync them. The receiving thread of a catching-up replica
dispatches to a thousand queues per batch: a ``pwrite`` per queue per batch, and the directory and file of each
new queue, made on that thread, waited behind the flusher's fsyncs on the filesystem journal (an order of
magnitude below the copy; docs/benchmarks.md, round 7). Nothing is lost by this: recovery never trusted entries
the checkpoint does not claim, and the checkpoint claims entries only after the flush that wrote them. A queue
that never got a flush has no directory; a restart dispatches its entries again.

``flush_write`` runs outside the store lock, on the flushing thread, while appends and reads go on: it writes
only at and past ``stored``, which reads take from the buffer until ``flush_end`` moves ``stored`` (under the
lock), and it only adds files. Whatever deletes files or moves ``stored`` back (truncation, retention, closing)
holds the store's flush lock; a mid-queue start (above) happens only in a queue with no entries, so with
nothing to write.
"""

from __future__ import annotations

import errno
import os
import re
import struct
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agents.errors import AgentError
from mqbase.files import fsync_dir

ENTRY = struct.Struct(">qi")
_FILE_NAME = re.compile(r"[0-9]{20}")


class ConsumeQueueError(AgentError, ValueError):
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
    """What ``ConsumeQueue.flush_begin`` took: the entries not yet in the files (`packed`, numbered from `first`)
    and the directories whose entries to fsync (``flush_write`` adds those it creates)."""

    first: int
    packed: bytes
    dirs: set[Path]


class ConsumeQueue:
    """The consume queue stored in `directory` (created by the first flush that has entries for it)."""

    def __init__(self, directory: Path, entries_per_file: int, *, keep_below: int, commit_log_min: int) -> None:
        if entries_per_file < 1:
            raise ValueError(f"entries per file must be positive, not {entries_per_file}")
        self.directory = Path(directory)
        self.entries_per_file = entries_per_file
        self._fds: dict[int, int] = {}  # first queue offset -> fd, ascending
        self._tail = bytearray()  # the packed entries from _stored to _max, not yet in the files
        self._dirty_dirs: set[Path] = set()  # the directories whose entries the next flush makes durable
        self._has_directory = self.directory.is_dir()
        if self._has_directory:
            # A crash of the previous run may have left its directory entries unsynced (parents are shared: the
            # store syncs each once).
            self._dirty_dirs = {self.directory, self.directory.parent, self.directory.parent.parent}
            self._open_files()
        self._first = next(iter(self._fds), 0)  # the first file's first queue offset (or the first file-to-be's)
        self._max = self._stored = self._recover(keep_below) if self._fds else self._first
        self._min = self.first_at_or_after(commit_log_min)

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
        """``append`` each (commit-log offset, size, queue offset) in turn; nothing is added if any would be
        refused."""
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
        self._add(first, b"".join([ENTRY.pack(offset, size) for offset, size, _ in entries]))

    def append_packed(self, commit_log_offset: int, queue_offset: int, packed: bytes) -> None:
        """``append_many`` for entries already packed (``ENTRY`` each) and numbered from `queue_offset` on, the
        first one for the record at `commit_log_offset`: what dispatch's compiled grouping produces."""
        if len(packed) % ENTRY.size:
            raise ValueError(f"{len(packed)} bytes are not whole consume-queue entries")
        problem = self.refusal(commit_log_offset, queue_offset)
        if problem is not None:
            raise ConsumeQueueError(problem)
        self._add(queue_offset, packed)

    def _add(self, first: int, packed: bytes) -> None:
        """Buffer the packed entries numbered from `first` (checked by the caller) for the next flush."""
        if first != self._max:
            self._skip_to(first)
        self._tail += packed
        self._max += len(packed) // ENTRY.size

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
        return list(ENTRY.iter_unpack(self._packed(queue_offset, queue_offset + max_entries)))

    def truncate_from(self, commit_log_offset: int) -> None:
        """Drop the entries of records at or past `commit_log_offset`."""
        cut = self.first_at_or_after(commit_log_offset)
        if cut >= self._stored:
            del self._tail[(cut - self._stored) * ENTRY.size :]
        else:
            self._tail.clear()
            deleted = False
            for start in reversed(list(self._fds)):
                if start >= cut and start != self._first:
                    self._delete_file(start)
                    deleted = True
                elif start <= cut < start + self.entries_per_file:
                    os.ftruncate(self._fds[start], (cut - start) * ENTRY.size)
            if deleted:  # deleted files stay deleted; the shortened one is cut again by recovery after a crash
                fsync_dir(self.directory)
            self._stored = cut
        self._max, self._min = cut, min(self._min, cut)

    def delete_before(self, commit_log_min: int) -> None:
        """Retention: delete the files whose entries all point below `commit_log_min` (never the last file, nor
        one whose entries are not all written yet)."""
        deleted = False
        while len(self._fds) > 1:
            end = self._first + self.entries_per_file
            if end > self._stored or self._entry(end - 1)[0] >= commit_log_min:
                break
            self._delete_file(self._first)
            self._first = end
            deleted = True
        if deleted:
            fsync_dir(self.directory)
        self._min = max(self._min, self.first_at_or_after(commit_log_min))

    def flush(self) -> None:
        """Write and fsync the entries appended and the directory entries made since the last flush (what
        ``MessageStore.flush`` does for every queue, for a queue on its own)."""
        pending = self.flush_begin()
        try:
            self.flush_write(pending)
            for directory in pending.dirs:
                fsync_dir(directory)
        except OSError:
            self.mark_dirty(pending)
            raise
        self.flush_end(pending)

    def flush_begin(self) -> PendingQueueFlush:
        """Take what the next flush writes and syncs (under the store lock): a copy of the buffered entries (the
        buffer grows meanwhile) and the dirty directories. Then ``flush_write`` (outside the lock), fsync
        ``dirs`` and ``flush_end``; or ``mark_dirty`` if anything failed."""
        pending = PendingQueueFlush(self._stored, bytes(self._tail), self._dirty_dirs)
        self._dirty_dirs = set()
        return pending

    def flush_write(self, pending: PendingQueueFlush) -> None:
        """Write `pending`'s entries into the files, creating the directory and files they need (added to
        ``pending.dirs``), and fdatasync them. Outside the store lock: see the module docstring."""
        if not pending.packed:
            return
        if not self._has_directory:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._has_directory = True
            pending.dirs.update((self.directory, self.directory.parent, self.directory.parent.parent))
        view = memoryview(pending.packed)
        queue_offset, i, count = pending.first, 0, len(pending.packed) // ENTRY.size
        written: list[int] = []
        while i < count:
            start = self._file_of(queue_offset)
            fd = self._fds.get(start)
            if fd is None:
                fd = self._create_file(start, pending.dirs)
            n = min(count - i, start + self.entries_per_file - queue_offset)
            part = view[i * ENTRY.size : (i + n) * ENTRY.size]
            if os.pwrite(fd, part, (queue_offset - start) * ENTRY.size) != len(part):
                raise OSError(errno.ENOSPC, f"short write to {self.directory / f'{start:020d}'}")
            written.append(fd)
            queue_offset += n
            i += n
        for fd in written:
            os.fdatasync(fd)

    def flush_end(self, pending: PendingQueueFlush) -> None:
        """`pending` is written and synced (under the store lock): its entries are read from the files now."""
        del self._tail[: len(pending.packed)]
        self._stored += len(pending.packed) // ENTRY.size

    def mark_dirty(self, pending: PendingQueueFlush) -> None:
        """What `pending` held still needs its fsyncs (a write or sync failed); its entries are still buffered,
        and the next flush writes them again in the same places."""
        self._dirty_dirs |= pending.dirs

    def close(self) -> None:
        """Close the files; entries not flushed are dropped (recovery dispatches them again)."""
        fds, self._fds = self._fds, {}
        for fd in fds.values():
            os.close(fd)

    # --- internals ----------------------------------------------------------------------------------

    def _skip_to(self, queue_offset: int) -> None:
        """Make an entry-less queue continue at `queue_offset` (files before its file hold nothing readable)."""
        start = self._file_of(queue_offset)
        if start not in self._fds:
            if self._fds:
                for old in list(self._fds):
                    self._delete_file(old)
                fsync_dir(self.directory)  # a crash must not bring them back next to the file the flush creates
            self._first = start
        self._min = self._max = self._stored = queue_offset

    def _file_of(self, queue_offset: int) -> int:
        return queue_offset - queue_offset % self.entries_per_file

    def _packed(self, queue_offset: int, end: int) -> bytes:
        """The packed entries from `queue_offset` (at least ``min_offset``) up to `end` (at most ``max_offset``):
        from the files below ``stored``, from the buffer at and past it."""
        end = min(end, self._max)
        parts: list[bytes | bytearray] = []
        while queue_offset < end:
            if queue_offset >= self._stored:
                begin = (queue_offset - self._stored) * ENTRY.size
                parts.append(self._tail[begin : (end - self._stored) * ENTRY.size])
                break
            start = self._file_of(queue_offset)
            n = min(end, start + self.entries_per_file, self._stored) - queue_offset
            parts.append(os.pread(self._fds[start], n * ENTRY.size, (queue_offset - start) * ENTRY.size))
            queue_offset += n
        return b"".join(parts)

    def _entry(self, queue_offset: int) -> tuple[int, int]:
        """The entry at `queue_offset`; (0, 0) in the zero hole in front of a mid-queue start, which is in the files
        only once the first entry after it is."""
        if queue_offset >= self._stored:
            return ENTRY.unpack_from(self._tail, (queue_offset - self._stored) * ENTRY.size)
        start = self._file_of(queue_offset)
        fd = self._fds.get(start)
        blob = os.pread(fd, ENTRY.size, (queue_offset - start) * ENTRY.size) if fd is not None else b""
        return ENTRY.unpack(blob) if len(blob) == ENTRY.size else (0, 0)

    def first_at_or_after(self, commit_log_offset: int) -> int:
        """The queue offset of the first stored entry whose record starts at or after `commit_log_offset`."""
        entries = range(self._first, self._max)
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

    def _create_file(self, start: int, dirs: set[Path]) -> int:
        fd = self._fds[start] = os.open(
            self.directory / f"{start:020d}", os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644
        )
        dirs.add(self.directory)
        return fd

    def _delete_file(self, start: int) -> None:
        os.close(self._fds.pop(start))
        os.unlink(self.directory / f"{start:020d}")
