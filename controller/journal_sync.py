"""Raft's persistence rule for pysyncobj's files: what a node says reflects only what its disk already holds.

Raft (Figure 2) updates persistent state on stable storage before it answers an RPC; a leader counts its own log
toward a commit, so its entries must be on disk too. pysyncobj 0.3.17 writes its journal through an mmap that it
msyncs only at shutdown, and renames a new snapshot without syncing the directory, so a power loss could take
entries this node had acknowledged or counted, or the snapshot that replaced the entries it compacted away.

`JournalSync` closes that without touching pysyncobj's algorithm. Every change to the journal goes through one
`ResizableFile.write`, which marks it dirty; every message leaves through the transport's `send`, and every commit
decision is made in `_onTick`; both call `sync` first, which msyncs a dirty journal (after syncing a snapshot
written or installed since the last call: its rename must be durable before the compaction that follows it). So a
node's messages and commits stay behind its disk, and a sync covers everything written since the last one: the
entries of one AppendEntries, or of one leader tick, cost one msync (group commit; the proposer already puts
concurrent requests into one entry). The term/vote file is written with `atomic_write` (fsync, rename, directory
fsync) by ``controller.raft``'s meta writer, before pysyncobj sends the vote or request it records.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mqbase.files import fsync_dir


class JournalSync:
    """One node's journal and snapshot kept ahead of its messages (see the module docstring)."""

    def __init__(self, journal_file: Any, snapshot: Path) -> None:
        self._journal_file = journal_file  # pysyncobj's ResizableFile
        self._snapshot = snapshot
        self._snapshot_seen = self._snapshot_id()
        self.dirty = True  # pysyncobj may have written the journal while it opened it
        self.syncs = 0
        """msyncs of the journal so far (each one covers every write since the one before)."""
        write = journal_file.write

        def marked(offset: int, values: bytes) -> None:
            write(offset, values)
            self.dirty = True

        journal_file.write = marked

    def _snapshot_id(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self._snapshot)
        except FileNotFoundError:
            return None
        return st.st_ino, st.st_mtime_ns

    def sync(self) -> None:
        """Make what this node wrote durable: a new snapshot file and its rename, then the journal."""
        seen = self._snapshot_id()
        if seen != self._snapshot_seen:
            if seen is not None:
                fd = os.open(self._snapshot, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            fsync_dir(self._snapshot.parent)
            self._snapshot_seen = seen
        if self.dirty:
            self._journal_file.flush()  # an error propagates: nothing is sent, and the next call tries again
            self.dirty = False
            self.syncs += 1

    def before(self, send: Callable[..., Any]) -> Callable[..., Any]:
        """`send`, syncing first."""

        def synced(*args: Any) -> Any:
            self.sync()
            return send(*args)

        return synced
