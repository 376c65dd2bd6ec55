"""The record codec and the commit log: layout, segments, replication byte-identity, recovery, truncation."""

from __future__ import annotations

import contextlib
import logging
import os
import random
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.store.commitlog import INTENT_FILE, CommitLog, CommitLogError, OffsetTooSmall, segment_name
from agents.store.record import (
    BLANK_MAGIC,
    BLANK_SIZE,
    MAX_BODY_BYTES,
    MESSAGE_MAGIC,
    Message,
    RecordError,
    blank_size_at,
    decode_at,
    encode,
    encode_blank,
)

SEG = 512


def msg(i: int, size: int = 20, topic: str = "T") -> Message:
    return Message(topic, i % 3, bytes([i % 251]) * size, {"KEYS": f"k{i}"}, 1_000 + i)


TOPIC_AT = 38  # the fixed header's size: where the topic starts


def reseal(record: bytes) -> bytes:
    """Recompute both CRCs of a record whose fields a test edited (so only the edit itself is wrong)."""
    topic_len = struct.unpack_from(">H", record, TOPIC_AT - 2)[0]
    props_len = struct.unpack_from(">i", record, TOPIC_AT + topic_len)[0]
    body_at = TOPIC_AT + topic_len + 4 + props_len + 4
    out = bytearray(record)
    struct.pack_into(">I", out, 12, zlib.crc32(record[body_at:]))
    struct.pack_into(">I", out, 8, zlib.crc32(bytes(out[12:body_at]), zlib.crc32(bytes(out[:8]))))
    return bytes(out)


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    return tmp_path / "commitlog"


@pytest.fixture
def clog(log_dir: Path) -> Iterator[CommitLog]:
    with CommitLog(log_dir, SEG) as c:
        yield c


