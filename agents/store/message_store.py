"""The broker's message store: commit log + consume queues + checkpoint, gated by the confirmOffset.

Layout under ``root``::

    commitlog/<20-digit offset>                  segments (commitlog.py)
    commitlog/truncate.intent                    only while a truncation is in progress
    consumequeue/<topic>/<queueId>/<20 digits>   consume queues (consume_queue.py)
    index/<20 digits>                            the message index of keys and unique keys (index.py)
    checkpoint                                   flushed offset, confirmOffset, consume-queue offset

Messages reach the consume queues only up to the confirmOffset (Java's ``ReputMessageService``
dispatches up to ``getConfirmOffset()``), so a consumer never reads a message that a failover could still
truncate. ``dispatched`` is the record boundary up to which messages were dispatched; always
``min_offset <= dispatched <= confirm_offset <= last_message_boundary()``.

Queue offsets are numbered by ``put`` and stored in each record, so replicas inherit them with the bytes. The
next offset of each queue is known from the consume queues (up to ``dispatched``) plus the records after it:
dispatch keeps the counters current while it walks the log, and ``put`` first counts the unconfirmed tail it
has not seen (after a role change that is what the slave replicated past its confirmOffset).

Ordering rules that make restarts safe:

* ``flush``: fsync the commit log, then the consume queues, then write the checkpoint, so the checkpoint never
  claims more than the disk holds;
* ``truncate``: lower the checkpoint first, then cut the commit log (crash-safe), then the consume queues, so
  recovery never starts scanning past the cut, and never keeps queue entries of cut records;
* restart: clamp the confirmOffset to ``[min_offset, last_message_boundary()]`` (#6609), drop queue entries
  past the checkpointed consume-queue offset, dispatch again up to the confirmOffset.

The message index is built by the same dispatch, after the queue entries, from the records' properties; it keeps
its own durable point (``MessageIndex.covered_to``) and is caught up from there when the store opens. A flush syncs
it with the consume queues, a truncation cuts it (durably) after them, and retention deletes its files with the
segments they point into.

All public methods hold one lock, so HA threads, consumers and the flusher can share a store. ``flush`` holds it
only to take and record what it syncs, not during the fsyncs (a slave receives and applies while its flusher
waits for the disk); a second lock, the flush lock, keeps flushes apart from one another and from whatever closes
files or rewrites the checkpoint (``truncate``, ``start_at``, ``delete_before``, ``close``). Order: flush lock,
then store lock.
"""

from __future__ import annotations

import bisect
import logging
import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from agents.store.checkpoint import Checkpoint, CheckpointData
from agents.store.commitlog import CommitLog, CommitLogError, OffsetTooSmall
from agents.store.consume_queue import ConsumeQueue, ConsumeQueueError
from agents.store.index import DEFAULT_LAYOUT, Layout, MessageIndex, matches
from agents.store.record import (
    ENTRY,
    TOPICS,
    Entry,
    Message,
    Scan,
    decode_at,
    encode,
    fast_group_entries,
    unpack_entries,
)
from mqbase.files import fsync_dir

log = logging.getLogger(__name__)

DEFAULT_CQ_ENTRIES_PER_FILE = 300_000  # Java mappedFileSizeConsumeQueue / 20 bytes per entry
FSYNC_DELAY_S = float(os.environ.get("MQAGENT_TEST_FSYNC_DELAY_MS", "0")) / 1000
CHECKPOINT_INTERVAL_S = 0.2
"""A lazy flush (a put's, a slave's) syncs the consume queues and writes the checkpoint at most this often."""
"""Testing knob (fault injection: a slow disk): every flush waits this long before its fsyncs. Read once, at start."""


_group_entries = fast_group_entries


def _entry_end(packed: bytearray, k: int) -> int:
    """Where the record of the `k`-th packed entry ends."""
    pos, _, size, _, _ = ENTRY.unpack_from(packed, k * ENTRY.size)
    return int(pos + size)


