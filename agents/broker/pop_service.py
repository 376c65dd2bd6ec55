"""PopService: a broker set's POP consumption on its master — receive, ack, change invisibility (and nack).

Each request is decided by ``agents.pop.rules`` against the ledger's state under its lock, and the events become
records through the ledger's write path (``consumer_ledger``). Dead letters are appended in the same batch as the
record that marks them done, so a message is never both in the dead-letter topic and deliverable.

Reads: only messages below the confirmOffset reach the consume queues, so a receive never hands out a message a
failover could still truncate. A receive with nothing to deliver waits (long polling) for a send to this broker or
for an invisibility to end, re-deciding at least every ``POLL_S``.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass

from agents.broker.api import (
    Acked,
    AckOutcome,
    AckRequest,
    Changed,
    ChangeInvisibleRequest,
    Delivery,
    Received,
    ReceiveRequest,
)
from agents.broker.consumer_checks import Refused, group_policy, served_topic
from agents.broker.consumer_ledger import Appended, ConsumerLedger
from agents.consumer.offsets import readable_range, remoting_code
from agents.consumer.state import queue_state
from agents.metadata import TAGS, UNIQ_KEY, Topic
from agents.pop import rules
from agents.pop.errors import PopCode, PopError
from agents.pop.events import Event
from agents.pop.filter import TagFilter, parse_filter
from agents.pop.handle import ReceiptHandle
from agents.pop.handle import decode as decode_handle
from agents.pop.model import DEFAULT_LIMITS, Entry, GroupPolicy, QueueKey, QueueState, QueueView, dlq_topic
from agents.store.commitlog import OffsetTooSmall
from agents.store.message_store import MessageStore
from agents.store.record import Message
from mqbase.clock import wall_ms
from mqbase.codes import ResponseCode
from mqbase.metadata import PERM_READ

MAX_LONG_POLLING_S = 20.0
"""The Java proxy clamps a receive's long polling to 20 s."""
POLL_S = 0.1
"""A long-polling receive decides again at least this often (invisibilities end without a wake-up)."""
READ_AHEAD = 4
"""With a tag filter, a receive reads this many messages per message it may still deliver, to skip through."""
MAX_REPLY_BYTES = 4 * 1024 * 1024 - 256 * 1024
"""A receive's messages fit gRPC's default 4 MiB message limit with room for handles and framing; a larger batch
stops short and the rest comes with the next receive (a single larger message still goes out alone)."""
RETRY_TOPIC, ORIGIN_MESSAGE_ID, DELIVERY_ATTEMPT = "RETRY_TOPIC", "ORIGIN_MESSAGE_ID", "DELIVERY_ATTEMPT"


def dead_letter(message: Message, attempt: int, dlq_topic: str, now_ms: int) -> Message:
    """The copy of `message` its group's dead-letter topic gets (queue 0): where it came from and its last attempt,
    under the same message id, as Java's DLQ copies carry them."""
    properties = dict(message.properties)
    properties[RETRY_TOPIC] = message.topic
    properties[DELIVERY_ATTEMPT] = str(attempt)
    if UNIQ_KEY in properties:
        properties[ORIGIN_MESSAGE_ID] = properties[UNIQ_KEY]
    return Message(dlq_topic, 0, message.body, properties, now_ms)


def body_digest(body: bytes) -> str:
    """The body's MD5 in upper-case hex, the digest Java's proxy sends and every official client checks alike (a
    client fails a message whose digest differs; their CRC32 checks disagree on leading zeros and case)."""
    return hashlib.md5(body, usedforsecurity=False).hexdigest().upper()


def fitting(sizes: dict[int, int], room: int, *, first: bool) -> list[int]:
    """The offsets, in order, a receive may look at so that its reply stays within `room` bytes: an offset left
    out ends the scan there (``QueueView``). With `first`, the first message is taken whatever its size, so a
    receive never gives nothing only because one message is large."""
    out: list[int] = []
    for offset in sorted(sizes):
        room -= sizes[offset]
        if room < 0 and not (first and not out):
            break
        out.append(offset)
    return out


def _size(message: Message) -> int:
    """What a message adds to a reply: its body and properties (the fields around them are small and bounded)."""
    return len(message.body) + sum(len(k) + len(v) for k, v in message.properties.items())


@dataclass
class _Read:
    """The messages one receive read, by queue and offset, for the view and the reply."""

    messages: dict[tuple[int, int], Message]

    def entry(self, queue_id: int, offset: int) -> Entry | None:
        found = self.messages.get((queue_id, offset))
        return Entry(found.properties.get(TAGS)) if found is not None else None


