"""Transactional messages through the official Python client on a real broker set: a half message is invisible
until its commit, a rollback never appears, a producer that dies before its end is asked back (check-back) by the
master, an end is idempotent, a transaction checked back too often is dropped, and a SIGKILL of the master between
the half message and its end loses nothing and delivers the committed message once.

One controller, one broker set of three replicas on three agents; the clients are given every agent's access
point. The check-backs run fast here (``transactionTimeOut`` and ``transactionCheckInterval`` 1.5 s); a checker
that answers UNKNOWN keeps a transaction open, up to ``transactionCheckMax`` (100 here, 3 in the drop's test).
"""

from __future__ import annotations

import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from rocketmq import (
    ClientConfiguration,
    Credentials,
    FilterExpression,
    Message,
    Producer,
    SimpleConsumer,
    TransactionChecker,
    TransactionResolution,
)

from agents.access.protocol import service, stubs, v2
from agents.transaction.half import CHECK_MAX_TOPIC
from mqadmin_py.sandbox import Sandbox
from mqbase.client import AgentClient
from mqbase.proto import agent_pb2 as apb
from tests.harness.sandbox import BROKER, Cli, Cluster, all_learnt, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CLUSTER = "DefaultCluster"
TOPIC = "TxOrders"
GROUP = "GID_tx"
CHECKS = {"transactionTimeOut": "1500", "transactionCheckInterval": "1500", "transactionCheckMax": "100"}


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    directory = Path(tmp_path_factory.mktemp("transactions"))
    with serving_sandbox(directory, controllers=1, replicas=3, broker_config=CHECKS) as sandbox:
        cli = Cli(sandbox.dir, sandbox.addresses())
        cli.json("updateTopic", "-c", CLUSTER, "-t", TOPIC, "-r", "2", "-w", "2",
                 "--attributes", "+message.type=TRANSACTION")  # fmt: skip
        made = cli.json("updateSubGroup", "-c", CLUSTER, "-g", GROUP)
        wait_until(lambda: all_learnt(cli, sandbox, made["metadataVersion"]), 60, "every broker to learn the topic")
        yield sandbox


@pytest.fixture(scope="module")
def cluster(box: Sandbox) -> Iterator[Cluster]:
    view = Cluster(Cli(box.dir, box.addresses()), box.addresses())
    try:
        yield view
    finally:
        view.close()


class Answers(TransactionChecker):  # type: ignore[misc]
    """A checker answering each message by its body's prefix (``commit-``, ``rollback-``; anything else: unknown),
    recording what it was asked."""

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()
        self.lock = threading.Lock()

    def check(self, message: Message) -> TransactionResolution:
        with self.lock:
            self.asked[message.message_id] += 1
        body = bytes(message.body).decode()
        if body.startswith("commit-"):
            return TransactionResolution.COMMIT
        if body.startswith("rollback-"):
            return TransactionResolution.ROLLBACK
        return TransactionResolution.UNKNOWN


def producer(box: Sandbox, checker: TransactionChecker | None = None) -> Producer:
    p = Producer(ClientConfiguration(box.proxy_endpoints(), Credentials()), (TOPIC,), checker or Answers())
    p.startup()
    return p


def half(p: Producer, body: str) -> tuple[object, str]:
    """Send one half message; its transaction and message id."""
    m = Message()
    m.topic, m.body = TOPIC, body.encode()
    transaction = p.begin_transaction()
    return transaction, p.send(m, transaction).message_id


def received(box: Sandbox, wanted: set[str], seconds: float, group: str = GROUP) -> Counter[str]:
    """Every message id the group receives (and acks) within `seconds`, stopping early once `wanted` all came."""
    consumer = SimpleConsumer(ClientConfiguration(box.proxy_endpoints(), Credentials()), group,
                              {TOPIC: FilterExpression()}, 5)  # fmt: skip
    consumer.startup()
    got: Counter[str] = Counter()
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not (wanted and wanted <= set(got)):
            for m in consumer.receive(16, 15):
                got[m.message_id] += 1
                consumer.ack(m)
    finally:
        consumer.shutdown()
    return got


