"""What a consumer group's clients were told, and the failover invariant of consumer groups checked from outside
the broker.

The state a new master rebuilds is not visible to a client, so these checkers read only answers: sends that were
PUT_OK, deliveries (receives), changes of invisibility and acks, each with when it was asked and answered. The
checker of the rebuilt state itself is ``agents.consumer.invariant.violations``; this one is its outside view, for
tests and chaos runs that see the broker only through its API:

- an ack answered OK is final: the message is never delivered again by a receive asked after that answer;
- nothing is lost: every message sent with PUT_OK is acked in the end;
- an unacked message comes back: each delivery of a message has a higher delivery attempt than the one before;
- FIFO (orderly groups): per message group, the messages are acked in the order they were sent, and no message is
  handed out while an earlier one of its group was handed out, is unacked and still invisible.

Times are wall-clock epoch milliseconds, the clock receipt deadlines are given in (client and broker share one
machine). Every checker is a pure function returning one line per breach; ``Ledger`` is the thread-safe recorder;
``told`` turns a ledger into the inside checker's input, for a state rebuilt offline from a replica's files.
"""

from __future__ import annotations

import itertools
import threading
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from agents.consumer.invariant import Told, ToldAck, ToldDelivery
from agents.pop.handle import decode
from agents.pop.model import QueueKey


@dataclass(frozen=True, slots=True)
class Sent:
    """A message whose send was answered PUT_OK (payloads are unique)."""

    payload: str
    message_group: str = ""


@dataclass(frozen=True, slots=True)
class Delivered:
    """One message of a receive's answer."""

    payload: str
    message_group: str
    attempt: int
    handle: str
    asked_ms: int
    answered_ms: int
    invisible_until_ms: int


@dataclass(frozen=True, slots=True)
class Hidden:
    """A ChangeInvisibleDuration answered OK: the delivery is invisible until the new deadline, under a new handle."""

    payload: str
    handle: str
    answered_ms: int
    invisible_until_ms: int


@dataclass(frozen=True, slots=True)
class Acked:
    """An ack answered OK (pop code 20000)."""

    payload: str
    handle: str
    asked_ms: int
    answered_ms: int


@dataclass
class Ledger:
    """Everything one group's clients were told, in the order they were told it; appends are thread-safe."""

    sent: list[Sent] = field(default_factory=list)
    """In send order (one producer per message group keeps a group's order)."""
    ambiguous: set[str] = field(default_factory=set)
    """Payloads whose send had no clear answer: they may be stored (and then delivered) or not."""
    deliveries: list[Delivered] = field(default_factory=list)
    hidden: list[Hidden] = field(default_factory=list)
    acks: list[Acked] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, *facts: Sent | Delivered | Hidden | Acked) -> None:
        with self._lock:
            for f in facts:
                if isinstance(f, Sent):
                    self.sent.append(f)
                elif isinstance(f, Delivered):
                    self.deliveries.append(f)
                elif isinstance(f, Hidden):
                    self.hidden.append(f)
                else:
                    self.acks.append(f)

    def maybe_sent(self, payload: str) -> None:
        with self._lock:
            self.ambiguous.add(payload)

    def acked(self) -> set[str]:
        with self._lock:
            return {a.payload for a in self.acks}

    def unacked(self) -> set[str]:
        """Payloads sent with PUT_OK and not acked yet."""
        with self._lock:
            return {s.payload for s in self.sent} - {a.payload for a in self.acks}


def _first_acks(acks: Iterable[Acked]) -> dict[str, Acked]:
    """Each payload's earliest answered ack."""
    first: dict[str, Acked] = {}
    for a in sorted(acks, key=lambda a: a.answered_ms):
        first.setdefault(a.payload, a)
    return first


def check_acked_not_redelivered(deliveries: Iterable[Delivered], acks: Iterable[Acked]) -> list[str]:
    """No delivery of a message by a receive asked after an ack of it was answered OK."""
    first = _first_acks(acks)
    return [
        f"{d.payload} was acked at {a.answered_ms} (handle {a.handle}) but delivered again by a receive asked at "
        f"{d.asked_ms} (attempt {d.attempt})"
        for d in deliveries
        if (a := first.get(d.payload)) is not None and d.asked_ms > a.answered_ms
    ]


def check_nothing_lost(sent: Iterable[Sent], acks: Iterable[Acked]) -> list[str]:
    """Every PUT_OK message was acked in the end."""
    done = {a.payload for a in acks}
    missing = [s.payload for s in sent if s.payload not in done]
    return [f"{len(missing)} message(s) sent with PUT_OK were never acked, e.g. {missing[:5]}"] if missing else []


