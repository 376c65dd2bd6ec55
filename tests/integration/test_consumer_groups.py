"""Consumer groups on a real broker set: receive, ack, invisibility, offsets, rebuild on restart.

One controller and one broker set of two replicas (each its own agent process), driven over the agent's gRPC API;
the topic is created with the real ``mqadmin updateTopic``. Failovers are in ``test_consumer_failover``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from mqadmin_py.sandbox import Sandbox
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import agent_pb2_grpc as pb_grpc
from tests.harness.sandbox import BROKER, CLUSTER, Cli, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

INVISIBLE_MS = 30_000
TOPIC = ""
"""Set per test by the `topic` fixture: each test consumes a topic of its own."""


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with serving_sandbox(Path(tmp_path_factory.mktemp("groups")), controllers=1, replicas=2) as sandbox:
        yield sandbox


class Broker:
    """The set's master over gRPC, found afresh after restarts."""

    def __init__(self, box: Sandbox) -> None:
        self.box = box
        self._channels: list[grpc.Channel] = []

    def stub(self) -> pb_grpc.AgentServiceStub:
        _, broker = self.box.master_agent(BROKER)
        self._channels.append(grpc.insecure_channel(broker.brokerAddress))
        return pb_grpc.AgentServiceStub(self._channels[-1])  # type: ignore[no-untyped-call]  # generated

    def close(self) -> None:
        for channel in self._channels:
            channel.close()


@pytest.fixture
def broker(box: Sandbox, request: pytest.FixtureRequest) -> Iterator[Broker]:
    """The master, with a new two-queue topic named for the test (the module-wide TOPIC)."""
    global TOPIC
    TOPIC = "T_" + request.node.name.removeprefix("test_")[:40]
    cli = Cli(box.dir, box.addresses())
    cli("updateTopic", "-c", CLUSTER, "-t", TOPIC, "-r", "2", "-w", "2")
    b = Broker(box)
    wait_until(lambda: receive(b.stub(), "probe").code == ResponseCode.PULL_NOT_FOUND, 30, "the topic learnt")
    yield b
    b.close()


def send(stub: pb_grpc.AgentServiceStub, n: int, tag: str = "") -> None:
    messages = [
        pb.Message(topic=TOPIC, queue_id=-1, body=f"m{i}".encode(), properties={"TAGS": tag} if tag else {})
        for i in range(n)
    ]
    r = stub.SendMessages(pb.SendMessagesRequest(broker=pb.BrokerRef(), messages=messages), timeout=10)
    assert r.code == ResponseCode.SUCCESS, r.remark


def receive(
    stub: pb_grpc.AgentServiceStub, group: str, *, batch: int = 32, wait_ms: int = 0, expression: str = "*"
) -> pb.ReceiveMessageResponse:
    request = pb.ReceiveMessageRequest(
        group=group, topic=TOPIC, filter_expression=expression, batch_size=batch,
        invisible_millis=INVISIBLE_MS, long_polling_millis=wait_ms,
    )  # fmt: skip
    response: pb.ReceiveMessageResponse = stub.ReceiveMessage(request, timeout=30)
    return response


def receive_all(stub: pb_grpc.AgentServiceStub, group: str, expected: int) -> list[pb.ReceivedMessage]:
    """Receive until `expected` messages came (each queue's read-ahead is bounded, so it may take a few)."""
    got: list[pb.ReceivedMessage] = []

    def more() -> bool:
        r = receive(stub, group)
        assert r.code in (ResponseCode.SUCCESS, ResponseCode.PULL_NOT_FOUND), r.remark
        got.extend(r.messages)
        return len(got) >= expected

    wait_until(more, 30, f"{expected} messages received by {group}")
    return got


def ack(stub: pb_grpc.AgentServiceStub, group: str, handles: list[str]) -> pb.AckMessageResponse:
    r: pb.AckMessageResponse = stub.AckMessage(
        pb.AckMessageRequest(group=group, topic=TOPIC, receipt_handles=handles), timeout=30
    )
    assert r.code == ResponseCode.SUCCESS, r.remark
    return r


def test_received_messages_are_invisible_until_acked_and_never_come_back(broker: Broker) -> None:
    stub = broker.stub()
    send(stub, 20)
    got = receive_all(stub, "G1", 20)
    assert sorted(m.message.body for m in got) == sorted(f"m{i}".encode() for i in range(20))
    assert {m.delivery_attempt for m in got} == {1}
    assert receive(stub, "G1").code == ResponseCode.PULL_NOT_FOUND  # invisible to G1, still visible to others
    assert len(receive_all(stub, "G2", 20)) == 20

    acked = ack(stub, "G1", [m.receipt_handle for m in got])
    assert {r.pop_code for r in acked.results} == {20000}
    again = ack(stub, "G1", [got[0].receipt_handle])  # acking twice with the same handle is still OK
    assert again.results[0].pop_code == 20000

    progress = stub.GetConsumerProgress(pb.GetConsumerProgressRequest(group="G1", topic=TOPIC), timeout=10)
    assert progress.code == ResponseCode.SUCCESS
    assert sum(q.broker_offset - q.consumer_offset for q in progress.queues) == 0
    assert sum(q.inflight for q in progress.queues) == 0


