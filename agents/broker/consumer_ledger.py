"""ConsumerLedger: the consumer state a broker serves, and the one write path of its records.

The state is ``agents.consumer``'s `ConsumerState`, rebuilt from the replica's snapshot and the consumer-state
records after it the first time a request finds this replica master in a new epoch (or acting, RIP-32, in a new
episode), so a promoted slave serves from exactly what its log holds. The services (``pop_service``,
``offsets_service``, ``delays``, ``escape``, ``take_back``) decide under the ledger's lock, and the events they get
become records, numbered on from the state's ``seq``, appended to the set's commit log through the same write path
as any message and applied to the state, all under the lock: log order is number order, and the state is always
the local log's. The wait for the flush and the acknowledgements (``allAckInSyncStateSet``) happens outside the
lock (`settle`), so concurrent requests share them, and the answer goes out only once that put is PUT_OK; on any
other outcome the client is told it failed (the records stay in the log, which a failover keeps or truncates as it
does any message). An acting replica writes no log: its changes escape to another set's master (`append`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from agents.broker.answers import REMARKS, STATUS_CODES
from agents.broker.consumer_checks import Refused
from agents.broker.consumer_snapshots import MAX_PAGE_BYTES, ConsumerStateUnavailable, SnapshotKeeper, log_records
from agents.config import BrokerConfig
from agents.consumer.errors import SequenceGap, StateFormatError
from agents.consumer.records import (
    Change,
    Escaped,
    EscapedChange,
    EscapeKey,
    OffsetCommitted,
    Queueless,
    StateRecord,
    TimerDelivered,
    TransactionChecked,
    TransactionEnded,
    Version,
    to_message,
)
from agents.consumer.snapshot import Snapshot, rebuild
from agents.consumer.snapshot import encode as snapshot_encode
from agents.consumer.state import ConsumerState, apply_all
from agents.ha.acting import may_have_been_replaced
from agents.ha.master_service import PutResult
from agents.ha.replica import Replica
from agents.ha.role import Role
from agents.ha.sync_state import PutStatus
from agents.metadata import MetadataTable
from agents.pop.events import Acked, Changed, Popped
from agents.pop.model import QueueKey, dlq_topic
from agents.store.commitlog import CommitLogError
from agents.store.record import Message
from mqbase.clock import Clock, wall_ms
from mqbase.codes import ResponseCode

log = logging.getLogger(__name__)

DLQ_PREFIX = dlq_topic("")
_STORE_ERROR = ResponseCode.SYSTEM_ERROR
PRE_ONLINE_REMARK = (
    "this broker became master and is taking back its set's consumer state from its replicas and the escape "
    "masters (RIP-32 pre-online); retry"
)
ACTING_SYNC_REMARK = (
    "this broker starts acting as its set's read-only master and is taking back the consumer state of its set's "
    "replicas and of earlier escapes (RIP-32); retry"
)
ACTING_READ_ONLY = "this broker acts as its set's read-only master (RIP-32): {what} waits for a master; retry later"

ServingKey = tuple[Replica, int, int]
"""(replica, masterEpoch, acting episode start or 0): a new master, or a new acting episode, rebuilds."""


class Appended(Protocol):
    """Records written and not yet answered for (``agents.ha.master_service.Appended``, or an escape's)."""

    def settle(self) -> PutResult: ...


class Host(Protocol):
    """What the ledger and the services over it need of their broker (``ReplicasManager``)."""

    config: BrokerConfig
    replica: Replica | None
    broker_id: int

    @property
    def metadata(self) -> MetadataTable: ...
    @property
    def acting_since_ms(self) -> int:
        """When this slave started acting as its set's read-only master (RIP-32); 0 while it does not."""

    def append(self, messages: Sequence[Message]) -> Appended | PutResult: ...
    def master_address(self) -> str: ...
    def escape(self, changes: Sequence[Escaped], copies: Sequence[Message], serving: Callable[[str], bool]) -> str:
        """Store an acting replica's changes at another set's master (``agents.broker.escape``)."""

    def lock_queues(self, keys: Sequence[QueueKey]) -> frozenset[QueueKey]:
        """The orderly queues the set's coordinator holds a lock for (``agents.broker.queue_locks``)."""

    def dead_letters_stored(self, topics: frozenset[str]) -> None:
        """The set now holds dead letters in these topics, which it does not serve yet: have them created
        (Java's broker creates ``%DLQ%<group>`` at its first dead letter, readable like any topic)."""


@dataclass(frozen=True, slots=True)
class _Escaped:
    """An acting replica's changes, stored at an escape master: settled already."""

    def settle(self) -> PutResult:
        return PutResult(PutStatus.PUT_OK)


@dataclass(slots=True)
class Counters:
    """RIP-32's counts, for the metrics."""

    escaped: int = 0
    """Changes this replica escaped while acting as master."""
    taken_back: int = 0
    """Escaped changes this master took back (pre-online and later sweeps)."""
    pre_online_s: float = 0.0
    """How long the last pre-online took."""


def unserved_dead_letter_topics(names: Iterable[str], table: MetadataTable, broker_name: str) -> frozenset[str]:
    """The dead-letter topics among `names` that set `broker_name` does not serve in `table`."""
    topics = table.topics
    return frozenset(
        n for n in names if n.startswith(DLQ_PREFIX) and (n not in topics or broker_name not in topics[n].broker_names)
    )


def _escapable(change: Change) -> EscapedChange:
    """An acting replica's change as it escapes; only consumption, delivery and transactions' ends and check-backs
    escape (never a reset)."""
    if isinstance(change, OffsetCommitted | Popped | Acked | Changed | TimerDelivered | TransactionEnded
                  | TransactionChecked):  # fmt: skip
        return change
    raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, ACTING_READ_ONLY.format(what=type(change).__name__))


