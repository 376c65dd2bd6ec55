"""The master's HA service: accepts slaves, streams the commit log, keeps the SyncStateSet and confirmOffset.

One thread accepts connections; each slave connection runs its own thread
(``MasterSession`` decides, ``agents.net`` moves bytes). A put appends,
then waits on a condition until the acknowledgement rule holds or
``syncFlushTimeout`` passes. SyncStateSet changes are proposed through
``on_propose``; the owner reports the controller's answer with ``confirm`` or
``abandon`` (they apply only then). With an ``admit`` check (aclEnable), a handshake whose broker id it
refuses closes the connection before anything is sent or counted.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from agents import net
from agents.ha.actions import Close, Send, SendTransfer, SlaveAcked
from agents.ha.config import HAConfig
from agents.ha.master_session import MasterSession, MasterView
from agents.ha.sync_state import (
    PutStatus,
    SlaveProgress,
    SyncState,
    acks_satisfied,
    admit_put,
    expand,
    next_confirm_offset,
    proposal_expired,
    shrink,
)
from agents.protocol.frames import FrameError, FrameFromSlave, FrameReader, SlaveHandshake
from agents.store.epochs import EpochCache
from agents.store.message_store import Placed, Placement
from agents.store.record import Message

log = logging.getLogger(__name__)

SEND_ROUND = 4 * 1024 * 1024
"""Bytes a connection sends before it reads the slave's acks again: a long catch-up must not stall ack
processing (the SyncStateSet, the confirmOffset) nor fill the slave's send buffer with unread acks."""


class MasterStore(Protocol):
    """What the master service needs from the message store."""

    @property
    def min_offset(self) -> int: ...
    @property
    def max_offset(self) -> int: ...
    @property
    def confirm_offset(self) -> int: ...
    @property
    def segment_size(self) -> int: ...
    def put(self, messages: Sequence[Message]) -> Placed: ...
    def flush(self, *, lazy: bool = False) -> None: ...
    def set_confirm_offset(self, offset: int) -> None: ...
    def open_segment(self, offset: int) -> tuple[int, int, int]: ...


@dataclass(frozen=True, slots=True)
class PutResult:
    """What a put did; `epoch` is the master epoch the append was made in (-1 when nothing was appended), `placed`
    where each message went (none when nothing was appended)."""

    status: PutStatus
    start_offset: int = -1
    end_offset: int = -1
    epoch: int = -1
    placed: tuple[Placement, ...] = ()

    def settle(self) -> PutResult:
        """A refusal wrote nothing: it is its own outcome (so a caller settles whatever ``append`` returned)."""
        return self


@dataclass(frozen=True, slots=True)
class Appended:
    """Messages a master wrote and has not yet answered for: ``settle`` flushes and waits."""

    master: HAMaster
    placed: Placed

    def settle(self) -> PutResult:
        """Flush and wait for the acknowledgements, as ``HAMaster.put`` does after its append; call it once."""
        return self.master._settle(self.placed)


