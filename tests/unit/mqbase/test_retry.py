"""A group's retry policy (mqbase/retry.py): delays, validation, Java's JSON and the proto message."""

from __future__ import annotations

import json

import pytest

from mqbase.proto import controller_pb2 as pb
from mqbase.retry import (
    DEFAULT_BACKOFF_MS,
    DEFAULT_RETRY_POLICY,
    CustomizedRetry,
    ExponentialRetry,
    RetryPolicy,
    java_doc,
    of_message,
    parse,
    problem,
    to_message,
)

H2 = 7_200_000


@pytest.mark.parametrize(
    ("policy", "attempts", "delays"),
    [
        (DEFAULT_RETRY_POLICY, (1, 2, 3, 4, 18, 19, 100), (1_000, 5_000, 10_000, 30_000, H2, H2, H2)),
        (CustomizedRetry((100, 200)), (0, 1, 2, 3, 9), (100, 100, 200, 200, 200)),
        (ExponentialRetry(1_000, H2, 2), (0, 1, 2, 3, 10), (1_000, 1_000, 2_000, 4_000, 512_000)),
        (ExponentialRetry(1_000, 5_000, 3), (1, 2, 3, 1_000_000), (1_000, 3_000, 5_000, 5_000)),
        (ExponentialRetry(700, 700, 1), (1, 50), (700, 700)),
    ],
)
def test_delays(policy: RetryPolicy, attempts: tuple[int, ...], delays: tuple[int, ...]) -> None:
    assert tuple(policy.delay_ms(a) for a in attempts) == delays


@pytest.mark.parametrize(
    ("policy", "reason"),
    [
        (DEFAULT_RETRY_POLICY, None),
        (CustomizedRetry((1, H2)), None),
        (CustomizedRetry((1_000,) * 64), None),
        (CustomizedRetry(()), "customized retry policy needs 1 to 64 levels, got 0"),
        (CustomizedRetry((1_000,) * 65), "customized retry policy needs 1 to 64 levels, got 65"),
        (CustomizedRetry((1_000, 0)), "customized retry levels must be 1..7200000 ms, got 0"),
        (CustomizedRetry((H2 + 1,)), "customized retry levels must be 1..7200000 ms, got 7200001"),
        (ExponentialRetry(1, 1, 1), None),
        (ExponentialRetry(1_000, H2, 100), None),
        (ExponentialRetry(0, 1_000, 2), "exponential retry initial must be 1..7200000 ms, got 0"),
        (ExponentialRetry(H2 + 1, H2 + 1, 2), "exponential retry initial must be 1..7200000 ms, got 7200001"),
        (ExponentialRetry(2_000, 1_000, 2), "exponential retry max must be 2000..7200000 ms, got 1000"),
        (ExponentialRetry(1_000, H2 + 1, 2), "exponential retry max must be 1000..7200000 ms, got 7200001"),
        (ExponentialRetry(1_000, 2_000, 0), "exponential retry multiplier must be 1..100, got 0"),
        (ExponentialRetry(1_000, 2_000, 101), "exponential retry multiplier must be 1..100, got 101"),
    ],
)
def test_validation(policy: RetryPolicy, reason: str | None) -> None:
    assert problem(policy) == reason


@pytest.mark.parametrize(
    ("text", "policy"),
    [
        ('{"type": "CUSTOMIZED", "customizedRetryPolicy": {"next": [2000, 4000]}}', CustomizedRetry((2000, 4000))),
        (
            '{"type": "EXPONENTIAL", "exponentialRetryPolicy": {"initial": 1000, "max": 7200000, "multiplier": 2}}',
            ExponentialRetry(1000, H2, 2),
        ),
        (  # Java prints both kinds; the type picks one
            '{"type": "EXPONENTIAL", "customizedRetryPolicy": {"next": []},'
            ' "exponentialRetryPolicy": {"initial": 5, "max": 9, "multiplier": 3}}',
            ExponentialRetry(5, 9, 3),
        ),
    ],
)
def test_javas_json(text: str, policy: RetryPolicy) -> None:
    assert parse(text) == policy
    assert parse(json.dumps(java_doc(policy))) == policy


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("{", "group retry policy is not valid JSON: Expecting property name enclosed in double quotes"),
        ("[]", "group retry policy must be a JSON object"),
        ('{"type": "FIXED"}', "group retry policy 'type' must be CUSTOMIZED or EXPONENTIAL, got \"FIXED\""),
        ("{}", "group retry policy 'type' must be CUSTOMIZED or EXPONENTIAL, got null"),
        ('{"type": "CUSTOMIZED"}', "group retry policy needs a 'customizedRetryPolicy' object"),
        (
            '{"type": "CUSTOMIZED", "customizedRetryPolicy": {"next": [1000, "5s"]}}',
            "customizedRetryPolicy 'next' must be a list of integer milliseconds",
        ),
        (
            '{"type": "CUSTOMIZED", "customizedRetryPolicy": {"next": [1000, -1]}}',
            "customized retry levels must be 1..7200000 ms, got -1",
        ),
        (
            '{"type": "EXPONENTIAL", "exponentialRetryPolicy": {"initial": 1000, "max": 2000}}',
            "exponentialRetryPolicy lacks 'multiplier'",
        ),
        (
            '{"type": "EXPONENTIAL", "exponentialRetryPolicy": {"initial": 1000, "max": 2000, "multiplier": 1.5}}',
            "exponentialRetryPolicy 'multiplier' must be an integer, got 1.5",
        ),
        (
            '{"type": "EXPONENTIAL", "exponentialRetryPolicy": {"initial": true, "max": 2000, "multiplier": 2}}',
            "exponentialRetryPolicy 'initial' must be an integer, got true",
        ),
    ],
)
def test_bad_json_is_one_precise_line(text: str, error: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse(text)
    assert str(caught.value).startswith(error) and "\n" not in str(caught.value)


@pytest.mark.parametrize("policy", [DEFAULT_RETRY_POLICY, CustomizedRetry((3,)), ExponentialRetry(1, 2, 3)])
def test_the_proto_message_round_trips(policy: RetryPolicy) -> None:
    assert of_message(pb.GroupRetryPolicy.FromString(to_message(policy).SerializeToString())) == policy


def test_a_group_without_a_policy_has_javas_levels() -> None:
    """What a controller before retry policies sends."""
    assert of_message(pb.SubscriptionGroupConfig().retry_policy) == CustomizedRetry(DEFAULT_BACKOFF_MS)
