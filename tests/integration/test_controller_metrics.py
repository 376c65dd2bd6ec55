"""Prometheus metrics of a real 3-node group: each node serves /metrics on the port its log names."""

from __future__ import annotations

import platform
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from mqadmin_py.sandbox import ControllerProcess, Sandbox
from mqbase import __version__
from mqbase.codes import ResponseCode as C
from mqbase.proto import controller_pb2 as pb
from tests.harness.controllers import CLUSTER, CONTROLLER_CONFIG, Client, FakeBroker, leader, wait_alive
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

METRICS_URL = re.compile(r"serving metrics on (http://\S+/metrics)")
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Sandbox:
    """The conftest group, with PROM metrics on ephemeral ports (overrides conftest's ``sandbox``)."""
    box = Sandbox(Path(tmp_path_factory.mktemp("controller-metrics")))
    request.addfinalizer(box.down)
    extra = {**CONTROLLER_CONFIG, "metricsExporterType": "PROM", "metricsPromExporterPort": "0"}
    box.up(controllers=3, extra_config=extra, timeout=30.0)
    return box


def metrics_url(node: ControllerProcess) -> str:
    """The URL the node logged at start (the last start, as logs are appended to)."""

    def find() -> str | None:
        found = METRICS_URL.findall(Path(node.logFile).read_text(errors="replace"))
        return found[-1] if found else None

    return wait_until(find, 10, f"{node.id} to log its metrics URL")


def scrape(node: ControllerProcess) -> Samples:
    with urllib.request.urlopen(metrics_url(node), timeout=5) as response:
        text = response.read().decode()
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_exactly_one_node_reports_the_leader_role(sandbox: Sandbox) -> None:
    leader_id = leader(sandbox).id

    def roles() -> dict[str, float] | None:
        by_node = {c.id: scrape(c) for c in sandbox.controllers()}
        leaders = {i: value(s, "mqcontroller_role", role="leader") for i, s in by_node.items()}
        # a follower reports term 0 until the leader's first append reaches it
        heard = all(value(s, "mqcontroller_raft_term") >= 1 for s in by_node.values())
        return leaders if heard and sorted(leaders.values()) == [0.0, 0.0, 1.0] else None

    leaders = wait_until(roles, 10, "exactly one node with mqcontroller_role{role='leader'} 1, every term >= 1")
    assert leaders[leader_id] == 1.0
    for c in sandbox.controllers():
        got = scrape(c)
        assert value(got, "mqcontroller_raft_term") >= 1
        assert value(got, "mqcontroller_raft_commit_index") >= 1
        assert sum(value(got, "mqcontroller_role", role=r) for r in ("leader", "follower", "candidate")) == 1.0
        assert value(got, "mqcontroller_build_info", version=__version__, python=platform.python_version()) == 1.0
        assert value(got, "process_resident_memory_bytes") > 0  # the node process's own collector


def test_election_and_requests_are_counted_on_the_leader(
    sandbox: Sandbox, client: Client, brokers: Callable[..., FakeBroker]
) -> None:
    node = leader(sandbox)
    before = scrape(node)
    broker = brokers("metrics-a")
    assert broker.broker_id is not None, "the fixture registers the broker"
    elect = pb.ElectMasterRequest(cluster_name=CLUSTER, broker_name="metrics-a", broker_id=broker.broker_id)
    won = client.call("ElectMaster", elect)
    assert won.code == C.SUCCESS, won
    wait_alive(client, "metrics-a", {broker.broker_id})  # until its beats reach the leader it counts as dead: 2012
    kept = client.call("ElectMaster", elect)
    assert kept.code == C.CONTROLLER_MASTER_STILL_EXIST, kept
    assert leader(sandbox).id == node.id, "leadership moved during the test"

    def counted() -> Samples | None:
        got = scrape(node)
        new = value(got, "mqcontroller_elections_total", result="new_master")
        kept = value(got, "mqcontroller_elections_total", result="kept")
        return got if new >= 1 and kept > value(before, "mqcontroller_elections_total", result="kept") else None

    after = wait_until(counted, 10, "the leader to count both elections")
    for method in ("GetNextBrokerId", "ApplyBrokerId", "RegisterBroker", "ElectMaster"):
        grown = value(after, "mqcontroller_request_seconds_count", method=method)
        assert grown > value(before, "mqcontroller_request_seconds_count", method=method), method
    for code in (C.SUCCESS, C.CONTROLLER_MASTER_STILL_EXIST):
        assert value(after, "mqcontroller_requests_total", method="ElectMaster", code=str(int(code))) >= 1, code
    assert value(after, "mqcontroller_broker_sets") >= 1
    wait_until(lambda: value(scrape(node), "mqcontroller_active_brokers") >= 1, 10, "the broker alive on the leader")
