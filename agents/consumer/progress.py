"""`OffsetProgress`: which offsets of one system queue are done, as a floor and the few done above it.

Delayed messages (``agents.delay.timer``: the timer queue offsets re-put) and transactions
(``agents.transaction.half``: the half queue offsets ended) both finish in an order of their own, not the queue's;
the floor keeps the table small while they mostly finish in order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class OffsetProgress:
    """Which offsets of a system queue are done: every one below `floor`, and those in `above` (all at or above
    `floor + 1`: the floor itself is never done, `mark` moves past it)."""

    floor: int = 0
    above: frozenset[int] = field(default_factory=frozenset)

    def done(self, offset: int) -> bool:
        return offset < self.floor or offset in self.above


NO_PROGRESS = OffsetProgress()


def mark(progress: OffsetProgress, offsets: Iterable[int]) -> OffsetProgress:
    """The progress after `offsets` were done: marking one twice changes nothing, and the floor moves up
    over every done offset that follows it, so the set holds only those done out of order."""
    done = set(progress.above)
    done.update(o for o in offsets if o >= progress.floor)
    if len(done) == len(progress.above):
        return progress
    floor = progress.floor
    while floor in done:
        done.remove(floor)
        floor += 1
    return OffsetProgress(floor, frozenset(done))
