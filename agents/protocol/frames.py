"""AutoSwitch HA frames: the four packets of RocketMQ's controller-mode replication.

Pure framing, no I/O. Every integer is big-endian, exactly as Java's ``ByteBuffer``
writes it, so a Python slave can follow a Java master and the other way round.
The first int of every frame is an ``HAState`` code; only HANDSHAKE (1) and
TRANSFER (2) are ever sent, in both directions. Byte offsets are from the start
of the frame.

Slave → master, handshake (16 bytes, ``AutoSwitchHAClient.HANDSHAKE_HEADER_SIZE``)::

    0           4            6            8                        16
    ┌───────────┬────────────┬────────────┬────────────────────────┐
    │ state = 1 │ isSyncFrom │ isAsync    │ slaveBrokerId          │
    │ int       │ LastFile   │ Learner    │ long, >= 1             │
    │           │ short 0/1  │ short 0/1  │                        │
    └───────────┴────────────┴────────────┴────────────────────────┘

Slave → master, ack / offset report (12 bytes, ``TRANSFER_HEADER_SIZE``)::

    0           4                        12
    ┌───────────┬────────────────────────┐
    │ state = 2 │ maxOffset              │
    │ int       │ long, >= 0             │
    └───────────┴────────────────────────┘

Master → slave, handshake (20-byte header + 12 bytes per epoch entry)::

    0           4           8                    16          20
    ┌───────────┬───────────┬────────────────────┬───────────┬─────────────────────────┐
    │ state = 1 │ bodySize  │ masterMaxPhyOffset │ master    │ N × epoch entry         │
    │ int       │ int = 12N │ long, >= 0         │ LastEpoch │ (bodySize bytes)        │
    │           │ N <= 1000 │                    │ int       │                         │
    └───────────┴───────────┴────────────────────┴───────────┴─────────────────────────┘
    epoch entry:  0 ┌─────────────┬────────────────────┐ 12
                    │ epoch int   │ startOffset long   │
                    └─────────────┴────────────────────┘
    (epochs strictly ascending, start offsets non-decreasing)

Master → slave, transfer / heartbeat (36-byte header + bodySize bytes of raw commit log)::

    0           4           8              16          20                 28                36
    ┌───────────┬───────────┬──────────────┬───────────┬──────────────────┬─────────────────┬────────────┐
    │ state = 2 │ bodySize  │ offset       │ epoch     │ epochStartOffset │ confirmOffset   │ body       │
    │ int       │ int, 0 =  │ long, >= 0   │ int, >= 0 │ long, 0..offset  │ long, >= -1     │ (bodySize) │
    │           │ heartbeat │ batch start  │           │                  │                 │            │
    └───────────┴───────────┴──────────────┴───────────┴──────────────────┴─────────────────┴────────────┘

Decoders are incremental: they return ``(None, 0)`` until a whole frame is
buffered and never copy a body except into the one ``bytes`` they return (or,
with ``view_body``, not at all: the body is a view of the caller's buffer). A
malformed frame raises ``FrameError``; the receiver closes the connection,
because the byte stream cannot be resynchronised. Header fields are checked as
soon as they arrive, so a bad ``bodySize`` fails on its first 8 bytes instead of
after 64 MiB of buffering.
"""

from __future__ import annotations

import struct
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import IntEnum
from typing import Generic, Literal, NoReturn, TypeAlias, TypeVar, cast, overload

from agents.errors import AgentError

__all__ = [
    "EPOCH_ENTRY_SIZE",
    "MASTER_HANDSHAKE_HEADER_SIZE",
    "MAX_BUFFERED",
    "MAX_EPOCH_ENTRIES",
    "MAX_TRANSFER_BODY",
    "SLAVE_ACK_SIZE",
    "SLAVE_HANDSHAKE_SIZE",
    "TRANSFER_HEADER_SIZE",
    "Direction",
    "Frame",
    "FrameError",
    "FrameFromMaster",
    "FrameFromSlave",
    "FrameReader",
    "HAState",
    "MasterHandshake",
    "MasterTransfer",
    "SlaveAck",
    "SlaveHandshake",
    "decode_from_master",
    "decode_from_slave",
    "encode",
    "encode_transfer_header",
]


class HAState(IntEnum):
    """HA connection states. The values are Java's ordinals, on the wire; spelled out so reordering cannot move them."""

    READY = 0
    HANDSHAKE = 1
    TRANSFER = 2
    SUSPEND = 3
    SHUTDOWN = 4


