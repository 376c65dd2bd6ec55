"""POP's rules: decide a request against a group's `QueueState`, ``apply`` the events the decision returns.

The decisions (``receive``, ``ack``, ``change_invisible``, ``nack``) never change state: each returns an `Answer`
(code, remark, reply, events). ``apply(state, event)`` is the only way the state changes; it reads nothing but
the two, so a replica that replays the same events from the commit log ends with the same state. The clock is the
caller's ``now_ms``.

- Receive: expired deliveries first (offset order, attempt + 1), then new messages from ``scanned`` up to the
  confirmOffset, up to the batch size; filtered-out messages are done at once. A message whose expired delivery was
  its ``retryMaxTimes + 1``-th goes to the dead-letter topic instead. An orderly group's queue gives nothing while
  any delivery from it is still invisible, so one message group is consumed in order, one batch at a time; a
  receive retried with the attempt id of the one that delivered them gets them again (its reply was lost).
- Ack: the handle's ticket must be its message's current one; acking again with that handle answers OK.
- Change invisible duration (and nack, which takes the group's backoff for the attempt): a new ticket and handle,
  the old handle is stale from then on.
- The committed offset moves past every done message at its head.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Generic, TypeVar, assert_never

from agents.pop.errors import PopCode
from agents.pop.events import Acked, Changed, Delivery, Event, Popped
from agents.pop.filter import TagFilter
from agents.pop.handle import ReceiptHandle
from agents.pop.model import (
    DEFAULT_LIMITS,
    NO_TICKET,
    GroupPolicy,
    Inflight,
    Limits,
    QueueKey,
    QueueState,
    QueueView,
    dlq_topic,
)

R = TypeVar("R")
EMPTY = QueueState()


@dataclass(frozen=True, slots=True)
class Receive:
    """Up to `batch_size` messages of `queue` that pass `filter`, invisible to the group for `invisible_ms`.

    `attempt_id` is the client's id of this receive, the same when it retries a receive that failed (the FIFO push
    consumer's ``attempt_id``); empty when the client sends none.
    """

    queue: QueueKey
    filter: TagFilter
    batch_size: int
    invisible_ms: int
    attempt_id: str = ""


@dataclass(frozen=True, slots=True)
class Ack:
    """Acknowledge the delivery `handle` names; `group` and `topic` are the request's own, checked against it."""

    group: str
    topic: str
    handle: ReceiptHandle


@dataclass(frozen=True, slots=True)
class ChangeInvisible:
    """Make the delivery `handle` names invisible for `invisible_ms` from now, under a new handle."""

    group: str
    topic: str
    handle: ReceiptHandle
    invisible_ms: int


@dataclass(frozen=True, slots=True)
class Nack:
    """A failed consumption: the message becomes visible again after the group's backoff for its attempt."""

    group: str
    topic: str
    handle: ReceiptHandle


Request = Receive | Ack | ChangeInvisible | Nack


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """Put the message at `offset` into `topic` (``%DLQ%<group>``) with its last attempt; the source is acked."""

    offset: int
    attempt: int
    topic: str


@dataclass(frozen=True, slots=True)
class Received:
    """A receive's reply: the deliveries in offset order, the dead letters to write, whether FIFO blocked it."""

    messages: tuple[ReceiptHandle, ...] = ()
    dead_letters: tuple[DeadLetter, ...] = ()
    blocked: bool = False


@dataclass(frozen=True, slots=True)
class Answer(Generic[R]):
    """The outcome of one request: a `PopCode`, a remark for refusals, the reply and the events to write."""

    code: PopCode
    remark: str = ""
    reply: R | None = None
    events: tuple[Event, ...] = ()


def _refuse(code: PopCode, remark: str) -> Answer[R]:
    return Answer(code, remark)


def _invisible_problem(ms: int, low: int, limits: Limits) -> str | None:
    if low <= ms <= limits.max_invisible_ms:
        return None
    return f"invisible duration {ms} ms is outside [{low}, {limits.max_invisible_ms}] ms"


# --- receive ------------------------------------------------------------------------------------


