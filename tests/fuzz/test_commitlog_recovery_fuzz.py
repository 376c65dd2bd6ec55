"""Commit-log recovery over damaged segment files.

A log of known records is damaged the ways a crash, a bad disk or a foreign writer leave it (bytes overwritten
with noise, a torn tail, garbage after the end, a short or missing segment, a CRC-valid record that breaks the
format) and opened again. Recovery must cut at the last valid record before the damage and keep every record
before it, leave only zeros past the end, answer the same on a second open, and raise nothing but
``CommitLogError`` (a log it cannot open). pytest-timeout guards against a hang.
"""

from __future__ import annotations

import os
import struct
import tempfile
import zlib
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agents.store.commitlog import CommitLog, CommitLogError, segment_name
from agents.store.record import Message, encode
from tests.harness.fuzzing import fuzz

SEG = 512
TOPIC_AT = 38


def _messages(sizes: list[int]) -> list[Message]:
    return [Message("Fuzz", i % 2, bytes([i % 251]) * size, {"n": str(i)}, 1_000 + i) for i, size in enumerate(sizes)]


def _build(directory: Path, sizes: list[int]) -> list[tuple[int, Message, int]]:
    """A log holding one record per size; (offset, message, size) of each."""
    out = []
    with CommitLog(directory, SEG) as log:
        for m in _messages(sizes):
            record = encode(m)
            out.append((log.append(record)[0], m, len(record)))
        log.flush()
    return out


def _foreign_record() -> bytes:
    """A record whose CRCs match but whose topic is not valid UTF-8: only a bug or another format writes that."""
    record = bytearray(encode(Message("TT", 0, b"x", {}, 1)))
    record[TOPIC_AT : TOPIC_AT + 2] = b"\xff\xfe"
    topic_len = struct.unpack_from(">H", record, TOPIC_AT - 2)[0]
    props_len = struct.unpack_from(">i", record, TOPIC_AT + topic_len)[0]
    body_at = TOPIC_AT + topic_len + 4 + props_len + 4
    struct.pack_into(">I", record, 12, zlib.crc32(record[body_at:]))
    struct.pack_into(">I", record, 8, zlib.crc32(bytes(record[12:body_at]), zlib.crc32(bytes(record[:8]))))
    return bytes(record)


@st.composite
def damage(draw: st.DrawFn) -> tuple[str, int, bytes]:
    """(kind, position as a fraction of the log in 1/1000, bytes)."""
    kind = draw(st.sampled_from(["overwrite", "overwrite", "tail", "truncate", "unlink", "foreign"]))
    return kind, draw(st.integers(0, 999)), draw(st.binary(min_size=1, max_size=64))


def _apply(directory: Path, records: list[tuple[int, Message, int]], kind: str, where: int, data: bytes) -> int | None:
    """Damage the log of `records`; returns the first offset whose bytes changed (None: no record changed)."""
    end = records[-1][0] + records[-1][2]
    segments = sorted(directory.iterdir())
    if kind in ("truncate", "unlink"):
        victim = segments[where % len(segments)]
        start = int(victim.name)
        if kind == "unlink":
            victim.unlink()
        else:
            os.truncate(victim, where * SEG // 1000)
        return start
    position = end if kind == "tail" else where * end // 1000
    if kind == "foreign":  # at a record boundary, where the scan reads it
        position, data = records[where % len(records)][0], _foreign_record()
    segment = position - position % SEG
    data = data[: SEG - position % SEG]
    with open(directory / segment_name(segment), "r+b") as f:
        f.seek(position % SEG)
        old = f.read(len(data))
        f.seek(position % SEG)
        f.write(data)
    return None if old == data else position


def _zeros_past_the_end(directory: Path, end: int) -> bool:
    for path in directory.iterdir():
        start = int(path.name)
        data = path.read_bytes()
        if data[max(end - start, 0) :].strip(b"\0"):
            return False
    return True


@fuzz(250)
@given(
    st.lists(st.integers(0, 200), min_size=1, max_size=12),
    damage(),
    st.one_of(st.none(), st.integers(0, 11)),
)
def test_recovery_cuts_at_the_last_valid_record_and_raises_only_commit_log_error(
    sizes: list[int], hit: tuple[str, int, bytes], hint_index: int | None
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "commitlog"
        records = _build(directory, sizes)
        first_damaged = _apply(directory, records, *hit)
        intact = [r for r in records if first_damaged is None or r[0] + r[2] <= first_damaged]
        # The checkpoint's flushedOffset: a boundary below the damage, fsynced before it.
        hint = intact[hint_index][0] if hint_index is not None and hint_index < len(intact) else None
        try:
            log = CommitLog(directory, SEG, recover_from=hint)
        except CommitLogError:
            assert hit[0] in ("truncate", "unlink", "foreign"), "only a broken segment set or a foreign record"
            return
        with log:
            recovered = [(pos, m, size) for pos, m, size in log.iter_messages(log.min_offset)]
            new_end = log.max_offset
            # A missing first segment reads as retention: the log then starts at the next one.
            kept = [r for r in records if r[0] >= log.min_offset]
            assert recovered == kept[: len(recovered)], "recovery keeps a prefix of what was written"
            assert len(recovered) >= len([r for r in intact if r[0] >= log.min_offset]), "nothing valid is lost"
            assert log.last_message_boundary() == new_end
        assert _zeros_past_the_end(directory, new_end), "stale bytes past the end could be read back"
        with CommitLog(directory, SEG) as again:
            assert again.max_offset == new_end, "a second recovery finds the same end"
