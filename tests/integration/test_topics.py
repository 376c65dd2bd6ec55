"""Topics and subscription groups as controller metadata, end to end on real processes.

A sandbox of 3 controllers and one agent (one broker set of one replica) whose broker polls the metadata only
every 10 minutes (``syncBrokerMetadataPeriod``), so a change it learns within the test's minute came by push.
The ``mqadmin`` CLI runs as a real process. The metadata must survive a SIGKILL of the controller leader and a
restart of the whole group from its snapshots and journals (the nodes compact their logs after 2 entries).
"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agents.broker.manager import ReplicasManager
from mqadmin_py.sandbox import Sandbox
from mqbase.clock import SYSTEM
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from tests.harness.controllers import leader
from tests.harness.ha_master import become_master, manager_config, servicer_for
from tests.harness.sandbox import BROKER, CLUSTER, Cli, learnt, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

POLL_MS = 600_000
"""The broker's metadata poll period: far beyond the test, so only a push can teach it a change in time."""


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with serving_sandbox(
        Path(tmp_path_factory.mktemp("topics")),
        controllers=3,
        replicas=1,
        broker_config={"syncBrokerMetadataPeriod": str(POLL_MS)},
        extra_config={"raftLogCompactionMinEntries": "2"},
    ) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def cli(box: Sandbox) -> Cli:
    run = Cli(box.dir, box.addresses())
    return run


def snapshotted(box: Sandbox, node_id: str) -> bool:
    """Has the node's snapshot file got the topic and the group?"""
    path = box.dir / "store" / node_id / "raft.snapshot"
    text = path.read_text() if path.exists() else ""
    return '"topicName":"Orders"' in text and '"groupName":"GID_orders"' in text