def stored(address: str, topic: str) -> Counter[str]:
    """How many times each message id is stored in `topic` on the master at `address`."""
    copies: Counter[str] = Counter()
    with AgentClient(timeout=10.0) as agents:
        for queue_id in range(2):
            offset = 0
            while True:
                request = apb.PullMessageRequest(topic=topic, queue_id=queue_id, queue_offset=offset, max_messages=64)
                answer = agents.call(address, "PullMessage", request)
                if answer.code != 0 or not answer.messages:
                    break
                copies.update(m.message.properties["UNIQ_KEY"] for m in answer.messages)
                offset = answer.next_offset
    return copies


def test_a_half_message_is_invisible_until_commit_and_a_rollback_never_appears(box: Sandbox) -> None:
    p = producer(box)
    try:
        committed, committed_id = half(p, "hold-a1")  # checked back meanwhile: the checker answers UNKNOWN
        rolled, rolled_id = half(p, "hold-a2")
        assert not received(box, set(), 4)  # neither is visible before its end
        committed.commit()  # type: ignore[attr-defined]
        rolled.rollback()  # type: ignore[attr-defined]
    finally:
        p.shutdown()
    got = received(box, {committed_id}, 30)
    assert got[committed_id] == 1 and rolled_id not in got


def test_a_producer_that_dies_before_its_end_is_checked_back(box: Sandbox) -> None:
    """The half messages of a producer gone before its end are asked about by the master, through another
    producer of the topic: the one its checker commits is delivered once, the rolled back one never."""
    gone = producer(box)
    _, commit_id = half(gone, "commit-b1")
    _, rollback_id = half(gone, "rollback-b2")
    gone.shutdown()  # neither ended
    answers = Answers()
    checking = producer(box, answers)
    try:
        wait_until(lambda: answers.asked[commit_id] and answers.asked[rollback_id], 60, "both to be checked back")
        got = received(box, {commit_id}, 30)
    finally:
        checking.shutdown()
    assert got[commit_id] == 1 and rollback_id not in got


def end(box: Sandbox, message_id: str, transaction_id: str, resolution: int) -> int:
    """A raw EndTransaction through the first access point; its code."""
    with grpc.insecure_channel(box.proxy_endpoints().split(";")[0]) as channel:
        request = service.EndTransactionRequest(
            topic=v2.Resource(name=TOPIC), message_id=message_id, transaction_id=transaction_id,
            resolution=resolution, source=v2.SOURCE_CLIENT,
        )  # fmt: skip
        answer = stubs.MessagingServiceStub(channel).EndTransaction(
            request, metadata=(("x-mq-client-id", "raw-end"),), timeout=10
        )
        return int(answer.status.code)


def test_an_end_is_idempotent_the_first_decision_stands_and_the_other_is_refused(
    box: Sandbox, cluster: Cluster
) -> None:
    p = producer(box)
    try:
        m = Message()
        m.topic, m.body = TOPIC, b"commit-c1"
        transaction = p.begin_transaction()
        receipt = p.send(m, transaction)
        message_id, transaction_id = receipt.message_id, receipt.transaction_id
    finally:
        p.shutdown()
    assert transaction_id.startswith(BROKER + "@")
    assert [end(box, message_id, transaction_id, r) for r in (v2.COMMIT, v2.COMMIT, v2.ROLLBACK)] == [
        20000,
        20000,
        v2.INVALID_TRANSACTION_ID,  # the commit stood: this rollback is refused, and changes nothing
    ]
    assert end(box, message_id, transaction_id.replace("@", "@9", 1), v2.COMMIT) == v2.INVALID_TRANSACTION_ID
    assert end(box, "other", transaction_id, v2.COMMIT) == v2.INVALID_TRANSACTION_ID
    assert end(box, message_id, "", v2.COMMIT) == v2.INVALID_TRANSACTION_ID
    assert stored(cluster.healthy().address, TOPIC)[message_id] == 1
    assert received(box, {message_id}, 30)[message_id] == 1


