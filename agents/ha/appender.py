"""The slave's commit-log writes, on a thread of their own: writing one batch overlaps checking the next.

A replicated batch is checked on the receiving thread (``MessageStore.scan_replica``, the CRCs in C), then
handed here. Its ``pwrite`` into the page cache is the largest single cost of a batch (a kernel copy and the
page-cache pages it allocates) and releases the GIL, so it runs on the other core while the receiving thread
checks the batches received with it. The receiving thread waits for the writes (``drain``) before anything
that must see the log as written: the ack, the confirmOffset, a truncation, an epoch change, and the next
receive into the buffer the batches are views of.

When the thread has not taken a batch by the time the receiving thread needs it written, ``drain`` writes it
itself: with every core busy the overlap cannot happen, and waiting for the thread to be scheduled would only
add to the write.

Order and all-or-nothing are the store's: batches are appended one at a time, in the order given, each by
``MessageStore.append_replica``. After a failure nothing more is written; ``drain`` raises it, and the
connection closes with it, as when the write ran on the receiving thread.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Protocol

from agents.store.record import Scan


class AppendTarget(Protocol):
    """The store the batches go to (``MessageStore``)."""

    def append_replica(self, offset: int, data: bytes | memoryview, scan: Scan | None = None) -> None: ...


class Appender:
    """One writing thread for one store: ``submit`` batches in log order, ``drain`` before relying on them."""

    def __init__(self, store: AppendTarget, name: str) -> None:
        self._store = store
        self._changed = threading.Condition()
        self._queue: deque[tuple[int, bytes | memoryview, Scan]] = deque()
        self._busy = False  # a batch taken off the queue is being written (by the thread or by drain)
        self._failure: Exception | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def submit(self, offset: int, data: bytes | memoryview, scan: Scan) -> None:
        """Append `data` at `offset` (checked by `scan`) after the batches submitted before. `data` must stay
        unchanged until ``drain`` returns. Dropped if an earlier batch failed (``drain`` reports that one)."""
        with self._changed:
            if self._closed:
                raise RuntimeError("the appender is closed")
            if self._failure is None:
                self._queue.append((offset, data, scan))
                self._changed.notify_all()

    def drain(self) -> None:
        """Return once every submitted batch is written; raise the first failure (the batches after it were not
        written), after which the appender takes batches again.

        A batch the thread has not taken yet is written here rather than waited for: when every core is busy
        (two slaves and their master on two), the thread may not run for a while, and the receiving thread would
        sleep through the time the write takes."""
        with self._changed:
            while self._queue or self._busy:
                if self._busy:
                    self._changed.wait()
                else:
                    self._write_next()
            failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    def close(self) -> None:
        """Stop the thread once the batches submitted are written (or one failed)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        with self._changed:
            while True:
                if self._queue and not self._busy:
                    self._write_next()
                elif self._closed and not self._queue:
                    return
                else:  # nothing to write, or drain is writing a batch
                    self._changed.wait()

    def _write_next(self) -> None:
        """Write the oldest batch (called holding the condition, which is released during the write)."""
        offset, data, scan = self._queue.popleft()
        self._busy = True
        self._changed.release()
        failure: Exception | None = None
        try:
            self._store.append_replica(offset, data, scan)
        except Exception as exc:  # any failure must reach the receiving thread, not end the writing one silently
            failure = exc
        finally:
            self._changed.acquire()
        self._busy = False
        if failure is not None:
            self._failure = failure
            self._queue.clear()
        self._changed.notify_all()