def test_a_changed_invisibility_redelivers_with_the_next_attempt_and_stales_the_old_handle(broker: Broker) -> None:
    stub = broker.stub()
    send(stub, 1)
    [first] = receive_all(stub, "G3", 1)
    change = pb.ChangeInvisibleDurationRequest(
        group="G3", topic=TOPIC, receipt_handle=first.receipt_handle, invisible_millis=0
    )
    changed = stub.ChangeInvisibleDuration(change, timeout=10)
    assert changed.code == ResponseCode.SUCCESS and changed.receipt_handle != first.receipt_handle
    [second] = receive_all(stub, "G3", 1)
    assert (second.message.body, second.delivery_attempt) == (first.message.body, 2)
    stale = ack(stub, "G3", [first.receipt_handle, changed.receipt_handle])
    assert [r.pop_code for r in stale.results] == [40013, 40013]  # both handles were replaced by the redelivery
    assert ack(stub, "G3", [second.receipt_handle]).results[0].pop_code == 20000


def test_a_tag_filter_skips_other_tags_for_good(broker: Broker) -> None:
    stub = broker.stub()
    send(stub, 3, tag="TagA")
    send(stub, 2, tag="TagB")
    r = receive(stub, "G4", expression="TagB")
    got = list(r.messages)
    got += receive_all(stub, "G4", 2 - len(got)) if len(got) < 2 else []
    assert {m.message.properties["TAGS"] for m in got} == {"TagB"}


def test_an_empty_receive_waits_for_a_send(broker: Broker) -> None:
    stub = broker.stub()
    receive_all(stub, "G5", 0)
    drained = receive(stub, "G5")
    for m in drained.messages:
        ack(stub, "G5", [m.receipt_handle])
    sender = threading.Timer(0.5, lambda: send(broker.stub(), 1))
    started = time.monotonic()
    sender.start()
    try:
        r = receive(stub, "G5", wait_ms=15_000)
    finally:
        sender.join()
    assert r.code == ResponseCode.SUCCESS and len(r.messages) == 1, r.remark
    assert time.monotonic() - started >= 0.5  # it waited for the send rather than answering at once


def test_bad_requests_are_refused_with_a_reason(broker: Broker) -> None:
    stub = broker.stub()
    unknown = stub.ReceiveMessage(pb.ReceiveMessageRequest(group="G", topic="NoSuchTopic", batch_size=1,
                                                           invisible_millis=INVISIBLE_MS), timeout=10)  # fmt: skip
    assert unknown.code == ResponseCode.TOPIC_NOT_EXIST and "updateTopic" in unknown.remark
    short = stub.ReceiveMessage(pb.ReceiveMessageRequest(group="G", topic=TOPIC, batch_size=1, invisible_millis=5),
                                timeout=10)  # fmt: skip
    assert (short.code, short.pop_code) == (ResponseCode.MESSAGE_ILLEGAL, 40011)
    bad_filter = receive(stub, "G", expression="A || *")
    assert (bad_filter.code, bad_filter.pop_code) == (ResponseCode.MESSAGE_ILLEGAL, 40010)
    garbage = ack(stub, "G", ["not a handle"])
    assert garbage.results[0].pop_code == 40013


def test_acks_and_offsets_survive_a_restart_of_every_replica(box: Sandbox, broker: Broker) -> None:
    stub = broker.stub()
    send(stub, 6)
    got = receive_all(stub, "G6", 6)
    ack(stub, "G6", [m.receipt_handle for m in got[:4]])
    for agent in box.agents():
        box.stop(agent.id)
    for agent in box.agents():
        box.start(agent.id)
    box.wait_for_brokers(timeout=60.0)

    def served() -> pb_grpc.AgentServiceStub | None:
        s = broker.stub()
        r = s.GetConsumerProgress(pb.GetConsumerProgressRequest(group="G6", topic=TOPIC), timeout=10)
        return s if r.code == ResponseCode.SUCCESS else None

    stub = wait_until(served, 60, "the restarted master serving consumer state")
    progress = stub.GetConsumerProgress(pb.GetConsumerProgressRequest(group="G6", topic=TOPIC), timeout=10)
    assert sum(q.inflight for q in progress.queues) == 2  # the two unacked deliveries are still in flight
    assert receive(stub, "G6").code == ResponseCode.PULL_NOT_FOUND  # and still invisible: nothing is visible


