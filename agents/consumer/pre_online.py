"""RIP-32's pre-online merge: the consumer progress a set's next master takes back before it serves anyone.

While a replica acts as master (``agents.ha.acting``) it cannot write its own log, so what its consumers change
(deliveries, acks, forward offset commits) escapes to another set's master as `Escaped` changes naming their home
set; a partitioned old master may meanwhile have gone on in its own log. So the set's next master stays isolated
until it has the progress of the set's replicas and the escaped changes of every escape master, and merges them.

The merge is a join: each queue's `Progress` carries a `Version`, the (masterEpoch, seq) of the offset commit that
last moved its committed offset *back* (a reset). A higher version wins whole, as a reset voids the answers before
it; equal versions combine (the larger committed offset, every done offset, each in-flight message's latest
attempt and deadline), and done beats in flight. A join is commutative, associative and idempotent, so the order
in which sources answer, and an answer or an escaped change received twice, change nothing: no offset rolls back
and no acked message is delivered again. An acting replica never resets (resets need a master), so its changes
keep the version they were decided against.

Each escaped change also has an idempotency key; taking one back records its key, and a key already taken back
is skipped, so an escape master can drop what was taken back and a change retried to a second escape master is
counted once. What a merged table is written as (a record kind every replica reads) is not built yet.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import assert_never

from agents.consumer.records import OffsetCommitted
from agents.consumer.state import ConsumerState, queue_state
from agents.pop.events import Acked, Changed, Popped
from agents.pop.model import QueueKey


@dataclass(frozen=True, slots=True, order=True)
class Version:
    """Which reset a queue's progress descends from: the (masterEpoch, seq) of the commit that last moved its
    offset back; (0, 0) before any. Forward progress keeps the version (Java's DataVersion, stepped per reset)."""

    epoch: int = 0
    seq: int = 0


@dataclass(frozen=True, slots=True)
class Pending:
    """A message in flight: its latest delivery attempt and the latest deadline it was given."""

    attempt: int
    deadline_ms: int


def _no_pending() -> Mapping[int, Pending]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Progress:
    """One group's progress on one queue: every offset below `committed` or in `done` is consumed."""

    version: Version = Version()
    committed: int = 0
    done: frozenset[int] = frozenset()
    inflight: Mapping[int, Pending] = field(default_factory=_no_pending)


Table = Mapping[QueueKey, Progress]


def _normal(version: Version, committed: int, done: set[int], inflight: Mapping[int, Pending]) -> Progress:
    """The one form of a progress: committed moved over the done offsets after it, nothing kept below it, and
    nothing both done and in flight."""
    while committed in done:
        committed += 1
    kept = frozenset(o for o in done if o > committed)
    pending = {o: p for o, p in inflight.items() if o >= committed and o not in kept}
    return Progress(version, committed, kept, MappingProxyType(pending))


def join(a: Progress, b: Progress) -> Progress:
    """The progress both sides together show: the higher version whole, else their union."""
    if a == b:  # most queues of two replicas' tables: the join is idempotent over normal forms
        return a
    if a.version != b.version:
        return max(a, b, key=lambda p: p.version)
    inflight = dict(a.inflight)
    for offset, p in b.inflight.items():
        q = inflight.get(offset)
        inflight[offset] = p if q is None else Pending(max(p.attempt, q.attempt), max(p.deadline_ms, q.deadline_ms))
    return _normal(a.version, max(a.committed, b.committed), set(a.done | b.done), inflight)


def join_tables(a: Table, b: Iterable[tuple[QueueKey, Progress]]) -> Table:
    """`join` per queue (`b` as its items, a key possibly repeated); a queue only one side has is taken as it is."""
    out = dict(a)
    for key, p in b:
        out[key] = p if key not in out else join(out[key], p)
    return MappingProxyType(out)


def commit(progress: Progress | None, offset: int, at: Version) -> Progress:
    """The writer's rule for an offset commit decided at `at`: back from the committed offset is a reset (a new
    version, POP starts over), forward is progress (same version)."""
    current = progress or Progress()
    if offset < current.committed:
        return Progress(at, offset)
    return join(current, Progress(current.version, offset))


def progress_of(state: ConsumerState, versions: Mapping[QueueKey, Version]) -> Table:
    """A replica's consumer state as progress, each queue at its version in `versions` ((0, 0) if absent)."""
    out: dict[QueueKey, Progress] = {}
    for key in state.queues.keys() | state.offsets.keys():
        qs = queue_state(state, key)
        assert qs is not None  # the key is in one of the two tables
        inflight = {o: Pending(f.attempt, f.deadline_ms) for o, f in qs.inflight.items()}
        out[key] = _normal(versions.get(key, Version()), qs.committed, set(qs.done), inflight)
    return MappingProxyType(out)


@dataclass(frozen=True, slots=True, order=True)
class EscapeKey:
    """An escaped change's idempotency key: the acting replica, the masterEpoch it acted in, its own count."""

    origin: int
    epoch: int
    n: int


@dataclass(frozen=True, slots=True)
class Escaped:
    """A consumer change an acting replica wrote to another set's master, for its `home` set to take back."""

    home: str
    key: EscapeKey
    version: Version
    """The version of the queue's progress the change was decided against."""
    change: OffsetCommitted | Popped | Acked | Changed


def _progress(e: Escaped) -> tuple[QueueKey, Progress]:
    """The progress an escaped change shows on its own (its queue's committed offset at 0 unless it moves it)."""
    c, v = e.change, e.version
    if isinstance(c, OffsetCommitted):  # forward only: an acting replica refuses resets
        return c.queue, Progress(v, c.offset)
    if isinstance(c, Popped):
        inflight = {d.offset: Pending(d.attempt, d.deadline_ms) for d in c.deliveries}
        return c.queue, _normal(v, c.floor, {*c.skipped, *c.dead}, inflight)
    if isinstance(c, Acked):
        return c.queue, _normal(v, 0, {c.offset}, {})
    if isinstance(c, Changed):  # the attempt is the delivery's; 0 lets the join keep it
        return c.queue, _normal(v, 0, set(), {c.offset: Pending(0, c.deadline_ms)})
    assert_never(c)


@dataclass(frozen=True, slots=True)
class PreOnline:
    """A returning master's merge in progress: what it holds so far and whom it still waits for."""

    home: str
    table: Table
    applied: frozenset[EscapeKey]
    """Every escaped change taken back, now and before: one is never applied twice."""
    waiting: frozenset[str]
    """The sources (the set's replicas, the cluster's escape masters) that have not answered yet."""


def start(home: str, own: Table, applied: frozenset[EscapeKey], sources: Iterable[str]) -> PreOnline:
    """The merge of set `home`'s next master, starting from its own table and the keys it took back before."""
    return PreOnline(home, own, applied, frozenset(sources))


def take_replica(pre: PreOnline, source: str, table: Table) -> PreOnline:
    """A replica of the set answered with its progress."""
    return PreOnline(pre.home, join_tables(pre.table, table.items()), pre.applied, pre.waiting - {source})


def take_escaped(pre: PreOnline, source: str, escaped: Iterable[Escaped]) -> PreOnline:
    """An escape master answered with the escaped changes it holds: this set's, not yet taken back, are joined;
    another set's are left to that set."""
    fresh: dict[EscapeKey, Escaped] = {e.key: e for e in escaped if e.home == pre.home and e.key not in pre.applied}
    table = join_tables(pre.table, map(_progress, fresh.values()))
    return PreOnline(pre.home, table, pre.applied | fresh.keys(), pre.waiting - {source})


def online(pre: PreOnline) -> bool:
    """Every source answered: the master may register its merged table and serve."""
    return not pre.waiting