def test_a_commit_after_its_transaction_was_rolled_back_fails_in_the_official_client(
    box: Sandbox, cluster: Cluster
) -> None:
    """As when a check-back was answered ROLLBACK before the producer's own commit arrived: the client's commit()
    raises, and the message is never stored in its topic."""
    p = producer(box)
    try:
        m = Message()
        m.topic, m.body = TOPIC, b"late-e1"
        transaction = p.begin_transaction()
        receipt = p.send(m, transaction)
        message_id = receipt.message_id
        assert end(box, message_id, receipt.transaction_id, v2.ROLLBACK) == 20000
        with pytest.raises(Exception, match="rolled back before"):
            transaction.commit()
    finally:
        p.shutdown()
    assert message_id not in stored(cluster.healthy().address, TOPIC)


def test_a_transaction_checked_back_too_often_is_dropped(box: Sandbox, cluster: Cluster) -> None:
    answers = Answers()
    cluster.cli.json("updateBrokerConfig", "-c", CLUSTER, "-k", "transactionCheckMax", "-v", "3")
    p = producer(box, answers)
    try:
        _, message_id = half(p, "hold-d1")
        wait_until(lambda: stored(cluster.healthy().address, CHECK_MAX_TOPIC)[message_id], 60, "the drop")
    finally:
        p.shutdown()
        cluster.cli.json(
            "updateBrokerConfig", "-c", CLUSTER, "-k", "transactionCheckMax", "-v", CHECKS["transactionCheckMax"]
        )
    assert answers.asked[message_id] == 3
    assert message_id not in stored(cluster.healthy().address, TOPIC)


def test_send_message_ends_its_transactions_and_transaction_status_lists_the_open_one(
    box: Sandbox, cluster: Cluster
) -> None:
    sent = {
        e: cluster.cli.json("sendMessage", "-t", TOPIC, "-p", f"cli-{e}", "--transaction", e)["results"][0]
        for e in ("commit", "rollback", "check")
    }
    assert [sent[e]["transaction"] for e in ("commit", "rollback", "check")] == ["COMMIT", "ROLLBACK", "OPEN"]
    assert all(r["transactionId"].startswith(BROKER + "@") for r in sent.values())
    status = cluster.cli.json("transactionStatus", "-t", TOPIC)
    listed = {t["msgId"]: t for s in status["sets"] for t in s["transactions"]}
    open_id = sent["check"]["msgId"]
    assert open_id in listed and listed[open_id]["transactionId"] == sent["check"]["transactionId"]
    assert sent["commit"]["msgId"] not in listed and sent["rollback"]["msgId"] not in listed
    copies = stored(cluster.healthy().address, TOPIC)
    assert copies[sent["commit"]["msgId"]] == 1 and not copies[sent["rollback"]["msgId"]] and not copies[open_id]
    refused = cluster.cli("sendMessage", "-t", TOPIC, "-p", "x", "--transaction", "commit", "--delay", "5", ok=False)
    assert refused.returncode == 2 and "cannot be delayed" in refused.stderr


def test_a_commit_after_a_sigkill_of_the_master_is_applied_once_by_the_new_master(
    box: Sandbox, cluster: Cluster
) -> None:
    master = cluster.healthy()
    p = producer(box)
    try:
        transaction, message_id = half(p, "commit-e1")
        box.signal(cluster.agent_of(master.broker_id), signal.SIGKILL)
        new = cluster.wait_master(lambda m: m.broker_id != master.broker_id, 30, "a new master")
        transaction.commit()  # type: ignore[attr-defined]
    finally:
        p.shutdown()
    got = received(box, {message_id}, 30)
    assert got[message_id] == 1
    assert stored(new.address, TOPIC)[message_id] == 1
