"""When an open transaction is checked back, and when it is dropped: Java's ``TransactionalMessageCheckService``
rules over plain data. Pure: the clock is passed in.

A half message stored at ``stored_ms`` is first checked back once its immunity has passed (``transactionTimeOut``,
or its own ``CHECK_IMMUNITY_TIME_IN_SECONDS``: `half.immunity_ms`), then every ``transactionCheckInterval`` while it
stays open; one checked back ``transactionCheckMax`` times is dropped at its next turn instead. The counts are in
the replicated consumer state (``TransactionChecked`` records), so a new master goes on counting; when each was last
checked is this master's memory only, so a new master checks what is due at once (a check-back the producer
answers twice changes nothing: the second end is a replay).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agents.consumer.progress import OffsetProgress

BATCH = 64
"""At most this many check-backs and drops per pass: one put, one record, one replication wait for all of them."""


@dataclass(frozen=True, slots=True)
class OpenHalf:
    """A half message the check reads: its real topic, when it was stored and its immunity."""

    topic: str
    stored_ms: int
    immunity_ms: int


@dataclass(frozen=True, slots=True)
class CheckPolicy:
    """``transactionTimeOut`` is in each `OpenHalf`; the other two keys."""

    interval_ms: int
    max_checks: int


@dataclass(frozen=True, slots=True)
class Plan:
    """A pass's work: the half queue offsets to check back and those to drop, each increasing."""

    check: tuple[int, ...] = ()
    drop: tuple[int, ...] = ()


def due_at(half: OpenHalf, last_checked_ms: int | None, policy: CheckPolicy) -> int:
    """When an open half message is next due: its immunity's end, and after a check the interval's."""
    first = half.stored_ms + half.immunity_ms
    return first if last_checked_ms is None else max(first, last_checked_ms + policy.interval_ms)


def plan(
    open_halves: Mapping[int, OpenHalf],
    ended: OffsetProgress,
    counts: Mapping[int, int],
    last_checked: Mapping[int, int],
    now_ms: int,
    policy: CheckPolicy,
    limit: int = BATCH,
) -> Plan:
    """What is due at `now_ms` among `open_halves` (half queue offset → half) not `ended`, by offset, at most
    `limit` in all: a half checked `counts` times (absent: never) is checked again, or dropped once the count
    reached the policy's maximum; `last_checked`: when this master last checked each."""
    check: list[int] = []
    drop: list[int] = []
    for offset in sorted(open_halves):
        if len(check) + len(drop) >= limit:
            break
        if ended.done(offset) or due_at(open_halves[offset], last_checked.get(offset), policy) > now_ms:
            continue
        (drop if counts.get(offset, 0) >= policy.max_checks else check).append(offset)
    return Plan(tuple(check), tuple(drop))


def next_due(
    open_halves: Mapping[int, OpenHalf], ended: OffsetProgress, last_checked: Mapping[int, int], policy: CheckPolicy
) -> int | None:
    """The earliest time one of `open_halves` not ended is due; None when none is open (the thread's wake-up)."""
    return min(
        (due_at(h, last_checked.get(o), policy) for o, h in open_halves.items() if not ended.done(o)), default=None
    )
