"""The slave side of one AutoSwitch HA connection, without I/O (Java's ``AutoSwitchHAClient``).

READY → (connected) HANDSHAKE: send the slave handshake, receive the master's
epoch entries, compute the consistent point and truncate to it (or close with
"manual action needed" when none exists) → TRANSFER: append every batch at
exactly the local end, record epoch changes from the headers, confirmOffset =
min(master's confirmOffset, local end), and acknowledge the new end (``on_tick``,
after the frames received together were applied).
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.ha.actions import Action, Append, Close, RecordEpoch, Send, SetConfirm, StartAt, Truncate
from agents.protocol.frames import HAState, MasterHandshake, MasterTransfer, SlaveAck, SlaveHandshake, encode
from agents.store.epochs import EpochCache, EpochError, truncation_point


@dataclass(frozen=True, slots=True)
class LocalView:
    """The slave store as the session needs it: its epoch cache and its end offset."""

    epochs: EpochCache
    max_offset: int


class SlaveSession:
    """One connection's slave state machine."""

    def __init__(self, broker_id: int, *, async_learner: bool = False, sync_from_last_file: bool = False) -> None:
        self.broker_id = broker_id
        self.async_learner = async_learner
        self.sync_from_last_file = sync_from_last_file
        self.state = HAState.READY
        self.reported_offset = -1
        self.last_report = 0.0
        self._epoch = -1

    def start(self, now: float) -> list[Action]:
        """Connected: send the handshake."""
        self.state = HAState.HANDSHAKE
        self.last_report = now
        frame = SlaveHandshake(self.sync_from_last_file, self.async_learner, self.broker_id)
        return [Send(encode(frame))]

    def on_frame(self, frame: MasterHandshake | MasterTransfer, local: LocalView, now: float) -> list[Action]:
        """React to one frame from the master."""
        if isinstance(frame, MasterHandshake):
            if self.state != HAState.HANDSHAKE:
                return [Close(f"master handshake received in state {self.state.name}")]
            return self._handshake(frame, local, now)
        if self.state != HAState.TRANSFER:
            return [Close(f"master transfer received in state {self.state.name}")]
        return self._transfer(frame, local, now)

    def on_tick(self, local: LocalView, now: float, heartbeat_interval_s: float) -> list[Action]:
        """Report the local end when it grew, or as a heartbeat once per interval.

        This is also how appended batches are acknowledged: the shell ticks after applying all the frames it
        received at once, so they cost one ack, not one each (as Java's slave reports once per read)."""
        if self.state != HAState.TRANSFER:
            return []
        if local.max_offset > self.reported_offset or now - self.last_report >= heartbeat_interval_s:
            return self._report(local.max_offset, now)
        return []

    def _report(self, offset: int, now: float) -> list[Action]:
        self.reported_offset = offset
        self.last_report = now
        return [Send(encode(SlaveAck(offset)))]

    def _handshake(self, frame: MasterHandshake, local: LocalView, now: float) -> list[Action]:
        try:
            remote = EpochCache.from_pairs(frame.entries)
            point = truncation_point(local.epochs, local.max_offset, remote, frame.master_max_offset)
        except EpochError as exc:
            return [Close(f"cannot compare epochs with the master: {exc}")]
        if point is None:
            return [
                Close(
                    "no consistent point with the master's epochs "
                    f"(local {list(local.epochs.pairs())}, master {list(frame.entries)}): manual action needed"
                )
            ]
        actions: list[Action] = []
        kept = local.epochs.truncate_suffix_by_offset(point)
        # Also when the log ends at the point but an epoch starts there with nothing written in it (recorded just
        # before a write that failed, or a crash): the master's frames record that epoch again, and an entry left
        # behind would refuse it ("not above the last epoch") on every reconnection.
        if point < local.max_offset or kept != local.epochs:
            actions.append(Truncate(point))
        self.state = HAState.TRANSFER
        last = kept.last_entry()
        self._epoch = last.epoch if last is not None else -1
        return [*actions, *self._report(point, now)]

    def _transfer(self, frame: MasterTransfer, local: LocalView, now: float) -> list[Action]:
        actions: list[Action] = []
        if frame.body and frame.offset != local.max_offset:
            if local.max_offset == 0 and not local.epochs.entries:
                actions.append(StartAt(frame.offset))
            else:
                return [Close(f"master sent offset {frame.offset} but the local log ends at {local.max_offset}")]
        if frame.body and frame.epoch != self._epoch:
            actions.append(RecordEpoch(frame.epoch, frame.epoch_start_offset))
            self._epoch = frame.epoch
        end = local.max_offset if not frame.body else frame.offset + len(frame.body)
        if frame.body:
            actions.append(Append(frame.offset, frame.body))
        actions.append(SetConfirm(min(frame.confirm_offset, end)))
        return actions  # the ack of the new end: ``on_tick``, once the frames received together are applied
