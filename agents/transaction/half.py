"""Transactional messages as RocketMQ 5's broker stores them: the half message, its commit, its drop, and the
transaction id a client brings back.

A send of a message carrying ``TRAN_MSG=true`` (v2 ``MessageType.TRANSACTION``) is stored as a half message: under
`HALF_TOPIC`, queue 0, with its real topic and queue in ``REAL_TOPIC`` / ``REAL_QID`` (`to_half`), where no
consumer reads it. ``EndTransaction`` COMMIT appends `committed`'s copy to the real topic (same ``UNIQ_KEY``, so
the message id stays the producer's) and ROLLBACK appends nothing; either way a ``TransactionEnded`` record of the
half queue offset goes in the same put (``agents.consumer.records``), so a new master holds the copy and the
decision together or neither. A half still open after `transactionCheckMax` check-backs is copied to
`CHECK_MAX_TOPIC` (`dropped`) and ended, as Java's ``TransactionalMessageCheckService`` does.

The transaction id (`TransactionRef`) names the broker set, the half queue offset and the half's commit-log
offset: every replica of the set stores the half at those offsets, so the id stays valid on any master the set
gets, and on any access point. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum

from agents.delay.timer import REAL_QID, REAL_TOPIC
from agents.store.record import Message

HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC"
"""Java's ``TransactionalMessageUtil.buildHalfTopic()``: where half messages wait (queue 0)."""
CHECK_MAX_TOPIC = "TRANS_CHECK_MAX_TIME_TOPIC"
"""Java's ``TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC``: a half message checked back too often, kept."""
TRAN_MSG = "TRAN_MSG"
"""RocketMQ's ``PROPERTY_TRANSACTION_PREPARED``: "true" on a transactional message; its committed copy keeps it,
so consumers see it as TRANSACTION."""
PGROUP = "PGROUP"
"""RocketMQ's ``PROPERTY_PRODUCER_GROUP``; Java's proxy uses the topic as the producer group of v2 clients."""
TRANSACTION_ID = "__transactionId__"
CHECK_IMMUNITY = "CHECK_IMMUNITY_TIME_IN_SECONDS"
"""A message's own first-check delay (v2 ``orphaned_transaction_recovery_duration``), instead of
``transactionTimeOut``."""
ID_SEPARATOR = "@"
"""Not a character of RocketMQ's names, so a transaction id splits back into its broker set and offsets."""


class Resolution(IntEnum):
    """How a transaction ended (a ``TransactionEnded`` record's field)."""

    COMMIT = 1
    ROLLBACK = 2
    DROPPED = 3
    """Checked back ``transactionCheckMax`` times without an answer, or its half message is gone."""


_STOOD = {
    Resolution.COMMIT: "was committed before: its message is delivered",
    Resolution.ROLLBACK: "was rolled back before: its message is never delivered",
    Resolution.DROPPED: f"was dropped before: its check-backs went unanswered (kept in {CHECK_MAX_TOPIC}, never "
    "delivered)",
}


def end_conflict(stood: Resolution | None, asked: Resolution) -> str | None:
    """Why an end asking `asked` of a transaction that ended `stood` must be refused (None: it asks what
    happened, or the first end's resolution is no longer kept): the first end stands, so a COMMIT of one not
    committed, or a ROLLBACK of one committed, did not happen, and its producer must be told."""
    if stood is None or stood is asked or (asked is Resolution.ROLLBACK and stood is Resolution.DROPPED):
        return None
    return f"{_STOOD[stood]}; this {asked.name.lower()} is not done (the first end stands)"


def is_transactional(properties: Mapping[str, str]) -> bool:
    return properties.get(TRAN_MSG, "").lower() == "true"


def to_half(message: Message) -> Message:
    """The half message the store gets for a sent transactional `message` (its queue already chosen)."""
    properties = {
        **message.properties,
        REAL_TOPIC: message.topic,
        REAL_QID: str(message.queue_id),
        PGROUP: message.properties.get(PGROUP) or message.topic,
    }
    return Message(HALF_TOPIC, 0, message.body, properties, message.store_timestamp)


def real_queue(half: Message) -> tuple[str, int] | None:
    """The topic and queue a half message was sent to; None for one that names none (not a half message)."""
    topic, queue = half.properties.get(REAL_TOPIC, ""), half.properties.get(REAL_QID, "")
    if not topic or not queue.isascii() or not queue.isdigit():
        return None
    return topic, int(queue)


def committed(half: Message, now_ms: int) -> Message | None:
    """The copy a commit appends to the real topic, stored at `now_ms`: the half's body and properties without
    ``REAL_TOPIC`` / ``REAL_QID`` (``TRAN_MSG`` stays, as in Java's ``endMessageTransaction``). None for a message
    that names no real queue."""
    where = real_queue(half)
    if where is None:
        return None
    properties = {k: v for k, v in half.properties.items() if k not in (REAL_TOPIC, REAL_QID)}
    return Message(where[0], where[1], half.body, properties, now_ms)


def dropped(half: Message, now_ms: int) -> Message:
    """The copy a half message checked back too often leaves in `CHECK_MAX_TOPIC` (queue 0), for an operator."""
    return Message(CHECK_MAX_TOPIC, 0, half.body, dict(half.properties), now_ms)


@dataclass(frozen=True, slots=True)
class TransactionRef:
    """What a transaction id names: the broker set holding the half message and where it is stored there."""

    broker_name: str
    half_offset: int
    """The half message's offset in `HALF_TOPIC`'s queue 0."""
    commit_log_offset: int

    def encode(self) -> str:
        return ID_SEPARATOR.join((self.broker_name, str(self.half_offset), str(self.commit_log_offset)))


def decode_id(text: str) -> TransactionRef | None:
    """The reference a transaction id names; None for a text no broker handed out."""
    parts = text.rsplit(ID_SEPARATOR, 2)
    if len(parts) != 3 or not parts[0] or not all(p.isascii() and p.isdigit() for p in parts[1:]):
        return None
    return TransactionRef(parts[0], int(parts[1]), int(parts[2]))


def immunity_ms(half: Message, timeout_ms: int) -> int:
    """How long after it was stored a half message is first checked back: its own ``CHECK_IMMUNITY_TIME_IN_SECONDS``
    when it carries a positive whole number, else ``transactionTimeOut``."""
    text = half.properties.get(CHECK_IMMUNITY, "")
    if text.isascii() and text.isdigit() and int(text) > 0:
        return int(text) * 1000
    return timeout_ms
