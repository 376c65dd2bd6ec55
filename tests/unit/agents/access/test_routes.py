"""Routes and assignments from the topic's metadata and the broker sets the access point knows."""

from __future__ import annotations

import pytest

from agents.access.protocol import v2
from agents.access.routes import (
    BrokerSet,
    ReplicaReport,
    assignments,
    endpoints,
    from_reports,
    message_queues,
    permissions,
)
from agents.metadata import Topic

SETS = (BrokerSet("broker-a", "127.0.0.1:1"), BrokerSet("broker-b", ""), BrokerSet("broker-c", "127.0.0.1:3"))
ASKED = v2.Endpoints(scheme=v2.IPv4, addresses=[v2.Address(host="127.0.0.1", port=p) for p in (9002, 9001)])


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


def test_every_queue_of_every_serving_set_is_a_master_entry_listing_the_endpoints_the_client_asked() -> None:
    queues = message_queues(topic(), SETS, ASKED, namespace="ns")
    assert [(q.broker.name, q.id, q.broker.id) for q in queues] == [
        ("broker-a", 0, 0), ("broker-a", 1, 0), ("broker-b", 0, 0), ("broker-b", 1, 0)]  # fmt: skip
    assert all(q.broker.endpoints == ASKED for q in queues)  # a set without a master too: held, then forwarded
    assert all(q.permission == v2.READ_WRITE and list(q.accept_message_types) == [v2.NORMAL] for q in queues)
    assert all(q.topic.name == "Orders" and q.topic.resource_namespace == "ns" for q in queues)


def test_a_fifo_topic_accepts_fifo_messages() -> None:
    assert {tuple(q.accept_message_types) for q in message_queues(topic(message_type="FIFO"), SETS, ASKED)} == {
        (v2.FIFO,)
    }


def test_a_route_lists_the_endpoints_asked_as_given_or_this_access_point_when_none() -> None:
    named = v2.Endpoints(scheme=v2.DOMAIN_NAME, addresses=[v2.Address(host=h, port=1) for h in ("b.x", "a.x")])
    assert endpoints(named, "127.0.0.1:9") == named and endpoints(ASKED, "127.0.0.1:9") == ASKED
    for own, scheme, host, port in [
        ("127.0.0.1:9", v2.IPv4, "127.0.0.1", 9),
        ("[::1]:5", v2.IPv6, "::1", 5),
        ("broker.example:7", v2.DOMAIN_NAME, "broker.example", 7),
    ]:
        mine = endpoints(v2.Endpoints(), own)
        assert mine.scheme == scheme and [(a.host, a.port) for a in mine.addresses] == [(host, port)]


def test_assignments_one_per_set_or_one_per_queue_for_fifo() -> None:
    route = message_queues(topic(read=4, write=2), SETS, ASKED)
    whole = assignments(route, fifo=False)
    assert [(x.message_queue.broker.name, x.message_queue.id) for x in whole] == [("broker-a", -1), ("broker-b", -1)]
    per_queue = assignments(route, fifo=True)
    assert len(per_queue) == 8 and {x.message_queue.id for x in per_queue} == {0, 1, 2, 3}
    assert assignments(message_queues(topic(perm=2), SETS, ASKED), fifo=False) == []


# --- RIP-32: a set whose replica acts as master ----------------------------------------------------

ACTING = BrokerSet("broker-b", "", acting_address="127.0.0.1:5")


@pytest.mark.parametrize(
    ("perm", "read", "write", "expected"),
    [
        (6, 2, 2, [v2.READ] * 2),
        (6, 4, 2, [v2.READ] * 4),  # every readable queue, none writable
        (6, 1, 3, [v2.READ]),
        (4, 2, 2, [v2.READ] * 2),
        (2, 2, 2, []),  # a write-only topic has nothing to read from an acting replica
    ],
)
def test_an_acting_set_is_read_only_at_the_endpoints_asked(
    perm: int, read: int, write: int, expected: list[int]
) -> None:
    queues = [
        q for q in message_queues(topic(perm, read, write), (SETS[0], ACTING), ASKED) if q.broker.name == "broker-b"
    ]
    assert [q.permission for q in queues] == expected
    assert all(q.broker.id == 0 and q.broker.endpoints == ASKED for q in queues)


def test_a_master_wins_over_an_acting_replica_and_producers_route_around_an_acting_set() -> None:
    both = BrokerSet("broker-b", "127.0.0.1:2", acting_address="127.0.0.1:5")
    [q, _] = message_queues(topic(), (both,), ASKED)
    assert q.permission == v2.READ_WRITE
    route = message_queues(topic(), (SETS[0], ACTING), ASKED)
    writable = {q.broker.name for q in route if q.permission in (v2.WRITE, v2.READ_WRITE)}
    assert writable == {"broker-a"}
    assert {a.message_queue.broker.name for a in assignments(route, fifo=False)} == {"broker-a", "broker-b"}


def report(address: str, role: str = "slave", acting: bool = False) -> ReplicaReport:
    return ReplicaReport(address, role, acting)


@pytest.mark.parametrize(
    ("known", "reports", "answered", "master", "acting"),
    [
        pytest.param("", [report("a1"), report("a2", acting=True)], True, "", "a2", id="no_master_one_acts"),
        pytest.param("", [report("a1"), report("a2")], True, "", "", id="no_master_none_acts_yet"),
        pytest.param("m", [report("a2", acting=True)], True, "m", "", id="a_reported_master_wins"),
        pytest.param("m", [report("a2", acting=True)], False, "", "a2", id="unreachable_dead_master_dropped"),
        pytest.param("m", [report("m", "master"), report("a2")], False, "m", "", id="unreachable_master_answers"),
        pytest.param("m", [], False, "", "", id="unreachable_nobody_answers"),
    ],
)
def test_from_reports(known: str, reports: list[ReplicaReport], answered: bool, master: str, acting: str) -> None:
    s = from_reports(BrokerSet("b", known), reports, controller_answered=answered)
    assert (s.master_address, s.acting_address) == (master, acting)
