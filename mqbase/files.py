"""Durable file replacement and directory checks: the one copy every store, config and identity file uses."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def fsync_dir(path: Path) -> None:
    """Make creations, renames and deletions inside directory `path` durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so that a crash leaves either the old or the new content, durably.

    Temp file next to it, every byte written (a write that runs into a full disk is short first; the next one
    reports the error), fsync, rename, then the directory fsync that makes the rename itself survive a crash.
    """
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def directory_problem(path: Path) -> str | None:
    """Why `path` cannot hold a process's files (created when missing), or None: a file, a path under /proc, an
    unwritable folder are then one line at start instead of a traceback once the process is half up."""
    if path.exists() and not path.is_dir():
        return f"{path} is not a directory"
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        return f"{path} is not a writable directory ({exc.strerror or exc})"
    return None