def fill(c: CommitLog, count: int, seed: int = 0) -> list[tuple[int, Message]]:
    """Append `count` messages of random sizes one by one; returns (offset, message)."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        m = msg(i, rng.randrange(0, 150))
        out.append((c.append(encode(m))[0], m))
    return out


def segment_bytes(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


# --- record codec -----------------------------------------------------------------------------------


def test_golden_record_layout() -> None:
    rec = encode(Message("T", 3, b"hi", {"a": "b"}, 1_700_000_000_000, queue_offset=7))
    assert rec.hex() == (
        "000000354d514d32d0df4cded8932aac"  # totalSize, magic, headerCRC, bodyCRC
        "00000003000000000000000700000" + "18bcfe568000001540000000461016202000000026869"
    )
    assert struct.unpack_from(">iiIIiqqH", rec) == (
        53,
        MESSAGE_MAGIC,
        0xD0DF4CDE,
        zlib.crc32(b"hi"),
        3,
        7,
        1_700_000_000_000,
        1,
    )
    assert rec[TOPIC_AT:39] == b"T" and rec[39:43] == struct.pack(">i", 4) and rec[43:47] == b"a\x01b\x02"
    assert rec[47:51] == struct.pack(">i", 2) and rec[51:] == b"hi"
    assert zlib.crc32(rec[12:51], zlib.crc32(rec[:8])) == 0xD0DF4CDE  # header CRC skips only itself


def test_golden_blank() -> None:
    blank = encode_blank(100)
    assert blank == struct.pack(">ii", 100, BLANK_MAGIC) + struct.pack(">I", zlib.crc32(blank[:8]))
    assert blank_size_at(blank + bytes(88), 0) == 100
    assert blank_size_at(blank[:3] + b"\x65" + blank[4:], 0) is None
    assert decode_at(blank + bytes(88), 0) is None


TOPICS = st.from_regex(r"[%|a-zA-Z0-9_-]{1,127}", fullmatch=True)
TEXT = st.text(st.characters(exclude_characters="\x01\x02", exclude_categories=["Cs"]), max_size=20)
MESSAGES = st.builds(
    Message,
    topic=TOPICS,
    queue_id=st.integers(0, 2**31 - 1),
    body=st.binary(max_size=300),
    properties=st.dictionaries(TEXT.filter(bool), TEXT, max_size=4),
    store_timestamp=st.integers(0, 2**63 - 1),
)


@given(MESSAGES, st.binary(max_size=40), st.binary(max_size=40))
def test_decode_inverts_encode_anywhere_in_a_buffer(m: Message, before: bytes, after: bytes) -> None:
    rec = encode(m)
    assert decode_at(before + rec + after, len(before)) == (m, len(rec))


def test_every_single_byte_corruption_and_every_truncation_is_rejected() -> None:
    rec = encode(msg(7, 30))
    for i in range(len(rec)):
        for flip in (0x01, 0x80, 0xFF):
            damaged = bytearray(rec)
            damaged[i] ^= flip
            assert decode_at(bytes(damaged), 0) is None, (i, flip)
    for n in range(len(rec)):
        assert decode_at(rec[:n] + bytes(64), 0) is None


@settings(max_examples=300)
@given(st.binary(max_size=400), st.integers(0, 420))
def test_decode_of_arbitrary_bytes_answers_none_or_record_error(data: bytes, pos: int) -> None:
    with contextlib.suppress(RecordError):
        assert decode_at(data, pos) is None


@settings(max_examples=300)
@given(MESSAGES, st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=4))
def test_decode_of_a_mutated_record_never_misreads_it(m: Message, edits: list[tuple[int, int]]) -> None:
    rec = bytearray(encode(m))
    for where, value in edits:
        rec[where % len(rec)] = value
    try:
        found = decode_at(bytes(rec), 0)
    except RecordError:
        return
    assert found is None or found == (m, len(rec))  # CRC32 catches bursts up to 32 bits


def test_crc_valid_but_malformed_content_raises_record_error() -> None:
    rec = bytearray(encode(Message("TT", 0, b"x", {}, 1)))
    rec[TOPIC_AT : TOPIC_AT + 2] = b"\xff\xfe"  # the topic is no longer utf-8
    with pytest.raises(RecordError, match="utf-8"):
        decode_at(reseal(bytes(rec)), 0)
    rec = bytearray(encode(Message("TT", 0, b"x", {}, 1)))
    rec[TOPIC_AT : TOPIC_AT + 2] = b"a."  # valid utf-8, invalid topic name
    with pytest.raises(RecordError, match="topic"):
        decode_at(reseal(bytes(rec)), 0)
    rec = bytearray(encode(Message("T", 0, b"x", {"a": "b"}, 1)))
    rec[43:47] = b"a\x02b\x02"  # a pair without a name separator
    with pytest.raises(RecordError, match="property"):
        decode_at(reseal(bytes(rec)), 0)


@pytest.mark.parametrize(
    ("message", "match"),
    [
        (Message("", 0, b"", {}, 0), "topic"),
        (Message("a/b", 0, b"", {}, 0), "topic"),
        (Message("T" * 128, 0, b"", {}, 0), "topic"),
        (Message("T", -1, b"", {}, 0), "queue id"),
        (Message("T", 0, b"", {}, -5), "timestamp"),
        (Message("T", 0, b"", {"a\x01": "b"}, 0), "property"),
        (Message("T", 0, b"", {"a": "b\x02"}, 0), "property"),
        (Message("T", 0, b"", {"": "b"}, 0), "property"),
        (Message("T", 0, bytes(MAX_BODY_BYTES + 1), {}, 0), "body"),
        (Message("T", 0, b"", {"k": "v" * 40_000}, 0), "properties"),
    ],
)
def test_encode_rejects_what_decode_would_refuse(message: Message, match: str) -> None:
    with pytest.raises(RecordError, match=match):
        encode(message)


def test_message_properties_are_frozen() -> None:
    props = {"a": "1"}
    m = Message("T", 0, b"", props, 0)
    props["b"] = "2"
    assert dict(m.properties) == {"a": "1"}
    with pytest.raises(TypeError):
        m.properties["c"] = "3"  # type: ignore[index]


# --- segments and appends ---------------------------------------------------------------------------


def test_a_new_log_is_one_preallocated_empty_segment(clog: CommitLog, log_dir: Path) -> None:
    assert (clog.min_offset, clog.max_offset, clog.flushed_offset, clog.last_message_boundary()) == (0, 0, 0, 0)
    assert [p.name for p in log_dir.iterdir()] == ["00000000000000000000"]
    assert (log_dir / segment_name(0)).stat().st_size == SEG


def test_records_roll_over_to_the_next_segment_behind_a_blank(clog: CommitLog, log_dir: Path) -> None:
    written = [(clog.append(encode(msg(i, 100)))[0], msg(i, 100)) for i in range(8)]
    size = len(encode(msg(0, 100)))  # 147 bytes: three fit a 512-byte segment with room for a blank
    assert [o for o, _ in written] == [0, size, 2 * size, SEG, SEG + size, SEG + 2 * size, 2 * SEG, 2 * SEG + size]
    seg0 = (log_dir / segment_name(0)).read_bytes()
    assert blank_size_at(seg0, 3 * size) == SEG - 3 * size
    assert seg0[3 * size + BLANK_SIZE :] == bytes(SEG - 3 * size - BLANK_SIZE)
    assert sorted(p.name for p in log_dir.iterdir()) == [segment_name(0), segment_name(SEG), segment_name(2 * SEG)]
    assert [(o, m, s) for o, m, s in clog.iter_messages(0)] == [(o, m, size) for o, m in written]
    assert clog.max_offset == clog.last_message_boundary() == 2 * SEG + 2 * size


def test_a_batch_is_split_across_segments_and_returns_each_records_offset(clog: CommitLog) -> None:
    batch = [msg(i, 100) for i in range(5)]
    size = len(encode(batch[0]))
    placed = clog.append(b"".join(encode(m) for m in batch))
    assert placed == [0, size, 2 * size, SEG, SEG + size]  # the fourth starts the next segment, behind a blank
    assert [(o, m) for o, m, _ in clog.iter_messages(0)] == list(zip(placed, batch, strict=True))
    # a record that no longer fits the current segment starts the next one, and that is what append returns
    assert clog.append(encode(msg(9, 250))) == [2 * SEG]


def test_a_segment_that_fills_exactly_opens_the_next_at_once(clog: CommitLog, log_dir: Path) -> None:
    fill(clog, 40)
    last = max(int(p.name) for p in log_dir.iterdir())
    assert last <= clog.max_offset < last + SEG


def test_append_refuses_partial_records_and_oversized_ones_without_writing(clog: CommitLog) -> None:
    rec = encode(msg(1))
    with pytest.raises(RecordError):
        clog.append(rec + rec[:10])
    with pytest.raises(RecordError, match="does not fit"):
        clog.append(encode(msg(1, SEG)))
    assert clog.max_offset == 0
    assert clog.append(b"") == []


def test_read_segment_view_and_flush(clog: CommitLog) -> None:
    fill(clog, 20)
    whole = clog.read(0, 10 * SEG)
    assert len(whole) == clog.max_offset
    fd, pos, readable = clog.segment_view(SEG + 7)
    assert (pos, readable) == (7, min(2 * SEG, clog.max_offset) - SEG - 7)
    assert os.pread(fd, readable, pos) == whole[SEG + 7 : SEG + 7 + readable]
    assert clog.read(clog.max_offset, 10) == b""
    with pytest.raises(ValueError, match="past the end"):
        clog.segment_view(clog.max_offset + 1)
    assert clog.flushed_offset == 0
    clog.flush()
    assert clog.flushed_offset == clog.max_offset


def test_a_segment_created_by_an_append_is_synced_by_the_next_flush(
    clog: CommitLog, log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fsynced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        fsynced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    clog.flush()
    assert clog.flush_begin().directory is None  # nothing created: a flush does not touch the directory
    clog.append(b"".join(encode(msg(i, 100)) for i in range(4)))  # rolls over into segment SEG
    assert fsynced == []  # the append waited for no fsync
    pending = clog.flush_begin()
    try:
        assert pending.directory == log_dir
        assert len(pending.fds) == 2  # segment 0's tail and the new segment (its size with it)
        pending.sync()
    finally:
        pending.close()
    clog.flush_end(pending)
    assert fsynced == [str(log_dir)]
    assert clog.flush_begin().directory is None


def test_a_failed_flush_leaves_the_new_segment_for_the_next_one(clog: CommitLog, log_dir: Path) -> None:
    clog.append(b"".join(encode(msg(i, 100)) for i in range(4)))
    clog.flush_begin().close()  # taken, never synced nor reported (the fsync failed)
    retry = clog.flush_begin()
    retry.close()
    assert retry.directory == log_dir


# --- replication path -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_append_at_copies_the_master_byte_for_byte(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    with CommitLog(tmp_path / "master", SEG) as master, CommitLog(tmp_path / "replica", SEG) as replica:
        written = fill(master, 60, seed)
        ends = {0} | {o + len(encode(m)) for o, m in written} | {o for o, _ in written}
        pos = 0
        while pos < master.max_offset:
            chunk = master.read(pos, rng.choice([1, 3, 7, 50, 200, 700]))
            replica.append_at(pos, chunk)
            pos += len(chunk)
            assert replica.max_offset == pos
            assert replica.last_message_boundary() in ends and replica.last_message_boundary() <= pos
        assert replica.last_message_boundary() == master.last_message_boundary()
        assert list(replica.iter_messages(0)) == list(master.iter_messages(0))
        master.flush()
        replica.flush()
    assert segment_bytes(tmp_path / "replica") == segment_bytes(tmp_path / "master")


def test_a_replicated_batch_that_fails_half_way_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk in the middle of a replicated batch (here in its second segment) takes the whole batch back:
    the log ends where it did, the bytes written past it are zeros again, the segment it opened is gone, and the
    same batch goes in once space returns."""
    with CommitLog(tmp_path / "master", SEG) as master, CommitLog(tmp_path / "replica", SEG) as replica:
        fill(master, 60)
        first = master.read(0, SEG // 2)
        replica.append_at(0, first)
        boundary = replica.last_message_boundary()
        batch = master.read(len(first), 2 * SEG)
        real, calls = os.pwrite, []

        def full_disk(fd: int, data: bytes, offset: int) -> int:
            calls.append(offset)
            if len(calls) == 2:
                raise OSError(28, "No space left on device")
            return real(fd, data, offset)

        monkeypatch.setattr(os, "pwrite", full_disk)
        with pytest.raises(OSError, match="No space left"):
            replica.append_at(len(first), batch)
        monkeypatch.undo()
        assert (replica.max_offset, replica.last_message_boundary()) == (len(first), boundary)
        assert sorted(p.name for p in (tmp_path / "replica").iterdir()) == [segment_name(0)]
        assert (tmp_path / "replica" / segment_name(0)).read_bytes()[len(first) :] == bytes(SEG - len(first))
        replica.append_at(len(first), batch)
        rest = master.read(replica.max_offset, master.max_offset - replica.max_offset)
        replica.append_at(replica.max_offset, rest)
        assert list(replica.iter_messages(0)) == list(master.iter_messages(0))
        master.flush()
        replica.flush()
    assert segment_bytes(tmp_path / "replica") == segment_bytes(tmp_path / "master")


def test_a_replica_holding_a_partial_record_must_cut_it_before_writing_its_own(clog: CommitLog) -> None:
    rec = encode(msg(1))
    clog.append_at(0, rec + rec[:9])
    assert (clog.last_message_boundary(), clog.max_offset) == (len(rec), len(rec) + 9)
    with pytest.raises(ValueError, match="partial record"):
        clog.append(rec)
    clog.truncate(clog.last_message_boundary())
    assert clog.append(rec) == [len(rec)]


def test_append_at_must_start_at_the_end(clog: CommitLog) -> None:
    fill(clog, 3)
    with pytest.raises(ValueError, match="log ends at"):
        clog.append_at(clog.max_offset + 1, b"x")


def test_start_at_moves_an_empty_log_to_the_masters_first_segment(clog: CommitLog, log_dir: Path) -> None:
    with pytest.raises(ValueError, match="multiple"):
        clog.start_at(SEG + 1)
    clog.start_at(3 * SEG)
    assert (clog.min_offset, clog.max_offset) == (3 * SEG, 3 * SEG)
    assert [p.name for p in log_dir.iterdir()] == [segment_name(3 * SEG)]
    clog.append_at(3 * SEG, encode(msg(1)))
    with pytest.raises(ValueError, match="empty log"):
        clog.start_at(5 * SEG)
    with pytest.raises(OffsetTooSmall) as info:
        clog.read(0, 10)
    assert info.value.min_offset == 3 * SEG


# --- recovery ---------------------------------------------------------------------------------------


def test_a_torn_last_record_is_cut_on_reopen(log_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    with CommitLog(log_dir, SEG) as c:
        fill(c, 5)
        c.flush()
        end = c.max_offset
        rec = encode(msg(99, 100))
        fd, pos, _ = c.segment_view(end)
        os.pwrite(fd, rec[: len(rec) // 2], pos)  # the process died half-way through this write
    with caplog.at_level(logging.WARNING), CommitLog(log_dir, SEG) as c:
        assert c.max_offset == c.last_message_boundary() == end
        assert len(list(c.iter_messages(0))) == 5
        fd, pos, _ = c.segment_view(end)
        assert os.pread(fd, SEG - pos, pos) == bytes(SEG - pos)
    assert f"the last valid record ends at offset {end}" in caplog.text


def test_a_bad_crc_in_the_tail_cuts_everything_after_it(log_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    with CommitLog(log_dir, SEG) as c:
        written = fill(c, 12)
    bad_offset, bad = written[6]
    segment = log_dir / segment_name(bad_offset - bad_offset % SEG)
    data = bytearray(segment.read_bytes())
    data[bad_offset % SEG + len(encode(bad)) - 1] ^= 0x40  # last body byte
    segment.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING), CommitLog(log_dir, SEG) as c:
        assert c.max_offset == bad_offset
        assert [m for _, m, _ in c.iter_messages(0)] == [m for _, m in written[:6]]
        assert sorted(p.name for p in log_dir.iterdir())[-1] == segment_name(bad_offset - bad_offset % SEG)
    assert f"ends at offset {bad_offset}" in caplog.text


def test_recovery_from_a_hint_finds_the_same_end(log_dir: Path) -> None:
    with CommitLog(log_dir, SEG) as c:
        written = fill(c, 30)
        end = c.max_offset
    hint = written[17][0]
    with CommitLog(log_dir, SEG, recover_from=hint) as c:
        assert c.max_offset == end and len(list(c.iter_messages(0))) == 30
    with CommitLog(log_dir, SEG, recover_from=10**9) as c:  # a hint outside the files is ignored
        assert c.max_offset == end


def test_a_clean_end_reopens_quietly_and_a_missing_next_segment_is_recreated(
    log_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with CommitLog(log_dir, SEG) as c:
        c.append(b"".join(encode(msg(i, 100)) for i in range(4)))
        assert c.max_offset == SEG + len(encode(msg(3, 100)))
        c.truncate(SEG)  # the log now ends right behind the blank closing segment 0
    (log_dir / segment_name(SEG)).unlink()  # as if the crash came before the next file was created
    with caplog.at_level(logging.WARNING), CommitLog(log_dir, SEG) as c:
        assert c.max_offset == SEG
        assert (log_dir / segment_name(SEG)).stat().st_size == SEG
    assert caplog.text == ""


def test_opening_with_another_segment_size_or_a_gap_is_refused(log_dir: Path) -> None:
    with CommitLog(log_dir, SEG) as c:
        fill(c, 2)
    with pytest.raises(CommitLogError, match="is 512 bytes, expected 256"):
        CommitLog(log_dir, SEG // 2)
    with CommitLog(log_dir, SEG) as c:
        fill(c, 30)
    with pytest.raises(CommitLogError, match="mappedFileSizeCommitLog"):
        CommitLog(log_dir, 2 * SEG + 8)
    (log_dir / segment_name(SEG)).unlink()
    with pytest.raises(CommitLogError, match="does not follow"):
        CommitLog(log_dir, SEG)


# --- truncation -------------------------------------------------------------------------------------


def test_truncate_removes_the_tail_for_good(log_dir: Path) -> None:
    with CommitLog(log_dir, SEG) as c:
        written = fill(c, 40)
        c.flush()
        target = written[9][0]
        c.truncate(target)
        assert c.max_offset == c.last_message_boundary() == c.flushed_offset == target
        assert [m for _, m, _ in c.iter_messages(0)] == [m for _, m in written[:9]]
    names = sorted(p.name for p in log_dir.iterdir())
    assert names[-1] == segment_name(target - target % SEG)
    assert (log_dir / names[-1]).read_bytes()[target % SEG :] == bytes(SEG - target % SEG)
    with CommitLog(log_dir, SEG) as c:
        assert c.max_offset == target
        assert [m for _, m, _ in c.iter_messages(0)] == [m for _, m in written[:9]]
        c.append(encode(msg(500)))
    with CommitLog(log_dir, SEG) as c:
        assert [m for _, m, _ in c.iter_messages(0)][-1] == msg(500)


def test_truncate_is_a_no_op_past_the_end_and_refused_below_the_minimum(clog: CommitLog) -> None:
    fill(clog, 20)
    end = clog.max_offset
    clog.truncate(end + 100)
    assert clog.max_offset == end
    clog.delete_segments_before(SEG)
    with pytest.raises(ValueError, match="below the minimum"):
        clog.truncate(10)


def test_truncate_inside_a_record_keeps_the_partial_bytes_for_the_master_to_complete(tmp_path: Path) -> None:
    with CommitLog(tmp_path / "m", SEG) as master, CommitLog(tmp_path / "r", SEG) as replica:
        written = fill(master, 10)
        replica.append_at(0, master.read(0, master.max_offset))
        inside = written[5][0] + 9
        replica.truncate(inside)
        assert (replica.max_offset, replica.last_message_boundary()) == (inside, written[5][0])
        replica.append_at(inside, master.read(inside, master.max_offset - inside))
        assert list(replica.iter_messages(0)) == list(master.iter_messages(0))


def test_an_interrupted_truncation_is_completed_on_reopen(
    log_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """RocketMQ #10666: a crash after the decision to truncate must not bring the stale tail back."""
    c = CommitLog(log_dir, SEG)
    written = fill(c, 40)
    c.flush()
    target = written[3][0]

    def crash(fd: int, length: int) -> None:
        raise OSError("simulated crash")

    with monkeypatch.context() as patch:
        patch.setattr(os, "ftruncate", crash)
        with pytest.raises(OSError, match="simulated crash"):
            c.truncate(target)
    assert (log_dir / INTENT_FILE).exists()
    c.close()
    with caplog.at_level(logging.WARNING), CommitLog(log_dir, SEG) as c:
        assert c.max_offset == target
        assert [m for _, m, _ in c.iter_messages(0)] == [m for _, m in written[:3]]
    assert not (log_dir / INTENT_FILE).exists()
    assert f"completing an interrupted truncation to offset {target}" in caplog.text


def test_a_damaged_intent_refuses_to_open(log_dir: Path) -> None:
    with CommitLog(log_dir, SEG) as c:
        fill(c, 5)
    (log_dir / INTENT_FILE).write_bytes(b"\x00" * 12)
    with pytest.raises(CommitLogError, match="damaged"):
        CommitLog(log_dir, SEG)


# --- retention --------------------------------------------------------------------------------------


def test_retention_deletes_whole_segments_and_reads_below_get_offset_too_small(log_dir: Path) -> None:
    with CommitLog(log_dir, SEG) as c:
        written = fill(c, 40)
        assert c.delete_segments_before(2 * SEG + 5) == 2 * SEG
        assert not (log_dir / segment_name(0)).exists() and not (log_dir / segment_name(SEG)).exists()
        for call in (lambda: c.read(SEG, 1), lambda: c.iter_messages(0), lambda: c.segment_view(5)):
            with pytest.raises(OffsetTooSmall, match="below the minimum 1024") as info:
                call()
            assert info.value.min_offset == 2 * SEG
        assert [m for _, m, _ in c.iter_messages(2 * SEG)] == [m for o, m in written if o >= 2 * SEG]
        end = c.max_offset
        assert c.delete_segments_before(10**12) == end - end % SEG  # never the segment holding the end
    with CommitLog(log_dir, SEG) as c:
        assert (c.min_offset, c.max_offset) == (end - end % SEG, end)
