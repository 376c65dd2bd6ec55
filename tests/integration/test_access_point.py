"""The RocketMQ 5 gRPC access point (issue 26) with the unmodified official Python client, ``rocketmq-python-client``
5.1.2, against a sandbox of one controller and two broker sets of two replicas (two agents: each hosts a replica of
each set, so some requests are answered in-process and some forwarded to the other agent's master).

Bad input goes through raw gRPC with the client's own generated protos: the client checks some of it itself
before any call (body size, message type), and the server's answer is what is under test.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rocketmq import (
    ClientConfiguration,
    Credentials,
    FilterExpression,
    Message,
    Producer,
    SimpleConsumer,
)

from mqadmin_py.sandbox import Sandbox
from tests.harness.sandbox import Cli
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CLUSTER = "DefaultCluster"
TOPIC = "AccessOrders"
FIFO_TOPIC = "AccessFifo"
GROUP = "GID_access_simple"
PUSH_GROUP = "GID_access_push"
FIFO_GROUP = "GID_access_fifo"
RETRIES = 1
"""The push group's retryMaxTimes: a message is delivered twice at most, then dead-lettered."""


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    sandbox = Sandbox(Path(tmp_path_factory.mktemp("access-point")))
    try:
        sandbox.up(controllers=1, broker_sets=2, replicas=2, timeout=120.0)
        sandbox.wait_for_brokers(timeout=60.0)
        yield sandbox
    finally:
        sandbox.down()


@pytest.fixture(scope="module")
def cli(box: Sandbox) -> Cli:
    run = Cli(box.dir)
    run.env["MQADMIN_CONTROLLERS"] = box.addresses()
    run.json("updateTopic", "-c", CLUSTER, "-t", TOPIC, "-r", "2", "-w", "2")
    run.json("updateTopic", "-c", CLUSTER, "-t", FIFO_TOPIC, "-r", "2", "-w", "2", "--attributes", "+message.type=FIFO")
    run.json("updateSubGroup", "-c", CLUSTER, "-g", GROUP)
    run.json("updateSubGroup", "-c", CLUSTER, "-g", PUSH_GROUP, "-r", str(RETRIES))
    made = run.json("updateSubGroup", "-c", CLUSTER, "-g", FIFO_GROUP, "--consume-orderly", "true")

    def learnt() -> bool:
        brokers = [b for a in box.agents() for b in run.json("listBrokers", "-c", a.address)]
        return all((b["metadataVersion"] or -1) >= made["metadataVersion"] for b in brokers)

    wait_until(learnt, 60, "every broker to learn the topics and groups")
    return run


@pytest.fixture(scope="module")
def endpoints(box: Sandbox, cli: Cli) -> str:
    return box.proxy_endpoints()


def config(endpoints: str) -> ClientConfiguration:
    return ClientConfiguration(endpoints, Credentials())


def message(topic: str, body: bytes, *, tag: str = "TagA", group: str | None = None) -> Message:
    m = Message()
    m.topic = topic
    m.body = body
    m.tag = tag
    m.keys = "k1"
    if group is not None:
        m.message_group = group
    return m


def send_all(endpoints: str, messages: list[Message]) -> list[str]:
    producer = Producer(config(endpoints), (messages[0].topic,))
    producer.startup()
    try:
        return [producer.send(m).message_id for m in messages]
    finally:
        producer.shutdown()


def test_sandbox_lists_each_agents_access_point(box: Sandbox, cli: Cli) -> None:
    doc = cli.json("sandbox", "status")
    addresses = [a["proxyAddress"] for a in doc["agents"]]
    assert all(addresses) and len(set(addresses)) == 2
    assert doc["proxyEndpoints"] == ";".join(addresses)


def test_a_producer_sends_and_a_simple_consumer_receives_and_acks_everything(endpoints: str) -> None:
    bodies = [f"order-{i}".encode() for i in range(20)]
    sent = send_all(endpoints, [message(TOPIC, b) for b in bodies])
    assert len(set(sent)) == len(bodies)

    consumer = SimpleConsumer(config(endpoints), GROUP, {TOPIC: FilterExpression()}, await_duration=2)
    consumer.startup()
    got: dict[str, bytes] = {}
    try:
        deadline = time.monotonic() + 60
        while len(got) < len(bodies) and time.monotonic() < deadline:
            for m in consumer.receive(32, 15):
                assert m.tag == "TagA" and m.keys == {"k1"} and m.delivery_attempt == 1
                got[m.message_id] = m.body
                consumer.ack(m)
        assert set(got) == set(sent)
        assert sorted(got.values()) == sorted(bodies)
        assert consumer.receive(32, 15) == []  # every message acked: nothing comes back
    finally:
        consumer.shutdown()
