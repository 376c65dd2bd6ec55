"""RIP-32's lock quorum on real processes: one controller and one broker set of three replicas, each its own mqagent,
with a FIFO topic and an orderly group. The master's orderly receive locks the queue at the replicas (as owner its
broker id); a second owner asking the replicas' agents directly (LockBatchMQ, as a coordinator elsewhere would) is
refused by the majority while that lock lives (``lockInStrictMode=true``), and the master delivers nothing from a
queue whose lock a second owner holds. Not strict (Java's default), the lock is the master's table alone, so a
second owner at another replica is granted: the documented risk.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.metadata import MESSAGE_GROUP
from mqadmin_py.sandbox import Sandbox
from mqbase.client import AgentClient
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from tests.harness.sandbox import BROKER, CLUSTER, Cli, Cluster, Master, replicas, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

TOPIC, GROUP = "LockedFifo", "G_locked"
LIFE_MS = 4000
"""rebalanceLockMaxLiveTime: short, so a lock expires within the test."""
BROKER_CONF = {"lockInStrictMode": "true", "rebalanceLockMaxLiveTime": str(LIFE_MS), "syncBrokerMetadataPeriod": "500"}
INTRUDER = "intruder"
INVISIBLE_MS = 60_000


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with serving_sandbox(
        Path(tmp_path_factory.mktemp("locks")), controllers=1, replicas=3, broker_config=BROKER_CONF
    ) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def cluster(box: Sandbox) -> Iterator[Cluster]:
    c = Cluster(Cli(box.dir, box.addresses()), box.addresses())
    c.cli("updateTopic", "-c", CLUSTER, "-t", TOPIC, "-r", "3", "-w", "3", "--attributes", "+message.type=FIFO")
    c.cli("updateSubGroup", "-c", CLUSTER, "-g", GROUP, "--consume-orderly", "true")
    wait_until(lambda: every_replica_knows(box), 30, "every replica to learn the topic and the orderly group")
    yield c
    c.close()


@pytest.fixture
def master(cluster: Cluster) -> Iterator[Master]:
    """The healthy set's master, strict mode on every replica before and after the test."""
    set_strict(cluster, True)
    yield cluster.healthy(timeout=90)
    set_strict(cluster, True)


def every_replica_knows(box: Sandbox) -> bool:
    """Whichever replica is master must know the group is orderly (an unknown group is consumed unordered)."""
    with AgentClient(timeout=3.0) as agents:
        listed = [agents.call(a.address, "ListBrokers", pb.ListBrokersRequest()) for a in box.agents()]
    return all(TOPIC in b.topics and GROUP in b.subscription_groups for r in listed for b in r.brokers)


def set_strict(cluster: Cluster, strict: bool) -> None:
    cluster.cli.json("updateBrokerConfig", "-c", CLUSTER, "-k", "lockInStrictMode", "-v", str(strict).lower())


def addresses(cluster: Cluster) -> dict[int, str]:
    """Every replica's agent address, by broker id."""
    return {r.broker_id: r.broker_address for r in replicas(cluster.info())}


def lock(address: str, queue_id: int, owner: str = INTRUDER) -> list[int]:
    """LockBatchMQ of one queue at the replica at `address`; the queues it granted."""
    request = pb.LockBatchMQRequest(
        broker=pb.BrokerRef(broker_name=BROKER), owner=owner, group=GROUP, topic=TOPIC, queue_ids=[queue_id],
        life_millis=LIFE_MS,
    )  # fmt: skip
    with AgentClient(timeout=5.0) as agents:
        response = agents.call(address, "LockBatchMQ", request)
    assert response.code == ResponseCode.SUCCESS, response.remark
    return list(response.locked_queue_ids)


def grants(cluster: Cluster, queue_id: int, owner: str = INTRUDER) -> int:
    """How many of the set's replicas grant `owner` the queue now."""
    return sum(bool(lock(a, queue_id, owner)) for a in addresses(cluster).values())


def send(address: str, queue_id: int, bodies: list[str], message_group: str = "g") -> None:
    messages = [
        pb.Message(topic=TOPIC, queue_id=queue_id, body=b.encode(), properties={MESSAGE_GROUP: message_group})
        for b in bodies
    ]
    with AgentClient(timeout=10.0) as agents:
        r = agents.call(address, "SendMessages", pb.SendMessagesRequest(broker=pb.BrokerRef(), messages=messages))
    assert r.code == ResponseCode.SUCCESS, r.remark


