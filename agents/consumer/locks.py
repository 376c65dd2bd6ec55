"""RIP-32's lock quorum: whether an orderly consumer's queue lock is granted, from the grants of the set's replicas.

Each replica keeps its own table (Java's ``RebalanceLockManager``): a queue is locked by one client until the lock
expires ``rebalanceLockMaxLiveTime`` after it was last taken. The master, or a replica acting as master, asks the
replicas and counts the grants:

* strict (``lockInStrictMode=true``): granted when a majority of the set's registered replicas granted. Two
  majorities share a replica, and a replica grants a queue to one client at a time, so two clients never hold one
  queue at once, whichever replica coordinates (master, acting slave, master again);
* not strict (Java's default): granted when the one replica asked granted. When the coordinator moves (the master
  dies, a slave acts) the new one's table does not know the old one's locks, so two clients can hold a queue.

The tables live in memory. A restarted replica has forgotten its locks, so it grants nothing for one lock life
(`started`); without that, a restart could hand a second client a lock a majority still holds for the first.
A client may trust a lock for at most ``rebalanceLockMaxLiveTime`` from the moment it asked (Java's client: 30 s).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from agents.pop.model import QueueKey

REBALANCE_LOCK_MAX_LIVE_TIME_MS = 60_000
"""Java's ``rebalanceLockMaxLiveTime`` (``rocketmq.broker.rebalance.lockMaxLiveTime``): a lock's life."""


@dataclass(frozen=True, slots=True)
class Lock:
    """The client holding a queue and when its lock expires."""

    client_id: str
    expires_ms: int


def _no_locks() -> Mapping[QueueKey, Lock]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class LockTable:
    """One replica's queue locks."""

    locks: Mapping[QueueKey, Lock] = field(default_factory=_no_locks)
    refuse_until_ms: int = 0
    """Nothing is granted before this: the lock life after a start, when the locks held before are unknown."""


def started(now_ms: int, live_ms: int = REBALANCE_LOCK_MAX_LIVE_TIME_MS) -> LockTable:
    """The table of a replica (re)started at `now_ms`: empty, granting nothing until every lock it may have held
    has expired."""
    return LockTable(refuse_until_ms=now_ms + live_ms)


def try_lock(
    table: LockTable, key: QueueKey, client_id: str, now_ms: int, live_ms: int = REBALANCE_LOCK_MAX_LIVE_TIME_MS
) -> tuple[LockTable, bool]:
    """Grant (or renew) `key` to `client_id` unless another client's lock is alive or the replica just started."""
    held = table.locks.get(key)
    if now_ms < table.refuse_until_ms or (
        held is not None and held.client_id != client_id and held.expires_ms > now_ms
    ):
        return table, False
    locks = dict(table.locks)
    locks[key] = Lock(client_id, now_ms + live_ms)
    return LockTable(MappingProxyType(locks), table.refuse_until_ms), True


def unlock(table: LockTable, key: QueueKey, client_id: str) -> LockTable:
    """Release `key` if `client_id` holds it; another client's lock stays."""
    held = table.locks.get(key)
    if held is None or held.client_id != client_id:
        return table
    locks = dict(table.locks)
    del locks[key]
    return LockTable(MappingProxyType(locks), table.refuse_until_ms)


def granted(grants: int, replicas: int, *, strict: bool) -> bool:
    """Whether `grants` of a set of `replicas` registered replicas lock the queue (see the module)."""
    return grants > replicas // 2 if strict else grants >= 1


def try_lock_all(
    table: LockTable, keys: Iterable[QueueKey], client_id: str, now_ms: int, live_ms: int
) -> tuple[LockTable, frozenset[QueueKey]]:
    """`try_lock` of each key (one LockBatchMQ): the table after it and the keys granted."""
    won: set[QueueKey] = set()
    for key in keys:
        table, ok = try_lock(table, key, client_id, now_ms, live_ms)
        if ok:
            won.add(key)
    return table, frozenset(won)


def unlock_all(table: LockTable, keys: Iterable[QueueKey], client_id: str) -> tuple[LockTable, frozenset[QueueKey]]:
    """`unlock` of each key (one UnlockBatchMQ): the table after it and the keys `client_id` held and released."""
    released = frozenset(k for k in keys if (held := table.locks.get(k)) is not None and held.client_id == client_id)
    for key in released:
        table = unlock(table, key, client_id)
    return table, released


def alive(table: LockTable, now_ms: int) -> int:
    """How many of the table's locks have not expired at `now_ms`."""
    return sum(1 for lock in table.locks.values() if lock.expires_ms > now_ms)


def quorum(
    keys: Iterable[QueueKey], grants: Iterable[frozenset[QueueKey]], replicas: int, *, strict: bool
) -> frozenset[QueueKey]:
    """The keys `granted` by the replicas' answers (`grants`: each answering replica's granted keys) out of a set
    of `replicas` registered replicas."""
    answers = list(grants)
    return frozenset(k for k in keys if granted(sum(k in g for g in answers), replicas, strict=strict))
