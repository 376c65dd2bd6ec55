"""A file system that loses every write not yet fsynced: a power loss under real, unmodified processes.

A FUSE pass-through over a backing directory (``mfusepy`` over libfuse 3, root and ``/dev/fuse``; CI installs
``fuse3``), run as its own process by `PowerFs`. Reads and writes go to the backing files at once, so the processes
above see an ordinary file system; what is not durable yet is remembered so that `cut` can take it back:

- *File data.* The first write or truncation of a 4 KiB block since the file's last ``fsync`` / ``fdatasync``
  (``msync`` of a mapping arrives as one) keeps the block's durable bytes, and the file its durable size; a sync
  forgets them. Writes through a shared mapping reach this file system only when the kernel writes the pages back,
  so a mapping never synced loses everything since it was last synced, as on a disk.
- *Names.* A file created, or renamed, since its directory's last ``fsync`` is taken back: a created file removed,
  a rename undone (the file it replaced restored). Made directories and removals are durable at once (a limit:
  a removal is never undone).

`PowerFs.cut()` is the power loss: the daemon stops applying writes (those the kernel still holds for the mount
land nowhere, since none of them was synced), the caller kills the processes above, and the unmount makes the
daemon restore the backing directory to its durable state and exit; `PowerFs.mount()` then serves it again with a
cold page cache, as a machine that came back. Run ``python -m tests.harness.powerfs BACKING MOUNTPOINT``; SIGUSR1
cuts.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BLOCK = 4096
TRASH = ".powerfs-replaced"
"""Inside the backing directory: files a rename replaced, kept until the rename is durable."""


@dataclass
class _Undo:
    """What a file held at its last sync: its size and the blocks changed since."""

    size: int
    blocks: dict[int, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class _Rename:
    old: str
    new: str
    replaced: str | None
    """Where the file `new` named before is kept (in `TRASH`), or None."""


class Durability:
    """The undo log of one backing directory (see the module docstring); paths are relative to it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: dict[str, _Undo] = {}
        self.created: set[str] = set()
        self.renames: list[_Rename] = []
        self._trash_n = 0

    def full(self, path: str) -> str:
        return str(self.root / path.lstrip("/"))

    def before_change(self, path: str, start: int, end: int) -> None:
        """Keep the durable bytes of the blocks [start, end) of `path` touches, the first time since its sync."""
        full = self.full(path)
        undo = self.files.get(path)
        if undo is None:
            undo = self.files[path] = _Undo(os.path.getsize(full))
        first, last = start // BLOCK, (max(end, start + 1) - 1) // BLOCK
        with open(full, "rb") as f:
            for block in range(first, last + 1):
                if block in undo.blocks or block * BLOCK >= undo.size:
                    continue
                f.seek(block * BLOCK)
                undo.blocks[block] = f.read(min(BLOCK, undo.size - block * BLOCK))

    def synced(self, path: str) -> None:
        self.files.pop(path, None)

    def dir_synced(self, directory: str) -> None:
        parent = directory.rstrip("/") or "/"

        def inside(p: str) -> bool:
            return os.path.dirname(p) == parent

        self.created = {p for p in self.created if not inside(p)}
        kept = []
        for r in self.renames:
            if inside(r.new):
                if r.replaced:
                    os.unlink(self.full(r.replaced))
            else:
                kept.append(r)
        self.renames = kept

    def create(self, path: str) -> None:
        self.created.add(path)

    def rename(self, old: str, new: str) -> None:
        replaced = None
        if os.path.lexists(self.full(new)) and not os.path.isdir(self.full(new)):
            self._trash_n += 1
            replaced = f"/{TRASH}/{self._trash_n}"
            os.makedirs(self.full(f"/{TRASH}"), exist_ok=True)
            os.rename(self.full(new), self.full(replaced))
            if new in self.files:
                self.files[replaced] = self.files.pop(new)
            if new in self.created:
                self.created.discard(new)
                self.created.add(replaced)
        os.rename(self.full(old), self.full(new))
        if old in self.files:
            self.files[new] = self.files.pop(old)
        if old in self.created:
            self.created.discard(old)
            self.created.add(new)
        self.renames.append(_Rename(old, new, replaced))

    def removed(self, path: str) -> None:
        self.files.pop(path, None)
        self.created.discard(path)

    def restore(self) -> None:
        """Put the backing directory back as it was at the last syncs."""
        for r in reversed(self.renames):
            if os.path.lexists(self.full(r.new)):
                os.rename(self.full(r.new), self.full(r.old))
                if r.new in self.files:
                    self.files[r.old] = self.files.pop(r.new)
                if r.new in self.created:
                    self.created.discard(r.new)
                    self.created.add(r.old)
            if r.replaced:
                os.rename(self.full(r.replaced), self.full(r.new))
                if r.replaced in self.files:
                    self.files[r.new] = self.files.pop(r.replaced)
                if r.replaced in self.created:
                    self.created.discard(r.replaced)
                    self.created.add(r.new)
        self.renames = []
        for path, undo in self.files.items():
            full = self.full(path)
            if path in self.created or not os.path.exists(full):
                continue
            with open(full, "r+b") as f:
                for block, data in undo.blocks.items():
                    f.seek(block * BLOCK)
                    f.write(data)
                f.truncate(undo.size)
        for path in self.created:
            if os.path.lexists(self.full(path)):
                os.unlink(self.full(path))
        self.files, self.created = {}, set()
        shutil.rmtree(self.full(f"/{TRASH}"), ignore_errors=True)