def receive(address: str, queue_id: int | None = None) -> pb.ReceiveMessageResponse:
    request = pb.ReceiveMessageRequest(group=GROUP, topic=TOPIC, batch_size=32, invisible_millis=INVISIBLE_MS)
    if queue_id is not None:
        request.queue_id = queue_id
    with AgentClient(timeout=30.0) as agents:
        response: pb.ReceiveMessageResponse = agents.call(address, "ReceiveMessage", request)
    assert response.code in (ResponseCode.SUCCESS, ResponseCode.PULL_NOT_FOUND), response.remark
    return response


def ack(address: str, messages: list[pb.ReceivedMessage]) -> None:
    request = pb.AckMessageRequest(group=GROUP, topic=TOPIC, receipt_handles=[m.receipt_handle for m in messages])
    with AgentClient(timeout=30.0) as agents:
        r = agents.call(address, "AckMessage", request)
    assert r.code == ResponseCode.SUCCESS and {a.pop_code for a in r.results} == {20000}, r


def test_strict_the_masters_lock_is_held_by_a_majority_until_it_expires(cluster: Cluster, master: Master) -> None:
    send(master.address, 0, ["a1", "a2"])
    first = wait_until(lambda: receive(master.address, 0).messages, 30, "an orderly delivery under the quorum lock")
    assert [m.message.body for m in first] == [b"a1", b"a2"]
    assert grants(cluster, 0) <= 1  # a majority holds the queue for the master: no majority for another owner
    wait_until(lambda: grants(cluster, 0) == 3, 30, "the master's lock to expire at every replica")
    # The intruder now holds the queue at every replica: the master delivers nothing from it, though a message is
    # visible, until the intruder's lock expires.
    ack(master.address, first)
    send(master.address, 0, ["a3"])
    assert grants(cluster, 0) == 3  # renewed, so it surely lives for the next receive
    assert not receive(master.address, 0).messages
    later = wait_until(lambda: receive(master.address, 0).messages, 30, "the intruder's lock to expire")
    assert [m.message.body for m in later] == [b"a3"]
    ack(master.address, later)


def test_not_strict_a_second_owner_at_another_replica_is_granted(cluster: Cluster, master: Master) -> None:
    set_strict(cluster, False)
    send(master.address, 1, ["b1"])
    got = wait_until(lambda: receive(master.address, 1).messages, 30, "an orderly delivery under the local lock")
    peers = addresses(cluster)
    assert not lock(peers[master.broker_id], 1)  # the master's own table holds it
    assert all(lock(peers[i], 1) == [1] for i in master.slaves())  # the others know nothing of it: the risk
    ack(master.address, got)


def test_strict_mode_keeps_each_message_groups_order(cluster: Cluster, master: Master) -> None:
    """Three message groups, interleaved on one queue: each group is received in send order."""
    sent = {g: [f"{g}-{i}" for i in range(8)] for g in ("x", "y", "z")}
    for i in range(8):
        for g, bodies in sent.items():
            send(master.address, 2, [bodies[i]], g)
    received: dict[str, list[str]] = {g: [] for g in sent}

    def take() -> bool:
        got = receive(master.address, 2).messages
        for m in got:
            received[m.message.properties[MESSAGE_GROUP]].append(m.message.body.decode())
        if got:
            ack(master.address, list(got))
        return sum(map(len, received.values())) >= 24

    wait_until(take, 60, "every message received")
    assert received == sent


def test_a_bad_lock_request_is_refused_with_a_reason_and_changes_nothing(cluster: Cluster, master: Master) -> None:
    address = addresses(cluster)[master.slaves()[0]]
    bad = pb.LockBatchMQRequest(broker=pb.BrokerRef(broker_name=BROKER), owner="", group=GROUP, topic=TOPIC,
                                queue_ids=[3])  # fmt: skip
    with AgentClient(timeout=5.0) as agents:
        refused = agents.call(address, "LockBatchMQ", bad)
        assert (refused.code, refused.remark) == (ResponseCode.MESSAGE_ILLEGAL, "owner is empty")
        bad.owner, bad.life_millis = INTRUDER, -1
        refused = agents.call(address, "LockBatchMQ", bad)
        assert (refused.code, refused.remark) == (ResponseCode.MESSAGE_ILLEGAL, "life_millis -1 is negative")
    assert lock(address, 3, "other") == [3]  # nothing was locked for the intruder
