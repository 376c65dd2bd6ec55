"""Consumer groups through failovers of a real broker set: nothing acked comes back, nothing is lost.

One sandbox serves the module: one controller and one broker set of three replicas, each its own mqagent, with the
smallest commit-log segments and a consumer-state snapshot every second (for retention, the last test). Producers
(``GroupProducer``, a thread) send while a consumer (``GroupConsumer``) receives and acks, and both follow the
master the controller names through a SIGKILL of the master or a ``mqadmin transferMaster``; everything they are
told goes to a ``Ledger`` whose checkers (tests/harness/consumer_ledger.py, shared with the chaos suite) state the
invariant: an ack answered before the failover is final, every PUT_OK message is acked in the end, a delivery left
unacked comes back with the next attempt, and an orderly group keeps each message group's order. Tests start from
a full SyncStateSet and restart what they kill.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.config import MIN_COMMIT_LOG_FILE_SIZE
from agents.consumer import snapshot
from agents.metadata import MESSAGE_GROUP
from agents.store.layout import CONSUMER_SNAPSHOT, STORE_DIR
from mqadmin_py.sandbox import Sandbox
from mqbase.client import AgentClient
from mqbase.errors import MqError, UsageError
from mqbase.properties import read_properties, write_properties_atomic
from mqbase.proto import agent_pb2 as pb
from tests.harness.consumer_clients import GroupConsumer, GroupProducer, payload
from tests.harness.consumer_ledger import Ledger, check_all
from tests.harness.sandbox import BROKER, CLUSTER, Cli, Cluster, Master, ha_status, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

INVISIBLE_MS = 30_000
"""Longer than a failover: what a test leaves unacked stays invisible through it unless the test says otherwise."""
QUEUES = 4
BROKER_CONF = {
    "mappedFileSizeCommitLog": str(MIN_COMMIT_LOG_FILE_SIZE),
    "flushConsumerOffsetInterval": "1000",
    "cleanResourceInterval": "200",
}


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with serving_sandbox(
        Path(tmp_path_factory.mktemp("failover")), controllers=1, replicas=3, broker_config=BROKER_CONF
    ) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def cluster(box: Sandbox) -> Iterator[Cluster]:
    cli = Cli(box.dir, box.addresses())
    c = Cluster(cli, box.addresses())
    yield c
    c.close()


@pytest.fixture(autouse=True)
def restored(box: Sandbox, cluster: Cluster) -> Iterator[None]:
    """Each test starts from, and leaves, every agent running and a full SyncStateSet."""
    cluster.healthy()
    yield
    for agent in box.agents():
        box.start(agent.id)
    cluster.healthy()


def find_master(box: Sandbox) -> str | None:
    """The master's address as the controller names it now (None while there is none)."""
    try:
        return box.master_agent(BROKER)[1].brokerAddress
    except (UsageError, MqError):
        return None


def every_replica_serves(box: Sandbox, topic: str, group: str = "") -> bool:
    """Every agent serves `topic` (and knows `group`), not only the first (the harness's `learnt`): whichever replica
    becomes master applies their config."""
    with AgentClient(timeout=3.0) as agents:
        for agent in box.agents():
            try:
                r = agents.call(agent.address, "ListBrokers", pb.ListBrokersRequest())
            except MqError:
                return False
            if any(topic not in b.topics or (group and group not in b.subscription_groups) for b in r.brokers):
                return False
    return True


def create(box: Sandbox, cluster: Cluster, topic: str, group: str = "", queues: int = QUEUES) -> None:
    """`topic` (FIFO when an orderly `group` is given) and that group, learnt by every replica."""
    if group:
        count = str(queues)
        cluster.cli("updateTopic", "-c", CLUSTER, "-t", topic, "-r", count, "-w", count,
                    "--attributes", "+message.type=FIFO")  # fmt: skip
        cluster.cli("updateSubGroup", "-c", CLUSTER, "-g", group, "--consume-orderly", "true")
    else:
        cluster.create_topic(topic, queues)
    wait_until(lambda: every_replica_serves(box, topic, group), 30, f"every replica to learn {topic} {group}")


def kill_master(box: Sandbox, cluster: Cluster, master: Master) -> str:
    """SIGKILL the master's agent; its id, for the restart."""
    agent = cluster.agent_of(master.broker_id)
    box.signal(agent, signal.SIGKILL)
    return agent


