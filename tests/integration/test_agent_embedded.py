"""Embedded controllers: 3 real mqagent processes, each running one controller node and one replica of a set.

The hardest crash of that layout: SIGKILL the agent that hosts both the broker master and the Raft leader,
so the two survivors need a Raft re-election and then a broker failover. Agents serve PROM metrics.
"""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from mqbase.client import ControllerClient
from mqbase.codes import ResponseCode
from mqbase.errors import MqError
from mqbase.proto import controller_pb2 as cpb
from tests.harness.agents import BROKER, FAST, AgentProcess, create_topic, master_agent, send
from tests.harness.controllers import CONTROLLER_CONFIG
from tests.harness.processes import unused_port
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

METRICS_URL = re.compile(r"agent serving metrics on (http://\S+/metrics)")


class EmbeddedCluster:
    """Three agents; agent i runs controller node ``c<i>`` and one replica of BROKER."""

    def __init__(self, directory: Path) -> None:
        ports = [(unused_port(), unused_port()) for _ in range(3)]
        peers = ";".join(f"c{i}-127.0.0.1:{raft}:{grpc}" for i, (raft, grpc) in enumerate(ports))
        self.addresses = ";".join(f"127.0.0.1:{grpc}" for _, grpc in ports)
        self.agents = [AgentProcess(directory, f"agent{i}", self.addresses, {BROKER: dict(FAST)}) for i in range(3)]
        for i, agent in enumerate(self.agents):
            keys = {
                "enableControllerInAgent": "true",
                "controllerPeers": peers,
                "controllerSelfId": f"c{i}",
                "controllerStorePath": str(agent.dir / "controller"),
                "metricsExporterType": "PROM",
                "metricsPromExporterPort": "0",
                **CONTROLLER_CONFIG,
            }
            agent.conf.write_text(agent.conf.read_text() + "".join(f"{k}={v}\n" for k, v in keys.items()))
        self.client = ControllerClient(self.addresses, timeout=1.0)

    def leader(self, among: list[AgentProcess]) -> AgentProcess | None:
        """The agent whose embedded node serves as Raft leader (leader and barrier committed)."""
        for agent in among:
            address = self.addresses.split(";")[self.agents.index(agent)]
            try:
                meta = self.client.metadata(address)
            except MqError:
                continue
            if meta.is_leader and meta.raft.ready:
                return agent
        return None

    def in_sync(self) -> set[int]:
        """Ids in BROKER's SyncStateSet (empty while no controller leader answers)."""
        try:
            data = self.client.call("GetSyncStateData", cpb.GetSyncStateDataRequest(broker_names=[BROKER]))
        except MqError:
            return set()
        info = data.replicas_info[0] if data.replicas_info else None
        return {r.broker_id for r in info.in_sync_replicas} if info is not None else set()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[EmbeddedCluster]:
    c = EmbeddedCluster(tmp_path)
    try:
        for agent in c.agents:
            agent.start()
        yield c
    finally:
        for agent in c.agents:
            agent.close()
        c.client.close()


def scrape(agent: AgentProcess) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    url = wait_until(lambda: METRICS_URL.findall(agent.log_text()), 10, f"{agent.name} to log its metrics URL")[-1]
    with urllib.request.urlopen(url, timeout=5) as response:
        text = response.read().decode()
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def role_metric(agent: AgentProcess, role: str) -> float:
    labels = {"cluster": "E2ECluster", "broker_name": BROKER, "broker_id": str(agent.ha_status(BROKER).broker_id)}
    return scrape(agent).get(("mqagent_broker_role", frozenset({**labels, "role": role}.items())), 0.0)


def test_killing_the_agent_of_the_master_and_the_raft_leader_fails_over_both(cluster: EmbeddedCluster) -> None:
    agents = cluster.agents
    wait_until(lambda: len(cluster.in_sync()) == 3, 40, "a master and a SyncStateSet of 3")
    create_topic(cluster.addresses)
    leader = wait_until(lambda: cluster.leader(agents), 20, "a Raft leader among the embedded nodes")
    if master_agent(agents) is not leader:  # put the broker master on the leader's agent: the hardest crash
        moved = cluster.client.call("ElectMaster", cpb.ElectMasterRequest(
            cluster_name="E2ECluster", broker_name=BROKER, broker_id=leader.ha_status(BROKER).broker_id,
            designate_elect=True))  # fmt: skip
        assert moved.code == ResponseCode.SUCCESS, moved
        wait_until(lambda: leader.role(BROKER) == "master", 15, "the leader's agent to take the master")
        wait_until(lambda: len(cluster.in_sync()) == 3, 30, "the SyncStateSet to grow back to 3")
    assert cluster.leader(agents) is leader and master_agent(agents) is leader
    assert role_metric(leader, "master") == 1.0
    assert all(role_metric(a, "slave") == 1.0 for a in agents if a is not leader)
    assert send(leader, 0).code == ResponseCode.SUCCESS
    labels = {"cluster": "E2ECluster", "broker_name": BROKER, "broker_id": str(leader.ha_status(BROKER).broker_id)}
    samples = scrape(leader)
    assert samples[("mqagent_puts_total", frozenset({**labels, "status": "PUT_OK"}.items()))] >= 1
    assert samples[("mqagent_put_seconds_count", frozenset(labels.items()))] >= 1
    old_epoch = leader.ha_status(BROKER).master_epoch

    leader.kill()
    survivors = [a for a in agents if a is not leader]
    wait_until(lambda: cluster.leader(survivors), 20, "the survivors to elect a Raft leader")
    new = wait_until(lambda: master_agent(survivors), 30, "the survivors to elect a broker master")
    assert new.ha_status(BROKER).master_epoch == old_epoch + 1
    wait_until(lambda: send(new, 1).code == ResponseCode.SUCCESS, 15, "sends to resume on the new master")
    assert role_metric(new, "master") == 1.0

    for agent in survivors:  # a clean stop ends the brokers and then the embedded node
        agent.stop()
        assert agent.proc is not None and agent.proc.returncode == 0, agent.log_text()[-2000:]
