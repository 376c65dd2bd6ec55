"""RIP-32's slave acting master, the shell: who of the set is alive, and the verdict ``agents.ha.acting`` gives.

The decision is ``acting.decide`` (pure); this module gathers its view: the controller's last answer on the set, the
set's registered replicas and which of them are alive (the controller's alive flags while it answers, else the
peers' own agents, asked with ListBrokers), and when a master was last seen (its HA stream, or a peer's agent that
reports master). It records a start or a stop of acting and tells the broker, whose coordination follows.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Protocol

from agents.broker.controller_link import ControllerLink
from agents.broker.convert import SetReplica
from agents.config import BrokerConfig
from agents.ha import acting
from agents.ha.acting import ControllerAnswer, SetView, Verdict, Why
from agents.ha.replica import Replica
from agents.ha.role import Position, Role
from mqbase.client import AgentClient
from mqbase.clock import Clock, monotonic_ms, wall_ms
from mqbase.errors import MqError
from mqbase.proto import agent_pb2
from mqbase.security import ClientSecurity

log = logging.getLogger(__name__)

PEER_TIMEOUT_S = 1.0
"""How long an acting check waits for a peer replica's agent (ListBrokers) while the controllers are unreachable."""


class Member(Protocol):
    """What the shell needs of its broker (``ReplicasManager``)."""

    config: BrokerConfig
    replica: Replica | None
    broker_id: int

    def position(self) -> Position: ...
    def coordination_changed(self) -> None:
        """A verdict was given: the broker's coordination (queue locks, take-back) follows it."""