def check_attempts_rise(deliveries: Iterable[Delivered]) -> list[str]:
    """Each delivery of a message carries a higher delivery attempt than the previous one (an answer lost in a
    failover may skip one; a repeated or lower attempt means a delivery was forgotten or handed out twice)."""
    out: list[str] = []
    by_payload: dict[str, list[Delivered]] = defaultdict(list)
    for d in deliveries:
        by_payload[d.payload].append(d)
    for payload, items in by_payload.items():
        items.sort(key=lambda d: d.answered_ms)
        for before, after in itertools.pairwise(items):
            if after.attempt <= before.attempt:
                out.append(
                    f"{payload} was delivered with attempt {after.attempt} at {after.answered_ms} after attempt "
                    f"{before.attempt} at {before.answered_ms}"
                )
    return out


def check_fifo(
    sent: Iterable[Sent], deliveries: Iterable[Delivered], hidden: Iterable[Hidden], acks: Iterable[Acked]
) -> list[str]:
    """Per message group: first deliveries and acks in send order, and no message handed out while an earlier one of
    its group is unacked and invisible (its last told deadline was after the later receive was answered).
    `deliveries` are in the order they were told."""
    out: list[str] = []
    deliveries = list(deliveries)
    order: dict[str, list[str]] = defaultdict(list)
    for s in sent:
        if s.message_group:
            order[s.message_group].append(s.payload)
    rank = {p: (g, i) for g, payloads in order.items() for i, p in enumerate(payloads)}
    first = _first_acks(acks)
    for group, payloads in order.items():
        acked = sorted((p for p in payloads if p in first), key=lambda p: first[p].answered_ms)
        expected = [p for p in payloads if p in first]
        if acked != expected:
            at = next(i for i, (a, b) in enumerate(zip(acked, expected, strict=True)) if a != b)
            out.append(f"message group {group}: acked {acked[at]} where {expected[at]} was next in send order")
    firsts: dict[str, list[str]] = defaultdict(list)  # group → payloads in the order first handed out
    for d in deliveries:
        if d.payload in rank and d.payload not in firsts[rank[d.payload][0]]:
            firsts[rank[d.payload][0]].append(d.payload)
    for group, handed in firsts.items():
        expected = [p for p in order[group] if p in handed]
        if handed != expected:
            at = next(i for i, (a, b) in enumerate(zip(handed, expected, strict=True)) if a != b)
            out.append(f"message group {group}: {handed[at]} was handed out before {expected[at]}, sent earlier")
    deadlines: dict[str, list[tuple[int, int]]] = defaultdict(list)  # payload → (told at, invisible until)
    for d in deliveries:
        deadlines[d.payload].append((d.answered_ms, d.invisible_until_ms))
    for h in hidden:
        deadlines[h.payload].append((h.answered_ms, h.invisible_until_ms))
    for d in deliveries:
        if d.payload not in rank:
            continue
        group, i = rank[d.payload]
        for earlier in order[group][:i]:
            told = [until for at, until in sorted(deadlines[earlier]) if at < d.asked_ms]
            a = first.get(earlier)
            if told and told[-1] > d.answered_ms and (a is None or a.answered_ms > d.asked_ms):
                out.append(
                    f"message group {group}: {d.payload} was handed out at {d.answered_ms} while {earlier} was "
                    f"unacked and invisible until {told[-1]}"
                )
    return out


def check_all(ledger: Ledger, *, fifo: bool = False) -> list[str]:
    """Every checker above (FIFO's only for an orderly group)."""
    out = [
        *check_acked_not_redelivered(ledger.deliveries, ledger.acks),
        *check_nothing_lost(ledger.sent, ledger.acks),
        *check_attempts_rise(ledger.deliveries),
    ]
    if fifo:
        out += check_fifo(ledger.sent, ledger.deliveries, ledger.hidden, ledger.acks)
    return out


def told(ledger: Ledger) -> list[Told]:
    """The ledger's answers as ``agents.consumer.invariant``'s `Told`, in the order they were given (a handle names
    its queue, offset and ticket), for `violations` against the state a master rebuilt."""
    events: list[tuple[int, int, Told]] = []
    handed: list[Delivered | Hidden] = [*ledger.deliveries, *ledger.hidden]
    for fact in handed:
        h = decode(fact.handle)
        events.append(
            (fact.answered_ms, 0, ToldDelivery(QueueKey(h.group, h.topic, h.queue_id), h.queue_offset, h.ticket))
        )
    for a in ledger.acks:
        h = decode(a.handle)
        events.append((a.answered_ms, 1, ToldAck(QueueKey(h.group, h.topic, h.queue_id), h.queue_offset)))
    return [t for _, _, t in sorted(events, key=lambda e: e[:2])]
