"""The access point during failovers: an unmodified Python producer keeps sending while the master of its only
broker set moves (transferMaster), hangs (SIGSTOP) or dies (SIGKILL), and every send it was told succeeded is
consumed afterwards; a group's acks and its FIFO order survive a SIGKILL of the master. One controller, one broker
set of three replicas on three agents; the clients are given every agent's access point.

The Python producer makes 3 immediate attempts of 3 s each; the access point holds each attempt while the set has
no master that answers, so no send fails across the change.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
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

from mqadmin_py.sandbox import Sandbox
from tests.harness.official_client import send_bodies
from tests.harness.sandbox import BROKER, Cli, Cluster, Master, all_learnt, all_up, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CLUSTER = "DefaultCluster"
TOPIC = "FailoverOrders"
GROUP = "GID_failover"
ACK_TOPIC = "FailoverAcks"
ACK_GROUP = "GID_failover_acks"
FIFO_TOPIC = "FailoverFifo"
FIFO_GROUP = "GID_failover_fifo"
PUSH_TOPIC = "FailoverPush"
PUSH_GROUP = "GID_failover_push"


@pytest.fixture(scope="module")
def cluster(box: Sandbox) -> Iterator[Cluster]:
    cli = Cli(box.dir, box.addresses())
    view = Cluster(cli, box.addresses())
    try:
        yield view
    finally:
        view.close()


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with serving_sandbox(Path(tmp_path_factory.mktemp("access-failover")), controllers=1, replicas=3) as sandbox:
        cli = Cli(sandbox.dir, sandbox.addresses())
        cli.json("updateTopic", "-c", CLUSTER, "-t", TOPIC, "-r", "2", "-w", "2")
        cli.json("updateTopic", "-c", CLUSTER, "-t", ACK_TOPIC, "-r", "2", "-w", "2")
        cli.json("updateTopic", "-c", CLUSTER, "-t", PUSH_TOPIC, "-r", "2", "-w", "2")
        cli.json("updateTopic", "-c", CLUSTER, "-t", FIFO_TOPIC, "-r", "2", "-w", "2",
                 "--attributes", "+message.type=FIFO")  # fmt: skip
        cli.json("updateSubGroup", "-c", CLUSTER, "-g", GROUP)
        cli.json("updateSubGroup", "-c", CLUSTER, "-g", ACK_GROUP)
        cli.json("updateSubGroup", "-c", CLUSTER, "-g", PUSH_GROUP)
        made = cli.json("updateSubGroup", "-c", CLUSTER, "-g", FIFO_GROUP, "--consume-orderly", "true")

        wait_until(
            lambda: all_learnt(cli, sandbox, made["metadataVersion"]),
            60,
            "every broker to learn the topics and the groups",
        )
        yield sandbox


class Sender:
    """Sends one message every few milliseconds on a thread until stopped; records what each send() told."""

    def __init__(self, endpoints: str) -> None:
        self.producer = Producer(ClientConfiguration(endpoints, Credentials()), (TOPIC,))
        self.acked: list[str] = []
        self.failed: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="failover-sender", daemon=True)

    def __enter__(self) -> Sender:
        self.producer.startup()
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(30)
        self.producer.shutdown()

    def _run(self) -> None:
        i = 0
        while not self._stop.is_set():
            m = Message()
            m.topic, m.body = TOPIC, f"m-{i}".encode()
            try:
                self.acked.append(self.producer.send(m).message_id)
            except Exception as exc:  # what the client raises is the outcome under test
                self.failed.append(f"m-{i}: {exc}")
            i += 1
            time.sleep(0.02)


def consume_all(endpoints: str, expected: set[str], timeout: float) -> set[str]:
    consumer = SimpleConsumer(ClientConfiguration(endpoints, Credentials()), GROUP, {TOPIC: FilterExpression()}, 2)
    consumer.startup()
    got: set[str] = set()
    try:
        deadline = time.monotonic() + timeout
        while not expected <= got and time.monotonic() < deadline:
            for m in consumer.receive(32, 30):
                got.add(m.message_id)
                consumer.ack(m)
    finally:
        consumer.shutdown()
    return got


def sends_across(box: Sandbox, change: Callable[[Sender], None]) -> None:
    """Send throughout `change` and 50 sends more; no send may fail, and each acknowledged one is consumed."""
    with Sender(box.proxy_endpoints()) as sender:
        wait_until(lambda: len(sender.acked) >= 20, 30, "sends before the change")
        change(sender)
        at = len(sender.acked)
        wait_until(lambda: len(sender.acked) >= at + 50, 60, "sends after the change")
    assert sender.failed == []
    alive = ";".join(a.proxyAddress for a in box.agents() if a.pid)
    assert set(sender.acked) <= consume_all(alive, set(sender.acked), 90)


def test_a_producer_keeps_sending_through_a_graceful_transfer(box: Sandbox, cluster: Cluster) -> None:
    master = cluster.healthy()
    target = master.slaves()[0]

    def transfer(_sender: Sender) -> None:
        cluster.cli.json("transferMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(target))
        cluster.wait_master(lambda m: m.broker_id == target, 30, "the target as master")

    sends_across(box, transfer)


def test_a_producer_keeps_sending_while_the_master_hangs(box: Sandbox, cluster: Cluster) -> None:
    """SIGSTOP: the master neither answers nor refuses. The access points stop waiting for it once the controller
    names another master. A client connected to the hung host's own access point would wait for its deadline
    (the Python client has no keepalive): its channel picks the first of the sorted addresses, so the master is
    moved off that host first."""
    master = cluster.healthy()
    first = next(a.id for a in box.agents() if a.proxyAddress == min(a.proxyAddress for a in box.agents()))
    if cluster.agent_of(master.broker_id) == first:
        target = next(i for i in master.slaves() if cluster.agent_of(i) != first)
        cluster.cli.json("transferMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(target))
        master = cluster.wait_master(lambda m: m.broker_id == target, 30, "the master off the first host")
    hung = cluster.agent_of(master.broker_id)

    def hang(_sender: Sender) -> None:
        box.signal(hung, signal.SIGSTOP)
        try:
            cluster.wait_master(lambda m: m.broker_id != master.broker_id, 30, "a new master")
            time.sleep(2)  # sends keep going while the old master stays stopped
        finally:
            box.signal(hung, signal.SIGCONT)

    sends_across(box, hang)


def test_a_producer_keeps_sending_while_the_master_is_killed(box: Sandbox, cluster: Cluster) -> None:
    master = cluster.healthy()
    killed = cluster.agent_of(master.broker_id)

    def kill(_sender: Sender) -> None:
        box.signal(killed, signal.SIGKILL)
        cluster.wait_master(lambda m: m.broker_id != master.broker_id, 30, "a new master")

    sends_across(box, kill)


def test_deliveries_are_acked_on_the_new_master_after_a_failover(box: Sandbox, cluster: Cluster) -> None:
    """Receipt handles name the broker set, not a broker: messages received before the master dies are acked
    through the access points after it, on the new master, and never come back."""
    for agent in box.agents():
        if not agent.pid:  # killed by the test before
            box.start(agent.id)
    master = cluster.healthy()
    endpoints = box.proxy_endpoints()
    producer = Producer(ClientConfiguration(endpoints, Credentials()), (TOPIC,))
    producer.startup()
    try:
        sent = set()
        for i in range(10):
            m = Message()
            m.topic, m.body = TOPIC, f"acked-{i}".encode()
            sent.add(producer.send(m).message_id)
    finally:
        producer.shutdown()
    consumer = SimpleConsumer(ClientConfiguration(endpoints, Credentials()), GROUP, {TOPIC: FilterExpression()}, 2)
    consumer.startup()
    try:
        received: dict[str, Message] = {}
        deadline = time.monotonic() + 60
        while not sent <= set(received) and time.monotonic() < deadline:
            received.update((m.message_id, m) for m in consumer.receive(32, 60))
        assert sent <= set(received)
        box.signal(cluster.agent_of(master.broker_id), signal.SIGKILL)
        cluster.wait_master(lambda m: m.broker_id != master.broker_id, 30, "a new master")
        for m in received.values():
            consumer.ack(m)  # raises unless the new master acks it
        again = [m.message_id for _ in range(3) for m in consumer.receive(32, 10)]
        assert not sent & set(again)
    finally:
        consumer.shutdown()


def kill_master(box: Sandbox, cluster: Cluster, master: Master) -> None:
    box.signal(cluster.agent_of(master.broker_id), signal.SIGKILL)
    cluster.wait_master(lambda m: m.broker_id != master.broker_id, 30, "a new master")


def test_acked_messages_are_not_delivered_again_after_a_failover(box: Sandbox, cluster: Cluster) -> None:
    """The consumer state's failover invariant (an acked message is never delivered again) through the client: the
    group acks some messages and holds others received but unacked; the master is SIGKILLed. On the new master the
    group gets the ones it never received, the unacked ones again once their invisibility ends (delivery attempt 2),
    and none of the acked ones."""
    master = all_up(box, cluster)
    endpoints = box.proxy_endpoints()
    sent = set(send_bodies(endpoints, ACK_TOPIC, [f"ack-{i}" for i in range(30)]))
    invisible_s = 15
    config = ClientConfiguration(endpoints, Credentials())
    consumer = SimpleConsumer(config, ACK_GROUP, {ACK_TOPIC: FilterExpression()}, 2)
    consumer.startup()
    try:
        acked: set[str] = set()
        held: dict[str, float] = {}  # received, never acked: id -> when its invisibility ends
        deadline = time.monotonic() + 30
        while len(acked) + len(held) < 15 and time.monotonic() < deadline:
            for m in consumer.receive(4, invisible_s):
                if len(acked) < 10:
                    consumer.ack(m)
                    acked.add(m.message_id)
                else:
                    held[m.message_id] = time.monotonic() + invisible_s
        assert len(acked) == 10 and held, (len(acked), len(held))

        kill_master(box, cluster, master)

        again: dict[str, tuple[int, float]] = {}  # id -> (delivery attempt, when received)
        deadline = time.monotonic() + 45
        while not sent - acked <= set(again) and time.monotonic() < deadline:
            for m in consumer.receive(32, 30):
                assert m.message_id not in again, f"{m.message_id} delivered twice after the failover"
                again[m.message_id] = (m.delivery_attempt, time.monotonic())
                consumer.ack(m)
        assert not acked & set(again), "acked before the failover, delivered again after it"
        assert set(again) == sent - acked
        for message_id, ends in held.items():
            attempt, at = again[message_id]
            assert attempt == 2 and at >= ends - 1.0, (message_id, attempt, at - ends)
        assert all(again[i][0] == 1 for i in sent - acked - set(held))
        assert consumer.receive(32, 30) == []
    finally:
        consumer.shutdown()


def test_a_fifo_groups_messages_are_consumed_in_send_order_across_a_failover(box: Sandbox, cluster: Cluster) -> None:
    """A FIFO topic and an orderly group: three message groups, half of each sent and part consumed before the
    master is SIGKILLed, one batch received and not acked when it dies, the rest sent to and consumed from the new
    master. The unacked batch comes back first once its invisibility ends (attempt 2): each message group is
    acked in send order, every message once."""
    master = all_up(box, cluster)
    endpoints = box.proxy_endpoints()
    groups = ["g0", "g1", "g2"]
    per_group = 20
    for g in groups:
        send_bodies(endpoints, FIFO_TOPIC, [f"{g}:{i}" for i in range(per_group // 2)], group=g)
    config = ClientConfiguration(endpoints, Credentials())
    consumer = SimpleConsumer(config, FIFO_GROUP, {FIFO_TOPIC: FilterExpression()}, 2)
    consumer.startup()
    order: dict[str, list[int]] = {g: [] for g in groups}
    """Each message group's acked messages, in the order received."""
    attempts: dict[str, int] = {}

    def receive_until(count: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while sum(map(len, order.values())) < count and time.monotonic() < deadline:
            for m in consumer.receive(4, 20):
                group, i = m.body.decode().split(":")
                assert m.message_group == group
                order[group].append(int(i))
                attempts[m.body.decode()] = m.delivery_attempt
                consumer.ack(m)

    try:
        receive_until(12, 30)
        assert 12 <= sum(map(len, order.values())) < len(groups) * per_group // 2
        held = wait_until(lambda: consumer.receive(4, 10), 10, "a batch to hold unacked")
        kill_master(box, cluster, master)
        alive = ";".join(a.proxyAddress for a in box.agents() if a.pid)
        for g in groups:
            send_bodies(alive, FIFO_TOPIC, [f"{g}:{i}" for i in range(per_group // 2, per_group)], group=g)
        receive_until(len(groups) * per_group, 45)
        assert consumer.receive(32, 20) == []
    finally:
        consumer.shutdown()
    assert order == {g: list(range(per_group)) for g in groups}
    assert all(attempts[m.body.decode()] == 2 for m in held)


class Seen(MessageListener):  # type: ignore[misc]
    """A push consumer's listener that consumes every message and counts each id's deliveries."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.deliveries: dict[str, int] = {}

    def consume(self, message: Message) -> ConsumeResult:
        with self.lock:
            self.deliveries[message.message_id] = self.deliveries.get(message.message_id, 0) + 1
        return ConsumeResult.SUCCESS

    def ids(self) -> dict[str, int]:
        with self.lock:
            return dict(self.deliveries)


def test_a_push_consumer_consumes_through_a_failover_and_gets_no_acked_message_again(
    box: Sandbox, cluster: Cluster
) -> None:
    """A PushConsumer (long-polling receives, auto-renewed invisibility, acks after its listener) consumes a batch
    that is then acked in full; the master is SIGKILLed; the next batch, sent to the new master, reaches the same
    consumer, and nothing of the first batch comes back. The master is moved off the host whose access point the
    client's channel uses first (the first of the sorted addresses): a push consumer's renewals live on the access
    point that delivered."""
    master = all_up(box, cluster)
    first = next(a.id for a in box.agents() if a.proxyAddress == min(a.proxyAddress for a in box.agents()))
    if cluster.agent_of(master.broker_id) == first:
        target = next(i for i in master.slaves() if cluster.agent_of(i) != first)
        cluster.cli.json("transferMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(target))
        master = cluster.wait_master(lambda m: m.broker_id == target, 30, "the master off the first host")
    endpoints = box.proxy_endpoints()
    seen = Seen()
    consumer = PushConsumer(ClientConfiguration(endpoints, Credentials()), PUSH_GROUP, seen,
                            {PUSH_TOPIC: FilterExpression()})  # fmt: skip
    consumer.startup()
    try:
        before = set(send_bodies(endpoints, PUSH_TOPIC, [f"push-before-{i}" for i in range(20)]))
        wait_until(lambda: before <= set(seen.ids()), 60, "the first batch consumed")

        def all_acked() -> bool:
            doc = cluster.cli.json("consumerProgress", "-g", PUSH_GROUP, "-t", PUSH_TOPIC)
            return bool(doc["diffTotal"] == 0 and doc["inflightTotal"] == 0)

        wait_until(all_acked, 30, "the first batch acked")
        kill_master(box, cluster, master)
        alive = ";".join(a.proxyAddress for a in box.agents() if a.pid)
        after = set(send_bodies(alive, PUSH_TOPIC, [f"push-after-{i}" for i in range(20)]))
        wait_until(lambda: after <= set(seen.ids()), 90, "the second batch consumed after the failover")
        time.sleep(2)  # room for a redelivery of the first batch to show
    finally:
        consumer.shutdown()
    deliveries = seen.ids()
    assert {i: n for i, n in deliveries.items() if i in before and n != 1} == {}, "acked, then delivered again"
    assert set(deliveries) == before | after