def test_a_deleted_group_created_again_starts_afresh(box: Sandbox, broker: Broker) -> None:
    cli = Cli(box.dir, box.addresses())
    agent = box.agents()[0].address
    stub = broker.stub()
    send(stub, 3)
    cli("updateSubGroup", "-b", BROKER, "-g", "G7")
    got = receive_all(stub, "G7", 3)
    ack(stub, "G7", [m.receipt_handle for m in got])
    assert receive(stub, "G7").code == ResponseCode.PULL_NOT_FOUND

    cli("deleteSubGroup", "-c", CLUSTER, "-g", "G7")
    wait_until(lambda: "G7" not in cli.json("listBrokers", "-c", agent)[0]["subscriptionGroups"], 30, "G7 deleted")
    cli("updateSubGroup", "-b", BROKER, "-g", "G7")
    assert len(receive_all(stub, "G7", 3)) == 3  # its offsets went with it: the group starts at the queue's start


def test_a_message_past_its_last_attempt_goes_to_the_dead_letter_topic(box: Sandbox, broker: Broker) -> None:
    cli = Cli(box.dir, box.addresses())
    cli("updateSubGroup", "-b", BROKER, "-g", "G8", "-r", "1")  # two deliveries at most
    agent = box.agents()[0].address
    wait_until(lambda: "G8" in cli.json("listBrokers", "-c", agent)[0]["subscriptionGroups"], 30, "G8 learnt")
    stub = broker.stub()
    send(stub, 1)
    for attempt in (1, 2):
        [m] = receive_all(stub, "G8", 1)
        assert m.delivery_attempt == attempt
        failed = pb.ChangeInvisibleDurationRequest(group="G8", topic=TOPIC, receipt_handle=m.receipt_handle)
        assert stub.ChangeInvisibleDuration(failed, timeout=10).code == ResponseCode.SUCCESS  # visible again at once
    assert receive(stub, "G8").code == ResponseCode.PULL_NOT_FOUND  # a third delivery would pass retryMaxTimes
    pulled = stub.PullMessage(pb.PullMessageRequest(topic="%DLQ%G8", queue_id=0, max_messages=8), timeout=10)
    [dead] = pulled.messages
    assert dead.message.body == m.message.body
    assert (dead.message.properties["RETRY_TOPIC"], dead.message.properties["DELIVERY_ATTEMPT"]) == (TOPIC, "2")
    progress = stub.GetConsumerProgress(pb.GetConsumerProgressRequest(group="G8", topic=TOPIC), timeout=10)
    assert sum(q.broker_offset - q.consumer_offset for q in progress.queues) == 0  # acked in the source


def test_a_server_side_nack_honours_the_groups_backoff(box: Sandbox, broker: Broker) -> None:
    """The group's customized levels, set with ``-q``, decide when a nacked message comes back: level n after
    attempt n, whatever invisible duration the request names."""
    cli = Cli(box.dir, box.addresses())
    levels = '{"type": "CUSTOMIZED", "customizedRetryPolicy": {"next": [3000, 60000]}}'
    cli("updateSubGroup", "-b", BROKER, "-g", "G9", "-q", levels)
    agent = box.agents()[0].address
    wait_until(lambda: "G9" in cli.json("listBrokers", "-c", agent)[0]["subscriptionGroups"], 30, "G9 learnt")
    stub = broker.stub()
    send(stub, 1)

    def nack(handle: str, level_ms: int) -> pb.ChangeInvisibleDurationResponse:
        failed = pb.ChangeInvisibleDurationRequest(
            group="G9", topic=TOPIC, receipt_handle=handle, invisible_millis=INVISIBLE_MS, nack=True
        )
        asked = int(time.time() * 1000)
        r: pb.ChangeInvisibleDurationResponse = stub.ChangeInvisibleDuration(failed, timeout=10)
        answered = int(time.time() * 1000) + 1
        assert r.code == ResponseCode.SUCCESS and r.receipt_handle != handle, r.remark
        assert asked + level_ms <= r.invisible_until_millis <= answered + level_ms  # the broker's now + the level
        return r

    [first] = receive_all(stub, "G9", 1)
    assert first.delivery_attempt == 1
    until = nack(first.receipt_handle, 3000).invisible_until_millis
    hidden = receive(stub, "G9")
    if time.time() * 1000 < until:  # answered before the deadline (the 3 s leave ample room on a loaded machine)
        assert hidden.code == ResponseCode.PULL_NOT_FOUND
    [second] = receive_all(stub, "G9", 1)
    assert time.time() * 1000 >= until
    assert (second.message.body, second.delivery_attempt) == (first.message.body, 2)
    nack(second.receipt_handle, 60000)  # the second level after the second attempt
    assert receive(stub, "G9").code == ResponseCode.PULL_NOT_FOUND
