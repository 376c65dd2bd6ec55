"""The RocketMQ 5 gRPC access point with the unmodified official Python client, ``rocketmq-python-client``
5.1.2, against a sandbox of one controller and two broker sets of two replicas (two agents: each hosts a replica of
each set, so some requests are answered in-process and some forwarded to the other agent's master).

Bad input goes through raw gRPC with the client's own generated protos: the client checks some of it itself
before any call (body size, message type), and the server's answer is what is under test.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from rocketmq import (
    ClientConfiguration,
    ConsumeResult,
    Credentials,
    FilterExpression,
    Message,
    MessageListener,
    Producer,
    PushConsumer,
    SimpleConsumer,
)
from rocketmq.grpc_protocol import definition_pb2 as v2
from rocketmq.grpc_protocol import service_pb2 as svc
from rocketmq.grpc_protocol import service_pb2_grpc as svc_grpc

from mqadmin_py.sandbox import Sandbox
from mqbase.client import AgentClient
from mqbase.proto import agent_pb2 as apb
from tests.harness.sandbox import Cli, all_learnt, serving_sandbox
from tests.harness.v2_messages import raw_message, raw_receive_from
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CLUSTER = "DefaultCluster"
TOPIC = "AccessOrders"
PUSH_TOPIC = "AccessPush"
FIFO_TOPIC = "AccessFifo"
DELAY_TOPIC = "AccessDelay"
BAD_TOPIC = "AccessBad"
GROUP = "GID_access_simple"
PUSH_GROUP = "GID_access_push"
FIFO_GROUP = "GID_access_fifo"
DELAY_GROUP = "GID_access_delay"
RETRIES = 1
"""The push group's retryMaxTimes: a message is delivered twice at most, then dead-lettered."""


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    path = Path(tmp_path_factory.mktemp("access-point"))
    with serving_sandbox(path, controllers=1, broker_sets=2, replicas=2) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def cli(box: Sandbox) -> Cli:
    run = Cli(box.dir, box.addresses())
    for name in (TOPIC, PUSH_TOPIC, BAD_TOPIC):
        run.json("updateTopic", "-c", CLUSTER, "-t", name, "-r", "2", "-w", "2")
    for name, kind in ((FIFO_TOPIC, "FIFO"), (DELAY_TOPIC, "DELAY")):
        typed = f"+message.type={kind}"
        run.json("updateTopic", "-c", CLUSTER, "-t", name, "-r", "2", "-w", "2", "--attributes", typed)
    run.json("updateSubGroup", "-c", CLUSTER, "-g", GROUP)
    run.json("updateSubGroup", "-c", CLUSTER, "-g", DELAY_GROUP)
    run.json("updateSubGroup", "-c", CLUSTER, "-g", PUSH_GROUP, "-r", str(RETRIES))
    made = run.json("updateSubGroup", "-c", CLUSTER, "-g", FIFO_GROUP, "--consume-orderly", "true", "-r", str(RETRIES))

    wait_until(lambda: all_learnt(run, box, made["metadataVersion"]), 60, "every broker to learn the topics and groups")
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
    table = cli("sandbox", "status").stdout
    assert table.count("access point") == 2
    assert f"# RocketMQ 5 clients' endpoints: {doc['proxyEndpoints']}" in table


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


def test_delayed_messages_of_the_official_client_arrive_at_their_delivery_timestamp(endpoints: str) -> None:
    """``Message.delivery_timestamp`` (seconds) through the access point: nothing before that time, each message
    once after it, under the id the producer got and with its delivery time."""
    deliver_s = int(time.time()) + 15
    later = []
    for i in range(4):
        m = message(DELAY_TOPIC, f"later-{i}".encode())
        m.delivery_timestamp = deliver_s
        later.append(m)
    sent = send_all(endpoints, later)
    consumer = SimpleConsumer(config(endpoints), DELAY_GROUP, {DELAY_TOPIC: FilterExpression()}, await_duration=2)
    consumer.startup()
    got: dict[str, Message] = {}
    try:
        assert consumer.receive(32, 15) == []
        assert time.time() < deliver_s, "the machine was too slow to look before the delivery time"
        deadline = time.monotonic() + 60
        while len(got) < len(sent) and time.monotonic() < deadline:
            for m in consumer.receive(32, 15):
                assert m.message_id not in got
                got[m.message_id] = m
                consumer.ack(m)
        assert time.time() >= deliver_s
        assert set(got) == set(sent)
        assert {m.delivery_timestamp for m in got.values()} == {deliver_s * 1000}
        assert consumer.receive(32, 15) == []
    finally:
        consumer.shutdown()


