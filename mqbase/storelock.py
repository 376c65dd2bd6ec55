"""One process per store: an OS lock on a ``lock`` file in the store directory, held for the process's life.

A second broker on the same ``storePathRootDir`` would take over the first one's broker id and register its own
address; a second controller on the same node store would write the same Raft journal. RocketMQ locks
``storePathRootDir/lock`` and Kafka ``log.dirs/.lock`` for the same reason. ``flock`` is released by the kernel
when the process ends, however it ends, so a crash never leaves a stale lock; the pid written into the file only
names the holder in the error. Used by ``mqcontroller`` (its node store) and ``mqagent`` (its own store and every
broker's).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from mqbase.errors import MqBaseError

LOCK_FILE = "lock"


class StoreLockError(MqBaseError, RuntimeError):
    """The store is locked by another process, or its lock file cannot be opened."""


def in_use_message(directory: Path, lock_text: str) -> str:
    """The refusal for a store another process holds; `lock_text` is its lock file (the holder's pid)."""
    pid = lock_text.strip()
    holder = f"pid {pid}" if pid.isascii() and pid.isdigit() else "another process"
    return f"store {directory} is in use by {holder}"


class StoreLock:
    """A held lock on one store directory; ``release`` (or the process ending) frees it."""

    def __init__(self, directory: Path, fd: int) -> None:
        self.directory = directory
        self._fd = fd

    @classmethod
    def acquire(cls, directory: Path) -> StoreLock:
        """Create the directory if needed and lock it; StoreLockError when another process holds it."""
        directory = Path(directory)
        try:
            directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise StoreLockError(f"cannot lock store {directory}: {exc.strerror or exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            text = os.pread(fd, 32, 0).decode("ascii", "replace")
            os.close(fd)
            raise StoreLockError(in_use_message(directory, text)) from None
        except OSError as exc:
            os.close(fd)
            raise StoreLockError(f"cannot lock store {directory}: {exc.strerror or exc}") from exc
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError as exc:
            os.close(fd)
            raise StoreLockError(f"cannot write the lock file of store {directory}: {exc.strerror or exc}") from exc
        return cls(directory, fd)

    def release(self) -> None:
        """Unlock (the file stays: removing it would let a third process lock a file the second has open)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
