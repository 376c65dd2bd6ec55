"""The epoch cache: which master epoch wrote which range of the commit log (Java's ``EpochFileCache``).

Every elected master starts a new epoch at its current max offset, so an (epoch, start offset) pair names one
stretch of log written by exactly one broker. Two replicas holding the same pair therefore hold the same bytes
there, which is what the handshake's truncation algorithm relies on (``truncation_point``).

Pure: immutable values, no I/O. ``agents.store.epoch_file`` persists a cache.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import pairwise

from agents.errors import AgentError

MAX_OFFSET = 2**63 - 1
"""Java's ``Long.MAX_VALUE``: the end offset of an epoch that is still open."""

MAX_EPOCH = 2**31 - 1
"""Epochs are Java ints on the wire and in the file."""


class EpochError(AgentError, ValueError):
    """An epoch history that breaks the ordering rules, or an operation that would."""


@dataclass(frozen=True, slots=True)
class EpochEntry:
    """Epoch `epoch` wrote the log range [start_offset, end_offset)."""

    epoch: int
    start_offset: int
    end_offset: int = MAX_OFFSET


@dataclass(frozen=True, slots=True)
class EpochCache:
    """An epoch history: ascending epochs, strictly ascending start offsets.

    End offsets are not stored in the file; they are derived. Each entry ends where the next one starts and the
    last is open (``MAX_OFFSET``) unless closed with ``with_last_end``. Construction checks all of this, so every
    cache in hand is well formed. Operations return new caches.
    """

    entries: tuple[EpochEntry, ...] = ()

    def __post_init__(self) -> None:
        for entry in self.entries:
            if not 0 <= entry.epoch <= MAX_EPOCH:
                raise EpochError(f"epoch {entry.epoch} is outside [0, {MAX_EPOCH}]")
            if not 0 <= entry.start_offset <= MAX_OFFSET:
                raise EpochError(f"epoch {entry.epoch} starts at {entry.start_offset}, outside [0, {MAX_OFFSET}]")
        for prev, cur in pairwise(self.entries):
            if cur.epoch <= prev.epoch:
                raise EpochError(f"epoch {cur.epoch} follows epoch {prev.epoch}; epochs must ascend")
            if cur.start_offset <= prev.start_offset:
                raise EpochError(
                    f"epoch {cur.epoch} starts at {cur.start_offset}, not after epoch {prev.epoch}'s start "
                    f"{prev.start_offset}; start offsets must strictly ascend"
                )
            if prev.end_offset != cur.start_offset:
                raise EpochError(f"epoch {prev.epoch} ends at {prev.end_offset}, not where epoch {cur.epoch} starts")
        last = self.last_entry()
        if last is not None and not last.start_offset <= last.end_offset <= MAX_OFFSET:
            raise EpochError(
                f"epoch {last.epoch} ends at {last.end_offset}, outside [{last.start_offset}, {MAX_OFFSET}]"
            )

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[int, int]], last_end: int = MAX_OFFSET) -> EpochCache:
        """The cache of (epoch, start offset) pairs as the file and the handshake carry them."""
        items = list(pairs)
        if not items:
            return cls()
        ends = [start for _, start in items[1:]] + [last_end]
        return cls(tuple(EpochEntry(epoch, start, end) for (epoch, start), end in zip(items, ends, strict=True)))

    def pairs(self) -> tuple[tuple[int, int], ...]:
        """The persisted form: (epoch, start offset) per entry."""
        return tuple((e.epoch, e.start_offset) for e in self.entries)

    def last_epoch(self) -> int:
        """The highest epoch, -1 when empty (Java's ``lastEpoch()``)."""
        return self.entries[-1].epoch if self.entries else -1

    def last_entry(self) -> EpochEntry | None:
        return self.entries[-1] if self.entries else None

    def first_entry(self) -> EpochEntry | None:
        return self.entries[0] if self.entries else None

    def find_by_epoch(self, epoch: int) -> EpochEntry | None:
        return next((e for e in self.entries if e.epoch == epoch), None)

    def find_by_offset(self, offset: int) -> EpochEntry | None:
        """The entry whose range [start, end) holds `offset`."""
        return next((e for e in self.entries if e.start_offset <= offset < e.end_offset), None)

    def next_entry(self, epoch: int) -> EpochEntry | None:
        """The first entry with an epoch greater than `epoch` (whether or not `epoch` itself is present)."""
        return next((e for e in self.entries if e.epoch > epoch), None)

    def append(self, epoch: int, start_offset: int) -> EpochCache:
        """Open epoch `epoch` at `start_offset`, closing the previous last entry there.

        Java's rules: the epoch must exceed the last one and the start must not go backwards. One fix (Java
        #9689, and Kafka's leader-epoch cache does the same): a start equal to the last entry's start replaces
        that entry, which is empty. Java rejects it, so a broker elected twice without a write in between keeps
        the old epoch for data the new one writes, and replicas then disagree on which epoch wrote it.
        """
        if start_offset < 0:
            raise EpochError(f"epoch {epoch} cannot start at negative offset {start_offset}")
        last = self.last_entry()
        if last is None:
            return EpochCache((EpochEntry(epoch, start_offset),))
        if epoch <= last.epoch:
            raise EpochError(f"cannot append epoch {epoch}: not above the last epoch {last.epoch}")
        if start_offset < last.start_offset:
            raise EpochError(
                f"cannot append epoch {epoch} at {start_offset}: before epoch {last.epoch}'s start {last.start_offset}"
            )
        if start_offset == last.start_offset:
            kept = self.entries[:-1]
        else:
            kept = (*self.entries[:-1], replace(last, end_offset=start_offset))
        return EpochCache((*kept, EpochEntry(epoch, start_offset)))

    def with_last_end(self, offset: int) -> EpochCache:
        """Close the last epoch at `offset`, typically the log's max offset. An empty cache stays empty."""
        last = self.last_entry()
        if last is None:
            return self
        if offset < last.start_offset:
            raise EpochError(f"cannot end epoch {last.epoch} at {offset}: it starts at {last.start_offset}")
        return EpochCache((*self.entries[:-1], replace(last, end_offset=offset)))

    def truncate_suffix_by_offset(self, offset: int) -> EpochCache:
        """Drop the entries starting at or above `offset`, after the log was cut there; the last is open again."""
        return _reopened(tuple(e for e in self.entries if e.start_offset < offset))

    def truncate_suffix_by_epoch(self, epoch: int) -> EpochCache:
        """Drop the entries of epoch `epoch` and above; the last is open again."""
        return _reopened(tuple(e for e in self.entries if e.epoch < epoch))

    def truncate_prefix_by_offset(self, offset: int) -> EpochCache:
        """Drop the entries wholly below `offset`, once the log segments holding them are deleted.

        The first kept entry keeps its start even if the log now begins later: starts identify an epoch's
        stretch of log across replicas, so moving one would break the comparison at the handshake.
        """
        return EpochCache(tuple(e for e in self.entries if e.end_offset > offset))


