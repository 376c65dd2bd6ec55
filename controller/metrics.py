"""Prometheus metrics of one controller node, served over HTTP when ``metricsExporterType=PROM``.

Each node owns its ``CollectorRegistry``, never the process-global one, so several nodes can share a test process.
The registry still carries the standard ``process_*`` collector (CPU, memory, open files of this process) and a
``<program>_build_info`` gauge, so a dashboard sees restarts, leaks and versions. Gauges are read from the live
node at scrape time, so a scrape never shows a stale value. Counters and the request histogram are updated where
the events happen: elections by a proposer listener (committed decisions on the leader only), requests by the gRPC
interceptor in ``controller.service``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from prometheus_client import Counter, Histogram
from prometheus_client.metrics_core import GaugeMetricFamily, Metric

from controller.requests import ElectMasterRequest, Request, Result
from mqbase.codes import ResponseCode as C
from mqbase.metrics import MetricsEndpoint

ROLES = ("leader", "follower", "candidate")

ELECTION_RESULTS = ("new_master", "kept", "none")
_ELECTION_BY_CODE = {
    C.SUCCESS: "new_master",
    C.CONTROLLER_MASTER_STILL_EXIST: "kept",
    C.CONTROLLER_MASTER_NOT_AVAILABLE: "none",  # controller trigger; clears the master if there was one
    C.CONTROLLER_ELECT_MASTER_FAILED: "none",  # broker or admin trigger
}


@dataclass(frozen=True, slots=True)
class NodeSample:
    """What the gauges show, read from the node in one go at scrape time."""

    role: str
    term: int
    commit_index: int
    active_brokers: int
    broker_sets: int


def election_outcome(request: Request, result: Result[Any]) -> str | None:
    """The ``result`` label of an answered ElectMaster, or None when no election was decided.

    NOT_LEADER, unknown sets and commit failures are not elections.
    """
    if not isinstance(request, ElectMasterRequest):
        return None
    return _ELECTION_BY_CODE.get(result.code)


class _NodeCollector:
    """Builds the gauges from a fresh ``NodeSample`` on every scrape."""

    def __init__(self, sample: Callable[[], NodeSample]) -> None:
        self._sample = sample

    def collect(self) -> Iterator[Metric]:
        s = self._sample()
        role = GaugeMetricFamily("mqcontroller_role", "1 for this node's current Raft role.", labels=["role"])
        for name in ROLES:
            role.add_metric([name], 1.0 if s.role == name else 0.0)
        yield role
        yield GaugeMetricFamily("mqcontroller_raft_term", "Current Raft term.", value=s.term)
        yield GaugeMetricFamily("mqcontroller_raft_commit_index", "Raft commit index.", value=s.commit_index)
        yield GaugeMetricFamily(
            "mqcontroller_active_brokers", "Alive brokers in this node's heartbeat table.", value=s.active_brokers
        )
        yield GaugeMetricFamily("mqcontroller_broker_sets", "Broker sets in the controller state.", value=s.broker_sets)


class ControllerMetrics(MetricsEndpoint):
    """The metrics of one node and their HTTP endpoint."""

    def __init__(self, sample: Callable[[], NodeSample]) -> None:
        super().__init__("mqcontroller")
        self.registry.register(_NodeCollector(sample))
        self._elections = Counter(
            "mqcontroller_elections", "Elections decided and committed by this node as leader, by outcome.",
            ["result"], registry=self.registry,
        )  # fmt: skip
        for result in ELECTION_RESULTS:
            self._elections.labels(result=result)  # export zeros before the first election
        self._request_seconds = Histogram(
            "mqcontroller_request_seconds", "Time to answer a unary ControllerService RPC.", ["method"],
            registry=self.registry,
        )  # fmt: skip
        self._requests = Counter(
            "mqcontroller_requests", "Unary ControllerService RPCs by response code.", ["method", "code"],
            registry=self.registry,
        )  # fmt: skip

    def on_result(self, request: Request, result: Result[Any]) -> None:
        """Proposer listener: count each decided election by outcome."""
        outcome = election_outcome(request, result)
        if outcome is not None:
            self._elections.labels(result=outcome).inc()

    def observe_request(self, method: str, code: str, seconds: float) -> None:
        """Record one RPC; ``code`` is the RocketMQ response code, or ``error`` when the handler raised."""
        self._request_seconds.labels(method=method).observe(seconds)
        self._requests.labels(method=method, code=code).inc()
