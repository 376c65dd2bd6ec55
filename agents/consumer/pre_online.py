"""RIP-32's pre-online merge: the consumer progress a set's next master takes back before it serves anyone.

While a replica acts as master (``agents.ha.acting``) it cannot write its own log, so what its consumers change
(deliveries, acks, forward offset commits, delayed messages delivered) escapes to another set's master as
`Escaped` records naming their home set; a partitioned old master may meanwhile have gone on in its own log. So the
set's next master stays isolated until it has the progress of the set's replicas and the escaped changes of every
escape master, and merges them.

The merge is a join: each queue's `Progress` carries a `Version`, the (masterEpoch, seq) of the offset commit that
last moved its committed offset *back* (a reset). A higher version wins whole (but for the next ticket, which only
grows, so no ticket is issued twice), as a reset voids the answers before it; equal versions combine (the larger
committed and scanned offsets and next ticket, every done offset, each in-flight message's latest attempt and its
latest deadline with that deadline's ticket, the handle the client holds), and done beats in flight. A join is
commutative, associative and idempotent, so the order in which sources answer, and an answer or an escaped change
received twice, change nothing: no offset rolls back and no acked message is delivered again. An acting replica
never resets (resets need a master), so its changes keep the version they were decided against. Delayed-message
progress joins as a set of timer offsets delivered (`PreOnline.timer`, with `PreOnline.timer_floor` below which a
replica delivered every one).

Each escaped change also has an idempotency key; taking one back records its key (`PreOnline.applied`), and a key
already taken back is skipped, so a change retried to a second escape master is counted once. Once online, the
master appends `merge_changes` (a ``QueueMerged`` record per queue the merge moved, a ``TimerDelivered`` for the
delayed messages delivered elsewhere) and sends ``EscapeReleased`` with the applied keys to the escape masters,
which drop them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TypeVar, assert_never

from agents.consumer.progress import NO_PROGRESS, OffsetProgress
from agents.consumer.records import Change, OffsetCommitted, Queueless, QueueMerged, TimerDelivered, TransactionEnded
from agents.consumer.records import Escaped as Escaped  # re-exported: callers of the merge may name them here
from agents.consumer.records import EscapeKey as EscapeKey
from agents.consumer.records import Version as Version
from agents.consumer.state import ConsumerState, queue_state
from agents.pop.events import Acked, Changed, Popped
from agents.pop.model import NO_TICKET, Inflight, QueueKey, QueueState
from agents.transaction.half import Resolution

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Pending:
    """A message in flight: its latest delivery attempt, the latest deadline it was given and that deadline's
    ticket (the handle the client holds)."""

    attempt: int
    deadline_ms: int
    ticket: int


def _no_pending() -> Mapping[int, Pending]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Progress:
    """One group's progress on one queue: every offset below `committed` or in `done` is consumed; the scan
    reached `scanned`, and tickets below `next_ticket` were issued."""

    version: Version = field(default_factory=Version)
    committed: int = 0
    done: frozenset[int] = frozenset()
    inflight: Mapping[int, Pending] = field(default_factory=_no_pending)
    scanned: int = 0
    next_ticket: int = 1


Table = Mapping[QueueKey, Progress]


def _normal(
    version: Version,
    committed: int,
    done: set[int],
    inflight: Mapping[int, Pending],
    scanned: int = 0,
    next_ticket: int = 1,
) -> Progress:
    """The one form of a progress: committed moved over the done offsets after it, nothing kept below it, nothing
    both done and in flight, the scan at least at committed and the next ticket above every one in flight."""
    while committed in done:
        committed += 1
    kept = frozenset(o for o in done if o > committed)
    pending = {o: p for o, p in inflight.items() if o >= committed and o not in kept}
    next_ticket = max(next_ticket, max((p.ticket + 1 for p in pending.values()), default=1))
    return Progress(version, committed, kept, MappingProxyType(pending), max(scanned, committed), next_ticket)


def _later(p: Pending, q: Pending) -> Pending:
    """Two views of one message in flight: the latest attempt, and the latest deadline with its ticket (an
    extension's new ticket beats the delivery it extended)."""
    deadline_ms, ticket = max((p.deadline_ms, p.ticket), (q.deadline_ms, q.ticket))
    return Pending(max(p.attempt, q.attempt), deadline_ms, ticket)


def join(a: Progress, b: Progress) -> Progress:
    """The progress both sides together show: the higher version whole (with the larger next ticket), else their
    union."""
    if a == b:  # most queues of two replicas' tables: the join is idempotent over normal forms
        return a
    next_ticket = max(a.next_ticket, b.next_ticket)
    if a.version != b.version:
        return replace(max(a, b, key=lambda p: p.version), next_ticket=next_ticket)
    inflight = dict(a.inflight)
    for offset, p in b.inflight.items():
        q = inflight.get(offset)
        inflight[offset] = p if q is None else _later(p, q)
    committed, scanned = max(a.committed, b.committed), max(a.scanned, b.scanned)
    return _normal(a.version, committed, set(a.done | b.done), inflight, scanned, next_ticket)


def join_tables(a: Table, b: Iterable[tuple[QueueKey, Progress]]) -> Table:
    """`join` per queue (`b` as its items, a key possibly repeated); a queue only one side has is taken as it is."""
    out = dict(a)
    for key, p in b:
        out[key] = p if key not in out else join(out[key], p)
    return MappingProxyType(out)


def commit(progress: Progress | None, offset: int, at: Version) -> Progress:
    """The writer's rule for an offset commit decided at `at`: back from the committed offset is a reset (a new
    version, POP starts over, tickets stay used), forward is progress (same version)."""
    current = progress or Progress()
    if offset < current.committed:
        return _normal(at, offset, set(), {}, offset, current.next_ticket)
    return join(current, _normal(current.version, offset, set(), {}))


def from_queue_state(version: Version, qs: QueueState) -> Progress:
    """A queue's POP state as progress at `version` (the inverse of `to_queue_state` but for done tickets and the
    attempt id, which the merge does not carry)."""
    inflight = {o: Pending(f.attempt, f.deadline_ms, f.ticket) for o, f in qs.inflight.items()}
    return _normal(version, qs.committed, set(qs.done), inflight, qs.scanned, qs.next_ticket)


def to_queue_state(p: Progress) -> QueueState:
    """The POP state that holds `p`: done offsets with ``NO_TICKET``, in-flight ones with their tickets.

    `QueueState`'s invariant wants every offset from committed to scanned done or in flight; a merged progress has
    a gap only when a source that saw the offsets between did not answer, and then the state's scan stops at the
    gap and what lies above it is dropped (delivered again later: at least once, never lost)."""
    scanned = p.committed
    while scanned in p.done or scanned in p.inflight:
        scanned += 1
    inflight = {o: Inflight(f.ticket, f.deadline_ms, f.attempt) for o, f in p.inflight.items() if o < scanned}
    done = {o: NO_TICKET for o in sorted(p.done) if o < scanned}
    return QueueState(p.committed, scanned, MappingProxyType(inflight), MappingProxyType(done), p.next_ticket)


def progress_of(state: ConsumerState) -> Table:
    """A replica's consumer state as progress, each queue at its version in ``state.versions``."""
    out: dict[QueueKey, Progress] = {}
    for key in state.queues.keys() | state.offsets.keys():
        qs = queue_state(state, key)
        assert qs is not None  # the key is in one of the two tables
        out[key] = from_queue_state(state.versions.get(key, Version()), qs)
    return MappingProxyType(out)


def _progress(e: Escaped) -> tuple[QueueKey, Progress] | None:
    """The progress an escaped change shows on its own (its queue's committed offset at 0 unless it moves it);
    None for delayed messages delivered, which are no queue's."""
    c, v = e.change, e.version
    if isinstance(c, OffsetCommitted):  # forward only: an acting replica refuses resets
        return c.queue, _normal(v, c.offset, set(), {})
    if isinstance(c, Popped):
        inflight = {d.offset: Pending(d.attempt, d.deadline_ms, d.ticket) for d in c.deliveries}
        return c.queue, _normal(v, c.floor, {*c.skipped, *c.dead}, inflight, c.scanned)
    if isinstance(c, Acked):
        return c.queue, _normal(v, 0, {c.offset}, {}, 0, c.ticket + 1)
    if isinstance(c, Changed):  # the attempt is the delivery's (at least the first); the join keeps the larger
        return c.queue, _normal(v, 0, set(), {c.offset: Pending(1, c.deadline_ms, c.new_ticket)})
    if isinstance(c, Queueless):
        return None
    assert_never(c)


def _no_ends() -> Mapping[int, Resolution]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class PreOnline:
    """A returning master's merge in progress: what it holds so far and whom it still waits for."""

    home: str
    table: Table
    applied: frozenset[EscapeKey]
    """Every escaped change taken back, now and before: one is never applied twice. The broker sends
    ``EscapeReleased`` with them to the escape masters once the merge is written."""
    waiting: frozenset[str]
    """The sources (the set's replicas, the cluster's escape masters) that have not answered yet."""
    timer: frozenset[int] = frozenset()
    """Timer queue offsets delivered elsewhere: by escaped changes, and out of order by a replica."""
    timer_floor: int = 0
    """Every timer queue offset below it was delivered (the largest floor a replica answered with)."""
    ended: Mapping[int, Resolution] = field(default_factory=_no_ends)
    """Half queue offset → how an acting replica ended its transaction (escaped ends only: a replica's own ends
    are in the set's log already, or were never acknowledged, as a partitioned old master's)."""


def start(home: str, own: Table, applied: frozenset[EscapeKey], sources: Iterable[str]) -> PreOnline:
    """The merge of set `home`'s next master, starting from its own table (``progress_of`` its state) and the
    keys it took back before."""
    return PreOnline(home, own, applied, frozenset(sources))


def take_replica(pre: PreOnline, source: str, table: Table, timer: OffsetProgress = NO_PROGRESS) -> PreOnline:
    """A replica of the set answered with its progress (``progress_of`` its state) and its delayed-message
    progress (its state's ``timer``)."""
    return replace(
        pre,
        table=join_tables(pre.table, table.items()),
        waiting=pre.waiting - {source},
        timer=pre.timer | timer.above,
        timer_floor=max(pre.timer_floor, timer.floor),
    )


def take_escaped(pre: PreOnline, source: str, escaped: Iterable[Escaped]) -> PreOnline:
    """An escape master answered with the escaped changes it holds: this set's, not yet taken back, are joined;
    another set's are left to that set."""
    fresh: dict[EscapeKey, Escaped] = {e.key: e for e in escaped if e.home == pre.home and e.key not in pre.applied}
    shown = (p for p in map(_progress, fresh.values()) if p is not None)
    timer = {o for e in fresh.values() if isinstance(e.change, TimerDelivered) for o in e.change.offsets}
    ended = dict(pre.ended)
    for e in sorted(fresh.values(), key=lambda e: e.key):  # the first end of a transaction stands
        if isinstance(e.change, TransactionEnded):
            for offset in e.change.offsets:
                ended.setdefault(offset, e.change.resolution)
    return replace(
        pre,
        table=join_tables(pre.table, shown),
        applied=pre.applied | fresh.keys(),
        waiting=pre.waiting - {source},
        timer=pre.timer | timer,
        ended=MappingProxyType(ended),
    )


def online(pre: PreOnline) -> bool:
    """Every source answered: the master may write its merged table and serve."""
    return not pre.waiting


def _keeping(merged: QueueState, current: QueueState | None) -> QueueState:
    """`merged` with what progress does not carry taken from the own POP state: the attempt id, and the ticket of
    each offset it saw acked (so a retried ack of it is still answered as acked)."""
    if current is None:
        return merged
    done = {o: current.done.get(o, t) for o, t in merged.done.items()}
    return replace(merged, done=MappingProxyType(done), attempt_id=current.attempt_id)


def merge_changes(own: ConsumerState, pre: PreOnline, now_ms: int) -> list[Change]:
    """The changes the new master appends, in order, to make its state `own` the merged one: a ``QueueMerged``
    per queue whose merged progress `own` does not hold yet (its attempt id and ack tickets kept), then one
    ``TimerDelivered`` with the delayed messages delivered elsewhere and not in `own`. Nothing when `own` holds it
    all, so applying them and asking again gives nothing."""
    mine = progress_of(own)
    out: list[Change] = []
    for key in sorted(pre.table, key=lambda k: (k.group, k.topic, k.queue_id)):
        p = pre.table[key]
        merged = _keeping(to_queue_state(p), own.queues.get(key))
        if mine.get(key) != from_queue_state(p.version, merged):
            out.append(QueueMerged(key, p.version, merged, now_ms))
    delivered = pre.timer.union(range(own.timer.floor, pre.timer_floor))
    timer = sorted(o for o in delivered if not own.timer.done(o))
    if timer:
        out.append(TimerDelivered(tuple(timer)))
    for resolution in Resolution:
        ended = sorted(o for o, r in pre.ended.items() if r is resolution and not own.transactions.done(o))
        if ended:
            out.append(TransactionEnded(tuple(ended), resolution))
    return out


def differing(own: ConsumerState, other: ConsumerState) -> set[QueueKey]:
    """The queues of which `other` may show more than `own`: its POP state, committed offset or version is not
    `own`'s. A queue only `own` has, or the same in both, joins to `own`'s own progress and needs no look."""
    out: set[QueueKey] = set()
    pairs = ((own.queues, other.queues), (own.offsets, other.offsets), (own.versions, other.versions))
    for mine, theirs in pairs:
        out.update(k for k, v in theirs.items() if (m := mine.get(k)) is not v and m != v)
    return out


def restricted(state: ConsumerState, keys: set[QueueKey]) -> ConsumerState:
    """`state` with only the queues `keys` (its seq and delayed-message progress kept, no escaped changes)."""

    def only(table: Mapping[QueueKey, T]) -> Mapping[QueueKey, T]:
        return MappingProxyType({k: v for k, v in table.items() if k in keys})

    return ConsumerState(state.seq, only(state.offsets), only(state.queues), state.timer, only(state.versions),
                         transactions=state.transactions, checks=state.checks)  # fmt: skip


def merge_answers(
    own: ConsumerState, home: str, replicas: Iterable[ConsumerState], escaped: Mapping[str, Iterable[Escaped]],
    now_ms: int,
) -> tuple[list[Change], PreOnline]:  # fmt: skip
    """A whole pre-online over the answers in hand: the records that make `own` the merged state, and the merge
    (its `applied` keys are the ones to release). Only the queues some answer shows differently are joined, so a
    master of 100 k queues whose replicas agree on most pays for the few that moved, with the same result as a
    join of every queue (the join is idempotent: a queue equal on every side merges to itself)."""
    others = list(replicas)
    changes = {n: [e for e in es if e.home == home] for n, es in escaped.items()}
    keys = set().union(*(differing(own, o) for o in others))
    keys.update(e.change.queue for es in changes.values() for e in es if not isinstance(e.change, Queueless))
    mine = restricted(own, keys)
    pre = start(home, progress_of(mine), frozenset(), ())
    for i, other in enumerate(others):
        pre = take_replica(pre, f"replica {i}", progress_of(restricted(other, keys)), other.timer)
    for name, es in changes.items():
        pre = take_escaped(pre, name, es)
    return merge_changes(mine, pre, now_ms), pre
