"""Two broker sets as RIP-32's escape tests see them: broker-a the home set, broker-b the escape set.

The controller's view of each set (``GetSyncStateData``), which agent hosts a replica, what an agent lists of a
set, whether a slave has caught up and whether the escape master holds changes escaped from the home set. The
acting-master escape tests, the no-electable-master bridge test, the FIFO lock-quorum test and the acting-master
benchmark all drive these two sets.
"""

from __future__ import annotations

from typing import Any

from mqadmin_py.sandbox import Sandbox
from mqbase.client import AgentClient, ControllerClient
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as apb
from mqbase.proto import controller_pb2 as cpb
from tests.harness.wait import wait_until

CLUSTER = "DefaultCluster"
HOME, ESCAPE = "broker-a", "broker-b"
TOPIC, GROUP = "Rip32Orders", "GID_rip32"
"""A topic on both sets and a group that consumes it."""
NOT_ACTIVE_MS = 2000
"""brokerNotActiveTimeoutMillis where the tests set it: a slave acts 2 s after it last saw its master."""


def sets(box: Sandbox) -> dict[str, Any]:
    """The controller's ReplicasInfo of each set, by name."""
    with ControllerClient(box.addresses(), timeout=3.0) as client:
        reply = client.call("GetSyncStateData", cpb.GetSyncStateDataRequest(cluster_name=CLUSTER))
    assert reply.code == ResponseCode.SUCCESS, reply
    return {info.broker_name: info for info in reply.replicas_info}


def agent_of(box: Sandbox, broker_address: str) -> str:
    return next(a.id for a in box.agents() for b in a.brokers if b.brokerAddress == broker_address)


def healthy(box: Sandbox, replicas: int = 2) -> dict[str, Any]:
    """Both sets with an alive master and every replica in sync."""

    def full() -> dict[str, Any] | None:
        found = sets(box)
        ok = all(
            info.HasField("master_broker_id") and len([r for r in info.in_sync_replicas if r.alive]) == replicas
            for info in found.values()
        )
        return found if ok and len(found) == 2 else None

    return wait_until(full, 90, "both sets healthy")


def listed(address: str, broker_name: str) -> Any:
    """The broker of `broker_name` that the agent at `address` lists."""
    with AgentClient(timeout=5.0) as agents:
        answer = agents.call(address, "ListBrokers", apb.ListBrokersRequest())
    return next(b for b in answer.brokers if b.broker_name == broker_name)


def ha(address: str, broker_name: str) -> Any:
    with AgentClient(timeout=5.0) as agents:
        return agents.call(address, "GetHAStatus", apb.BrokerRef(broker_name=broker_name))


def caught_up(master: str, slave: str) -> bool:
    """Whether the slave holds and has confirmed everything the master has written."""
    top = ha(master, HOME).max_offset
    s = ha(slave, HOME)
    return bool(s.max_offset >= top and s.confirm_offset >= top)


def held(address: str) -> bool:
    """Whether broker-b's master at `address` holds changes escaped from broker-a."""
    request = apb.GetEscapedRequest(broker=apb.BrokerRef(broker_name=ESCAPE), home=HOME)
    with AgentClient(timeout=5.0) as agents:
        answer = agents.call(address, "GetEscaped", request)
    assert answer.code == ResponseCode.SUCCESS, answer
    return bool(answer.records)