class PopService:
    """Receive, ack and change invisibility for one broker set, over its ledger."""

    def __init__(self, ledger: ConsumerLedger) -> None:
        self._ledger = ledger
        self._turn = itertools.count()

    def _topic(self, name: str) -> Topic:
        return served_topic(self._ledger.host.metadata, self._ledger.name, name)

    def _group(self, name: str) -> GroupPolicy:
        return group_policy(self._ledger.host.metadata, name)

    # --- receive ---------------------------------------------------------------------------------

    def receive(self, req: ReceiveRequest) -> Received:
        """Deliver what is visible to the group, waiting up to the request's long polling for something to be."""
        ledger, clock = self._ledger, self._ledger.clock
        try:
            topic, policy = self._topic(req.topic), self._group(req.group)
            if not topic.perm & PERM_READ:
                raise Refused(ResponseCode.NO_PERMISSION, f"topic[{req.topic}] is not readable (perm {topic.perm})")
            tag_filter = parse_filter(req.filter_expression)
            queue_ids = self._queues(req, topic)
            if policy.orderly:  # RIP-32: only the queues the coordinator holds a lock for (RPCs: outside the lock)
                held = ledger.host.lock_queues([QueueKey(req.group, req.topic, q) for q in queue_ids])
                queue_ids = [q for q in queue_ids if QueueKey(req.group, req.topic, q) in held]
            deadline = clock.monotonic() + min(max(req.long_polling_ms, 0) / 1000, MAX_LONG_POLLING_S)
            while True:
                with ledger.lock:
                    handles, read, appended = self._receive_once(req, tag_filter, queue_ids, policy)
                ledger.settle(appended)
                left = deadline - clock.monotonic()
                if handles or left <= 0:
                    return _received(handles, read)
                ledger.wait_for_arrival(min(left, POLL_S))
        except PopError as exc:
            return Received(remoting_code(exc.code), exc.code, str(exc))
        except Refused as exc:
            return Received(exc.code, exc.pop_code, str(exc), master_address=ledger.master_address(exc))

    def _queues(self, req: ReceiveRequest, topic: Topic) -> list[int]:
        """The queue asked for, else every readable queue starting from the next in turn (fairness)."""
        if req.queue_id is not None:
            if not 0 <= req.queue_id < topic.read_queue_nums:
                raise Refused(
                    ResponseCode.MESSAGE_ILLEGAL,
                    f"queue {req.queue_id} is not a readable queue of {topic.name} (0..{topic.read_queue_nums - 1})",
                )
            return [req.queue_id]
        n = topic.read_queue_nums
        first = next(self._turn) % n if n else 0
        return [(first + i) % n for i in range(n)]

    def _receive_once(
        self, req: ReceiveRequest, tag_filter: TagFilter, queue_ids: list[int], policy: GroupPolicy
    ) -> tuple[list[ReceiptHandle], _Read, Appended | None]:
        """Decide and append one receive over the queues (caller holds the lock); the caller settles."""
        ledger = self._ledger
        replica, state = ledger.ready()
        store, now = replica.store, wall_ms(ledger.clock)
        read = _Read({})
        events: list[Event] = []
        handles: list[ReceiptHandle] = []
        dead: list[Message] = []
        for queue_id in queue_ids:
            wanted = req.batch_size - len(handles)
            if wanted <= 0:
                break
            key = QueueKey(req.group, req.topic, queue_id)
            current = queue_state(state, key)
            min_offset, max_offset = readable_range(state, req.topic, queue_id, *store.queue_range(req.topic, queue_id))
            _read(store, read, key, current, min_offset, wanted, now, tag_filter)
            sizes = {o: _size(m) for (q, o), m in read.messages.items() if q == queue_id}
            room = MAX_REPLY_BYTES - sum(_size(read.messages[(h.queue_id, h.queue_offset)]) for h in handles)
            entries = {o: e for o in fitting(sizes, room, first=not handles) if (e := read.entry(queue_id, o))}
            view = QueueView(ledger.name, min_offset, max_offset, entries)
            receive = rules.Receive(key, tag_filter, wanted, req.invisible_ms, req.attempt_id)
            answer = rules.receive(current, receive, view, policy, now)
            if answer.code not in (PopCode.OK, PopCode.MESSAGE_NOT_FOUND):
                raise Refused(remoting_code(answer.code), answer.remark, answer.code)
            events += answer.events
            if answer.reply is not None:
                handles += answer.reply.messages
                for d in answer.reply.dead_letters:
                    dead.append(dead_letter(read.messages[(queue_id, d.offset)], d.attempt, d.topic, now))
        return handles, read, ledger.append(state, events, dead) if events else None

    # --- ack and invisibility --------------------------------------------------------------------

    def ack(self, req: AckRequest) -> Acked:
        """Ack every handle; one batch of records, one replication wait. Each handle's outcome is its own."""
        ledger = self._ledger
        try:
            self._topic(req.topic)
            self._group(req.group)
            if not req.receipt_handles:
                raise Refused(ResponseCode.MESSAGE_ILLEGAL, "no receipt handle to ack")
            decoded: list[tuple[str, ReceiptHandle | PopError]] = []
            for text in req.receipt_handles:
                try:
                    decoded.append((text, decode_handle(text)))
                except PopError as exc:
                    decoded.append((text, exc))
            with ledger.lock:
                replica, state = ledger.ready()
                events: list[Event] = []
                dead: list[Message] = []
                results: list[AckOutcome] = []
                # Acks of one batch are decided against the same state: they are independent (an ack of the same
                # delivery twice answers OK twice, and its second record changes nothing).
                for text, handle in decoded:
                    if isinstance(handle, PopError):
                        results.append(_ack_result(text, handle.code, str(handle)))
                        continue
                    current = queue_state(state, rules.handle_key(handle))
                    answer = rules.ack(current, rules.Ack(req.group, req.topic, handle), ledger.name)
                    events += answer.events
                    if req.dead_letter and answer.events:
                        dead += _dead_letter_copy(replica.store, handle, req.group, wall_ms(ledger.clock))
                    results.append(_ack_result(text, answer.code, answer.remark))
                appended = ledger.append(state, events, dead) if events else None
            ledger.settle(appended)
            return Acked(ResponseCode.SUCCESS, results=tuple(results))
        except Refused as exc:
            return Acked(exc.code, str(exc), master_address=ledger.master_address(exc))

    def change_invisible(self, req: ChangeInvisibleRequest) -> Changed:
        """A new handle, invisible for the request's duration (or the group's backoff for a nack)."""
        ledger, echo = self._ledger, req.receipt_handle
        try:
            self._topic(req.topic)
            policy = self._group(req.group)
            handle = decode_handle(req.receipt_handle)
            with ledger.lock:
                _, state = ledger.ready()
                now = wall_ms(ledger.clock)
                current = queue_state(state, rules.handle_key(handle))
                if req.nack:
                    answer = rules.nack(current, rules.Nack(req.group, req.topic, handle), ledger.name, policy, now)
                else:
                    change = rules.ChangeInvisible(req.group, req.topic, handle, req.invisible_ms)
                    answer = rules.change_invisible(current, change, ledger.name, now)
                appended = ledger.append(state, answer.events) if answer.events else None
            ledger.settle(appended)
            new = answer.reply or handle
            return Changed(remoting_code(answer.code), answer.code, new.encode(), answer.remark, new.deadline_ms)
        except PopError as exc:
            return Changed(remoting_code(exc.code), exc.code, echo, str(exc))
        except Refused as exc:
            return Changed(exc.code, exc.pop_code, echo, str(exc), master_address=ledger.master_address(exc))


