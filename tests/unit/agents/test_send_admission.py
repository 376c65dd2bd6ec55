"""Which sends may write (``agents.metadata.send_verdict``), how often a refused send re-reads the metadata
(``reread_due``), and the born host and timestamp a message is stamped with (``agents.broker.sends``). Pure."""

from __future__ import annotations

import pytest

from agents.broker.sends import born_properties
from agents.metadata import (
    BORN_HOST,
    BORN_TIMESTAMP,
    CREATE,
    REREAD_INTERVAL_S,
    Allowed,
    MetadataTable,
    Refused,
    SendVerdict,
    Topic,
    learn,
    reread_due,
    send_verdict,
)
from mqbase.codes import ResponseCode as C
from mqbase.metadata import DEFAULT_QUEUE_NUMS
from mqbase.serving import peer_address

TABLE = learn(
    MetadataTable(),
    5,
    [
        Topic("Orders", frozenset({"broker-a", "broker-b"}), 8, 6, 6),
        Topic("WriteOnly", frozenset({"broker-a"}), 4, 2, 2),
        Topic("ReadOnly", frozenset({"broker-a"}), 4, 4, 4),
        Topic("Audit", frozenset({"broker-b"}), 4, 4, 6),
        Topic("NoQueues", frozenset({"broker-a"}), 0, 0, 6),
    ],
    [],
)
NOT_EXIST = (
    "topic[Payments] not exist, apply first please! Create it: mqadmin updateTopic -t Payments -c DefaultCluster"
)


@pytest.mark.parametrize(
    ("topic", "auto_create", "verdict"),
    [
        pytest.param("Orders", False, Allowed(6), id="known_served_rw_uses_write_queue_nums"),
        pytest.param("WriteOnly", False, Allowed(2), id="perm_2_is_writable"),
        pytest.param("NoQueues", False, Allowed(DEFAULT_QUEUE_NUMS), id="no_write_queues_learnt_takes_the_default"),
        pytest.param("Payments", False, Refused(C.TOPIC_NOT_EXIST, NOT_EXIST), id="unknown_is_17_with_the_command"),
        pytest.param("Payments", True, CREATE, id="unknown_with_auto_create_is_created"),
        pytest.param("Orders", True, Allowed(6), id="auto_create_changes_nothing_for_a_known_topic"),
        pytest.param(
            "ReadOnly",
            True,
            Refused(
                C.NO_PERMISSION,
                "the topic[ReadOnly] sending message is forbidden (perm 4 has no write bit 2); allow writes: "
                "mqadmin updateTopic -t ReadOnly -c DefaultCluster -p 6",
            ),
            id="perm_4_is_read_only",
        ),
        pytest.param(
            "Audit",
            True,
            Refused(
                C.NO_PERMISSION,
                "topic[Audit] is not served by broker set broker-a (served by: broker-b); send to those, or add "
                "this set: mqadmin updateTopic -t Audit -b broker-a",
            ),
            id="served_by_other_sets_only_is_16_and_never_created_here",
        ),
        pytest.param(
            "rmq_sys_CONSUMER_STATE",
            True,
            Refused(C.NO_PERMISSION, "Sending message to topic[rmq_sys_CONSUMER_STATE] is forbidden.", False),
            id="system_topic_refused_whatever_the_table",
        ),
        pytest.param(
            "SCHEDULE_TOPIC_XXXX",
            False,
            Refused(C.NO_PERMISSION, "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden.", False),
            id="java_not_allowed_send_topic",
        ),
        pytest.param(
            "TBW102",
            True,
            Refused(
                C.TOPIC_NOT_EXIST,
                "topic[TBW102] not exist, and cannot be created: The topic[TBW102] is conflict with system topic.",
            ),
            id="a_name_no_operator_may_create_is_never_auto_created",
        ),
        pytest.param(
            "bad topic",
            True,
            Refused(
                C.MESSAGE_ILLEGAL,
                "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
                False,
            ),
            id="an_illegal_name_is_13_and_never_created",
        ),
        pytest.param(
            "", True, Refused(C.MESSAGE_ILLEGAL, "The specified topic is blank.", False), id="a_blank_name_is_13"
        ),
    ],
)
def test_send_verdict(topic: str, auto_create: bool, verdict: SendVerdict) -> None:
    """Table-driven over one learnt table (broker set broker-a); see each case's id."""
    assert send_verdict(TABLE, topic, "broker-a", "DefaultCluster", auto_create) == verdict


