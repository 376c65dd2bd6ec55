"""Messages both ways: what a sent v2 message stores, and what a delivered one carries for the clients."""

from __future__ import annotations

from typing import Any

import pytest

from agents.access.codes import Code
from agents.access.messages import delivered, message_type, outgoing_problem, to_broker, type_problem
from agents.access.protocol import v2
from agents.broker.api import Delivery
from agents.metadata import Topic
from agents.store.record import Message

NOW = 1_700_000_000_000


def sent(**system: Any) -> Any:
    m = v2.Message(topic=v2.Resource(name="Orders"), body=b"hello", user_properties={"color": "red"})
    m.system_properties.message_id = "01ABCDEF"
    m.system_properties.message_type = v2.NORMAL
    m.system_properties.born_timestamp.FromMilliseconds(1_700_000_000_000)
    m.system_properties.born_host = "10.0.0.1"
    for key, value in system.items():
        if key == "keys":
            m.system_properties.keys.extend(value)
        else:
            setattr(m.system_properties, key, value)
    return m


def test_a_sent_message_becomes_our_properties() -> None:
    message = sent(tag="TagA", keys=["k1", "k2"], message_group="g1")
    assert outgoing_problem(message, NOW) is None
    out = to_broker(message)
    assert (out.topic, out.queue_id, out.body) == ("Orders", -1, b"hello")
    assert dict(out.properties) == {
        "color": "red",
        "UNIQ_KEY": "01ABCDEF",
        "TAGS": "TagA",
        "KEYS": "k1 k2",
        "__SHARDINGKEY": "g1",
        "BORN_TIMESTAMP": "1700000000000",
        "BORN_HOST": "10.0.0.1",
    }


def test_a_transactional_message_is_a_half_message_for_the_broker() -> None:
    message = sent(message_type=v2.TRANSACTION)
    assert outgoing_problem(message, NOW) is None and message_type(message) == "TRANSACTION"
    assert to_broker(message).properties["TRAN_MSG"] == "true"
    assert "CHECK_IMMUNITY_TIME_IN_SECONDS" not in to_broker(message).properties
    message.system_properties.orphaned_transaction_recovery_duration.FromSeconds(45)
    assert to_broker(message).properties["CHECK_IMMUNITY_TIME_IN_SECONDS"] == "45"


def test_a_transactional_message_cannot_be_delayed_or_ordered() -> None:
    delayed = sent(message_type=v2.TRANSACTION)
    delayed.system_properties.delivery_timestamp.FromMilliseconds(NOW + 1000)
    for m in (delayed, sent(message_type=v2.TRANSACTION, message_group="g1")):
        problem = outgoing_problem(m, NOW)
        assert problem is not None and problem.code is Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE
        assert problem.message == "a transactional message cannot carry a delivery timestamp or a message group"


def _delayed() -> Any:
    message = sent(message_type=v2.DELAY)
    message.system_properties.delivery_timestamp.FromMilliseconds(1_700_000_060_000)
    return message


def test_a_delivery_time_more_than_a_day_ahead_is_refused_as_javas_proxy_does() -> None:
    day = 24 * 3600 * 1000
    assert outgoing_problem(_delayed(), NOW + 60_000 - day) is None  # exactly a day ahead
    problem = outgoing_problem(_delayed(), NOW + 60_000 - day - 1)
    assert problem is not None and problem.code is Code.ILLEGAL_DELIVERY_TIME


def test_a_delayed_message_carries_its_delivery_time_as_timer_deliver_ms() -> None:
    assert outgoing_problem(_delayed(), NOW) is None
    assert to_broker(_delayed()).properties["TIMER_DELIVER_MS"] == "1700000060000"


def _grouped() -> Any:
    message = sent(message_type=v2.FIFO)
    message.system_properties.message_group = "g1"
    return message


