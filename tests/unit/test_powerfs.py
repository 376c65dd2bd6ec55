"""The power-loss file system's undo log (tests/harness/powerfs.py) on a plain directory: what a cut keeps."""

from __future__ import annotations

import os
from pathlib import Path

from tests.harness.powerfs import BLOCK, Durability


def write(d: Durability, path: str, data: bytes, offset: int) -> None:
    d.before_change(path, offset, offset + len(data))
    with open(d.full(path), "r+b") as f:
        f.seek(offset)
        f.write(data)


def test_unsynced_data_goes_synced_data_stays_and_a_grown_file_shrinks_back(tmp_path: Path) -> None:
    (tmp_path / "log").write_bytes(b"x" * (BLOCK + 10))
    d = Durability(tmp_path)
    write(d, "/log", b"AB", BLOCK - 1)  # across two blocks
    write(d, "/log", b"tail" * 2000, BLOCK + 10)  # appended past the durable size
    d.restore()
    assert (tmp_path / "log").read_bytes() == b"x" * (BLOCK + 10)
    write(d, "/log", b"kept", 0)
    d.synced("/log")
    write(d, "/log", b"gone", 0)
    d.restore()
    assert (tmp_path / "log").read_bytes()[:4] == b"kept"


def test_a_file_made_or_renamed_since_its_directory_was_synced_is_taken_back(tmp_path: Path) -> None:
    (tmp_path / "state").write_bytes(b"old")
    d = Durability(tmp_path)
    (tmp_path / "state.tmp").write_bytes(b"")
    d.create("/state.tmp")
    write(d, "/state.tmp", b"new", 0)
    d.synced("/state.tmp")  # the temp file's data is synced, the rename and the directory are not
    d.rename("/state.tmp", "/state")
    d.restore()
    assert sorted(os.listdir(tmp_path)) == ["state"] and (tmp_path / "state").read_bytes() == b"old"
    (tmp_path / "state.tmp").write_bytes(b"")
    d.create("/state.tmp")
    write(d, "/state.tmp", b"new", 0)
    d.synced("/state.tmp")
    d.rename("/state.tmp", "/state")
    d.dir_synced("/")
    d.restore()
    assert sorted(os.listdir(tmp_path)) == ["state"] and (tmp_path / "state").read_bytes() == b"new"
