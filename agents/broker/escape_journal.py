"""RIP-32's escape journal: where an acting replica keeps its consumer changes when no other set of its cluster
has a master to take them (a cluster of one broker set, or a rack restart that left every set without one).

The acting replica never writes its commit log (its set's next master would have to cut it). The journal is a
file of its own, ``<storePathRootDir>/escape.journal``, and every append is fsynced before the receive or ack it
holds is answered, so a power loss keeps every change a client was told about. It is a source of escaped changes
like another set's master: the set's next master asks each alive replica for its journal in its pre-online and at
each sweep (``GetEscaped`` naming the replica's own set), merges what it gets (a join: twice changes nothing) and
releases it, and the replica drops what was released.

The file is a run of frames: u32 body length, u32 CRC32 of the body, the body (``escape.encode_escaped``'s
records). A release rewrites the file with what is left (``atomic_write``). At load a torn or damaged tail (a
power loss during an append, whose caller got no answer) is cut, and so is the rest after it.
"""

from __future__ import annotations

import logging
import os
import struct
import threading
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from agents.broker.escape import decode_escaped, encode_escaped
from agents.consumer.errors import StateFormatError
from agents.consumer.records import Escaped, EscapeKey
from mqbase.files import atomic_write, fsync_dir

log = logging.getLogger(__name__)

FILE_NAME = "escape.journal"
_HEADER = struct.Struct(">II")


def frame(changes: Sequence[Escaped]) -> bytes:
    """One append's bytes."""
    body = encode_escaped(changes)
    return _HEADER.pack(len(body), zlib.crc32(body)) + body


def parse(data: bytes) -> tuple[list[Escaped], int]:
    """The changes of a journal's bytes, and the length of its sound prefix (what follows is torn or damaged)."""
    out: list[Escaped] = []
    at = 0
    while at + _HEADER.size <= len(data):
        size, crc = _HEADER.unpack_from(data, at)
        body = data[at + _HEADER.size : at + _HEADER.size + size]
        if len(body) < size or zlib.crc32(body) != crc:
            break
        try:
            out.extend(decode_escaped(body))
        except (StateFormatError, ValueError):
            break
        at += _HEADER.size + size
    return out, at


class EscapeJournal:
    """One hosted broker's journal (see the module docstring); thread-safe."""

    def __init__(self, store_root: Path) -> None:
        self._path = store_root / FILE_NAME
        self._lock = threading.Lock()
        self._held: dict[EscapeKey, Escaped] = {}
        if self._path.exists():
            data = self._path.read_bytes()
            changes, sound = parse(data)
            self._held = {c.key: c for c in changes}
            if sound < len(data):
                log.warning("%s: cut %d byte(s) of a torn or damaged tail (an append no client was answered for)",
                            self._path, len(data) - sound)  # fmt: skip
                atomic_write(self._path, data[:sound])

    def append(self, changes: Sequence[Escaped]) -> None:
        """Hold the changes durably (fsynced) before returning; OSError when the disk refuses (nothing is held)."""
        data = frame(changes)
        with self._lock:
            created = not self._path.exists()
            fd = os.open(self._path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            except OSError:
                os.ftruncate(fd, os.fstat(fd).st_size - (len(data) - len(view)))  # no torn frame stays behind
                raise
            finally:
                os.close(fd)
            if created:
                fsync_dir(self._path.parent)
            self._held.update((c.key, c) for c in changes)

    def held(self) -> list[Escaped]:
        """The changes held, in key order."""
        with self._lock:
            return sorted(self._held.values(), key=lambda c: c.key)

    def release(self, keys: Iterable[EscapeKey]) -> int:
        """Drop the changes the set's master took back; how many were held."""
        with self._lock:
            gone = [k for k in keys if k in self._held]
            if not gone:
                return 0
            for k in gone:
                del self._held[k]
            left = sorted(self._held.values(), key=lambda c: c.key)
            if left:
                atomic_write(self._path, frame(left))
            else:
                self._path.unlink(missing_ok=True)
                fsync_dir(self._path.parent)
            return len(gone)