class Recorder(MessageListener):  # type: ignore[misc]
    """Records each delivery (message id, attempt, body) and fails the messages `fails` says to."""

    def __init__(self, fails: Callable[[bytes, int], bool]) -> None:
        self.fails = fails
        self.lock = threading.Lock()
        self.seen: list[tuple[str, int, bytes, str | None]] = []

    def consume(self, message: Message) -> ConsumeResult:
        with self.lock:
            self.seen.append((message.message_id, message.delivery_attempt, message.body, message.message_group))
        return ConsumeResult.FAILURE if self.fails(message.body, message.delivery_attempt) else ConsumeResult.SUCCESS

    def attempts(self) -> dict[bytes, list[int]]:
        with self.lock:
            out: dict[bytes, list[int]] = {}
            for _, attempt, body, _ in self.seen:
                out.setdefault(body, []).append(attempt)
            return out


def dead_letters(box: Sandbox, group: str) -> dict[str, dict[str, str]]:
    """The messages in ``%DLQ%<group>`` (queue 0 of every broker set), by message id, read from every replica."""
    found: dict[str, dict[str, str]] = {}
    with AgentClient(timeout=3.0) as agents:
        for broker in (b for a in box.agents() for b in a.brokers):
            request = apb.PullMessageRequest(topic=f"%DLQ%{group}", queue_id=0, queue_offset=0, max_messages=64)
            answer = agents.call(broker.brokerAddress, "PullMessage", request)
            for pulled in answer.messages:
                properties = dict(pulled.message.properties)
                found[properties["UNIQ_KEY"]] = properties
    return found


def push(endpoints: str, group: str, topic: str, listener: MessageListener) -> PushConsumer:
    consumer = PushConsumer(config(endpoints), group, listener, {topic: FilterExpression()})
    consumer.startup()
    return consumer


def test_a_push_consumer_gets_failed_messages_again_and_then_they_are_dead_lettered(
    box: Sandbox, endpoints: str
) -> None:
    bodies = [f"ok-{i}".encode() for i in range(6)] + [b"flaky", b"poison"]
    ids = dict(zip(bodies, send_all(endpoints, [message(PUSH_TOPIC, b) for b in bodies]), strict=True))
    listener = Recorder(lambda body, attempt: body == b"poison" or (body == b"flaky" and attempt == 1))
    consumer = push(endpoints, PUSH_GROUP, PUSH_TOPIC, listener)
    try:
        wait_until(lambda: ids[b"poison"] in dead_letters(box, PUSH_GROUP), 60, "the poison message in the DLQ")
    finally:
        consumer.shutdown()
    attempts = listener.attempts()
    assert all(attempts[b] == [1] for b in bodies[:6])
    assert attempts[b"flaky"] == [1, 2]  # failed once: back with attempt + 1, then acked
    assert attempts[b"poison"] == [1, 2]  # retryMaxTimes 1: two deliveries, then the dead-letter topic
    dlq = dead_letters(box, PUSH_GROUP)
    assert set(dlq) == {ids[b"poison"]}
    assert dlq[ids[b"poison"]]["RETRY_TOPIC"] == PUSH_TOPIC