def test_metadata_is_kept_through_failovers_and_restarts_and_reaches_the_agent(cli: Cli, box: Sandbox) -> None:
    topic = cli.json("updateTopic", "-c", CLUSTER, "-t", "Orders", "-r", "4", "--attributes", "+message.type=FIFO")
    assert topic["changed"] and topic["topic"] == {
        "topicName": "Orders", "clusterName": CLUSTER, "brokerNames": [BROKER], "readQueueNums": 4,
        "writeQueueNums": 8, "perm": 6, "messageType": "FIFO",
    }  # fmt: skip
    backoff = {"type": "EXPONENTIAL", "exponentialRetryPolicy": {"initial": 2000, "max": 60000, "multiplier": 3}}
    group = cli.json("updateSubGroup", "-b", BROKER, "-g", "GID_orders", "--consume-orderly", "true", "-r", "3",
                     "-q", json.dumps(backoff))  # fmt: skip
    assert group["group"] == {"groupName": "GID_orders", "clusterName": CLUSTER, "brokerNames": [BROKER],
                              "consumeOrderly": True, "retryMaxTimes": 3, "consumeEnable": True,
                              "groupRetryPolicy": backoff}  # fmt: skip
    version = group["metadataVersion"]
    assert version == topic["metadataVersion"] + 1

    # The same update again changes nothing (exit 0, changed false, same version).
    again = cli.json("updateTopic", "-c", CLUSTER, "-t", "Orders", "-r", "4")
    assert (again["changed"], again["metadataVersion"]) == (False, version)

    listed = cli.json("topicList")
    assert listed == {"metadataVersion": version, "topics": [topic["topic"]]}
    route = cli.json("topicRoute", "-t", "Orders")
    [served] = route["brokerSets"]
    assert (served["brokerName"], served["readQueueNums"], served["masterAlive"]) == (BROKER, 4, True)
    assert served["masterAddress"] == box.master_agent(BROKER)[1].brokerAddress

    # The agent learns both changes by push (its poll is 10 minutes away).
    broker = wait_until(lambda: learnt(cli, box, version), 60, "the broker to learn the topic and the group")
    assert (broker["topics"], broker["subscriptionGroups"]) == (["Orders"], ["GID_orders"])

    # SIGKILL the controller leader: the new leader has the same metadata.
    old = leader(box)
    box.signal(old.id, signal.SIGKILL)
    wait_until(lambda: leader(box).id != old.id or None, 60, "a new controller leader")
    assert wait_until(lambda: cli.json("topicList"), 30, "topicList on the new leader") == listed
    assert cli.json("getConsumerConfig", "-g", "GID_orders") == group["group"]

    # Restart every node: each rebuilds the metadata from its snapshot and the journal after it.
    wait_until(lambda: all(snapshotted(box, node.id) for node in box.controllers() if node.pid), 60,
               "the running nodes to snapshot the metadata")  # fmt: skip
    for node in box.controllers():
        box.stop(node.id)  # the killed one is already down
    for node in box.controllers():
        box.start(node.id)
    box.wait_for_leader(timeout=60)
    assert wait_until(lambda: cli.json("topicList"), 60, "topicList after the restart") == listed
    assert cli.json("getConsumerConfig", "-g", "GID_orders") == group["group"]

    # A change after the restart reaches the agent by push too, over its reconnected heartbeat streams.
    deleted = cli.json("deleteTopic", "-c", CLUSTER, "-t", "Orders")
    assert (deleted["changed"], deleted["metadataVersion"]) == (True, version + 1)
    broker = wait_until(lambda: learnt(cli, box, version + 1), 60, "the broker to learn the deletion")
    assert (broker["topics"], broker["subscriptionGroups"]) == ([], ["GID_orders"])
    assert cli.json("topicList")["topics"] == []
    gone = cli("topicRoute", "-t", "Orders", ok=False)
    assert gone.returncode == 1 and "TOPIC_NOT_EXIST (17)" in gone.stderr
    assert cli.json("deleteTopic", "-c", CLUSTER, "-t", "Orders")["changed"] is False  # a no-op, exit 0


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("updateTopic", "-c", CLUSTER, "-t", "TBW102"), 2, "is conflict with system topic"),
        (("updateTopic", "-t", "T"), 2, "give -c CLUSTER"),
        (("updateTopic", "-c", CLUSTER, "-t", "T", "-p", "5"), 2, "perm must be 2 (W), 4 (R) or 6 (RW)"),
        (("updateTopic", "-c", "NoSuchCluster", "-t", "T"), 1, "CONTROLLER_BROKER_METADATA_NOT_EXIST (2008)"),
        (("updateSubGroup", "-b", "no-such-set", "-g", "G"), 1, "Broker-set: no-such-set hasn't been registered"),
        (("getConsumerConfig", "-g", "Unknown"), 1, "SUBSCRIPTION_GROUP_NOT_EXIST (26)"),
    ],
)
def test_bad_requests_exit_with_their_code(cli: Cli, args: tuple[str, ...], code: int, message: str) -> None:
    result = cli(*args, ok=False)
    assert result.returncode == code and message in result.stderr, result.stderr


def test_sends_spread_over_the_topics_queues_and_keep_a_message_group_in_one(cli: Cli, box: Sandbox) -> None:
    made = cli.json("updateTopic", "-b", BROKER, "-t", "Wide", "-r", "8", "-w", "8")
    wait_until(lambda: learnt(cli, box, made["metadataVersion"]), 60, "the broker to learn the topic")

    grouped = cli.json("sendMessage", "-t", "Wide", "-p", "g-{i}", "--message-group", "order-7", "--count", "6",
                       "--property", "shop=berlin")  # fmt: skip
    assert grouped["sent"] == 6 and len({r["queueId"] for r in grouped["results"]}) == 1
    spread = cli.json("sendMessage", "-t", "Wide", "-p", "s-{i}", "--count", "8")
    assert sorted(r["queueId"] for r in spread["results"]) == list(range(8))

    read = cli.json("consumeMessage", "-t", "Wide", "-b", BROKER, "-c", "100")
    assert len(read["queues"]) == 8 and len(read["messages"]) == 14
    assert sorted(m["body"] for m in read["messages"] if m["body"].startswith("g-")) == [f"g-{i}" for i in range(6)]

    [status] = cli.json("topicStatus", "-t", "Wide")["brokerSets"]
    assert status["reachable"] and [q["queueId"] for q in status["queues"]] == list(range(8))
    assert sum(q["maxOffset"] - q["minOffset"] for q in status["queues"]) == 14
    assert all((q["lastUpdateTimestamp"] is None) == (q["maxOffset"] == 0) for q in status["queues"])
    gone = cli("topicStatus", "-t", "NoSuchTopic", ok=False)
    assert gone.returncode == 1 and "TOPIC_NOT_EXIST (17)" in gone.stderr