def clamp_confirm(offset: int, min_offset: int, boundary: int) -> int:
    """A confirmOffset within what the log holds: ``[min_offset, boundary]``."""
    return min(max(offset, min_offset), boundary)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one message of a put landed: its queue, its offset there, and its record's commit-log offset."""

    queue_id: int
    queue_offset: int
    commit_log_offset: int


@dataclass(frozen=True, slots=True)
class Placed:
    """What a put wrote: the log range [start, end) and each message's placement, in the order given."""

    start: int
    end: int
    messages: tuple[Placement, ...]


class MessageStore:
    """The store under `root`; see the module docstring."""

    def __init__(
        self,
        root: Path,
        segment_size: int,
        *,
        cq_entries_per_file: int = DEFAULT_CQ_ENTRIES_PER_FILE,
        index: Layout | None = DEFAULT_LAYOUT,
    ) -> None:
        """`index`: the message index's file layout, or None for a store without one (a benchmark's baseline)."""
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._flush_lock = threading.RLock()  # see the module docstring; taken before self._lock
        self._checkpointed_at = 0.0  # monotonic time of the last flush that wrote the queues and the checkpoint
        self._checkpoint = Checkpoint(self.root / "checkpoint")
        self._saved = self._checkpoint.load()
        self._log = CommitLog(self.root / "commitlog", segment_size, recover_from=self._saved.flushed_offset)
        self._confirm = clamp_confirm(
            self._saved.confirm_offset, self._log.min_offset, self._log.last_message_boundary()
        )
        self._dispatched = max(min(self._saved.consume_queue_offset, self._confirm), self._log.min_offset)
        self._cq_root = self.root / "consumequeue"
        self._cq_entries = cq_entries_per_file
        self._queues: dict[tuple[str, int], ConsumeQueue] = {}
        self._cq_root.mkdir(exist_ok=True)
        for topic_dir in sorted(self._cq_root.iterdir()):
            for queue_dir in sorted(topic_dir.iterdir()):
                if not queue_dir.name.isdigit():
                    log.warning("message store %s: ignoring %s (not a queue id)", self.root, queue_dir)
                    continue
                self._queue(topic_dir.name, int(queue_dir.name))
        # Persist a clamp at once: records appended after a cut tail must not inherit the old confirmOffset.
        self._save(CheckpointData(self._saved.flushed_offset, self._confirm, self._dispatched))
        self._next_queue_offset: dict[tuple[str, int], int] = {}
        self._counted = 0  # records below this commit-log offset are reflected in _next_queue_offset
        self._scanned = bytearray()  # packed entries (record.ENTRY) of the replicated records from dispatched on ...
        self._scanned_to: int | None = None  # ... up to this boundary; None: not kept, dispatch reads the log
        self._truncations: list[int] = []  # the boundaries ``truncate`` cut back to, in order, since opening
        self._index = (
            MessageIndex(
                self.root / "index", index, log_min=self._log.min_offset, log_boundary=self._log.last_message_boundary()
            )
            if index is not None
            else None
        )
        self._reset_counters()
        self._index_up_to(self._dispatched)
        self._dispatch()
        self._closed = False

    # --- offsets ------------------------------------------------------------------------------------

    @property
    def segment_size(self) -> int:
        return self._log.segment_size

    @property
    def min_offset(self) -> int:
        """The first commit-log offset still stored."""
        with self._lock:
            return self._log.min_offset

    @property
    def max_offset(self) -> int:
        """The commit log's next write position."""
        with self._lock:
            return self._log.max_offset

    @property
    def confirm_offset(self) -> int:
        """Messages ending at or below this offset are visible to consumers."""
        with self._lock:
            return self._confirm

    def confirmed_boundary(self) -> int:
        """The end of the last complete record at or below the confirmOffset. Slaves acknowledge partial records,
        so the confirmOffset may fall inside one, and a slave promoted with that partial record cuts it: what is
        derived from the confirmed log (a consumer-state snapshot) stops at this boundary instead."""
        with self._lock:
            return self._log.boundary_at_or_below(self._confirm)

    def truncations(self) -> list[int]:
        """The boundaries the log was cut back to since it was opened, oldest first: a reader that holds state
        derived from the log (a consumer-state snapshot) checks whether a cut fell below what it derived it from."""
        with self._lock:
            return list(self._truncations)

    def last_message_boundary(self) -> int:
        """The end of the last complete record (below ``max_offset`` while a replica holds a partial one)."""
        with self._lock:
            return self._log.last_message_boundary()

    # --- writing ------------------------------------------------------------------------------------

    def put(self, messages: Sequence[Message]) -> Placed:
        """Append `messages` (not flushed; not visible until confirmed); returns where they went.

        Each message gets the next offset of its queue (any ``queue_offset`` passed in is replaced). RecordError,
        with nothing written, if any message breaks a format rule.
        """
        with self._lock:
            self._count_tail()
            numbered = dict(self._next_queue_offset)
            records, queue_offsets = [], []
            for m in messages:
                key = (m.topic, m.queue_id)
                queue_offsets.append(numbered.get(key, 0))
                records.append(encode(replace(m, queue_offset=queue_offsets[-1])))
                numbered[key] = queue_offsets[-1] + 1
            at = self._log.append(b"".join(records))
            self._forget_scanned()
            self._next_queue_offset = numbered
            self._counted = self._log.last_message_boundary()
            placed = tuple(map(Placement, (m.queue_id for m in messages), queue_offsets, at))
            return Placed(at[0] if at else self._log.max_offset, self._log.max_offset, placed)

    def scan_replica(self, offset: int, data: bytes | memoryview) -> Scan:
        """Check replicated bytes before anything is applied (``CommitLog.scan_replicated``); RecordError if bad."""
        with self._lock:
            return self._log.scan_replicated(offset, data)

    def append_replica(self, offset: int, data: bytes | memoryview, scan: Scan | None = None) -> None:
        """Replication: the master's raw commit-log bytes at `offset` (which must be ``max_offset``), checked
        by `scan` from ``scan_replica`` (or here); the entries it found are kept for dispatch."""
        with self._lock:
            start = self._log.last_message_boundary()
            scan = self._log.append_at(offset, data, scan)
            if self._scanned_to is None and start == self._dispatched:
                self._scanned_to = start
            if self._scanned_to == start:
                self._scanned += scan.entries
                self._scanned_to = scan.boundary
            else:
                self._forget_scanned()

    def start_at(self, offset: int) -> None:
        """An empty replica begins its log at the master's segment-aligned `offset`."""
        with self._flush_lock, self._lock:
            self._log.start_at(offset)
            for queue in self._queues.values():
                queue.delete_before(offset)
            if self._index is not None:
                self._index.reset(self._log.min_offset)
            self._confirm = self._dispatched = self._log.min_offset
            self._reset_counters()
            self._forget_scanned()

    def set_confirm_offset(self, offset: int) -> None:
        """Raise the confirmOffset (clamped to ``[min_offset, last_message_boundary()]``) and dispatch up to it.

        A lower value is ignored: only ``truncate`` moves it back. Persisted by the next ``flush``; read the value
        in force from ``confirm_offset``.
        """
        with self._lock:
            target = clamp_confirm(offset, self._log.min_offset, self._log.last_message_boundary())
            if target > self._confirm:
                self._confirm = target
                self._dispatch()

    def flush(self, *, lazy: bool = False) -> None:
        """Make everything written before the call durable, then checkpoint the offsets.

        The store lock is held only to take what to sync and to record it: appends, dispatch and reads go on
        while the consume queues' buffered entries are written and everything is synced, and what they add is left
        to the next flush. On an error (OSError) the checkpoint is not written, and the next flush writes and syncs
        again what this one did not finish.

        `lazy` (the put path and a slave's flusher): the commit log is synced, and the consume queues and the
        checkpoint only if CHECKPOINT_INTERVAL_S passed since they last were, so a put costs one sync instead of
        four. What they miss is what recovery redoes anyway: the checkpoint then claims less than the disk holds
        (never more), and the queue entries past it are dispatched again from the log.
        """
        with self._flush_lock:
            now = time.monotonic()
            full = not lazy or now - self._checkpointed_at >= CHECKPOINT_INTERVAL_S
            with self._lock:
                log_part = self._log.flush_begin()
                queue_parts = [(queue, queue.flush_begin()) for queue in self._queues.values()] if full else []
                index_part = self._index.flush_begin() if full and self._index is not None else None
                data = CheckpointData(self._log.last_message_boundary(), self._confirm, self._dispatched)
            try:
                if FSYNC_DELAY_S:
                    time.sleep(FSYNC_DELAY_S)
                log_part.sync()
                for queue, pending in queue_parts:
                    queue.flush_write(pending)
                if index_part is not None and self._index is not None:
                    self._index.flush_write(index_part)
                index_dirs = index_part.dirs if index_part is not None else set()
                for directory in index_dirs.union(*(pending.dirs for _, pending in queue_parts)):  # shared parents once
                    fsync_dir(directory)
            except OSError:
                log_part.close()  # the commit log's flushed offset stays where it was
                with self._lock:
                    for queue, pending in queue_parts:
                        queue.mark_dirty(pending)
                    if index_part is not None and self._index is not None:
                        self._index.mark_dirty(index_part)
                raise
            log_part.close()
            with self._lock:
                self._log.flush_end(log_part)
                for queue, pending in queue_parts:
                    queue.flush_end(pending)
            if full:
                self._save(data)  # the checkpoint is the flush lock's: only flush, truncate and __init__ write it
                self._checkpointed_at = now

    def truncate(self, offset: int) -> None:
        """Cut the commit log back to `offset`, with the queue entries and the confirmOffset past it (crash-safe)."""
        with self._flush_lock, self._lock:
            if offset >= self._log.max_offset:
                return
            if offset < self._log.min_offset:
                raise ValueError(f"cannot truncate to {offset}, below the minimum offset {self._log.min_offset}")
            boundary = self._log.boundary_at_or_below(offset)
            confirm = min(self._confirm, boundary)
            dispatched = min(self._dispatched, confirm)
            saved = self._saved
            self._save(
                CheckpointData(
                    min(saved.flushed_offset, boundary),
                    min(saved.confirm_offset, confirm),
                    min(saved.consume_queue_offset, dispatched),
                )
            )
            self._log.truncate(offset)
            for queue in self._queues.values():
                queue.truncate_from(dispatched)
            if self._index is not None:
                self._index.truncate(dispatched)
            self._confirm, self._dispatched = confirm, dispatched
            self._truncations.append(boundary)
            self._reset_counters()
            self._forget_scanned()

    def delete_before(self, offset: int) -> int:
        """Retention: delete commit-log segments wholly below `offset` (never undispatched ones) and the queue
        entries pointing into them; returns the new minimum offset. Flushes first: a queue deletes only files that
        hold all their entries."""
        with self._flush_lock:
            self.flush()
            with self._lock:
                new_min = self._log.delete_segments_before(min(offset, self._dispatched))
                for queue in self._queues.values():
                    queue.delete_before(new_min)
                if self._index is not None:
                    self._index.delete_before(new_min)
                return new_min

    def segment_times(self) -> list[tuple[int, int]]:
        """(start, last write in ms since the epoch) of every commit-log segment, oldest first."""
        with self._lock:
            return self._log.segment_times()

    def close(self) -> None:
        """Flush and close (idempotent)."""
        with self._flush_lock, self._lock:
            if self._closed:
                return
            self.flush()
            self._closed = True
            for queue in self._queues.values():
                queue.close()
            if self._index is not None:
                self._index.close()
            self._log.close()

    def __enter__(self) -> MessageStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading ------------------------------------------------------------------------------------

    def consume(self, topic: str, queue_id: int, queue_offset: int, max_messages: int) -> list[tuple[int, Message]]:
        """Up to `max_messages` confirmed messages of the queue from `queue_offset`, as (queue offset, message).

        OffsetTooSmall (with ``min_offset``) below the queue's first readable offset; empty at or past its end.
        """
        if queue_offset < 0 or max_messages < 0:
            raise ValueError(f"queue offset {queue_offset} and max messages {max_messages} must not be negative")
        with self._lock:
            queue = self._queues.get((topic, queue_id))
            if queue is None:
                return []
            if queue_offset < queue.min_offset:
                raise OffsetTooSmall(queue_offset, queue.min_offset, f"queue offset of {topic}/{queue_id}")
            out: list[tuple[int, Message]] = []
            for i, (offset, size) in enumerate(queue.read(queue_offset, max_messages)):
                out.append(
                    (queue_offset + i, self._record(offset, size, f"{topic}/{queue_id} entry {queue_offset + i}"))
                )
            return out

    def records_from(self, topic: str, queue_id: int, from_offset: int, limit: int) -> list[tuple[int, int, Message]]:
        """Up to `limit` records of one queue that start at or after commit-log offset `from_offset`, confirmed or
        not, in log order, as (commit-log offset, size, message): found through the consume queue below the
        dispatch point and by a scan of the log past it. Records below the log's minimum are gone and skipped.

        For readers of a whole queue's history across a role change (the consumer-state rebuild), which must see
        the unconfirmed tail a new master keeps; a page at a time, so the store lock is never held for long.
        """
        out: list[tuple[int, int, Message]] = []
        with self._lock:
            queue = self._queues.get((topic, queue_id))
            if queue is not None and from_offset < self._dispatched:
                first = max(queue.first_at_or_after(from_offset), queue.min_offset)
                for offset, size in queue.read(first, limit):
                    out.append((offset, size, self._record(offset, size, f"{topic}/{queue_id}")))
            start = max(from_offset, self._dispatched, self._log.min_offset)
            if len(out) < limit:
                for offset, header, size in self._log.iter_headers(start, self._log.last_message_boundary()):
                    if header.topic == topic and header.queue_id == queue_id:
                        out.append((offset, size, self._record(offset, size, f"{topic}/{queue_id}")))
                        if len(out) == limit:
                            break
            return out

    def find_by_key(
        self, topic: str, key: str, *, unique: bool, begin_ms: int, end_ms: int, limit: int
    ) -> list[tuple[int, int, Message]]:
        """Up to `limit` dispatched messages of `topic` with `key` among their KEYS (or as their UNIQ_KEY with
        `unique`) stored within ``[begin_ms, end_ms]``, newest first, as (commit-log offset, size, message); empty
        without an index."""
        with self._lock:
            if self._index is None or limit <= 0:
                return []
            out = []
            for offset in self._index.lookup(topic, key, begin_ms, end_ms, 4 * limit + 16):  # room for collisions
                found = self.message_at(offset)
                if found is not None and matches(topic, key, unique, found[1], begin_ms, end_ms):
                    out.append((offset, *found))
                    if len(out) == limit:
                        break
            return out

    def message_at(self, offset: int) -> tuple[int, Message] | None:
        """(size, message) of the dispatched record starting at commit-log offset `offset`, or None (no record
        starts there, it is not confirmed yet, or retention deleted it)."""
        with self._lock:
            if not self._log.min_offset <= offset < self._dispatched:
                return None
            head = self._log.read(offset, 4)
            size = int.from_bytes(head, "big", signed=True) if len(head) == 4 else 0
            if not 0 < size <= self._dispatched - offset:
                return None
            found = decode_at(self._log.read(offset, size), 0)
            return (size, found[0]) if found is not None and found[1] == size else None

    def queue_entries(self, topic: str, queue_id: int, queue_offset: int, count: int) -> list[tuple[int, int, int]]:
        """Up to `count` consume-queue entries of a queue from `queue_offset` (clamped to its first readable one), as
        (queue offset, commit-log offset, size)."""
        with self._lock:
            queue = self._queues.get((topic, queue_id))
            if queue is None or count <= 0:
                return []
            first = max(queue_offset, queue.min_offset)
            return [(first + i, offset, size) for i, (offset, size) in enumerate(queue.read(first, count))]

    def _record(self, offset: int, size: int, where: str) -> Message:
        found = decode_at(self._log.read(offset, size), 0)
        if found is None or found[1] != size:
            raise CommitLogError(f"{where}: no intact {size}-byte record at commit-log offset {offset}")
        return found[0]

    def queue_range(self, topic: str, queue_id: int) -> tuple[int, int]:
        """(first readable, next) queue offset of a queue; (0, 0) for a queue that never had a message."""
        with self._lock:
            queue = self._queues.get((topic, queue_id))
            return (queue.min_offset, queue.max_offset) if queue else (0, 0)

    def queue_ids(self, topic: str) -> list[int]:
        """The ids of the queues of `topic` this store holds (any that ever had a message dispatched), sorted."""
        with self._lock:
            return sorted(q for t, q in self._queues if t == topic)

    def read(self, offset: int, size: int) -> bytes:
        """Raw commit-log bytes (replica comparisons, raw pulls); OffsetTooSmall below the minimum."""
        with self._lock:
            return self._log.read(offset, size)

    def open_segment(self, offset: int) -> tuple[int, int, int]:
        """Like ``segment_view`` but with a duplicate descriptor, taken under the store lock, that the caller
        closes: retention may close the segment's own descriptor while a sendfile is still using it."""
        with self._lock:
            fd, position, readable = self._log.segment_view(offset)
            return os.dup(fd), position, readable

    def segment_view(self, offset: int) -> tuple[int, int, int]:
        """(fd, position, readable bytes) of the commit log at `offset`, for os.sendfile (see CommitLog)."""
        with self._lock:
            return self._log.segment_view(offset)

    # --- internals ----------------------------------------------------------------------------------

    def _queue(self, topic: str, queue_id: int) -> ConsumeQueue:
        queue = self._queues.get((topic, queue_id))
        if queue is None:
            queue = ConsumeQueue(
                self._cq_root / topic / str(queue_id),
                self._cq_entries,
                keep_below=self._dispatched,
                commit_log_min=self._log.min_offset,
            )
            self._queues[(topic, queue_id)] = queue
        return queue

    def _dispatch(self) -> None:
        """Dispatch up to the confirmOffset: the queue entries, then the message index of what they reached."""
        try:
            self._dispatch_queues()
        finally:
            self._index_up_to(self._dispatched)

    def _index_up_to(self, boundary: int) -> None:
        """Index the records from where the message index stands up to `boundary` (read from the log), a segment
        at a time (a segment starts at a record boundary), so that a long catch-up holds one segment's keys."""
        index = self._index
        while index is not None and index.covered_to < boundary:
            start = max(index.covered_to, self._log.min_offset)
            end = min(boundary, start - start % self._log.segment_size + self._log.segment_size)
            index.add(self._log.key_entries(start, end, index.layout.entries), end)

    def _dispatch_queues(self) -> None:
        """Add the queue entries of the messages between ``dispatched`` and the confirmOffset: those the
        replication scan kept, else read from the log; one write per queue."""
        entries: Iterable[Entry]
        if self._scanned_to is not None and self._confirm <= self._scanned_to:
            packed = self._take_scanned(self._confirm)
            if self._dispatch_grouped(packed):
                return
            entries = unpack_entries(packed)
        else:
            entries = (
                (offset, size, h.topic, h.queue_id, h.queue_offset)
                for offset, h, size in self._log.iter_headers(self._dispatched, self._confirm)
            )
        batches: dict[tuple[str, int], list[tuple[int, int, int]]] = {}
        problem = None
        dispatched = self._dispatched
        for offset, size, topic, queue_id, queue_offset in entries:
            key = (topic, queue_id)
            batch = batches.get(key)
            if batch is None:
                batch = batches[key] = []
                problem = self._queue(topic, queue_id).refusal(offset, queue_offset)
            elif queue_offset != batch[-1][2] + 1:
                problem = self._queues[key].refusal(offset, queue_offset, batch[-1][2] + 1)
            if problem is not None:
                self._forget_scanned()
                break
            batch.append((offset, size, queue_offset))
            dispatched = offset + size
        self._dispatched = dispatched
        for key, batch in batches.items():
            if batch:
                last_offset, _, last_queue_offset = batch[-1]
                if last_offset >= self._counted:  # records below _counted were numbered by put already
                    self._next_queue_offset[key] = last_queue_offset + 1
                self._queues[key].append_many(batch)
        self._counted = max(self._counted, self._dispatched)
        if problem is not None:
            raise ConsumeQueueError(problem)

    def _dispatch_grouped(self, packed: bytes) -> bool:
        """``_dispatch``'s loop in one call to the compiled grouping (``fastpath``), when it is built and every
        entry follows on in its queue; False (nothing done) otherwise, and the loop, which names any problem, runs.
        """
        if _group_entries is None or not packed:
            return False
        runs, reached = _group_entries(packed, TOPICS.names)
        if reached < len(packed) // ENTRY.size:
            return False
        for topic, queue_id, first_offset, first_queue_offset, _, _, _ in runs:
            if self._queue(topic, queue_id).refusal(first_offset, first_queue_offset) is not None:
                return False
        for topic, queue_id, first_offset, first_queue_offset, count, last_offset, cq_entries in runs:
            if last_offset >= self._counted:  # records below _counted were numbered by put already
                self._next_queue_offset[(topic, queue_id)] = first_queue_offset + count
            self._queues[(topic, queue_id)].append_packed(first_offset, first_queue_offset, cq_entries)
        last_offset, _, last_size, _, _ = ENTRY.unpack_from(packed, len(packed) - ENTRY.size)
        self._dispatched = last_offset + last_size
        self._counted = max(self._counted, self._dispatched)
        return True

    def _take_scanned(self, limit: int) -> bytes:
        """Take the kept entries of the records ending at or below `limit` (they are in log order)."""
        scanned = self._scanned
        count = len(scanned) // ENTRY.size
        taken = bisect.bisect_right(range(count), limit, key=lambda k: _entry_end(scanned, k))
        packed = bytes(scanned[: taken * ENTRY.size])
        del scanned[: taken * ENTRY.size]  # a bytearray drops its front without moving the rest
        return packed

    def _forget_scanned(self) -> None:
        self._scanned.clear()
        self._scanned_to = None

    def _count_tail(self) -> None:
        """Bring the queue counters up to the last record (the part of the log dispatch has not reached)."""
        for _, header, _ in self._log.iter_headers(self._counted, self._log.last_message_boundary()):
            self._next_queue_offset[(header.topic, header.queue_id)] = header.queue_offset + 1
        self._counted = max(self._counted, self._log.last_message_boundary())

    def _reset_counters(self) -> None:
        """Counters as the consume queues (which end at ``dispatched``) say; the tail is counted again."""
        self._next_queue_offset = {key: queue.max_offset for key, queue in self._queues.items()}
        self._counted = self._dispatched

    def _save(self, data: CheckpointData) -> None:
        if data != self._saved:
            self._checkpoint.save(data)
            self._saved = data
