"""Validation of replicated commit-log bytes before a slave appends them."""

from __future__ import annotations

import pytest

from agents.store.record import Message, check_stream, encode, encode_blank


def record(i: int) -> bytes:
    return encode(Message("T", 0, f"payload-{i}".encode() * 10, {"k": str(i)}, 1_700_000_000_000 + i))


# A blank is a 12-byte header followed by zeros up to its size, exactly as the master sends it.
STREAM = record(1) + record(2) + encode_blank(64) + bytes(52) + record(3)


def test_complete_records_and_blanks_pass() -> None:
    assert check_stream(STREAM) is None


@pytest.mark.parametrize("cut", range(1, len(STREAM)))
def test_any_prefix_passes_because_the_rest_comes_later(cut: int) -> None:
    assert check_stream(STREAM[:cut]) is None


def test_a_flipped_body_byte_is_a_crc_failure() -> None:
    data = bytearray(STREAM)
    data[len(record(1)) - 3] ^= 0xFF
    assert "fails its CRC" in (check_stream(bytes(data)) or "")


def test_garbage_where_a_record_should_start_is_refused() -> None:
    assert "no record at stream position" in (check_stream(record(1) + b"\x00\x00\x00\x40garbage!") or "")


def test_an_impossible_size_is_refused() -> None:
    data = bytearray(record(1))
    data[0:4] = (7).to_bytes(4, "big")
    assert "impossible size" in (check_stream(bytes(data)) or "")
