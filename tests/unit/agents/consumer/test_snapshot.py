"""Snapshots: round trips, strict decoding, rebuild from any cut, and the retention floor they set."""

from __future__ import annotations

import struct
from dataclasses import replace
from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.consumer.errors import StateFormatError
from agents.consumer.progress import OffsetProgress
from agents.consumer.records import Escaped, EscapeKey, OffsetCommitted, TimerDelivered, Version, write_escaped
from agents.consumer.snapshot import Snapshot, advance, decode, encode, rebuild, retained_floor, take
from agents.consumer.state import RESOLUTIONS_KEPT, Committed, ConsumerState, apply_all
from agents.consumer.wire import Writer
from agents.ha.retention import Floors, Policy, Segment, plan
from agents.pop.events import Acked
from agents.pop.model import Inflight, QueueKey, QueueState
from agents.store.crc import crc32
from agents.transaction.half import Resolution
from tests.harness.consumer_runs import STEPS, play
from tests.harness.fuzzing import flip_bits, fuzz

Q = QueueKey("G", "T", 0)
R = QueueKey("H", "T", 1)
QUEUE = QueueState(
    3, 7, MappingProxyType({4: Inflight(5, 900, 2), 6: Inflight(6, 950, 1)}), MappingProxyType({5: 2}), 7, "a"
)
STATE = ConsumerState(9, MappingProxyType({Q: Committed(12, 100), R: Committed(0, 5)}), MappingProxyType({R: QUEUE}))
SNAP = Snapshot(4096, STATE)
TIMED = encode(Snapshot(4096, replace(STATE, timer=OffsetProgress(3, frozenset({5, 9})))))


def encode_escaped(e: Escaped) -> bytearray:
    w = Writer()
    write_escaped(w, e)
    return w.out


def _sealed(body: bytes) -> bytes:
    """`body` with a valid checksum, so a test reaches the rules behind the CRC."""
    return body + struct.pack(">I", crc32(body))


def test_a_snapshot_round_trips_and_has_one_encoding() -> None:
    data = encode(SNAP)
    assert data.startswith(b"MQCS\x01\x80\x20\x09")  # magic, version 1, covered 4096, seq 9
    assert decode(data) == SNAP
    reordered = ConsumerState(9, MappingProxyType(dict(reversed(list(STATE.offsets.items())))), STATE.queues)
    assert encode(Snapshot(4096, reordered)) == data


def test_timer_progress_makes_a_version_2_snapshot() -> None:
    """A state with delayed-message progress is version 2, its floor and delivered offsets after the queues;
    one without stays version 1, which a broker from before delayed messages reads."""
    assert TIMED.startswith(b"MQCS\x02") and TIMED[:-4].endswith(b"\x03\x02\x05\x09")
    assert decode(TIMED).state.timer == OffsetProgress(3, frozenset({5, 9}))
    assert encode(Snapshot(4096, replace(STATE, timer=OffsetProgress()))) == DATA


def test_an_empty_state_round_trips() -> None:
    assert decode(encode(Snapshot(0, ConsumerState()))) == Snapshot(0, ConsumerState())


def _queue_snapshot(queue: QueueState) -> bytes:
    return encode(Snapshot(0, ConsumerState(1, MappingProxyType({}), MappingProxyType({R: queue}))))


DATA = encode(SNAP)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", r"no MQCS magic at its start \(not a snapshot\)"),
        (b"MQCS", "4 bytes is too short"),
        (b"MQCS\x06" + DATA[5:], r"version 6 is not 1..5 \(written by a newer broker\?\)"),
        (_sealed(b"MQCS\x02" + DATA[5:-4] + b"\x00\x00"), r"version 2 without timer progress"),
        (_sealed(TIMED[:-5] + b"\x05"), r"timer delivered offset 5 is outside 6\.\."),
        (DATA[:-1] + bytes([DATA[-1] ^ 1]), "checksum [0-9a-f]{8} does not match [0-9a-f]{8}"),
        (DATA[:20] + bytes([DATA[20] ^ 0x10]) + DATA[21:], "checksum"),
        (_sealed(DATA[:-4] + b"\x00"), r"1 bytes follow the end"),
        (_sealed(DATA[:-10]), r"deadlineMs is cut short \(at byte 42\)"),
        # the two offsets in the wrong order: H/T/1 before G/T/0
        (
            _sealed(b"MQCS\x01\x00\x01\x02\x01H\x01T\x01\x00\x05\x01G\x01T\x00\x0c\x00\x00"),
            "key G/T/0 is out of order or repeated",
        ),
        (
            _queue_snapshot(QueueState(3, 7, MappingProxyType({5: Inflight(1, 0, 1)}), MappingProxyType({5: 1}), 2)),
            "H/T/1 offset 5 is both in flight and done",
        ),
        (
            _queue_snapshot(QueueState(3, 7, MappingProxyType({7: Inflight(1, 0, 1)}), MappingProxyType({}), 2)),
            r"H/T/1 in-flight offset 7 is outside 3\.\.6",
        ),
        (
            _queue_snapshot(QueueState(3, 7, MappingProxyType({}), MappingProxyType({3: 1}), 2)),
            r"H/T/1 done offset 3 is outside 4\.\.6",
        ),
        (
            _queue_snapshot(QueueState(3, 7, MappingProxyType({4: Inflight(2, 0, 1)}), MappingProxyType({}), 2)),
            r"H/T/1 ticket 2 is outside 1\.\.1",
        ),
        (_queue_snapshot(QueueState(8, 7)), r"scanned 7 is outside 8\.\."),
    ],
)
def test_decode_names_what_is_wrong(data: bytes, problem: str) -> None:
    with pytest.raises(StateFormatError, match="^consumer-state snapshot: " + problem):
        decode(data)


