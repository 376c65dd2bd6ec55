"""Real mqagent processes for end-to-end tests: config files, start/stop by pid, and a gRPC client per agent."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import grpc

from mqbase.client import ControllerClient
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import agent_pb2_grpc as pb_grpc
from mqbase.proto import controller_pb2 as cpb
from tests.harness.processes import ChildProcess, unused_port
from tests.harness.wait import wait_until

BROKER = "broker-a"
CLUSTER = "E2ECluster"
FAST = {  # broker keys that make failures show up in seconds, not tens of seconds
    "allAckInSyncStateSet": "true",
    "brokerHeartbeatInterval": "200",
    "controllerHeartBeatTimeoutMills": "2000",
    "syncBrokerMetadataPeriod": "1000",
    "haMaxTimeSlaveNotCatchup": "3000",
    "haSendHeartbeatInterval": "500",
    "haHousekeepingInterval": "3000",
    "syncFlushTimeout": "3000",
    "totalReplicas": "3",
}


class AgentProcess(ChildProcess):
    """One mqagent with one broker replica per entry of `brokers` (broker name → extra broker keys)."""

    def __init__(self, directory: Path, name: str, controllers: str, brokers: dict[str, dict[str, str]]) -> None:
        super().__init__(directory / name, "agent.log")
        self.name = name
        self.controllers = controllers
        self.port = unused_port()
        self.broker_ports: dict[str, int] = {}
        paths = []
        for broker_name, extra in brokers.items():
            self.broker_ports[broker_name] = unused_port()
            keys = {
                "brokerClusterName": CLUSTER,
                "brokerName": broker_name,
                "listenPort": str(self.broker_ports[broker_name]),
                "haListenPort": str(unused_port()),
                "storePathRootDir": str(self.dir / broker_name),
                "controllerAddr": controllers,
                "mappedFileSizeCommitLog": str(8 * 1024 * 1024),
                **extra,
            }
            path = self.dir / f"{broker_name}.conf"
            path.write_text("".join(f"{k}={v}\n" for k, v in keys.items()))
            paths.append(str(path))
        self.conf = self.dir / "agent.conf"
        self.conf.write_text(
            f"listenPort={self.port}\nenableProxy=false\nbrokerConfigPaths={';'.join(paths)}\n"
            f"agentStorePath={self.dir / 'agent'}\n"
        )
        self._channels: dict[int, grpc.Channel] = {}

    def start(self, env: Mapping[str, str] | None = None) -> AgentProcess:
        """Start the process; `env` adds environment variables (the chaos tests' fault-injection knobs)."""
        self.spawn(["-m", "mqadmin_py.mqagent", "-c", str(self.conf), "--log-level", "INFO"], env)
        return self

    def close(self) -> None:
        self.stop()
        for channel in self._channels.values():
            channel.close()

    def stub(self, broker_name: str | None = None) -> pb_grpc.AgentServiceStub:
        port = self.port if broker_name is None else self.broker_ports[broker_name]
        if port not in self._channels:
            self._channels[port] = grpc.insecure_channel(f"127.0.0.1:{port}")
        return pb_grpc.AgentServiceStub(self._channels[port])  # type: ignore[no-untyped-call]  # generated, unannotated

    def ha_status(self, broker_name: str) -> pb.GetHAStatusResponse:
        response: pb.GetHAStatusResponse = self.stub().GetHAStatus(pb.BrokerRef(broker_name=broker_name), timeout=2)
        return response

    def role(self, broker_name: str) -> str:
        try:
            status = self.ha_status(broker_name)
        except grpc.RpcError:
            return "down"
        return status.role if status.code == ResponseCode.SUCCESS else "unknown"


def master_of_set(agents: list[AgentProcess], name: str) -> AgentProcess | None:
    """The agent hosting the master replica of set `name`, when exactly one agent says it is master."""
    masters = [a for a in agents if a.role(name) == "master"]
    return masters[0] if len(masters) == 1 else None


def master_agent(agents: list[AgentProcess]) -> AgentProcess | None:
    """The agent whose broker-a replica is the master, when exactly one is."""
    return master_of_set(agents, BROKER)


def send(agent: AgentProcess, i: int) -> pb.SendMessageResponse:
    """Message `i` to the agent's broker-a replica (topic Orders, two queues)."""
    message = pb.Message(topic="Orders", queue_id=i % 2, body=f"order-{i:05d}".encode())
    response: pb.SendMessageResponse = agent.stub(BROKER).SendMessage(
        pb.SendMessageRequest(broker=pb.BrokerRef(broker_name=BROKER), message=message), timeout=10
    )
    return response


def create_topic(
    controllers: str, topic: str = "Orders", cluster: str = CLUSTER, queues: int = 8, timeout: float = 30.0
) -> None:
    """``mqadmin updateTopic -c cluster -t topic -r queues -w queues``: brokers refuse sends to a topic the
    controller does not have. Retried until a broker set of `cluster` has registered (the controller refuses
    before)."""
    request = cpb.UpdateTopicRequest(cluster_name=cluster, topic_name=topic, read_queue_nums=queues,
                                     write_queue_nums=queues)  # fmt: skip

    def created() -> bool:
        with ControllerClient(controllers) as client:
            response: cpb.MetadataChangeResponse = client.call("UpdateTopic", request)
        return response.code == ResponseCode.SUCCESS

    wait_until(created, timeout, f"topic {topic} to be created in cluster {cluster}")