class ActingShell:
    """The acting verdict of one replica and what it was decided on (the worker thread writes; anyone reads)."""

    def __init__(self, member: Member, link: ControllerLink, clock: Clock, security: ClientSecurity) -> None:
        self._member = member
        self._link = link
        self._clock = clock
        self._security = security
        self._lock = threading.Lock()  # guards the verdict and its start
        self.answer: ControllerAnswer | None = None
        """The controller's last answer on the set (its master, when it came)."""
        self.peers: dict[int, str] = {}
        """The set's registered replicas, id → agent address, as last learnt (also the lock quorum's replicas)."""
        self.alive: frozenset[int] = frozenset()
        self._alive_for: tuple[Position, bool] | None = None  # the role and verdict `alive` was learnt in
        self._agent_sighting_ms: int | None = None  # when a peer's agent last reported master (monotonic)
        self._verdict = Verdict(False, None, Why.DISABLED)
        self._since_ms = 0
        self.episodes = 0
        """How many times this replica started acting since the agent started."""

    def _name(self) -> str:
        c = self._member.config
        return f"{c.broker_cluster_name}/{c.broker_name}"

    @property
    def acting(self) -> bool:
        """Whether this replica acts as its set's read-only master now (sends are still refused)."""
        with self._lock:
            return self._verdict.act

    @property
    def since_ms(self) -> int:
        """When this replica started acting (wall clock); 0 while it does not."""
        with self._lock:
            return self._since_ms if self._verdict.act else 0

    def answered(self, master_id: int | None) -> None:
        """The controller answered on the set now."""
        self.answer = ControllerAnswer(master_id, monotonic_ms(self._clock))

    def alive_peers(self) -> Mapping[int, str] | None:
        """The set's other replicas known alive, id → agent address (what a pre-online asks); None until they were
        learnt in the current role and acting verdict (a replica that started or stopped since may hold changes)."""
        peers, alive = self.peers, self.alive
        if self._alive_for != (self._member.position(), self.acting):
            return None
        return {i: a for i, a in peers.items() if i in alive and i != self._member.broker_id}

    def watching(self) -> bool:
        """Whether the check runs now rather than at the next metadata poll (``acting.watches``)."""
        replica = self._member.replica
        if replica is None:
            return False
        slave = replica.slave
        up = slave is not None and slave.connected
        return acting.watches(self._member.config.acting_policy, self._member.position().role, up, self.acting)

    def check(self, *, reachable: bool) -> None:
        """Learn who of the set is alive (the controller's alive flags, else the peers' agents), then decide."""
        config = self._member.config
        if self._member.replica is None or (not config.enable_slave_acting_master and not self.acting):
            return  # off: no look-ups (a switch to off still stops an acting replica, below)
        if config.enable_slave_acting_master:
            self.learn_alive(reachable)
        self.decide(reachable=reachable)

    def learn_alive(self, reachable: bool) -> None:
        """The set's alive ids: the controller's flags (and the replicas' addresses, for when it is gone), else the
        peers whose agents answer now (one that reports master is a sighting)."""
        own = self._member.broker_id
        learnt_for = (self._member.position(), self.acting)
        replicas = self.learn_replicas() if reachable else None
        if replicas is not None:
            self.alive = frozenset(r.broker_id for r in replicas if r.alive) | {own}
            self._alive_for = learnt_for
            return
        alive = {own}
        for broker_id, address in self.peers.items():
            if broker_id == own:
                continue
            role = self._peer_role(broker_id, address)
            if role is not None:
                alive.add(broker_id)
            if role is Role.MASTER:
                self._agent_sighting_ms = monotonic_ms(self._clock)
        self.alive = frozenset(alive)
        self._alive_for = learnt_for

    def learn_replicas(self) -> tuple[SetReplica, ...] | None:
        """Ask the controller for the set's registered replicas and keep their agent addresses (`peers`); without an
        answer the last ones learnt stay."""
        replicas = self._link.set_replicas(self._member.config.broker_name)
        if replicas is not None:
            self.peers = {r.broker_id: r.address for r in replicas}
        return replicas

    def _peer_role(self, broker_id: int, address: str) -> Role | None:
        """The role a peer replica's agent reports for it; None when the agent does not answer or hosts it not
        (a broker that failed to start is listed with id -1)."""
        try:
            with AgentClient(timeout=PEER_TIMEOUT_S, security=self._security) as client:
                response = client.call(address, "ListBrokers", agent_pb2.ListBrokersRequest())
        except MqError:
            return None
        for b in response.brokers:
            if b.broker_name == self._member.config.broker_name and b.broker_id == broker_id:
                return Role(b.role)  # fenced counts: alive, restarted while the set had no master
        return None

    def decide(self, *, reachable: bool) -> None:
        """Ask ``acting.decide`` with this replica's view now; log and record a start or a stop."""
        member, config = self._member, self._member.config
        replica = member.replica
        slave = replica.slave if replica is not None else None
        heard = None if slave is None or slave.last_heard is None else int(slave.last_heard * 1000)
        sightings = [t for t in (heard, self._agent_sighting_ms) if t is not None]
        view = SetView(
            member.broker_id, member.position().role, self.answer, reachable, max(sightings, default=None), self.alive,
            replicas_known=bool(self.peers),
        )  # fmt: skip
        verdict = acting.decide(view, monotonic_ms(self._clock), config.acting_policy)
        with self._lock:
            before, self._verdict = self._verdict, verdict
            if verdict.act and not before.act:
                self._since_ms = wall_ms(self._clock)
                self.episodes += 1
            elif before.act and not verdict.act:
                self._since_ms = 0
        if verdict.act != before.act and config.enable_slave_acting_master:
            self.learn_alive(reachable)  # for the pre-online of the coordinator that takes over
        member.coordination_changed()
        if verdict.act and not before.act:
            log.warning("%s: broker %d acts as the read-only master: %s (alive %s)",
                        self._name(), member.broker_id, verdict.why.value, sorted(self.alive))  # fmt: skip
        elif before.act and not verdict.act:
            why = verdict.why.value
            if verdict.expected is not None and verdict.expected != member.broker_id:
                why = f"broker {verdict.expected} is the smallest alive id now"
            log.info("%s: broker %d stops acting as master: %s", self._name(), member.broker_id, why)
