"""Consumer-state records: exact bytes, round trips, and strict decoding of anything damaged or unknown."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import TypeGuard

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.consumer.errors import StateFormatError
from agents.consumer.records import (
    BATCH_VERSION,
    SYSTEM_TOPIC,
    Change,
    Escaped,
    EscapedChange,
    EscapeKey,
    EscapeReleased,
    Forgotten,
    OffsetCommitted,
    QueueMerged,
    StateRecord,
    TimerDelivered,
    TransactionChecked,
    TransactionEnded,
    Version,
    decode,
    encode,
    from_message,
    to_message,
)
from agents.pop.events import Acked, Changed, Delivery, Popped
from agents.pop.model import NO_TICKET, Inflight, QueueKey, QueueState
from agents.store.record import Message, decode_at
from agents.store.record import encode as encode_message
from agents.transaction.half import Resolution
from mqbase.metadata import topic_problem
from tests.harness.consumer_runs import STEPS, play
from tests.harness.fuzzing import flip_bits, fuzz

Q = QueueKey("G", "T", 3)
BIG = 2**63 - 1

RECORDS = [
    StateRecord(1, OffsetCommitted(Q, 42, 1_700_000_000_000)),
    StateRecord(2, Popped(Q, 0, 5, (1,), (2,), (Delivery(3, 1, 1_700_000_030_000, 1), Delivery(4, 2, 9, 2)), "a-1")),
    StateRecord(3, Popped(Q, 7, 7, (), (), ())),
    StateRecord(4, Acked(Q, 3, 1)),
    StateRecord(5, Changed(Q, 4, 2, 3, 1_700_000_060_000)),
    StateRecord(6, Forgotten("G", "T")),
    StateRecord(7, TimerDelivered((0, 5, BIG))),
    StateRecord(BIG, Changed(QueueKey("%RETRY%g|x", "t" * 127, 2**31 - 1), BIG, BIG - 1, BIG, BIG)),
]
KEY = EscapeKey(2, 1_700_000_000_000, 5)


def escapes(change: Change) -> TypeGuard[EscapedChange]:
    return isinstance(change, OffsetCommitted | Popped | Acked | Changed | TimerDelivered)


MERGED = QueueState(3, 6, MappingProxyType({3: Inflight(4, 900, 2)}), MappingProxyType({4: NO_TICKET, 5: 3}), 6, "a")
ESCAPE_RECORDS = [
    StateRecord(8, OffsetCommitted(Q, 42, 1_700_000_000_000, epoch=3)),
    *(StateRecord(9, Escaped("broker-b", KEY, Version(3, 7), r.change)) for r in RECORDS[:5] if escapes(r.change)),
    StateRecord(9, Escaped("broker-b", KEY, Version(), OffsetCommitted(Q, 1, 2, epoch=BIG))),
    StateRecord(10, Escaped("broker-b", KEY, Version(), TimerDelivered((0, BIG)))),
    StateRecord(10, Escaped("broker-b", KEY, Version(), TransactionEnded((2, BIG), Resolution.ROLLBACK))),
    StateRecord(10, Escaped("broker-b", KEY, Version(), TransactionChecked((4,)))),
    StateRecord(11, EscapeReleased("broker-b", (EscapeKey(1, 9, 9), KEY, EscapeKey(2, BIG, 0)))),
    StateRecord(12, QueueMerged(Q, Version(3, 7), MERGED, 1_700_000_000_000)),
    StateRecord(13, QueueMerged(Q, Version(), QueueState(), 0)),
    StateRecord(14, TransactionEnded((0, 7, BIG), Resolution.COMMIT)),
    StateRecord(15, TransactionEnded((3,), Resolution.DROPPED)),
    StateRecord(16, TransactionChecked((2, BIG))),
]


@pytest.mark.parametrize("record", RECORDS + ESCAPE_RECORDS)
def test_every_kind_round_trips(record: StateRecord) -> None:
    assert decode(encode(record)) == record


def test_only_what_version_1_cannot_say_is_written_as_version_3() -> None:
    """A set that never escapes, merges or commits with an epoch keeps writing what an older broker reads."""
    assert [encode(r)[0] for r in RECORDS] == [1] * len(RECORDS)
    assert [encode(r)[0] for r in ESCAPE_RECORDS] == [3] * len(ESCAPE_RECORDS)
    old = encode(StateRecord(1, OffsetCommitted(Q, 42, 7)))  # version 1: offset, timestampMs, no epoch
    assert old == bytes([1, 1, 1, 1, ord("G"), 1, ord("T"), 3, 42, 7])
    assert encode(StateRecord(1, OffsetCommitted(Q, 42, 7, epoch=5))) == bytes([3]) + old[1:] + bytes([5])


def test_an_escaped_ack_carries_its_home_key_version_and_the_ack() -> None:
    """version 2, kind 7, seq, home, origin, episode, n, versionEpoch, versionSeq, inner kind 3, the ack's fields."""
    body = encode(StateRecord(4, Escaped("b", EscapeKey(2, 9, 1), Version(3, 7), Acked(Q, 3, 1))))
    assert body == bytes([3, 7, 4, 1, ord("b"), 2, 9, 1, 3, 7, 3, 1, ord("G"), 1, ord("T"), 3, 3, 1])