class FrameError(AgentError, ValueError):
    """Malformed HA input; the message names the field and its value. The connection cannot continue."""


MAX_EPOCH_ENTRIES = 1000
"""The Java master's handshake buffer holds at most 1000 epoch entries."""

MAX_TRANSFER_BODY = 64 * 1024 * 1024
"""Largest transfer body accepted; Java batches are 32 KiB by default (``haTransferBatchSize``)."""

_SLAVE_HANDSHAKE = struct.Struct(">ihhq")
_SLAVE_ACK = struct.Struct(">iq")
_MASTER_HANDSHAKE = struct.Struct(">iiqi")
_EPOCH_ENTRY = struct.Struct(">iq")
_TRANSFER = struct.Struct(">iiqiqq")
_INT = struct.Struct(">i")

SLAVE_HANDSHAKE_SIZE = _SLAVE_HANDSHAKE.size  # 16
SLAVE_ACK_SIZE = _SLAVE_ACK.size  # 12
MASTER_HANDSHAKE_HEADER_SIZE = _MASTER_HANDSHAKE.size  # 20
EPOCH_ENTRY_SIZE = _EPOCH_ENTRY.size  # 12
TRANSFER_HEADER_SIZE = _TRANSFER.size  # 36
MAX_BUFFERED = TRANSFER_HEADER_SIZE + MAX_TRANSFER_BODY
"""The largest frame either direction can carry, hence the most a ``FrameReader`` ever needs to hold."""

_INT32_MAX = 2**31 - 1
_INT64_MAX = 2**63 - 1
_SENT_STATES = frozenset({HAState.HANDSHAKE, HAState.TRANSFER})  # READY/SUSPEND/SHUTDOWN are local-only
_NEED_MORE: tuple[None, int] = (None, 0)


# --- validation: shared by the constructors (what we send) and the decoders (what we accept) -----


def _fail(field: str, value: object, reason: str) -> NoReturn:
    raise FrameError(f"{field}={value!r}: {reason}")


def _check_int(field: str, value: object, low: int, high: int) -> None:
    # Not a bool (an int subclass) nor a float: struct.pack would fail later with a less useful error.
    if not isinstance(value, int) or isinstance(value, bool):
        _fail(field, value, "must be an int")
    if not low <= value <= high:
        _fail(field, value, f"must be in {low}..{high}")


def _check_offset(field: str, value: object) -> None:
    _check_int(field, value, 0, _INT64_MAX)


def _check_epoch(field: str, value: object) -> None:
    _check_int(field, value, 0, _INT32_MAX)


def _check_flag(field: str, value: int) -> None:
    if value not in (0, 1):
        _fail(field, value, "a flag must be 0 or 1")


def _check_handshake_body_size(body_size: int) -> None:
    if body_size < 0 or body_size % EPOCH_ENTRY_SIZE:
        _fail("bodySize", body_size, f"must be a non-negative multiple of {EPOCH_ENTRY_SIZE} (one epoch entry)")
    if body_size // EPOCH_ENTRY_SIZE > MAX_EPOCH_ENTRIES:
        _fail("bodySize", body_size, f"more than MAX_EPOCH_ENTRIES={MAX_EPOCH_ENTRIES} epoch entries")


def _check_transfer_body_size(body_size: object) -> None:
    _check_int("bodySize", body_size, 0, MAX_TRANSFER_BODY)


def _check_last_epoch(value: object, entry_count: int) -> None:
    # Java's EpochFileCache.lastEpoch() is -1 for an empty cache; that is the only negative we accept.
    if isinstance(value, int) and value == -1 and entry_count == 0:
        return
    _check_epoch("masterLastEpoch", value)


def _check_entries(entries: tuple[tuple[int, int], ...]) -> None:
    if len(entries) > MAX_EPOCH_ENTRIES:
        _fail("entries", f"<{len(entries)} entries>", f"more than MAX_EPOCH_ENTRIES={MAX_EPOCH_ENTRIES}")
    previous: tuple[int, int] | None = None
    for index, entry in enumerate(entries):
        if not isinstance(entry, tuple) or len(entry) != 2:
            _fail(f"entries[{index}]", entry, "must be an (epoch, startOffset) tuple")
        epoch, start_offset = entry
        _check_epoch(f"entries[{index}].epoch", epoch)
        _check_offset(f"entries[{index}].startOffset", start_offset)
        if previous is not None:
            # Equal start offsets are allowed: a re-elected master that wrote nothing in its old
            # epoch starts the new one at the same offset (Java drops that entry, bug #9689).
            if epoch <= previous[0]:
                _fail(f"entries[{index}].epoch", epoch, f"not above the previous epoch {previous[0]}")
            if start_offset < previous[1]:
                _fail(f"entries[{index}].startOffset", start_offset, f"below the previous start {previous[1]}")
        previous = (epoch, start_offset)


