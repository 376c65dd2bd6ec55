"""RIP-32's motivating case on real processes with the official client: two broker sets of two replicas, each replica
its own agent (agent k hosts replica k of both sets), one controller, ``enableSlaveActingMaster`` on.

broker-a's master and broker-b's master are placed on different agents, and masters acknowledge puts alone
(``allAckInSyncStateSet=false``: the kill below also takes broker-b's slave, and the stopped controller cannot shrink
its SyncStateSet, so an escape set that waited for every member could take no escape; the test waits for broker-a's
slave to hold everything before the kill instead). A group consumes and acks part of a topic served by both sets;
then the controller is stopped and broker-a's master's agent SIGKILLed: broker-a has no master and nobody to elect
one. Its surviving replica acts as read-only master after ``brokerNotActiveTimeoutMillis`` and the group keeps
consuming from it: its acks, and the delayed messages falling due meanwhile, and the commits and rollbacks of
transactions whose half messages broker-a holds, escape to broker-b's master, hosted by the same agent (RIP-31's
local escape). When the controller and the killed agent come back, broker-a's new master goes through pre-online and
takes the escaped changes back, and again when the master role returns to the old master: no acked message is
delivered again, no offset rolls back, each delayed message and each committed transaction is delivered once, and no
rolled back one ever.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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

from agents.broker.escape import encode_escaped
from agents.consumer.records import EscapeKey, EscapeReleased
from mqadmin_py.sandbox import Sandbox
from mqbase.client import AgentClient
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as apb
from tests.harness.escape_sets import (
    CLUSTER,
    ESCAPE,
    GROUP,
    HOME,
    NOT_ACTIVE_MS,
    TOPIC,
    agent_of,
    caught_up,
    healthy,
    held,
    listed,
    sets,
)
from tests.harness.official_client import consume, send
from tests.harness.sandbox import Cli, all_learnt, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DELAY_TOPIC, DELAY_GROUP = "Rip32Later", "GID_rip32_later"
TX_TOPIC, TX_GROUP = "Rip32Tx", "GID_rip32_tx"
KEY = EscapeKey(2, 1, 1)  # who escaped a change: replica 2, in its episode started at 1 ms, its first change
BROKER_CONF = {
    "allAckInSyncStateSet": "false",
    "enableSlaveActingMaster": "true",
    "brokerNotActiveTimeoutMillis": str(NOT_ACTIVE_MS),
    "syncBrokerMetadataPeriod": "500",
    "transactionTimeOut": "600000",  # no check-back during the test: the producer ends every transaction itself
}


class Unknown(TransactionChecker):  # type: ignore[misc]
    def check(self, message: Message) -> TransactionResolution:
        return TransactionResolution.UNKNOWN


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with serving_sandbox(
        Path(tmp_path_factory.mktemp("rip32")), controllers=1, replicas=2, broker_sets=2, broker_config=BROKER_CONF
    ) as sandbox:
        cli = Cli(sandbox.dir, sandbox.addresses())
        cli.json("updateTopic", "-c", CLUSTER, "-t", TOPIC, "-r", "2", "-w", "2")
        cli.json("updateTopic", "-c", CLUSTER, "-t", DELAY_TOPIC, "-r", "2", "-w", "2",
                 "--attributes", "+message.type=DELAY")  # fmt: skip
        cli.json("updateTopic", "-c", CLUSTER, "-t", TX_TOPIC, "-r", "2", "-w", "2",
                 "--attributes", "+message.type=TRANSACTION")  # fmt: skip
        cli.json("updateSubGroup", "-c", CLUSTER, "-g", GROUP)
        cli.json("updateSubGroup", "-c", CLUSTER, "-g", TX_GROUP)
        made = cli.json("updateSubGroup", "-c", CLUSTER, "-g", DELAY_GROUP)

        wait_until(
            lambda: all_learnt(cli, sandbox, made["metadataVersion"]),
            60,
            "every broker to learn the topics and the groups",
        )
        yield sandbox


def test_malformed_escape_calls_are_refused_with_a_reason_and_change_nothing(box: Sandbox) -> None:
    escape_master = healthy(box)[ESCAPE].master_address
    broker = apb.BrokerRef(broker_name=ESCAPE)
    calls: list[tuple[str, Any, str]] = [
        ("EscapeChanges", apb.EscapeChangesRequest(broker=broker, home=HOME, records=b"not records"),
         "malformed escaped changes: "),
        ("EscapeChanges", apb.EscapeChangesRequest(broker=broker, home=HOME,
                                                   records=encode_escaped([EscapeReleased(HOME, (KEY,))])),
         "malformed escaped changes: record 1 is not an escaped change"),
        ("ReleaseEscaped", apb.ReleaseEscapedRequest(broker=broker, home=HOME,
                                                     records=encode_escaped([EscapeReleased("broker-x", (KEY,))])),
         "malformed release: the record releases changes of broker-x, the request names broker-a"),
        ("ReleaseEscaped", apb.ReleaseEscapedRequest(broker=broker, home=HOME),
         "malformed release: ReleaseEscaped carries exactly one EscapeReleased record"),
        ("GetConsumerState", apb.GetConsumerStateRequest(broker=broker, position=-1, max_bytes=1024),
         "position -1 and max_bytes 1024: need position >= 0, max_bytes > 0"),
    ]  # fmt: skip
    with AgentClient(timeout=5.0) as agents:
        for method, request, remark in calls:
            answer = agents.call(escape_master, method, request)
            assert answer.code == ResponseCode.MESSAGE_ILLEGAL and answer.remark.startswith(remark), (method, answer)
    assert not held(escape_master)


def apart(box: Sandbox) -> tuple[Any, Any, str]:
    """Both sets healthy with their masters on different agents (broker-b's must survive losing broker-a's
    master's agent): broker-a's and broker-b's ReplicasInfo and broker-a's master's agent."""
    found = healthy(box)
    home, escape = found[HOME], found[ESCAPE]
    home_agent = agent_of(box, home.master_address)
    if agent_of(box, escape.master_address) == home_agent:
        other = next(r.broker_id for r in escape.in_sync_replicas if r.broker_id != escape.master_broker_id)
        Cli(box.dir, box.addresses()).json("transferMaster", "-c", CLUSTER, "-bn", ESCAPE, "-b", str(other))
        found = healthy(box)
        home, escape = found[HOME], found[ESCAPE]
    assert agent_of(box, escape.master_address) != home_agent
    return home, escape, home_agent


def test_consumers_go_on_through_the_acting_replica_and_nothing_rolls_back(box: Sandbox) -> None:
    home, escape, home_agent = apart(box)
    old_master_id = home.master_broker_id
    survivor = next(r for r in home.in_sync_replicas if r.broker_id != old_master_id)
    survivor_agent = next(a for a in box.agents() if a.id != home_agent)
    endpoints = survivor_agent.proxyAddress  # the killed agent's access point goes with it

    sent = send(endpoints, TOPIC, 40)
    consumer = SimpleConsumer(ClientConfiguration(endpoints, Credentials()), GROUP, {TOPIC: FilterExpression()}, 2)
    later = SimpleConsumer(
        ClientConfiguration(endpoints, Credentials()), DELAY_GROUP, {DELAY_TOPIC: FilterExpression()}, 2
    )
    tx_consumer = SimpleConsumer(
        ClientConfiguration(endpoints, Credentials()), TX_GROUP, {TX_TOPIC: FilterExpression()}, 2
    )
    tx_producer = Producer(ClientConfiguration(endpoints, Credentials()), (TX_TOPIC,), Unknown())
    consumer.startup()
    later.startup()
    tx_consumer.startup()
    tx_producer.startup()
    try:
        acked: dict[str, int] = {}  # message id -> times received
        consume(consumer, acked, lambda: len(acked) >= 10, batch=2, timeout_s=30)
        assert len(acked) >= 10
        deliver_s = int(time.time()) + 20  # due during the episode
        delayed = send(endpoints, DELAY_TOPIC, 6, deliver_s)
        halves = []  # (transaction, message id, committed?, broker set), ended during the episode
        for i in range(8):
            m = Message()
            m.topic, m.body = TX_TOPIC, f"tx-{i}".encode()
            transaction = tx_producer.begin_transaction()
            receipt = tx_producer.send(m, transaction)
            halves.append((transaction, receipt.message_id, i % 4 < 2, receipt.transaction_id.split("@")[0]))
        assert {h[3] for h in halves if h[2]} == {h[3] for h in halves if not h[2]} == {HOME, ESCAPE}, halves

        # No master for broker-a and nobody to elect one, once its other replica holds (and has confirmed) all.
        wait_until(lambda: caught_up(home.master_address, survivor.broker_address), 30, "broker-a's slave to catch up")
        for controller in box.controllers():
            box.stop(controller.id)
        box.signal(home_agent, signal.SIGKILL)
        acting = wait_until(
            lambda: ((b := listed(survivor_agent.address, HOME)).acting_master and b) or None,
            30 + NOT_ACTIVE_MS / 1000, "broker-a's surviving replica to act as master",
        )  # fmt: skip
        assert acting.broker_id == survivor.broker_id
        for transaction, _id, commit, _set in halves:  # broker-a's ends go to its acting replica and escape
            transaction.commit() if commit else transaction.rollback()
        committed = {h[1] for h in halves if h[2]}
        got_tx: dict[str, int] = {}
        consume(tx_consumer, got_tx, lambda: committed <= set(got_tx))
        assert got_tx == dict.fromkeys(committed, 1), "a committed transaction not delivered once, or a rollback"

        # The group consumes the rest, from broker-b's master and from broker-a's acting replica.
        consume(consumer, acked, lambda: sent <= set(acked))
        assert set(acked) == sent
        assert all(n == 1 for n in acked.values()), "a message acked was delivered again during the episode"
        got_later: dict[str, int] = {}
        deadline = time.monotonic() + 60
        while set(got_later) != delayed and time.monotonic() < deadline:
            for m in later.receive(8, 30):
                got_later[m.message_id] = got_later.get(m.message_id, 0) + 1
                later.ack(m)
        assert set(got_later) == delayed and time.time() >= deliver_s
        assert listed(survivor_agent.address, HOME).acting_master, "the episode ended before the test's point"
        assert held(escape.master_address), "broker-a's acting replica escaped nothing"

        # The controller and the old master come back: broker-a's new master takes the escaped state back.
        for controller in box.controllers():
            box.start(controller.id)
        box.start(home_agent)
        healthy(box)
        for _ in range(2):  # the master elected first, then the master role back on the old master
            assert consumer.receive(32, 30) == [], "a message acked during the episode came back"
            assert later.receive(32, 30) == [], "a delayed message was delivered twice"
            assert tx_consumer.receive(32, 30) == [], "a committed transaction was delivered twice, or a rollback"
            now = sets(box)[HOME]
            if now.master_broker_id == old_master_id:
                break
            Cli(box.dir, box.addresses()).json("transferMaster", "-c", CLUSTER, "-bn", HOME, "-b", str(old_master_id))
            healthy(box)
        assert sets(box)[HOME].master_broker_id == old_master_id

        # Sends and consumption go on as usual, and the escape set has released what was taken back.
        more = send(endpoints, TOPIC, 10)
        again: set[str] = set()
        deadline = time.monotonic() + 60
        while not more <= again and time.monotonic() < deadline:
            for m in consumer.receive(8, 30):
                assert m.message_id not in acked, "an acked message came back"
                again.add(m.message_id)
                consumer.ack(m)
        assert again == more
        escape_master = sets(box)[ESCAPE].master_address
        wait_until(lambda: not held(escape_master), 30, "the escape master to release the changes taken back")
        status = Cli(box.dir, box.addresses()).json("transactionStatus", "-t", TX_TOPIC)
        assert status["open"] == 0, status  # the home master took the escaped ends back: nothing to check back
    finally:
        consumer.shutdown()
        later.shutdown()
        tx_consumer.shutdown()
        tx_producer.shutdown()
