"""Controller metrics: scrape-time gauges, election outcomes, the request interceptor, the HTTP endpoint."""

from __future__ import annotations

import platform
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import grpc
import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from agents.broker.metrics import AgentMetrics
from controller.config import ConfigError, ControllerConfig, to_properties, validate, with_overrides
from controller.events import ElectMaster
from controller.metrics import ControllerMetrics, NodeSample, election_outcome
from controller.requests import ElectMasterRequest, GetNextBrokerIdRequest, Request, Result
from controller.service import SERVICE_NAME, RequestMetrics
from mqbase import __version__
from mqbase.codes import ResponseCode as C
from mqbase.metrics import MetricsEndpoint
from mqbase.proto import controller_pb2 as pb
from tests.harness import aio
from tests.harness.processes import taken_port

BASE = {"controllerPeers": "n0-127.0.0.1:9878:9876", "controllerSelfId": "n0"}


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of an exposition, keyed by (sample name, labels)."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def scrape(metrics: MetricsEndpoint) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return samples(generate_latest(metrics.registry).decode())


def key(name: str, **labels: str) -> tuple[str, frozenset[tuple[str, str]]]:
    return name, frozenset(labels.items())


class FakeNode:
    """A node whose state the test changes between scrapes."""

    def __init__(self) -> None:
        self.sample = NodeSample(role="follower", term=1, commit_index=3, active_brokers=0, broker_sets=0)

    def __call__(self) -> NodeSample:
        return self.sample


@pytest.fixture
def node() -> FakeNode:
    return FakeNode()


@pytest.fixture
def metrics(node: FakeNode) -> Iterator[ControllerMetrics]:
    m = ControllerMetrics(node)
    yield m
    m.stop()


# --- gauges --------------------------------------------------------------------------------------


def test_gauges_are_read_from_the_node_at_every_scrape(node: FakeNode, metrics: ControllerMetrics) -> None:
    first = scrape(metrics)
    assert first[key("mqcontroller_role", role="follower")] == 1.0
    assert first[key("mqcontroller_role", role="leader")] == 0.0
    assert first[key("mqcontroller_role", role="candidate")] == 0.0
    assert first[key("mqcontroller_raft_term")] == 1.0

    node.sample = NodeSample(role="leader", term=4, commit_index=17, active_brokers=5, broker_sets=2)
    now = scrape(metrics)
    assert {r: now[key("mqcontroller_role", role=r)] for r in ("leader", "follower", "candidate")} == {
        "leader": 1.0,
        "follower": 0.0,
        "candidate": 0.0,
    }
    assert now[key("mqcontroller_raft_term")] == 4.0
    assert now[key("mqcontroller_raft_commit_index")] == 17.0
    assert now[key("mqcontroller_active_brokers")] == 5.0
    assert now[key("mqcontroller_broker_sets")] == 2.0


def test_an_unknown_raft_state_sets_no_role(node: FakeNode, metrics: ControllerMetrics) -> None:
    node.sample = NodeSample(role="unknown", term=0, commit_index=0, active_brokers=0, broker_sets=0)
    got = scrape(metrics)
    assert [got[key("mqcontroller_role", role=r)] for r in ("leader", "follower", "candidate")] == [0.0, 0.0, 0.0]


def test_each_node_has_its_own_registry(node: FakeNode) -> None:
    a, b = ControllerMetrics(node), ControllerMetrics(node)
    a.observe_request("ElectMaster", "0", 0.01)
    assert scrape(a)[key("mqcontroller_requests_total", method="ElectMaster", code="0")] == 1.0
    assert key("mqcontroller_requests_total", method="ElectMaster", code="0") not in scrape(b)


PROCESS = {
    "process_cpu_seconds_total",
    "process_resident_memory_bytes",
    "process_open_fds",
    "process_start_time_seconds",
}


