"""The Settings reply of ``Telemetry``: the client's own Settings merged with the server's, as Java's proxy does
(``GrpcClientSettingsManager``). Pure.

Producers get 3 attempts with exponential backoff (10 ms, ×2, at most 1 s), message-type validation and the
4 MiB body limit; consumers the receive batch size 32, 20 s long polling, the group's FIFO flag and its attempts
(``retryMaxTimes`` + 1) with the group's retry policy, the backoff POP uses for nacks (customized levels or
exponential; Java's customized levels for an unknown group). The metric switch is always off.
"""

from __future__ import annotations

from typing import Any

from agents.access.protocol import v2
from agents.access.validation import MAX_BODY_SIZE
from agents.metadata import Group
from agents.pop.model import DEFAULT_RETRY_MAX_TIMES
from mqbase.retry import DEFAULT_RETRY_POLICY, CustomizedRetry, RetryPolicy

PRODUCER_ATTEMPTS = 3
RECEIVE_BATCH_SIZE = 32
LONG_POLLING_S = 20


def merged(client: Any, group: Group | None) -> Any | None:
    """The Settings to send back for the client's `client` Settings (`group`: its consumer group's config, None
    for a producer or a group the controller does not know: Java's defaults), or None when they hold neither
    publishing nor subscription (Java closes the stream with INVALID_ARGUMENT)."""
    kind = client.WhichOneof("pub_sub")
    if kind is None:
        return None
    out = v2.Settings()
    out.CopyFrom(client)
    out.metric.Clear()
    out.metric.on = False
    out.backoff_policy.Clear()
    if kind == "publishing":
        out.backoff_policy.max_attempts = PRODUCER_ATTEMPTS
        backoff = out.backoff_policy.exponential_backoff
        backoff.initial.FromMilliseconds(10)
        backoff.max.FromMilliseconds(1000)
        backoff.multiplier = 2.0
        out.publishing.validate_message_type = True
        out.publishing.max_body_size = MAX_BODY_SIZE
        return out
    retry_max_times = group.retry_max_times if group is not None else DEFAULT_RETRY_MAX_TIMES
    out.backoff_policy.max_attempts = retry_max_times + 1
    _backoff(out.backoff_policy, group.retry_policy if group is not None else DEFAULT_RETRY_POLICY)
    out.subscription.fifo = group.consume_orderly if group is not None else False
    out.subscription.receive_batch_size = RECEIVE_BATCH_SIZE
    out.subscription.long_polling_timeout.FromMilliseconds(LONG_POLLING_S * 1000)
    return out


def _backoff(out: Any, policy: RetryPolicy) -> None:
    """The group's policy as the v2 ``RetryPolicy``'s backoff (customized ``next`` or ``exponential_backoff``)."""
    if isinstance(policy, CustomizedRetry):
        for ms in policy.next_ms:
            out.customized_backoff.next.add().FromMilliseconds(ms)
        return
    out.exponential_backoff.initial.FromMilliseconds(policy.initial_ms)
    out.exponential_backoff.max.FromMilliseconds(policy.max_ms)
    out.exponential_backoff.multiplier = float(policy.multiplier)
