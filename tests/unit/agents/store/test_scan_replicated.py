"""The slave's one-pass check of replicated bytes (``record.scan_replicated``), against the passes it replaced:
the stream check (kept here as the reference) followed by the header walk of ``CommitLog.append_at``."""

from __future__ import annotations

import struct
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.store.commitlog import next_header
from agents.store.record import (
    _PEEK,
    BLANK_MAGIC,
    BLANK_SIZE,
    MAX_RECORD_SIZE,
    MESSAGE_MAGIC,
    MIN_RECORD_SIZE,
    Entry,
    Message,
    RecordError,
    Scan,
    TopicIds,
    _header_crc,
    blank_size_at,
    encode,
    encode_blank,
    header_at,
    scan_replicated,
    unpack_entries,
)

SEGMENT = 700


def log_bytes(bodies: list[int], segment: int = SEGMENT) -> bytes:
    """A commit log as the master writes it: records over 3 queues, a blank closing a segment when one does not fit."""
    out = bytearray()
    for i, size in enumerate(bodies):
        rec = encode(Message("T", i % 3, bytes([i % 251]) * size, {"k": str(i)}, 1_700_000_000_000, i // 3))
        room = segment - len(out) % segment
        if len(rec) + BLANK_SIZE > room:
            out += encode_blank(room) + bytes(room - BLANK_SIZE)
        out += rec
    return bytes(out)


def reference_check(buf: bytes) -> str | None:
    """The stream check the slave ran before (every complete record's CRCs, every blank's header)."""
    view, pos = memoryview(buf), 0
    while pos < len(view):
        blank = blank_size_at(view, pos)
        if blank is not None:
            pos += blank
            continue
        remaining = len(view) - pos
        if remaining < _PEEK.size:
            return None
        total, magic = _PEEK.unpack_from(view, pos)
        if magic not in (MESSAGE_MAGIC, BLANK_MAGIC):
            return "no record"
        if magic == BLANK_MAGIC:
            return None if remaining < BLANK_SIZE else "damaged blank"
        if not MIN_RECORD_SIZE <= total <= MAX_RECORD_SIZE:
            return "impossible size"
        if remaining < total:
            return None
        header = header_at(view, pos, verify_crc=True)
        if header is None:
            return "fails its CRC"
        pos += header.size
    return None


def reference_walk(buf: bytes, segment: int = SEGMENT) -> tuple[int, list[Entry]]:
    """The boundary and entries the header walks (append_at, then dispatch) found in checked bytes from offset 0."""
    pos, entries = 0, []
    while (found := next_header(buf, pos, segment - pos % segment)) is not None and pos + found[1] <= len(buf):
        header, size = found
        if header is not None:
            entries.append((pos, size, header.topic, header.queue_id, header.queue_offset))
        pos += size
    return pos, entries


def scan_in_pieces(stream: bytes, cuts: list[int], segment: int = SEGMENT) -> tuple[int, list[Entry]]:
    """Scan `stream` as batches split at `cuts`, carrying the tail as the commit log does."""
    tail, boundary, entries, start = b"", 0, [], 0
    for end in [*sorted(set(cuts)), len(stream)]:
        scan = scan_replicated(tail, stream[start:end], boundary, segment)
        assert (scan.start, scan.end) == (boundary, end)
        tail, boundary = scan.tail, scan.boundary
        entries += unpack_entries(scan.entries)
        assert stream[boundary:end] == tail
        start = end
    return boundary, entries


bodies = st.lists(st.integers(min_value=0, max_value=300), min_size=1, max_size=12)


@settings(max_examples=200)
@given(bodies, st.data())
def test_agrees_with_the_check_and_header_walk_wherever_the_stream_is_cut(
    sizes: list[int], data: st.DataObject
) -> None:
    stream = log_bytes(sizes)
    length = data.draw(st.integers(min_value=1, max_value=len(stream)))
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=length), max_size=6))
    prefix = stream[:length]
    assert reference_check(prefix) is None
    assert scan_in_pieces(prefix, cuts) == reference_walk(prefix)