def _reopened(entries: tuple[EpochEntry, ...]) -> EpochCache:
    if not entries:
        return EpochCache()
    return EpochCache((*entries[:-1], replace(entries[-1], end_offset=MAX_OFFSET)))


def find_consistent_point(local: EpochCache, remote: EpochCache) -> int:
    """The offset below which `local` and `remote` hold the same log, -1 if there is none (Java's algorithm).

    From the highest local epoch down, the first epoch both caches hold with the same start offset was written by
    the same master on both sides, so both agree up to the smaller of the two ends. Close each cache's last entry
    at its log's max offset first (``with_last_end``), or an open end stands for "unbounded".
    """
    by_epoch = {e.epoch: e for e in remote.entries}
    for entry in reversed(local.entries):
        other = by_epoch.get(entry.epoch)
        if other is not None and other.start_offset == entry.start_offset:
            return min(entry.end_offset, other.end_offset)
    return -1


def truncation_point(
    local: EpochCache, local_max_offset: int, remote: EpochCache, remote_max_offset: int
) -> int | None:
    """Where a slave must cut its log before copying from the master (Java's ``doTruncate``), None if nowhere.

    - An empty local cache is a new replica: 0, it copies from scratch (a log it holds without an epoch history
      cannot be checked against the master's).
    - An empty local log (max offset 0) has nothing to keep: 0 as well. Java compares the epochs anyway, so a master
      demoted before its first write finds no common epoch with its successor and retries forever.
    - Otherwise the consistent point of both caches, each closed at its max offset. It never exceeds either max
      offset. The caller then cuts the commit log to the point, applies ``truncate_suffix_by_offset(point)`` to the
      local cache and reports the point as its offset.
    - None: no common (epoch, start) pair, e.g. the master deleted the segments of every shared epoch. Java fails the
      handshake and retries forever; an operator has to act.

    Raises EpochError if a max offset lies below the start of that side's last epoch: the cache is ahead of its log,
    which recovery must repair first (``truncate_suffix_by_offset``).
    """
    if not local.entries or local_max_offset == 0:
        return 0
    point = find_consistent_point(local.with_last_end(local_max_offset), remote.with_last_end(remote_max_offset))
    return None if point < 0 else point
