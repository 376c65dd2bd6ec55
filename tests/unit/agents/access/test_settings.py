"""The Telemetry Settings reply: the client's Settings merged with Java's defaults and the group's config."""

from __future__ import annotations

from typing import Any

import pytest

from agents.access.protocol import v2
from agents.access.settings import merged
from agents.metadata import Group
from mqbase.retry import DEFAULT_BACKOFF_MS, CustomizedRetry, ExponentialRetry, RetryPolicy


def producer() -> object:
    s = v2.Settings(client_type=v2.PRODUCER, request_timeout={"seconds": 3})
    s.publishing.topics.add(name="Orders")
    s.publishing.max_body_size = 128 * 1024 * 1024
    s.metric.on = True
    return s


def consumer(group: str = "G") -> object:
    s = v2.Settings(client_type=v2.PUSH_CONSUMER)
    s.subscription.group.name = group
    return s


def test_a_producer_gets_javas_publishing_settings() -> None:
    out = merged(producer(), None)
    assert out is not None
    assert out.publishing.max_body_size == 4 * 1024 * 1024  # never 0: the Python producer copies it as its own limit
    assert out.publishing.validate_message_type and [t.name for t in out.publishing.topics] == ["Orders"]
    assert out.backoff_policy.max_attempts == 3
    backoff = out.backoff_policy.exponential_backoff
    assert (backoff.initial.ToMilliseconds(), backoff.max.ToMilliseconds(), backoff.multiplier) == (10, 1000, 2.0)
    assert out.metric.on is False and out.request_timeout.seconds == 3


def test_a_consumer_gets_its_groups_attempts_and_fifo_flag() -> None:
    out = merged(consumer(), Group("G", frozenset({"broker-a"}), True, 2, True))
    assert out is not None
    assert out.subscription.fifo is True and out.backoff_policy.max_attempts == 3
    assert out.subscription.receive_batch_size == 32 and out.subscription.long_polling_timeout.seconds == 20
    assert [d.ToMilliseconds() for d in out.backoff_policy.customized_backoff.next] == list(DEFAULT_BACKOFF_MS)


def _backoff(policy: Any) -> tuple[str | None, Any]:
    kind = policy.WhichOneof("strategy")
    if kind == "customized_backoff":
        return kind, [d.ToMilliseconds() for d in policy.customized_backoff.next]
    e = policy.exponential_backoff
    return kind, (e.initial.ToMilliseconds(), e.max.ToMilliseconds(), e.multiplier)


@pytest.mark.parametrize(
    ("policy", "backoff"),
    [
        (CustomizedRetry(), ("customized_backoff", list(DEFAULT_BACKOFF_MS))),
        (CustomizedRetry((2000, 4000)), ("customized_backoff", [2000, 4000])),
        (ExponentialRetry(1000, 60_000, 3), ("exponential_backoff", (1000, 60_000, 3.0))),
    ],
)
def test_a_consumer_gets_its_groups_retry_policy(policy: RetryPolicy, backoff: tuple[str, Any]) -> None:
    out = merged(consumer(), Group("G", frozenset({"broker-a"}), False, 16, True, policy))
    assert out is not None and _backoff(out.backoff_policy) == backoff


def test_an_unknown_group_gets_javas_defaults() -> None:
    out = merged(consumer(), None)
    assert out is not None and out.backoff_policy.max_attempts == 17 and out.subscription.fifo is False
    assert _backoff(out.backoff_policy) == ("customized_backoff", list(DEFAULT_BACKOFF_MS))


def test_settings_without_publishing_or_subscription_are_refused() -> None:
    assert merged(v2.Settings(client_type=v2.PRODUCER), None) is None