def test_a_fifo_push_consumer_gets_each_message_group_in_order(box: Sandbox, endpoints: str) -> None:
    groups = ["g0", "g1", "g2"]
    sent = [message(FIFO_TOPIC, f"{g}:{i}".encode(), group=g) for i in range(5) for g in groups]
    bad = message(FIFO_TOPIC, b"bad:0", group="bad")
    ids = send_all(endpoints, [*sent, bad])
    listener = Recorder(lambda body, _attempt: body.startswith(b"bad:"))
    consumer = push(endpoints, FIFO_GROUP, FIFO_TOPIC, listener)
    try:
        wait_until(lambda: ids[-1] in dead_letters(box, FIFO_GROUP), 60, "the failing FIFO message in the DLQ")

        def every_good_one() -> bool:
            with listener.lock:
                return {b for _, _, b, _ in listener.seen} >= {m.body for m in sent}

        wait_until(every_good_one, 60, "every FIFO message consumed")
    finally:
        consumer.shutdown()
    with listener.lock:
        seen = list(listener.seen)
    for g in groups:
        order = [int(body.split(b":")[1]) for _, _, body, group in seen if group == g]
        assert order == sorted(order) and set(order) == set(range(5)), (g, order)
    assert [a for _, a, b, _ in seen if b == b"bad:0"] == [1, 1]  # the client retries FIFO messages itself
    assert set(dead_letters(box, FIFO_GROUP)) == {ids[-1]}


# --- bad input: raw gRPC with the client's protos ---------------------------------------------------------


@pytest.fixture(scope="module")
def stub(endpoints: str) -> Iterator[Any]:
    with grpc.insecure_channel(endpoints.split(";")[0]) as channel:
        yield svc_grpc.MessagingServiceStub(channel)


HEADERS = (("x-mq-client-id", "bad-input-test"),)


def raw_receive(stub: Any, topic: str) -> tuple[int, list[Any]]:
    """One receive from each broker set: the last status code, and every message."""
    code, messages = 0, []
    for name in ("broker-a", "broker-b"):
        code, got = raw_receive_from(stub, topic, name, GROUP, HEADERS)
        messages += got
    return code, messages


def test_bad_sends_get_javas_codes_and_store_nothing(stub: Any) -> None:
    cases = [
        (raw_message("NoSuchTopic", b"x"), v2.TOPIC_NOT_FOUND, "topic NoSuchTopic not found; create it first"),
        (raw_message(BAD_TOPIC, b"x" * (4 * 1024 * 1024 + 1)), v2.MESSAGE_BODY_TOO_LARGE,
         "message body size 4194305 exceeds the max 4194304 bytes"),
        (raw_message(BAD_TOPIC, b""), v2.MESSAGE_BODY_EMPTY, "message body cannot be empty"),
        (raw_message("bad topic", b"x"), v2.ILLEGAL_TOPIC, "topic name 'bad topic' has characters"),
    ]  # fmt: skip
    no_id = raw_message(BAD_TOPIC, b"x")
    no_id.system_properties.message_id = ""
    cases.append((no_id, v2.ILLEGAL_MESSAGE_ID, "message id cannot be empty"))
    delayed = raw_message(BAD_TOPIC, b"x")  # a DELAY message to a NORMAL topic
    delayed.system_properties.message_type = v2.DELAY
    delayed.system_properties.delivery_timestamp.FromSeconds(int(time.time()) + 60)
    conflict = "TopicMessageType validate failed, the expected type is NORMAL, but actual type is DELAY"
    cases.append((delayed, v2.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, conflict))
    transaction = raw_message(BAD_TOPIC, b"x")
    transaction.system_properties.message_type = v2.TRANSACTION
    conflict = "TopicMessageType validate failed, the expected type is NORMAL, but actual type is TRANSACTION"
    cases.append((transaction, v2.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, conflict))
    for m, code, text in cases:
        answer = stub.SendMessage(svc.SendMessageRequest(messages=[m]), metadata=HEADERS, timeout=10)
        assert (answer.status.code, answer.status.message[: len(text)]) == (code, text)
        assert [e.status.code for e in answer.entries] == [code]
    assert raw_receive(stub, BAD_TOPIC)[0] == v2.MESSAGE_NOT_FOUND  # nothing was stored


def test_a_call_without_client_id_is_refused(stub: Any) -> None:
    request = svc.QueryRouteRequest(topic=v2.Resource(name=TOPIC))
    answer = stub.QueryRoute(request, timeout=10)
    assert (answer.status.code, answer.status.message) == (
        v2.CLIENT_ID_REQUIRED, "client id is required: set the x-mq-client-id header")  # fmt: skip
    assert not answer.message_queues