def _check_transfer_header(offset: int, epoch: int, epoch_start_offset: int, confirm_offset: int) -> None:
    _check_offset("offset", offset)
    _check_epoch("epoch", epoch)
    _check_offset("epochStartOffset", epoch_start_offset)
    if epoch_start_offset > offset:
        _fail("epochStartOffset", epoch_start_offset, f"beyond the batch offset {offset}")
    # -1 is the slave-side "not known yet" value that Java initialises confirmOffset with.
    _check_int("confirmOffset", confirm_offset, -1, _INT64_MAX)


# --- frames ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SlaveHandshake:
    """Slave → master, first packet: who the slave is and how it wants to be fed."""

    sync_from_last_file: bool
    async_learner: bool
    slave_broker_id: int

    def __post_init__(self) -> None:
        for field, flag in (("isSyncFromLastFile", self.sync_from_last_file), ("isAsyncLearner", self.async_learner)):
            if not isinstance(flag, bool):
                _fail(field, flag, "must be a bool")
        _check_int("slaveBrokerId", self.slave_broker_id, 1, _INT64_MAX)


@dataclass(frozen=True, slots=True)
class SlaveAck:
    """Slave → master in TRANSFER: the slave's commit-log end; the first one says where to stream from."""

    max_offset: int

    def __post_init__(self) -> None:
        _check_offset("maxOffset", self.max_offset)


@dataclass(frozen=True, slots=True)
class MasterHandshake:
    """Master → slave reply to the handshake: the master's end and its epoch entries, for the slave's truncation."""

    master_max_offset: int
    master_last_epoch: int
    entries: tuple[tuple[int, int], ...]
    """(epoch, startOffset) pairs, oldest first."""

    def __post_init__(self) -> None:
        _check_offset("masterMaxPhyOffset", self.master_max_offset)
        if not isinstance(self.entries, tuple):
            _fail("entries", self.entries, "must be a tuple of (epoch, startOffset) tuples")
        _check_entries(self.entries)
        _check_last_epoch(self.master_last_epoch, len(self.entries))


@dataclass(frozen=True, slots=True)
class MasterTransfer:
    """Master → slave in TRANSFER: one batch of commit log within one epoch; an empty body is a heartbeat."""

    offset: int
    epoch: int
    epoch_start_offset: int
    confirm_offset: int
    body: bytes | memoryview

    def __post_init__(self) -> None:
        _check_transfer_header(self.offset, self.epoch, self.epoch_start_offset, self.confirm_offset)
        _check_transfer_body_size(len(self.body))


FrameFromSlave: TypeAlias = SlaveHandshake | SlaveAck
FrameFromMaster: TypeAlias = MasterHandshake | MasterTransfer
Frame: TypeAlias = FrameFromSlave | FrameFromMaster
Direction: TypeAlias = Literal["from_slave", "from_master"]


# --- encoding --------------------------------------------------------------------------------------


def encode_transfer_header(
    offset: int, epoch: int, epoch_start_offset: int, confirm_offset: int, body_size: int
) -> bytes:
    """The 36-byte transfer header alone, so the sender can follow it with the body via sendfile, uncopied.

    Raises:
        FrameError: a field the receiver would refuse.
    """
    _check_transfer_body_size(body_size)
    _check_transfer_header(offset, epoch, epoch_start_offset, confirm_offset)
    return _TRANSFER.pack(HAState.TRANSFER, body_size, offset, epoch, epoch_start_offset, confirm_offset)


