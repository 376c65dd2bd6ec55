"""What a replication session asks its shell to do. Plain data; the shell executes them in order."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Send:
    """Write these bytes to the peer."""

    data: bytes


@dataclass(frozen=True, slots=True)
class SendTransfer:
    """Write a transfer header, then ``size`` commit-log bytes from ``offset`` (sendfile where possible)."""

    header: bytes
    offset: int
    size: int


@dataclass(frozen=True, slots=True)
class Truncate:
    """Slave: cut the commit log, consume queues and epoch cache back to ``offset`` (the consistent point)."""

    offset: int


@dataclass(frozen=True, slots=True)
class StartAt:
    """Slave with an empty store: begin the commit log at ``offset`` (the master's log starts there)."""

    offset: int


@dataclass(frozen=True, slots=True)
class RecordEpoch:
    """Slave: the stream entered a new epoch; append it to the epoch file."""

    epoch: int
    start_offset: int


@dataclass(frozen=True, slots=True)
class Append:
    """Slave: append replicated bytes at exactly ``offset`` (a view of the receive buffer: apply it at once)."""

    offset: int
    data: bytes | memoryview


@dataclass(frozen=True, slots=True)
class SetConfirm:
    """Slave: the confirmOffset the master allows, capped at what this replica holds."""

    offset: int


@dataclass(frozen=True, slots=True)
class SlaveAcked:
    """Master: the slave acknowledged everything below ``offset``."""

    broker_id: int
    offset: int
    caught_up: bool


@dataclass(frozen=True, slots=True)
class Close:
    """End this connection; ``reason`` is logged. Nothing of the offending packet was applied."""

    reason: str


Action = Send | SendTransfer | Truncate | StartAt | RecordEpoch | Append | SetConfirm | SlaveAcked | Close
