"""The pure parts of the commands ported from Java's mqadmin: statsAll's rows, brokerStatus's document,
updateOrderConf's conf, the connection lists and the scope checks."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from mqadmin_py.commands.cluster import TargetDoc
from mqadmin_py.commands.connections import ConnectionDoc, connection_doc, merged, same_subscription
from mqadmin_py.commands.perm import order_conf, order_conf_text, scope_problem
from mqadmin_py.commands.stats import BrokerStatusDoc, StatsRowDoc, stats_rows, status_doc
from mqbase.proto import agent_pb2 as pb
from tests.harness.json_types import problems


def figures(topic: str, group: str = "", put: int = 0, get: int = 0, tps: float = 0.0) -> pb.TrafficStats:
    return pb.TrafficStats(topic=topic, group=group, put_messages=put, get_messages=get, put_tps=tps if put else 0.0,
                           get_tps=tps if get else 0.0)  # fmt: skip


def test_stats_rows_sum_the_replicas_and_list_each_group_of_a_topic() -> None:
    rows = stats_rows(
        ["Orders", "Idle"],
        [figures("Orders", put=6, tps=0.5), figures("Orders", put=4, tps=0.25), figures("Orders", "G1", get=7, tps=1.0),
         figures("Orders", "", get=3)],  # a raw read by offset is no group's
        {("Orders", "G1"): 3, ("Orders", "G2"): 10},
        active_only=False,
    )  # fmt: skip
    assert rows == [
        {"topic": "Idle", "group": None, "accumulation": 0, "inTps": 0.0, "outTps": None, "inMessages": 0,
         "outMessages": None},
        {"topic": "Orders", "group": "G1", "accumulation": 3, "inTps": 0.75, "outTps": 1.0, "inMessages": 10,
         "outMessages": 7},
        {"topic": "Orders", "group": "G2", "accumulation": 10, "inTps": 0.75, "outTps": 0.0, "inMessages": 10,
         "outMessages": 0},
    ]  # fmt: skip
    assert problems(rows, list[StatsRowDoc]) == []


def test_stats_rows_active_only_drops_topics_without_traffic_and_clamps_a_negative_diff() -> None:
    rows = stats_rows(["Orders", "Idle"], [figures("Orders", put=1)], {("Idle", "G"): -2}, active_only=True)
    assert [(r["topic"], r["group"]) for r in rows] == [("Orders", None)]
    assert stats_rows(["Idle"], [], {("Idle", "G"): -2}, active_only=False)[0]["accumulation"] == 0


def test_broker_status_names_the_broker_from_its_answer_with_b() -> None:
    total = pb.TrafficStats(put_messages=3, put_tps=0.123)
    answer = pb.GetBrokerStatsResponse(version="0.1.0", boot_timestamp_millis=5, cluster_name="C", broker_name="b",
                                       broker_id=2, role="slave", total=total)  # fmt: skip
    target: TargetDoc = {"clusterName": None, "brokerName": None, "brokerId": None, "brokerAddress": "h:1"}
    doc = status_doc(target, answer)
    assert (doc["clusterName"], doc["brokerName"], doc["brokerId"], doc["putTps"]) == ("C", "b", 2, 0.12)
    silent: BrokerStatusDoc = {**status_doc(target, None), "error": "unreachable"}
    assert silent["reachable"] is False and silent["version"] is None
    assert problems(json.loads(json.dumps([doc, silent])), list[BrokerStatusDoc]) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [("broker-a:8;broker-b:8", {"broker-a": 8, "broker-b": 8}), ("broker-a:4;", {"broker-a": 4})],
)
def test_order_conf_reads_javas_form(text: str, expected: dict[str, int]) -> None:
    assert order_conf(text) == expected


@pytest.mark.parametrize(
    ("text", "error"),
    [("broker-a", "not brokerName:queues"), ("broker-a:x", "not brokerName:queues"), (";", "no brokerName:queues"),
     ("broker-a:0", "between 1 and 1024"), ("broker-a:8;broker-b:4", "the same queues")],
)  # fmt: skip
def test_order_conf_refuses_what_this_tool_cannot_keep(text: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        order_conf(text)


def test_order_conf_text_of_a_fifo_topic_only() -> None:
    fifo = SimpleNamespace(attributes={"message.type": "FIFO"}, broker_names=["broker-b", "broker-a"],
                           write_queue_nums=8)  # fmt: skip
    assert order_conf_text(fifo) == "broker-a:8;broker-b:8"
    assert order_conf_text(SimpleNamespace(attributes={}, broker_names=["broker-a"], write_queue_nums=8)) is None


def test_scope_problem_names_the_topics_cluster_and_sets() -> None:
    t = SimpleNamespace(topic_name="T", cluster_name="DefaultCluster", broker_names=["broker-a"])
    assert scope_problem(t, "DefaultCluster", None) is None and scope_problem(t, None, "broker-a") is None
    assert scope_problem(t, "Other", None) == "topic T belongs to cluster DefaultCluster, not Other"
    assert scope_problem(t, None, "broker-b") == "broker set broker-b does not serve topic T (served by: broker-a)"


def connection(client_id: str, access_point: str, subscriptions: dict[str, str]) -> ConnectionDoc:
    c = pb.ClientConnection(client_id=client_id, address="h:9", language="PYTHON", version="5.1.2",
                            client_type="SIMPLE_CONSUMER", group="G", subscriptions=subscriptions,
                            last_seen_millis=1, access_point=access_point)  # fmt: skip
    return connection_doc(c)


def test_each_client_is_listed_once_per_access_point() -> None:
    a, b = connection("c1", "ap1", {"T": "*"}), connection("c2", "ap1", {"T": "*"})
    again, elsewhere = connection("c1", "ap1", {"T": "*"}), connection("c1", "ap2", {"T": "*"})
    listed = merged([[b, a], [again, elsewhere]])  # the same agent answers on each of its brokers' ports
    assert [(c["clientId"], c["accessPoint"]) for c in listed] == [("c1", "ap1"), ("c1", "ap2"), ("c2", "ap1")]


def test_clients_of_a_group_must_subscribe_alike() -> None:
    alike = [connection("c1", "ap", {"T": "TagA"}), connection("c2", "ap", {"T": "TagA"})]
    assert same_subscription(alike)
    assert not same_subscription([*alike, connection("c3", "ap", {"T": "TagB"})])
