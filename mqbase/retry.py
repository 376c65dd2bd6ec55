"""A subscription group's retry policy (Java's ``SubscriptionGroupConfig.groupRetryPolicy``), shared by all layers.

Pure: the controller validates and replicates it, POP's nack and the access point's Settings obey it, and the CLI
reads it as Java's JSON (``{"type": "CUSTOMIZED", "customizedRetryPolicy": {"next": [1000, ...]}}`` or
``{"type": "EXPONENTIAL", "exponentialRetryPolicy": {"initial": 1000, "max": 7200000, "multiplier": 2}}``), so
``mqadmin`` refuses a bad policy with the same words the controller answers with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from mqbase.proto import controller_pb2 as pb

DEFAULT_BACKOFF_MS = tuple(
    s * 1000 for s in (1, 5, 10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200)
)
"""Java's ``CustomizedRetryPolicy`` levels (1s 5s 10s 30s 1m 2m ... 10m 20m 30m 1h 2h), a new group's backoff."""
MAX_DELAY_MS = 2 * 3600 * 1000
"""Our bound on one delay: Java's longest default level (2 h); longer would outlive most invisible durations."""
MAX_LEVELS = 64
"""Our bound on the customized levels (Java's default has 18; the last one repeats anyway)."""
MAX_MULTIPLIER = 100
"""Our bound on the exponential multiplier (Java takes any long; 100 reaches 2 h in three steps from 1 s)."""
_MAX_EXPONENT = 32
"""Java's ``ExponentialRetryPolicy`` bounds the exponent to 0..32."""


@dataclass(frozen=True, slots=True)
class CustomizedRetry:
    """Java's ``CustomizedRetryPolicy``: the delay after failed attempt n is ``next_ms[n - 1]``, the last repeats."""

    next_ms: tuple[int, ...] = DEFAULT_BACKOFF_MS

    def delay_ms(self, attempt: int) -> int:
        """The delay after a failed attempt `attempt` (1-based), as the clients compute it."""
        return self.next_ms[min(max(attempt, 1), len(self.next_ms)) - 1]


@dataclass(frozen=True, slots=True)
class ExponentialRetry:
    """Java's ``ExponentialRetryPolicy``: ``initial_ms × multiplier^(n - 1)`` after failed attempt n, at most
    ``max_ms``."""

    initial_ms: int
    max_ms: int
    multiplier: int

    def delay_ms(self, attempt: int) -> int:
        """The delay after a failed attempt `attempt` (1-based)."""
        exponent = min(max(attempt, 1) - 1, _MAX_EXPONENT)
        growth: int = self.multiplier**exponent  # an int: the exponent is never negative
        return min(self.initial_ms * growth, self.max_ms)


RetryPolicy = CustomizedRetry | ExponentialRetry
DEFAULT_RETRY_POLICY = CustomizedRetry()


class CustomizedLevels(TypedDict):
    next: list[int]


class CustomizedDoc(TypedDict):
    type: Literal["CUSTOMIZED"]
    customizedRetryPolicy: CustomizedLevels


class ExponentialParams(TypedDict):
    initial: int
    max: int
    multiplier: int


class ExponentialDoc(TypedDict):
    type: Literal["EXPONENTIAL"]
    exponentialRetryPolicy: ExponentialParams


JavaDoc = CustomizedDoc | ExponentialDoc
"""Java's ``GroupRetryPolicy`` JSON (times in ms)."""


def problem(policy: RetryPolicy) -> str | None:
    """Why `policy` cannot be a group's retry policy, or None."""
    if isinstance(policy, CustomizedRetry):
        if not 1 <= len(policy.next_ms) <= MAX_LEVELS:
            return f"customized retry policy needs 1 to {MAX_LEVELS} levels, got {len(policy.next_ms)}"
        bad = [ms for ms in policy.next_ms if not 1 <= ms <= MAX_DELAY_MS]
        return f"customized retry levels must be 1..{MAX_DELAY_MS} ms, got {bad[0]}" if bad else None
    if not 1 <= policy.initial_ms <= MAX_DELAY_MS:
        return f"exponential retry initial must be 1..{MAX_DELAY_MS} ms, got {policy.initial_ms}"
    if not policy.initial_ms <= policy.max_ms <= MAX_DELAY_MS:
        return f"exponential retry max must be {policy.initial_ms}..{MAX_DELAY_MS} ms, got {policy.max_ms}"
    if not 1 <= policy.multiplier <= MAX_MULTIPLIER:
        return f"exponential retry multiplier must be 1..{MAX_MULTIPLIER}, got {policy.multiplier}"
    return None


