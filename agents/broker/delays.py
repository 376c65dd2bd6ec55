"""Delayed messages' delivery: `TimerScan` re-puts a broker's due delayed messages into their topics (Java's timer
dequeue), `TimerDelivery` is the thread that runs it.

Due messages are re-put like any consumer change (``consumer_ledger``): their copies and the ``TimerDelivered``
record that marks them delivered go in one put, so a new master holds both or neither, short of a replication cut
inside that put. Each pass asks ``TimerScan.deliver_due``, which refuses on a replica that is not master, so the
deliveries follow the master role with no start or stop of their own: a promoted slave delivers from its first
pass, from the progress its log holds. Between passes the thread sleeps until the earliest due time, at most
`MAX_WAIT_S` (a timer message confirmed meanwhile, or a role change, is seen within that), and a send that stored
a timer message wakes it at once (``wake``).
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

from agents.broker.consumer_checks import Refused
from agents.broker.consumer_ledger import ConsumerLedger, ServingKey
from agents.consumer.records import TimerDelivered
from agents.consumer.state import ConsumerState
from agents.delay.timer import TIMER_TOPIC, due, next_due, out_ms, re_put
from agents.store.commitlog import OffsetTooSmall
from agents.store.message_store import MessageStore
from agents.store.record import Message
from mqbase.clock import Clock, wall_ms
from mqbase.codes import ResponseCode

log = logging.getLogger(__name__)

MAX_WAIT_S = 1.0
"""The longest sleep between passes; Java's timer works to ``timerPrecisionMs`` = 1 s as well."""
_NOT_MASTER = frozenset({ResponseCode.SLAVE_NOT_AVAILABLE, ResponseCode.SERVICE_NOT_AVAILABLE})
TIMER_SCAN = 1024
"""At most this many timer messages are read per delivery pass, so a long backlog holds the lock in short turns."""


class Deliverer(Protocol):
    """What the thread runs (``TimerScan``)."""

    def deliver_due(self, now_ms: int) -> int | None: ...


def wait_s(now_ms: int, next_ms: int | None) -> float:
    """How long to sleep after a pass at `now_ms` that found `next_ms` the earliest due time (None: none)."""
    if next_ms is None:
        return MAX_WAIT_S
    return min(max(next_ms - now_ms, 0) / 1000, MAX_WAIT_S)


class TimerScan:
    """The due times of one broker's confirmed timer messages, read on as they are confirmed, and their delivery."""

    def __init__(self, ledger: ConsumerLedger) -> None:
        self._ledger = ledger
        self._for: ServingKey | None = None  # the served state the two below were read for
        self._due: dict[int, int] = {}  # timer queue offset -> due time, of those read and not delivered
        self._read = 0  # the next timer queue offset to read

    def deliver_due(self, now_ms: int) -> int | None:
        """Re-put the timer messages due at `now_ms` into their topics (at most ``timer.BATCH``), with the record
        that marks them delivered in the same put, and wait for that put like any request's; the earliest due time
        still waiting (`now_ms` when more is to read or deliver at once, None when nothing waits). Only confirmed
        timer messages are read (the consume queue), so nothing a truncation could take back is re-put. `Refused`
        on a replica that is not master, or when the put fails."""
        ledger = self._ledger
        with ledger.lock:
            replica, state = ledger.ready()
            if self._for != ledger.serving:  # a new master or acting episode: read its timer queue afresh
                self._for, self._due, self._read = ledger.serving, {}, state.timer.floor
            store = replica.store
            complete = self._read_queue(store, state)
            offsets = due(state.timer, self._due, now_ms)
            if not offsets:
                return next_due(state.timer, self._due) if complete else now_ms
            copies: list[Message] = []
            for offset in offsets:
                try:
                    found = store.consume(TIMER_TOPIC, 0, offset, 1)
                except OffsetTooSmall:
                    found = []  # retention deleted it: nothing to re-put (docs/storage.md)
                copy = re_put(found[0][1], now_ms) if found and found[0][0] == offset else None
                if copy is None:
                    log.warning("%s: timer message %d is gone or names no topic; marked delivered without a copy",
                                ledger.name, offset)  # fmt: skip
                else:
                    copies.append(copy)
            appended = ledger.append(state, [TimerDelivered(tuple(sorted(offsets)))], copies)
            for offset in offsets:
                del self._due[offset]
        ledger.settle(appended)
        ledger.wake()
        return now_ms

    def _read_queue(self, store: MessageStore, state: ConsumerState) -> bool:
        """Read the due times of the timer messages confirmed since the last pass (caller holds the lock); False
        when `TIMER_SCAN` messages were read and more wait."""
        low, high = store.queue_range(TIMER_TOPIC, 0)
        start = max(self._read, low)
        try:
            found = store.consume(TIMER_TOPIC, 0, start, TIMER_SCAN) if start < high else []
        except OffsetTooSmall:  # retention moved the queue's start meanwhile: the next pass starts there
            return False
        for offset, message in found:
            if not state.timer.done(offset):
                self._due[offset] = out_ms(message) or 0  # no readable time: due at once, and dropped then
        self._read = found[-1][0] + 1 if found else start
        return not found or self._read >= high  # nothing read: nothing more to read now


class TimerDelivery:
    """The delivery thread of one hosted broker: of its delayed messages, or (`what`) of another `Deliverer`'s work
    that follows the master role the same way (``transactions.TransactionBook``'s check-backs)."""

    def __init__(
        self, scan: Deliverer, broker_name: str, clock: Clock, what: str = "delayed messages", thread: str = "timer"
    ) -> None:
        self._scan = scan
        self._what = what
        self._broker_name = broker_name
        self._clock = clock
        self._problem = ""  # the last refusal logged, so a lasting one is logged once
        self._woken = threading.Event()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"{thread}-{broker_name}", daemon=True)

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
        now = wall_ms(self._clock)
        try:
            pause = wait_s(now, self._scan.deliver_due(now))
        except Refused as exc:
            problem = "" if exc.code in _NOT_MASTER else str(exc)
            if problem and problem != self._problem:
                log.warning("broker %s: %s not delivered now: %s", self._broker_name, self._what, problem)
            self._problem = problem
            return MAX_WAIT_S
        self._problem = ""
        return pause

    def _loop(self) -> None:
        while not self._stopped.is_set():
            try:
                pause = self.run_once()
            except Exception:  # the next pass tries again
                log.exception("broker %s: delivery of %s failed", self._broker_name, self._what)
                pause = MAX_WAIT_S
            if pause > 0:
                self._woken.wait(pause)
            self._woken.clear()
