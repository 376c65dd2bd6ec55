"""Put and get figures of one broker, for ``brokerStatus``, ``statsAll`` and ``clusterList``.

Java's ``BrokerStatsManager`` keeps ``TOPIC_PUT_NUMS``/``SIZE`` per topic and ``GROUP_GET_NUMS``/``SIZE`` per topic
and group, with per-minute averages; these are the same figures: messages and bytes since the broker started, and
messages per second over the last minute (over the time since the first count, when the broker is younger than a
minute). Rates come from per-second buckets of the last minute, so a count is never lost between two samples.
The clock reading is passed in (monotonic seconds); a lock guards the table, as sends and receives come from many
threads.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

WINDOW_S = 60
"""The rates are over the last minute, as Java's ``getStatsDataInMinute``."""


@dataclass(frozen=True, slots=True)
class Figures:
    """A topic's puts (`group` ``""``), or a group's gets of a topic; the broker's total has both names ``""``."""

    topic: str
    group: str
    put_messages: int = 0
    put_bytes: int = 0
    get_messages: int = 0
    get_bytes: int = 0
    put_tps: float = 0.0
    get_tps: float = 0.0


class _Counter:
    """Messages and bytes since the start, and the last minute's messages in per-second buckets."""

    __slots__ = ("_buckets", "messages", "size")

    def __init__(self) -> None:
        self.messages = 0
        self.size = 0
        self._buckets: deque[list[int]] = deque()  # [second, messages], oldest first

    def add(self, messages: int, size: int, now: float) -> None:
        self.messages += messages
        self.size += size
        second = int(now)
        if self._buckets and self._buckets[-1][0] == second:
            self._buckets[-1][1] += messages
        else:
            self._buckets.append([second, messages])
        self._trim(second)

    def _trim(self, second: int) -> None:
        while self._buckets and self._buckets[0][0] <= second - WINDOW_S:
            self._buckets.popleft()

    def rate(self, now: float, span: float) -> float:
        """Messages per second over the last `span` seconds (at most a minute)."""
        self._trim(int(now))
        return sum(count for _, count in self._buckets) / span


class BrokerStats:
    """The figures of one broker since `started` (a monotonic clock reading)."""

    def __init__(self, started: float) -> None:
        self._started = started
        self._lock = threading.Lock()
        self._puts: dict[str, _Counter] = {}
        self._gets: dict[tuple[str, str], _Counter] = {}

    def put(self, messages: Iterable[tuple[str, int]], now: float) -> None:
        """Count stored messages, each given as (topic, body size)."""
        with self._lock:
            for topic, size in messages:
                self._puts.setdefault(topic, _Counter()).add(1, size, now)

    def got(self, topic: str, group: str, messages: int, size: int, now: float) -> None:
        """Count `messages` (`size` body bytes) of `topic` handed to `group` (``""``: a raw read by queue offset)."""
        if messages:
            with self._lock:
                self._gets.setdefault((topic, group), _Counter()).add(messages, size, now)

    def figures(self, now: float) -> tuple[Figures, list[Figures]]:
        """The broker's total and one row per topic's puts and per topic and group's gets, sorted by name."""
        span = max(1.0, min(float(WINDOW_S), now - self._started))
        with self._lock:
            puts = [Figures(t, "", c.messages, c.size, put_tps=c.rate(now, span)) for t, c in self._puts.items()]
            gets = [
                Figures(t, g, get_messages=c.messages, get_bytes=c.size, get_tps=c.rate(now, span))
                for (t, g), c in self._gets.items()
            ]
        rows = sorted(puts + gets, key=lambda f: (f.topic, f.group))
        total = Figures(
            "",
            "",
            sum(f.put_messages for f in puts),
            sum(f.put_bytes for f in puts),
            sum(f.get_messages for f in gets),
            sum(f.get_bytes for f in gets),
            sum(f.put_tps for f in puts),
            sum(f.get_tps for f in gets),
        )
        return total, rows
