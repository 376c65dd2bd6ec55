"""The broker sets of the agent's cluster as the access point sees them: each set's current master (from the
controllers), refreshed on a thread of its own every ``REFRESH_S`` and at once when a held request asks
(``nudge``). Topics and groups come from the hosted brokers' tables, which the controllers keep current.

A set with no master, or every set while the controllers do not answer, is also asked of its replicas' agents:
which one is master, which one acts as master (RIP-32, ``routes.from_reports``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from typing import Protocol

from agents.access.routes import BrokerSet, ReplicaReport, from_reports
from agents.broker.api import BrokerApi
from agents.config import BrokerConfig
from agents.metadata import MetadataTable
from mqbase.client import AgentClient, ControllerClient
from mqbase.clock import Clock
from mqbase.errors import MqError
from mqbase.proto import agent_pb2 as apb
from mqbase.proto import controller_pb2 as cpb
from mqbase.security import ClientSecurity

log = logging.getLogger(__name__)

REFRESH_S = 2.0
EPISODE_REFRESH_S = 0.5
"""While a set has no master (RIP-32, a failover), the sets are read this often: its master's return makes its
queues writable again, and producers that start then see read-only queues until the next read."""
NUDGE_MIN_S = 0.2
"""A held request asks for a refresh at most this often, whichever request asks."""
RPC_TIMEOUT_S = 2.0


class Rereads(Protocol):
    def reread(self, *, limited: bool = True) -> bool: ...


class Hosted(Protocol):
    """A broker this agent hosts, as the access point needs it (``ReplicasManager``)."""

    config: BrokerConfig

    @property
    def api(self) -> BrokerApi: ...
    @property
    def metadata(self) -> MetadataTable: ...
    @property
    def acting(self) -> bool: ...
    @property
    def topics(self) -> Rereads: ...


class Managers(Protocol):
    """What the view needs of the agent: its hosted brokers (with their config files)."""

    def managers(self) -> Iterable[tuple[str, Hosted]]: ...


class Cluster:
    """See the module docstring."""

    def __init__(self, host: Managers, security: ClientSecurity, clock: Clock) -> None:
        self._host = host
        self._clock = clock
        self._security = security
        self._sets: tuple[BrokerSet, ...] = ()
        self._replicas: dict[str, tuple[str, ...]] = {}
        """A set's name → its replicas' agent API addresses, as the controllers last listed them."""
        self._wanted = threading.Event()
        self._stopped = threading.Event()
        self._last = 0.0
        self._thread = threading.Thread(target=self._run, name="access-cluster", daemon=True)
        self._controllers: ControllerClient | None = None
        self._agents = AgentClient(RPC_TIMEOUT_S, security)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Also after a start that never came (the access point could not bind its port)."""
        self._stopped.set()
        self._wanted.set()
        if self._thread.ident is not None:
            self._thread.join(RPC_TIMEOUT_S * 3)
        self._agents.close()
        if self._controllers is not None:
            self._controllers.close()

    def sets(self) -> tuple[BrokerSet, ...]:
        """The broker sets as last read, by name."""
        return self._sets

    def master(self, broker_name: str) -> str:
        """The agent API address of the set's master as last read ("" if none or unknown)."""
        return next((s.master_address for s in self._sets if s.name == broker_name), "")

    def known(self, broker_name: str) -> bool:
        """Whether the controllers name a broker set `broker_name` (with a master now or not)."""
        return any(s.name == broker_name for s in self._sets)

    def consumer_target(self, broker_name: str) -> str:
        """Where the set's consumer calls go: its master, else the replica acting as master (RIP-32), else ""."""
        found = next((s for s in self._sets if s.name == broker_name), None)
        return "" if found is None else found.master_address or found.acting_address

    def nudge(self) -> None:
        """Ask for a refresh now (a held request: the master may have changed)."""
        self._wanted.set()

    def hosted(self) -> list[Hosted]:
        return [m for _, m in self._host.managers()]

    def metadata(self) -> MetadataTable:
        """The newest topics-and-groups table among the hosted brokers (empty when none hosted)."""
        return max((m.metadata for m in self.hosted()), key=lambda t: t.version, default=MetadataTable())

    def reread_metadata(self) -> MetadataTable:
        """The table after one (rate-limited) re-read by a hosted broker: a topic may be newer than the table."""
        for manager in self.hosted():
            try:
                manager.topics.reread(limited=True)
            except MqError as exc:
                log.debug("metadata re-read failed: %s", exc)
            break
        return self.metadata()

    def cluster_name(self) -> str:
        return next((m.config.broker_cluster_name for m in self.hosted()), "")

    def _run(self) -> None:
        while not self._stopped.is_set():
            wait = max(0.0, self._last + NUDGE_MIN_S - self._clock.monotonic())
            if wait:
                time.sleep(wait)
            self._last = self._clock.monotonic()
            try:
                self.refresh()
            except MqError as exc:
                log.warning("access point: cannot read the broker sets: %s", exc)
            except Exception:
                log.exception("access point: reading the broker sets failed")
            self._pause(self._period())
            self._wanted.clear()

    def _period(self) -> float:
        """How long until the next read: soon while nothing is known (start-up), sooner while a set has no master."""
        if not self._sets:
            return NUDGE_MIN_S
        return REFRESH_S if all(s.master_address for s in self._sets) else EPISODE_REFRESH_S

    def _pause(self, seconds: float) -> None:
        """Wait for a nudge, `seconds` at most; a hosted replica starting or stopping to act ends it sooner (its
        set's route changes: producers must route around it, consumers may receive from it)."""
        seen = self._hosted_acting()
        deadline = self._clock.monotonic() + seconds
        while not self._wanted.wait(min(NUDGE_MIN_S, max(0.0, deadline - self._clock.monotonic()))):
            if self._clock.monotonic() >= deadline or self._hosted_acting() != seen:
                return

    def _hosted_acting(self) -> frozenset[str]:
        """The sets a replica hosted here acts as read-only master for."""
        return frozenset(m.config.broker_name for m in self.hosted() if m.acting)

    def refresh(self) -> None:
        """Read every set's master and replicas from the controllers, and the access points of new replicas."""
        managers = self.hosted()
        if not managers:
            return
        acting = {m.config.broker_name: m.config.broker_address for m in managers if m.acting}
        if acting:  # known here without asking: its route changes now, not after the controllers' call times out
            self._sets = tuple(BrokerSet(s.name, "", acting[s.name]) if s.name in acting else s for s in self._sets)
        addresses = sorted({a for m in managers for a in m.config.controller_addr})
        if self._controllers is None or self._controllers.addresses != addresses:
            self._controllers = ControllerClient(addresses, RPC_TIMEOUT_S, self._security)
        request = cpb.GetSyncStateDataRequest(cluster_name=managers[0].config.broker_cluster_name, all_broker_sets=True)
        try:
            response = self._controllers.call("GetSyncStateData", request)
        except MqError:
            # No controller answers: the sets known keep their access points; their replicas say who leads.
            self._sets = tuple(from_reports(s, self._reports(s.name), controller_answered=False) for s in self._sets)
            raise
        if response.code != 0:
            log.warning("access point: GetSyncStateData answered %d %s", response.code, response.remark)
            return
        sets = []
        for info in sorted(response.replicas_info, key=lambda i: i.broker_name):
            replicas = [r.broker_address for r in (*info.in_sync_replicas, *info.not_in_sync_replicas)]
            self._replicas[info.broker_name] = tuple(a for a in replicas if a)
            master = info.master_address if info.HasField("master_address") else ""
            known = BrokerSet(info.broker_name, master)
            sets.append(known if master else from_reports(known, self._reports(known.name), controller_answered=True))
        self._sets = tuple(sets)

    def _reports(self, broker_name: str) -> list[ReplicaReport]:
        """What the agents of the set's replicas that answer now say of them."""
        out: list[ReplicaReport] = []
        for address in self._replicas.get(broker_name, ()):
            answer = self._list(address)
            if answer is None:
                continue
            out.extend(
                ReplicaReport(address, b.role, b.acting_master)
                for b in answer.brokers
                if b.broker_name == broker_name and b.broker_address == address
            )
        return out

    def _list(self, broker_address: str) -> apb.ListBrokersResponse | None:
        """The agent's ListBrokers; None when it is down (asked again at the next refresh)."""
        try:
            answer: apb.ListBrokersResponse = self._agents.call(broker_address, "ListBrokers", apb.ListBrokersRequest())
        except MqError:
            return None
        return answer
