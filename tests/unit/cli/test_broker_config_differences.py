"""getBrokerConfig -c names the runtime keys on which a set's replicas disagree."""

from __future__ import annotations

from mqadmin_py.commands.cluster import BrokerConfigDoc, replica_differences


def doc(name: str, broker_id: int, config: dict[str, str] | None) -> BrokerConfigDoc:
    return {"clusterName": "C", "brokerName": name, "brokerId": broker_id, "brokerAddress": f"h:{broker_id}",
            "reachable": config is not None, "error": None, "config": config, "differs": None}  # fmt: skip


def test_a_key_one_replica_missed_is_named_with_every_replicas_value() -> None:
    docs = [
        doc("broker-a", 1, {"syncFlushTimeout": "4000", "brokerElectionPriority": "1", "listenPort": "1"}),
        doc("broker-a", 2, {"syncFlushTimeout": "4000", "brokerElectionPriority": "2", "listenPort": "2"}),
        doc("broker-a", 3, {"syncFlushTimeout": "3000", "brokerElectionPriority": "3", "listenPort": "3"}),
        doc("broker-a", 4, None),  # unreachable: not compared
        doc("broker-b", 1, {"syncFlushTimeout": "3000"}),  # another set may differ
    ]
    assert replica_differences(docs) == {"broker-a": {"syncFlushTimeout": {1: "4000", 2: "4000", 3: "3000"}}}


def test_agreeing_replicas_and_a_single_broker_have_no_difference() -> None:
    same = {"syncFlushTimeout": "3000"}
    assert replica_differences([doc("broker-a", 1, same), doc("broker-a", 2, dict(same))]) == {}
    lone: BrokerConfigDoc = {**doc("x", 1, same), "brokerName": None, "brokerId": None}  # -b: no set known
    assert replica_differences([lone]) == {}
