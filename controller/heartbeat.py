"""The broker live table a controller node keeps from heartbeats (Java's ``DefaultBrokerHeartbeatManager``).

Every node (leader or follower) keeps its own table; it is not replicated.
Brokers heartbeat every controller node, so a new leader already knows who
is alive. The table takes ``now`` from its caller (an injected clock) and
starts no threads; the daemon owns the lock and the scan schedule.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from controller.model import AliveView, LiveInfo

DEFAULT_HEARTBEAT_TIMEOUT_MS = 10_000
"""Expiry used when a heartbeat does not say (``DEFAULT_BROKER_CHANNEL_EXPIRED_TIME``)."""

BrokerKey = tuple[str, int]
"""``(brokerName, brokerId)``."""


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """One heartbeat, with Java's defaults for the nullable fields."""

    cluster_name: str
    broker_name: str
    broker_id: int
    broker_address: str
    epoch: int = -1
    max_offset: int = -1
    confirm_offset: int = -1
    heartbeat_timeout_ms: int = DEFAULT_HEARTBEAT_TIMEOUT_MS
    election_priority: int = 2**31 - 1
    async_learner: bool = False


@dataclass(frozen=True, slots=True)
class LiveEntry:
    """A table row: what the broker last said, and when."""

    cluster_name: str
    info: LiveInfo
    last_update: float
    timeout_s: float

    def alive_at(self, now: float) -> bool:
        return self.last_update + self.timeout_s >= now


def merge(old: LiveEntry | None, hb: Heartbeat, now: float) -> LiveEntry:
    """Fold a heartbeat into a row.

    Address, timeout, priority and learner flag always refresh; epoch, maxOffset
    and confirmOffset move only forward: a higher epoch, or the same epoch with
    a higher maxOffset (so a reordered beat never makes a broker look behind).
    """
    fresh = LiveInfo(
        broker_address=hb.broker_address,
        epoch=hb.epoch,
        max_offset=hb.max_offset,
        confirm_offset=hb.confirm_offset,
        election_priority=hb.election_priority,
        async_learner=hb.async_learner,
    )
    if old is not None:
        o = old.info
        newer = hb.epoch > o.epoch or (hb.epoch == o.epoch and hb.max_offset > o.max_offset)
        if not newer:
            fresh = replace(fresh, epoch=o.epoch, max_offset=o.max_offset, confirm_offset=o.confirm_offset)
    return LiveEntry(hb.cluster_name, fresh, now, hb.heartbeat_timeout_ms / 1000.0)


def address_conflict(old: LiveEntry | None, hb: Heartbeat, now: float) -> str | None:
    """The address `hb`'s broker id is alive at, when that is not the address `hb` comes from; else None.

    A second process beating with a registered id (a copy of the broker's store) must not move the id's address,
    nor take over its role-change stream, while the broker holding it still beats: the same rule as RegisterBroker's
    (``state.address_taken``). Once the old row is expired or removed (its stream closed), the new address is taken.
    """
    if old is None or not old.alive_at(now) or not old.info.broker_address or not hb.broker_address:
        return None
    return old.info.broker_address if old.info.broker_address != hb.broker_address else None


class LiveTable:
    """Mutable map of broker key → ``LiveEntry``; callers serialise access."""

    def __init__(self) -> None:
        self._rows: dict[BrokerKey, LiveEntry] = {}

    def beat(self, hb: Heartbeat, now: float) -> bool:
        """Record a heartbeat; True when the broker was not in the table before."""
        key = (hb.broker_name, hb.broker_id)
        old = self._rows.get(key)
        self._rows[key] = merge(old, hb, now)
        return old is None

    def remove(self, key: BrokerKey, address: str) -> LiveEntry | None:
        """Forget a broker whose stream from `address` broke; returns the row it had. A row another address wrote
        since is not this stream's and stays."""
        row = self._rows.get(key)
        if row is None or row.info.broker_address != address:
            return None
        return self._rows.pop(key)

    def expire(self, now: float) -> list[tuple[BrokerKey, LiveEntry]]:
        """Remove and return the rows whose timeout has passed."""
        dead = [(k, e) for k, e in self._rows.items() if not e.alive_at(now)]
        for key, _ in dead:
            del self._rows[key]
        return dead

    def alive_view(self, now: float) -> AliveView:
        """The alive brokers' info: the liveness facts the leader decides with."""
        return {k: e.info for k, e in self._rows.items() if e.alive_at(now)}

    def get(self, key: BrokerKey) -> LiveEntry | None:
        return self._rows.get(key)

    def __len__(self) -> int:
        return len(self._rows)

    def active_count(self, now: float) -> int:
        return sum(1 for e in self._rows.values() if e.alive_at(now))