@fuzz(300)
@given(st.lists(st.integers(0, len(DATA) * 8 - 1), min_size=1, max_size=3, unique=True))
def test_any_flipped_bit_is_caught(bits: list[int]) -> None:
    with pytest.raises(StateFormatError):
        decode(flip_bits(DATA, bits))


def test_a_snapshot_never_covers_unconfirmed_records() -> None:
    assert take(STATE, 100, 100) == Snapshot(100, STATE)
    with pytest.raises(ValueError, match=r"offset 101 would cover unconfirmed records \(confirmOffset 100\)"):
        take(STATE, 101, 100)


@fuzz(200)
@given(STEPS, st.data())
def test_rebuild_from_a_snapshot_at_any_cut_equals_the_whole_log(
    steps: list[tuple[str, int, int]], data: st.DataObject
) -> None:
    """Record i stands at commit-log offset 100 * i; the reader may start anywhere below the covered offset."""
    records = play(steps).records
    cut = data.draw(st.integers(0, len(records)))
    start = data.draw(st.integers(0, cut))
    snapshot = decode(encode(take(apply_all(None, records[:cut]), 100 * cut, 100 * len(records))))
    assert rebuild(snapshot, records[start:]) == apply_all(None, records)
    assert rebuild(None, records) == apply_all(None, records)


@pytest.mark.parametrize(("snapshot", "floor"), [(None, 0), (SNAP, 4096)])
def test_the_snapshot_is_the_retained_floor(snapshot: Snapshot | None, floor: int) -> None:
    assert retained_floor(snapshot) == floor


def test_retention_deletes_below_the_snapshot_and_never_above() -> None:
    segments = [Segment(0, 4096, 0), Segment(4096, 8192, 0), Segment(8192, 12288, 0)]
    for snapshot, deleted in [(None, ()), (SNAP, (Segment(0, 4096, 0),))]:
        floors = Floors(confirm=12288, retained=retained_floor(snapshot))
        run = plan(segments, now_ms=10**12, hour=4, disk_used=0.1, policy=Policy(), floors=floors)
        assert run.segments == deleted


@fuzz(200)
@given(STEPS, st.data())
def test_advancing_snapshot_by_snapshot_equals_the_whole_log(
    steps: list[tuple[str, int, int]], data: st.DataObject
) -> None:
    """Records laid out in a log of 10-byte records; snapshots cut at confirmOffsets that rise, some mid-record."""
    run = play(steps)
    stored = [(i * 10, 10, r) for i, r in enumerate(run.records)]
    end = len(stored) * 10
    cuts = sorted(data.draw(st.lists(st.integers(0, end), max_size=5)))
    snapshot: Snapshot | None = None
    for confirm in [*cuts, end]:
        start = snapshot.covered if snapshot else 0
        snapshot = advance(snapshot, [s for s in stored if s[0] >= start], confirm)
        assert snapshot.covered == confirm - confirm % 10  # a record the cut goes through is left for the next one
    assert snapshot is not None and snapshot.state == apply_all(None, run.records)


def test_a_lower_confirm_offset_keeps_the_snapshot() -> None:
    base = Snapshot(50, ConsumerState())
    assert advance(base, [], 40) is base


KEY1, KEY2 = EscapeKey(2, 1_000, 1), EscapeKey(3, 5, 0)
HELD = {
    "broker-b": MappingProxyType({KEY1: Escaped("broker-b", KEY1, Version(1, 4), Acked(Q, 5, 2))}),
    "broker-c": MappingProxyType(
        {
            KEY1: Escaped("broker-c", KEY1, Version(), TimerDelivered((7,))),
            KEY2: Escaped("broker-c", KEY2, Version(), OffsetCommitted(R, 3, 9, epoch=2)),
        }
    ),
}
ESCAPING = replace(STATE, versions=MappingProxyType({R: Version(2, 8)}), escaped=MappingProxyType(HELD))