@pytest.mark.parametrize(
    ("program", "make"),
    [("mqcontroller", lambda: ControllerMetrics(FakeNode())), ("mqagent", lambda: AgentMetrics(lambda: []))],
)
def test_each_program_exposes_its_process_and_build_info(program: str, make: Callable[[], MetricsEndpoint]) -> None:
    """The standard process_* collector (restarts, memory, file descriptors) and <program>_build_info, on the
    program's own registry."""
    got = scrape(make())
    assert {name for name, _ in got} >= PROCESS
    assert got[key(f"{program}_build_info", version=__version__, python=platform.python_version())] == 1.0
    assert [name for name, _ in got if name.endswith("_build_info")] == [f"{program}_build_info"]


# --- elections -----------------------------------------------------------------------------------

ELECT = ElectMasterRequest(cluster_name="c", broker_name="b", broker_id=1)
TRIGGER = ElectMasterRequest(cluster_name="", broker_name="b")


@pytest.mark.parametrize(
    ("request_", "result", "outcome"),
    [
        (ELECT, Result(C.SUCCESS, events=(ElectMaster("b", 1, 0),)), "new_master"),
        (ELECT, Result(C.CONTROLLER_MASTER_STILL_EXIST), "kept"),
        (TRIGGER, Result(C.CONTROLLER_MASTER_NOT_AVAILABLE, events=(ElectMaster("b", None, 3),)), "none"),
        (TRIGGER, Result(C.CONTROLLER_MASTER_NOT_AVAILABLE), "none"),
        (ELECT, Result(C.CONTROLLER_ELECT_MASTER_FAILED), "none"),
        (ELECT, Result(C.CONTROLLER_NOT_LEADER), None),
        (ELECT, Result(C.SYSTEM_ERROR), None),
        (ELECT, Result(C.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED), None),
        (GetNextBrokerIdRequest("c", "b"), Result(C.SUCCESS), None),
    ],
)
def test_election_outcome_by_response_code(request_: Request, result: Result[Any], outcome: str | None) -> None:
    assert election_outcome(request_, result) == outcome


def test_election_counter_starts_at_zero_and_counts_by_outcome(metrics: ControllerMetrics) -> None:
    before = scrape(metrics)
    assert [before[key("mqcontroller_elections_total", result=r)] for r in ("new_master", "kept", "none")] == [0.0] * 3
    metrics.on_result(ELECT, Result(C.SUCCESS, events=(ElectMaster("b", 1, 0),)))
    metrics.on_result(ELECT, Result(C.SUCCESS, events=(ElectMaster("b", 2, 1),)))
    metrics.on_result(ELECT, Result(C.CONTROLLER_MASTER_STILL_EXIST))
    metrics.on_result(TRIGGER, Result(C.CONTROLLER_MASTER_NOT_AVAILABLE))
    metrics.on_result(ELECT, Result(C.CONTROLLER_NOT_LEADER))
    got = scrape(metrics)
    assert got[key("mqcontroller_elections_total", result="new_master")] == 2.0
    assert got[key("mqcontroller_elections_total", result="kept")] == 1.0
    assert got[key("mqcontroller_elections_total", result="none")] == 1.0


# --- requests ------------------------------------------------------------------------------------


def test_requests_are_timed_by_method_and_counted_by_code(metrics: ControllerMetrics) -> None:
    metrics.observe_request("ElectMaster", "0", 0.002)
    metrics.observe_request("ElectMaster", "2011", 0.004)
    metrics.observe_request("GetReplicaInfo", "2007", 0.5)
    got = scrape(metrics)
    assert got[key("mqcontroller_request_seconds_count", method="ElectMaster")] == 2.0
    assert got[key("mqcontroller_request_seconds_sum", method="ElectMaster")] == pytest.approx(0.006)
    assert got[key("mqcontroller_request_seconds_bucket", method="ElectMaster", le="0.005")] == 2.0
    assert got[key("mqcontroller_request_seconds_bucket", method="GetReplicaInfo", le="0.25")] == 0.0
    assert got[key("mqcontroller_requests_total", method="ElectMaster", code="0")] == 1.0
    assert got[key("mqcontroller_requests_total", method="ElectMaster", code="2011")] == 1.0
    assert got[key("mqcontroller_requests_total", method="GetReplicaInfo", code="2007")] == 1.0


