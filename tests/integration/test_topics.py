"""Topics and subscription groups as controller metadata (issue 25 §1), end to end on real processes.

A sandbox of 3 controllers and one agent (one broker set of one replica) whose broker polls the metadata only
every 10 minutes (``syncBrokerMetadataPeriod``), so a change it learns within the test's minute came by push.
The ``mqadmin`` CLI runs as a real process. The metadata must survive a SIGKILL of the controller leader and a
restart of the whole group from its snapshots and journals (the nodes compact their logs after 2 entries).
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqadmin_py.sandbox import Sandbox
from tests.harness.controllers import leader
from tests.harness.sandbox import BROKER, CLUSTER, Cli, learnt
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

POLL_MS = 600_000
"""The broker's metadata poll period: far beyond the test, so only a push can teach it a change in time."""


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    sandbox = Sandbox(Path(tmp_path_factory.mktemp("topics")))
    try:
        sandbox.up(controllers=3, broker_sets=1, replicas=1, broker_config={"syncBrokerMetadataPeriod": str(POLL_MS)},
                   extra_config={"raftLogCompactionMinEntries": "2"}, timeout=120.0)  # fmt: skip
        sandbox.wait_for_brokers(timeout=60.0)
        yield sandbox
    finally:
        sandbox.down()


@pytest.fixture(scope="module")
def cli(box: Sandbox) -> Cli:
    run = Cli(box.dir)
    run.env["MQADMIN_CONTROLLERS"] = box.addresses()
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
    group = cli.json("updateSubGroup", "-b", BROKER, "-g", "GID_orders", "--consume-orderly", "true", "-r", "3")
    assert group["group"] == {"groupName": "GID_orders", "clusterName": CLUSTER, "brokerNames": [BROKER],
                              "consumeOrderly": True, "retryMaxTimes": 3, "consumeEnable": True}  # fmt: skip
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
