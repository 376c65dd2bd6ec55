"""RoleKeeper: the worker thread that keeps one broker's role in line with the controller.

Fenced until its role is known. Start-up: registration (``registration``), heartbeat streams to every controller
node, and an election request when the set has no master. Afterwards the worker handles, in order, everything that
can change the role (``worker_events``): controller pushes, the periodic GetReplicaInfo and GetMetadata,
SyncStateSet proposals from the HA master (reported with AlterSyncStateSet, applied only once the controller
confirms), RIP-32's acting check, and elections. What to do with each controller answer is ``roles.decide``; this
module carries it out.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Protocol, assert_never

from agents.broker import convert
from agents.broker.acting_shell import ActingShell
from agents.broker.consumer_ledger import unserved_dead_letter_topics
from agents.broker.controller_link import ControllerLink
from agents.broker.registration import Registration
from agents.broker.roles import BecomeMaster, BecomeSlave, Decision, Elect, Local, Stay, TakeSyncStateSet, decide
from agents.broker.roles import View as ControllerView
from agents.broker.topics_table import TopicsTable
from agents.broker.worker_events import (
    Check,
    DeadLetters,
    LearnMembers,
    MetadataChanged,
    Poll,
    Proposed,
    ReadMetadata,
    RoleChanged,
    Stop,
    WorkerEvent,
)
from agents.broker.writes import WriteGuard
from agents.config import BrokerConfig
from agents.ha import acting
from agents.ha.master_session import admit_slave
from agents.ha.replica import Replica, StaleEpoch
from agents.ha.role import Position, Role
from agents.identity import Identity, IdentityError
from agents.metadata import stale
from agents.store.commitlog import CommitLogError
from agents.store.epoch_file import EpochFileError
from mqbase.clock import Clock, monotonic_ms
from mqbase.codes import ResponseCode
from mqbase.errors import MqError
from mqbase.proto import controller_pb2 as pb

log = logging.getLogger(__name__)


class Member(Protocol):
    """What the worker needs of its broker (``ReplicasManager``)."""

    config: BrokerConfig
    replica: Replica | None
    broker_id: int

    @property
    def error(self) -> str: ...
    def set_error(self, error: str) -> None: ...
    def position(self) -> Position: ...
    def coordination_changed(self) -> None: ...


class RoleKeeper:
    """See the module docstring. `check_slaves` (aclEnable): the HA port admits only ids registered in the set;
    `on_role_change`: the broker took a new role."""

    def __init__(
        self,
        member: Member,
        link: ControllerLink,
        registration: Registration,
        topics: TopicsTable,
        writes: WriteGuard,
        rip32: ActingShell,
        clock: Clock,
        *,
        check_slaves: bool,
        on_role_change: Callable[[], None],
    ) -> None:
        self._m = member
        self._link = link
        self._registration = registration
        self._topics = topics
        self._writes = writes
        self._rip32 = rip32
        self._clock = clock
        self._check_slaves = check_slaves
        self._on_role_change = on_role_change
        self._events: queue.Queue[WorkerEvent] = queue.Queue()
        self._stopped = threading.Event()
        self._lock = threading.Lock()  # guards the two below
        self._sss_epoch = 0
        self._master: tuple[int | None, str, str] = (None, "", "")
        self._members: frozenset[int] | None = None  # the set's registered ids, as last learnt (aclEnable)
        self._members_wanted = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"replicas-{member.config.broker_name}", daemon=True)

    def _name(self) -> str:
        c = self._m.config
        return f"{c.broker_cluster_name}/{c.broker_name}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._events.put(Stop())
        if self._thread.ident is not None:
            self._thread.join(timeout=10)

    def put(self, event: WorkerEvent) -> None:
        """Handle `event` on the worker, after those before it."""
        self._events.put(event)

    def record(self) -> tuple[int, tuple[int | None, str, str]]:
        """The SyncStateSet epoch and the set's master (id, address, HA address) as last taken."""
        with self._lock:
            return self._sss_epoch, self._master

    def _run(self) -> None:
        try:
            registered = self._registration.register(self._stopped)
            if registered is None:
                return
            self._m.set_error("")
            self._apply(convert.view_of(registered), may_elect=True)
        except (IdentityError, OSError, ValueError, CommitLogError, EpochFileError) as exc:
            self._m.set_error(f"cannot start: {exc}")  # ValueError includes a damaged checkpoint (CheckpointError)
            log.error("%s: %s", self._name(), self._m.error)
            return
        self._link.start()
        self._events.put(ReadMetadata())  # learn the topics and groups at once, not a period later
        next_poll = self._clock.monotonic() + self._m.config.sync_broker_metadata_period / 1000
        while not self._stopped.is_set():
            wait = next_poll - self._clock.monotonic()
            if self._m.config.enable_slave_acting_master:
                wait = min(wait, acting.CHECK_S)  # a master may be gone: look at the HA stream this often
            event: WorkerEvent
            try:
                event = self._events.get(timeout=max(0.0, wait))
            except queue.Empty:
                if self._clock.monotonic() < next_poll:
                    if not self._rip32.watching():
                        continue
                    event = Check()
                else:
                    event = Poll()
            if isinstance(event, Stop):
                return
            if isinstance(event, Poll):
                next_poll = self._clock.monotonic() + self._m.config.sync_broker_metadata_period / 1000
            try:
                self._handle(event)
            except MqError as exc:
                log.info("%s: controller unavailable for %s: %s", self._name(), type(event).__name__, exc)
            except StaleEpoch as exc:
                log.warning("%s: refused a role change: %s", self._name(), exc)
            except Exception:  # the worker must outlive any one bad answer; the next poll tries again
                log.exception("%s: handling %s failed", self._name(), type(event).__name__)

    def _handle(self, event: WorkerEvent) -> None:
        match event:
            case RoleChanged(view=view):
                self._apply(view, may_elect=False)
            case MetadataChanged(version=version):
                if stale(self._topics.table, version):
                    self._topics.read()
            case Proposed(sync_state_set=members):
                self._alter_sync_state_set(members)
            case Poll():
                self._poll_cycle()
            case Check():
                self._poll_cycle(full=False)
            case LearnMembers():
                self._learn_members()
            case ReadMetadata():
                self._topics.read()
            case DeadLetters(topics=topics):
                for topic in sorted(
                    unserved_dead_letter_topics(topics, self._topics.table, self._m.config.broker_name)
                ):
                    self._topics.create_topic(topic, queues=1, why="its first dead letter")
            case Stop():
                pass  # the loop ends before handling it
            case _:
                assert_never(event)

    def _poll_cycle(self, *, full: bool = True) -> None:
        """GetReplicaInfo and GetMetadata, then RIP-32's check, whatever they raised: the controllers count as
        reachable only if one of them gave this cycle an answer on the set. Not `full` (RIP-32's check between
        polls): no election and no metadata read, so a set without a master costs the controllers no more."""
        started = monotonic_ms(self._clock)
        try:
            self._poll(may_elect=full)
            if full:
                self._topics.read()
        except MqError as exc:
            log.info("%s: controller unavailable for poll: %s", self._name(), exc)
        finally:
            answer = self._rip32.answer
            reachable = answer is not None and answer.received_ms >= started
            self._rip32.check(reachable=reachable)
            if reachable and self._m.config.lock_in_strict_mode and not self._m.config.enable_slave_acting_master:
                self._rip32.learn_replicas()  # the acting check learnt them otherwise

    def _poll(self, *, may_elect: bool = True) -> None:
        c = self._m.config
        asked_at = self._clock.monotonic()
        response = self._link.call("GetReplicaInfo", pb.GetReplicaInfoRequest(broker_name=c.broker_name))
        if response.code == ResponseCode.CONTROLLER_BROKER_METADATA_NOT_EXIST:
            log.warning("%s: the controller lost this broker set; registering again", self._name())
            own = Identity(c.broker_cluster_name, c.broker_name, self._m.broker_id)
            if self._registration.apply_broker_id(keep=own) != own:
                return
            response = self._link.call("RegisterBroker", self._registration.request())
        if response.code != ResponseCode.SUCCESS:
            log.info("%s: controller answered %d: %s", self._name(), response.code, response.remark)
            return
        self._apply(convert.view_of(response), may_elect=may_elect)
        self._writes.answered(asked_at)

    def _apply(self, view: ControllerView, *, may_elect: bool) -> None:
        self._rip32.answered(view.master_id)
        decision = decide(self._local(), view, may_elect=may_elect)
        self._execute(decision, view)
        if view.master_id is not None and self._rip32.acting:
            self._rip32.decide(reachable=True)  # a master exists: stop at once, not at the next poll

    def _execute(self, decision: Decision, view: ControllerView) -> None:
        replica = self._m.replica
        assert replica is not None
        match decision:
            case BecomeMaster(epoch=epoch, sync_state_set=members, sync_state_set_epoch=sss_epoch):
                if self._check_slaves:
                    self._learn_members()  # before the HA port opens, so the slaves' first handshakes pass
                replica.change_to_master(
                    epoch, members, sss_epoch, lambda s: self._events.put(Proposed(s)), self._m.config.ha_listen_port,
                    admit=self._admit_slave if self._check_slaves else None,
                )  # fmt: skip
                self._took_role(sss_epoch, view)
            case BecomeSlave(epoch=epoch, master_ha_address=ha):
                if not ha:
                    log.error("%s: master %s of epoch %d registered no HA address; staying as is",
                              self._name(), view.master_id, epoch)  # fmt: skip
                    return
                replica.change_to_slave(ha, epoch)
                self._took_role(0, view)
            case TakeSyncStateSet(sync_state_set=members, sync_state_set_epoch=sss_epoch):
                if replica.master is not None:
                    replica.master.confirm(members, sss_epoch)
                with self._lock:
                    self._sss_epoch = sss_epoch
            case Elect():
                self._elect()
            case Stay():
                with self._lock:
                    self._master = (view.master_id, view.master_address, view.master_ha_address)

    def _admit_slave(self, slave_id: int) -> str | None:
        """HA admission, on an HA connection thread: a refusal asks the worker to learn the ids again (the
        slave may have registered since), and the slave's next connection attempt is decided on those."""
        refused = admit_slave(slave_id, self._m.broker_id, self._members)
        if refused is not None and not self._members_wanted.is_set():
            self._members_wanted.set()
            self._events.put(LearnMembers())
        return refused

    def _learn_members(self) -> None:
        """Ask the controller which ids are registered in this broker set (GetSyncStateData lists them all).

        Best effort: without an answer the last ids learnt stay, and a refused slave asks again.
        """
        self._members_wanted.clear()
        replicas = self._link.set_replicas(self._m.config.broker_name)
        if replicas is not None:
            self._members = frozenset(r.broker_id for r in replicas)

    def _elect(self) -> None:
        c = self._m.config
        view = self._link.elect(c.broker_cluster_name, c.broker_name, self._m.broker_id)
        if view is not None:
            self._apply(view, may_elect=False)

    def _alter_sync_state_set(self, new_set: frozenset[int]) -> None:
        """Report the HA master's proposal; apply it only when the controller confirms it."""
        replica = self._m.replica
        master = replica.master if replica is not None else None
        position = self._m.position()
        if master is None or position.role is not Role.MASTER:
            return
        answer = self._link.alter_sync_state_set(
            self._m.config.broker_name, self._m.broker_id, position.master_epoch, new_set, self._sss_epoch
        )
        if isinstance(answer, str):
            log.info("%s: AlterSyncStateSet %s refused (%s)", self._name(), sorted(new_set), answer)
            master.abandon()
            try:  # the set its added members stay counted toward until then: at once, not a poll period later
                self._poll(may_elect=False)
            except MqError as exc:
                log.info("%s: controller unavailable for the SyncStateSet: %s", self._name(), exc)
            return
        members, epoch = answer
        master.confirm(members, epoch)
        with self._lock:
            self._sss_epoch = epoch

    def _local(self) -> Local:
        position = self._m.position()
        replica = self._m.replica
        unsettled = replica is not None and replica.master is not None and replica.master.sync_state.unsettled
        with self._lock:
            return Local(self._m.broker_id, position.role, position.master_epoch, self._sss_epoch, unsettled)

    def _took_role(self, sss_epoch: int, view: ControllerView) -> None:
        """The replica took the role `view` gave it: record what goes with it and tell the owner."""
        with self._lock:
            self._sss_epoch = sss_epoch
            self._master = (view.master_id, view.master_address, view.master_ha_address)
        self._writes.new_role()
        position = self._m.position()
        log.info("%s: broker %d is %s in epoch %d (master %s)", self._name(), self._m.broker_id,
                 position.role.value, position.master_epoch, view.master_id)  # fmt: skip
        if self._m.config.enable_slave_acting_master:
            self._rip32.learn_alive(reachable=True)  # the new master's pre-online asks every alive replica
        self._m.coordination_changed()
        if self._on_role_change is not None:
            self._on_role_change()
