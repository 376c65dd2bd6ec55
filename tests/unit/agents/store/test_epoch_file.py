"""The epoch file format, its backup and its failure modes (Java's ``CheckpointFile``)."""

from __future__ import annotations

import logging
import os
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.store.epoch_file import EpochFile, EpochFileError, decode, encode
from agents.store.epochs import EpochCache

OLD = EpochCache.from_pairs([(1, 0), (2, 100)])
NEW = EpochCache.from_pairs([(1, 0), (2, 100), (4, 900)])


def crc(body: bytes) -> int:
    return zlib.crc32(body) & 0x7FFFFFFF


def content(pairs: list[tuple[int, int]]) -> bytes:
    """The file as Java writes it, built independently of the module under test."""
    body = b"".join(b"%d-%d\n" % pair for pair in pairs)
    return b"%d\n%d\n" % (len(pairs), crc(body)) + body


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


# --- format -------------------------------------------------------------------------------------


def test_golden_bytes() -> None:
    body = b"1-0\n2-100\n4-900\n"
    assert encode(NEW) == b"3\n" + str(crc(body)).encode() + b"\n" + body
    assert encode(NEW) == content([(1, 0), (2, 100), (4, 900)])


def test_the_java_javadoc_example_round_trips() -> None:
    java = b"2\n773307083\n7-7000\n8-8000\n"
    assert decode(java) == EpochCache.from_pairs([(7, 7000), (8, 8000)])
    assert encode(decode(java)) == java


def test_an_empty_cache_is_two_zero_lines() -> None:
    assert encode(EpochCache()) == b"0\n0\n"
    assert decode(b"0\n0\n") == EpochCache()


def test_a_zero_crc_is_not_checked() -> None:
    assert decode(b"2\n0\n1-0\n2-100\n") == OLD


def test_large_values_round_trip() -> None:
    big = EpochCache.from_pairs([(0, 0), (2**31 - 1, 2**63 - 1)])
    assert decode(encode(big)) == big


BAD_CONTENT: list[tuple[str, bytes, str]] = [
    ("empty", b"", "empty"),
    ("not_ascii", b"1\n0\n1-0\xff\n", "not ASCII"),
    ("unterminated", content([(1, 0)])[:-1], "not terminated"),
    ("header_only_count", b"0\n", "header"),
    ("header_not_a_number", b"x\n0\n", "header"),
    ("negative_count", b"-1\n0\n", "header"),
    ("signed_crc", b"0\n+0\n", "header"),
    ("count_too_high", b"3" + content([(1, 0), (2, 100)])[1:], "announces 3 entries but the file holds 2"),
    ("count_too_low", b"1" + content([(1, 0), (2, 100)])[1:], "announces 1 entries but the file holds 2"),
    ("bad_crc", b"2\n12345\n1-0\n2-100\n", "CRC mismatch: the header says 12345"),
    ("flipped_digit", content([(1, 0), (2, 100)]).replace(b"2-100", b"2-101"), "CRC mismatch"),
    ("blank_entry_line", b"2\n0\n1-0\n\n", "entry 2 is ''"),
    ("garbage_entry", b"1\n0\nhello\n", "not <epoch>-<startOffset>"),
    ("negative_offset", b"1\n0\n1--5\n", "not <epoch>-<startOffset>"),
    ("crlf", b"1\n0\n1-0\r\n", "not <epoch>-<startOffset>"),
    ("huge_number", b"1\n0\n1-" + b"9" * 5000 + b"\n", "not <epoch>-<startOffset>"),
    ("epoch_past_java_int", b"1\n0\n2147483648-0\n", "not a valid history"),
    ("descending_epochs", b"2\n0\n2-0\n1-100\n", "not a valid history"),
    ("equal_starts", content([(1, 0), (2, 0)]), "not a valid history"),
]


@pytest.mark.parametrize(("data", "message"), [pytest.param(*case[1:], id=case[0]) for case in BAD_CONTENT])
def test_decode_rejects(data: bytes, message: str) -> None:
    with pytest.raises(EpochFileError, match=message):
        decode(data)


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 10**12)), max_size=8))
def test_encode_decode_round_trip(steps: list[tuple[int, int]]) -> None:
    pairs, epoch, start = [], -1, -1
    for epoch_step, offset_step in steps:
        epoch, start = epoch + 1 + epoch_step, start + offset_step
        pairs.append((epoch, start))
    cache = EpochCache.from_pairs(pairs)
    assert encode(cache) == content(pairs)
    assert decode(encode(cache)) == cache


# --- save and load ------------------------------------------------------------------------------


@pytest.fixture
def file(tmp_path: Path) -> EpochFile:
    return EpochFile(tmp_path / "epochFileCheckpoint")


def test_both_missing_is_an_empty_history_and_creates_nothing(file: EpochFile, tmp_path: Path) -> None:
    assert file.load() == EpochCache()
    assert snapshot(tmp_path) == {}


def test_accepts_a_str_path(tmp_path: Path) -> None:
    EpochFile(str(tmp_path / "epochs")).save(OLD)
    assert EpochFile(str(tmp_path / "epochs")).load() == OLD


def test_first_save_writes_no_backup(file: EpochFile, tmp_path: Path) -> None:
    file.save(OLD)
    assert snapshot(tmp_path) == {"epochFileCheckpoint": content([(1, 0), (2, 100)])}
    assert file.load() == OLD


