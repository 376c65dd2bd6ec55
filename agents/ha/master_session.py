"""The master side of one AutoSwitch HA connection, without I/O (Java's ``AutoSwitchHAConnection``).

HANDSHAKE: wait for the slave's handshake, answer with this master's epoch
entries. TRANSFER: the slave's first offset report decides where to stream
from (0 → the first available offset, or the start of the last segment with
syncFromLastFile); batches are at most ``batch_size`` bytes, never cross an
epoch boundary, and carry the epoch, its start and the confirmOffset in their
header. With nothing to send, a heartbeat (empty batch) goes out once per
heartbeat interval. A batch also stops at a segment boundary, so the shell can
send it with one sendfile from one file. Every acknowledgement becomes a ``SlaveAcked`` for the HA
service, which keeps the SyncStateSet and confirmOffset. ``admit_slave`` decides whether a handshake's broker id
may replicate at all (with aclEnable: only ids the controller registered in this broker set).
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.ha.actions import Action, Close, Send, SendTransfer, SlaveAcked
from agents.protocol.frames import HAState, MasterHandshake, SlaveAck, SlaveHandshake, encode, encode_transfer_header
from agents.store.epochs import MAX_OFFSET, EpochCache


def admit_slave(slave_id: int, master_id: int, registered: frozenset[int] | None) -> str | None:
    """Why the master refuses a slave that says it is `slave_id`, or None; `registered` None: not learnt yet.

    Refusing while the ids are unknown keeps a stranger out of a master that just started; a genuine slave
    retries its connection and is admitted once the master has asked the controller.
    """
    if slave_id == master_id:
        return f"broker id {slave_id} is this master's own id"
    if registered is None:
        return "this master has not yet learnt its broker set's registered ids from the controller"
    if slave_id not in registered:
        return f"broker id {slave_id} is not registered in this broker set (registered: {sorted(registered)})"
    return None


@dataclass(frozen=True, slots=True)
class MasterView:
    """The master store as a session needs it."""

    epochs: EpochCache
    min_offset: int
    max_offset: int
    confirm_offset: int
    segment_size: int


class MasterSession:
    """One slave connection's master state machine."""

    def __init__(self, batch_size: int) -> None:
        self.batch_size = batch_size
        self.state = HAState.HANDSHAKE
        self.slave_id: int | None = None
        self.async_learner = False
        self.sync_from_last_file = False
        self.next_offset: int | None = None
        self.ack_offset = -1
        self.last_write = 0.0
        self.max_at_last_send: int | None = None

    def on_frame(self, frame: SlaveHandshake | SlaveAck, view: MasterView, now: float) -> list[Action]:
        """React to one frame from the slave."""
        if isinstance(frame, SlaveHandshake):
            if self.state != HAState.HANDSHAKE:
                return [Close(f"slave handshake received in state {self.state.name}")]
            self.slave_id = frame.slave_broker_id
            self.async_learner = frame.async_learner
            self.sync_from_last_file = frame.sync_from_last_file
            self.state = HAState.TRANSFER
            self.last_write = now
            reply = MasterHandshake(view.max_offset, view.epochs.last_epoch(), view.epochs.pairs())
            return [Send(encode(reply))]
        if self.state != HAState.TRANSFER or self.slave_id is None:
            return [Close("slave offset report received before its handshake")]
        if frame.max_offset > view.max_offset:
            return [Close(f"slave reports offset {frame.max_offset} beyond the master's end {view.max_offset}")]
        if self.next_offset is None:
            self.next_offset = self._start_offset(frame.max_offset, view)
        self.ack_offset = frame.max_offset
        # Caught up: it has everything the master held when it sent the last batch (a steady stream of
        # new writes must not make a healthy slave look behind forever).
        ack = frame.max_offset
        caught_up = ack >= view.max_offset or (self.max_at_last_send is not None and ack >= self.max_at_last_send)
        return [SlaveAcked(self.slave_id, ack, caught_up=caught_up)]

    def _start_offset(self, requested: int, view: MasterView) -> int:
        if requested > 0:
            return requested
        if self.sync_from_last_file and view.max_offset > 0:
            return max(view.min_offset, view.max_offset - view.max_offset % view.segment_size)
        return view.min_offset

    def next_send(self, view: MasterView, now: float, budget: int, heartbeat_interval_s: float) -> Action | None:
        """The next batch (at most `budget` bytes), a heartbeat when due, or None."""
        if self.state != HAState.TRANSFER or self.next_offset is None:
            return None
        start = self.next_offset
        if start < view.min_offset:
            return Close(f"slave needs offset {start}, but the log now starts at {view.min_offset}")
        entry = view.epochs.find_by_offset(start) if start < view.max_offset else view.epochs.last_entry()
        if entry is None:
            return Close(f"no epoch covers offset {start}")
        size = 0
        if start < view.max_offset and budget > 0:
            end = view.max_offset if entry.end_offset == MAX_OFFSET else min(entry.end_offset, view.max_offset)
            segment_end = (start // view.segment_size + 1) * view.segment_size  # one sendfile, one file
            size = min(self.batch_size, budget, end - start, segment_end - start)
        if size == 0 and now - self.last_write < heartbeat_interval_s:
            return None
        header = encode_transfer_header(start, entry.epoch, entry.start_offset, view.confirm_offset, size)
        self.next_offset = start + size
        self.last_write = now
        if size:
            self.max_at_last_send = view.max_offset
        return SendTransfer(header, start, size)
