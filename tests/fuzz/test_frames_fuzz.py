"""HA frame decoders against damaged input: bit flips of valid frames and out-of-range values in every field.

tests/unit/agents/protocol/test_frames.py already feeds the decoders random byte streams, plausible pieces and every
truncation; this adds the two kinds of damage it does not reach. Out-of-range fields are checked against a model
of the documented rules (docs/protocol.md, "Validation"): a frame is accepted exactly when the rules allow it.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.protocol.frames import (
    EPOCH_ENTRY_SIZE,
    MASTER_HANDSHAKE_HEADER_SIZE,
    MAX_EPOCH_ENTRIES,
    MAX_TRANSFER_BODY,
    TRANSFER_HEADER_SIZE,
    Frame,
    FrameError,
    FrameFromMaster,
    FrameFromSlave,
    FrameReader,
    MasterHandshake,
    MasterTransfer,
    SlaveAck,
    SlaveHandshake,
    decode_from_master,
    decode_from_slave,
    encode,
)
from tests.harness.fuzzing import flip_bits, fuzz

Decoded = tuple[Frame | None, int]
INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)


def edge_ints(low: int, high: int) -> st.SearchStrategy[int]:
    """Mostly the values where the rules change (bounds, 0, ±1), sometimes anything in range."""
    edges = [low, low + 1, -2, -1, 0, 1, 2, 12, 2**31 - 1, 2**31, high - 1, high]
    return st.one_of(st.sampled_from([v for v in edges if low <= v <= high]), st.integers(low, high))


offsets = st.integers(0, 2**40)
epochs = st.integers(0, 2**31 - 1)
valid_frames: st.SearchStrategy[tuple[bytes, Callable[[bytes], Decoded]]] = st.one_of(
    st.builds(SlaveHandshake, st.booleans(), st.booleans(), st.integers(1, 2**63 - 1)).map(
        lambda f: (encode(f), decode_from_slave)
    ),
    st.builds(SlaveAck, offsets).map(lambda f: (encode(f), decode_from_slave)),
    st.lists(st.tuples(epochs, offsets), max_size=4).map(
        lambda pairs: (
            encode(
                MasterHandshake(
                    max((o for _, o in pairs), default=0),
                    max((e for e, _ in pairs), default=-1),
                    tuple(zip(sorted({e for e, _ in pairs}), sorted(o for _, o in pairs), strict=False)),
                )
            ),
            decode_from_master,
        )
    ),
    st.tuples(offsets, epochs, st.binary(max_size=48)).map(
        lambda t: (encode(MasterTransfer(t[0], t[1], t[0] // 2, t[0] - 1, t[2])), decode_from_master)
    ),
)


@fuzz(600)
@given(valid_frames, st.lists(st.integers(0, 10_000), min_size=1, max_size=3))
def test_a_bit_flipped_frame_is_refused_awaited_or_read_exactly(
    case: tuple[bytes, Callable[[bytes], Decoded]], bits: list[int]
) -> None:
    wire, decode = case
    damaged = flip_bits(wire, bits)
    try:
        frame, used = decode(damaged)
    except FrameError as exc:
        assert "=" in str(exc), "the message names the wire field and its value"
        return
    if frame is None:  # a flipped bodySize can ask for more bytes than arrived
        assert used == 0
        return
    assert encode(frame) == damaged[:used]  # nothing is read but what the bytes say


def _expect(accepted: bool, decode: Callable[[bytes], Decoded], wire: bytes, complete: bool = True) -> None:
    if not accepted:
        with pytest.raises(FrameError):
            decode(wire)
        return
    frame, used = decode(wire)
    if complete:
        assert frame is not None and encode(frame) == wire[:used]
    else:
        assert (frame, used) == (None, 0)


@fuzz(400)
@given(edge_ints(*INT32), edge_ints(-3, 3), edge_ints(-3, 3), edge_ints(*INT64))
def test_slave_handshake_fields(state: int, sync: int, learner: int, broker_id: int) -> None:
    wire = struct.pack(">ihhq", state, sync, learner, broker_id)
    if state == 2:  # a TRANSFER state makes the first 12 bytes an ack
        _expect(struct.unpack_from(">q", wire, 4)[0] >= 0, decode_from_slave, wire)
        return
    _expect(state == 1 and sync in (0, 1) and learner in (0, 1) and broker_id >= 1, decode_from_slave, wire)


@fuzz(300)
@given(edge_ints(*INT32), edge_ints(*INT64))
def test_slave_ack_fields(state: int, max_offset: int) -> None:
    wire = struct.pack(">iq", state, max_offset)
    if state == 1:  # a handshake needs 16 bytes: 12 are not enough to decide
        _expect(True, decode_from_slave, wire, complete=False)
        return
    _expect(state == 2 and max_offset >= 0, decode_from_slave, wire)


@fuzz(400)
@given(
    edge_ints(*INT32),
    edge_ints(-(2**31), 2**31 - 1),
    edge_ints(*INT64),
    edge_ints(*INT32),
    st.lists(st.tuples(edge_ints(*INT32), edge_ints(*INT64)), max_size=3),
)
def test_master_handshake_fields(
    state: int, body_size: int, max_offset: int, last_epoch: int, entries: list[tuple[int, int]]
) -> None:
    body = b"".join(struct.pack(">iq", e, o) for e, o in entries)
    wire = struct.pack(">iiqi", state, body_size, max_offset, last_epoch) + body
    if state != 1:
        return  # the state rules are covered with the slave frames and the transfer test
    size_ok = 0 <= body_size <= EPOCH_ENTRY_SIZE * MAX_EPOCH_ENTRIES and body_size % EPOCH_ENTRY_SIZE == 0
    count = body_size // EPOCH_ENTRY_SIZE if size_ok else 0
    header_ok = size_ok and max_offset >= 0 and (last_epoch >= 0 or (last_epoch == -1 and count == 0))
    complete = len(wire) >= MASTER_HANDSHAKE_HEADER_SIZE + body_size
    shown = entries[:count]
    entries_ok = all(e >= 0 and o >= 0 for e, o in shown) and all(
        b[0] > a[0] and b[1] >= a[1] for a, b in itertools.pairwise(shown)
    )
    _expect(header_ok and (entries_ok or not complete), decode_from_master, wire, complete)


@fuzz(400)
@given(
    edge_ints(*INT32),
    edge_ints(-(2**31), 2**31 - 1),
    edge_ints(*INT64),
    edge_ints(*INT32),
    edge_ints(*INT64),
    edge_ints(*INT64),
    st.binary(max_size=16),
)
def test_master_transfer_fields(
    state: int, body_size: int, offset: int, epoch: int, epoch_start: int, confirm: int, body: bytes
) -> None:
    wire = struct.pack(">iiqiqq", state, body_size, offset, epoch, epoch_start, confirm) + body
    if state == 1:
        return  # a handshake: see test_master_handshake_fields
    accepted = (
        state == 2
        and 0 <= body_size <= MAX_TRANSFER_BODY
        and offset >= 0
        and epoch >= 0
        and 0 <= epoch_start <= offset
        and confirm >= -1
    )
    _expect(accepted, decode_from_master, wire, complete=len(wire) >= TRANSFER_HEADER_SIZE + max(body_size, 0))


@fuzz(200)
@given(st.lists(valid_frames, min_size=1, max_size=4), st.integers(0, 4000), st.integers(1, 64))
def test_a_reader_fed_a_stream_with_one_flipped_bit_never_yields_a_frame_that_was_not_sent(
    frames: list[tuple[bytes, Callable[[bytes], Decoded]]], bit: int, chunk: int
) -> None:
    for decoder in (decode_from_slave, decode_from_master):
        stream = b"".join(wire for wire, decode in frames if decode is decoder)
        if not stream:
            continue
        damaged = flip_bits(stream, [bit])
        reader: FrameReader[FrameFromSlave] | FrameReader[FrameFromMaster] = (
            FrameReader("from_slave") if decoder is decode_from_slave else FrameReader("from_master")
        )
        got: list[bytes] = []
        try:
            for at in range(0, len(damaged), chunk):
                reader.feed(damaged[at : at + chunk])
                got.extend(encode(f) for f in reader.frames())
        except FrameError:
            pass
        assert damaged.startswith(b"".join(got))