def intercept(method: str, behaviour: Any) -> tuple[list[tuple[str, str, float]], Any]:
    """Run `behaviour` as the handler of `method` through RequestMetrics; returns what it observed and the handler."""
    seen: list[tuple[str, str, float]] = []

    async def continuation(_details: Any) -> Any:
        return grpc.unary_unary_rpc_method_handler(behaviour)

    interceptor = RequestMetrics(lambda m, c, s: seen.append((m, c, s)))
    handler = aio.run(interceptor.intercept_service(continuation, SimpleNamespace(method=method)))
    return seen, handler


def test_interceptor_reports_the_method_and_the_rocketmq_code_of_the_reply() -> None:
    async def elect(_request: Any, _context: Any) -> pb.ElectMasterResponse:
        return pb.ElectMasterResponse(code=C.CONTROLLER_MASTER_STILL_EXIST)

    seen, handler = intercept(f"/{SERVICE_NAME}/ElectMaster", elect)
    reply = aio.run(handler.unary_unary(pb.ElectMasterRequest(), None))
    assert reply.code == C.CONTROLLER_MASTER_STILL_EXIST
    assert [(m, c) for m, c, _s in seen] == [("ElectMaster", "2011")]
    assert seen[0][2] >= 0.0


def test_interceptor_reports_a_raising_handler_as_error() -> None:
    async def broken(_request: Any, _context: Any) -> Any:
        raise RuntimeError("boom")

    seen, handler = intercept(f"/{SERVICE_NAME}/GetReplicaInfo", broken)
    with pytest.raises(RuntimeError, match="boom"):
        aio.run(handler.unary_unary(pb.GetReplicaInfoRequest(), None))
    assert [(m, c) for m, c, _s in seen] == [("GetReplicaInfo", "error")]


def test_interceptor_leaves_other_services_alone() -> None:
    async def check(_request: Any, _context: Any) -> Any:
        return None

    seen, handler = intercept("/grpc.health.v1.Health/Check", check)
    assert handler.unary_unary is check
    assert seen == []


# --- HTTP endpoint -------------------------------------------------------------------------------


def test_serve_on_an_ephemeral_port_then_stop_releases_it(node: FakeNode, metrics: ControllerMetrics) -> None:
    node.sample = NodeSample(role="leader", term=2, commit_index=9, active_brokers=1, broker_sets=1)
    _server, port = metrics.serve(0, "127.0.0.1")
    assert port > 0
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        got = samples(response.read().decode())
    assert got[key("mqcontroller_role", role="leader")] == 1.0
    assert got[key("mqcontroller_raft_term")] == 2.0
    metrics.stop()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5)
    metrics.stop()  # idempotent


def test_serve_on_a_port_in_use_raises_oserror(metrics: ControllerMetrics) -> None:
    with taken_port() as port, pytest.raises(OSError):
        metrics.serve(port, "127.0.0.1")


# --- configuration -------------------------------------------------------------------------------


def test_metrics_keys_default_to_the_java_values() -> None:
    props = to_properties(ControllerConfig())
    assert (props["metricsExporterType"], props["metricsPromExporterPort"]) == ("DISABLE", "5557")


def test_prom_exporter_and_port_zero_are_accepted() -> None:
    overrides = {**BASE, "metricsExporterType": "PROM", "metricsPromExporterPort": "0"}
    config = validate(with_overrides(ControllerConfig(), overrides))
    assert (config.metrics_exporter_type, config.metrics_prom_exporter_port) == ("PROM", 0)


@pytest.mark.parametrize(
    ("key_", "value", "message"),
    [
        ("metricsExporterType", "OTLP_GRPC", "metricsExporterType must be one of DISABLE, PROM"),
        ("metricsExporterType", "prom", "metricsExporterType must be one of DISABLE, PROM"),
        ("metricsPromExporterPort", "65536", "metricsPromExporterPort 65536 is out of range"),
    ],
)
def test_bad_metrics_settings_are_refused(key_: str, value: str, message: str) -> None:
    config = with_overrides(ControllerConfig(), {**BASE, key_: value})
    with pytest.raises(ConfigError, match=message):
        validate(config)
