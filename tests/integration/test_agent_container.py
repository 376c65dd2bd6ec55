"""The RIP-31 container: brokers added and removed at run time, remembered across restarts, failing alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqadmin_py.sandbox import Sandbox
from mqbase.client import ControllerClient
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import controller_pb2 as cpb
from tests.harness.agents import FAST, AgentProcess
from tests.harness.controllers import CONTROLLER_CONFIG
from tests.harness.processes import taken_port, unused_port
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]


@pytest.fixture
def controllers(tmp_path: Path) -> Sandbox:
    box = Sandbox(tmp_path / "controllers")
    try:
        box.up(controllers=1, extra_config=dict(CONTROLLER_CONFIG), timeout=30.0)
    except Exception:
        box.down()
        raise
    return box


def listed(agent: AgentProcess) -> dict[str, pb.HostedBroker]:
    response = agent.stub().ListBrokers(pb.ListBrokersRequest(), timeout=3)
    return {b.broker_name: b for b in response.brokers}


def test_brokers_come_and_go_at_run_time_and_a_broken_one_fails_alone(controllers: Sandbox, tmp_path: Path) -> None:
    addresses = controllers.addresses()
    agent = AgentProcess(tmp_path, "container", addresses, {"first": dict(FAST)})
    try:
        agent.start()
        wait_until(lambda: agent.role("first") == "master", 20, "the configured broker to become master")
        # add a broker at run time, from a config file on the agent's host
        added = tmp_path / "added.conf"
        added.write_text(
            f"brokerName=added\nbrokerClusterName=E2ECluster\nlistenPort={unused_port()}\nhaListenPort=0\n"
            f"storePathRootDir={tmp_path / 'added-store'}\ncontrollerAddr={addresses}\n"
        )
        response = agent.stub().AddBroker(pb.AddBrokerRequest(broker_config_path=str(added)), timeout=5)
        assert response.code == ResponseCode.SUCCESS, response
        wait_until(lambda: agent.role("added") == "master", 20, "the added broker to become master")
        # a broken config is refused with the reason, and the others keep running
        broken = tmp_path / "broken.conf"
        broken.write_text("brokerName=broken\nstorePathRootDir=/tmp/x\ncontrollerAddr=nowhere\n")
        refused = agent.stub().AddBroker(pb.AddBrokerRequest(broker_config_path=str(broken)), timeout=5)
        assert refused.code == ResponseCode.SYSTEM_ERROR and "controllerAddr" in refused.remark, refused
        # a broker whose port is taken is refused with the reason too (not a failed call)
        with taken_port() as port:
            busy = tmp_path / "busy.conf"
            busy.write_text(
                f"brokerName=busy\nbrokerClusterName=E2ECluster\nlistenPort={port}\n"
                f"haListenPort=0\nstorePathRootDir={tmp_path / 'busy-store'}\ncontrollerAddr={addresses}\n"
            )
            refused = agent.stub().AddBroker(pb.AddBrokerRequest(broker_config_path=str(busy)), timeout=5)
        assert refused.code == ResponseCode.SYSTEM_ERROR and "address already in use" in refused.remark, refused
        assert set(listed(agent)) == {"first", "added"}
        # an added broker comes back after a restart; a removed one does not
        agent.stop()
        agent.start()
        wait_until(lambda: agent.role("added") == "master", 20, "the added broker to come back after a restart")
        broker_id = listed(agent)["added"].broker_id
        gone = agent.stub().RemoveBroker(
            pb.RemoveBrokerRequest(cluster_name="E2ECluster", broker_name="added", broker_id=broker_id), timeout=5
        )
        assert gone.code == ResponseCode.SUCCESS, gone
        assert set(listed(agent)) == {"first"}
        agent.stop()
        agent.start()
        wait_until(lambda: agent.role("first") == "master", 20, "the configured broker after the second restart")
        assert set(listed(agent)) == {"first"}
    finally:
        agent.close()
        controllers.down()


def test_a_broker_registers_again_when_the_controller_lost_its_set(controllers: Sandbox, tmp_path: Path) -> None:
    addresses = controllers.addresses()
    agent = AgentProcess(tmp_path, "lost", addresses, {"lost-set": dict(FAST)})
    client = ControllerClient(addresses)
    try:
        agent.start()
        wait_until(lambda: agent.role("lost-set") == "master", 20, "the broker to become master")
        cleaned = client.call("CleanBrokerData", cpb.CleanBrokerDataRequest(
            cluster_name="E2ECluster", broker_name="lost-set", is_clean_living_broker=True,
            clean_whole_set=True))  # fmt: skip
        assert cleaned.code == ResponseCode.SUCCESS, cleaned

        def registered() -> bool:
            data = client.call("GetSyncStateData", cpb.GetSyncStateDataRequest(broker_names=["lost-set"]))
            return bool(data.replicas_info) and bool(data.replicas_info[0].in_sync_replicas)

        wait_until(registered, 20, "the broker to register its set again (next GetReplicaInfo poll)")
        assert "registering again" in agent.log_text()
    finally:
        client.close()
        agent.close()
        controllers.down()
