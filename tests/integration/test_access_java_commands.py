"""The rest of Java's mqadmin commands, each run as a real ``mqadmin`` process against one sandbox (one
controller, two broker sets of two replicas), with the unmodified official Python client where clients are the point
(consumerConnection, the drain of wipeWritePerm).

Retention is made testable the way the product allows: the smallest segments, ``fileReservedTime=0`` (every
finished segment has expired) and a ``cleanResourceInterval`` of an hour, so only ``deleteExpiredCommitLog`` runs it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rocketmq import ClientConfiguration, Credentials, FilterExpression, Message, Producer, SimpleConsumer
from rocketmq.grpc_protocol import definition_pb2 as v2
from rocketmq.grpc_protocol import service_pb2 as svc
from rocketmq.grpc_protocol import service_pb2_grpc as svc_grpc

from agents.config import MIN_COMMIT_LOG_FILE_SIZE
from mqadmin_py.sandbox import Sandbox
from mqbase import __version__
from mqbase.client import AgentClient
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as apb
from tests.harness.sandbox import Cli, all_learnt, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CLUSTER, A, B = "DefaultCluster", "broker-a", "broker-b"
RETENTION = {
    "mappedFileSizeCommitLog": str(MIN_COMMIT_LOG_FILE_SIZE),
    "fileReservedTime": "0",
    "cleanResourceInterval": "3600000",
    "flushConsumerOffsetInterval": "500",
}


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    path = Path(tmp_path_factory.mktemp("java-commands"))
    with serving_sandbox(path, controllers=1, broker_sets=2, replicas=2, broker_config=RETENTION) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def cli(box: Sandbox) -> Cli:
    return Cli(box.dir, box.addresses())


def create(cli: Cli, box: Sandbox, topics: list[str], groups: list[str], *, broker: str | None = None) -> None:
    """Topics (2 queues) and groups on every set (or one), learnt by every broker before it returns."""
    where = ["-b", broker] if broker else ["-c", CLUSTER]
    version = 0
    for topic in topics:
        version = cli.json("updateTopic", *where, "-t", topic, "-r", "2", "-w", "2")["metadataVersion"]
    for group in groups:
        version = cli.json("updateSubGroup", "-c", CLUSTER, "-g", group)["metadataVersion"]
    wait_until(lambda: all_learnt(cli, box, version), 60, "every broker to learn the topics and groups")


def master(cli: Cli, name: str) -> str:
    address: str = cli.json("getSyncStateSet", "-b", name)[0]["masterAddress"]
    return address


def refused(cli: Cli, *args: str) -> str:
    """stderr of a command that must exit 1 with 2008 (a wrong scope)."""
    result = cli(*args, ok=False)
    assert result.returncode == 1, result
    assert "CONTROLLER_BROKER_METADATA_NOT_EXIST (2008)" in result.stderr
    return result.stderr


def config(box: Sandbox) -> ClientConfiguration:
    return ClientConfiguration(box.proxy_endpoints().split(";")[0], Credentials())


def test_broker_status_stats_all_and_cluster_list_count_what_was_sent_and_received(box: Sandbox, cli: Cli) -> None:
    create(cli, box, ["StatsOrders"], ["GID_stats"], broker=A)
    cli.json("sendMessage", "-t", "StatsOrders", "-p", "m{i}", "--count", "5", "-b", A)
    got = cli.json("consumeMessage", "-t", "StatsOrders", "-g", "GID_stats", "-c", "3")
    assert got["received"] == 3

    [row] = cli.json("statsAll", "-t", "StatsOrders")["rows"]
    assert (row["group"], row["inMessages"], row["outMessages"], row["accumulation"]) == ("GID_stats", 5, 3, 2)
    assert row["inTps"] > 0 and row["outTps"] > 0
    legacy = cli("statsAll", "-t", "StatsOrders", "-o", "legacy").stdout
    assert legacy.startswith("#Topic") and "GID_stats" in legacy

    [status] = cli.json("brokerStatus", "-b", master(cli, A))
    assert (status["brokerName"], status["role"], status["version"]) == (A, "master", __version__)
    assert status["putMessages"] >= 5 and status["getMessages"] >= 3 and status["putTps"] > 0
    everyone = cli.json("brokerStatus", "-c", CLUSTER)
    assert len(everyone) == 4 and all(d["reachable"] for d in everyone)
    assert "putMessageTimesTotal" in cli("brokerStatus", "-c", CLUSTER, "-o", "legacy").stdout
    refused(cli, "brokerStatus", "-c", "NoCluster")
    listed = cli.json("clusterList")
    assert {d["version"] for d in listed} == {__version__}
    assert max(d["putTps"] for d in listed if d["brokerName"] == A) > 0


def test_wipe_write_perm_drains_a_set_and_add_write_perm_restores_it(box: Sandbox, cli: Cli) -> None:
    create(cli, box, ["DrainOrders"], [])
    stderr = refused(cli, "wipeWritePerm", "-b", A, "-c", "NoCluster")
    assert "belongs to cluster DefaultCluster" in stderr
    refused(cli, "wipeWritePerm", "-b", "broker-z")
    assert all(s["perm"] == 6 for s in cli.json("topicRoute", "-t", "DrainOrders")["brokerSets"])  # nothing changed

    wiped = cli.json("wipeWritePerm", "-b", A, "-c", CLUSTER)
    assert (wiped["writable"], wiped["changed"]) == (False, True)
    wait_until(lambda: all_learnt(cli, box, wiped["metadataVersion"]), 60, "every broker to learn the wipe")
    try:
        send = cli("sendMessage", "-t", "DrainOrders", "-p", "x", "-b", A, ok=False)
        assert send.returncode != 0 and "sending message is forbidden" in send.stderr
        perms = {s["brokerName"]: s["perm"] for s in cli.json("topicRoute", "-t", "DrainOrders")["brokerSets"]}
        assert perms == {A: 4, B: 6}
        # The official client's route shows broker-a read-only, and its sends all land on broker-b.
        producer = Producer(config(box), ("DrainOrders",))
        producer.startup()
        try:
            ids = [producer.send(message("DrainOrders", f"drain {i}".encode())).message_id for i in range(6)]
        finally:
            producer.shutdown()
        assert len(set(ids)) == 6
        route = raw_route(box, "DrainOrders")
        assert {q.permission for q in route if q.broker.name == A} == {v2.READ}
        assert {q.permission for q in route if q.broker.name == B} == {v2.READ_WRITE}
        # So do mqadmin's own: its round robin leaves the draining set out while another one is left.
        sent = cli.json("sendMessage", "-t", "DrainOrders", "-p", "cli {i}", "--count", "4")
        assert sent["sent"] == 4 and {r["brokerName"] for r in sent["results"]} == {B}
        stored = cli.json("topicStatus", "-t", "DrainOrders")["brokerSets"]
        counts = {s["brokerName"]: sum(q["maxOffset"] for q in s["queues"]) for s in stored}
        assert counts == {A: 0, B: 10}
        assert cli.json("wipeWritePerm", "-b", A)["changed"] is False  # already wiped: a no-op
    finally:
        added = cli.json("addWritePerm", "-b", A)
    assert added["writable"] is True and added["changed"] is True
    wait_until(lambda: all_learnt(cli, box, added["metadataVersion"]), 60, "every broker to learn the permission")
    assert cli.json("sendMessage", "-t", "DrainOrders", "-p", "back", "-b", A)["sent"] == 1
    assert "add write perm of broker[broker-a]" in cli("addWritePerm", "-b", A, "-o", "legacy").stdout


def message(topic: str, body: bytes) -> Message:
    m = Message()
    m.topic = topic
    m.body = body
    m.tag = "TagA"
    return m


def raw_route(box: Sandbox, topic: str) -> list[Any]:
    """The access point's QueryRoute answer, through the client's own generated stub."""
    import grpc

    address = box.proxy_endpoints().split(";")[0]
    with grpc.insecure_channel(address) as channel:
        request = svc.QueryRouteRequest(topic=v2.Resource(name=topic))
        answer = svc_grpc.MessagingServiceStub(channel).QueryRoute(
            request, metadata=[("x-mq-client-id", "java-commands-test")], timeout=10
        )
    assert answer.status.code == v2.OK, answer.status
    return list(answer.message_queues)


def test_connections_list_the_official_clients_connected_through_the_access_points(box: Sandbox, cli: Cli) -> None:
    create(cli, box, ["ClientOrders"], ["GID_clients"])
    producer = Producer(config(box), ("ClientOrders",))
    consumer = SimpleConsumer(config(box), "GID_clients", {"ClientOrders": FilterExpression("TagA")}, await_duration=2)
    producer.startup()
    consumer.startup()
    try:

        def listed() -> dict[str, Any] | None:
            result = cli("consumerConnection", "-g", "GID_clients", "-o", "json", ok=False)
            return json.loads(result.stdout) if result.returncode == 0 else None

        doc = wait_until(listed, 30, "the consumer to be listed")
        [c] = doc["connections"]
        assert (c["language"], c["clientType"], c["group"]) == ("PYTHON", "SIMPLE_CONSUMER", "GID_clients")
        assert c["version"] and c["clientAddress"].startswith("127.0.0.1:")
        assert doc["subscriptions"] == {"ClientOrders": "TagA"} and doc["consumeType"] == "CONSUME_ACTIVELY"
        assert "Below is subscription:" in cli("consumerConnection", "-g", "GID_clients", "-o", "legacy").stdout
        [p] = cli.json("producerConnection", "-t", "ClientOrders")["connections"]
        assert (p["clientType"], p["subscriptions"]) == ("PRODUCER", {"ClientOrders": ""})
        status = cli.json("consumerStatus", "-g", "GID_clients")
        assert status["sameSubscription"] is True and [x["clientId"] for x in status["clients"]] == [c["clientId"]]
        # -b asks one agent only: the client's own access point knows it, another agent's does not
        [own] = [a for a in box.agents() if a.proxyAddress == c["accessPoint"]]
        [other, *_] = [a for a in box.agents() if a.proxyAddress != c["accessPoint"]]
        asking = ("consumerStatus", "-g", "GID_clients", "-i", c["clientId"], "-b")
        one = cli.json(*asking, own.brokers[0].brokerAddress)
        assert [x["clientId"] for x in one["clients"]] == [c["clientId"]]
        elsewhere = cli(*asking, other.brokers[0].brokerAddress, ok=False)
        assert elsewhere.returncode == 1 and "CONSUMER_NOT_ONLINE (206)" in elsewhere.stderr, elsewhere.stderr
    finally:
        consumer.shutdown()
        producer.shutdown()
    gone = cli("consumerConnection", "-g", "GID_clients", ok=False)  # the client said it terminates
    assert gone.returncode == 1 and "CONSUMER_NOT_ONLINE (206)" in gone.stderr


def test_topic_perm_cluster_and_order_conf_check_their_scope(box: Sandbox, cli: Cli) -> None:
    create(cli, box, ["PermOrders"], [])
    assert cli("topicClusterList", "-t", "PermOrders", "-o", "legacy").stdout == f"{CLUSTER}\n"
    assert cli("topicClusterList", "-t", "NoSuchTopic", ok=False).returncode == 1
    refused(cli, "updateTopicPerm", "-t", "PermOrders", "-p", "4", "-c", "NoCluster")
    refused(cli, "updateTopicPerm", "-t", "PermOrders", "-p", "4", "-b", "broker-z")
    assert cli.json("topicRoute", "-t", "PermOrders")["brokerSets"][0]["perm"] == 6  # nothing changed
    changed = cli.json("updateTopicPerm", "-t", "PermOrders", "-p", "4", "-b", A)
    assert (changed["oldPerm"], changed["perm"], changed["changed"]) == (6, 4, True)
    assert {s["perm"] for s in cli.json("topicRoute", "-t", "PermOrders")["brokerSets"]} == {4}  # every set
    assert cli("updateTopicPerm", "-t", "PermOrders", "-p", "4", "-c", CLUSTER, "-o", "legacy").stdout == (
        "new perm equals to the old one!\n"
    )
    cli.json("updateTopicPerm", "-t", "PermOrders", "-p", "6", "-c", CLUSTER)

    refused(cli, "updateOrderConf", "-t", "PermOrders", "-m", "put", "-v", "broker-z:4")
    left = cli("updateOrderConf", "-t", "PermOrders", "-m", "put", "-v", f"{A}:4", ok=False)  # broker-b serves it too
    assert left.returncode == 1 and "also served by broker-b" in left.stderr
    put = cli.json("updateOrderConf", "-t", "PermOrders", "-m", "put", "-v", f"{A}:4;{B}:4")
    assert put["orderConf"] == f"{A}:4;{B}:4"
    assert cli.json("topicRoute", "-t", "PermOrders")["messageType"] == "FIFO"
    assert cli.json("updateOrderConf", "-t", "PermOrders", "-m", "get")["orderConf"] == f"{A}:4;{B}:4"
    assert cli.json("updateOrderConf", "-t", "PermOrders", "-m", "delete")["orderConf"] is None
    assert cli.json("topicRoute", "-t", "PermOrders")["messageType"] == "NORMAL"


def progress(cli: Cli, group: str, topic: str) -> dict[int, int]:
    doc = cli.json("consumerProgress", "-g", group, "-t", topic)
    return {q["queueId"]: q["consumerOffset"] for q in doc["queues"]}


def test_clone_group_offset_and_skip_accumulated_message(box: Sandbox, cli: Cli) -> None:
    create(cli, box, ["CloneOrders"], ["GID_src", "GID_dest"], broker=A)
    cli.json("sendMessage", "-t", "CloneOrders", "-p", "m{i}", "--count", "6", "-b", A)
    assert cli.json("consumeMessage", "-t", "CloneOrders", "-g", "GID_src", "-c", "2")["received"] == 2
    source = progress(cli, "GID_src", "CloneOrders")
    assert sum(source.values()) == 2

    cloned = cli.json("cloneGroupOffset", "-s", "GID_src", "-d", "GID_dest", "-t", "CloneOrders")
    assert [s["cloned"] for s in cloned["brokerSets"]] == [True]
    assert progress(cli, "GID_dest", "CloneOrders") == source
    assert cli("cloneGroupOffset", "-s", "GID_src", "-d", "GID_none", "-t", "CloneOrders", ok=False).returncode == 1

    refused(cli, "skipAccumulatedMessage", "-g", "GID_src", "-t", "CloneOrders", "-c", "NoCluster")
    assert progress(cli, "GID_src", "CloneOrders") == source  # nothing changed
    cli.json("skipAccumulatedMessage", "-g", "GID_src", "-t", "CloneOrders", "-c", CLUSTER)
    assert cli.json("consumerProgress", "-g", "GID_src", "-t", "CloneOrders")["diffTotal"] == 0


def test_delete_expired_commit_log_runs_retention_now(box: Sandbox, cli: Cli) -> None:
    create(cli, box, ["RetainOrders"], [], broker=B)
    address = master(cli, B)
    with AgentClient(timeout=30) as agents:
        for i in range(10):  # about two and a half segments of 1 MiB messages
            message_ = apb.Message(topic="RetainOrders", queue_id=0, body=bytes([i]) * (1024 * 1024))
            r = agents.call(address, "SendMessage", apb.SendMessageRequest(broker=apb.BrokerRef(broker_name=B),
                                                                           message=message_))  # fmt: skip
            assert r.code == ResponseCode.SUCCESS, r
    refused(cli, "deleteExpiredCommitLog", "-c", "NoCluster")
    assert cli.json("getBrokerEpoch", "-b", B)[0]["minOffset"] == 0  # nothing deleted

    def deleted() -> list[dict[str, Any]] | None:
        # The consumer-state snapshot covers the log every flushConsumerOffsetInterval; until then it holds it.
        docs: list[dict[str, Any]] = cli.json("deleteExpiredCommitLog", "-b", address)
        return docs if docs[0]["minOffset"] > 0 else None

    [done] = wait_until(deleted, 30, "retention to delete the expired segments")
    assert done["deleted"] is True and done["minOffset"] >= MIN_COMMIT_LOG_FILE_SIZE
    everyone = cli.json("deleteExpiredCommitLog", "-c", CLUSTER)
    assert len(everyone) == 4 and all(d["deleted"] for d in everyone)
    assert cli("deleteExpiredCommitLog", "-b", address, "-o", "legacy").stdout == "success\n"


def test_assign_preferred_master_has_its_camel_case_name(box: Sandbox, cli: Cli) -> None:
    sets = cli.json("getSyncStateSet", "-b", A)[0]
    target = sets["inSyncReplicas"][0]["brokerId"]
    refused(cli, "assignPreferredMaster", "-c", "NoCluster", "-bn", A, "-b", str(target))
    assigned = cli.json("assignPreferredMaster", "-c", CLUSTER, "-bn", A, "-b", str(target))
    assert assigned["preferredBrokerId"] == target
    assert cli.json("assign-preferred-master", "-c", CLUSTER, "-bn", A, "--clear")["preferredBrokerId"] is None
