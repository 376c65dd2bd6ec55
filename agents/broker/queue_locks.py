"""RIP-32's lock quorum on a broker: this replica's queue-lock table, and the coordinator's side of it.

Every replica keeps its own table (``agents.consumer.locks``), in memory, answered for LockBatchMQ and
UnlockBatchMQ. The set's coordinator (the master, or a slave acting as master) locks an orderly group's queues
before a receive looks at them, as their owner (its broker id as text, the same in every epoch): not strict, in its
own table only; strict, at every registered replica of the set at once (itself locally, the others through their
agents), keeping the queues a majority granted. When it stops coordinating it releases what it holds, best effort;
what it cannot reach expires after one lock life. Deciding is ``locks``; this module does the calls.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from agents.consumer import locks
from agents.pop.model import QueueKey
from mqbase.client import AgentClient
from mqbase.clock import Clock, monotonic_ms
from mqbase.codes import ResponseCode
from mqbase.errors import MqError
from mqbase.metadata import GROUP_MAX_LENGTH, TOPIC_MAX_LENGTH
from mqbase.proto import agent_pb2 as pb
from mqbase.security import ClientSecurity

log = logging.getLogger(__name__)

PEER_TIMEOUT_S = 1.0
"""How long the coordinator waits for a peer replica's LockBatchMQ / UnlockBatchMQ answer."""
OWNER_MAX_LENGTH = 255


@dataclass(frozen=True, slots=True)
class Batch:
    """One LockBatchMQ / UnlockBatchMQ, checked: an owner, and queues of one group and topic."""

    owner: str
    keys: frozenset[QueueKey]
    life_ms: int


def batch_problem(owner: str, group: str, topic: str, queue_ids: Iterable[int], life_ms: int) -> str | None:
    """Why a lock request cannot be acted on; None when it can."""
    for kind, value, limit in (("owner", owner, OWNER_MAX_LENGTH), ("group", group, GROUP_MAX_LENGTH),
                               ("topic", topic, TOPIC_MAX_LENGTH)):  # fmt: skip
        if not value:
            return f"{kind} is empty"
        if len(value) > limit:
            return f"{kind} is longer than {limit} characters"
    if bad := sorted(q for q in queue_ids if q < 0):
        return f"queue ids {bad} are negative"
    if life_ms < 0:
        return f"life_millis {life_ms} is negative"
    return None


def keys_of(group: str, topic: str, queue_ids: Iterable[int]) -> frozenset[QueueKey]:
    return frozenset(QueueKey(group, topic, q) for q in queue_ids)