def test_a_timer_delivery_names_only_its_offsets() -> None:
    """version, kind 6, seq, n, offsets: the timer queue is one queue, so no group, topic or queue."""
    assert encode(StateRecord(4, TimerDelivered((3, 200)))) == bytes([1, 6, 4, 2, 3, 0xC8, 0x01])


def test_an_ack_is_ten_bytes() -> None:
    """version, kind, seq, "G", "T", queue, offset, ticket: compact enough to ride every ack."""
    assert encode(StateRecord(4, Acked(Q, 3, 1))) == bytes([1, 3, 4, 1, ord("G"), 1, ord("T"), 3, 3, 1])


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        (StateRecord(0, Acked(Q, 1, 1)), "seq 0 is outside 1.."),
        (StateRecord(1, Acked(QueueKey("G G", "T", 0), 1, 1)), "group 'G G' must be"),
        (StateRecord(1, Acked(QueueKey("G", "t" * 128, 0), 1, 1)), "topic 'ttt"),
        (StateRecord(1, Acked(QueueKey("G", "T", 2**31), 1, 1)), "queueId 2147483648 is outside"),
        (StateRecord(1, Acked(Q, -1, 1)), "offset -1 is outside"),
        (StateRecord(1, Acked(Q, 1, 0)), "ticket 0 is outside 1.."),
        (StateRecord(1, Changed(Q, 1, 5, 5, 0)), "newTicket 5 is outside 6.."),
        (StateRecord(1, OffsetCommitted(Q, 2**63, 0)), "offset 9223372036854775808 is outside"),
        (StateRecord(1, Popped(Q, 0, 1, (), (), (Delivery(0, 1, 0, 0),))), "delivery attempt 0 is outside 1.."),
        (StateRecord(1, Popped(Q, 0, 1, (), (), (), "x" * 256)), "attemptId is longer than 255 bytes"),
        (StateRecord(1, Forgotten("G", "")), "topic '' must be 1..127"),
        (StateRecord(1, TimerDelivered(())), "a TimerDelivered record names at least one offset"),
        (StateRecord(1, TimerDelivered((3, 3))), "timer offset 3 is outside 4.."),
        (StateRecord(0, TimerDelivered((3,))), "seq 0 is outside 1.."),
        (StateRecord(1, OffsetCommitted(Q, 1, 0, epoch=-1)), "epoch -1 is outside"),
        (StateRecord(1, Escaped("b b", KEY, Version(), Acked(Q, 1, 1))), "home 'b b' must be"),
        (StateRecord(1, Escaped("b", EscapeKey(-1, 0, 0), Version(), Acked(Q, 1, 1))), "origin -1 is outside"),
        (StateRecord(1, Escaped("b", KEY, Version(0, -1), Acked(Q, 1, 1))), "version seq -1 is outside"),
        (StateRecord(1, Escaped("b", KEY, Version(), Acked(Q, 1, 0))), "ticket 0 is outside 1.."),
        (
            StateRecord(1, Escaped("b", KEY, Version(), TimerDelivered(()))),
            "a TimerDelivered record names at least one offset",
        ),
        (StateRecord(1, EscapeReleased("b", ())), "an EscapeReleased record names at least one key"),
        (StateRecord(1, EscapeReleased("b", (KEY, KEY))), "an EscapeReleased record's keys are increasing"),
        (StateRecord(1, EscapeReleased("", (KEY,))), "home '' must be"),
        (StateRecord(1, EscapeReleased("b", (EscapeKey(0, -1, 0),))), "episode -1 is outside"),
        (StateRecord(1, QueueMerged(Q, Version(-1, 0), MERGED, 0)), "version epoch -1 is outside"),
        (StateRecord(1, QueueMerged(Q, Version(), QueueState(5, 4), 0)), "scanned 4 is outside 5.."),
        (StateRecord(1, QueueMerged(Q, Version(), replace(MERGED, next_ticket=4), 0)), "ticket 4 is outside 1..3"),
        (
            StateRecord(1, QueueMerged(Q, Version(), replace(MERGED, inflight={4: Inflight(1, 0, 1)}), 0)),
            "offset 4 is both in flight and done",
        ),
        (StateRecord(1, QueueMerged(Q, Version(), replace(MERGED, done={6: 0}), 0)), "done offset 6 is outside 4..5"),
        (StateRecord(1, QueueMerged(Q, Version(), replace(MERGED, inflight={}, done={3: 0}), 0)), "done offset 3"),
        (StateRecord(1, QueueMerged(Q, Version(), replace(MERGED, attempt_id="x" * 256), 0)), "attemptId is longer"),
    ],
)
def test_encode_refuses_what_decode_would(record: StateRecord, problem: str) -> None:
    with pytest.raises(StateFormatError, match="consumer-state record: " + problem.replace("(", r"\(")):
        encode(record)