@pytest.mark.parametrize("auto_create", [False, True])
def test_nothing_learnt_yet_writes_nothing_and_asks_for_a_retry(auto_create: bool) -> None:
    """A broker that has not read the metadata yet (version -1) cannot tell a missing topic from one it has not
    learnt: it writes nothing, creates nothing, and says retry rather than "not exist"."""
    verdict = send_verdict(MetadataTable(), "Orders", "broker-a", "DefaultCluster", auto_create)
    assert verdict == Refused(
        C.SERVICE_NOT_AVAILABLE, "broker set broker-a has not learnt the topics from the controller yet; retry"
    )
    learnt_empty = send_verdict(learn(MetadataTable(), 0, [], []), "Orders", "broker-a", "X", False)
    assert isinstance(learnt_empty, Refused) and learnt_empty.code == C.TOPIC_NOT_EXIST  # version 0: truly absent


@pytest.mark.parametrize(
    ("last", "now", "due"),
    [
        pytest.param(None, 0.0, True, id="never_reread"),
        pytest.param(100.0, 100.0, False, id="same_instant"),
        pytest.param(100.0, 100.0 + REREAD_INTERVAL_S / 2, False, id="within_the_interval"),
        pytest.param(100.0, 100.0 + REREAD_INTERVAL_S, True, id="exactly_the_interval_later"),
        pytest.param(100.0, 500.0, True, id="long_after"),
    ],
)
def test_reread_at_most_once_per_interval(last: float | None, now: float, due: bool) -> None:
    assert reread_due(last, now) is due


@pytest.mark.parametrize(
    ("peer", "address"),
    [
        ("ipv4:127.0.0.1:54321", "127.0.0.1:54321"),
        ("ipv6:[::1]:40000", "[::1]:40000"),
        ("ipv6:%5B::1%5D:40000", "[::1]:40000"),
        ("ipv6:[fe80::1%25eth0]:7", "[fe80::1%eth0]:7"),
        ("unix:/tmp/agent.sock", None),
        ("ipv4:127.0.0.1", None),
        ("ipv4:127.0.0.1:port", None),
        ("ipv6:::1", None),
        ("", None),
    ],
)
def test_peer_address(peer: str, address: str | None) -> None:
    assert peer_address(peer) == address


@pytest.mark.parametrize(
    ("properties", "host", "stamped"),
    [
        pytest.param(
            {"KEYS": "k"},
            "10.0.0.1:5",
            {"KEYS": "k", BORN_HOST: "10.0.0.1:5", BORN_TIMESTAMP: "1700"},
            id="both_stamped",
        ),
        pytest.param({}, None, {BORN_TIMESTAMP: "1700"}, id="no_peer_address_no_host"),
        pytest.param(
            {BORN_HOST: "192.168.1.9:77", BORN_TIMESTAMP: "42"},
            "10.0.0.1:5",
            {BORN_HOST: "192.168.1.9:77", BORN_TIMESTAMP: "42"},
            id="the_producers_values_are_kept",
        ),
        pytest.param(
            {BORN_TIMESTAMP: "42"}, "10.0.0.1:5", {BORN_HOST: "10.0.0.1:5", BORN_TIMESTAMP: "42"}, id="one_of_two"
        ),
    ],
)
def test_born_properties(properties: dict[str, str], host: str | None, stamped: dict[str, str]) -> None:
    assert born_properties(properties, host, 1700) == stamped