def test_save_keeps_the_previous_file_as_backup(file: EpochFile, tmp_path: Path) -> None:
    file.save(OLD)
    file.save(NEW)
    assert snapshot(tmp_path) == {
        "epochFileCheckpoint": content([(1, 0), (2, 100), (4, 900)]),
        "epochFileCheckpoint.bak": content([(1, 0), (2, 100)]),
    }
    assert file.load() == NEW


def test_an_empty_cache_persists(file: EpochFile) -> None:
    # Java skips writing an empty list, so a full truncation comes back after a restart.
    file.save(OLD)
    file.save(EpochCache())
    assert file.path.read_bytes() == b"0\n0\n"
    assert file.load() == EpochCache()


def test_save_never_backs_up_an_unusable_file(file: EpochFile, caplog: pytest.LogCaptureFixture) -> None:
    file.save(OLD)
    file.save(NEW)
    file.path.write_bytes(b"garbage")
    file.save(NEW)
    assert file.backup.read_bytes() == content([(1, 0), (2, 100)])
    assert "keeping the existing backup" in caplog.text


def test_a_failed_write_leaves_the_old_file(file: EpochFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file.save(OLD)
    real_replace = os.replace

    def crash_on_main(src: str | Path, dst: str | Path) -> None:
        if Path(dst) == file.path:
            raise OSError("disk full")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash_on_main)
    with pytest.raises(OSError, match="disk full"):
        file.save(NEW)
    assert file.load() == OLD


MAIN_PROBLEMS: list[tuple[str, Callable[[bytes], bytes | None], str]] = [
    # (id, what happens to the main file (None: deleted), the reason logged)
    ("missing", lambda data: None, "is missing"),
    ("empty", lambda data: b"", "the file is empty"),
    ("bad_crc", lambda data: data.replace(b"2-100", b"2-999"), "CRC mismatch"),
    ("wrong_count", lambda data: b"7" + data[1:], "announces 7 entries"),
    ("binary_garbage", lambda data: b"\xff\xfe\x00garbage\n", "not ASCII"),
    ("text_garbage", lambda data: b"not an epoch file\n", "header"),
    ("partial_write", lambda data: data[:-3], "not terminated"),
    ("out_of_order", lambda data: b"2\n0\n5-0\n3-10\n", "not a valid history"),
]


@pytest.mark.parametrize(("damage", "reason"), [pytest.param(*case[1:], id=case[0]) for case in MAIN_PROBLEMS])
def test_load_falls_back_to_the_backup(
    damage: Callable[[bytes], bytes | None],
    reason: str,
    file: EpochFile,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    file.save(OLD)
    file.save(NEW)
    damaged = damage(file.path.read_bytes())
    if damaged is None:
        file.path.unlink()
    else:
        file.path.write_bytes(damaged)
    before = snapshot(tmp_path)
    with caplog.at_level(logging.WARNING, logger="agents.store.epoch_file"):
        assert file.load() == OLD
    assert snapshot(tmp_path) == before
    assert reason in caplog.text
    assert str(file.backup) in caplog.text


def test_an_unreadable_main_file_falls_back(file: EpochFile, caplog: pytest.LogCaptureFixture) -> None:
    file.backup.write_bytes(content([(1, 0), (2, 100)]))
    file.path.mkdir()
    assert file.load() == OLD
    assert "cannot read it" in caplog.text


def test_both_corrupt_is_an_error_naming_both_and_touches_nothing(file: EpochFile, tmp_path: Path) -> None:
    file.path.write_bytes(b"2\n12345\n1-0\n2-100\n")
    file.backup.write_bytes(b"")
    before = snapshot(tmp_path)
    with pytest.raises(EpochFileError) as raised:
        file.load()
    message = str(raised.value)
    assert str(file.path) in message and "CRC mismatch" in message
    assert str(file.backup) in message and "the file is empty" in message
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("main", "backup", "message"),
    [
        pytest.param(b"junk", None, r"is unusable \(.*\) and its backup .* is missing", id="corrupt_main_no_backup"),
        pytest.param(None, b"junk", r"is missing and its backup .* is unusable", id="no_main_corrupt_backup"),
    ],
)
def test_no_usable_copy_is_an_error_not_an_empty_history(
    main: bytes | None, backup: bytes | None, message: str, file: EpochFile, tmp_path: Path
) -> None:
    # An empty history would make the broker look new and copy the master's log from scratch.
    for path, data in ((file.path, main), (file.backup, backup)):
        if data is not None:
            path.write_bytes(data)
    before = snapshot(tmp_path)
    with pytest.raises(EpochFileError, match=message):
        file.load()
    assert snapshot(tmp_path) == before


VALID_BACKUP = content([(1, 0), (2, 100)])

near_valid = st.builds(
    lambda data, at, byte: data[:at] + bytes([byte]) + data[at + 1 :],
    st.sampled_from([content([(1, 0), (2, 100), (4, 900)]), b"0\n0\n", b"2\n0\n1-0\n2-100\n"]),
    st.integers(0, 25),
    st.integers(0, 255),
)


@settings(max_examples=300)
@given(st.one_of(st.binary(max_size=64), near_valid), st.booleans())
def test_load_survives_any_main_file(main: bytes, with_backup: bool) -> None:
    with tempfile.TemporaryDirectory() as directory:
        file = EpochFile(Path(directory) / "epochs")
        file.path.write_bytes(main)
        if with_backup:
            file.backup.write_bytes(VALID_BACKUP)
        before = snapshot(Path(directory))
        try:
            loaded = file.load()
        except EpochFileError:
            assert not with_backup
        else:
            try:
                expected = decode(main)
            except EpochFileError:
                expected = decode(VALID_BACKUP)
            assert loaded == expected
        assert snapshot(Path(directory)) == before