def test_a_producer_may_not_write_the_brokers_own_topics(cli: Cli) -> None:
    """rmq_sys_CONSUMER_STATE holds the broker's offset and POP records: a message from outside would corrupt them."""
    refused = cli("sendMessage", "-t", "rmq_sys_CONSUMER_STATE", "-p", "x", "-o", "json", ok=False)
    [result] = json.loads(refused.stdout)["results"]
    assert (refused.returncode, result["code"], result["queueOffset"]) == (1, 16, None)
    assert result["remark"] == "Sending message to topic[rmq_sys_CONSUMER_STATE] is forbidden."


# --- the send path obeys the metadata ---------------------------------------------------------------------


def refused_send(cli: Cli, topic: str) -> dict[str, Any]:
    """The one result of a refused ``sendMessage`` (exit 1)."""
    refused = cli("sendMessage", "-t", topic, "-p", "x", "-o", "json", ok=False)
    assert refused.returncode == 1, refused.stderr
    [result] = json.loads(refused.stdout)["results"]
    assert result["queueOffset"] is None
    return result  # type: ignore[no-any-return]


def test_a_topic_never_created_is_refused_with_the_command_that_creates_it(cli: Cli) -> None:
    result = refused_send(cli, "Payments")
    assert (result["code"], result["status"]) == (17, "TOPIC_NOT_EXIST")
    assert result["remark"] == (
        f"topic[Payments] not exist, apply first please! Create it: mqadmin updateTopic -t Payments -c {CLUSTER}"
    )
    cli.json("updateTopic", "-t", "Payments", "-c", CLUSTER)  # what the remark says to do
    assert cli.json("sendMessage", "-t", "Payments", "-p", "x")["sent"] == 1


def test_a_read_only_topic_refuses_sends_until_it_is_made_writable(cli: Cli, box: Sandbox) -> None:
    made = cli.json("updateTopic", "-c", CLUSTER, "-t", "Ledger", "-p", "4")
    wait_until(lambda: learnt(cli, box, made["metadataVersion"]), 60, "the broker to learn the read-only topic")
    result = refused_send(cli, "Ledger")
    assert (result["code"], result["status"]) == (16, "NO_PERMISSION")
    assert result["remark"].startswith("the topic[Ledger] sending message is forbidden (perm 4 has no write bit 2)")
    made = cli.json("updateTopic", "-c", CLUSTER, "-t", "Ledger", "-p", "6")
    wait_until(lambda: learnt(cli, box, made["metadataVersion"]), 60, "the broker to learn the writable topic")
    assert cli.json("sendMessage", "-t", "Ledger", "-p", "x")["sent"] == 1


def test_messages_carry_their_born_host_and_timestamp(cli: Cli) -> None:
    cli.json("updateTopic", "-c", CLUSTER, "-t", "Born", "-r", "1", "-w", "1")
    before_ms = int(time.time() * 1000)
    cli.json("sendMessage", "-t", "Born", "-p", "stamped")
    cli.json("sendMessage", "-t", "Born", "-p", "own", "--property", "BORN_HOST=10.9.8.7:6543",
             "--property", "BORN_TIMESTAMP=1700000000000")  # fmt: skip
    after_ms = int(time.time() * 1000)
    stamped, own = cli.json("consumeMessage", "-t", "Born", "-b", BROKER, "-i", "0")["messages"]
    host, _, port = stamped["properties"]["BORN_HOST"].rpartition(":")
    assert host == "127.0.0.1" and port.isdigit()  # the producer's address as the broker saw it
    assert before_ms <= int(stamped["properties"]["BORN_TIMESTAMP"]) <= after_ms
    assert int(stamped["properties"]["BORN_TIMESTAMP"]) == stamped["storeTimestamp"]  # both the receive time
    assert (own["properties"]["BORN_HOST"], own["properties"]["BORN_TIMESTAMP"]) == ("10.9.8.7:6543", "1700000000000")


