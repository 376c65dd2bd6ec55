"""The agent's two clocks, made once at start-up and passed down, so that time is an argument like any other.

``monotonic`` never jumps: durations, deadlines, liveness and lock lives are measured on it. ``wall`` is what is
written down or shown: store timestamps, receipt handles' invisibility deadlines, born times, "acting since". Tests
pass a clock they move on by hand (``tests/harness/clock.py``) instead of sleeping.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Where a shell reads the time; every decision below it takes `now` as an argument."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (``time.monotonic``)."""
        ...

    def wall(self) -> float:
        """Seconds since the epoch (``time.time``)."""
        ...


class SystemClock:
    """The process's clocks."""

    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()


SYSTEM = SystemClock()


def monotonic_ms(clock: Clock) -> int:
    return int(clock.monotonic() * 1000)


def wall_ms(clock: Clock) -> int:
    return int(clock.wall() * 1000)