@pytest.mark.parametrize("topic_type", ["NORMAL", "FIFO", "DELAY"])
@pytest.mark.parametrize(("make", "actual"), [(sent, "NORMAL"), (_grouped, "FIFO"), (_delayed, "DELAY")])
def test_a_message_goes_only_to_a_topic_of_its_type(topic_type: str, make: Any, actual: str) -> None:
    """Java's proxy checks what a message is against the topic's ``message.type`` (``enableTopicMessageTypeCheck``),
    from the properties it carries, not from the type the client claims."""
    problem = type_problem(make(), Topic("Orders", frozenset({"b"}), 4, 4, 6, topic_type))
    if actual == topic_type:
        assert problem is None
    else:
        assert problem is not None and problem.code is Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE
        expected = f"TopicMessageType validate failed, the expected type is {topic_type}, but actual type is {actual}"
        assert problem.message == expected


def test_a_delivered_delayed_message_is_delay_typed_with_its_delivery_time() -> None:
    props = {"UNIQ_KEY": "01", "TIMER_DELIVER_MS": "1700000060000", "TIMER_OUT_MS": "1700000060000", "c": "d"}
    m = delivered(Delivery(Message("T", 0, b"x", props, 0), 0, 1, "h", 0, ""))
    assert (m.system_properties.message_type, dict(m.user_properties)) == (v2.DELAY, {"c": "d"})
    assert m.system_properties.delivery_timestamp.ToMilliseconds() == 1_700_000_060_000


def test_a_sent_message_is_validated() -> None:
    problem = outgoing_problem(sent(tag="A|B"), NOW)
    assert problem is not None and problem.code is Code.ILLEGAL_MESSAGE_TAG
    empty = sent()
    empty.body = b""
    problem = outgoing_problem(empty, NOW)
    assert problem is not None and problem.code is Code.MESSAGE_BODY_EMPTY


def test_a_delivered_message_has_what_the_clients_check() -> None:
    props = {"UNIQ_KEY": "01ABCDEF", "TAGS": "TagA", "KEYS": "k1 k2", "__SHARDINGKEY": "g1",
             "BORN_TIMESTAMP": "1700000000000", "BORN_HOST": "10.0.0.1:5", "color": "red"}  # fmt: skip
    received = Delivery(
        Message("Orders", 1, b"hello", props, 1_700_000_000_500, 7),
        queue_offset=7,
        attempt=2,
        receipt_handle="1 broker-a G Orders 1 7 99 2 3",
        invisible_until_ms=0,
        body_digest="5D41402ABC4B2A76B9719D911017C592",
    )
    m = delivered(received, "ns")
    s = m.system_properties
    assert (m.topic.name, m.topic.resource_namespace, m.body, dict(m.user_properties)) == (
        "Orders", "ns", b"hello", {"color": "red"})  # fmt: skip
    assert (s.message_id, s.tag, list(s.keys), s.message_group, s.born_host) == (
        "01ABCDEF", "TagA", ["k1", "k2"], "g1", "10.0.0.1:5")  # fmt: skip
    assert (s.body_encoding, s.body_digest.type, s.body_digest.checksum) == (
        v2.IDENTITY,
        v2.MD5,
        "5D41402ABC4B2A76B9719D911017C592",
    )
    assert (s.message_type, s.delivery_attempt, s.receipt_handle) == (v2.FIFO, 2, "1 broker-a G Orders 1 7 99 2 3")
    assert (s.queue_id, s.queue_offset) == (1, 7)
    assert (s.born_timestamp.ToMilliseconds(), s.store_timestamp.ToMilliseconds()) == (
        1_700_000_000_000,
        1_700_000_000_500,
    )


def test_a_delivered_message_without_producer_properties_still_has_an_attempt_and_a_time() -> None:
    s = delivered(Delivery(Message("T", 0, b"x", {}, 5), 0, 0, "h", 0, "")).system_properties
    assert (s.delivery_attempt, s.message_type, s.born_timestamp.ToMilliseconds()) == (1, v2.NORMAL, 5)
    assert not s.HasField("tag") and not s.HasField("message_group")
