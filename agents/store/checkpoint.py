"""The store checkpoint: where recovery may start scanning, the confirmOffset, and how far consume queues are built.

File layout (36 bytes, big-endian)::

     0          4        6          8                 16                24                      32        36
    +----------+--------+----------+-----------------+-----------------+-----------------------+---------+
    | "MQCK"   | ver u16| 0 u16    | flushedOffset   | confirmOffset   | consumeQueueOffset    | crc32   |
    |          |  (=1)  |          | i64             | i64             | i64                   | of 0..32|
    +----------+--------+----------+-----------------+-----------------+-----------------------+---------+

* ``flushedOffset``: a record boundary below which the commit log was fsynced before this file was written;
  recovery scans from here. Any operation that removes data below it lowers it in this file first.
* ``confirmOffset``: Java's ``StoreCheckpoint.confirmPhyOffset``; clamped on restart.
* ``consumeQueueOffset``: every record below it was dispatched and the consume-queue files fsynced.

``save`` replaces the file atomically (temp file, fsync, rename, directory fsync), so a crash leaves the old
or the new version, never a mix. A missing file reads as all zeros, which makes the store scan the whole
commit log and show nothing until the confirmOffset is set again: slow but safe. A file that exists but
does not decode raises ``CheckpointError``; see docs/storage.md for the manual fallback.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agents.errors import AgentError
from mqbase.files import atomic_write

_MAGIC = b"MQCK"
_VERSION = 1
_BODY = struct.Struct(">4sHHqqq")
_CRC = struct.Struct(">I")
SIZE = _BODY.size + _CRC.size


class CheckpointError(AgentError, ValueError):
    """A checkpoint file that exists but is not one this release wrote intact."""


@dataclass(frozen=True, slots=True)
class CheckpointData:
    """The three offsets the checkpoint persists (see the module docstring)."""

    flushed_offset: int = 0
    confirm_offset: int = 0
    consume_queue_offset: int = 0


def encode(data: CheckpointData) -> bytes:
    """The file content for `data`."""
    body = _BODY.pack(_MAGIC, _VERSION, 0, data.flushed_offset, data.confirm_offset, data.consume_queue_offset)
    return body + _CRC.pack(zlib.crc32(body))


def decode(blob: bytes) -> CheckpointData:
    """Inverse of ``encode``; raises CheckpointError saying what is wrong."""
    if len(blob) != SIZE:
        raise CheckpointError(f"checkpoint is {len(blob)} bytes, expected {SIZE}")
    body = blob[: _BODY.size]
    (crc,) = _CRC.unpack_from(blob, _BODY.size)
    if zlib.crc32(body) != crc:
        raise CheckpointError("checkpoint CRC mismatch")
    magic, version, _, flushed, confirm, dispatched = _BODY.unpack(body)
    if magic != _MAGIC or version != _VERSION:
        raise CheckpointError(f"checkpoint has magic {magic!r} version {version}; this release reads version 1")
    if min(flushed, confirm, dispatched) < 0:
        raise CheckpointError(f"checkpoint holds a negative offset: {flushed}, {confirm}, {dispatched}")
    return CheckpointData(flushed, confirm, dispatched)


def duplicates(fds: Iterable[int]) -> tuple[int, ...]:
    """``os.dup`` of each descriptor (all or none: the ones made are closed again if one fails)."""
    out: list[int] = []
    try:
        for fd in fds:
            out.append(os.dup(fd))
    except OSError:
        for fd in out:
            os.close(fd)
        raise
    return tuple(out)


class Checkpoint:
    """The checkpoint file at `path`."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def load(self) -> CheckpointData:
        """The saved offsets; all zeros if the file does not exist; CheckpointError if it is damaged."""
        try:
            blob = self.path.read_bytes()
        except FileNotFoundError:
            return CheckpointData()
        try:
            return decode(blob)
        except CheckpointError as exc:
            raise CheckpointError(
                f"{self.path}: {exc}. Move the file away to rebuild from a full commit-log scan "
                "(the confirmOffset then restarts at the commit log's minimum offset)"
            ) from exc

    def save(self, data: CheckpointData) -> None:
        """Persist `data` atomically and durably."""
        atomic_write(self.path, encode(data))
