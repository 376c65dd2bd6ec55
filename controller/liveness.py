"""Failure detection on one controller node: the live table, expiry, and election triggers.

Three ways a master is found dead, fastest first:

1. its heartbeat stream breaks (process crash, TCP reset): ``stream_closed``;
2. its heartbeats stop (hang, partition): ``expire`` every ``scanNotActiveBrokerInterval``;
3. the leader-only scan every ``scanInactiveMasterInterval`` finds a set whose
   master is not in the live table while another member is (the backstop,
   e.g. after a controller restart). The scan waits one default heartbeat
   timeout after this node started, so an empty table is never read as
   "every master is dead".

Only the leader acts; followers keep their tables current for when they lead. Every time read here comes
from the node's injected clock.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from controller.heartbeat import DEFAULT_HEARTBEAT_TIMEOUT_MS, BrokerKey, Heartbeat, LiveTable, address_conflict
from controller.model import AliveView, Clock
from controller.proposer import Proposer
from controller.raft import RaftNode
from controller.requests import ElectMasterRequest, Result
from controller.state import scan_need_reelect
from mqbase.codes import ResponseCode as C

log = logging.getLogger(__name__)

NEVER = float("-inf")
"""The last run of a periodic scan that has not run yet: it is due at once."""


def due(next_at: float, now: float, interval_s: float) -> tuple[bool, float]:
    """(whether a periodic scan runs at `now`, when it is due next): every `interval_s` from its last run."""
    return (True, now + interval_s) if now >= next_at else (False, next_at)


class Liveness:
    """The node's live table behind a lock, with an injected monotonic clock."""

    def __init__(self, clock: Clock, on_inactive: Callable[[BrokerKey, str], None]) -> None:
        self._clock = clock
        self._table = LiveTable()
        self._lock = threading.Lock()
        self._on_inactive = on_inactive
        self.started_at = clock()

    def beat(self, hb: Heartbeat) -> str | None:
        """Record `hb`, unless its id is alive at another address: then nothing changes and that address is
        returned (``address_conflict``)."""
        with self._lock:
            now = self._clock()
            taken = address_conflict(self._table.get((hb.broker_name, hb.broker_id)), hb, now)
            if taken is None:
                self._table.beat(hb, now)
        return taken

    def stream_closed(self, key: BrokerKey, address: str) -> None:
        """The broker's heartbeat stream from `address` ended: it is inactive now, not after its timeout."""
        with self._lock:
            entry = self._table.remove(key, address)
        if entry is not None:
            self._on_inactive(key, "heartbeat stream closed")

    def expire(self) -> None:
        """Drop brokers whose heartbeat timeout has passed and report them inactive."""
        with self._lock:
            dead = self._table.expire(self._clock())
        for key, _entry in dead:
            self._on_inactive(key, "heartbeat timed out")

    def alive_view(self) -> AliveView:
        with self._lock:
            return self._table.alive_view(self._clock())

    def warmed_up(self) -> bool:
        """True once the table has had a full default heartbeat timeout to fill."""
        return self._clock() - self.started_at >= DEFAULT_HEARTBEAT_TIMEOUT_MS / 1000.0


class Elector:
    """Controller-triggered elections with retries, one in flight per broker set."""

    def __init__(self, raft: RaftNode, proposer: Proposer, max_retries: Callable[[], int]) -> None:
        self._raft = raft
        self._proposer = proposer
        self._max_retries = max_retries
        self._in_flight: set[str] = set()
        self._lock = threading.Lock()
        self._stopped = False

    def stop(self) -> None:
        """Ignore inactivity from now on: on shutdown every stream closes, and none of that is a failure."""
        self._stopped = True

    def on_inactive(self, key: BrokerKey, why: str) -> None:
        """A broker went inactive: re-elect its set if it was the master (leader only)."""
        broker_name, broker_id = key
        log.info("broker %s/%d inactive: %s", broker_name, broker_id, why)
        if self._stopped or not self._raft.is_leader():
            return
        bs = self._raft.state.get(broker_name)
        if bs is not None and bs.master_id == broker_id:
            self.trigger(broker_name)

    def scan(self, alive: AliveView) -> list[str]:
        """Trigger elections for every set whose master is dead; returns their names."""
        names = scan_need_reelect(self._raft.state, alive)
        for name in names:
            self.trigger(name)
        return names

    def trigger(self, broker_name: str) -> None:
        with self._lock:
            if broker_name in self._in_flight:
                return
            self._in_flight.add(broker_name)
        self._attempt(broker_name, 1)

    def _attempt(self, broker_name: str, attempt: int) -> None:
        request = ElectMasterRequest(cluster_name="", broker_name=broker_name)
        future = self._proposer.submit(request)
        future.add_done_callback(lambda f: self._done(broker_name, attempt, f))

    def _done(self, broker_name: str, attempt: int, future: Future[Result[Any]]) -> None:
        result = future.result()
        # Only an unknown commit outcome is worth retrying; every other code is the answer.
        if result.code == C.SYSTEM_ERROR and attempt < self._max_retries():
            log.warning("election of %s: %s; retrying (%d)", broker_name, result.remark, attempt + 1)
            self._attempt(broker_name, attempt + 1)
            return
        with self._lock:
            self._in_flight.discard(broker_name)
        level = logging.DEBUG if result.code == C.SUCCESS else logging.INFO  # success is logged by the notifier
        log.log(level, "controller-triggered election of %s: %s %s", broker_name, result.code.name, result.remark)