class HAMaster:
    """Serve replication for one master replica."""

    def __init__(
        self,
        store: MasterStore,
        epochs: Callable[[], EpochCache],
        sync_state: SyncState,
        config: HAConfig,
        on_propose: Callable[[frozenset[int]], None],
        clock: Callable[[], float] = time.monotonic,
        admit: Callable[[int], str | None] | None = None,
    ) -> None:
        """`admit(slave_id)`: why a slave's handshake is refused, or None; without it every slave is served."""
        self._store = store
        self._admit = admit
        self._epochs = epochs
        self.epoch = epochs().last_epoch()
        """The epoch this master serves: a new master is made after its epoch is appended, one per epoch."""
        self._config = config
        self._on_propose = on_propose
        self._clock = clock
        self._lock = threading.Condition()
        self._sync = sync_state
        self._slaves: dict[int, SlaveProgress] = {}
        self._wakeups: set[net.Wakeup] = set()
        self._server: net.Connection | None = None
        self._threads: list[threading.Thread] = []
        self._stopped = threading.Event()
        self._proposed_at = 0.0
        self._writes_paused = False
        self._waiting_puts = 0  # puts that appended and wait for their acknowledgements
        self._durable = store.max_offset  # the end of what a put's flush made durable here (confirm's local cap)
        self.port = 0

    # --- life cycle ------------------------------------------------------------------------------

    def start(self, host: str, port: int) -> int:
        """Listen for slaves; returns the bound port."""
        server = net.listen(host, port)
        self._server = server
        with self._lock:
            self._update_confirm_offset()  # an inherited tail may already be confirmable
        self.port = server.getsockname()[1]
        self._spawn(self._accept_loop, "ha-accept")
        self._spawn(self._shrink_loop, "ha-shrink")
        return self.port

    def stop(self) -> None:
        """Close the listener and every connection; wake every waiting put."""
        self._stopped.set()
        net.close(self._server)
        with self._lock:
            for w in self._wakeups:
                w.notify()
            self._lock.notify_all()
        for t in self._threads:
            t.join(timeout=5)

    def _spawn(self, target: Callable[..., None], name: str, *args: object) -> None:
        t = threading.Thread(target=target, args=args, name=name, daemon=True)
        t.start()
        self._threads.append(t)

    # --- state used by the owner -----------------------------------------------------------------

    @property
    def sync_state(self) -> SyncState:
        with self._lock:
            return self._sync

    def slaves(self) -> dict[int, SlaveProgress]:
        with self._lock:
            return dict(self._slaves)

    def confirm(self, new_set: frozenset[int], sync_state_set_epoch: int) -> None:
        """The controller confirmed (or pushed) a SyncStateSet."""
        with self._lock:
            self._sync = self._sync.confirm(new_set, sync_state_set_epoch)
            self._update_confirm_offset()
            self._lock.notify_all()

    def abandon(self) -> None:
        """The controller refused the last proposal."""
        with self._lock:
            self._sync = self._sync.abandon()
            self._lock.notify_all()

    def view(self) -> MasterView:
        s = self._store
        return MasterView(self._epochs(), s.min_offset, s.max_offset, s.confirm_offset, s.segment_size)

    # --- graceful transfer -------------------------------------------------------------------------

    def pause_writes(self) -> int:
        """Refuse new puts from now on (atomically with appends); returns the final offset."""
        with self._lock:
            self._writes_paused = True
            return self._store.max_offset

    def wait_settled(self, timeout_s: float) -> bool:
        """Wait until every put that appended has its answer (or the timeout, or stop); True when none waits.

        A transfer waits for this after the pause: the role change that follows it would otherwise answer a put
        still waiting for a lagging SyncStateSet member FLUSH_SLAVE_TIMEOUT, though the target already holds it.
        """
        deadline = self._clock() + timeout_s
        with self._lock:
            while self._waiting_puts and not self._stopped.is_set():
                remaining = deadline - self._clock()
                if remaining <= 0:
                    break
                self._lock.wait(remaining)
            return self._waiting_puts == 0

    def resume_writes(self) -> None:
        with self._lock:
            self._writes_paused = False

    def wait_acked(self, broker_id: int, offset: int, timeout_s: float) -> int:
        """Wait until `broker_id` has acknowledged `offset` (or the timeout, or stop); its last ack (-1: none)."""
        deadline = self._clock() + timeout_s
        with self._lock:
            while True:
                progress = self._slaves.get(broker_id)
                ack = progress.ack_offset if progress is not None else -1
                remaining = deadline - self._clock()
                if ack >= offset or remaining <= 0 or self._stopped.is_set():
                    return ack
                self._lock.wait(remaining)

    # --- puts ------------------------------------------------------------------------------------

    def put(self, messages: Sequence[Message]) -> PutResult:
        """Append, flush, and wait for the acknowledgements the config asks for (``append``, then ``settle``).

        The slaves are woken at append, so replication runs during the local flush (a put costs the longer of
        the two, not their sum), and the flush runs outside the lock, so producers that append while it syncs
        share the next one (group commit). confirmOffset never passes what a flush here made durable.
        """
        return self.append(messages).settle()

    def append(self, messages: Sequence[Message]) -> Appended | PutResult:
        """The first half of a put: write the messages here and wake the slaves; `Appended` must be settled (even
        on the caller's error path). A refusal (nothing written) is the `PutResult` a put would return, settled.

        For writers that must order their appends but not wait for each other's acknowledgements (the consumer
        state, whose records are numbered in log order): append under their own lock, settle outside it.
        """
        with self._lock:
            if self._stopped.is_set():  # a role change stopped this master: its epoch is over, write nothing
                return PutResult(PutStatus.SERVICE_NOT_AVAILABLE)
            if self._writes_paused:
                return PutResult(PutStatus.MASTER_TRANSFERRING)
            status = admit_put(self._sync, self._config.min_in_sync_replicas)
            if status is not PutStatus.PUT_OK:
                return PutResult(status)
            placed = self._store.put(messages)
            self._waiting_puts += 1
            for w in self._wakeups:
                w.notify()
        return Appended(self, placed)

    def _settle(self, placed: Placed) -> PutResult:
        try:
            return self._await_acks(placed)
        finally:
            with self._lock:
                self._waiting_puts -= 1
                self._lock.notify_all()

    def _await_acks(self, placed: Placed) -> PutResult:
        """Flush what `put` appended and wait for the acknowledgements the config asks for."""
        start, end = placed.start, placed.end
        self._store.flush(lazy=True)  # covers every append made before it, this one included
        with self._lock:
            self._durable = max(self._durable, end)
            self._update_confirm_offset()
            deadline = self._clock() + self._config.sync_flush_timeout_s
            while not self._acked(end):
                remaining = deadline - self._clock()
                if remaining <= 0 or self._stopped.is_set():
                    return PutResult(PutStatus.FLUSH_SLAVE_TIMEOUT, start, end, self.epoch, placed.messages)
                self._lock.wait(remaining)
        return PutResult(PutStatus.PUT_OK, start, end, self.epoch, placed.messages)

    def _acked(self, end: int) -> bool:
        cfg = self._config
        return acks_satisfied(
            self._sync, self._slaves, end,
            all_ack_in_sync_state_set=cfg.all_ack_in_sync_state_set, in_sync_replicas=cfg.in_sync_replicas,
        )  # fmt: skip

    def _update_confirm_offset(self) -> None:
        """Recompute confirmOffset (caller holds the lock)."""
        s = self._store
        new = next_confirm_offset(
            self._sync, self._slaves, self._durable, s.confirm_offset,
            all_ack_in_sync_state_set=self._config.all_ack_in_sync_state_set,
        )  # fmt: skip
        if new > s.confirm_offset:
            s.set_confirm_offset(new)

    # --- SyncStateSet --------------------------------------------------------------------------------

    def _propose(self, new_set: frozenset[int]) -> None:
        """Mark a proposal and hand it to the owner (caller holds the lock)."""
        self._sync = self._sync.propose(new_set)
        self._proposed_at = self._clock()
        log.info(
            "proposing SyncStateSet %s (confirmed %s)", sorted(self._sync.proposed or ()), sorted(self._sync.local)
        )
        threading.Thread(target=self._on_propose, args=(self._sync.proposed,), daemon=True).start()

    def _shrink_loop(self) -> None:
        while not self._stopped.wait(self._config.check_sync_state_set_s):
            with self._lock:
                if self._sync.synchronizing:
                    if proposal_expired(self._sync, self._proposed_at, self._clock()):
                        # The owner never answered (a lost RPC): drop the proposal and decide again.
                        log.warning(
                            "SyncStateSet proposal %s unanswered; abandoning it", sorted(self._sync.proposed or ())
                        )
                        self._sync = self._sync.abandon()
                        self._lock.notify_all()
                    continue
                smaller = shrink(self._sync, self._slaves, self._clock(), self._config.max_not_catchup_s)
                if smaller is not None:
                    self._propose(smaller)

    def _on_ack(self, ack: SlaveAcked, async_learner: bool) -> None:
        with self._lock:
            now = self._clock()
            old = self._slaves.get(ack.broker_id, SlaveProgress(ack.broker_id, async_learner=async_learner))
            caught_up = now if ack.caught_up else old.last_caught_up
            progress = replace(old, ack_offset=ack.offset, last_caught_up=max(old.last_caught_up, caught_up))
            self._slaves[ack.broker_id] = progress
            if not self._sync.synchronizing:
                last = self._epochs().last_entry()
                bigger = expand(self._sync, progress, self._store.confirm_offset, last.start_offset if last else 0)
                if bigger is not None:
                    self._propose(bigger)
            self._update_confirm_offset()
            self._lock.notify_all()

    def _on_disconnect(self, broker_id: int | None) -> None:
        with self._lock:
            if broker_id is None:
                return
            self._slaves.pop(broker_id, None)
            if broker_id in self._sync.local and not self._sync.synchronizing:
                self._propose(self._sync.local - {broker_id})
            self._lock.notify_all()

    # --- connections -------------------------------------------------------------------------------

    def _accept_loop(self) -> None:
        server = self._server
        assert server is not None
        while not self._stopped.is_set():
            conn = net.accept(server, 0.2)
            if conn is not None:
                self._spawn(self._serve, "ha-conn", conn)

    def _serve(self, conn: net.Connection) -> None:
        session = MasterSession(self._config.batch_size)
        reader: FrameReader[FrameFromSlave] = FrameReader("from_slave")
        wakeup = net.Wakeup()
        with self._lock:
            self._wakeups.add(wakeup)
        reason = "stopped"
        try:
            reason = self._run_connection(conn, session, reader, wakeup)
        except (net.ConnectionLost, FrameError) as exc:
            reason = str(exc)
        finally:
            with self._lock:
                self._wakeups.discard(wakeup)
            wakeup.close()
            net.close(conn)
            log.info("HA connection of slave %s closed: %s", session.slave_id, reason)
            self._on_disconnect(session.slave_id)

    def _run_connection(
        self, conn: net.Connection, session: MasterSession, reader: FrameReader[FrameFromSlave], wakeup: net.Wakeup
    ) -> str:
        cfg = self._config
        last_read = self._clock()
        window = _RateWindow(last_read)
        segment = _SegmentFile(self._store)
        behind = False  # the last round stopped with more to send: only poll for acks, do not wait
        try:
            while not self._stopped.is_set():
                if net.wait_readable(conn, wakeup, 0.0 if behind else 0.05):
                    reader.feed(net.receive(conn))
                    last_read = self._clock()
                    reason = self._handle_frames(conn, session, reader)
                    if reason is not None:
                        return reason
                now = self._clock()
                if now - last_read > cfg.housekeeping_s:
                    return f"nothing read for {cfg.housekeeping_s:g} s"
                reason, behind = self._send_batches(conn, session, window.reset_if_due(now), segment)
                if reason is not None:
                    return reason
        finally:
            segment.close()
        return "stopped"

    def _handle_frames(
        self, conn: net.Connection, session: MasterSession, reader: FrameReader[FrameFromSlave]
    ) -> str | None:
        for frame in reader.frames():
            if self._admit is not None and isinstance(frame, SlaveHandshake):
                refused = self._admit(frame.slave_broker_id)
                if refused is not None:
                    log.warning("HA: refused a slave handshake: %s", refused)
                    return f"refused: {refused}"
            for action in session.on_frame(frame, self.view(), self._clock()):
                if isinstance(action, Close):
                    return action.reason
                if isinstance(action, Send):
                    net.send_all(conn, action.data)
                elif isinstance(action, SlaveAcked):
                    self._on_ack(action, session.async_learner)
        return None

    def _send_batches(
        self, conn: net.Connection, session: MasterSession, window: _RateWindow, segment: _SegmentFile
    ) -> tuple[str | None, bool]:
        """Send what the session wants to send now, within the per-second byte allowance and at most
        ``SEND_ROUND`` bytes (then the slave's acks are read); (close reason, whether more is waiting)."""
        sent = 0
        while sent < SEND_ROUND:
            budget = self._config.max_bytes_per_s - window.sent
            outgoing = session.next_send(self.view(), self._clock(), budget, self._config.heartbeat_interval_s)
            if outgoing is None:
                return None, False
            if isinstance(outgoing, Close):
                return outgoing.reason, False
            assert isinstance(outgoing, SendTransfer)
            net.send_all(conn, outgoing.header, more=outgoing.size > 0)
            if not outgoing.size:
                return None, False
            fd, position = segment.at(outgoing.offset)
            net.send_file(conn, fd, position, outgoing.size)
            window.sent += outgoing.size
            sent += outgoing.size
        return None, True


class _SegmentFile:
    """The commit-log segment a connection is sending from, as its own duplicate descriptor (retention may close
    the store's), kept across batches until the stream moves to the next segment."""

    def __init__(self, store: MasterStore) -> None:
        self._store = store
        self._start = -1
        self._fd = -1

    def at(self, offset: int) -> tuple[int, int]:
        """(descriptor, position in the file) of commit-log `offset`."""
        if self._fd < 0 or not self._start <= offset < self._start + self._store.segment_size:
            self.close()
            self._fd, position, _readable = self._store.open_segment(offset)
            self._start = offset - position
        return self._fd, offset - self._start

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
        self._start, self._fd = -1, -1


@dataclass(slots=True)
class _RateWindow:
    """Bytes sent in the current one-second window (maxHaTransferByteInSecond)."""

    started: float
    sent: int = 0

    def reset_if_due(self, now: float) -> _RateWindow:
        if now - self.started >= 1.0:
            self.started, self.sent = now, 0
        return self
