"""ReplicasManager: one hosted broker's life with the controller (Java's ``ReplicasManager``).

Fenced until its role is known. Start-up: the crash-safe two-phase broker-id registration (identity files),
the replica's store opened under that id, RegisterBroker, heartbeat streams to every controller node, and an
election request when the set has no master. Afterwards one worker thread handles, in order, everything
that can change the role: controller pushes, the periodic GetReplicaInfo, SyncStateSet proposals from the
HA master (reported with AlterSyncStateSet, applied only once the controller confirms), and elections. What
to do with each controller answer is ``roles.decide``; this module only carries it out.

The data plane does not depend on the controller: a master keeps serving and slaves keep replicating while
the controller group is down. The exceptions — a paused process (SIGSTOP, a VM freeze) and a graceful
transfer's write pause with its lease — are the write gate, decided in ``write_gate``; this module reads the
clock, holds the gate's lock and carries out what the gate's steps say.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from agents.broker import convert
from agents.broker.acting_shell import ActingShell
from agents.broker.cleaner import CommitLogCleaner
from agents.broker.consumer_snapshots import SnapshotKeeper, fetch_snapshot
from agents.broker.consumers import Consumers
from agents.broker.controller_link import ControllerLink
from agents.broker.delays import TimerDelivery
from agents.broker.escape import EscapeIntake, EscapeLink, Neighbour
from agents.broker.escape_journal import EscapeJournal
from agents.broker.local import LocalBroker
from agents.broker.queue_locks import QueueLocks
from agents.broker.registration import Registration
from agents.broker.role_keeper import RoleKeeper
from agents.broker.sends import SendService
from agents.broker.stats import BrokerStats
from agents.broker.take_back import TakeBack
from agents.broker.topics_table import TopicsTable
from agents.broker.worker_events import (
    DeadLetters,
    MetadataChanged,
    Poll,
    RoleChanged,
)
from agents.broker.writes import WriteGuard
from agents.config import BrokerConfig
from agents.consumer.records import Escaped
from agents.delay.timer import TIMER_TOPIC
from agents.ha.master_service import Appended, PutResult
from agents.ha.replica import Replica
from agents.ha.role import Position, Role
from agents.identity import IdentityFiles
from agents.metadata import MetadataTable
from agents.pop.model import QueueKey
from agents.store.record import Message
from mqbase.clock import Clock, wall_ms
from mqbase.proto import common_pb2
from mqbase.proto import controller_pb2 as pb
from mqbase.security import SecurityConfig

log = logging.getLogger(__name__)

TICK_S = 0.1


@dataclass(frozen=True, slots=True)
class Status:
    """A snapshot for ListBrokers / GetHAStatus."""

    broker_id: int
    role: Role
    master_epoch: int
    master_id: int | None
    master_address: str
    master_ha_address: str
    sync_state_set_epoch: int
    error: str
    acting_since_ms: int = 0
    """RIP-32: wall-clock ms since this slave acts as its set's read-only master; 0 while it does not."""
    acting_episodes: int = 0
    """How many times it started acting since the agent started."""


