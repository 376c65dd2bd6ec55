"""Durability of the controller store: log compaction + restart, and damaged snapshots."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqadmin_py.sandbox import Sandbox
from mqbase.client import ControllerClient
from mqbase.proto import controller_pb2 as pb
from tests.harness.processes import ROOT

pytestmark = [pytest.mark.integration]


@pytest.fixture
def compacting_sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    sandbox = Sandbox(tmp_path / "sbx")
    # Compact after 20 entries so a short test exercises the snapshot path.
    sandbox.up(controllers=3, extra_config={"raftLogCompactionMinEntries": "20"})
    try:
        yield sandbox
    finally:
        sandbox.down()


def _apply_ids(client: ControllerClient, broker_name: str, count: int) -> None:
    for broker_id in range(1, count + 1):
        response = client.call(
            "ApplyBrokerId",
            pb.ApplyBrokerIdRequest(
                cluster_name="c",
                broker_name=broker_name,
                applied_broker_id=broker_id,
                register_check_code=f"127.0.0.1:{20000 + broker_id};1",
            ),
        )
        assert response.code == 0, response.remark


def _next_id(client: ControllerClient, broker_name: str) -> int:
    response = client.call("GetNextBrokerId", pb.GetNextBrokerIdRequest(cluster_name="c", broker_name=broker_name))
    assert response.code == 0
    return int(response.next_broker_id)


def test_state_survives_a_full_restart_after_log_compaction(compacting_sandbox: Sandbox) -> None:
    with ControllerClient(compacting_sandbox.addresses(), timeout=5) as client:
        _apply_ids(client, "compacted", 60)
    snapshots = list((compacting_sandbox.dir / "store").glob("*/raft.snapshot"))
    assert snapshots, "no node wrote a snapshot after 60 entries with compaction at 20"
    compacting_sandbox.down()
    compacting_sandbox.up(controllers=3)
    with ControllerClient(compacting_sandbox.addresses(), timeout=5) as client:
        assert _next_id(client, "compacted") == 61
        _apply_ids(client, "after-restart", 1)
        assert _next_id(client, "after-restart") == 2


def test_node_refuses_to_start_on_a_damaged_snapshot(compacting_sandbox: Sandbox) -> None:
    with ControllerClient(compacting_sandbox.addresses(), timeout=5) as client:
        _apply_ids(client, "damaged", 40)
    compacting_sandbox.down()
    node = compacting_sandbox.controllers()[0]
    snapshot = compacting_sandbox.dir / "store" / node.id / "raft.snapshot"
    assert snapshot.exists()
    snapshot.write_text('{"state": {"v": 1, "brokerSets": [{"broken": true}]}}')
    result = subprocess.run(
        [sys.executable, "-m", "mqadmin_py.mqcontroller", "-c", node.configFile],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode == 1
    assert "damaged" in result.stderr and "catch up from its peers" in result.stderr
    assert snapshot.read_text().startswith('{"state"'), "the damaged file must be left for the operator"
