"""The frozen plain data POP decides over: a group's state on one queue, its policy, the queue as read.

`QueueState` holds only what the decisions need between requests. Its invariant: every offset in
``[committed, scanned)`` is either in flight (delivered, not yet acked) or done (acked, filtered out or dead-lettered),
never both, and none outside that range is in either. A message is visible again once its delivery's deadline passed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from mqbase.retry import DEFAULT_RETRY_POLICY, RetryPolicy

NO_TICKET = 0
"""The ticket of a message that is done without an ack (filtered out or dead-lettered); real tickets start at 1."""
DEFAULT_RETRY_MAX_TIMES = 16
"""Java's ``SubscriptionGroupConfig.retryMaxTimes``: a message is delivered at most this + 1 times."""


@dataclass(frozen=True, slots=True)
class QueueKey:
    """One group's consumption of one queue: the key of a `QueueState` and of every event."""

    group: str
    topic: str
    queue_id: int


@dataclass(frozen=True, slots=True)
class Entry:
    """What POP needs of one message of the queue: its tag, for the filter."""

    tag: str | None = None


@dataclass(frozen=True, slots=True)
class QueueView:
    """The queue as the broker read it for one receive.

    `entries` holds the messages it read, by queue offset: the in-flight offsets it was asked about and a run from
    the state's ``scanned`` offset. An offset it did not read ends the scan there (the broker bounds its reads);
    offsets below `min_offset` are gone (retention) and count as done. Only offsets below `confirm_offset`, which
    every in-sync replica holds, are ever delivered.
    """

    broker_name: str
    min_offset: int
    confirm_offset: int
    entries: Mapping[int, Entry]


@dataclass(frozen=True, slots=True)
class Inflight:
    """The current delivery of a message: its ticket (the handle's version), deadline and delivery attempt."""

    ticket: int
    deadline_ms: int
    attempt: int


@dataclass(frozen=True, slots=True)
class QueueState:
    """A group's consumption of one queue (see the module's invariant)."""

    committed: int = 0
    scanned: int = 0
    inflight: Mapping[int, Inflight] = field(default_factory=lambda: MappingProxyType({}))
    done: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    """Offset → the ticket that acked it, or NO_TICKET; only offsets at or above `committed`."""
    next_ticket: int = 1
    attempt_id: str = ""
    """An orderly queue's last delivering receive's attempt id: a receive retried with it is not blocked."""


@dataclass(frozen=True, slots=True)
class GroupPolicy:
    """What of the subscription group's config POP obeys."""

    orderly: bool = False
    retry_max_times: int = DEFAULT_RETRY_MAX_TIMES
    retry: RetryPolicy = DEFAULT_RETRY_POLICY
    """The group's backoff: a nack makes the message visible again after ``retry.delay_ms(attempt)``."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on requests; the defaults are the Java proxy's (``ProxyConfig``, ``ConsumerProcessor``)."""

    max_batch: int = 32
    min_receive_invisible_ms: int = 10_000
    min_change_invisible_ms: int = 0
    max_invisible_ms: int = 12 * 3600 * 1000
    max_scan: int = 1024
    """New offsets one receive looks at (filtered-out ones included), so a long filtered run is crossed in steps."""


DEFAULT_LIMITS = Limits()


def dlq_topic(group: str) -> str:
    """The dead-letter topic of `group`, RocketMQ's ``%DLQ%<group>``."""
    return f"%DLQ%{group}"
