"""The epoch file: an ``EpochCache`` on disk, in Java's ``CheckpointFile`` format.

    <number of entries>\\n
    <CRC32 of the entry lines, & 0x7FFFFFFF, decimal>\\n      (0 = not checked)
    <epoch>-<startOffset>\\n                                   (one per entry, ascending epochs)

Losing this file makes a replica look new, so every save keeps the previous good version in ``<path>.bak`` and
loading falls back to it. Unlike Java, both files are replaced atomically (temp file, fsync, rename), and an empty
cache is written rather than skipped, so that truncating every entry survives a restart. Java would read such an
empty file as missing and use the backup; this module reads it as an empty history.

``encode``/``decode`` are pure; ``EpochFile`` does the I/O. One writer per file: it takes no locks.
"""

from __future__ import annotations

import logging
import re
import zlib
from pathlib import Path

from agents.errors import AgentError
from agents.store.epochs import EpochCache, EpochError
from mqbase.files import atomic_write

log = logging.getLogger(__name__)

# Bounded lengths: values past these cannot be valid, and Python refuses to parse very long digit strings.
_NUMBER = re.compile(r"[0-9]{1,19}")
_ENTRY = re.compile(r"([0-9]{1,10})-([0-9]{1,19})")
_NO_CRC = 0


class EpochFileError(AgentError, RuntimeError):
    """An epoch file that cannot be read, or no usable copy of it at all."""


def _crc(body: bytes) -> int:
    return zlib.crc32(body) & 0x7FFFFFFF


def encode(cache: EpochCache) -> bytes:
    """The file content for `cache`."""
    body = "".join(f"{epoch}-{start}\n" for epoch, start in cache.pairs()).encode("ascii")
    return f"{len(cache.entries)}\n{_crc(body)}\n".encode("ascii") + body


def decode(data: bytes) -> EpochCache:
    """Inverse of ``encode``; raises EpochFileError saying what is wrong.

    Stricter than Java, which skips lines it cannot parse: any deviation means the file is not what we wrote.
    """
    if not data:
        raise EpochFileError("the file is empty")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as exc:
        raise EpochFileError(f"the file is not ASCII text (byte {exc.start})") from exc
    if not text.endswith("\n"):
        raise EpochFileError("the last line is not terminated (a partial write?)")
    lines = text[:-1].split("\n")
    if len(lines) < 2 or not all(_NUMBER.fullmatch(line) for line in lines[:2]):
        raise EpochFileError("the header is not two lines holding the entry count and the CRC")
    count, crc = int(lines[0]), int(lines[1])
    rows = lines[2:]
    if len(rows) != count:
        raise EpochFileError(f"the header announces {count} entries but the file holds {len(rows)}")
    body = "".join(f"{row}\n" for row in rows).encode("ascii")
    if crc != _NO_CRC and crc != _crc(body):
        raise EpochFileError(f"CRC mismatch: the header says {crc}, the entries give {_crc(body)}")
    pairs = []
    for number, row in enumerate(rows, start=1):
        match = _ENTRY.fullmatch(row)
        if match is None:
            raise EpochFileError(f"entry {number} is {row!r}, not <epoch>-<startOffset>")
        pairs.append((int(match[1]), int(match[2])))
    try:
        return EpochCache.from_pairs(pairs)
    except EpochError as exc:
        raise EpochFileError(f"the entries are not a valid history: {exc}") from exc


def _read(path: Path) -> EpochCache | None:
    """The cache stored at `path`, None if there is no such file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise EpochFileError(f"cannot read it: {exc}") from exc
    return decode(data)


class EpochFile:
    """The epoch file at `path` and its backup ``<path>.bak``."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.backup = self.path.with_name(self.path.name + ".bak")

    def load(self) -> EpochCache:
        """The saved cache: the main file, else the backup, else (neither exists) an empty cache.

        Never writes. A main file that is unusable with no usable backup is an error, not an empty cache: an
        empty history would make this broker copy the master's log from scratch as if it were new.
        """
        main_error: EpochFileError | None = None
        try:
            cache = _read(self.path)
        except EpochFileError as exc:
            cache, main_error = None, exc
        if cache is not None:
            return cache
        problem = "is missing" if main_error is None else f"is unusable ({main_error})"
        try:
            backup = _read(self.backup)
        except EpochFileError as exc:
            raise EpochFileError(
                f"no usable epoch file: {self.path} {problem} and its backup {self.backup} is unusable ({exc})"
            ) from exc
        if backup is None and main_error is None:
            return EpochCache()
        if backup is None:
            raise EpochFileError(f"no usable epoch file: {self.path} {problem} and its backup {self.backup} is missing")
        log.warning("epoch file %s %s; using its backup %s", self.path, problem, self.backup)
        return backup

    def save(self, cache: EpochCache) -> None:
        """Replace the file with `cache`, first keeping the current file as the backup.

        A current file that does not decode is not copied: it would overwrite a backup that may be good.
        """
        try:
            current = self.path.read_bytes()
        except FileNotFoundError:
            current = None
        if current is not None:
            try:
                decode(current)
            except EpochFileError as exc:
                log.warning("epoch file %s is unusable (%s); keeping the existing backup", self.path, exc)
            else:
                atomic_write(self.backup, current)
        atomic_write(self.path, encode(cache))
