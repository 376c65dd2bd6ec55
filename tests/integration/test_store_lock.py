"""One process per store: a second mqcontroller on a node's store, or a second mqagent on a broker's store, exits 1
naming the store and the pid that holds it, and the first keeps running.

Each second process gets ports of its own, so only the store is shared: before the lock both ran, and the second
agent took over the first one's broker id and registered its own address.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mqadmin_py.sandbox import Sandbox
from mqbase.properties import read_properties, write_properties_atomic
from mqbase.proto import agent_pb2 as pb
from tests.harness.agents import AgentProcess
from tests.harness.processes import run_second, unused_port
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]


def test_a_second_controller_on_a_node_store_exits_1_naming_the_holder(tmp_path: Path) -> None:
    box = Sandbox(tmp_path / "box")
    try:
        box.up(controllers=1, timeout=30.0)
        first = box.controllers()[0]
        values = read_properties(Path(first.configFile))
        raft, grpc = unused_port(), unused_port()
        values["controllerPeers"] = f"{first.id}-127.0.0.1:{raft}:{grpc}"  # same id and store, other ports
        copy = tmp_path / "copy.conf"
        write_properties_atomic(copy, values, "a second node on the first one's store")
        result = run_second("mqadmin_py.mqcontroller", copy)
        store = Path(values["controllerStorePath"]) / first.id
        assert result.returncode == 1, result.stderr
        assert f"mqcontroller: cannot start: store {store} is in use by pid {first.pid}" in result.stderr
        assert "Traceback" not in result.stderr
        box.wait_for_leader(10.0)  # the first still serves
    finally:
        box.down()


@pytest.mark.parametrize("shared", ["broker store", "agent store"])
def test_a_second_agent_on_a_store_exits_1_naming_the_holder(shared: str, tmp_path: Path) -> None:
    nowhere = f"127.0.0.1:{unused_port()}"  # registration waits for a controller; the stores are locked before
    first = AgentProcess(tmp_path, "first", nowhere, {"b": {}})
    if shared == "broker store":
        store = first.dir / "b"
        second = AgentProcess(tmp_path, "second", nowhere, {"b": {"storePathRootDir": str(store)}})
    else:
        store = first.dir / "agent"
        second = AgentProcess(tmp_path, "second", nowhere, {"b": {}})
        second.conf.write_text(second.conf.read_text().replace(str(second.dir / "agent"), str(store)))
    try:
        first.start()
        wait_until(lambda: first.stub().ListBrokers(pb.ListBrokersRequest(), timeout=2).brokers, 30, "the first agent")
        result = run_second("mqadmin_py.mqagent", second.conf)
        assert result.returncode == 1, result.stderr
        assert "mqagent: cannot start: " in result.stderr and "Traceback" not in result.stderr
        assert f"store {store} is in use by pid {first.pid}" in result.stderr
        assert first.proc is not None and first.proc.poll() is None
    finally:
        first.close()