@pytest.mark.parametrize(
    "state",
    [
        ESCAPING,
        replace(ESCAPING, escaped=MappingProxyType({})),
        replace(ESCAPING, versions=MappingProxyType({}), timer=OffsetProgress(3, frozenset({5}))),
    ],
)
def test_versions_and_escaped_changes_make_a_version_3_snapshot(state: ConsumerState) -> None:
    """Versions and escaped changes follow the timer (empty or not); a state without them keeps version 1 or 2."""
    data = encode(Snapshot(4096, state))
    assert data.startswith(b"MQCS\x03")
    assert decode(data) == Snapshot(4096, state)
    assert encode(Snapshot(4096, replace(state, versions={}, escaped={})))[4] in (1, 2)


def test_a_version_3_snapshot_without_rip_32_state_or_in_disorder_is_refused() -> None:
    empty = _sealed(b"MQCS\x03" + DATA[5:-4] + bytes([0, 0, 0, 0]))  # timer 0, no versions, no escaped
    with pytest.raises(StateFormatError, match="version 3 without versions or escaped changes"):
        decode(empty)
    two = Snapshot(0, replace(ConsumerState(1), escaped=MappingProxyType({"broker-c": HELD["broker-c"]})))
    body = encode(two)[:-4]
    first, second = (bytes(encode_escaped(e)) for e in HELD["broker-c"].values())
    swapped = body.replace(first + second, second + first)
    assert swapped != body
    with pytest.raises(StateFormatError, match=r"escaped change broker-c/2/1000/1 is out of order or repeated"):
        decode(_sealed(swapped))


@pytest.mark.parametrize(
    "state",
    [
        replace(STATE, transactions=OffsetProgress(4, frozenset({6, 9})), checks=MappingProxyType({5: 2, 7: 15})),
        replace(ESCAPING, transactions=OffsetProgress(0, frozenset({1}))),
        replace(STATE, checks=MappingProxyType({0: 1})),
    ],
)
def test_transactions_make_a_version_4_snapshot(state: ConsumerState) -> None:
    """Ended transactions and check counts follow the RIP-32 part (empty or not); without them a state keeps its
    older version."""
    data = encode(Snapshot(4096, state))
    assert data.startswith(b"MQCS\x04")
    assert decode(data) == Snapshot(4096, state)
    assert encode(Snapshot(4096, replace(state, transactions=OffsetProgress(), checks={})))[4] in (1, 2, 3)


def test_a_version_4_snapshot_without_transactions_or_with_an_ended_one_checked_is_refused() -> None:
    empty = _sealed(b"MQCS\x04" + DATA[5:-4] + bytes([0, 0, 0, 0, 0, 0, 0]))  # timer, versions, escaped, tx: none
    with pytest.raises(StateFormatError, match="version 4 without transactions"):
        decode(empty)
    both = _sealed(b"MQCS\x04" + DATA[5:-4] + bytes([0, 0, 0, 0, 3, 0, 1, 2, 1]))  # floor 3, offset 2 checked
    with pytest.raises(StateFormatError, match="half offset 2 is both ended and checked"):
        decode(both)


RESOLVED = replace(
    STATE,
    transactions=OffsetProgress(4, frozenset({6, 9})),
    resolutions=MappingProxyType({9: Resolution.ROLLBACK, 2: Resolution.COMMIT, 6: Resolution.DROPPED}),
)


def test_resolutions_make_a_version_5_snapshot_that_keeps_their_order() -> None:
    data = encode(Snapshot(4096, RESOLVED))
    assert data.startswith(b"MQCS\x05") and data[:-4].endswith(bytes([3, 9, 2, 2, 1, 6, 3]))
    back = decode(data).state
    assert back == RESOLVED and list(back.resolutions.items()) == list(RESOLVED.resolutions.items())
    assert encode(Snapshot(4096, replace(RESOLVED, resolutions={})))[4] == 4


def _resolutions(*pairs: int, count: int | None = None) -> bytes:
    """RESOLVED's snapshot with these (offset, resolution) numbers as its resolutions."""
    body = encode(Snapshot(4096, RESOLVED))[:-4]
    head = body[: -len(bytes([3, 9, 2, 2, 1, 6, 3]))]
    w = Writer()
    w.uint(len(pairs) // 2 if count is None else count)
    for n in pairs:
        w.uint(n)
    return _sealed(head + w.out)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (_resolutions(), r"0 resolutions is not 1\.\.16384"),
        (_resolutions(5, 1), "half offset 5 has a resolution but is not ended, or has two"),
        (_resolutions(9, 1, 9, 2), "half offset 9 has a resolution but is not ended, or has two"),
        (_resolutions(9, 4), r"resolution 4 is outside 1\.\.3"),
        (_resolutions(*[0, 1] * (RESOLUTIONS_KEPT + 1)), r"16385 resolutions is not 1\.\.16384"),
    ],
)
def test_a_version_5_snapshot_with_bad_resolutions_is_refused(data: bytes, problem: str) -> None:
    with pytest.raises(StateFormatError, match=problem):
        decode(data)
