"""TimerDelivery: the thread that re-puts a broker's due delayed messages into their topics (Java's timer dequeue).

Each pass asks ``ConsumerService.deliver_due``, which refuses on a replica that is not master, so the deliveries
follow the master role with no start or stop of their own: a promoted slave delivers from its first pass, from
the progress its log holds. Between passes the thread sleeps until the earliest due time, at most `MAX_WAIT_S`
(a timer message confirmed meanwhile, or a role change, is seen within that), and a send that stored a timer
message wakes it at once (``wake``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

from agents.broker.consumers import Refused
from mqbase.codes import ResponseCode

log = logging.getLogger(__name__)

MAX_WAIT_S = 1.0
"""The longest sleep between passes; Java's timer works to ``timerPrecisionMs`` = 1 s as well."""
_NOT_MASTER = frozenset({ResponseCode.SLAVE_NOT_AVAILABLE, ResponseCode.SERVICE_NOT_AVAILABLE})


class Deliverer(Protocol):
    """What the thread needs of its broker's consumer service (``ConsumerService``)."""

    def deliver_due(self, now_ms: int) -> int | None: ...


def wait_s(now_ms: int, next_ms: int | None) -> float:
    """How long to sleep after a pass at `now_ms` that found `next_ms` the earliest due time (None: none)."""
    if next_ms is None:
        return MAX_WAIT_S
    return min(max(next_ms - now_ms, 0) / 1000, MAX_WAIT_S)


class TimerDelivery:
    """The delivery thread of one hosted broker."""

    def __init__(self, consumers: Deliverer, broker_name: str, clock: Callable[[], float] = time.time) -> None:
        self._consumers = consumers
        self._broker_name = broker_name
        self._clock = clock
        self._problem = ""  # the last refusal logged, so a lasting one is logged once
        self._woken = threading.Event()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"timer-{broker_name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop after the pass under way, if any; idempotent."""
        self._stopped.set()
        self._woken.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def wake(self) -> None:
        """A timer message was stored: look again now rather than at the end of the sleep."""
        self._woken.set()

    def run_once(self) -> float:
        """One pass; the seconds to sleep before the next."""
        now = int(self._clock() * 1000)
        try:
            pause = wait_s(now, self._consumers.deliver_due(now))
        except Refused as exc:
            problem = "" if exc.code in _NOT_MASTER else str(exc)
            if problem and problem != self._problem:
                log.warning("broker %s: delayed messages not delivered now: %s", self._broker_name, problem)
            self._problem = problem
            return MAX_WAIT_S
        self._problem = ""
        return pause

    def _loop(self) -> None:
        while not self._stopped.is_set():
            try:
                pause = self.run_once()
            except Exception:  # the next pass tries again
                log.exception("broker %s: delayed-message delivery failed", self._broker_name)
                pause = MAX_WAIT_S
            if pause > 0:
                self._woken.wait(pause)
            self._woken.clear()