def transfer(cluster: Cluster, to: int) -> None:
    moved = cluster.cli.json("transferMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(to))
    assert moved["state"] == "done", moved


def redelivered(ledger: Ledger, payloads: set[str]) -> dict[str, list[int]]:
    """payload → the delivery attempts it was handed out with, in order."""
    out: dict[str, list[int]] = {p: [] for p in payloads}
    for d in ledger.deliveries:
        if d.payload in out:
            out[d.payload].append(d.attempt)
    return out


def consume(
    consumer: GroupConsumer, until: int, *, held: list[pb.ReceivedMessage], returned: list[pb.ReceivedMessage]
) -> None:
    """Receive and ack until `until` messages are acked, leaving the 5th and 10th first deliveries of every ten unacked
    (into `held`, acked later with their handle, and `returned`, made visible again later), three of each."""
    n = 0
    deadline = time.monotonic() + 120
    while len(consumer.ledger.acks) < until or len(held) < 3 or len(returned) < 3:
        assert time.monotonic() < deadline, f"{len(consumer.ledger.acks)} acked of {until} in 120 s"
        ack = []
        for m in consumer.receive(8, INVISIBLE_MS, wait_ms=1000):
            n += 1
            if m.delivery_attempt == 1 and n % 10 == 5 and len(held) < 3:
                held.append(m)
            elif m.delivery_attempt == 1 and n % 10 == 0 and len(returned) < 3:
                returned.append(m)
            else:
                ack.append(m)
        assert set(consumer.ack(ack).values()) <= {20000}


def failover_keeps_acks(box: Sandbox, cluster: Cluster, name: str, move: str) -> tuple[Master, Master, Ledger]:
    """The module's invariant through one failover (`move`: "kill" or "transfer") with a producer running; (the master
    before, the master after, the ledger). A killed master is left down."""
    create(box, cluster, name)
    before = cluster.healthy()
    ledger = Ledger()
    consumer = GroupConsumer(lambda: find_master(box), BROKER, "G" + name, name, ledger)
    held: list[pb.ReceivedMessage] = []
    returned: list[pb.ReceivedMessage] = []
    try:
        with GroupProducer(lambda: find_master(box), BROKER, name, ledger, name + "-") as producer:
            consume(consumer, 30, held=held, returned=returned)
            acked_before = ledger.acked()
            if move == "kill":
                kill_master(box, cluster, before)
            else:
                transfer(cluster, before.slaves()[0])
            # Handles handed out by the old master name the set: the new master acks them, and makes the others
            # visible again, from the state it rebuilt from its own log.
            assert consumer.ack(held) == dict.fromkeys(map(payload, held), 20000)
            assert all(consumer.change_invisible(m, 0) is not None for m in returned)
            after = cluster.wait_master(lambda m: m.epoch > before.epoch, 60, "the new master")
            sent_after = producer.count() + 30
            consume(consumer, len(ledger.acks) + 30, held=held, returned=returned)
            wait_until(lambda: producer.count() >= sent_after, 60, "sends to the new master")
        consumer.drain(INVISIBLE_MS, 90)
    finally:
        consumer.close()
    assert after.broker_id != before.broker_id
    assert not check_all(ledger), check_all(ledger)
    assert not acked_before & {d.payload for d in ledger.deliveries if d.attempt > 1}
    back = redelivered(ledger, {payload(m) for m in returned})
    assert all(attempts == [1, 2] for attempts in back.values()), back
    assert len(ledger.sent) >= 60
    return before, after, ledger


def test_a_group_consumes_through_a_sigkill_and_the_restarted_master_rejoins_with_the_same_state(
    box: Sandbox, cluster: Cluster
) -> None:
    before, after, _ = failover_keeps_acks(box, cluster, "T_kill", "kill")
    # The old master comes back as a slave of the new one; made master again, it serves the same state.
    box.start(cluster.agent_of(before.broker_id))
    cluster.healthy()
    wait_until(lambda: every_replica_serves(box, "T_kill"), 30, "the restarted replica to learn the topic")
    assert ha_status(cluster.address_of(before.broker_id)).role == "slave"
    ledger = Ledger()
    consumer = GroupConsumer(lambda: find_master(box), BROKER, "GT_kill", "T_kill", ledger)
    try:
        with GroupProducer(lambda: find_master(box), BROKER, "T_kill", ledger, "T_kill-back-") as producer:
            wait_until(lambda: producer.count() >= 4, 30, "four more sends")
        got = consumer.receive(8, INVISIBLE_MS, wait_ms=1000)
        assert got, "the new messages were not delivered"
        kept, acked = got[0], got[1:]
        consumer.ack(acked)
        progress = consumer.progress()
        assert sum(q.inflight for q in progress) >= 1
        transfer(cluster, before.broker_id)
        back = cluster.master()
        assert back is not None and (back.broker_id, back.epoch) == (before.broker_id, after.epoch + 1)
        assert consumer.progress() == progress
        assert consumer.ack([kept]) == {payload(kept): 20000}
        consumer.drain(INVISIBLE_MS, 60)
    finally:
        consumer.close()
    assert not check_all(ledger), check_all(ledger)


def test_a_group_consumes_through_a_graceful_transfer(box: Sandbox, cluster: Cluster) -> None:
    before, after, _ = failover_keeps_acks(box, cluster, "T_move", "transfer")
    assert ha_status(cluster.address_of(before.broker_id)).role == "slave"
    assert after.epoch == before.epoch + 1


@pytest.mark.parametrize("move", ["kill", "transfer"])
def test_an_orderly_group_keeps_each_message_groups_order_through_a_failover(
    box: Sandbox, cluster: Cluster, move: str
) -> None:
    """A message left unacked blocks its queue on the new master too, until it comes back first (attempt 2); the
    master is SIGKILLed (and restarted afterwards) or hands its role over with transferMaster."""
    topic, group = f"T_fifo_{move}", f"G_fifo_{move}"
    create(box, cluster, topic, group)
    before = cluster.healthy()
    ledger = Ledger()
    consumer = GroupConsumer(lambda: find_master(box), BROKER, group, topic, ledger)
    groups = tuple(f"order-{i}" for i in range(6))
    blocked: list[pb.ReceivedMessage] = []  # the held message, then the later ones of its group in its batch

    def take(target: int) -> bool:
        """Receive a batch and ack it in order, one by one, until `target` acks; the 10th message received is held
        the first time it is delivered, and so is every later message of its message group in that batch (a FIFO
        consumer stops at a failure)."""
        stop = ""
        for m in consumer.receive(8, INVISIBLE_MS, wait_ms=1000):
            group = m.message.properties[MESSAGE_GROUP]
            if not blocked and len(ledger.acks) >= 10:
                stop = group
            if stop and group == stop:
                blocked.append(m)
            else:
                assert consumer.ack([m]) == {payload(m): 20000}
        return len(ledger.acks) >= target

    try:
        with GroupProducer(lambda: find_master(box), BROKER, topic, ledger, "fifo-", groups) as producer:
            wait_until(lambda: take(30), 120, "30 acks before the failover")
            killed = kill_master(box, cluster, before) if move == "kill" else None
            if killed is None:
                transfer(cluster, before.slaves()[0])
            cluster.wait_master(lambda m: m.epoch > before.epoch, 60, "the new master")
            wait_until(lambda: take(60), 120, "30 more acks after the failover, with one message group blocked")
            held_group = blocked[0].message.properties[MESSAGE_GROUP]
            [held_at] = [d.answered_ms for d in ledger.deliveries if d.handle == blocked[0].receipt_handle]
            during = [d for d in ledger.deliveries if d.message_group == held_group and d.asked_ms > held_at]
            for m in blocked:  # a FIFO consumer's nack of what it could not process: visible again, first
                assert consumer.change_invisible(m, 0) is not None
            more = producer.count() + 10
            wait_until(lambda: producer.count() >= more, 30, "ten more sends")
        consumer.drain(INVISIBLE_MS, 90)
        if killed is not None:
            box.start(killed)
    finally:
        consumer.close()
    assert not check_all(ledger, fifo=True), check_all(ledger, fifo=True)
    assert not during, f"the blocked message group was delivered on: {during}"
    assert redelivered(ledger, {payload(blocked[0])})[payload(blocked[0])] == [1, 2]


def segment_bases(box: Sandbox, agent_id: str) -> list[int]:
    directory = box.dir / "store" / agent_id / BROKER / STORE_DIR / "commitlog"
    return sorted(int(p.name) for p in directory.iterdir() if p.name.isdigit())


def covered(box: Sandbox, agent_id: str) -> int:
    """The commit-log offset the replica's consumer-state snapshot covers (0 without one)."""
    path = box.dir / "store" / agent_id / BROKER / STORE_DIR / CONSUMER_SNAPSHOT
    return snapshot.decode(path.read_bytes()).covered if path.exists() else 0


def restart_with(box: Sandbox, cluster: Cluster, key: str, value: str) -> None:
    """Stop every agent, set `key` in each broker's config file (what a start reads), start them all again."""
    for agent in box.agents():
        box.stop(agent.id)
    for agent in box.agents():
        for broker in agent.brokers:
            write_properties_atomic(broker.configFile, {**read_properties(broker.configFile), key: value})
        box.start(agent.id)
    cluster.healthy()


def expire_everything(cluster: Cluster) -> None:
    """Retention at every run from now on, and every finished segment expired (run-time keys, until a restart)."""
    for key, value in (("fileReservedTime", "0"), ("deleteWhen", ";".join(str(h) for h in range(24)))):
        cluster.cli("updateBrokerConfig", "-c", CLUSTER, "-k", key, "-v", value)


def held_by_the_snapshot(box: Sandbox, marks: dict[str, int]) -> bool:
    """Every agent logged, since `marks` (agent → log size), a retention run held back by the snapshot's floor."""
    return all(
        b"by the retained floor" in Path(agent.logFile).read_bytes()[marks[agent.id] :] for agent in box.agents()
    )


def test_retention_under_a_lagging_group_keeps_the_snapshot_floor_and_shows_the_lag(
    box: Sandbox, cluster: Cluster
) -> None:
    """Retention waits for the consumer-state snapshot: with snapshots paused (a restart with an hour's interval),
    expired segments past the snapshot's cut stay; once snapshots run again they go, and the lagging group's offset
    shows below the queue's min offset."""
    create(box, cluster, "T_lag", queues=1)
    ledger = Ledger()
    consumer = GroupConsumer(lambda: find_master(box), BROKER, "G_lag", "T_lag", ledger)
    try:
        with GroupProducer(lambda: find_master(box), BROKER, "T_lag", ledger, "lag-") as producer:
            wait_until(lambda: producer.count() >= 1, 30, "a first message")
        consumer.drain(INVISIBLE_MS, 30)  # the group consumed everything there is now
        consumed = consumer.progress()[0].consumer_offset
        restart_with(box, cluster, "flushConsumerOffsetInterval", str(3600 * 1000))
        cut = {agent.id: covered(box, agent.id) for agent in box.agents()}
        marks = {agent.id: Path(agent.logFile).stat().st_size for agent in box.agents()}
        client = AgentClient(timeout=10.0)
        try:
            master = find_master(box)
            assert master is not None
            for i in range(10):  # about two and a half segments of 1 MiB messages: the group falls behind them
                message = pb.Message(topic="T_lag", queue_id=0, body=bytes([i]) * (1024 * 1024))
                request = pb.SendMessageRequest(broker=pb.BrokerRef(broker_name=BROKER), message=message)
                assert client.call(master, "SendMessage", request).code == 0
        finally:
            client.close()
        expire_everything(cluster)
        wait_until(lambda: held_by_the_snapshot(box, marks), 30, "retention runs held back by the snapshot")
        for agent in box.agents():  # every expired segment that holds or follows the snapshot's cut is still there
            assert segment_bases(box, agent.id)[0] <= cut[agent.id] == covered(box, agent.id), agent.id
        assert consumer.progress()[0].min_offset <= consumed

        restart_with(box, cluster, "flushConsumerOffsetInterval", BROKER_CONF["flushConsumerOffsetInterval"])
        expire_everything(cluster)  # a run-time change lasts until the restart

        def lagging() -> pb.QueueProgress | None:
            # On every replica, retention never deletes past its snapshot's covered offset (read after the log's
            # start, and it only grows): the log from there on is what a rebuild reads.
            for agent in box.agents():
                start = segment_bases(box, agent.id)[0]
                assert start <= covered(box, agent.id), f"{agent.id} deleted up to {start}"
            [queue] = consumer.progress()
            return queue if queue.min_offset > queue.consumer_offset else None

        lag = wait_until(lagging, 60, "retention to delete past the lagging group's offset", interval=0.3)
        assert lag.consumer_offset == consumed and lag.broker_offset == consumed + 10
        # The lagging group resumes at the queue's first message still stored.
        [first] = consumer.receive(1, INVISIBLE_MS, wait_ms=5000)
        assert first.queue_offset == lag.min_offset
    finally:
        for key, value in (("fileReservedTime", "72"), ("deleteWhen", "04")):
            cluster.cli("updateBrokerConfig", "-c", CLUSTER, "-k", key, "-v", value)
        consumer.close()