@settings(max_examples=300)
@given(bodies, st.data())
def test_a_corrupted_byte_is_refused_whenever_the_old_check_refused_it(sizes: list[int], data: st.DataObject) -> None:
    stream = bytearray(log_bytes(sizes))
    at = data.draw(st.integers(min_value=0, max_value=len(stream) - 1))
    stream[at] ^= data.draw(st.integers(min_value=1, max_value=255))
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(stream)), max_size=4))
    try:
        scanned = scan_in_pieces(bytes(stream), cuts)
    except RecordError:
        return  # stricter than before is allowed (placement, topic); the converse below is not
    assert reference_check(bytes(stream)) is None
    assert scanned == reference_walk(bytes(stream))


def test_a_flipped_body_byte_names_the_record_and_its_crc() -> None:
    stream = bytearray(log_bytes([50, 60]))
    stream[40] ^= 0xFF
    with pytest.raises(RecordError, match="record at offset 0 fails its CRC"):
        scan_replicated(b"", stream, 0, SEGMENT)


def test_the_held_partial_record_is_completed_by_the_next_batch() -> None:
    stream = log_bytes([50, 60])
    first = scan_replicated(b"", stream[:30], 0, SEGMENT)
    assert first == Scan(0, 30, 0, bytearray(), stream[:30])
    second = scan_replicated(first.tail, stream[30:], 0, SEGMENT)
    entries = unpack_entries(second.entries)
    assert second.boundary == len(stream) and [e[0] for e in entries] == [0, entries[1][0]]


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda b: b[:4] + b"\x00\x00\x00\x40garbage!", "no record at offset 0"),
        (lambda b: (7).to_bytes(4, "big") + b[4:], "impossible size 7"),
        (lambda b: encode_blank(64) + bytes(52) + b, "damaged or misplaced blank record at offset 0"),
    ],
)
def test_refusals_name_the_problem(damage: object, problem: str) -> None:
    record = log_bytes([20])
    with pytest.raises(RecordError, match=problem):
        scan_replicated(b"", damage(record), 0, SEGMENT)  # type: ignore[operator]


def test_a_record_that_leaves_no_room_for_a_blank_is_refused() -> None:
    record = log_bytes([20])
    with pytest.raises(RecordError, match="leaves no room for a blank"):
        scan_replicated(b"", record, SEGMENT - len(record), SEGMENT)


def test_a_crc_valid_record_with_an_invalid_topic_is_refused() -> None:
    record = bytearray(encode(Message("T", 0, b"x", {}, 1)))
    record[38] = ord("/")  # the topic's one byte; the body is the last byte
    struct.pack_into(">I", record, 8, _header_crc(record[:-1]))
    with pytest.raises(RecordError, match="invalid topic"):
        scan_replicated(b"", record, 0, SEGMENT)


def test_an_empty_topic_is_refused_even_as_the_first_record() -> None:
    record = bytearray(encode(Message("T", 0, b"x", {}, 1)))
    del record[38]  # drop the topic's one byte: topicLen 0
    struct.pack_into(">H", record, 36, 0)
    struct.pack_into(">i", record, 0, len(record))
    struct.pack_into(">I", record, 8, _header_crc(record[:-1]))
    with pytest.raises(RecordError, match="invalid topic"):
        scan_replicated(b"", record, 0, SEGMENT)


def test_topic_ids_are_given_once_per_name_and_an_invalid_name_gets_none() -> None:
    table = TopicIds()
    with pytest.raises(RecordError, match=r"record at offset 77 has an invalid topic b'bad topic'"):
        table.id_of(b"bad topic", 77)
    assert (table.names, table.ids) == ([], {})

    def register(names: list[bytes]) -> list[int]:
        return [table.id_of(name, 0) for name in names]

    names = [f"T{i % 50}".encode() for i in range(2000)]
    with ThreadPoolExecutor(4) as pool:  # replicas of one process meeting the same new topics at once
        results = list(pool.map(register, [names] * 4))
    assert all(result == results[0] for result in results)
    assert sorted(table.names) == sorted({n.decode() for n in names})
    assert all(table.names[table.ids[name]] == name.decode() for name in names)