def java_doc(policy: RetryPolicy) -> JavaDoc:
    """Java's ``GroupRetryPolicy`` JSON document of `policy` (the CLI's ``-q``, snapshots and log entries)."""
    if isinstance(policy, CustomizedRetry):
        return {"type": "CUSTOMIZED", "customizedRetryPolicy": {"next": list(policy.next_ms)}}
    params: ExponentialParams = {"initial": policy.initial_ms, "max": policy.max_ms, "multiplier": policy.multiplier}
    return {"type": "EXPONENTIAL", "exponentialRetryPolicy": params}


def _int(doc: dict[str, Any], key: str, what: str) -> int:
    if key not in doc:
        raise ValueError(f"{what} lacks {key!r}")
    value = doc[key]
    if type(value) is not int:
        raise ValueError(f"{what} {key!r} must be an integer, got {json.dumps(value)}")
    return value


def _object(doc: dict[str, Any], key: str) -> dict[str, Any]:
    value = doc.get(key)
    if not isinstance(value, dict):
        raise ValueError(f"group retry policy needs a {key!r} object")
    return value


def of_java_doc(doc: Any) -> RetryPolicy:
    """Inverse of ``java_doc``, validated; ValueError (one line) names what is wrong. Other keys are ignored."""
    if not isinstance(doc, dict):
        raise ValueError("group retry policy must be a JSON object")
    kind = doc.get("type")
    policy: RetryPolicy
    if kind == "CUSTOMIZED":
        levels = _object(doc, "customizedRetryPolicy").get("next")
        if not isinstance(levels, list) or not all(type(ms) is int for ms in levels):
            raise ValueError("customizedRetryPolicy 'next' must be a list of integer milliseconds")
        policy = CustomizedRetry(tuple(levels))
    elif kind == "EXPONENTIAL":
        exponential = _object(doc, "exponentialRetryPolicy")
        what = "exponentialRetryPolicy"
        policy = ExponentialRetry(*(_int(exponential, key, what) for key in ("initial", "max", "multiplier")))
    else:
        raise ValueError(f"group retry policy 'type' must be CUSTOMIZED or EXPONENTIAL, got {json.dumps(kind)}")
    if reason := problem(policy):
        raise ValueError(reason)
    return policy


def parse(text: str) -> RetryPolicy:
    """Java's ``--groupRetryPolicy`` JSON text as a validated policy; ValueError (one line) if bad."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"group retry policy is not valid JSON: {exc}") from exc
    return of_java_doc(doc)


def to_message(policy: RetryPolicy) -> pb.GroupRetryPolicy:
    if isinstance(policy, CustomizedRetry):
        return pb.GroupRetryPolicy(customized=pb.CustomizedRetryPolicy(next_ms=policy.next_ms))
    exponential = pb.ExponentialRetryPolicy(
        initial_ms=policy.initial_ms, max_ms=policy.max_ms, multiplier=policy.multiplier
    )
    return pb.GroupRetryPolicy(exponential=exponential)


def of_message(m: pb.GroupRetryPolicy) -> RetryPolicy:
    """Inverse of ``to_message``, not validated; neither kind set (a controller before retry policies): the default."""
    kind = m.WhichOneof("kind")
    if kind == "customized":
        return CustomizedRetry(tuple(m.customized.next_ms))
    if kind == "exponential":
        return ExponentialRetry(m.exponential.initial_ms, m.exponential.max_ms, m.exponential.multiplier)
    return DEFAULT_RETRY_POLICY
