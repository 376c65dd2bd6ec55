"""A clock the test moves by hand (``mqbase.clock.Clock``): time passes without sleeping."""

from __future__ import annotations

import threading


class ManualClock:
    """A clock that moves only when told (tests): both readings advance together."""

    def __init__(self, monotonic: float = 1_000.0, wall: float = 1_700_000_000.0) -> None:
        self._lock = threading.Lock()
        self._monotonic, self._wall = monotonic, wall

    def monotonic(self) -> float:
        with self._lock:
            return self._monotonic

    def wall(self) -> float:
        with self._lock:
            return self._wall

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._monotonic += seconds
            self._wall += seconds
