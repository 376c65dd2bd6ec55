"""The slave's HA client: connects to the master, truncates to the consistent point, applies the stream.

Three threads: ``ha-slave`` connects, receives and acks; ``ha-slave-write`` checks the received batches (every
record's CRCs), writes them into the commit log and dispatches them up to the confirmOffset (``appender.py``)
while ``ha-slave`` receives the next ones; ``ha-slave-flush`` fsyncs what was applied every ``FLUSH_INTERVAL_S``
(``MessageStore.flush`` does not hold the store lock while it waits for the disk, so receiving goes on
meanwhile). Any error (connection, malformed frame, a refused action, a damaged batch, a failed write or flush)
closes the connection, logs why, and reconnects with exponential back-off; nothing of a bad batch is applied.

An ack reports the end of what was written to the commit log (the page cache), not what was received or
fsynced, as in Java: the flusher makes it durable within about ``FLUSH_INTERVAL_S``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

from agents import net
from agents.errors import AgentError
from agents.ha.actions import Action, Append, Close, RecordEpoch, Send, SetConfirm, StartAt, Truncate
from agents.ha.appender import Appender
from agents.ha.config import HAConfig
from agents.ha.slave_session import LocalView, SlaveSession
from agents.protocol.frames import FrameError, FrameFromMaster, FrameReader
from agents.store.epochs import EpochCache, EpochError
from agents.store.record import RecordError, Scan

log = logging.getLogger(__name__)

FLUSH_INTERVAL_S = 0.2
"""How often a slave fsyncs what it replicated (and its confirmOffset); acks do not wait for it, as in Java."""

FLUSH_THREAD = "ha-slave-flush"
WRITE_THREAD = "ha-slave-write"


class ApplyFailed(AgentError):
    """Checking, writing or dispatching replicated batches failed (on the writing thread); the connection ends
    with it."""


class SlaveStore(Protocol):
    """What the slave client needs from the message store."""

    @property
    def max_offset(self) -> int: ...
    def truncate(self, offset: int) -> None: ...
    def start_at(self, offset: int) -> None: ...
    def scan_replica(self, offset: int, data: bytes | memoryview) -> Scan: ...
    def append_replica(self, offset: int, data: bytes | memoryview, scan: Scan | None = None) -> None: ...
    def set_confirm_offset(self, offset: int) -> None: ...
    def flush(self, *, lazy: bool = False) -> None: ...


class EpochBook(Protocol):
    """The replica's epoch cache and its file."""

    @property
    def cache(self) -> EpochCache: ...
    def replace(self, cache: EpochCache) -> None: ...