def encode(frame: Frame) -> bytes:
    """The wire bytes of `frame` (already validated when it was built)."""
    match frame:
        case SlaveHandshake(sync_from_last_file=sync, async_learner=learner, slave_broker_id=broker_id):
            return _SLAVE_HANDSHAKE.pack(HAState.HANDSHAKE, int(sync), int(learner), broker_id)
        case SlaveAck(max_offset=max_offset):
            return _SLAVE_ACK.pack(HAState.TRANSFER, max_offset)
        case MasterHandshake(master_max_offset=max_offset, master_last_epoch=last_epoch, entries=entries):
            body = b"".join(_EPOCH_ENTRY.pack(epoch, start_offset) for epoch, start_offset in entries)
            return _MASTER_HANDSHAKE.pack(HAState.HANDSHAKE, len(body), max_offset, last_epoch) + body
        case MasterTransfer():
            header = _TRANSFER.pack(
                HAState.TRANSFER,
                len(frame.body),
                frame.offset,
                frame.epoch,
                frame.epoch_start_offset,
                frame.confirm_offset,
            )
            return header + frame.body
    raise TypeError(f"not an HA frame: {type(frame).__name__}")


# --- decoding --------------------------------------------------------------------------------------


def _read_state(buf: bytes | bytearray | memoryview, direction: str) -> HAState:
    (raw,) = _INT.unpack_from(buf, 0)
    try:
        state = HAState(raw)
    except ValueError:
        raise FrameError(f"state={raw!r}: not an HA connection state (0..4)") from None
    if state not in _SENT_STATES:
        _fail("state", raw, f"{state.name} is never sent {direction}")
    return state


def decode_from_slave(buf: bytes | bytearray | memoryview) -> tuple[FrameFromSlave | None, int]:
    """Decode the frame at the start of `buf`, as received by a master.

    Returns:
        ``(None, 0)`` while `buf` holds less than a whole frame, else ``(frame, bytes consumed)``.

    Raises:
        FrameError: the bytes cannot be a valid slave frame, whatever follows them.
    """
    if len(buf) < _INT.size:
        return _NEED_MORE
    if _read_state(buf, "from slave to master") is HAState.HANDSHAKE:
        if len(buf) < SLAVE_HANDSHAKE_SIZE:
            return _NEED_MORE
        _, sync, learner, broker_id = _SLAVE_HANDSHAKE.unpack_from(buf)
        _check_flag("isSyncFromLastFile", sync)
        _check_flag("isAsyncLearner", learner)
        return SlaveHandshake(sync == 1, learner == 1, broker_id), SLAVE_HANDSHAKE_SIZE
    if len(buf) < SLAVE_ACK_SIZE:
        return _NEED_MORE
    _, max_offset = _SLAVE_ACK.unpack_from(buf)
    return SlaveAck(max_offset), SLAVE_ACK_SIZE


def decode_from_master(
    buf: bytes | bytearray | memoryview, *, view_body: bool = False
) -> tuple[FrameFromMaster | None, int]:
    """Decode the frame at the start of `buf`, as received by a slave; with `view_body` a transfer's body is a
    view of `buf` instead of a copy.

    Returns:
        ``(None, 0)`` while `buf` holds less than a whole frame, else ``(frame, bytes consumed)``.

    Raises:
        FrameError: the bytes cannot be a valid master frame, whatever follows them.
    """
    if len(buf) < _INT.size:
        return _NEED_MORE
    state = _read_state(buf, "from master to slave")
    if len(buf) < 2 * _INT.size:
        return _NEED_MORE
    (body_size,) = _INT.unpack_from(buf, _INT.size)
    if state is HAState.HANDSHAKE:
        return _decode_master_handshake(buf, body_size)
    return _decode_master_transfer(buf, body_size, view_body)