def _operations(durable: Durability) -> Any:
    from mfusepy import FuseOSError, Operations

    class PassThrough(Operations):  # type: ignore[misc]
        """Every call on the backing directory, with `durable` told what is not synced yet."""

        use_ns = True  # utimens gets nanoseconds

        def __init__(self) -> None:
            self.cut = False
            self.paths: dict[int, str] = {}  # open file handle -> path, for fsync (a rename moves it)

        def _full(self, path: str) -> str:
            return durable.full(path)

        def getattr(self, path: str, fh: int | None = None) -> dict[str, Any]:
            st = os.lstat(self._full(path))
            keys = ("st_mode", "st_nlink", "st_size", "st_uid", "st_gid", "st_atime", "st_mtime", "st_ctime")
            return {k: getattr(st, k) for k in keys}

        def readdir(self, path: str, fh: int) -> list[str]:
            return [".", "..", *(n for n in os.listdir(self._full(path)) if n != TRASH)]

        def statfs(self, path: str) -> dict[str, int]:
            st = os.statvfs(self._full(path))
            keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag",
                    "f_frsize", "f_namemax")  # fmt: skip
            return {k: getattr(st, k) for k in keys}

        def open(self, path: str, flags: int) -> int:
            if flags & os.O_TRUNC and not self.cut:
                durable.before_change(path, 0, os.path.getsize(self._full(path)))
            fh = os.open(self._full(path), flags & ~os.O_APPEND)
            self.paths[fh] = path
            return fh

        def create(self, path: str, mode: int, fi: Any = None) -> int:
            fh = os.open(self._full(path), os.O_RDWR | os.O_CREAT | os.O_TRUNC, mode)
            durable.create(path)
            self.paths[fh] = path
            return fh

        def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
            return os.pread(fh, size, offset)

        def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
            if self.cut:  # after the power went: nothing lands
                return len(data)
            durable.before_change(self.paths.get(fh, path), offset, offset + len(data))
            return os.pwrite(fh, data, offset)

        def truncate(self, path: str, length: int, fh: int | None = None) -> int:
            if self.cut:
                return 0
            target = self.paths.get(fh, path) if fh is not None else path
            size = os.path.getsize(self._full(target))
            durable.before_change(target, min(length, size), max(length, size))
            os.truncate(self._full(target), length)
            return 0

        def fsync(self, path: str, datasync: int, fh: int) -> int:
            if not self.cut:
                durable.synced(self.paths.get(fh, path))
            return 0

        def fsyncdir(self, path: str, datasync: int, fh: int) -> int:
            if not self.cut:
                durable.dir_synced(path)
            return 0

        def flush(self, path: str, fh: int) -> int:
            return 0

        def release(self, path: str, fh: int) -> int:
            self.paths.pop(fh, None)
            os.close(fh)
            return 0

        def unlink(self, path: str) -> int:
            if self.cut:
                return 0
            os.unlink(self._full(path))
            durable.removed(path)
            return 0

        def rename(self, old: str, new: str) -> int:
            if self.cut:
                return 0
            durable.rename(old, new)
            for fh, p in self.paths.items():
                if p == old:
                    self.paths[fh] = new
            return 0

        def mkdir(self, path: str, mode: int) -> int:
            os.mkdir(self._full(path), mode)
            return 0

        def rmdir(self, path: str) -> int:
            os.rmdir(self._full(path))
            return 0

        def chmod(self, path: str, mode: int) -> int:
            os.chmod(self._full(path), mode)
            return 0

        def chown(self, path: str, uid: int, gid: int) -> int:
            os.chown(self._full(path), uid, gid)
            return 0

        def utimens(self, path: str, times: tuple[int, int] | None = None) -> int:
            if times is None:
                os.utime(self._full(path))
            else:
                os.utime(self._full(path), ns=times)
            return 0

        def access(self, path: str, amode: int) -> int:
            if not os.access(self._full(path), amode):
                raise FuseOSError(errno.EACCES)
            return 0

    return PassThrough()