def receive(
    state: QueueState | None,
    req: Receive,
    view: QueueView,
    policy: GroupPolicy,
    now_ms: int,
    limits: Limits = DEFAULT_LIMITS,
) -> Answer[Received]:
    """Deliver what is visible (see the module docstring); MESSAGE_NOT_FOUND when nothing is."""
    if req.batch_size < 1:
        return _refuse(PopCode.BAD_REQUEST, f"batch size {req.batch_size} is below 1")
    if problem := _invisible_problem(req.invisible_ms, limits.min_receive_invisible_ms, limits):
        return _refuse(PopCode.ILLEGAL_INVISIBLE_TIME, problem)
    st = state or EMPTY
    floor = max(st.committed, view.min_offset)
    live = sorted((o, f) for o, f in st.inflight.items() if o >= floor)
    # A retried orderly receive takes its lost batch again: its invisible deliveries, with the same attempts.
    retried = policy.orderly and req.attempt_id != "" and req.attempt_id == st.attempt_id
    if policy.orderly and not retried and any(f.deadline_ms > now_ms for _, f in live):
        blocked = Received(blocked=True)
        return Answer(PopCode.MESSAGE_NOT_FOUND, "an earlier delivery from this queue is not acked yet", blocked)
    batch = min(req.batch_size, limits.max_batch)
    deadline = now_ms + req.invisible_ms
    ticket = st.next_ticket
    deliveries: list[Delivery] = []
    skipped: list[int] = []
    dead: list[DeadLetter] = []
    left_behind = False
    for offset, f in live:
        visible = f.deadline_ms <= now_ms
        if not (visible or retried):
            continue
        entry = view.entries.get(offset)
        if len(deliveries) == batch or entry is None:
            left_behind = True
        elif not req.filter.matches(entry.tag):
            skipped.append(offset)
        elif visible and f.attempt > policy.retry_max_times:
            dead.append(DeadLetter(offset, f.attempt, dlq_topic(req.queue.group)))
        else:
            deliveries.append(Delivery(offset, ticket, deadline, f.attempt + 1 if visible else f.attempt))
            ticket += 1
    scanned = start = max(st.scanned, floor)
    # An orderly group never delivers past an expired delivery it could not hand out again.
    while not (policy.orderly and left_behind) and len(deliveries) < batch and scanned < view.confirm_offset:
        entry = view.entries.get(scanned)
        if entry is None or scanned - start >= limits.max_scan:
            break
        if req.filter.matches(entry.tag):
            deliveries.append(Delivery(scanned, ticket, deadline, 1))
            ticket += 1
        else:
            skipped.append(scanned)
        scanned += 1
    reply = Received(tuple(_handle(view.broker_name, req.queue, d) for d in deliveries), tuple(dead), blocked=False)
    code = PopCode.OK if deliveries else PopCode.MESSAGE_NOT_FOUND
    if not (deliveries or skipped or dead) and floor == st.committed and scanned == st.scanned:
        return Answer(code, reply=reply)
    attempt_id = req.attempt_id if policy.orderly and deliveries else st.attempt_id
    dead_offsets = tuple(d.offset for d in dead)
    event = Popped(req.queue, floor, scanned, tuple(skipped), dead_offsets, tuple(deliveries), attempt_id)
    return Answer(code, reply=reply, events=(event,))


def _handle(broker_name: str, key: QueueKey, d: Delivery) -> ReceiptHandle:
    return ReceiptHandle(broker_name, key.group, key.topic, key.queue_id, d.offset, d.deadline_ms, d.attempt, d.ticket)


# --- ack, change, nack --------------------------------------------------------------------------


def handle_key(handle: ReceiptHandle) -> QueueKey:
    """The queue state a handle's ack or change is decided against."""
    return QueueKey(handle.group, handle.topic, handle.queue_id)


ALREADY_ACKED = "already acked"


def _current(
    state: QueueState | None, group: str, topic: str, handle: ReceiptHandle, broker_name: str
) -> Inflight | Answer[ReceiptHandle]:
    """The delivery `handle` names if it is the current one, else the answer an ack gets instead."""
    invalid = PopCode.INVALID_RECEIPT_HANDLE
    if handle.broker_name != broker_name:
        return _refuse(invalid, f"receipt handle is for broker set {handle.broker_name}, not {broker_name}")
    if (handle.group, handle.topic) != (group, topic):
        return _refuse(invalid, f"receipt handle is for group {handle.group} on topic {handle.topic}")
    offset = handle.queue_offset
    st = state or EMPTY
    if offset < st.committed:
        return Answer(PopCode.OK, ALREADY_ACKED)
    if (f := st.inflight.get(offset)) is not None:
        if f.ticket == handle.ticket:
            return f
        if handle.ticket < f.ticket:
            return _refuse(invalid, f"stale receipt handle: offset {offset} was delivered or changed since")
        return _refuse(invalid, f"receipt handle ticket {handle.ticket} was never issued")
    if (acked := st.done.get(offset)) is not None:
        if acked == handle.ticket:
            return Answer(PopCode.OK, ALREADY_ACKED)
        if acked == NO_TICKET:
            return _refuse(invalid, f"stale receipt handle: offset {offset} was filtered out or dead-lettered")
        return _refuse(invalid, f"stale receipt handle: offset {offset} was acked through another handle")
    return _refuse(invalid, f"offset {offset} of {topic}:{handle.queue_id} was never delivered to {group}")