ACK = encode(StateRecord(4, Acked(Q, 3, 1)))
ESCAPED_ACK = encode(StateRecord(4, Escaped("b", EscapeKey(2, 9, 1), Version(3, 7), Acked(Q, 3, 1))))
MERGED_BODY = encode(StateRecord(1, QueueMerged(Q, Version(), QueueState(3, 4, {3: Inflight(2, 900, 1)}, {}, 3), 0)))


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"", r"version is cut short \(at byte 0\)"),
        (bytes([1, 5, 1, 1, ord("G")]), r"topic length is cut short \(at byte 5\)"),
        (bytes([1, 5, 1, 1, ord("G"), 1, ord("T"), 0]), r"1 bytes follow the end \(at byte 7\)"),
        (bytes([4]) + ACK[1:], r"version 4 is not 1 or 3 \(written by a newer broker\?\)"),
        (bytes([1, 12]) + ACK[2:], r"kind 12 is unknown \(written by a newer broker\?\)"),
        (ACK[:-1], r"ticket is cut short \(at byte 9\)"),
        (ACK + b"\x00", r"1 bytes follow the end \(at byte 10\)"),
        (bytes([1, 3, 0]) + ACK[3:], "seq 0 is outside 1.."),
        (bytes([1, 3, 0x84, 0x00]) + ACK[3:], "seq is not in its shortest form"),
        (bytes([1, 3]) + b"\xff" * 10 + b"\x01", "seq is longer than a 64-bit varint"),
        (bytes([1, 3, 4, 1, 0xFF]) + ACK[5:], "group is not UTF-8"),
        (bytes([1, 3, 4, 1, ord(" ")]) + ACK[5:], "group ' ' must be 1..255 characters"),
        (bytes([1, 3, 4, 0x80, 0x02]) + ACK[5:], "group length 256 is outside 0..255"),
        (bytes([1, 3, 4, 1, ord("G"), 1, ord("T"), 3, 3, 0]), "ticket 0 is outside 1.."),
        (encode(StateRecord(1, Changed(Q, 4, 2, 3, 9)))[:-2] + bytes([2, 9]), "newTicket 2 is outside 3.."),
        (encode(StateRecord(1, Popped(Q, 0, 1, (), (), ())))[:-4] + bytes([9, 0, 0, 0]), "skipped count 9 is outside"),
        (bytes([1, 6, 1, 0]), "a TimerDelivered record names at least one offset"),
        (bytes([1, 6, 1, 2, 5, 5]), r"timer offset 5 is outside 6\.\."),
        (bytes([1, 6, 1, 2, 5]), r"timer offset is cut short \(at byte 5\)"),
        (bytes([1, 7]) + ESCAPED_ACK[2:], "kind 7 is a version 3 record"),
        (bytes([1, 10, 1, 1, 1, 0]), "kind 10 is a version 3 record"),
        (bytes([3, 10, 1, 4, 1, 0]), r"resolution 4 is outside 1\.\.3"),
        (bytes([3, 10, 1, 1, 0]), "a TransactionEnded record names at least one offset"),
        (bytes([3, 11, 1, 2, 5, 5]), r"half offset 5 is outside 6\.\."),
        (ESCAPED_ACK[:10] + bytes([5]) + ESCAPED_ACK[11:], "inner kind 5 is not a change that escapes"),
        (ESCAPED_ACK[:10] + bytes([7]) + ESCAPED_ACK[11:], "inner kind 7 is not a change that escapes"),
        (ESCAPED_ACK[:-1] + bytes([0]), "ticket 0 is outside 1.."),
        (bytes([3]) + ACK[1:], "a Acked record is written as version 1"),
        (bytes([3, 8, 1, 1, ord("b"), 0]), "an EscapeReleased record names at least one key"),
        (bytes([3, 8, 1, 1, ord("b"), 2, 1, 1, 1, 1, 1, 1]), "an EscapeReleased record's keys are increasing"),
        (bytes([3, 8, 1, 1, ord(" "), 1, 1, 1, 1]), "home ' ' must be"),
        (MERGED_BODY[:-5] + bytes([3]) + MERGED_BODY[-4:], r"G/T/3 ticket 3 is outside 1\.\.2"),
        (MERGED_BODY[:12] + bytes([2]) + MERGED_BODY[13:], r"scanned 2 is outside 3\.\."),
    ],
)
def test_decode_names_what_is_wrong(body: bytes, problem: str) -> None:
    with pytest.raises(StateFormatError, match="^consumer-state record: " + problem):
        decode(body)