class QueueLocks:
    """This replica's table and, while it coordinates, the locks it holds at the set's replicas."""

    def __init__(self, broker_name: str, life_ms: Callable[[], int], security: ClientSecurity, clock: Clock) -> None:
        """`life_ms`: the broker's rebalanceLockMaxLiveTime now (a run-time key). A table's locks are compared on
        `clock`'s monotonic reading only: the clock of the replica keeping it."""
        self._broker_name = broker_name
        self._clock = clock
        self._life_ms = life_ms
        self._security = security
        self._lock = threading.Lock()
        self._table = locks.started(self._now_ms(), life_ms())
        self._held: dict[QueueKey, str] = {}  # what this replica took as coordinator -> the owner it took them as
        self._held_lock = threading.Lock()
        self.refusals = 0
        """Queues a coordinator's acquire did not get (metrics)."""

    def _now_ms(self) -> int:
        return monotonic_ms(self._clock)

    # --- this replica's table (LockBatchMQ / UnlockBatchMQ) --------------------------------------

    def lock_batch(self, batch: Batch, *, grace: bool = True) -> frozenset[QueueKey]:
        """Grant or renew what this table can; the keys granted. Without `grace`, also within one lock life of the
        start: the start's refusal protects a majority's locks, so a table that decides alone (not strict) skips it,
        as Java's does."""
        with self._lock:
            table = self._table if grace else replace(self._table, refuse_until_ms=0)
            table, won = locks.try_lock_all(
                table, batch.keys, batch.owner, self._now_ms(), batch.life_ms or self._life_ms()
            )
            self._table = replace(table, refuse_until_ms=self._table.refuse_until_ms)
        return won

    def unlock_batch(self, batch: Batch) -> frozenset[QueueKey]:
        """Release the keys `batch.owner` holds here; the keys released."""
        with self._lock:
            self._table, released = locks.unlock_all(self._table, batch.keys, batch.owner)
        return released

    def alive(self) -> int:
        """The locks of this table that have not expired (metrics)."""
        with self._lock:
            return locks.alive(self._table, self._now_ms())

    # --- the coordinator's side ------------------------------------------------------------------

    def acquire(
        self, keys: Collection[QueueKey], owner: str, *, strict: bool, self_id: int, peers: Mapping[int, str]
    ) -> frozenset[QueueKey]:
        """Lock `keys` for `owner`: in this table, and with `strict` at every replica in `peers` (id → agent
        address, the set's registered replicas as last learnt); the keys granted. Strict with no replica known
        grants nothing (the quorum is unknown)."""
        batch = Batch(owner, frozenset(keys), self._life_ms())
        local = self.lock_batch(batch, grace=strict)
        if not strict:
            won = local
        elif not peers:
            won = frozenset()
        else:
            others = {i: a for i, a in peers.items() if i != self_id}
            answers = [local, *self._ask(others, "LockBatchMQ", batch)]
            won = locks.quorum(batch.keys, answers, len(others) + 1, strict=True)
        with self._held_lock:
            self._held.update(dict.fromkeys(won, owner))
            self.refusals += len(batch.keys - won)
        return won

    def release(self, self_id: int, peers: Mapping[int, str]) -> None:
        """Release everything this replica took as coordinator, here and at `peers` (best effort: a replica that does
        not answer keeps the lock until it expires)."""
        with self._held_lock:
            held, self._held = self._held, {}
        by_batch: dict[tuple[str, str, str], set[int]] = {}
        for key, owner in held.items():
            by_batch.setdefault((owner, key.group, key.topic), set()).add(key.queue_id)
        others = {i: a for i, a in peers.items() if i != self_id}
        for (owner, group, topic), queue_ids in by_batch.items():
            batch = Batch(owner, keys_of(group, topic, queue_ids), 0)
            self.unlock_batch(batch)
            self._ask(others, "UnlockBatchMQ", batch)
        if held:
            log.info("released %d queue locks (no longer coordinating)", len(held))

    def _ask(self, peers: Mapping[int, str], method: str, batch: Batch) -> list[frozenset[QueueKey]]:
        """Send `batch` to every peer's agent in parallel; the queues each one that answered SUCCESS named."""
        if not peers:
            return []
        with ThreadPoolExecutor(max_workers=len(peers)) as pool:
            answers = pool.map(lambda peer: self._ask_one(peer[0], peer[1], method, batch), peers.items())
            return [g for g in answers if g is not None]

    def _ask_one(self, broker_id: int, address: str, method: str, batch: Batch) -> frozenset[QueueKey] | None:
        key = next(iter(batch.keys), None)
        if key is None:
            return frozenset()
        queue_ids = sorted(k.queue_id for k in batch.keys)
        ref = pb.BrokerRef(broker_name=self._broker_name, broker_id=broker_id)
        if method == "LockBatchMQ":
            request: pb.LockBatchMQRequest | pb.UnlockBatchMQRequest = pb.LockBatchMQRequest(
                broker=ref, owner=batch.owner, group=key.group, topic=key.topic, queue_ids=queue_ids,
                life_millis=batch.life_ms,
            )  # fmt: skip
        else:
            request = pb.UnlockBatchMQRequest(
                broker=ref, owner=batch.owner, group=key.group, topic=key.topic, queue_ids=queue_ids
            )
        try:
            with AgentClient(timeout=PEER_TIMEOUT_S, security=self._security) as client:
                response = client.call(address, method, request)
        except MqError as exc:
            log.info("%s at %s failed: %s", method, address, exc)
            return None
        if response.code != ResponseCode.SUCCESS:
            log.info("%s at %s answered %d: %s", method, address, response.code, response.remark)
            return None
        return keys_of(key.group, key.topic, response.locked_queue_ids)
