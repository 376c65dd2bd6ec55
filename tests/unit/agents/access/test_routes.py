"""Routes and assignments from the topic's metadata and the broker sets the access point knows."""

from __future__ import annotations

import pytest

from agents.access.protocol import v2
from agents.access.routes import BrokerSet, assignments, endpoints, message_queues, permissions
from agents.metadata import Topic

SETS = (
    BrokerSet("broker-a", "127.0.0.1:1", ("127.0.0.1:9002", "127.0.0.1:9001")),
    BrokerSet("broker-b", "", ()),
    BrokerSet("broker-c", "127.0.0.1:3", ("127.0.0.1:9003",)),
)


def topic(perm: int = 6, read: int = 2, write: int = 2, message_type: str = "NORMAL") -> Topic:
    return Topic("Orders", frozenset({"broker-a", "broker-b"}), read, write, perm, message_type)


@pytest.mark.parametrize(
    ("read", "write", "perm", "expected"),
    [
        (2, 2, 6, [v2.READ_WRITE] * 2),
        (4, 2, 6, [v2.READ, v2.READ, v2.READ_WRITE, v2.READ_WRITE]),
        (1, 3, 6, [v2.WRITE, v2.WRITE, v2.READ_WRITE]),
        (2, 2, 4, [v2.READ] * 2),
        (2, 2, 2, [v2.WRITE] * 2),
        (2, 2, 0, []),
    ],
)
def test_permissions_split_as_javas_route_activity(read: int, write: int, perm: int, expected: list[int]) -> None:
    assert permissions(read, write, perm) == expected


def test_every_queue_of_every_serving_set_is_a_master_entry_with_its_sets_access_points() -> None:
    queues = message_queues(topic(), SETS, own="127.0.0.1:9000", namespace="ns")
    assert [(q.broker.name, q.id, q.broker.id) for q in queues] == [
        ("broker-a", 0, 0), ("broker-a", 1, 0), ("broker-b", 0, 0), ("broker-b", 1, 0)]  # fmt: skip
    a, b = queues[0].broker.endpoints, queues[2].broker.endpoints
    assert a.scheme == v2.IPv4 and [(x.host, x.port) for x in a.addresses] == [("127.0.0.1", 9001), ("127.0.0.1", 9002)]
    assert [(x.host, x.port) for x in b.addresses] == [("127.0.0.1", 9000)]  # none known yet: this access point
    assert all(q.permission == v2.READ_WRITE and list(q.accept_message_types) == [v2.NORMAL] for q in queues)
    assert all(q.topic.name == "Orders" and q.topic.resource_namespace == "ns" for q in queues)


def test_a_fifo_topic_accepts_fifo_messages() -> None:
    assert {tuple(q.accept_message_types) for q in message_queues(topic(message_type="FIFO"), SETS, "h:1")} == {
        (v2.FIFO,)
    }


def test_endpoints_by_address_family() -> None:
    assert endpoints(["[::1]:5", "[::2]:6"], "x:1").scheme == v2.IPv6
    named = endpoints(["b.example:2", "a.example:1"], "x:1")
    assert named.scheme == v2.DOMAIN_NAME and [(x.host, x.port) for x in named.addresses] == [("a.example", 1)]
    mixed = endpoints(["10.0.0.1:1", "a.example:2"], "x:1")
    assert mixed.scheme == v2.DOMAIN_NAME and len(mixed.addresses) == 1


def test_assignments_one_per_set_or_one_per_queue_for_fifo() -> None:
    route = message_queues(topic(read=4, write=2), SETS, "h:1")
    whole = assignments(route, fifo=False)
    assert [(x.message_queue.broker.name, x.message_queue.id) for x in whole] == [("broker-a", -1), ("broker-b", -1)]
    per_queue = assignments(route, fifo=True)
    assert len(per_queue) == 8 and {x.message_queue.id for x in per_queue} == {0, 1, 2, 3}
    assert assignments(message_queues(topic(perm=2), SETS, "h:1"), fifo=False) == []
