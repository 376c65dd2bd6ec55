"""RocketMQ's rules for topic and subscription-group metadata, shared by the controller, the agent and the CLI.

Pure: names, permissions and topic attributes are checked here once, so ``mqadmin`` refuses bad input as a usage
error with the same words the controller answers with (CONTROLLER_INVALID_REQUEST). The name rules and their
remarks are Java's ``TopicValidator``; the reserved names are its system topics.
"""

from __future__ import annotations

import re

TOPIC_MAX_LENGTH = 127
"""``TopicValidator.TOPIC_MAX_LENGTH``."""
GROUP_MAX_LENGTH = 255
"""``Validators.CHARACTER_MAX_LENGTH``, the limit Java puts on a group name."""
VALID_PATTERN = "^[%|a-zA-Z0-9_-]+$"
_VALID = re.compile(r"[%|a-zA-Z0-9_-]+")

SYSTEM_TOPIC_PREFIX = "rmq_sys_"
SYSTEM_TOPICS = frozenset(
    {
        "TBW102",
        "SCHEDULE_TOPIC_XXXX",
        "BenchmarkTest",
        "RMQ_SYS_TRANS_HALF_TOPIC",
        "RMQ_SYS_TRACE_TOPIC",
        "RMQ_SYS_TRANS_OP_HALF_TOPIC",
        "TRANS_CHECK_MAX_TIME_TOPIC",
        "SELF_TEST_TOPIC",
        "OFFSET_MOVED_EVENT",
        "CHECKPOINT_TOPIC",
    }
)
"""``TopicValidator``'s system topics: the broker's own, never created by an operator."""
NOT_SENDABLE_TOPICS = frozenset(
    {
        "SCHEDULE_TOPIC_XXXX",
        "RMQ_SYS_TRANS_HALF_TOPIC",
        "RMQ_SYS_TRANS_OP_HALF_TOPIC",
        "TRANS_CHECK_MAX_TIME_TOPIC",
        "SELF_TEST_TOPIC",
        "OFFSET_MOVED_EVENT",
    }
)
"""``TopicValidator.NOT_ALLOWED_SEND_TOPIC_SET``: system topics only the broker itself writes."""

PERM_WRITE, PERM_READ = 2, 4
"""``PermName`` bits: 2 = W, 4 = R, 6 = RW."""
PERMS = (PERM_WRITE, PERM_READ, PERM_READ | PERM_WRITE)
MAX_QUEUE_NUMS = 1024
"""Our bound on a topic's read or write queue numbers (Java sets none; a typo of 80000 would allocate that many)."""
DEFAULT_QUEUE_NUMS = 8
"""The read and write queues of a topic created without numbers (Java's ``updateTopic`` and broker
``defaultTopicQueueNums``), and of one a broker has not learnt: one value for the controller and the agents."""
MAX_RETRY_TIMES = 1000
"""Our bound on ``retryMaxTimes`` (Java's delay levels top out after 16 retries; more adds the last delay)."""

MESSAGE_TYPE = "message.type"
"""RocketMQ 5's topic attribute naming the kind of messages a topic takes; NORMAL when absent."""
MESSAGE_TYPES = ("NORMAL", "FIFO", "DELAY", "TRANSACTION")
TOPIC_ATTRIBUTES = {MESSAGE_TYPE: MESSAGE_TYPES}
"""The topic attributes we know, with their allowed values."""


def topic_problem(name: str) -> str | None:
    """Why `name` cannot be a topic an operator creates (Java's remark), or None."""
    if not name.strip():
        return "The specified topic is blank."
    if not _VALID.fullmatch(name):
        return f"The specified topic contains illegal characters, allowing only {VALID_PATTERN}"
    if len(name) > TOPIC_MAX_LENGTH:
        return "The specified topic is longer than topic max length."
    if name in SYSTEM_TOPICS or name.startswith(SYSTEM_TOPIC_PREFIX):
        return f"The topic[{name}] is conflict with system topic."
    return None


def send_problem(topic: str) -> str | None:
    """Why a producer may not send to `topic` (Java's remark, answered with NO_PERMISSION), or None: the broker's
    own topics, and every ``rmq_sys_`` topic, where the broker writes its consumer-state records."""
    if topic in NOT_SENDABLE_TOPICS or topic.startswith(SYSTEM_TOPIC_PREFIX):
        return f"Sending message to topic[{topic}] is forbidden."
    return None


TOPIC_START_GROUP = "%TOPIC_START%"
"""A name no subscription group may have: the agents keep where a topic created again starts as this pseudo-group's
offsets (``agents.consumer.offsets.TOPIC_START``)."""


def group_problem(name: str) -> str | None:
    """Why `name` cannot be a subscription group (Java's remark), or None."""
    if not name.strip():
        return "the specified group is blank"
    if name == TOPIC_START_GROUP:
        return f"the specified group[{name}] is reserved by the broker"
    if len(name) > GROUP_MAX_LENGTH:
        return f"the specified group is longer than group max length {GROUP_MAX_LENGTH}."
    if not _VALID.fullmatch(name):
        return f"the specified group[{name}] contains illegal characters, allowing only {VALID_PATTERN}"
    return None


def perm_problem(perm: int) -> str | None:
    if perm not in PERMS:
        return f"perm must be 2 (W), 4 (R) or 6 (RW), got {perm}"
    return None


def queue_nums_problem(value: int, what: str) -> str | None:
    if not 1 <= value <= MAX_QUEUE_NUMS:
        return f"{what} must be between 1 and {MAX_QUEUE_NUMS}, got {value}"
    return None


def retry_max_times_problem(value: int) -> str | None:
    if not 0 <= value <= MAX_RETRY_TIMES:
        return f"retryMaxTimes must be between 0 and {MAX_RETRY_TIMES}, got {value}"
    return None


def attribute_problem(key: str, value: str | None) -> str | None:
    """Why setting (`value`) or removing (None) a topic attribute is refused, or None."""
    if key not in TOPIC_ATTRIBUTES:
        return f"unknown topic attribute {key!r} (known: {', '.join(sorted(TOPIC_ATTRIBUTES))})"
    allowed = TOPIC_ATTRIBUTES[key]
    if value is not None and value not in allowed:
        return f"attribute {key} must be one of {', '.join(allowed)}, got {value!r}"
    return None


def parse_attributes(text: str) -> dict[str, str | None]:
    """Java's ``--attributes`` syntax: ``+key=value`` sets, ``-key`` removes, comma-separated; ValueError if bad."""
    changes: dict[str, str | None] = {}
    for item in (token.strip() for token in text.split(",")):
        if item.startswith("+") and "=" in item:
            key, _, value = item[1:].partition("=")
            change: str | None = value
        elif item.startswith("-") and "=" not in item:
            key, change = item[1:], None
        else:
            raise ValueError(f"attribute {item!r} must be +key=value (set) or -key (remove)")
        if key in changes:
            raise ValueError(f"attribute {key} is given twice")
        if problem := attribute_problem(key, change):
            raise ValueError(problem)
        changes[key] = change
    return changes
