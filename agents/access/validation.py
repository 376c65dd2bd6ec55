"""What a sent message must satisfy before it is forwarded, as Java's ``SendMessageActivity`` checks it.

Pure: plain values in, the first ``Problem`` (its v2 code and a one-line message) or None out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import final

from agents.access.codes import Code
from agents.metadata import BORN_HOST, BORN_TIMESTAMP, KEYS, MESSAGE_GROUP, TAGS, UNIQ_KEY
from mqbase.metadata import GROUP_MAX_LENGTH, TOPIC_MAX_LENGTH, VALID_PATTERN

MAX_BODY_SIZE = 4 * 1024 * 1024
"""Java's proxy ``maxMessageSize``; the Settings reply gives clients the same limit."""
MAX_USER_PROPERTIES = 128
MAX_USER_PROPERTIES_SIZE = 16 * 1024
"""Java's ``userPropertyMaxNum`` and ``userPropertyMaxSize`` (bytes of every key and value together)."""
MAX_MESSAGE_GROUP_SIZE = 64
NAME_PATTERN = re.compile(VALID_PATTERN)
SYSTEM_PROPERTIES = frozenset(
    {
        UNIQ_KEY,
        TAGS,
        KEYS,
        MESSAGE_GROUP,
        BORN_HOST,
        BORN_TIMESTAMP,
        "RETRY_TOPIC",
        "DELIVERY_ATTEMPT",
        "ORIGIN_MESSAGE_ID",
        "DELAY",
        "TIMER_DELIVER_MS",
        "TIMER_OUT_MS",
        "TRAN_MSG",
        "REAL_TOPIC",
        "REAL_QID",
        "MSG_REGION",
        "TRACE_ON",
        "WAIT",
    }
)
"""Property keys the broker reads or writes itself (RocketMQ's ``MessageConst`` names a user may not set)."""


@final
@dataclass(frozen=True, slots=True)
class Problem:
    """Why a request is refused: the v2 code and a one-line message."""

    code: Code
    message: str


def _control(text: str) -> bool:
    return any(ord(c) < 0x20 or ord(c) == 0x7F for c in text)


def topic_problem(topic: str) -> Problem | None:
    """A topic name no topic can have (Java's ``validateTopic``)."""
    if not topic.strip():
        return Problem(Code.ILLEGAL_TOPIC, "topic name cannot be blank")
    if len(topic) > TOPIC_MAX_LENGTH:
        return Problem(Code.ILLEGAL_TOPIC, f"topic name length {len(topic)} exceeds the max {TOPIC_MAX_LENGTH}")
    if not NAME_PATTERN.match(topic):
        return Problem(Code.ILLEGAL_TOPIC, f"topic name {topic!r} has characters other than %|a-zA-Z0-9_-")
    return None


def group_problem(group: str) -> Problem | None:
    """A consumer group name no group can have (same rules as a topic's)."""
    if not group.strip():
        return Problem(Code.ILLEGAL_CONSUMER_GROUP, "consumer group name cannot be blank")
    if len(group) > GROUP_MAX_LENGTH or not NAME_PATTERN.match(group):
        return Problem(Code.ILLEGAL_CONSUMER_GROUP, f"consumer group name {group!r} is illegal")
    return None


def send_problem(
    topic: str,
    message_id: str,
    body_size: int,
    user_properties: Mapping[str, str],
    tag: str | None,
    keys: Sequence[str],
    message_group: str | None,
    max_body_size: int = MAX_BODY_SIZE,
) -> Problem | None:
    """The first rule one message breaks, in Java's order, or None."""
    if problem := topic_problem(topic):
        return problem
    if not message_id.strip():
        return Problem(Code.ILLEGAL_MESSAGE_ID, "message id cannot be empty")
    if body_size == 0:
        return Problem(Code.MESSAGE_BODY_EMPTY, "message body cannot be empty")
    if body_size > max_body_size:
        return Problem(
            Code.MESSAGE_BODY_TOO_LARGE, f"message body size {body_size} exceeds the max {max_body_size} bytes"
        )
    if len(user_properties) > MAX_USER_PROPERTIES:
        return Problem(
            Code.MESSAGE_PROPERTIES_TOO_LARGE,
            f"{len(user_properties)} user properties exceed the max {MAX_USER_PROPERTIES}",
        )
    size = sum(len(k.encode()) + len(v.encode()) for k, v in user_properties.items())
    if size > MAX_USER_PROPERTIES_SIZE:
        return Problem(
            Code.MESSAGE_PROPERTIES_TOO_LARGE, f"user properties size {size} exceeds the max {MAX_USER_PROPERTIES_SIZE}"
        )
    for key, value in user_properties.items():
        if key in SYSTEM_PROPERTIES:
            return Problem(Code.ILLEGAL_MESSAGE_PROPERTY_KEY, f"property is used by system, key={key}")
        if not key.strip() or _control(key) or _control(value):
            return Problem(Code.ILLEGAL_MESSAGE_PROPERTY_KEY, f"property {key!r} is blank or has control characters")
    if tag is not None:
        if not tag.strip():
            return Problem(Code.ILLEGAL_MESSAGE_TAG, "tag cannot be the char sequence of whitespace")
        if "|" in tag:
            return Problem(Code.ILLEGAL_MESSAGE_TAG, "tag cannot contain '|'")
        if _control(tag):
            return Problem(Code.ILLEGAL_MESSAGE_TAG, "tag cannot contain control characters")
    for key in keys:
        if not key.strip():
            return Problem(Code.ILLEGAL_MESSAGE_KEY, "key cannot be the char sequence of whitespace")
        if _control(key):
            return Problem(Code.ILLEGAL_MESSAGE_KEY, "key cannot contain control characters")
    if message_group is not None:
        if not message_group.strip():
            return Problem(Code.ILLEGAL_MESSAGE_GROUP, "message group cannot be the char sequence of whitespace")
        if len(message_group) > MAX_MESSAGE_GROUP_SIZE:
            return Problem(
                Code.ILLEGAL_MESSAGE_GROUP,
                f"message group length {len(message_group)} exceeds the max {MAX_MESSAGE_GROUP_SIZE}",
            )
        if _control(message_group):
            return Problem(Code.ILLEGAL_MESSAGE_GROUP, "message group cannot contain control characters")
    return None