def test_every_cut_of_a_record_is_refused() -> None:
    body = encode(RECORDS[1])
    for size in range(len(body)):
        with pytest.raises(StateFormatError, match=r"cut short|count"):
            decode(body[:size])


@pytest.mark.parametrize("count", [1, 2, 5])
def test_records_ride_the_system_topic_through_the_commit_log(count: int) -> None:
    records = [replace(r, seq=i) for i, r in enumerate(RECORDS[:count], 1)]
    message = to_message(records, 1_700_000_000_123)
    assert (message.topic, message.queue_id, dict(message.properties)) == (SYSTEM_TOPIC, 0, {})
    assert (message.body == encode(records[0])) == (count == 1)  # a lone record is the body itself
    stored = decode_at(encode_message(message), 0)
    assert stored is not None
    assert from_message(stored[0]) == tuple(records)
    assert from_message(Message("T", 0, message.body, {}, 0)) == ()


@pytest.mark.parametrize("record", ESCAPE_RECORDS, ids=lambda r: type(r.change).__name__)
def test_a_lone_record_of_the_newer_version_is_not_read_as_a_batch(record: StateRecord) -> None:
    """A lone record is the message body itself, and a batch is told apart by its first byte: no record version may
    be `BATCH_VERSION`, or a lone escaped change would read as a damaged batch and stop the set's rebuild."""
    assert encode(record)[0] != BATCH_VERSION
    assert from_message(to_message([record], 0)) == (record,)


