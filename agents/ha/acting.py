"""RIP-32's slave acting master in controller mode: whether this replica acts as its set's read-only master now.

A broker set can be left without a master the controller can elect (every SyncStateSet member down with unclean
election off), or without a controller to elect one (the group unreachable when the master dies). Then the alive
replica with the smallest broker id serves as a read-only master: clients consume from it up to its confirmOffset,
it runs the set's master-only background services, and whatever those must write escapes to another set's master
(`escape_target`; ``agents.consumer.pre_online`` takes it back). It never writes its own log.

"No master" is decided from what the replica knows, with the clock passed in:

* *controller reachable*: its last answer (a push or a GetReplicaInfo poll) decides, unless a master was seen
  alive after that answer (a newer master the answer has not caught up with yet);
* *controller unreachable*: the last evidence of a master, a sighting or an answer naming one, is older than
  ``brokerNotActiveTimeoutMillis`` (Java's name server expiry in acting mode, the same 10 s).

Every replica that shares a view picks the same actor, the smallest id of the alive replicas, so at most one acts
per consistent view; the actor stops at the first evidence of a master. Views can briefly differ (a lower id comes
back and one replica learns it first); the overlap is harmless for reads, and queue locks are protected by
``agents.consumer.locks``' quorum, not by this choice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from agents.ha.role import Role

BROKER_NOT_ACTIVE_TIMEOUT_MS = 10_000
"""Java's ``brokerNotActiveTimeoutMillis``: how long a master unseen (with no controller to ask) counts as alive."""


@dataclass(frozen=True, slots=True)
class ActingPolicy:
    """The broker's RIP-32 keys (Java's names)."""

    enable_slave_acting_master: bool = False
    broker_not_active_timeout_ms: int = BROKER_NOT_ACTIVE_TIMEOUT_MS


@dataclass(frozen=True, slots=True)
class ControllerAnswer:
    """The controller's last word on the set (pushed or polled): its master, None for none, and when it came."""

    master_id: int | None
    received_ms: int


@dataclass(frozen=True, slots=True)
class SetView:
    """What one replica knows of its broker set when it decides."""

    broker_id: int
    role: Role
    answer: ControllerAnswer | None
    """None: the controller never answered this replica since it started."""
    controller_reachable: bool
    master_seen_ms: int | None
    """When a master of the set was last seen alive (its HA stream, its agent's answer); None: never."""
    alive_replicas: frozenset[int]
    """The set's replicas known alive (the controller's member list with its alive flags, or the agents asked
    directly while it is unreachable), this one included when alive."""
    replicas_known: bool = True
    """Whether a controller listed the set's registered replicas to this replica since it started: without them it
    cannot tell whether a smaller id is alive."""


class Why(Enum):
    """Why a verdict is what it is (the log line's words)."""

    DISABLED = "enableSlaveActingMaster is false"
    MASTER_REPORTED = "the controller reports a master"
    MASTER_SEEN = "a master was seen alive"
    CONTROLLER_REPORTS_NONE = "the controller reports no master"
    MASTER_LOST = "the controller is unreachable and no master was seen for brokerNotActiveTimeoutMillis"
    REPLICAS_UNKNOWN = "no master, but no controller listed the set's replicas since this replica started"


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether this replica acts now, and which replica the view expects to (None while a master exists)."""

    act: bool
    expected: int | None
    why: Why


def master_missing(view: SetView, now_ms: int, policy: ActingPolicy) -> Why:
    """Why the view holds a master (MASTER_REPORTED, MASTER_SEEN) or why it holds none (the other two)."""
    answer, seen, bound = view.answer, view.master_seen_ms, policy.broker_not_active_timeout_ms
    if view.controller_reachable and answer is not None:
        if answer.master_id is not None:
            return Why.MASTER_REPORTED
        if seen is not None and seen > answer.received_ms:
            return Why.MASTER_SEEN
        return Why.CONTROLLER_REPORTS_NONE
    if answer is not None and answer.master_id is not None and now_ms - answer.received_ms < bound:
        return Why.MASTER_REPORTED
    if seen is not None and now_ms - seen < bound:
        return Why.MASTER_SEEN
    return Why.MASTER_LOST


def decide(view: SetView, now_ms: int, policy: ActingPolicy) -> Verdict:
    """Act iff enabled, the view holds no master, this replica knows its set's replicas, is not master and has the
    smallest alive id.

    A replica that is not master is a slave, or one fenced since it started: it registered while the set had no
    master to follow (a restart during the episode) and holds its log as it was, with the confirmOffset its
    checkpoint kept. It serves no more than that confirmOffset, what its last master had confirmed: with
    ``allAckInSyncStateSet`` every SyncStateSet member held it, so any master elected later holds it too and
    nothing it serves is cut later (without, a master confirms alone and a later one may lack its tail, as it
    may lack any message acknowledged in that mode)."""
    if not policy.enable_slave_acting_master:
        return Verdict(False, None, Why.DISABLED)
    why = master_missing(view, now_ms, policy)
    if why in (Why.MASTER_REPORTED, Why.MASTER_SEEN):
        return Verdict(False, None, why)
    if not view.replicas_known:  # it would count itself the smallest alive id and act beside the chosen one
        return Verdict(False, None, Why.REPLICAS_UNKNOWN)
    expected = min(view.alive_replicas, default=None)
    act = expected == view.broker_id and view.role is not Role.MASTER
    return Verdict(act, expected, why)


def watches(policy: ActingPolicy, role: Role, master_stream_up: bool, acting: bool) -> bool:
    """Whether a replica checks for acting every ``CHECK_S`` rather than at the metadata period: the feature is on
    and it is not master, and its master's HA stream is down (the master may be gone: a verdict is due within a
    second of the bound) or it acts (it stops within a second of a new master)."""
    return policy.enable_slave_acting_master and role is not Role.MASTER and (not master_stream_up or acting)


CHECK_S = 0.5
"""How often a watching replica (`watches`) checks."""


def may_have_been_replaced(gap_ms: int, policy: ActingPolicy) -> bool:
    """Whether a master that ran nothing for `gap_ms` (a process pause, a stalled host) may have been unseen long
    enough for a slave to act meanwhile, so that it must take its set's state back again before it serves: half of
    ``brokerNotActiveTimeoutMillis``, since a slave's last sighting may predate the gap by a heartbeat or more."""
    return policy.enable_slave_acting_master and gap_ms * 2 >= policy.broker_not_active_timeout_ms


def escape_target(home: str, local: Iterable[str], serving: Iterable[str]) -> str | None:
    """The broker set an acting replica of `home` sends what it must write to: one whose master the same agent
    hosts (RIP-31's local escape, no RPC), else the smallest name among the cluster's sets that have a master, so
    one set's escapes gather in few places; None when no other set has a master (the write waits)."""
    nearby = set(local) - {home}
    return min(nearby or set(serving) - {home}, default=None)
