"""Receipt handles: what a receive hands out and an ack or a change of invisibility must bring back.

A handle is one line of nine space-separated fields::

    1 <brokerName> <group> <topic> <queueId> <queueOffset> <deadlineMs> <attempt> <ticket>

``1`` is the format's version. The broker set's name, not an address, so a handle stays valid on the set's next
master. ``ticket`` is the version: every delivery and every change of invisibility of a message takes the queue
state's next ticket, so a handle whose ticket is not the message's current one is stale and refused. Names hold
no whitespace (broker names never do, and RocketMQ topic and group names are ``[%|a-zA-Z0-9_-]``), and numbers are
canonical decimals, so a handle has exactly one text and ``encode(decode(text)) == text``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agents.pop.errors import PopCode, PopError

FORMAT_VERSION = "1"
MAX_INT = 2**63 - 1
"""Java's ``long``: the largest offset, deadline or ticket a handle carries."""
RANGE = "0..2^63-1"
_CANONICAL = re.compile(r"0|[1-9][0-9]{0,17}")
"""A canonical decimal below 10^18, so within MAX_INT without a range test (larger ones take ``_number``)."""
_FIELDS = ("version", "brokerName", "group", "topic", "queueId", "queueOffset", "deadlineMs", "attempt", "ticket")


@dataclass(frozen=True, slots=True)
class ReceiptHandle:
    """One delivery of one message: where it is, until when it is invisible, its attempt and its ticket."""

    broker_name: str
    group: str
    topic: str
    queue_id: int
    queue_offset: int
    deadline_ms: int
    attempt: int
    ticket: int

    def __post_init__(self) -> None:
        # One cheap test for the common case (every receive makes a handle per message, every ack decodes one);
        # the loops below only name what is wrong.
        names_ok = all(v and v.isprintable() and " " not in v for v in (self.broker_name, self.group, self.topic))
        if (
            names_ok
            and 0 <= self.queue_id <= MAX_INT
            and 0 <= self.queue_offset <= MAX_INT
            and 0 <= self.deadline_ms <= MAX_INT
            and 1 <= self.attempt <= MAX_INT
            and 0 <= self.ticket <= MAX_INT
        ):
            return
        for name, value in (("brokerName", self.broker_name), ("group", self.group), ("topic", self.topic)):
            if problem := _name_problem(value):
                raise PopError(PopCode.INVALID_RECEIPT_HANDLE, f"receipt handle: {name} {problem}")
        numbers = (self.queue_id, self.queue_offset, self.deadline_ms, self.attempt, self.ticket)
        for name, number in zip(_FIELDS[4:], numbers, strict=True):
            if not 0 <= number <= MAX_INT:
                raise PopError(PopCode.INVALID_RECEIPT_HANDLE, f"receipt handle: {name} {number} is not in {RANGE}")
        raise PopError(PopCode.INVALID_RECEIPT_HANDLE, "receipt handle: attempt must be at least 1")

    def encode(self) -> str:
        """The handle's one text."""
        fields = (
            FORMAT_VERSION,
            self.broker_name,
            self.group,
            self.topic,
            self.queue_id,
            self.queue_offset,
            self.deadline_ms,
            self.attempt,
            self.ticket,
        )
        return " ".join(str(f) for f in fields)


def _name_problem(value: str) -> str | None:
    if not value:
        return "is empty"
    if not value.isprintable() or " " in value:  # isprintable is false for every other whitespace character
        return f"{value!r} holds whitespace or control characters"
    return None


def _number(name: str, text: str) -> int:
    canonical = text.isascii() and text.isdigit() and (text == "0" or not text.startswith("0"))
    if not canonical or len(text) > len(str(MAX_INT)) or int(text) > MAX_INT:
        raise PopError(PopCode.INVALID_RECEIPT_HANDLE, f"receipt handle: {name} {text!r} is not a number in {RANGE}")
    return int(text)


def decode(text: str) -> ReceiptHandle:
    """The handle `text` encodes, or `PopError` INVALID_RECEIPT_HANDLE naming the first bad field."""
    parts = text.split(" ")
    if len(parts) != len(_FIELDS):
        raise PopError(
            PopCode.INVALID_RECEIPT_HANDLE, f"receipt handle has {len(parts)} fields, expected {len(_FIELDS)}"
        )
    if parts[0] != FORMAT_VERSION:
        raise PopError(PopCode.INVALID_RECEIPT_HANDLE, f"receipt handle version {parts[0]!r} is not {FORMAT_VERSION}")
    broker, group, topic = parts[1:4]
    if all(_CANONICAL.fullmatch(t) for t in parts[4:]):  # the common case: five canonical numbers, one test each
        queue_id, offset, deadline, attempt, ticket = map(int, parts[4:])
    else:
        numbers = (_number(n, t) for n, t in zip(_FIELDS[4:], parts[4:], strict=True))
        queue_id, offset, deadline, attempt, ticket = numbers
    return ReceiptHandle(broker, group, topic, queue_id, offset, deadline, attempt, ticket)
