"""AutoSwitch HA frames: golden bytes, round trips, partial buffers, rejections, fuzzing.

The golden bytes are written out by hand from the Java layouts (big-endian), not produced with ``struct``,
so a wrong format string in the module cannot agree with itself.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.protocol.frames import (
    EPOCH_ENTRY_SIZE,
    MASTER_HANDSHAKE_HEADER_SIZE,
    MAX_BUFFERED,
    MAX_EPOCH_ENTRIES,
    MAX_TRANSFER_BODY,
    SLAVE_ACK_SIZE,
    SLAVE_HANDSHAKE_SIZE,
    TRANSFER_HEADER_SIZE,
    Frame,
    FrameError,
    FrameReader,
    HAState,
    MasterHandshake,
    MasterTransfer,
    SlaveAck,
    SlaveHandshake,
    decode_from_master,
    decode_from_slave,
    encode,
    encode_transfer_header,
)


def h(*parts: str) -> bytes:
    """Bytes from hex pieces, one piece per wire field."""
    return bytes.fromhex("".join(parts))


# --- golden bytes ----------------------------------------------------------------------------------

FROM_SLAVE_GOLDEN: list[tuple[Frame, bytes]] = [
    (SlaveHandshake(False, True, 2), h("00000001", "0000", "0001", "0000000000000002")),
    (SlaveHandshake(True, False, 2**63 - 1), h("00000001", "0001", "0000", "7fffffffffffffff")),
    (SlaveHandshake(True, True, 1), h("00000001", "0001", "0001", "0000000000000001")),
    (SlaveAck(0), h("00000002", "0000000000000000")),
    (SlaveAck(1_048_576), h("00000002", "0000000000100000")),
    (SlaveAck(0x0123456789ABCDEF), h("00000002", "0123456789abcdef")),
]

FROM_MASTER_GOLDEN: list[tuple[Frame, bytes]] = [
    (
        MasterHandshake(4096, 3, ((1, 0), (3, 1024))),
        h(
            *("00000001", "00000018", "0000000000001000", "00000003"),
            *("00000001", "0000000000000000"),
            *("00000003", "0000000000000400"),
        ),
    ),
    # An empty epoch cache: Java's lastEpoch() is -1 and the body is empty.
    (MasterHandshake(0, -1, ()), h("00000001", "00000000", "0000000000000000", "ffffffff")),
    (
        MasterTransfer(1024, 3, 1024, 512, b"abc"),
        h("00000002", "00000003", "0000000000000400", "00000003", "0000000000000400", "0000000000000200", "616263"),
    ),
    # A heartbeat: empty body; confirmOffset -1 ("not known yet").
    (
        MasterTransfer(2048, 3, 1024, -1, b""),
        h("00000002", "00000000", "0000000000000800", "00000003", "0000000000000400", "ffffffffffffffff"),
    ),
    (
        MasterTransfer(2**32, 2**31 - 1, 2**32, 2**32 - 1, b"\x00\xff"),
        h("00000002", "00000002", "0000000100000000", "7fffffff", "0000000100000000", "00000000ffffffff", "00ff"),
    ),
]

Decoder = Callable[[bytes | bytearray | memoryview], tuple[Frame | None, int]]

GOLDEN: list[tuple[Frame, bytes, Decoder]] = [(f, b, decode_from_slave) for f, b in FROM_SLAVE_GOLDEN] + [
    (f, b, decode_from_master) for f, b in FROM_MASTER_GOLDEN
]
GOLDEN_IDS = [f"{type(f).__name__}-{i}" for i, (f, _, _) in enumerate(GOLDEN)]


def test_state_codes_are_the_java_ordinals() -> None:
    assert {s.name: int(s) for s in HAState} == {"READY": 0, "HANDSHAKE": 1, "TRANSFER": 2, "SUSPEND": 3, "SHUTDOWN": 4}


def test_layout_sizes_match_the_java_constants() -> None:
    assert (SLAVE_HANDSHAKE_SIZE, SLAVE_ACK_SIZE) == (16, 12)
    assert (MASTER_HANDSHAKE_HEADER_SIZE, EPOCH_ENTRY_SIZE, TRANSFER_HEADER_SIZE) == (20, 12, 36)
    assert (MAX_EPOCH_ENTRIES, MAX_TRANSFER_BODY) == (1000, 64 * 1024 * 1024)
    assert MAX_BUFFERED == 36 + MAX_TRANSFER_BODY


@pytest.mark.parametrize(("frame", "wire", "decode"), GOLDEN, ids=GOLDEN_IDS)
def test_encode_writes_the_golden_bytes(frame: Frame, wire: bytes, decode: Decoder) -> None:
    assert encode(frame) == wire


@pytest.mark.parametrize(("frame", "wire", "decode"), GOLDEN, ids=GOLDEN_IDS)
def test_decode_reads_the_golden_bytes(frame: Frame, wire: bytes, decode: Decoder) -> None:
    assert decode(wire) == (frame, len(wire))


@pytest.mark.parametrize(("frame", "wire", "decode"), GOLDEN, ids=GOLDEN_IDS)
def test_every_proper_prefix_of_a_frame_waits_for_more(frame: Frame, wire: bytes, decode: Decoder) -> None:
    for cut in range(len(wire)):
        assert decode(wire[:cut]) == (None, 0), cut


@pytest.mark.parametrize(("frame", "wire", "decode"), GOLDEN, ids=GOLDEN_IDS)
def test_decode_accepts_bytearray_and_memoryview_and_leaves_them_resizable(
    frame: Frame, wire: bytes, decode: Decoder
) -> None:
    buffer = bytearray(b"\x99" * 5 + wire + b"\x00")
    with memoryview(buffer) as view:
        assert decode(view[5:]) == (frame, len(wire))
    assert decode(bytearray(wire)) == (frame, len(wire))
    del buffer[:5]  # would raise BufferError if the decoder kept an export of the buffer
    assert decode(buffer) == (frame, len(wire))


def test_transfer_header_alone_is_the_first_36_bytes_of_the_frame() -> None:
    frame = MasterTransfer(1024, 3, 1024, 512, b"abc")
    header = encode_transfer_header(1024, 3, 1024, 512, 3)
    assert header == h("00000002", "00000003", "0000000000000400", "00000003", "0000000000000400", "0000000000000200")
    assert header + frame.body == encode(frame)


def test_handshake_with_the_maximum_entry_count_round_trips() -> None:
    entries = tuple((epoch, epoch * 100) for epoch in range(MAX_EPOCH_ENTRIES))
    wire = encode(MasterHandshake(99_900, 999, entries))
    assert wire[4:8] == h("00002ee0")  # 12 * 1000
    assert decode_from_master(wire) == (MasterHandshake(99_900, 999, entries), 20 + 12_000)


def test_equal_start_offsets_are_accepted_although_java_drops_the_second_entry() -> None:
    wire = h(
        *("00000001", "00000018", "0000000000000400", "00000002"),
        *("00000001", "0000000000000400"),
        *("00000002", "0000000000000400"),
    )
    assert decode_from_master(wire) == (MasterHandshake(1024, 2, ((1, 1024), (2, 1024))), len(wire))


def test_several_frames_in_one_buffer_decode_one_at_a_time() -> None:
    stream = b"".join(wire for _, wire in FROM_MASTER_GOLDEN) + h("00000002", "0000")
    decoded = []
    while True:
        frame, used = decode_from_master(stream)
        if frame is None:
            break
        decoded.append(frame)
        stream = stream[used:]
    assert decoded == [frame for frame, _ in FROM_MASTER_GOLDEN]
    assert stream == h("00000002", "0000")


# --- rejections ------------------------------------------------------------------------------------

SLAVE_ERRORS = [
    pytest.param(h("00000005"), "state=5", id="unknown-state"),
    pytest.param(h("ffffffff"), "state=-1", id="negative-state"),
    pytest.param(h("00000000"), "READY is never sent", id="ready"),
    pytest.param(h("00000003"), "SUSPEND is never sent", id="suspend"),
    pytest.param(h("00000004"), "SHUTDOWN is never sent", id="shutdown"),
    pytest.param(h("00000001", "0002", "0000", "0000000000000001"), "isSyncFromLastFile=2", id="sync-flag-2"),
    pytest.param(h("00000001", "0000", "ffff", "0000000000000001"), "isAsyncLearner=-1", id="learner-flag-neg"),
    pytest.param(h("00000001", "0000", "0000", "0000000000000000"), "slaveBrokerId=0", id="broker-id-0"),
    pytest.param(h("00000001", "0000", "0000", "ffffffffffffffff"), "slaveBrokerId=-1", id="broker-id-neg"),
    pytest.param(h("00000002", "ffffffffffffffff"), "maxOffset=-1", id="ack-negative"),
    pytest.param(h("00000002", "8000000000000000"), "maxOffset=-9223372036854775808", id="ack-min-long"),
]

HANDSHAKE_HEADER = ("00000001", "00000018", "0000000000001000", "00000003")
TRANSFER_OK = {
    "state": "00000002",
    "bodySize": "00000000",
    "offset": "0000000000000400",
    "epoch": "00000003",
    "epochStartOffset": "0000000000000400",
    "confirmOffset": "0000000000000200",
}


def transfer_with(**fields: str) -> bytes:
    return h(*{**TRANSFER_OK, **fields}.values())


MASTER_ERRORS = [
    pytest.param(h("00000007"), "state=7", id="unknown-state"),
    pytest.param(h("00000000"), "READY is never sent", id="ready"),
    pytest.param(h("00000003"), "SUSPEND is never sent", id="suspend"),
    pytest.param(h("00000004"), "SHUTDOWN is never sent", id="shutdown"),
    pytest.param(h("00000001", "fffffff4"), "bodySize=-12", id="handshake-negative-size"),
    pytest.param(h("00000001", "0000000d"), "bodySize=13", id="handshake-size-not-multiple-of-12"),
    pytest.param(h("00000001", "00002eec"), "bodySize=12012", id="handshake-1001-entries"),
    pytest.param(h("00000001", "00000000", "ffffffffffffffff", "00000000"), "masterMaxPhyOffset=-1", id="neg-max"),
    pytest.param(h("00000001", "00000000", "0000000000000000", "fffffffe"), "masterLastEpoch=-2", id="last-epoch-2"),
    pytest.param(h("00000001", "0000000c", "0000000000000000", "ffffffff"), "masterLastEpoch=-1", id="neg1-entries"),
    pytest.param(
        h(*HANDSHAKE_HEADER, "00000002", "0000000000000000", "00000002", "0000000000000400"),
        "entries[1].epoch=2",
        id="equal-epochs",
    ),
    pytest.param(
        h(*HANDSHAKE_HEADER, "00000003", "0000000000000000", "00000002", "0000000000000400"),
        "entries[1].epoch=2",
        id="descending-epochs",
    ),
    pytest.param(
        h(*HANDSHAKE_HEADER, "00000001", "0000000000000400", "00000002", "0000000000000000"),
        "entries[1].startOffset=0",
        id="descending-start-offsets",
    ),
    pytest.param(
        h(*HANDSHAKE_HEADER, "ffffffff", "0000000000000000", "00000002", "0000000000000400"),
        "entries[0].epoch=-1",
        id="negative-entry-epoch",
    ),
    pytest.param(
        h(*HANDSHAKE_HEADER, "00000001", "fffffffffffffffb", "00000002", "0000000000000400"),
        "entries[0].startOffset=-5",
        id="negative-entry-start",
    ),
    pytest.param(h("00000002", "ffffffff"), "bodySize=-1", id="transfer-negative-size"),
    pytest.param(h("00000002", "04000001"), "bodySize=67108865", id="transfer-body-over-max"),
    pytest.param(transfer_with(offset="ffffffffffffffff", epochStartOffset="0" * 16), "offset=-1", id="neg-offset"),
    pytest.param(transfer_with(epoch="ffffffff"), "epoch=-1", id="negative-epoch"),
    pytest.param(transfer_with(epochStartOffset="ffffffffffffffff"), "epochStartOffset=-1", id="neg-epoch-start"),
    pytest.param(transfer_with(epochStartOffset="0000000000000800"), "epochStartOffset=2048", id="epoch-start-beyond"),
    pytest.param(transfer_with(confirmOffset="fffffffffffffffe"), "confirmOffset=-2", id="confirm-below-minus-1"),
]


@pytest.mark.parametrize(("wire", "message"), SLAVE_ERRORS)
def test_malformed_slave_frames_are_refused_whatever_follows(wire: bytes, message: str) -> None:
    for data in (wire, wire + bytes(100)):
        with pytest.raises(FrameError, match=message.replace("[", r"\[")):
            decode_from_slave(data)


@pytest.mark.parametrize(("wire", "message"), MASTER_ERRORS)
def test_malformed_master_frames_are_refused_whatever_follows(wire: bytes, message: str) -> None:
    for data in (wire, wire + bytes(100)):
        with pytest.raises(FrameError, match=message.replace("[", r"\[")):
            decode_from_master(data)


@pytest.mark.parametrize(
    "header",
    [
        pytest.param(h("00000002", "04000000"), id="size-only"),
        pytest.param(transfer_with(bodySize="04000000"), id="whole-header"),
    ],
)
def test_a_maximal_body_is_awaited_not_refused(header: bytes) -> None:
    assert decode_from_master(header) == (None, 0)


def test_a_bad_header_fails_before_its_body_arrives() -> None:
    header = transfer_with(bodySize="04000000", epochStartOffset="0000000000000800")
    assert len(header) == TRANSFER_HEADER_SIZE
    with pytest.raises(FrameError, match="epochStartOffset=2048: beyond the batch offset 1024"):
        decode_from_master(header)


def test_a_frame_for_the_other_direction_is_refused() -> None:
    wire = encode(MasterHandshake(4096, 3, ((1, 0), (3, 1024))))  # bytes 6..7 = 0x0018 read as isAsyncLearner
    with pytest.raises(FrameError, match="isAsyncLearner=24"):
        decode_from_slave(wire)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        pytest.param(lambda: SlaveHandshake(False, False, 0), "slaveBrokerId=0", id="broker-id-0"),
        pytest.param(lambda: SlaveHandshake(0, False, 1), "isSyncFromLastFile=0: must be a bool", id="int-flag"),  # type: ignore[arg-type]
        pytest.param(lambda: SlaveAck(-1), "maxOffset=-1", id="negative-ack"),
        pytest.param(lambda: SlaveAck(2**63), "maxOffset=9223372036854775808", id="ack-overflows-long"),
        pytest.param(lambda: SlaveAck(True), "maxOffset=True: must be an int", id="bool-offset"),
        pytest.param(lambda: SlaveAck(1.0), "maxOffset=1.0: must be an int", id="float-offset"),  # type: ignore[arg-type]
        pytest.param(lambda: MasterHandshake(0, 2**31, ((1, 0),)), "masterLastEpoch=2147483648", id="epoch-overflow"),
        pytest.param(lambda: MasterHandshake(0, 1, [(1, 0)]), "entries=", id="list-entries"),  # type: ignore[arg-type]
        pytest.param(lambda: MasterHandshake(0, 1, ((1, 0, 0),)), "entries\\[0\\]=", id="triple-entry"),  # type: ignore[arg-type]
        pytest.param(
            lambda: MasterHandshake(0, 1000, tuple((e, 0) for e in range(1001))),
            "more than MAX_EPOCH_ENTRIES=1000",
            id="1001-entries",
        ),
        pytest.param(lambda: MasterTransfer(0, 0, 1, 0, b""), "epochStartOffset=1", id="epoch-start-beyond"),
        pytest.param(lambda: MasterTransfer(0, 0, 0, -2, b""), "confirmOffset=-2", id="confirm-2"),
        pytest.param(lambda: encode_transfer_header(0, 0, 0, 0, -1), "bodySize=-1", id="header-negative-size"),
        pytest.param(
            lambda: encode_transfer_header(0, 0, 0, 0, MAX_TRANSFER_BODY + 1), "bodySize=67108865", id="header-size"
        ),
        pytest.param(lambda: encode_transfer_header(0, -1, 0, 0, 0), "epoch=-1", id="header-negative-epoch"),
    ],
)
def test_frames_we_would_refuse_cannot_be_built(build: Callable[[], object], message: str) -> None:
    with pytest.raises(FrameError, match=message):
        build()


def test_a_transfer_body_over_the_maximum_cannot_be_built() -> None:
    with pytest.raises(FrameError, match="bodySize=67108865"):
        MasterTransfer(0, 0, 0, 0, bytes(MAX_TRANSFER_BODY + 1))


def test_encode_refuses_non_frames() -> None:
    with pytest.raises(TypeError, match="not an HA frame: str"):
        encode("frame")  # type: ignore[arg-type]


# --- FrameReader -----------------------------------------------------------------------------------


def test_reader_fed_one_byte_at_a_time_yields_every_frame() -> None:
    reader = FrameReader("from_slave")
    stream = b"".join(wire for _, wire in FROM_SLAVE_GOLDEN)
    got: list[Frame] = []
    for index in range(len(stream)):
        reader.feed(stream[index : index + 1])
        got.extend(reader.frames())
    assert got == [frame for frame, _ in FROM_SLAVE_GOLDEN]
    assert reader.buffered == 0


def test_reader_holds_only_the_incomplete_tail() -> None:
    reader = FrameReader("from_master")
    heartbeat = FROM_MASTER_GOLDEN[3][1]
    reader.feed(heartbeat + heartbeat[:10])
    assert reader.buffered == 10
    reader.feed(heartbeat[10:])
    assert list(reader.frames()) == [FROM_MASTER_GOLDEN[3][0]] * 2
    assert reader.buffered == 0


def test_reader_reassembles_a_large_body_from_socket_sized_chunks() -> None:
    body = bytes(range(256)) * 4096  # 1 MiB
    stream = encode_transfer_header(0, 1, 0, -1, len(body)) + body
    reader = FrameReader("from_master")
    got: list[Frame] = []
    for start in range(0, len(stream), 65536):
        reader.feed(stream[start : start + 65536])
        got.extend(reader.frames())
    assert got == [MasterTransfer(0, 1, 0, -1, body)]


def test_reader_yields_the_valid_frames_then_the_error_and_stays_dead() -> None:
    reader = FrameReader("from_slave")
    reader.feed(encode(SlaveAck(5)) + h("00000000") + encode(SlaveAck(6)))
    frames = reader.frames()
    assert next(frames) == SlaveAck(5)
    with pytest.raises(FrameError, match="READY is never sent"):
        next(frames)
    reader.feed(encode(SlaveAck(7)))
    assert reader.buffered == 0
    with pytest.raises(FrameError, match="READY is never sent"):
        list(reader.frames())


def test_reader_refuses_to_buffer_beyond_its_bound() -> None:
    reader = FrameReader("from_master", max_buffered=100)
    reader.feed(encode_transfer_header(0, 1, 0, 0, 200) + bytes(64))
    assert list(reader.frames()) == []
    reader.feed(bytes(1))
    with pytest.raises(FrameError, match="buffered=101: an incomplete frame exceeds max_buffered=100"):
        list(reader.frames())


def test_reader_default_bound_admits_the_largest_frame() -> None:
    reader = FrameReader("from_master")
    reader.feed(encode_transfer_header(0, 1, 0, 0, MAX_TRANSFER_BODY))
    reader.feed(bytes(MAX_TRANSFER_BODY - 1))
    assert list(reader.frames()) == []
    assert reader.buffered == MAX_BUFFERED - 1
    reader.feed(b"\x00" + encode_transfer_header(0, 1, 0, 0, 0)[:4])
    (frame,) = reader.frames()
    assert isinstance(frame, MasterTransfer) and len(frame.body) == MAX_TRANSFER_BODY
    assert reader.buffered == 4


def test_a_reader_with_two_buffers_never_overwrites_a_body_still_in_use() -> None:
    """The slave keeps receiving while the bodies of earlier receives are still being written: the reader turns
    to its other buffer and asks before it overwrites one (``before_reuse``), and only then may those bodies go.
    A receive ends at most a header past the frame it completes, so no more than a header is ever moved over."""
    bodies = [bytes([i % 251]) * (1000 + i * 7919 % 700_000) for i in range(150)]  # ~22 MB
    handshake = encode(MasterHandshake(5, 2, ((1, 0), (2, 3))))
    heartbeat = encode_transfer_header(0, 1, 0, 0, 0)
    stream = handshake + b"".join(
        encode_transfer_header(0, 1, 0, 0, len(b)) + b + heartbeat * (i % 3 == 0) for i, b in enumerate(bodies)
    )
    in_use: list[tuple[memoryview, bytes]] = []  # (the view a frame gave, what it must still say)
    reused: list[int] = []
    moved: list[int] = []

    def before_reuse(buffer: bytearray) -> None:
        reused.append(id(buffer))
        moved.append(reader.buffered)
        for view, expected in [entry for entry in in_use if entry[0].obj is buffer]:
            assert bytes(view) == expected, "a body changed before its buffer was given back"
            in_use.remove((view, expected))

    reader = FrameReader("from_master", before_reuse=before_reuse)
    got: list[bytes] = []
    at = 0
    for size in itertools.cycle([300_000, 1 << 20, 5, 2_500_000, 77_777, 3]):
        if at == len(stream):
            break
        room = reader.receive_buffer()
        n = min(size, len(room), len(stream) - at)
        room[:n] = stream[at : at + n]
        reader.received(n)
        at += n
        for frame in reader.frames():
            if isinstance(frame, MasterHandshake):
                assert frame == MasterHandshake(5, 2, ((1, 0), (2, 3))) and not got
                continue
            assert isinstance(frame, MasterTransfer) and isinstance(frame.body, memoryview)
            in_use.append((frame.body, bytes(frame.body)))
            got.append(bytes(frame.body))
    assert [body for body in got if body] == bodies
    assert all(bytes(view) == expected for view, expected in in_use)
    assert len(reused) >= 3 and len(set(reused)) == 2, "two buffers, taken in turn"
    assert max(moved) <= TRANSFER_HEADER_SIZE, "only a header is moved to the other buffer"


def test_only_the_slaves_reader_takes_two_buffers() -> None:
    with pytest.raises(ValueError, match="before_reuse is for the slave's reader"):
        FrameReader("from_slave", before_reuse=lambda buffer: None)


def test_reader_rejects_an_unknown_direction() -> None:
    with pytest.raises(ValueError, match="direction must be 'from_slave' or 'from_master', not 'sideways'"):
        FrameReader("sideways")  # type: ignore[call-overload]


def test_reader_rejects_a_bound_smaller_than_a_header() -> None:
    with pytest.raises(ValueError, match="max_buffered must be at least 36, not 35"):
        FrameReader("from_slave", max_buffered=35)


# --- properties ------------------------------------------------------------------------------------

offsets = st.integers(min_value=0, max_value=2**63 - 1)
epochs = st.integers(min_value=0, max_value=2**31 - 1)


@st.composite
def epoch_entries(draw: st.DrawFn, max_size: int = 8) -> tuple[tuple[int, int], ...]:
    found = sorted(draw(st.sets(epochs, max_size=max_size)))
    starts = sorted(draw(st.lists(offsets, min_size=len(found), max_size=len(found))))
    return tuple(zip(found, starts, strict=True))


@st.composite
def master_handshakes(draw: st.DrawFn) -> MasterHandshake:
    entries = draw(epoch_entries())
    # Usually the last entry's epoch (or -1 for none), as Java sends; any epoch is well-formed.
    last = draw(st.just(entries[-1][0] if entries else -1) | epochs)
    return MasterHandshake(draw(offsets), last, entries)


@st.composite
def master_transfers(draw: st.DrawFn) -> MasterTransfer:
    offset = draw(offsets)
    epoch_start = draw(st.integers(min_value=0, max_value=offset))
    confirm = draw(st.integers(min_value=-1, max_value=2**63 - 1))
    return MasterTransfer(offset, draw(epochs), epoch_start, confirm, draw(st.binary(max_size=64)))


slave_frames: st.SearchStrategy[SlaveHandshake | SlaveAck] = st.one_of(
    st.builds(SlaveHandshake, st.booleans(), st.booleans(), st.integers(min_value=1, max_value=2**63 - 1)),
    st.builds(SlaveAck, offsets),
)
master_frames: st.SearchStrategy[MasterHandshake | MasterTransfer] = st.one_of(master_handshakes(), master_transfers())

DECODERS = [pytest.param(decode_from_slave, id="from_slave"), pytest.param(decode_from_master, id="from_master")]


def _with_decoder(decoder: Decoder) -> Callable[[Frame], tuple[Frame, Decoder]]:
    return lambda frame: (frame, decoder)


any_frame_with_decoder = st.one_of(
    slave_frames.map(_with_decoder(decode_from_slave)), master_frames.map(_with_decoder(decode_from_master))
)


@given(any_frame_with_decoder)
def test_round_trip_and_every_prefix_waits(case: tuple[Frame, Decoder]) -> None:
    frame, decode = case
    wire = encode(frame)
    assert decode(wire + b"\x07") == (frame, len(wire))
    for cut in range(len(wire)):
        assert decode(wire[:cut]) == (None, 0)


@given(st.lists(master_frames, max_size=6), st.lists(st.integers(min_value=1, max_value=50), min_size=1))
def test_reader_yields_the_sent_frames_however_the_stream_is_cut(frames: list[Frame], cuts: list[int]) -> None:
    stream = b"".join(encode(f) for f in frames)
    reader = FrameReader("from_master")
    got: list[Frame] = []
    position = 0
    for step in cuts * (len(stream) // sum(cuts) + 1):
        reader.feed(stream[position : position + step])
        got.extend(reader.frames())
        position += step
    assert got == frames
    assert reader.buffered == 0


def plausible_pieces() -> st.SearchStrategy[bytes]:
    """Byte pieces that reach deep into the decoders: valid frames, near-valid headers, and noise."""
    states = st.sampled_from([-1, 0, 1, 2, 3, 4, 5])
    sizes = st.sampled_from([-12, -1, 0, 1, 3, 12, 13, 24, 12_000, 12_012, MAX_TRANSFER_BODY, MAX_TRANSFER_BODY + 1])
    return st.one_of(
        slave_frames.map(encode),
        master_frames.map(encode),
        st.tuples(states, sizes, st.binary(max_size=40)).map(lambda t: struct.pack(">ii", t[0], t[1]) + t[2]),
        st.tuples(states, st.sampled_from([-1, 0, 1, 2]), st.binary(max_size=12)).map(
            lambda t: struct.pack(">ihh", t[0], t[1], t[1]) + t[2]
        ),
        st.binary(max_size=48),
    )


fuzz_streams = st.one_of(st.binary(max_size=200), st.lists(plausible_pieces(), max_size=6).map(b"".join))


@pytest.mark.parametrize("decode", DECODERS)
@settings(max_examples=400)
@given(data=fuzz_streams, cut=st.integers(min_value=0, max_value=250))
def test_fuzz_decoders_only_refuse_with_frame_error_and_return_exact_frames(
    decode: Decoder, data: bytes, cut: int
) -> None:
    try:
        frame, used = decode(data)
    except FrameError:
        with pytest.raises(FrameError):  # more bytes never rescue a refused frame
            decode(data + bytes(cut))
        return
    if frame is None:
        assert used == 0
        return
    assert 0 < used <= len(data)
    assert encode(frame) == data[:used]
    assert decode(data[: min(cut, used - 1)]) == (None, 0)


@pytest.mark.parametrize("direction", ["from_slave", "from_master"])
@settings(max_examples=300)
@given(data=fuzz_streams, cuts=st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=8))
def test_fuzz_reader_yields_exact_frames_then_at_most_a_frame_error(
    direction: str, data: bytes, cuts: list[int]
) -> None:
    reader: FrameReader[Frame] = FrameReader(direction)  # type: ignore[call-overload]
    got: list[Frame] = []
    failed = False
    position = 0
    for step in cuts * (len(data) // sum(cuts) + 1):
        reader.feed(data[position : position + step])
        position += step
        try:
            got.extend(reader.frames())
        except FrameError:
            failed = True
            break
    replay = b"".join(encode(f) for f in got)
    assert data.startswith(replay)
    if not failed:
        assert reader.buffered == len(data) - len(replay) < MAX_BUFFERED
