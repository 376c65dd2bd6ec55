"""The slave's commit-log checks, writes and dispatch, on a thread of their own, so that receiving goes on
meanwhile.

The receiving thread hands each replicated batch over as received (``submit``). This thread appends the batches
in order (``append_replica``: one pass that checks every record, the CRCs in C and without the GIL, then a
``pwrite`` into the page cache, which releases the GIL too) and then raises the confirmOffset to the target the
frames set (``confirm``), which dispatches the new messages to their consume queues. The receiving thread does not
wait for any of it: it receives the next bytes on the other core, acknowledges what is written so far
(``written_to``), and is woken (``wake``) when the writes catch up, so the ack of a batch does not wait for the
next receive. The check runs here rather than on the receiving thread because receiving (a kernel copy per byte)
is the longer half of the work, and because the write that follows the check then reads bytes still in the cache.

A batch may also come already checked (``submit(..., scan)``): a frame that changes the epoch is checked before
the epoch is recorded, so a damaged one changes nothing, not even the epoch file.

What must see the log as written waits for the writes (``drain``): a truncation, an epoch change, the start of
an empty log, the end of a connection. The receive buffer a batch is a view of is not reused until that batch is
written (``release``). When this thread has not taken a batch by the time the receiving thread waits for it, the
waiting thread writes it itself: with every core busy (two slaves and their master on two cores) this thread may
not run for a while, and waiting for it to be scheduled would only add to the write.

Order and all-or-nothing are the store's: batches are appended one at a time, in the order given, each by
``MessageStore.append_replica``, which writes nothing of a batch that fails its check. After a failure nothing
more is written, ``written_to`` stays at the failed batch and no confirmOffset is applied until the failure is
taken (``take_failure``, or raised by ``drain``); the connection closes with it.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Protocol

from agents.store.record import Scan


class AppendTarget(Protocol):
    """The store the batches go to (``MessageStore``)."""

    def append_replica(self, offset: int, data: bytes | memoryview, scan: Scan | None = None) -> None: ...
    def set_confirm_offset(self, offset: int) -> None: ...


_UNKNOWN = 1 << 62  # no batch written since the last truncation: the store clamps the confirmOffset itself


def _views(data: bytes | memoryview, buffer: object) -> bool:
    return isinstance(data, memoryview) and data.obj is buffer


class Appender:
    """One writing thread for one store: ``submit`` batches in log order, ``confirm`` what may be dispatched,
    ``drain`` before relying on the log as written."""

    def __init__(self, store: AppendTarget, name: str, wake: Callable[[], None] = lambda: None) -> None:
        """`wake` is called (on the writing thread) when the batches submitted so far are written, or one failed."""
        self._store = store
        self._wake = wake
        self._changed = threading.Condition()
        self._queue: deque[tuple[int, bytes | memoryview, Scan | None]] = deque()
        self._writing: tuple[int, bytes | memoryview] | None = None  # the batch taken off the queue, being written
        self._confirming = False  # a confirmOffset is being applied
        self._confirm = -1  # the confirmOffset to apply once the batches before it are written ...
        self._confirmed = -1  # ... the last one applied, as far as the log was written then ...
        self._end = _UNKNOWN  # ... which ends here (the last batch written), or where the store says
        self._failure: Exception | None = None
        self._failed_at: int | None = None  # where the batch that failed starts, until its failure is taken
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def submit(self, offset: int, data: bytes | memoryview, scan: Scan | None = None) -> None:
        """Append `data` at `offset` after the batches submitted before, checked on the way (or already, by
        `scan`). `data` must stay unchanged until it is written (``release``, ``drain``). Dropped if an earlier
        batch failed."""
        with self._changed:
            if self._closed:
                raise RuntimeError("the appender is closed")
            if self._failure is None:
                self._queue.append((offset, data, scan))
                self._changed.notify_all()

    def confirm(self, offset: int) -> None:
        """Raise the confirmOffset to `offset` once the batches submitted before are written (a lower value is
        ignored; the store clamps it to the log as written)."""
        with self._changed:
            if offset > self._confirm:
                self._confirm = offset
                self._changed.notify_all()

    def forget_confirm(self) -> None:
        """Drop a confirmOffset not applied yet (before a truncation: it belongs to the log being cut); returns
        once none is being applied."""
        with self._changed:
            while self._confirming:
                self._changed.wait()
            self._confirm = self._confirmed = -1
            self._end = _UNKNOWN

    def written_to(self) -> int | None:
        """Where the log as written ends while batches are still to be written (the offset of the oldest one:
        each starts where the one before ends) or while the failure of one is not taken (its offset); None once
        every batch submitted is written."""
        with self._changed:
            if self._failed_at is not None:
                return self._failed_at
            if self._writing is not None:
                return self._writing[0]
            return self._queue[0][0] if self._queue else None

    def release(self, buffer: object) -> None:
        """Return once no batch still to be written is a view of `buffer`, which the caller then overwrites."""
        with self._changed:
            self._wait_while(lambda: any(_views(data, buffer) for _, data, _ in self._queue))
            while self._writing is not None and _views(self._writing[1], buffer):
                self._changed.wait()

    def drain(self) -> None:
        """Return once every submitted batch is written; raise the first failure (the batches after it were not
        written), after which the appender takes batches again."""
        with self._changed:
            self._wait_while(lambda: bool(self._queue))
            while self._writing is not None:
                self._changed.wait()
            failure, self._failure, self._failed_at = self._failure, None, None
        if failure is not None:
            raise failure

    def take_failure(self) -> Exception | None:
        """The failure of a batch or of a confirmOffset, if one failed (reported once)."""
        with self._changed:
            failure, self._failure, self._failed_at = self._failure, None, None
            return failure

    def close(self) -> None:
        """Stop the thread once the batches submitted are written (or one failed)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _wait_while(self, pending: Callable[[], bool]) -> None:
        """Wait (holding the condition) while `pending`; a batch the thread has not taken is written here."""
        while pending():
            if self._writing is None:
                self._write_next()
            else:
                self._changed.wait()

    def _run(self) -> None:
        """Write a batch, then dispatch up to the confirmOffset as far as written, and again: dispatch keeps up
        with the writes even while the queue never empties."""
        with self._changed:
            while True:
                busy = False
                if self._queue and self._writing is None:
                    self._write_next()
                    busy = True
                if self._confirmable() > self._confirmed and self._failure is None and not self._confirming:
                    self._apply_confirm()
                    busy = True
                if busy:
                    continue
                if self._closed and not self._queue:
                    return
                self._changed.wait()  # nothing to do, or drain is writing a batch

    def _confirmable(self) -> int:
        return min(self._confirm, self._end)

    def _write_next(self) -> None:
        """Write the oldest batch (called holding the condition, which is released during the write)."""
        offset, data, scan = self._queue.popleft()
        self._writing = (offset, data)
        failure = self._unlocked(lambda: self._store.append_replica(offset, data, scan))
        self._writing = None
        if failure is None:
            self._end = offset + len(data)
        else:
            self._failure, self._failed_at = failure, offset
            self._queue.clear()
        self._changed.notify_all()
        if not self._queue:
            self._wake()

    def _apply_confirm(self) -> None:
        """Dispatch up to the confirmOffset target (holding the condition, released meanwhile)."""
        target = self._confirmable()
        self._confirming = True
        failure = self._unlocked(lambda: self._store.set_confirm_offset(target))
        self._confirming = False
        if failure is None:
            self._confirmed = max(self._confirmed, target)
        else:
            self._failure = failure
            self._wake()
        self._changed.notify_all()

    def _unlocked(self, work: Callable[[], None]) -> Exception | None:
        """Run `work` without the condition; returns its failure."""
        self._changed.release()
        try:
            work()
        except Exception as exc:  # any failure must reach the receiving thread, not end the writing one silently
            return exc
        finally:
            self._changed.acquire()
        return None