def test_auto_create_topic_enable_creates_the_topic_at_the_controller_on_the_first_send(cli: Cli) -> None:
    assert refused_send(cli, "Sensors")["code"] == 17  # off by default
    cli.json("updateBrokerConfig", "-c", CLUSTER, "-k", "autoCreateTopicEnable", "-v", "true")
    try:
        sent = cli.json("sendMessage", "-t", "Sensors", "-p", "s-{i}", "--count", "4")
        assert sent["sent"] == 4 and len({r["queueId"] for r in sent["results"]}) == 4  # round robin over 8
        [topic] = [t for t in cli.json("topicList")["topics"] if t["topicName"] == "Sensors"]
        assert topic == {"topicName": "Sensors", "clusterName": CLUSTER, "brokerNames": [BROKER], "readQueueNums": 8,
                         "writeQueueNums": 8, "perm": 6, "messageType": "NORMAL"}  # fmt: skip
        system = refused_send(cli, "TBW102")  # a name no operator may create is never created by a send
        assert (
            system["code"] == 17
            and "cannot be created: The topic[TBW102] is conflict with system topic." in (system["remark"])
        )
    finally:
        cli.json("updateBrokerConfig", "-c", CLUSTER, "-k", "autoCreateTopicEnable", "-v", "false")
    assert refused_send(cli, "Sensors2")["code"] == 17


def test_a_broker_whose_table_is_behind_rereads_it_before_refusing(box: Sandbox, cli: Cli, tmp_path: Path) -> None:
    """A broker that has not learnt a topic created a moment ago (its push not yet there) asks the controller
    again before refusing. The broker here runs in this process with its worker threads not started, so no push
    or poll ever reaches it: only the send's own re-read can teach it the topic."""
    config = replace(manager_config(tmp_path / "behind"), broker_cluster_name=CLUSTER,
                     controller_addr=tuple(box.addresses().split(";")))  # fmt: skip
    manager = ReplicasManager(config, clock=SYSTEM)
    manager.open_replica(1)
    try:
        become_master(manager, members=frozenset({1}))
        assert manager.metadata.version == -1  # nothing learnt
        cli.json("updateTopic", "-c", CLUSTER, "-t", "Fresh", "-r", "2", "-w", "2")
        request = pb.SendMessageRequest(message=pb.Message(topic="Fresh", queue_id=-1, body=b"x"))
        sent = servicer_for(manager).SendMessage(request, None)
        assert sent.code == ResponseCode.SUCCESS, sent.remark
        assert "Fresh" in manager.metadata.topics and sent.results[0].queue_id in (0, 1)
    finally:
        assert manager.replica is not None
        manager.replica.close()


def test_send_message_follows_the_topics_route_over_two_broker_sets(tmp_path: Path) -> None:
    """Without -b, sendMessage goes only to the sets serving the topic (any other refuses it, NO_PERMISSION)."""
    two = Sandbox(tmp_path / "two")
    try:
        two.up(controllers=1, broker_sets=2, replicas=1, timeout=120.0)
        two.wait_for_brokers(timeout=60.0)
        run = Cli(two.dir, two.addresses())
        run.json("updateTopic", "-b", "broker-b", "-t", "Routed")
        sent = run.json("sendMessage", "-t", "Routed", "-p", "r-{i}", "--count", "4")
        assert sent["sent"] == 4 and {r["brokerName"] for r in sent["results"]} == {"broker-b"}
        refused = run("sendMessage", "-t", "Routed", "-p", "x", "-b", "broker-a", "-o", "json", ok=False)
        [result] = json.loads(refused.stdout)["results"]
        assert (refused.returncode, result["code"]) == (1, 16)
        assert result["remark"].startswith("topic[Routed] is not served by broker set broker-a (served by: broker-b)")
    finally:
        two.down()