def _decode_master_handshake(buf: bytes | bytearray | memoryview, body_size: int) -> tuple[MasterHandshake | None, int]:
    _check_handshake_body_size(body_size)
    if len(buf) < MASTER_HANDSHAKE_HEADER_SIZE:
        return _NEED_MORE
    _, _, max_offset, last_epoch = _MASTER_HANDSHAKE.unpack_from(buf)
    _check_offset("masterMaxPhyOffset", max_offset)
    _check_last_epoch(last_epoch, body_size // EPOCH_ENTRY_SIZE)
    total = MASTER_HANDSHAKE_HEADER_SIZE + body_size
    if len(buf) < total:
        return _NEED_MORE
    entries = tuple(
        cast("tuple[int, int]", _EPOCH_ENTRY.unpack_from(buf, at))
        for at in range(MASTER_HANDSHAKE_HEADER_SIZE, total, EPOCH_ENTRY_SIZE)
    )
    return MasterHandshake(max_offset, last_epoch, entries), total


def _decode_master_transfer(
    buf: bytes | bytearray | memoryview, body_size: int, view_body: bool
) -> tuple[MasterTransfer | None, int]:
    _check_transfer_body_size(body_size)
    if len(buf) < TRANSFER_HEADER_SIZE:
        return _NEED_MORE
    _, _, offset, epoch, epoch_start_offset, confirm_offset = _TRANSFER.unpack_from(buf)
    _check_transfer_header(offset, epoch, epoch_start_offset, confirm_offset)
    total = TRANSFER_HEADER_SIZE + body_size
    if len(buf) < total:
        return _NEED_MORE
    body: bytes | memoryview = memoryview(buf)[TRANSFER_HEADER_SIZE:total]
    if not view_body:
        body = bytes(body)  # the one copy of the body
    return MasterTransfer(offset, epoch, epoch_start_offset, confirm_offset, body), total


# --- stream reader ---------------------------------------------------------------------------------

_F = TypeVar("_F", bound=Frame)
_DECODERS: dict[str, Callable[[memoryview, bool], tuple[Frame | None, int]]] = {
    "from_slave": lambda buf, _view_body: decode_from_slave(buf),
    "from_master": lambda buf, view_body: decode_from_master(buf, view_body=view_body),
}
_RECEIVE_AT_LEAST = 1 << 20
"""``receive_buffer`` offers at least this much room, so one receive can take many small frames."""
_STATE_AND_SIZE = struct.Struct(">ii")
_FRAME_SIZE_KNOWN_AT = _STATE_AND_SIZE.size  # a master frame's state and bodySize give its size
_CAPACITY = 4 * _RECEIVE_AT_LEAST
"""The reader's usual buffer size: a partial frame is moved to the front only when less than a receive is left."""


class FrameReader(Generic[_F]):
    """Turns the byte chunks of one connection into frames; what the socket code drives.

    Bytes arrive either copied in with ``feed``, or received straight into the reader's buffer
    (``receive_buffer``, then ``received``); a transfer body decoded from bytes received that way is a view of
    the buffer, valid only until the next ``receive_buffer`` or ``feed``, so a body is never copied on the way
    to the commit log. Every complete frame is decoded at once, so the reader only ever holds
    one incomplete frame: at most ``max_buffered`` bytes, which by default is the
    largest valid frame. A malformed frame is reported by ``frames()`` after the
    valid frames that preceded it; from then on the reader is dead (``feed``
    ignores data, ``frames`` raises the same error), because a TCP byte stream
    cannot be resynchronised. Call ``frames()`` after every ``feed`` or ``received``.
    """

    @overload
    def __init__(
        self: FrameReader[FrameFromSlave],
        direction: Literal["from_slave"],
        *,
        max_buffered: int = ...,
        before_reuse: Callable[[bytearray], None] | None = ...,
    ) -> None: ...
    @overload
    def __init__(
        self: FrameReader[FrameFromMaster],
        direction: Literal["from_master"],
        *,
        max_buffered: int = ...,
        before_reuse: Callable[[bytearray], None] | None = ...,
    ) -> None: ...
    def __init__(
        self,
        direction: Direction,
        *,
        max_buffered: int = MAX_BUFFERED,
        before_reuse: Callable[[bytearray], None] | None = None,
    ) -> None:
        """Read frames sent `direction` (``"from_slave"`` on the master, ``"from_master"`` on the slave).

        Without `before_reuse`, the caller is done with the views of one receive's bodies before the next
        ``receive_buffer``. With it, the reader receives into two buffers in turn and calls ``before_reuse(buffer)``
        before it overwrites one, which returns once nothing reads that buffer's old bodies any more: bytes keep
        arriving into one buffer while the bodies in the other are still being written.
        """
        if direction not in _DECODERS:
            raise ValueError(f"direction must be 'from_slave' or 'from_master', not {direction!r}")
        if before_reuse is not None and direction != "from_master":
            raise ValueError("before_reuse is for the slave's reader: only a master's frames carry bodies")
        if max_buffered < TRANSFER_HEADER_SIZE:
            raise ValueError(f"max_buffered must be at least {TRANSFER_HEADER_SIZE}, not {max_buffered}")
        self._decode = cast("Callable[[memoryview, bool], tuple[_F | None, int]]", _DECODERS[direction])
        self._max_buffered = max_buffered
        self._buffer = bytearray()
        self._start = self._end = 0  # the undecoded bytes are self._buffer[self._start : self._end]
        self._before_reuse = before_reuse
        self._spare: bytearray | None = None  # with before_reuse: the buffer received into before this one
        self._ready: deque[_F] = deque()
        self._error: FrameError | None = None

    @property
    def buffered(self) -> int:
        """Bytes received but not yet part of a complete frame."""
        return self._end - self._start

    @property
    def ready(self) -> int:
        """Complete frames received and not yet taken from ``frames()``."""
        return len(self._ready)

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        """Add bytes from the peer; never raises for bad input (``frames()`` reports it)."""
        if self._error is not None:
            return
        self._reserve(len(data))
        self._buffer[self._end : self._end + len(data)] = data
        self._end += len(data)
        self._decode_ready(view_body=False)

    def receive_buffer(self) -> memoryview:
        """Room at the end of the buffer to receive into; then call ``received``.

        One buffer: all the free room, at least 1 MiB, so one receive can take many small frames. Two buffers:
        exactly the rest of the frame being received and the next frame's header, so that a receive never ends
        inside a body that the buffer could not hold whole; a body then never has to be moved to the other buffer,
        only a header at most.
        """
        if self._before_reuse is None:
            self._reserve(_RECEIVE_AT_LEAST)
            return memoryview(self._buffer)[self._end :]
        want = self._to_receive()
        self._reserve(want)
        return memoryview(self._buffer)[self._end : self._end + want]

    def _to_receive(self) -> int:
        """The rest of the master frame being received and the next frame's header; only the rest of the
        header while the frame's size is not known yet."""
        held = self._end - self._start
        if held < _FRAME_SIZE_KNOWN_AT:
            return TRANSFER_HEADER_SIZE - held
        state, body_size = cast("tuple[int, int]", _STATE_AND_SIZE.unpack_from(self._buffer, self._start))
        header = MASTER_HANDSHAKE_HEADER_SIZE if state == HAState.HANDSHAKE else TRANSFER_HEADER_SIZE
        return max(0, header + body_size - held) + TRANSFER_HEADER_SIZE  # a bad size is reported by the decoder

    def received(self, n: int) -> None:
        """`n` bytes were received into the start of the last ``receive_buffer``."""
        if self._error is not None:
            return
        self._end += n
        self._decode_ready(view_body=True)

    def _reserve(self, n: int) -> None:
        """Make room for `n` more bytes after the undecoded ones.

        The undecoded bytes move to the front in place only while there is room enough there; otherwise to a new
        buffer (earlier frames may still hold views of the old one, which must not change size).
        """
        if len(self._buffer) - self._end >= n:
            return
        held = self._end - self._start
        old = memoryview(self._buffer)
        if self._before_reuse is not None:
            spare = self._spare
            if spare is None or len(spare) < held + n:
                spare = bytearray(max(_CAPACITY, held + n))
            else:
                self._before_reuse(spare)
            memoryview(spare)[:held] = old[self._start : self._end]
            self._spare = self._buffer if 0 < len(self._buffer) <= _CAPACITY else None
            self._buffer, self._start, self._end = spare, 0, held
            return
        if len(self._buffer) - held < n or len(self._buffer) > _CAPACITY:
            self._buffer = bytearray(max(_CAPACITY, held + n))
        memoryview(self._buffer)[:held] = old[self._start : self._end]
        self._start, self._end = 0, held

    def _decode_ready(self, *, view_body: bool) -> None:
        view = memoryview(self._buffer)
        try:
            while True:
                frame, used = self._decode(view[self._start : self._end], view_body)
                if frame is None:
                    break
                self._ready.append(frame)
                self._start += used
        except FrameError as exc:
            self._die(exc)
            return
        if self._start == self._end and self._before_reuse is None:  # else the front may hold bodies in use
            self._start = self._end = 0
        if self._end - self._start > self._max_buffered:
            reason = f"an incomplete frame exceeds max_buffered={self._max_buffered}"
            self._die(FrameError(f"buffered={self._end - self._start}: {reason}"))

    def _die(self, error: FrameError) -> None:
        # Drop the traceback: its frames reference views of the old buffer (up to 64 MiB).
        self._error = error.with_traceback(None)
        self._buffer = bytearray()
        self._spare = None
        self._start = self._end = 0

    def frames(self) -> Iterator[_F]:
        """Yield the complete frames received so far, oldest first.

        Raises:
            FrameError: after the valid frames, if the peer sent a malformed one.
        """
        while self._ready:
            yield self._ready.popleft()
        if self._error is not None:
            raise self._error.with_traceback(None)