class ConsumerLedger:
    """The consumer state of one broker set, served by this replica while it is master (or acts as one)."""

    def __init__(self, host: Host, snapshots: SnapshotKeeper, clock: Clock) -> None:
        self.host = host
        self.clock = clock
        self.lock = threading.Lock()
        """Held while a service decides and appends; never across a settle or an RPC."""
        self._snapshots = snapshots
        self._arrived = threading.Condition()
        self._state: ConsumerState | None = None
        self._built_for: ServingKey | None = None
        self._online_for: ServingKey | None = None  # the state pre-online finished for
        self._pre_online_since = 0.0  # monotonic; 0 while none waits
        self._gap_lock = threading.Lock()  # guards the two below (the watchdog takes no other lock)
        self._ticked = clock.monotonic()  # when this process last ran a watchdog tick or a call
        self._gap_ms = 0  # the longest gap noticed and not yet taken into account (0: none)
        self._escape_n = 0  # escaped changes, counted over the agent's life (their keys' n: unique per episode)
        self._encoded: tuple[ConsumerState, bytes] | None = None  # the state last paged out (GetConsumerState)
        self.counters = Counters()

    @property
    def name(self) -> str:
        return self.host.config.broker_name

    # --- arrivals --------------------------------------------------------------------------------

    def wake(self) -> None:
        """New messages were stored: long-polling receives decide again now."""
        with self._arrived:
            self._arrived.notify_all()

    def wait_for_arrival(self, timeout_s: float) -> None:
        """Until `wake` or `timeout_s`; a send meanwhile is caught at the caller's next decision."""
        with self._arrived:
            self._arrived.wait(timeout_s)

    # --- process pauses ----------------------------------------------------------------------------

    def tick(self, now: float) -> bool:
        """The agent's watchdog tick (monotonic `now`; it never waits for the ledger's lock, so a long rebuild
        cannot stall the write gate's watchdog): whether the gap since the last tick or call may have let a slave
        act (`acting.may_have_been_replaced`); the take-back is then due at once, and the next look at the state
        sends an online master back to pre-online (`_take_gap`)."""
        with self._gap_lock:
            gap_ms, self._ticked = int((now - self._ticked) * 1000), max(self._ticked, now)
            if not may_have_been_replaced(gap_ms, self.host.config.acting_policy):
                return False
            self._gap_ms = max(self._gap_ms, gap_ms)
            return True

    def _take_gap(self) -> None:
        """After a gap in which this process ran nothing long enough for a slave to have acted (caller holds the
        lock), an online master goes through pre-online again: the acting replica's escaped changes, which the
        sweep would take back only later, are merged before it serves, so no acked message comes back."""
        self.tick(self.clock.monotonic())  # a call may run before the watchdog after a pause
        with self._gap_lock:
            gap_ms, self._gap_ms = self._gap_ms, 0
        replica = self.host.replica
        online = self._online_for is not None and self._online_for == self._built_for
        if not gap_ms or replica is None or replica.position.role is not Role.MASTER or not online:
            return  # no gap, or not an online master: a slave, or an acting replica (it takes nothing back)
        log.warning("%s: this master ran nothing for %.1f s (a process pause or a stalled host); a slave may have "
                    "acted meanwhile: pre-online again before serving consumers", self.name, gap_ms / 1000)  # fmt: skip
        self._online_for = None

    # --- the served state --------------------------------------------------------------------------

    def ready(self, *, pre_online: bool = False) -> tuple[Replica, ConsumerState]:
        """The serving replica and its state (caller holds the lock): the master's, or an acting replica's (its
        log's state with the changes it escaped), rebuilt for a new replica, epoch or acting episode. A new master
        with ``enableSlaveActingMaster`` serves only once pre-online took its set's state back (`pre_online`: the
        take-back itself, and the reads other masters' take-backs make, pass)."""
        self._take_gap()
        replica = self.host.replica
        role = replica.position.role if replica is not None else Role.FENCED
        acting_since = self.host.acting_since_ms if role is not Role.MASTER else 0  # a slave, or fenced
        if replica is None or not (acting_since or (role is Role.MASTER and replica.master is not None)):
            if role is Role.SLAVE:
                raise Refused(ResponseCode.SLAVE_NOT_AVAILABLE, "this broker is a slave; ask the master")
            raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, "this broker is not master yet (fenced); retry")
        key = (replica, replica.position.master_epoch, acting_since)
        if self._state is None or self._built_for != key:
            started = self.clock.monotonic()
            self._state = self._build(replica)
            self._built_for, self._pre_online_since = key, 0.0
            log.info("%s: consumer state rebuilt up to record %d in %.3f s%s", self.name, self._state.seq,
                     self.clock.monotonic() - started, " (acting)" if acting_since else "")  # fmt: skip
        if self._online_for != key:
            if not self.host.config.enable_slave_acting_master:
                self._online_for = key  # acting needs the key on: an acting replica always takes back
            elif not self._pre_online_since:
                self._pre_online_since = self.clock.monotonic()
            if self._online_for != key and not pre_online:
                raise Refused(
                    ResponseCode.SERVICE_NOT_AVAILABLE, ACTING_SYNC_REMARK if acting_since else PRE_ONLINE_REMARK
                )
        return replica, self._state

    def _build(self, replica: Replica) -> ConsumerState:
        """The state the replica's log holds: its latest snapshot and the records after it."""
        try:
            base = self._snapshots.latest(replica)
        except ConsumerStateUnavailable as exc:
            raise Refused(ResponseCode.SYSTEM_ERROR, str(exc)) from exc
        stored = log_records(replica.store, base.covered if base else 0)
        try:
            return rebuild(base, (record for _, _, record in stored))
        except (SequenceGap, StateFormatError, CommitLogError) as exc:
            log.error("%s: consumer state cannot be rebuilt: %s", self.name, exc)
            raise Refused(ResponseCode.SYSTEM_ERROR, f"consumer state cannot be rebuilt: {exc}") from exc

    @property
    def serving(self) -> ServingKey | None:
        """Which state is served now (caller holds the lock): the key of the last `ready`."""
        return self._built_for

    @property
    def pre_online(self) -> bool:
        """Whether this master serves no consumer until its pre-online is done: with ``enableSlaveActingMaster``,
        from the role change on (before any request or take-back pass looked at the new epoch), not only once a
        pass started it."""
        replica = self.host.replica
        if replica is None or not self.host.config.enable_slave_acting_master:
            return False
        position = replica.position
        return position.role is Role.MASTER and self._online_for != (replica, position.master_epoch, 0)

    def online(self, key: ServingKey) -> bool:
        return self._online_for == key

    def went_online(self, key: ServingKey) -> float | None:
        """Pre-online of `key` is done (caller holds the lock): the seconds it took, None if `key` is no longer the
        one served or was online already."""
        if self._built_for != key or self._online_for == key:
            return None
        self._online_for = key
        took = self.counters.pre_online_s = self.clock.monotonic() - self._pre_online_since
        self._pre_online_since = 0.0
        return took

    @property
    def acting(self) -> bool:
        """Whether the state served is an acting replica's (its writes escape)."""
        return self._built_for is not None and self._built_for[2] != 0

    def master_address(self, exc: Refused) -> str:
        """Where to go instead, for a refusal that says this broker is a slave ("" otherwise)."""
        return self.host.master_address() if exc.code == ResponseCode.SLAVE_NOT_AVAILABLE else ""

    # --- the write path ------------------------------------------------------------------------------

    def append(self, state: ConsumerState, changes: Sequence[Change], extra: Sequence[Message] = ()) -> Appended:
        """Append the changes as records (after `extra`, in one batch) and apply them to the table (caller holds the
        lock): the local log holds them now, in the order of their numbers, and the table stays the log's. The
        caller settles the `Appended` outside the lock. `Refused` with the put's code when nothing was written."""
        records = [StateRecord(state.seq + i, change) for i, change in enumerate(changes, 1)]
        if self.acting:
            return self._escape(state, records, extra)
        try:
            appended = self.host.append([*extra, to_message(records, wall_ms(self.clock))])
        except OSError as exc:  # a full disk: a failed append writes nothing the log keeps
            self._state = None  # the log decides, at the next request
            log.error("%s: consumer-state put failed: %s", self.name, exc)
            raise Refused(_STORE_ERROR, f"the store cannot write ({exc.strerror or exc}); retry later") from exc
        if isinstance(appended, PutResult):
            raise Refused(STATUS_CODES[appended.status], REMARKS[appended.status])
        self._state = apply_all(state, records)
        if unserved := unserved_dead_letter_topics([m.topic for m in extra], self.host.metadata, self.name):
            self.host.dead_letters_stored(unserved)
        return appended

    def hold(self, state: ConsumerState, changes: Sequence[Change]) -> None:
        """An acting replica's take-back (caller holds the lock): the merge is applied in memory only, as it writes
        no log (the set's next master takes the same changes back)."""
        self._state = apply_all(state, [StateRecord(state.seq + i, c) for i, c in enumerate(changes, 1)])

    def _escape(self, state: ConsumerState, records: Sequence[StateRecord], extra: Sequence[Message]) -> Appended:
        """An acting replica's `append`: the changes escape to another set's master, each at the version of its
        queue and under a key of this episode, with `extra` in the same put there (delayed messages' copies,
        dead letters: a set that serves their topics takes them); the table takes them once stored there."""
        assert self._built_for is not None
        episode = self._built_for[2]
        escaped: list[Escaped] = []
        for record in records:
            change = _escapable(record.change)
            queue = None if isinstance(change, Queueless) else change.queue
            self._escape_n += 1
            version = state.versions.get(queue, Version()) if queue is not None else Version()
            escaped.append(Escaped(self.name, EscapeKey(self.host.broker_id, episode, self._escape_n), version, change))
        topics = self.host.metadata.topics
        needed = {m.topic for m in extra if not m.topic.startswith(DLQ_PREFIX)}

        def serving(name: str) -> bool:
            return all(t in topics and name in topics[t].broker_names for t in needed)

        target = self.host.escape(escaped, extra, serving)
        self.counters.escaped += len(escaped)
        log.debug("%s: %d change(s) escaped to %s", self.name, len(escaped), target)
        self._state = apply_all(state, records)
        return _Escaped()

    def settle(self, appended: Appended | None) -> None:
        """Wait until the appended records are acknowledged as the config asks (``allAckInSyncStateSet``), outside
        the lock so that concurrent requests share flushes and replication rounds; `Refused` with the put's code
        otherwise (the records stay in this log: the client is told it failed, and retries)."""
        if appended is None:
            return
        try:
            result = appended.settle()
        except OSError as exc:  # the flush failed: what the log keeps is unknown until it is read again
            with self.lock:
                self._state = None
            log.error("%s: consumer-state flush failed: %s", self.name, exc)
            raise Refused(_STORE_ERROR, f"the store cannot write ({exc.strerror or exc}); retry later") from exc
        if result.status is not PutStatus.PUT_OK:
            raise Refused(STATUS_CODES[result.status], REMARKS[result.status])

    # --- the state for other replicas (GetConsumerState) --------------------------------------------

    def state_now(self) -> ConsumerState:
        """This replica's consumer state for a take-back (``GetConsumerState``): the served one (an acting replica's
        with its escaped changes), else its log's."""
        with self.lock:
            replica = self.host.replica
            if replica is None:
                raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, "this broker has no store open yet; retry")
            if self._state is not None and self._built_for is not None and self._built_for[0] is replica:
                role = replica.position.role
                if (role is Role.MASTER) == (self._built_for[2] == 0) and role is not Role.FENCED:
                    return self._state
        return self._build(replica)

    def state_page(self, position: int, max_bytes: int) -> tuple[int, int, bytes]:
        """A page of `state_now` encoded as a snapshot: (its seq, the encoding's size, the page). The encoding of
        the last state asked is kept, so a paged read encodes once."""
        state = self.state_now()
        with self.lock:
            if self._encoded is None or self._encoded[0] is not state:
                self._encoded = (state, snapshot_encode(Snapshot(0, state)))
            data = self._encoded[1]
        size = max(0, min(max_bytes, MAX_PAGE_BYTES))
        return state.seq, len(data), data[position : position + size]
