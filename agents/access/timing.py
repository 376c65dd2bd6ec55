"""The access point's decisions about time: holding a request while its broker set has no master, a receive's
polling and invisible durations, and the expiry of a receipt handle. Pure: the clock is passed in.

The hold: during a failover or a graceful transfer the set's answer is "not the master" (SLAVE_NOT_AVAILABLE,
SERVICE_NOT_AVAILABLE, MASTER_TRANSFERRING) or no answer at all. The access point asks again every ``POLL_S``
until a master answers, and gives up ``MARGIN_S`` before the request's deadline, so its answer (a retryable
PROXY_TIMEOUT) still reaches the client: the Python producer makes only 3 immediate attempts.
"""

from __future__ import annotations

from agents.access.codes import Code
from agents.access.validation import Problem
from agents.errors import AgentError
from agents.pop.errors import PopError
from agents.pop.handle import ReceiptHandle, decode
from mqbase.codes import ResponseCode

POLL_S = 0.2
MARGIN_S = 0.3
DEFAULT_TIMEOUT_S = 3.0
"""A request without a deadline is held at most this long (the clients' request timeout)."""
HOLD_CODES = frozenset({ResponseCode.SLAVE_NOT_AVAILABLE, ResponseCode.SERVICE_NOT_AVAILABLE})
"""Answers of a replica that is not (or not yet, or no longer) the master: ask the set's master again."""
MAX_LONG_POLLING_MS = 20_000
AUTO_RENEW_INVISIBLE_MS = 60_000
"""A push consumer's receive (``auto_renew``) names no invisible duration; Java's proxy uses 60 s."""


def holds(code: int) -> bool:
    """Is an agent answer with remoting `code` one to hold the request for, asking the set's master again?"""
    return code in HOLD_CODES


def pause(now: float, deadline: float) -> float | None:
    """How long to wait before asking again, or None: give up now (the answer must leave before `deadline`)."""
    left = deadline - MARGIN_S - now
    if left <= 0:
        return None
    return min(POLL_S, left)


class GaveUp(AgentError):
    """A call held until its deadline without an answer from a master (`gave_up`'s Problem)."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def gave_up(broker_name: str, waited_s: float) -> Problem:
    """The answer of a request held until its deadline: retryable, never TOO_MANY_REQUESTS."""
    return Problem(
        Code.PROXY_TIMEOUT,
        f"broker set {broker_name} had no master that answered within {waited_s:.1f} s (failover or transfer in "
        "progress?); retry",
    )


def long_polling_ms(requested_ms: int, now: float, deadline: float) -> int:
    """A receive's long polling: what the client asked (20 s if nothing), at most 20 s, and ending one margin
    plus a second before the client's deadline so that the empty answer arrives in time."""
    wanted = min(requested_ms if requested_ms > 0 else MAX_LONG_POLLING_MS, MAX_LONG_POLLING_MS)
    room = int((deadline - now - MARGIN_S - 1.0) * 1000)
    return max(0, min(wanted, room))


def invisible_ms(auto_renew: bool, requested_ms: int) -> int:
    """A receive's invisible duration: the request's, or 60 s for a push consumer's (``auto_renew``)."""
    return AUTO_RENEW_INVISIBLE_MS if auto_renew else requested_ms


def receipt(text: str, now_ms: int) -> ReceiptHandle | Problem:
    """The handle a client brings back, or why it is refused: one that does not parse, or whose invisibility
    ended (Java's proxy refuses an expired handle, ``AbstractProcessor``), is INVALID_RECEIPT_HANDLE."""
    try:
        handle = decode(text)
    except PopError as exc:
        return Problem(Code.INVALID_RECEIPT_HANDLE, str(exc))
    if handle.deadline_ms <= now_ms:
        return Problem(
            Code.INVALID_RECEIPT_HANDLE,
            f"the receipt handle expired: its invisibility ended {now_ms - handle.deadline_ms} ms ago",
        )
    return handle


RENEW_PERIOD_S = 5.0
RENEW_AHEAD_MS = 10_000
MAX_RENEW_MS = 3 * 3600 * 1000
"""Java's proxy renews a push consumer's deliveries every 5 s when 10 s or less of their invisibility is left,
by another 60 s, for at most 3 h after the receive (``ProxyConfig``)."""


def renewal(deadline_ms: int, received_ms: int, now_ms: int) -> str:
    """What to do with an ``auto_renew`` delivery at `now_ms`: "renew" it, "keep" waiting, or "drop" it (renewed
    for 3 h already: it becomes visible again when its invisibility ends)."""
    if now_ms - received_ms >= MAX_RENEW_MS:
        return "drop"
    return "renew" if deadline_ms - now_ms <= RENEW_AHEAD_MS else "keep"