def ack(state: QueueState | None, req: Ack, broker_name: str) -> Answer[ReceiptHandle]:
    """Acknowledge a delivery; idempotent for its handle, refused for a stale one."""
    found = _current(state, req.group, req.topic, req.handle, broker_name)
    if isinstance(found, Answer):
        return found
    return Answer(PopCode.OK, events=(Acked(handle_key(req.handle), req.handle.queue_offset, found.ticket),))


def change_invisible(
    state: QueueState | None,
    req: ChangeInvisible,
    broker_name: str,
    now_ms: int,
    limits: Limits = DEFAULT_LIMITS,
) -> Answer[ReceiptHandle]:
    """A new handle invisible until ``now + invisible_ms``; refused for a stale handle or an acked message.

    A refusal echoes the request's handle as the reply, since the Python client stores the reply's handle before
    it reads the code.
    """
    if problem := _invisible_problem(req.invisible_ms, limits.min_change_invisible_ms, limits):
        return Answer(PopCode.ILLEGAL_INVISIBLE_TIME, problem, req.handle)
    found = _current(state, req.group, req.topic, req.handle, broker_name)
    if isinstance(found, Answer):
        remark = "the message is " + ALREADY_ACKED if found.code == PopCode.OK else found.remark
        return Answer(PopCode.INVALID_RECEIPT_HANDLE, remark, req.handle)
    st = state or EMPTY
    deadline = now_ms + req.invisible_ms
    new = replace(req.handle, deadline_ms=deadline, ticket=st.next_ticket)
    event = Changed(handle_key(req.handle), req.handle.queue_offset, found.ticket, st.next_ticket, deadline)
    return Answer(PopCode.OK, reply=new, events=(event,))


def nack(
    state: QueueState | None, req: Nack, broker_name: str, policy: GroupPolicy, now_ms: int
) -> Answer[ReceiptHandle]:
    """A change of invisibility to the group's backoff for the handle's attempt (no limits: the policy is trusted)."""
    delay = policy.retry.delay_ms(req.handle.attempt)
    unbounded = Limits(min_change_invisible_ms=0, max_invisible_ms=max(delay, DEFAULT_LIMITS.max_invisible_ms))
    change = ChangeInvisible(req.group, req.topic, req.handle, delay)
    return change_invisible(state, change, broker_name, now_ms, unbounded)


# --- apply --------------------------------------------------------------------------------------


def apply(state: QueueState | None, event: Event) -> QueueState:
    """The state after `event`; an event whose ticket no longer matches changes nothing."""
    return apply_all(state, (event,))


@dataclass(slots=True)
class _Working:
    """A `QueueState` being changed in place by a run of events, frozen once at the end (``apply_all``)."""

    committed: int
    scanned: int
    inflight: dict[int, Inflight]
    done: dict[int, int]
    next_ticket: int
    attempt_id: str

    def apply(self, event: Event) -> bool:
        """Apply one event; False when it changes nothing (a ticket that no longer matches)."""
        inflight, done = self.inflight, self.done
        if isinstance(event, Popped):
            self.attempt_id = event.attempt_id
            self.committed = committed = max(self.committed, event.floor)
            self.scanned = max(self.scanned, event.scanned, committed)
            for gone in [o for o in inflight if o < committed]:
                del inflight[gone]
            for gone in [o for o in done if o < committed]:
                del done[gone]
            for offset in (*event.skipped, *event.dead):
                inflight.pop(offset, None)
                done[offset] = NO_TICKET
            for d in event.deliveries:
                inflight[d.offset] = Inflight(d.ticket, d.deadline_ms, d.attempt)
                self.next_ticket = max(self.next_ticket, d.ticket + 1)
        elif isinstance(event, Acked):
            f = inflight.get(event.offset)
            if f is None or f.ticket != event.ticket:
                return False
            del inflight[event.offset]
            done[event.offset] = event.ticket
        elif isinstance(event, Changed):
            f = inflight.get(event.offset)
            if f is None or f.ticket != event.old_ticket:
                return False
            inflight[event.offset] = Inflight(event.new_ticket, event.deadline_ms, f.attempt)
            self.next_ticket = max(self.next_ticket, event.new_ticket + 1)
        else:
            assert_never(event)
        while self.committed in done:
            del done[self.committed]
            self.committed += 1
        return True


def apply_all(state: QueueState | None, events: Iterable[Event]) -> QueueState:
    """The state after each of `events` in turn (a replay): one copy of the maps for the whole run, not one per
    event, so acking a batch costs the batch, not the batch times what is in flight."""
    st = state or EMPTY
    w = _Working(st.committed, st.scanned, dict(st.inflight), dict(st.done), st.next_ticket, st.attempt_id)
    changed = False
    for event in events:
        changed = w.apply(event) or changed
    if not changed:
        return st
    return QueueState(w.committed, w.scanned, MappingProxyType(w.inflight), MappingProxyType(w.done),
                      w.next_ticket, w.attempt_id)  # fmt: skip
