"""The broker's on-disk readers against damaged files: the epoch file (with its backup) and the checkpoint.

A reader answers the decoded content or its documented error (``EpochFileError``, ``CheckpointError``) naming the
file, and never writes: content and mtime of every file stay as they were. tests/unit/agents/store/test_epoch_file.py
fuzzes the main epoch file next to a good backup; here both copies are damaged (truncated, bit-flipped, random).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.store import checkpoint
from agents.store.checkpoint import Checkpoint, CheckpointData, CheckpointError
from agents.store.epoch_file import EpochFile, EpochFileError, decode, encode
from agents.store.epochs import EpochCache
from tests.harness.fuzzing import files_state, flip_bits, fuzz, write_file

GOOD_EPOCHS = [
    encode(EpochCache.from_pairs([(1, 0), (2, 100), (5, 2**40)])),
    encode(EpochCache.from_pairs([(2**31 - 1, 2**63 - 2)])),
    encode(EpochCache()),
]


@st.composite
def damaged(draw: st.DrawFn, good: list[bytes]) -> bytes | None:
    """A file as a crash, a bad disk or an operator could leave it: missing, intact, cut, flipped or noise."""
    data = draw(st.sampled_from(good))
    kind = draw(st.sampled_from(["missing", "intact", "truncated", "flipped", "random", "appended"]))
    if kind == "missing":
        return None
    if kind == "truncated":
        return data[: draw(st.integers(0, len(data) - 1))]
    if kind == "flipped":
        return flip_bits(data, draw(st.lists(st.integers(0, 8 * len(data) - 1), min_size=1, max_size=3)))
    if kind == "random":
        return draw(st.binary(max_size=80))
    if kind == "appended":
        return data + draw(st.binary(min_size=1, max_size=20))
    return data


def _decodes(data: bytes | None) -> EpochCache | None:
    if data is None:
        return None
    try:
        return decode(data)
    except EpochFileError:
        return None


@fuzz(500)
@given(damaged(GOOD_EPOCHS), damaged(GOOD_EPOCHS))
def test_epoch_file_load_uses_the_main_file_else_the_backup_else_fails_and_never_writes(
    main: bytes | None, backup: bytes | None
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        file = EpochFile(Path(directory) / "epochFileCheckpoint")
        write_file(file.path, main)
        write_file(file.backup, backup)
        before = files_state(Path(directory))
        try:
            loaded = file.load()
        except EpochFileError as exc:
            assert _decodes(main) is None, "a usable main file must be used"
            assert main is not None or backup is not None, "two missing files are an empty history"
            assert str(file.path) in str(exc) and str(file.backup) in str(exc)
        else:
            expected = _decodes(main)
            if expected is None:
                expected = _decodes(backup) if (main is not None or backup is not None) else EpochCache()
            assert loaded == expected
        assert files_state(Path(directory)) == before


GOOD_CHECKPOINTS = [
    checkpoint.encode(CheckpointData(4096, 2048, 1024)),
    checkpoint.encode(CheckpointData()),
    checkpoint.encode(CheckpointData(2**63 - 1, 2**63 - 1, 2**63 - 1)),
]


@fuzz(500)
@given(damaged(GOOD_CHECKPOINTS))
def test_checkpoint_load_answers_the_offsets_or_a_checkpoint_error_naming_the_file(data: bytes | None) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "checkpoint"
        write_file(path, data)
        before = files_state(Path(directory))
        try:
            loaded = Checkpoint(path).load()
        except CheckpointError as exc:
            assert data is not None
            assert str(path) in str(exc) and "Move the file away" in str(exc)
            with pytest.raises(CheckpointError):
                checkpoint.decode(data)
        else:
            if data is None:
                assert loaded == CheckpointData()
            else:
                assert checkpoint.encode(loaded) == data, "only an intact file decodes"
                assert min(loaded.flushed_offset, loaded.confirm_offset, loaded.consume_queue_offset) >= 0
        assert files_state(Path(directory)) == before
