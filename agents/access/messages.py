"""Messages both ways between RocketMQ 5's gRPC form and the broker's (a stored ``Message`` and its properties, a
``Delivery``), as Java's proxy converts them.

A sent message's system properties become the RocketMQ properties our brokers store (``UNIQ_KEY``, ``TAGS``,
``KEYS``, ``__SHARDINGKEY``, ``BORN_HOST``, ``BORN_TIMESTAMP``, ``TIMER_DELIVER_MS`` for a delayed message's
``delivery_timestamp``, ``TRAN_MSG`` and ``CHECK_IMMUNITY_TIME_IN_SECONDS`` for a transactional one's type and
``orphaned_transaction_recovery_duration``); a delivered message gets them back as system properties plus what
the clients check: ``body_encoding`` IDENTITY, the MD5 body digest, the delivery attempt (≥ 1), the receipt handle
and where it was stored. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.access.codes import Code
from agents.access.protocol import v2
from agents.access.validation import MAX_BODY_SIZE, Problem, send_problem
from agents.broker.api import Delivery
from agents.delay.timer import TIMER_DELIVER_MS, TIMER_OUT_MS
from agents.metadata import BORN_HOST, BORN_TIMESTAMP, KEYS, MESSAGE_GROUP, TAGS, UNIQ_KEY, Topic
from agents.store.record import Message
from agents.transaction.half import CHECK_IMMUNITY, PGROUP, TRAN_MSG, is_transactional

KEY_SEPARATOR = " "
"""RocketMQ joins a message's keys into ``KEYS`` with one space."""
SYSTEM_KEYS = frozenset(
    {UNIQ_KEY, TAGS, KEYS, MESSAGE_GROUP, BORN_HOST, BORN_TIMESTAMP, TIMER_DELIVER_MS, TIMER_OUT_MS, TRAN_MSG,
     CHECK_IMMUNITY, PGROUP}
)  # fmt: skip
MAX_DELAY_MS = 24 * 3600 * 1000
"""Java's proxy ``maxDelayTimeMills``: a delivery time further ahead is refused (the broker takes up to
``timerMaxDelaySec`` through the agent API, as Java's broker through remoting)."""


def _tag(system: Any) -> str | None:
    return system.tag if system.HasField("tag") else None


def _group(system: Any) -> str | None:
    return system.message_group if system.HasField("message_group") else None


def outgoing_problem(message: Any, now_ms: int, max_body_size: int = MAX_BODY_SIZE) -> Problem | None:
    """Why one sent ``v2.Message`` may not be forwarded at `now_ms`, or None."""
    system = message.system_properties
    if system.message_type == v2.TRANSACTION and (system.HasField("delivery_timestamp") or _group(system)):
        return Problem(
            Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE,
            "a transactional message cannot carry a delivery timestamp or a message group",
        )
    if system.HasField("delivery_timestamp") and system.delivery_timestamp.ToMilliseconds() - now_ms > MAX_DELAY_MS:
        return Problem(Code.ILLEGAL_DELIVERY_TIME, "message delay time too large (24 h at most)")
    return send_problem(
        message.topic.name,
        system.message_id,
        len(message.body),
        dict(message.user_properties),
        _tag(system),
        list(system.keys),
        _group(system),
        max_body_size,
    )


def message_type(message: Any) -> str:
    """What a sent message is, from what it carries, as Java's ``TopicMessageType.parseFromMessageProperty``: its
    type TRANSACTION makes it TRANSACTION, a delivery time DELAY, a message group FIFO, anything else NORMAL."""
    system = message.system_properties
    if system.message_type == v2.TRANSACTION:
        return "TRANSACTION"
    return "DELAY" if system.HasField("delivery_timestamp") else "FIFO" if _group(system) is not None else "NORMAL"


def type_problem(message: Any, topic: Topic) -> Problem | None:
    """Why `message` may not go to `topic`, or None: what it is must be the topic's ``message.type``, as Java's
    proxy validates (``DefaultTopicMessageTypeValidator``), whatever the client checked (the Rust client checks
    nothing)."""
    actual = message_type(message)
    if actual != topic.message_type:
        return Problem(
            Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE,
            f"TopicMessageType validate failed, the expected type is {topic.message_type}, but actual type is {actual}",
        )
    return None


def to_broker(message: Any) -> Message:
    """The broker's message for a valid sent ``v2.Message``: the broker picks the queue (-1), by the message group
    when there is one (the Python client never sends the queue it chose)."""
    system = message.system_properties
    properties = dict(message.user_properties)
    properties[UNIQ_KEY] = system.message_id
    if (tag := _tag(system)) is not None:
        properties[TAGS] = tag
    if system.keys:
        properties[KEYS] = KEY_SEPARATOR.join(system.keys)
    if (group := _group(system)) is not None:
        properties[MESSAGE_GROUP] = group
    if system.HasField("born_timestamp"):
        properties[BORN_TIMESTAMP] = str(system.born_timestamp.ToMilliseconds())
    if system.born_host:
        properties[BORN_HOST] = system.born_host
    if system.HasField("delivery_timestamp"):
        properties[TIMER_DELIVER_MS] = str(system.delivery_timestamp.ToMilliseconds())
    if system.message_type == v2.TRANSACTION:
        properties[TRAN_MSG] = "true"
        if system.HasField("orphaned_transaction_recovery_duration"):
            seconds = system.orphaned_transaction_recovery_duration.ToSeconds()
            if seconds > 0:
                properties[CHECK_IMMUNITY] = str(seconds)
    return Message(message.topic.name, -1, message.body, properties, 0)


def delivered(received: Delivery, namespace: str = "") -> Any:
    """The ``v2.Message`` a client gets for a message the agent API delivered."""
    out = stored_message(received.message, received.body_digest, namespace)
    system = out.system_properties
    system.receipt_handle = received.receipt_handle
    system.queue_offset = received.queue_offset
    system.delivery_attempt = max(received.attempt, 1)
    return out


def _type_of(props: Mapping[str, str]) -> Any:
    if is_transactional(props):
        return v2.TRANSACTION
    return v2.DELAY if TIMER_DELIVER_MS in props else v2.FIFO if props.get(MESSAGE_GROUP) else v2.NORMAL


def stored_message(m: Message, body_digest: str, namespace: str = "") -> Any:
    """The ``v2.Message`` of a stored message, as a delivery or a transaction check-back carries it."""
    props = m.properties
    group = props.get(MESSAGE_GROUP)
    system = v2.SystemProperties(
        message_id=props.get(UNIQ_KEY, ""),
        body_digest=v2.Digest(type=v2.MD5, checksum=body_digest),
        body_encoding=v2.IDENTITY,
        message_type=_type_of(props),
        born_host=props.get(BORN_HOST, ""),
        queue_id=m.queue_id,
    )
    if TAGS in props:
        system.tag = props[TAGS]
    if props.get(KEYS):
        system.keys.extend(k for k in props[KEYS].split(KEY_SEPARATOR) if k)
    if group:
        system.message_group = group
    born = props.get(BORN_TIMESTAMP, "")
    system.born_timestamp.FromMilliseconds(int(born) if born.isdigit() else m.store_timestamp)
    system.store_timestamp.FromMilliseconds(m.store_timestamp)
    deliver = props.get(TIMER_DELIVER_MS, "")
    if deliver.isdigit():
        system.delivery_timestamp.FromMilliseconds(int(deliver))
    user = {k: v for k, v in props.items() if k not in SYSTEM_KEYS}
    return v2.Message(
        topic=v2.Resource(name=m.topic, resource_namespace=namespace),
        user_properties=user,
        system_properties=system,
        body=m.body,
    )