def _read(
    store: MessageStore,
    read: _Read,
    key: QueueKey,
    current: QueueState | None,
    min_offset: int,
    wanted: int,
    now: int,
    tag_filter: TagFilter,
) -> None:
    """Read what a receive of `key` may look at: the deliveries that are visible again (in offset order, as many
    as may be delivered) and a run of new messages from where the group's scan stopped."""
    st = current or QueueState()
    again = sorted(o for o, f in st.inflight.items() if o >= min_offset and f.deadline_ms <= now)[:wanted]
    start = max(st.scanned, st.committed, min_offset)
    ahead = wanted if tag_filter.tags is None else min(wanted * READ_AHEAD, DEFAULT_LIMITS.max_scan)
    reads = [(o, 1) for o in again] + [(start, ahead)]
    for offset, count in reads:
        try:
            found = store.consume(key.topic, key.queue_id, offset, count)
        except OffsetTooSmall:
            continue  # retention moved the queue's start meanwhile: the next receive sees the new one
        for queue_offset, message in found:
            read.messages[(key.queue_id, queue_offset)] = message


def _received(handles: list[ReceiptHandle], read: _Read) -> Received:
    """The reply to a receive that delivered `handles` (none: PULL_NOT_FOUND)."""
    if not handles:
        nothing = "no message is visible to the group now"
        return Received(ResponseCode.PULL_NOT_FOUND, PopCode.MESSAGE_NOT_FOUND, nothing)
    deliveries = []
    for h in handles:
        message = read.messages[(h.queue_id, h.queue_offset)]
        deliveries.append(
            Delivery(message, h.queue_offset, h.attempt, h.encode(), h.deadline_ms, body_digest(message.body))
        )
    return Received(ResponseCode.SUCCESS, PopCode.OK, messages=tuple(deliveries))


def _dead_letter_copy(store: MessageStore, handle: ReceiptHandle, group: str, now_ms: int) -> list[Message]:
    """The dead-letter copy of the message `handle` delivered (none when retention removed it meanwhile)."""
    try:
        found = store.consume(handle.topic, handle.queue_id, handle.queue_offset, 1)
    except OffsetTooSmall:
        return []
    return [dead_letter(m, handle.attempt, dlq_topic(group), now_ms) for o, m in found if o == handle.queue_offset]


def _ack_result(handle: str, code: PopCode, remark: str) -> AckOutcome:
    return AckOutcome(handle, remoting_code(code), code, remark)