class ReplicasManager:
    """Registers one broker, keeps its role in line with the controller, and guards its writes."""

    def __init__(
        self,
        config: BrokerConfig,
        *,
        on_role_change: Callable[[ReplicasManager], None] | None = None,
        security: SecurityConfig | None = None,
        neighbours: Callable[[], Iterable[Neighbour]] = tuple,
        clock: Clock,
        put_metrics: Callable[[ReplicasManager, float, str], None] | None = None,
    ):
        """`security`: the agent's TLS and credentials for the controllers; with aclEnable, this broker's HA
        port admits only ids the controller registered in its set. `neighbours`: the other brokers the agent
        hosts (RIP-31's local escape). `clock`: the agent's, read by every part of the broker. `put_metrics`: the
        agent's put metrics (``AgentMetrics.observe_put``), if it serves any."""
        self.config = config
        self._clock = clock
        self.replica: Replica | None = None
        self.broker_id = -1
        self._stopped = threading.Event()
        self._lock = threading.Lock()  # guards _error
        self._error = ""
        self.writes = WriteGuard(self, clock, lambda: self.roles.put(Poll()))
        self._client_security = (security or SecurityConfig()).client()
        self._link = ControllerLink(
            config.controller_addr,
            self._heartbeat,
            self.notify,
            interval_s=lambda: self.config.broker_heartbeat_interval / 1000,
            security=self._client_security,
        )
        self.rip32 = ActingShell(self, self._link, clock, self._client_security)
        self.topics = TopicsTable(
            lambda: self.config, self._link, clock, lambda b, a: self.consumers.offsets.forget(b, a)
        )
        self.registration = Registration(self, self._link, IdentityFiles(config.store_root))
        self.roles = RoleKeeper(
            self, self._link, self.registration, self.topics, self.writes, self.rip32, clock,
            check_slaves=security is not None and security.acl_enable,
            on_role_change=(lambda: on_role_change(self)) if on_role_change is not None else lambda: None,
        )  # fmt: skip
        self._watchdog = threading.Thread(target=self._watch, name=f"watchdog-{config.broker_name}", daemon=True)
        self.snapshots = SnapshotKeeper(lambda: self.replica, lambda: self.config, fetch=self._master_snapshot)
        self.consumers = Consumers(self, self.snapshots, clock)
        self.timer = TimerDelivery(self.consumers.timers, config.broker_name, clock)
        self.transaction_checks = TimerDelivery(
            self.consumers.transactions, config.broker_name, clock, "transaction check-backs", "transaction-check"
        )
        self.escapes = EscapeLink(
            config.broker_cluster_name, config.broker_name, neighbours, self._link.call, self._client_security,
            EscapeJournal(config.store_root),
        )  # fmt: skip
        self.take_back = TakeBack(
            self.consumers.ledger, self.escapes, self.rip32.alive_peers, lambda: self.config, self._client_security
        )
        self.queue_locks = QueueLocks(
            config.broker_name, lambda: self.config.rebalance_lock_max_live_time, self._client_security, clock
        )
        self._coordinated = False  # whether this replica coordinated at the last role change (worker thread)
        self.cleaner = CommitLogCleaner(
            lambda: self.replica, lambda: self.config, retained_floor=self.snapshots.retained_floor
        )
        self.stats = BrokerStats(clock.monotonic())  # brokerStatus / statsAll
        observe = None if put_metrics is None else (lambda seconds, status: put_metrics(self, seconds, status))
        self.sends = SendService(self, self.topics, self.writes, self.stats, clock, observe)
        self.api = LocalBroker(self.sends, self.consumers.pop, self.consumers.transactions, self.stats, clock)
        """This broker as the access point and the agent API call it."""
        self.started_ms = wall_ms(clock)

    # --- life cycle ------------------------------------------------------------------------------

    def start(self) -> None:
        self.roles.start()
        self._watchdog.start()
        self.cleaner.start()
        self.snapshots.start()
        self.timer.start()
        self.transaction_checks.start()
        self.take_back.start()

    def stop(self) -> None:
        """Stop talking to the controllers, then stop the data plane and close the store."""
        self._stopped.set()
        self.roles.stop()
        self._watchdog.join(timeout=2)
        self.cleaner.stop()
        self.snapshots.stop()
        self.timer.stop()
        self.transaction_checks.stop()
        self.take_back.stop()
        self._link.stop()
        if self.replica is not None:
            self.replica.close()

    def status(self) -> Status:
        position = self.position()
        sss_epoch, (master_id, address, ha) = self.roles.record()
        return Status(
            self.broker_id, position.role, position.master_epoch, master_id, address, ha, sss_epoch, self.error,
            self.rip32.since_ms, self.rip32.episodes,
        )  # fmt: skip

    def master_address(self) -> str:
        """Where the set's master is, as last learnt ("" when unknown)."""
        return self.roles.record()[1][1]

    def _master_snapshot(self) -> bytes | None:
        """The set's master's consumer-state snapshot (``consumer_snapshots.fetch_snapshot``); None when it cannot be
        had now, or this broker is the master."""
        address = self.master_address()
        if not address or address == self.config.broker_address:
            return None
        return fetch_snapshot(address, self.config.broker_name, self._client_security)

    @property
    def metadata(self) -> MetadataTable:
        """The topics and subscription groups as last read from the controller."""
        return self.topics.table

    def dead_letters_stored(self, topics: frozenset[str]) -> None:
        """See ``consumers.Host``: created by the worker (a controller call), one queue each as Java's
        ``DLQ_NUMS_PER_GROUP``; a topic still missing is asked for again at the set's next dead letter."""
        self.roles.put(DeadLetters(topics))

    def update_config(self, config: BrokerConfig) -> None:
        """Runtime keys take effect for the next heartbeat and poll; the HA keys from the next role change."""
        self.config = config
        if self.replica is not None:
            self.replica.config = config.to_ha_config()

    def notify(self, note: common_pb2.RoleChangeNotification) -> None:
        """A role change pushed by a direct NotifyBrokerRoleChanged call (same as over the stream)."""
        if note.HasField("metadata_version"):
            self.roles.put(MetadataChanged(note.metadata_version))
        else:
            self.roles.put(RoleChanged(convert.view_of_push(note)))

    def append(self, messages: Sequence[Message]) -> Appended | PutResult:
        """The consumer state's writes (``consumer_ledger.Host``): behind the write gate like any put."""
        return self.writes.append(messages)

    def position_epoch(self) -> int:
        return self.position().master_epoch

    def stored(self, messages: Sequence[Message]) -> None:
        """A send stored `messages` (``sends.Broker``): long-polling receives and the timer look again now."""
        self.consumers.ledger.wake()
        if any(m.topic == TIMER_TOPIC for m in messages):
            self.timer.wake()

    def readable(self) -> bool:
        """Reads are refused while fenced (the role is not known yet), unless the replica acts as master (RIP-32: a
        replica restarted while its set had no master is fenced)."""
        return self.position().role is not Role.FENCED or self.acting

    def _watch(self) -> None:
        while not self._stopped.wait(TICK_S):
            self.writes.observe(tick=True)
            if self.consumers.ledger.tick(self._clock.monotonic()):
                self.take_back.wake()  # a slave may have acted meanwhile: pre-online again, now

    # --- the worker ------------------------------------------------------------------------------

    def open_replica(self, broker_id: int) -> None:
        """Open the store under the broker id registration settled on (once)."""
        if self.replica is None:
            c = self.config
            self.replica = Replica(
                c.store_root, broker_id, c.to_ha_config(), c.mapped_file_size_commit_log, ha_host=c.broker_ip1
            )
            self.broker_id = broker_id

    # --- RIP-32: lock quorum ----------------------------------------------------------------------

    @property
    def coordinating(self) -> bool:
        """Whether this replica decides its set's consumption now: the master, or a slave acting as master."""
        return self.position().role is Role.MASTER or self.acting

    def lock_queues(self, keys: Sequence[QueueKey]) -> frozenset[QueueKey]:
        """Take or renew the orderly queues' locks as the set's coordinator (``consumer_ledger.Host``); the keys held:
        none while this replica does not coordinate. Does RPCs in strict mode: call outside the ledger's lock."""
        if not self.coordinating:
            return frozenset()
        c = self.config
        return self.queue_locks.acquire(
            keys, str(self.broker_id), strict=c.lock_in_strict_mode, self_id=self.broker_id, peers=self.rip32.peers
        )

    def coordination_changed(self) -> None:
        """After a role change or an acting verdict (worker thread): a replica that stopped coordinating releases
        its queue locks, so the next coordinator need not wait for them to expire; one that coordinates (a new
        master, a replica that starts acting) takes its set's consumer state back now, not at the next pass."""
        now = self.coordinating
        if self._coordinated and not now:
            self.queue_locks.release(self.broker_id, self.rip32.peers)
        self._coordinated = now
        if now:
            self.take_back.wake()

    # --- RIP-32: slave acting master -------------------------------------------------------------

    @property
    def acting(self) -> bool:
        """Whether this replica acts as its set's read-only master now (sends are still refused)."""
        return self.rip32.acting

    @property
    def acting_since_ms(self) -> int:
        """When this replica started acting as its set's read-only master; 0 while it does not."""
        return self.rip32.since_ms

    def escape(self, changes: Sequence[Escaped], copies: Sequence[Message], serving: Callable[[str], bool]) -> str:
        """Store an acting replica's consumer changes at another set's master (``agents.broker.escape``)."""
        return self.escapes.send(changes, copies, serving)

    @property
    def intake(self) -> EscapeIntake:
        """This broker's side of other sets' escapes (``escape.Neighbour``)."""
        return self.consumers.intake

    def cluster_and_name(self) -> tuple[str, str]:
        return self.config.broker_cluster_name, self.config.broker_name

    def broker_address(self) -> str:
        return self.config.broker_address

    def is_master(self) -> bool:
        return self.position().role is Role.MASTER

    # --- helpers ---------------------------------------------------------------------------------

    def position(self) -> Position:
        """The role and epoch the replica was told (its ``position`` is their one record); fenced without one."""
        replica = self.replica
        return replica.position if replica is not None else Position()

    @property
    def error(self) -> str:
        """The last error, "" when none (ListBrokers, GetHAStatus)."""
        with self._lock:
            return self._error

    def set_error(self, error: str) -> None:
        with self._lock:
            self._error = error

    def _heartbeat(self) -> pb.BrokerHeartbeatRequest:
        assert self.replica is not None  # the streams start once registration opened the store
        return convert.heartbeat(self.config, self.broker_id, self.replica)

    def _name(self) -> str:
        return f"{self.config.broker_cluster_name}/{self.config.broker_name}"