def test_a_damaged_batch_is_refused() -> None:
    body = to_message(RECORDS[:3], 0).body
    for size in range(1, len(body)):
        with pytest.raises(StateFormatError):
            from_message(Message(SYSTEM_TOPIC, 0, body[:size], {}, 0))
    lone = bytes([2, 1, len(encode(RECORDS[0]))]) + encode(RECORDS[0])
    with pytest.raises(StateFormatError, match="a batch holds at least two"):
        from_message(Message(SYSTEM_TOPIC, 0, lone, {}, 0))
    with pytest.raises(ValueError, match="at least one record"):
        to_message([], 0)


def test_no_operator_can_create_the_system_topic() -> None:
    assert topic_problem(SYSTEM_TOPIC) == "The topic[rmq_sys_CONSUMER_STATE] is conflict with system topic."


@fuzz(200)
@given(STEPS)
def test_every_record_of_a_run_round_trips(steps: list[tuple[str, int, int]]) -> None:
    for record in play(steps).records:
        assert decode(encode(record)) == record


LONG = st.one_of(st.integers(0, 300), st.integers(0, 2**63 - 1), st.sampled_from([127, 128, 2**14, 2**63 - 1]))
TICKET = st.integers(1, 2**62)
NAMES = st.from_regex(r"[%|a-zA-Z0-9_-]{1,20}", fullmatch=True)
KEYS = st.builds(QueueKey, NAMES, NAMES, st.integers(0, 2**31 - 1))
CHANGES = st.one_of(
    st.builds(OffsetCommitted, KEYS, LONG, LONG),
    st.builds(
        Popped,
        KEYS,
        LONG,
        LONG,
        st.lists(LONG, max_size=3).map(tuple),
        st.lists(LONG, max_size=3).map(tuple),
        st.lists(st.builds(Delivery, LONG, TICKET, LONG, st.integers(1, 2**31)), max_size=3).map(tuple),
        st.text(max_size=40),
    ),
    st.builds(Acked, KEYS, LONG, TICKET),
    st.builds(Forgotten, NAMES, NAMES),
    st.lists(LONG, min_size=1, max_size=4, unique=True).map(lambda offsets: TimerDelivered(tuple(sorted(offsets)))),
    TICKET.flatmap(lambda old: st.builds(Changed, KEYS, LONG, st.just(old), st.integers(old + 1, 2**63 - 1), LONG)),
)
ESCAPE_KEYS = st.builds(EscapeKey, LONG, LONG, LONG)
ALL_CHANGES = st.one_of(
    CHANGES,
    st.builds(OffsetCommitted, KEYS, LONG, LONG, LONG),
    st.builds(Escaped, NAMES, ESCAPE_KEYS, st.builds(Version, LONG, LONG), CHANGES.filter(escapes)),
    st.builds(EscapeReleased, NAMES, st.lists(ESCAPE_KEYS, min_size=1, max_size=3, unique=True).map(sorted).map(tuple)),
    st.builds(
        TransactionEnded,
        st.lists(LONG, min_size=1, max_size=4, unique=True).map(sorted).map(tuple),
        st.sampled_from(Resolution),
    ),
    st.lists(LONG, min_size=1, max_size=4, unique=True).map(lambda offsets: TransactionChecked(tuple(sorted(offsets)))),
)


@fuzz(300)
@given(st.integers(1, 2**63 - 1), ALL_CHANGES)
def test_any_valid_record_round_trips(seq: int, change: Change) -> None:
    record = StateRecord(seq, change)
    assert decode(encode(record)) == record


@fuzz(300)
@given(st.sampled_from(RECORDS + ESCAPE_RECORDS), st.lists(st.integers(0, 10_000), min_size=1, max_size=3))
def test_damaged_records_decode_to_a_record_or_a_precise_error(record: StateRecord, bits: list[int]) -> None:
    """The commit log's CRCs catch damage first; what still gets here is refused or canonical, never a crash."""
    body = flip_bits(encode(record), bits)
    try:
        decoded = decode(body)
    except StateFormatError as e:
        assert str(e).startswith("consumer-state record: ")
    else:
        assert encode(decoded) == body


@fuzz(300)
@given(st.binary(max_size=64))
def test_arbitrary_bytes_never_raise_anything_else(body: bytes) -> None:
    try:
        decoded = decode(body)
    except StateFormatError:
        return
    assert encode(decoded) == body
