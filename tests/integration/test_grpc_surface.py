"""Generic gRPC tooling works against every node: health checks, reflection, clean SIGTERM."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from mqadmin_py.sandbox import Sandbox
from mqbase.client import ControllerClient
from mqbase.errors import MqError
from tests.harness.processes import ROOT

pytestmark = [pytest.mark.integration]

SERVICE = "mqadmin.controller.v1.ControllerService"


@pytest.fixture(scope="module")
def group(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    sandbox = Sandbox(tmp_path_factory.mktemp("surface"))
    try:
        sandbox.up(controllers=3)
        yield sandbox
    finally:
        sandbox.down()


def _health(address: str, service: str) -> int:
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return int(stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=3).status)


def test_every_node_is_healthy_and_only_the_leader_serves_the_controller_service(group: Sandbox) -> None:
    leader_id = group.wait_for_leader()
    serving = health_pb2.HealthCheckResponse.SERVING
    deadline = time.monotonic() + 10
    while True:
        statuses = {c.id: (_health(c.address, ""), _health(c.address, SERVICE)) for c in group.controllers()}
        expected = {c.id: (serving, serving if c.id == leader_id else 2) for c in group.controllers()}
        if statuses == expected or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert statuses == expected


def test_reflection_lists_the_controller_health_and_reflection_services(group: Sandbox) -> None:
    address = group.controllers()[0].address
    with grpc.insecure_channel(address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        responses = list(stub.ServerReflectionInfo(iter([request]), timeout=3))
    names = {s.name for s in responses[0].list_services_response.service}
    assert {SERVICE, "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"} <= names


def test_sigterm_stops_a_node_cleanly_with_exit_code_0(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path / "single")
    sandbox.up(controllers=1)
    try:
        node = sandbox.controllers()[0]
        with ControllerClient(node.address) as client:
            assert client.metadata(node.address).is_leader
        conf = node.configFile
    finally:
        sandbox.down()
    # Run in the foreground this time so the exit status is ours to read.
    proc = subprocess.Popen(
        [sys.executable, "-m", "mqadmin_py.mqcontroller", "-c", conf], cwd=ROOT, stderr=subprocess.PIPE
    )
    try:
        sandbox_node = Sandbox(tmp_path / "single").controllers()[0]
        with ControllerClient(sandbox_node.address, timeout=1) as client:
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                with contextlib.suppress(MqError):
                    if client.metadata(sandbox_node.address).is_leader:
                        break
                time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr.decode()
    assert b"stopped" in stderr
    assert b"Traceback" not in stderr
