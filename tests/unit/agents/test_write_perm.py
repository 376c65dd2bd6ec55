"""A broker set whose write permission is wiped (``wipeWritePerm``) as the agent acts on it: its sends
are refused, and the access point's routes show its queues read-only."""

from __future__ import annotations

from agents.access.protocol import v2
from agents.access.routes import BrokerSet, message_queues
from agents.metadata import Allowed, MetadataTable, Refused, Topic, learn, send_verdict
from mqbase.codes import ResponseCode

ORDERS = Topic("Orders", frozenset({"broker-a", "broker-b"}), 2, 2, 6)
SETS = (BrokerSet("broker-a", "127.0.0.1:1"), BrokerSet("broker-b", "127.0.0.1:2"))


def table(*wiped: str) -> MetadataTable:
    return learn(MetadataTable(), 3, [ORDERS], [], wiped)


def test_a_wiped_set_refuses_sends_and_the_others_take_them() -> None:
    refused = send_verdict(table("broker-a"), "Orders", "broker-a", "DefaultCluster", auto_create=False)
    assert isinstance(refused, Refused) and refused.code == ResponseCode.NO_PERMISSION and refused.learnable
    assert "the broker[broker-a] sending message is forbidden" in refused.remark
    assert "mqadmin addWritePerm -b broker-a" in refused.remark
    assert send_verdict(table("broker-a"), "Orders", "broker-b", "DefaultCluster", False) == Allowed(2)
    assert send_verdict(table(), "Orders", "broker-a", "DefaultCluster", False) == Allowed(2)


def test_the_table_learns_the_wiped_sets_with_the_version() -> None:
    wiped = table("broker-a")
    assert wiped.write_wiped == frozenset({"broker-a"})
    assert learn(wiped, 2, [ORDERS], []) is wiped  # an older answer changes nothing
    assert learn(wiped, 4, [ORDERS], []).write_wiped == frozenset()


def test_routes_show_a_wiped_sets_queues_read_only() -> None:
    listed = v2.Endpoints(scheme=v2.IPv4, addresses=[v2.Address(host="127.0.0.1", port=9000)])
    route = message_queues(ORDERS, SETS, listed, read_only=frozenset({"broker-a"}))
    perms = {(q.broker.name, q.id): q.permission for q in route}
    assert perms == {("broker-a", 0): v2.READ, ("broker-a", 1): v2.READ,
                     ("broker-b", 0): v2.READ_WRITE, ("broker-b", 1): v2.READ_WRITE}  # fmt: skip