def serve(backing: Path, mountpoint: Path) -> None:
    """Serve `backing` at `mountpoint` until unmounted; then restore what a cut did not keep."""
    from mfusepy import FUSE

    durable = Durability(backing)
    ops = _operations(durable)

    def cut(_signum: int, _frame: Any) -> None:
        ops.cut = True

    signal.signal(signal.SIGUSR1, cut)
    FUSE(ops, str(mountpoint), foreground=True, nothreads=True)
    if ops.cut:
        durable.restore()


def available() -> str | None:
    """Why this machine cannot run `PowerFs` (None: it can)."""
    if os.geteuid() != 0:
        return "the power-loss file system needs root (FUSE mounts)"
    if not os.path.exists("/dev/fuse"):
        return "the power-loss file system needs /dev/fuse"
    if shutil.which("fusermount3") is None:
        return "the power-loss file system needs libfuse 3 (Debian's fuse3: apt-get install fuse3)"
    try:
        import mfusepy  # noqa: F401
    except (ImportError, OSError) as exc:
        return f"the power-loss file system needs mfusepy and libfuse 3: {exc}"
    return None


class PowerFs:
    """One mounted power-loss file system over `backing` at `mountpoint` (see the module docstring)."""

    def __init__(self, backing: Path, mountpoint: Path) -> None:
        self.backing, self.mountpoint = backing, mountpoint
        self.proc: subprocess.Popen[bytes] | None = None

    def mount(self, timeout: float = 10.0) -> None:
        self.backing.mkdir(parents=True, exist_ok=True)
        self.mountpoint.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.harness.powerfs", str(self.backing),
                                      str(self.mountpoint)])  # fmt: skip
        deadline = time.monotonic() + timeout
        while not os.path.ismount(self.mountpoint):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.unmount()
                raise RuntimeError(f"the power-loss file system did not mount at {self.mountpoint}")
            time.sleep(0.02)

    def cut(self) -> None:
        """The power goes: from now on nothing written lands (kill the processes above, then `restart`)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGUSR1)
        time.sleep(0.05)  # the daemon handles the signal between requests

    def restart(self) -> None:
        """The machine comes back: the directory holds what was durable at the cut, with a cold cache."""
        self.unmount()
        self.mount()

    def unmount(self) -> None:
        if os.path.ismount(self.mountpoint):
            subprocess.run(["fusermount3", "-u", "-z", str(self.mountpoint)], check=False)
        if self.proc is not None:
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


if __name__ == "__main__":
    serve(Path(sys.argv[1]), Path(sys.argv[2]))