class HASlave:
    """Replicate from one master address until stopped or redirected."""

    def __init__(
        self,
        store: SlaveStore,
        epochs: EpochBook,
        broker_id: int,
        config: HAConfig,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._epochs = epochs
        self._broker_id = broker_id
        self._config = config
        self._clock = clock
        self._master: str | None = None
        self._stopped = threading.Event()
        self._changed = net.Wakeup()
        self._thread = threading.Thread(target=self._run, name="ha-slave", daemon=True)
        self._flusher = threading.Thread(target=self._flush_loop, name=FLUSH_THREAD, daemon=True)
        self._appender = Appender(store, WRITE_THREAD, wake=self._changed.notify)  # the writes caught up: ack
        self._submitted_to: int | None = None  # where the batches handed to the appender end, until drained
        self._flush_failure: str | None = None  # set by the flusher, taken (and reported) by the receiving thread
        self._flush_failure_lock = threading.Lock()
        self.last_error = ""
        self.connected = False
        self.last_heard: float | None = None
        """When the master was last read from (the clock's time); None: never. RIP-32's sighting of a master."""
        self._progressed = False
        self._confirm = -1  # the confirmOffset the frames of the current receive allow

    def start(self, master_address: str) -> None:
        self._master = master_address
        self._appender.start()
        self._flusher.start()
        self._thread.start()

    def set_master(self, master_address: str) -> None:
        """Follow another master (the current connection is dropped)."""
        self._master = master_address
        self._changed.notify()

    def stop(self) -> None:
        """Stop both threads and wait for them (a flush in progress finishes; ``MessageStore.close`` flushes the
        rest)."""
        self._stopped.set()
        self._changed.notify()
        self._thread.join(timeout=5)
        self._appender.close()
        if self._flusher.is_alive():
            self._flusher.join(timeout=5)
        self._changed.close()

    def _flush_loop(self) -> None:
        """Flush every FLUSH_INTERVAL_S until stopped; a failure is logged and handed to the receiving thread,
        which closes the connection with it (as when the flush ran there), and the next flush tries again."""
        while not self._stopped.wait(FLUSH_INTERVAL_S):
            try:
                self._store.flush(lazy=True)
            except Exception as exc:  # any failure must reach the connection, not end the flusher silently
                log.warning("flushing the replicated log failed: %s", exc)
                with self._flush_failure_lock:
                    self._flush_failure = f"flush failed: {exc}"
                self._changed.notify()

    def _take_flush_failure(self) -> str | None:
        with self._flush_failure_lock:
            failure, self._flush_failure = self._flush_failure, None
        return failure

    def _local(self) -> LocalView:
        """The log as the session must see it: ending where the batches handed to the appender end."""
        end = self._submitted_to
        return LocalView(self._epochs.cache, self._store.max_offset if end is None else end)

    def _acked(self) -> LocalView:
        """The log as an ack may report it: ending where the batches written so far end."""
        written_to = self._appender.written_to()
        return self._local() if written_to is None else LocalView(self._epochs.cache, written_to)

    def _written(self) -> None:
        """Wait until the batches handed to the appender are in the log; ApplyFailed if one (or its dispatch)
        failed, whatever the store raised."""
        self._submitted_to = None
        try:
            self._appender.drain()
        except Exception as exc:  # the store's failure, of any type, must end the connection, not this thread
            raise ApplyFailed(_apply_failure(exc)) from exc

    def _run(self) -> None:
        first, longest = self._config.reconnect_backoff_s
        backoff = first
        while not self._stopped.is_set():
            address = self._master
            try:
                if address is None:
                    raise net.ConnectionLost("no master address yet")
                conn = net.connect(address, timeout=2.0)
            except net.ConnectionLost as exc:
                self.last_error = str(exc)
                self._stopped.wait(backoff)
                backoff = min(longest, backoff * 2)
                continue
            self.connected = True
            self._progressed = False
            try:
                reason = self._replicate(conn, address)
            except (net.ConnectionLost, FrameError, EpochError, ApplyFailed, OSError, ValueError) as exc:
                reason = str(exc)
            finally:
                self.connected = False
                net.close(conn)
            try:
                self._written()  # the next connection's handshake compares the log as written
            except ApplyFailed as exc:
                reason = f"{reason}; {exc}"
            self.last_error = reason
            log.info("HA connection to master %s closed: %s", address, reason)
            if self._master != address:  # a new master (a role change): go there at once
                backoff = first
                continue
            # Only a connection that replicated something resets the back-off: a permanent refusal (no
            # consistent point, damaged bytes) must not turn into a reconnect storm.
            backoff = first if self._progressed else backoff
            self._stopped.wait(backoff)
            backoff = min(longest, backoff * 2)

    def _replicate(self, conn: net.Connection, address: str) -> str:
        session = SlaveSession(
            self._broker_id,
            async_learner=self._config.async_learner,
            sync_from_last_file=self._config.sync_from_last_file,
        )
        reader: FrameReader[FrameFromMaster] = FrameReader("from_master", before_reuse=self._appender.release)
        self._confirm = -1
        for action in session.start(self._clock()):
            if isinstance(action, Send):
                net.send_all(conn, action.data)
        last_read = self._clock()
        while not self._stopped.is_set() and self._master == address:
            if net.wait_readable(conn, self._changed, 0.05):
                reader.received(net.receive_into(conn, reader.receive_buffer()))
                last_read = self.last_heard = self._clock()
                for frame in reader.frames():
                    reason = self._apply(conn, session.on_frame(frame, self._local(), self._clock()))
                    if reason is not None:
                        return reason
            # After a receive (or a wake-up by the appender): one ack for what is written by now, then the
            # confirmOffset of the frames received, which the appender applies once their batches are written.
            failure = self._appender.take_failure()
            if failure is not None:
                return _apply_failure(failure)
            reason = self._apply(conn, session.on_tick(self._acked(), self._clock(), self._config.heartbeat_interval_s))
            if reason is not None:
                return reason
            self._appender.confirm(self._confirm)
            failure_reason = self._take_flush_failure()
            if failure_reason is not None:
                return failure_reason
            if self._clock() - last_read > self._config.housekeeping_s:
                return f"nothing read for {self._config.housekeeping_s:g} s"
        return "stopped" if self._stopped.is_set() else "master changed"

    def _apply(self, conn: net.Connection, actions: list[Action]) -> str | None:
        """Execute session actions in order; returns a close reason or None.

        A batch goes to the appender, which checks it (every record's CRCs, in one pass that also finds what
        dispatch needs) and writes it while the next ones are received; a damaged batch is written not at all,
        nor anything after it. A frame that changes the epoch is checked here first, before any of its actions
        runs, so a damaged one does not even reach the epoch file. Whatever must see the log as written waits for
        the appender first.
        """
        scans: dict[int, Scan] = {}
        if any(isinstance(action, RecordEpoch) for action in actions):
            self._written()  # the check continues the log as written
            for action in actions:
                if isinstance(action, Append):
                    try:
                        scans[id(action)] = self._store.scan_replica(action.offset, action.data)
                    except RecordError as exc:
                        return _apply_failure(exc)
        for action in actions:
            match action:
                case Close(reason=reason):
                    return reason
                case Send(data=data):
                    net.send_all(conn, data)
                case Truncate(offset=offset):
                    self._written()
                    self._appender.forget_confirm()  # a confirmOffset of the log being cut must not be applied
                    log.warning("truncating the local log from %d (epochs %s) to the consistent point %d",
                                self._store.max_offset, list(self._epochs.cache.pairs()), offset)  # fmt: skip
                    self._store.truncate(offset)
                    self._confirm = -1
                    self._epochs.replace(self._epochs.cache.truncate_suffix_by_offset(offset))
                case StartAt(offset=offset):
                    self._written()
                    self._appender.forget_confirm()
                    self._store.start_at(offset)
                case RecordEpoch(epoch=epoch, start_offset=start):
                    self._written()  # an epoch never starts past the log as written
                    self._epochs.replace(self._epochs.cache.append(epoch, start))
                case Append(offset=offset, data=data):
                    self._submitted_to = offset + len(data)
                    self._appender.submit(offset, data, scans.get(id(action)))
                    self._progressed = True
                case SetConfirm(offset=offset):
                    self._confirm = max(self._confirm, offset)
        return None


def _apply_failure(failure: Exception) -> str:
    """The close reason for a failure of the writing thread: a damaged batch is refused, anything else failed."""
    if isinstance(failure, RecordError):
        return f"refusing replicated bytes: {failure}"
    return f"applying replicated bytes failed: {failure}"