def test_forged_and_expired_receipt_handles_are_refused_and_change_nothing(stub: Any) -> None:
    ack = svc.AckMessageRequest(group=v2.Resource(name=GROUP), topic=v2.Resource(name=BAD_TOPIC))
    ack.entries.add(message_id="X", receipt_handle="1 broker-a forged")
    answer = stub.AckMessage(ack, metadata=HEADERS, timeout=10)
    assert answer.status.code == v2.INVALID_RECEIPT_HANDLE and answer.status.message.startswith("receipt handle")

    sent = stub.SendMessage(svc.SendMessageRequest(messages=[raw_message(BAD_TOPIC, b"once")]), metadata=HEADERS,
                            timeout=10)  # fmt: skip
    assert sent.status.code == v2.OK
    [m] = raw_receive(stub, BAD_TOPIC)[1]
    time.sleep(10.5)  # its invisibility (10 s, the minimum) ends
    stale = svc.AckMessageRequest(group=v2.Resource(name=GROUP), topic=v2.Resource(name=BAD_TOPIC))
    stale.entries.add(message_id=m.system_properties.message_id, receipt_handle=m.system_properties.receipt_handle)
    answer = stub.AckMessage(stale, metadata=HEADERS, timeout=10)
    assert answer.status.code == v2.INVALID_RECEIPT_HANDLE
    assert answer.status.message.startswith("the receipt handle expired: its invisibility ended")
    change = svc.ChangeInvisibleDurationRequest(
        group=v2.Resource(name=GROUP), topic=v2.Resource(name=BAD_TOPIC),
        receipt_handle=m.system_properties.receipt_handle, message_id=m.system_properties.message_id,
    )  # fmt: skip
    change.invisible_duration.FromSeconds(30)
    changed = stub.ChangeInvisibleDuration(change, metadata=HEADERS, timeout=10)
    assert changed.status.code == v2.INVALID_RECEIPT_HANDLE
    assert changed.receipt_handle == m.system_properties.receipt_handle  # the client keeps it
    again = raw_receive_from(stub, BAD_TOPIC, m.system_properties.receipt_handle.split()[1], GROUP, HEADERS)[1]
    assert [(x.system_properties.message_id, x.system_properties.delivery_attempt) for x in again] == [
        (m.system_properties.message_id, 2)]  # fmt: skip


def test_bytes_that_are_no_request_are_refused_and_health_is_served(endpoints: str) -> None:
    with grpc.insecure_channel(endpoints.split(";")[0]) as channel:
        raw = channel.unary_unary("/apache.rocketmq.v2.MessagingService/SendMessage")
        with pytest.raises(grpc.RpcError) as refused:
            raw(b"\xff\xff\xff", metadata=HEADERS, timeout=10)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "is not a valid apache.rocketmq.v2.SendMessageRequest protobuf" in str(refused.value.details())
        checked = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service="apache.rocketmq.v2.MessagingService"), timeout=10
        )
        assert checked.status == health_pb2.HealthCheckResponse.SERVING


def test_bad_receives_get_pops_codes(stub: Any) -> None:
    def receive(invisible_s: int, expression: str) -> Any:
        queue = v2.MessageQueue(topic=v2.Resource(name=BAD_TOPIC), broker=v2.Broker(name="broker-a"))
        request = svc.ReceiveMessageRequest(
            group=v2.Resource(name=GROUP), message_queue=queue, batch_size=1,
            filter_expression=v2.FilterExpression(type=v2.TAG, expression=expression),
        )  # fmt: skip
        request.invisible_duration.FromSeconds(invisible_s)
        request.long_polling_timeout.FromSeconds(1)
        return next(
            r.status for r in stub.ReceiveMessage(request, metadata=HEADERS, timeout=10) if r.HasField("status")
        )

    assert receive(5, "*").code == v2.ILLEGAL_INVISIBLE_TIME
    bad_filter = receive(30, "TagA || *")
    assert (bad_filter.code, bad_filter.message) == (
        v2.ILLEGAL_FILTER_EXPRESSION, "filter expression 'TagA || *': '*' must stand alone, not in a list")  # fmt: skip
