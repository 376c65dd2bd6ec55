"""ConsumerService: a broker set's consumer groups on its master — receive, ack, change invisibility, offsets.

The state is ``agents.consumer``'s `ConsumerState`, rebuilt from the replica's snapshot and the consumer-state
records after it the first time a request finds this replica master in a new epoch, so a promoted slave serves
from exactly what its log holds. Each request is decided by ``agents.pop.rules`` against that state under one lock,
and the events it returns become records, numbered on from the state's ``seq``, appended to the set's commit log
through the same write path as any message and applied to the state, all under the lock: log order is number
order, and the state is always the local log's. The wait for the flush and the acknowledgements
(``allAckInSyncStateSet``) happens outside the lock, so concurrent requests share them, and the answer goes out only
once that put is PUT_OK; on any other outcome the client is told it failed (the records stay in the log, which a
failover keeps or truncates as it does any message). Dead letters are appended in the same batch as the record
that marks them done, so a message is never both in the dead-letter topic and deliverable. Due delayed messages
are re-put the same way (``deliver_due``): their copies and the ``TimerDelivered`` record that marks them
delivered go in one put, so a new master holds both or neither, short of a replication cut inside that put.

Reads: only messages below the confirmOffset reach the consume queues, so a receive never hands out a message a
failover could still truncate. A receive with nothing to deliver waits (long polling) for a send to this broker or
for an invisibility to end, re-deciding at least every ``POLL_S``.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from agents.broker.answers import REMARKS, STATUS_CODES
from agents.broker.consumer_snapshots import MAX_PAGE_BYTES, ConsumerStateUnavailable, SnapshotKeeper, log_records
from agents.config import BrokerConfig
from agents.consumer import pre_online
from agents.consumer.errors import SequenceGap, StateFormatError
from agents.consumer.offsets import (
    TOPIC_START,
    clamp_offset,
    forgotten,
    offset_at_time,
    progress,
    readable_range,
    remoting_code,
    topic_starts,
)
from agents.consumer.records import (
    Change,
    Escaped,
    EscapeKey,
    EscapeReleased,
    OffsetCommitted,
    StateRecord,
    TimerDelivered,
    Version,
    to_message,
)
from agents.consumer.snapshot import Snapshot, rebuild
from agents.consumer.snapshot import encode as snapshot_encode
from agents.consumer.state import ConsumerState, apply_all, consumer_offset, queue_state
from agents.delay.timer import TIMER_TOPIC, due, next_due, out_ms, re_put
from agents.errors import AgentError
from agents.ha.acting import may_have_been_replaced
from agents.ha.master_service import PutResult
from agents.ha.replica import Replica
from agents.ha.role import Role
from agents.ha.sync_state import PutStatus
from agents.metadata import TAGS, UNIQ_KEY, Group, MetadataTable, Topic
from agents.pop import rules
from agents.pop.errors import PopCode, PopError
from agents.pop.events import Acked, Changed, Event, Popped
from agents.pop.filter import TagFilter, parse_filter
from agents.pop.handle import ReceiptHandle
from agents.pop.handle import decode as decode_handle
from agents.pop.model import DEFAULT_LIMITS, Entry, GroupPolicy, QueueKey, QueueState, QueueView, dlq_topic
from agents.store.commitlog import CommitLogError, OffsetTooSmall
from agents.store.message_store import MessageStore
from agents.store.record import Message
from mqbase.codes import ResponseCode
from mqbase.metadata import GROUP_MAX_LENGTH, TOPIC_MAX_LENGTH, group_problem
from mqbase.proto import agent_pb2 as pb

log = logging.getLogger(__name__)

MAX_LONG_POLLING_S = 20.0
"""The Java proxy clamps a receive's long polling to 20 s."""
POLL_S = 0.1
"""A long-polling receive decides again at least this often (invisibilities end without a wake-up)."""
READ_AHEAD = 4
"""With a tag filter, a receive reads this many messages per message it may still deliver, to skip through."""
TIMER_SCAN = 1024
"""At most this many timer messages are read per delivery pass, so a long backlog holds the lock in short turns."""
MAX_REPLY_BYTES = 4 * 1024 * 1024 - 256 * 1024
"""A receive's messages fit gRPC's default 4 MiB message limit with room for handles and framing; a larger batch
stops short and the rest comes with the next receive (a single larger message still goes out alone)."""
RETRY_TOPIC, ORIGIN_MESSAGE_ID, DELIVERY_ATTEMPT = "RETRY_TOPIC", "ORIGIN_MESSAGE_ID", "DELIVERY_ATTEMPT"
PERM_READ = 4
DLQ_PREFIX = dlq_topic("")
_STORE_ERROR = ResponseCode.SYSTEM_ERROR


class Appended(Protocol):
    """Records written and not yet answered for (``agents.ha.master_service.Appended``)."""

    def settle(self) -> PutResult: ...


class Host(Protocol):
    """What the service needs of its broker (``ReplicasManager``)."""

    config: BrokerConfig
    replica: Replica | None
    broker_id: int

    @property
    def metadata(self) -> MetadataTable: ...
    @property
    def acting_since_ms(self) -> int:
        """When this slave started acting as its set's read-only master (RIP-32); 0 while it does not."""

    def append(self, messages: Sequence[Message]) -> Appended | PutResult: ...
    def master_address(self) -> str: ...
    def escape(self, changes: Sequence[Escaped], copies: Sequence[Message], serving: Callable[[str], bool]) -> str:
        """Store an acting replica's changes at another set's master (``agents.broker.escape``)."""

    def lock_queues(self, keys: Sequence[QueueKey]) -> frozenset[QueueKey]:
        """The orderly queues the set's coordinator holds a lock for (``agents.broker.queue_locks``)."""

    def dead_letters_stored(self, topics: frozenset[str]) -> None:
        """The set now holds dead letters in these topics, which it does not serve yet: have them created
        (Java's broker creates ``%DLQ%<group>`` at its first dead letter, readable like any topic)."""


@dataclass(frozen=True, slots=True)
class _Escaped:
    """An acting replica's changes, stored at an escape master: settled already."""

    def settle(self) -> PutResult:
        return PutResult(PutStatus.PUT_OK)


PRE_ONLINE_REMARK = (
    "this broker became master and is taking back its set's consumer state from its replicas and the escape "
    "masters (RIP-32 pre-online); retry"
)
ACTING_SYNC_REMARK = (
    "this broker starts acting as its set's read-only master and is taking back the consumer state of its set's "
    "replicas and of earlier escapes (RIP-32); retry"
)
ACTING_READ_ONLY = "this broker acts as its set's read-only master (RIP-32): {what} waits for a master; retry later"


def _escapable(change: Change) -> OffsetCommitted | Popped | Acked | Changed | TimerDelivered:
    """An acting replica's change as it escapes; only consumption and delivery escape (never a reset)."""
    if isinstance(change, OffsetCommitted | Popped | Acked | Changed | TimerDelivered):
        return change
    raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, ACTING_READ_ONLY.format(what=type(change).__name__))


class Refused(AgentError, ValueError):
    """A request the service answers with `code` and a remark instead of acting on it."""

    def __init__(self, code: int, remark: str, pop_code: PopCode = PopCode.BAD_REQUEST) -> None:
        super().__init__(remark)
        self.code = code
        self.pop_code = pop_code


def dead_letter(message: Message, attempt: int, dlq_topic: str, now_ms: int) -> Message:
    """The copy of `message` its group's dead-letter topic gets (queue 0): where it came from and its last attempt,
    under the same message id, as Java's DLQ copies carry them."""
    properties = dict(message.properties)
    properties[RETRY_TOPIC] = message.topic
    properties[DELIVERY_ATTEMPT] = str(attempt)
    if UNIQ_KEY in properties:
        properties[ORIGIN_MESSAGE_ID] = properties[UNIQ_KEY]
    return Message(dlq_topic, 0, message.body, properties, now_ms)


def unserved_dead_letter_topics(names: Iterable[str], table: MetadataTable, broker_name: str) -> frozenset[str]:
    """The dead-letter topics among `names` that set `broker_name` does not serve in `table`."""
    topics = table.topics
    return frozenset(
        n for n in names if n.startswith(DLQ_PREFIX) and (n not in topics or broker_name not in topics[n].broker_names)
    )


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


def _name_problem(kind: str, name: str, limit: int) -> str | None:
    if not name:
        return f"{kind} is empty"
    if len(name) > limit:
        return f"{kind} is longer than {limit} characters"
    return None


@dataclass
class _Read:
    """The messages one receive read, by queue and offset, for the view and the reply."""

    messages: dict[tuple[int, int], tuple[Message, int]]

    def entry(self, queue_id: int, offset: int) -> Entry | None:
        found = self.messages.get((queue_id, offset))
        return Entry(found[0].properties.get(TAGS)) if found is not None else None


@dataclass(slots=True)
class Counters:
    """RIP-32's counts, for the metrics."""

    escaped: int = 0
    """Changes this replica escaped while acting as master."""
    taken_back: int = 0
    """Escaped changes this master took back (pre-online and later sweeps)."""
    pre_online_s: float = 0.0
    """How long the last pre-online took."""


class ConsumerService:
    """The consumer groups of one broker set, served by this replica while it is master (or acts as one)."""

    def __init__(self, host: Host, snapshots: SnapshotKeeper) -> None:
        self._host = host
        self._snapshots = snapshots
        self._lock = threading.Lock()
        self._arrived = threading.Condition()
        self._state: ConsumerState | None = None
        self._built_for: tuple[Replica, int, int] | None = None
        """(replica, masterEpoch, acting episode start or 0): a new master, or a new acting episode, rebuilds."""
        self._online_for: tuple[Replica, int, int] | None = None  # the master state pre-online finished for
        self._pre_online_since = 0.0  # monotonic; 0 while none waits
        self._gap_lock = threading.Lock()  # guards the two below (the watchdog takes no other lock)
        self._ticked = time.monotonic()  # when this process last ran a watchdog tick or a call
        self._gap_ms = 0  # the longest gap noticed and not yet taken into account (0: none)
        self._escape_n = 0  # escaped changes, counted over the agent's life (their keys' n: unique per episode)
        self.counters = Counters()
        self._encoded: tuple[ConsumerState, bytes] | None = None  # the state last paged out (GetConsumerState)
        self._turn = itertools.count()
        self._timer_due: dict[int, int] = {}  # timer queue offset -> due time, of those read and not delivered
        self._timer_read = 0  # the next timer queue offset to read

    def wake(self) -> None:
        """New messages were stored: long-polling receives decide again now."""
        with self._arrived:
            self._arrived.notify_all()

    def forget(self, before: MetadataTable, after: MetadataTable) -> None:
        """Drop the state of the topics and groups the metadata change deleted (on the master; a slave has none),
        and commit where each deleted topic starts if created again (``offsets.TOPIC_START``): its queues' ends."""
        if before.version < 0 or after.version <= before.version or self._host.acting_since_ms:
            return  # an acting replica writes no deletion: the set's next master forgets at its first change
        try:
            with self._lock:
                replica, state = self._ready()
                store, gone = replica.store, sorted(frozenset(before.topics) - frozenset(after.topics))
                ends = {(t, q): store.queue_range(t, q)[1] for t in gone for q in store.queue_ids(t)}
                now, epoch = _now_ms(), replica.position.master_epoch
                changes: list[Change] = [
                    *forgotten(state, frozenset(before.topics), frozenset(after.topics), frozenset(before.groups),
                               frozenset(after.groups)),
                    *(OffsetCommitted(key, end, now, epoch) for key, end in topic_starts(state, ends)),
                ]  # fmt: skip
                appended = self._append(state, changes) if changes else None
            self._settle(appended)
        except Refused as exc:
            if exc.code not in (ResponseCode.SLAVE_NOT_AVAILABLE, ResponseCode.SERVICE_NOT_AVAILABLE):
                log.warning("%s: cannot forget deleted consumer state: %s", self._host.config.broker_name, exc)

    # --- state -----------------------------------------------------------------------------------

    def tick(self, now: float) -> bool:
        """The agent's watchdog tick (monotonic `now`; it never waits for the service's lock, so a long rebuild
        cannot stall the write gate's watchdog): whether the gap since the last tick or call may have let a slave
        act (`acting.may_have_been_replaced`); the take-back is then due at once, and the next look at the state
        sends an online master back to pre-online (`_take_gap`)."""
        return self._note_gap(now)

    def _note_gap(self, now: float) -> bool:
        with self._gap_lock:
            gap_ms, self._ticked = int((now - self._ticked) * 1000), max(self._ticked, now)
            if not may_have_been_replaced(gap_ms, self._host.config.acting_policy):
                return False
            self._gap_ms = max(self._gap_ms, gap_ms)
            return True

    def _take_gap(self) -> None:
        """After a gap in which this process ran nothing long enough for a slave to have acted (caller holds the
        lock), an online master goes through pre-online again: the acting replica's escaped changes, which the
        sweep would take back only later, are merged before it serves, so no acked message comes back."""
        self._note_gap(time.monotonic())  # a call may run before the watchdog after a pause
        with self._gap_lock:
            gap_ms, self._gap_ms = self._gap_ms, 0
        replica = self._host.replica
        online = self._online_for is not None and self._online_for == self._built_for
        if not gap_ms or replica is None or replica.position.role is not Role.MASTER or not online:
            return  # no gap, or not an online master: a slave, or an acting replica (it takes nothing back)
        log.warning("%s: this master ran nothing for %.1f s (a process pause or a stalled host); a slave may have "
                    "acted meanwhile: pre-online again before serving consumers",
                    self._host.config.broker_name, gap_ms / 1000)  # fmt: skip
        self._online_for = None

    def _ready(self, *, pre_online: bool = False) -> tuple[Replica, ConsumerState]:
        """The serving replica and its state (caller holds the lock): the master's, or an acting replica's (its
        log's state with the changes it escaped), rebuilt for a new replica, epoch or acting episode. A new master
        with ``enableSlaveActingMaster`` serves only once pre-online took its set's state back (`pre_online`: the
        take-back itself, and the reads other masters' take-backs make, pass)."""
        self._take_gap()
        replica = self._host.replica
        role = replica.position.role if replica is not None else Role.FENCED
        acting_since = self._host.acting_since_ms if role is not Role.MASTER else 0  # a slave, or fenced
        if replica is None or not (acting_since or (role is Role.MASTER and replica.master is not None)):
            if role is Role.SLAVE:
                raise Refused(ResponseCode.SLAVE_NOT_AVAILABLE, "this broker is a slave; ask the master")
            raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, "this broker is not master yet (fenced); retry")
        key = (replica, replica.position.master_epoch, acting_since)
        if self._state is None or self._built_for != key:
            started = time.monotonic()
            self._state = self._build(replica)
            self._built_for, self._pre_online_since = key, 0.0
            self._timer_due, self._timer_read = {}, self._state.timer.floor
            log.info("%s: consumer state rebuilt up to record %d in %.3f s%s", self._host.config.broker_name,
                     self._state.seq, time.monotonic() - started, " (acting)" if acting_since else "")  # fmt: skip
        if self._online_for != key:
            if not self._host.config.enable_slave_acting_master:
                self._online_for = key  # acting needs the key on: an acting replica always takes back
            elif not self._pre_online_since:
                self._pre_online_since = time.monotonic()
            if self._online_for != key and not pre_online:
                remark = ACTING_SYNC_REMARK if acting_since else PRE_ONLINE_REMARK
                raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, remark)
        return replica, self._state

    def _build(self, replica: Replica) -> ConsumerState:
        """The state the replica's log holds: its latest snapshot and the records after it."""
        try:
            base = self._snapshots.latest(replica)
        except ConsumerStateUnavailable as exc:
            raise Refused(ResponseCode.SYSTEM_ERROR, str(exc)) from exc
        stored = log_records(replica.store, base.covered if base else 0)
        try:
            return rebuild(base, (record for _, _, record in stored))
        except (SequenceGap, StateFormatError, CommitLogError) as exc:
            log.error("%s: consumer state cannot be rebuilt: %s", self._host.config.broker_name, exc)
            raise Refused(ResponseCode.SYSTEM_ERROR, f"consumer state cannot be rebuilt: {exc}") from exc

    @property
    def pre_online(self) -> bool:
        """Whether this master serves no consumer until its pre-online is done: with ``enableSlaveActingMaster``,
        from the role change on (before any request or take-back pass looked at the new epoch), not only once a
        pass started it."""
        replica = self._host.replica
        if replica is None or not self._host.config.enable_slave_acting_master:
            return False
        position = replica.position
        return position.role is Role.MASTER and self._online_for != (replica, position.master_epoch, 0)

    @property
    def acting(self) -> bool:
        """Whether the state served is an acting replica's (its writes escape)."""
        return self._built_for is not None and self._built_for[2] != 0

    def _append(self, state: ConsumerState, changes: Sequence[Change], extra: Sequence[Message] = ()) -> Appended:
        """Append the changes as records (after `extra`, in one batch) and apply them to the table (caller holds the
        lock): the local log holds them now, in the order of their numbers, and the table stays the log's. The
        caller settles the `Appended` outside the lock. `Refused` with the put's code when nothing was written."""
        records = [StateRecord(state.seq + i, change) for i, change in enumerate(changes, 1)]
        if self.acting:
            return self._escape(state, records, extra)
        now = _now_ms()
        try:
            appended = self._host.append([*extra, to_message(records, now)])
        except OSError as exc:  # a full disk: a failed append writes nothing the log keeps
            self._state = None  # the log decides, at the next request
            log.error("%s: consumer-state put failed: %s", self._host.config.broker_name, exc)
            raise Refused(_STORE_ERROR, f"the store cannot write ({exc.strerror or exc}); retry later") from exc
        if isinstance(appended, PutResult):
            raise Refused(STATUS_CODES[appended.status], REMARKS[appended.status])
        self._state = apply_all(state, records)
        topics = (m.topic for m in extra)
        if unserved := unserved_dead_letter_topics(topics, self._host.metadata, self._host.config.broker_name):
            self._host.dead_letters_stored(unserved)
        return appended

    def _escape(self, state: ConsumerState, records: Sequence[StateRecord], extra: Sequence[Message]) -> Appended:
        """An acting replica's `_append`: the changes escape to another set's master, each at the version of its
        queue and under a key of this episode, with `extra` in the same put there (delayed messages' copies,
        dead letters: a set that serves their topics takes them); the table takes them once stored there."""
        assert self._built_for is not None
        home, episode = self._host.config.broker_name, self._built_for[2]
        escaped: list[Escaped] = []
        for record in records:
            change = _escapable(record.change)
            queue = None if isinstance(change, TimerDelivered) else change.queue
            self._escape_n += 1
            version = state.versions.get(queue, Version()) if queue is not None else Version()
            escaped.append(Escaped(home, EscapeKey(self._host.broker_id, episode, self._escape_n), version, change))
        topics = self._host.metadata.topics
        needed = {m.topic for m in extra if not m.topic.startswith(DLQ_PREFIX)}

        def serving(name: str) -> bool:
            return all(t in topics and name in topics[t].broker_names for t in needed)

        target = self._host.escape(escaped, extra, serving)
        self.counters.escaped += len(escaped)
        log.debug("%s: %d change(s) escaped to %s", home, len(escaped), target)
        self._state = apply_all(state, records)
        return _Escaped()

    def _settle(self, appended: Appended | None) -> None:
        """Wait until the appended records are acknowledged as the config asks (``allAckInSyncStateSet``), outside
        the lock so that concurrent requests share flushes and replication rounds; `Refused` with the put's code
        otherwise (the records stay in this log: the client is told it failed, and retries)."""
        if appended is None:
            return
        try:
            result = appended.settle()
        except OSError as exc:  # the flush failed: what the log keeps is unknown until it is read again
            with self._lock:
                self._state = None
            log.error("%s: consumer-state flush failed: %s", self._host.config.broker_name, exc)
            raise Refused(_STORE_ERROR, f"the store cannot write ({exc.strerror or exc}); retry later") from exc
        if result.status is not PutStatus.PUT_OK:
            raise Refused(STATUS_CODES[result.status], REMARKS[result.status])

    # --- delayed messages --------------------------------------------------------------------------

    def deliver_due(self, now_ms: int) -> int | None:
        """Re-put the timer messages due at `now_ms` into their topics (at most ``timer.BATCH``), with the record
        that marks them delivered in the same put, and wait for that put like any request's; the earliest due time
        still waiting (`now_ms` when more is to read or deliver at once, None when nothing waits). Only confirmed
        timer messages are read (the consume queue), so nothing a truncation could take back is re-put. `Refused`
        on a replica that is not master, or when the put fails."""
        with self._lock:
            replica, state = self._ready()
            store = replica.store
            complete = self._read_timer(store, state)
            offsets = due(state.timer, self._timer_due, now_ms)
            if not offsets:
                return next_due(state.timer, self._timer_due) if complete else now_ms
            copies: list[Message] = []
            for offset in offsets:
                try:
                    found = store.consume(TIMER_TOPIC, 0, offset, 1)
                except OffsetTooSmall:
                    found = []  # retention deleted it: nothing to re-put (docs/storage.md)
                copy = re_put(found[0][1], now_ms) if found and found[0][0] == offset else None
                if copy is None:
                    log.warning("%s: timer message %d is gone or names no topic; marked delivered without a copy",
                                self._host.config.broker_name, offset)  # fmt: skip
                else:
                    copies.append(copy)
            appended = self._append(state, [TimerDelivered(tuple(sorted(offsets)))], copies)
            for offset in offsets:
                del self._timer_due[offset]
        self._settle(appended)
        self.wake()
        return now_ms

    def _read_timer(self, store: MessageStore, state: ConsumerState) -> bool:
        """Read the due times of the timer messages confirmed since the last pass (caller holds the lock); False
        when `TIMER_SCAN` messages were read and more wait."""
        low, high = store.queue_range(TIMER_TOPIC, 0)
        start = max(self._timer_read, low)
        try:
            found = store.consume(TIMER_TOPIC, 0, start, TIMER_SCAN) if start < high else []
        except OffsetTooSmall:  # retention moved the queue's start meanwhile: the next pass starts there
            return False
        for offset, message in found:
            if not state.timer.done(offset):
                self._timer_due[offset] = out_ms(message) or 0  # no readable time: due at once, and dropped then
        self._timer_read = found[-1][0] + 1 if found else start
        return not found or self._timer_read >= high  # nothing read: nothing more to read now

    # --- metadata --------------------------------------------------------------------------------

    def _topic(self, name: str) -> Topic:
        if problem := _name_problem("topic", name, TOPIC_MAX_LENGTH):
            raise Refused(ResponseCode.MESSAGE_ILLEGAL, problem)
        if self._host.metadata.version < 0:  # just started: "no such topic" would be a lie, the default policy too
            raise Refused(
                ResponseCode.SERVICE_NOT_AVAILABLE,
                "this broker has not read the topics and groups from the controllers since it started; retry",
            )
        topic = self._host.metadata.topics.get(name)
        if topic is None or self._host.config.broker_name not in topic.broker_names:
            raise Refused(
                ResponseCode.TOPIC_NOT_EXIST,
                f"topic[{name}] not exist on broker set {self._host.config.broker_name}, "
                f"create it first: mqadmin updateTopic -t {name}",
            )
        return topic

    def _group(self, name: str) -> GroupPolicy:
        """The group's POP policy: a group the controller does not know is consumed with Java's defaults (as
        Java's ``autoCreateSubscriptionGroup=true`` creates it); a disabled one is refused."""
        if problem := _name_problem("group", name, GROUP_MAX_LENGTH) or (name == TOPIC_START and group_problem(name)):
            raise Refused(ResponseCode.MESSAGE_ILLEGAL, problem)
        group: Group | None = self._host.metadata.groups.get(name)
        if group is None:
            return GroupPolicy()
        if not group.consume_enable:
            raise Refused(ResponseCode.NO_PERMISSION, f"subscription group [{name}] has consumeEnable=false")
        return GroupPolicy(group.consume_orderly, group.retry_max_times, group.retry_policy)

    # --- receive ---------------------------------------------------------------------------------

    def receive(self, req: pb.ReceiveMessageRequest) -> pb.ReceiveMessageResponse:
        """Deliver what is visible to the group, waiting up to the request's long polling for something to be."""
        try:
            topic, policy = self._topic(req.topic), self._group(req.group)
            if not topic.perm & PERM_READ:
                raise Refused(ResponseCode.NO_PERMISSION, f"topic[{req.topic}] is not readable (perm {topic.perm})")
            tag_filter = parse_filter(req.filter_expression)
            queue_ids = self._queues(req, topic)
            if policy.orderly:  # RIP-32: only the queues the coordinator holds a lock for (RPCs: outside the lock)
                held = self._host.lock_queues([QueueKey(req.group, req.topic, q) for q in queue_ids])
                queue_ids = [q for q in queue_ids if QueueKey(req.group, req.topic, q) in held]
            deadline = time.monotonic() + min(max(req.long_polling_millis, 0) / 1000, MAX_LONG_POLLING_S)
            while True:
                with self._lock:
                    handles, read, appended = self._receive_once(req, tag_filter, queue_ids, policy)
                self._settle(appended)
                left = deadline - time.monotonic()
                if handles or left <= 0:
                    return _received(handles, read)
                with self._arrived:  # a send meanwhile is caught at the next decision, at most POLL_S later
                    self._arrived.wait(min(left, POLL_S))
        except PopError as exc:
            return pb.ReceiveMessageResponse(code=remoting_code(exc.code), remark=str(exc), pop_code=exc.code)
        except Refused as exc:
            return pb.ReceiveMessageResponse(
                code=exc.code, remark=str(exc), pop_code=exc.pop_code, master_address=self._master_address(exc)
            )

    def _queues(self, req: pb.ReceiveMessageRequest, topic: Topic) -> list[int]:
        """The queue asked for, else every readable queue starting from the next in turn (fairness)."""
        if req.HasField("queue_id"):
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
        self, req: pb.ReceiveMessageRequest, tag_filter: TagFilter, queue_ids: list[int], policy: GroupPolicy
    ) -> tuple[list[ReceiptHandle], _Read, Appended | None]:
        """Decide and append one receive over the queues (caller holds the lock); the caller settles."""
        replica, state = self._ready()
        store, now = replica.store, _now_ms()
        broker_name = self._host.config.broker_name
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
            self._read(store, read, key, current, min_offset, wanted, now, tag_filter)
            sizes = {o: _size(m) for (q, o), (m, _) in read.messages.items() if q == queue_id}
            room = MAX_REPLY_BYTES - sum(_size(read.messages[(h.queue_id, h.queue_offset)][0]) for h in handles)
            entries = {o: e for o in fitting(sizes, room, first=not handles) if (e := read.entry(queue_id, o))}
            view = QueueView(broker_name, min_offset, max_offset, entries)
            receive = rules.Receive(key, tag_filter, wanted, req.invisible_millis, req.attempt_id)
            answer = rules.receive(current, receive, view, policy, now)
            if answer.code not in (PopCode.OK, PopCode.MESSAGE_NOT_FOUND):
                raise Refused(remoting_code(answer.code), answer.remark, answer.code)
            events += answer.events
            if answer.reply is not None:
                handles += answer.reply.messages
                for d in answer.reply.dead_letters:
                    dead.append(dead_letter(read.messages[(queue_id, d.offset)][0], d.attempt, d.topic, now))
        return handles, read, self._append(state, events, dead) if events else None

    @staticmethod
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
        """Read what a receive of `key` may look at: the deliveries that are visible again (in offset order, as
        many as may be delivered) and a run of new messages from where the group's scan stopped."""
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
                read.messages[(key.queue_id, queue_offset)] = (message, message.store_timestamp)

    # --- ack and invisibility --------------------------------------------------------------------

    def ack(self, req: pb.AckMessageRequest) -> pb.AckMessageResponse:
        """Ack every handle; one batch of records, one replication wait. Each handle's outcome is its own."""
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
            with self._lock:
                replica, state = self._ready()
                broker_name = self._host.config.broker_name
                events: list[Event] = []
                dead: list[Message] = []
                results: list[pb.AckResult] = []
                # Acks of one batch are decided against the same state: they are independent (an ack of the same
                # delivery twice answers OK twice, and its second record changes nothing).
                for text, handle in decoded:
                    if isinstance(handle, PopError):
                        results.append(_ack_result(text, handle.code, str(handle)))
                        continue
                    current = queue_state(state, rules.handle_key(handle))
                    answer = rules.ack(current, rules.Ack(req.group, req.topic, handle), broker_name)
                    events += answer.events
                    if req.dead_letter and answer.events:
                        dead += _dead_letter_copy(replica.store, handle, req.group)
                    results.append(_ack_result(text, answer.code, answer.remark))
                appended = self._append(state, events, dead) if events else None
            self._settle(appended)
            return pb.AckMessageResponse(code=ResponseCode.SUCCESS, results=results)
        except Refused as exc:
            return pb.AckMessageResponse(code=exc.code, remark=str(exc), master_address=self._master_address(exc))

    def change_invisible(self, req: pb.ChangeInvisibleDurationRequest) -> pb.ChangeInvisibleDurationResponse:
        """A new handle, invisible for the request's duration (or the group's backoff for a nack)."""
        echo = req.receipt_handle
        try:
            self._topic(req.topic)
            policy = self._group(req.group)
            handle = decode_handle(req.receipt_handle)
            with self._lock:
                _, state = self._ready()
                broker_name, now = self._host.config.broker_name, _now_ms()
                current = queue_state(state, rules.handle_key(handle))
                if req.nack:
                    answer = rules.nack(current, rules.Nack(req.group, req.topic, handle), broker_name, policy, now)
                else:
                    change = rules.ChangeInvisible(req.group, req.topic, handle, req.invisible_millis)
                    answer = rules.change_invisible(current, change, broker_name, now)
                appended = self._append(state, answer.events) if answer.events else None
            self._settle(appended)
            new = answer.reply or handle
            return pb.ChangeInvisibleDurationResponse(
                code=remoting_code(answer.code),
                remark=answer.remark,
                pop_code=answer.code,
                receipt_handle=new.encode(),
                invisible_until_millis=new.deadline_ms,
            )
        except PopError as exc:
            return pb.ChangeInvisibleDurationResponse(
                code=remoting_code(exc.code), remark=str(exc), pop_code=exc.code, receipt_handle=echo
            )
        except Refused as exc:
            return pb.ChangeInvisibleDurationResponse(
                code=exc.code, remark=str(exc), pop_code=exc.pop_code, receipt_handle=echo,
                master_address=self._master_address(exc),
            )  # fmt: skip

    # --- offsets ---------------------------------------------------------------------------------

    def update_offset(self, req: pb.UpdateConsumerOffsetRequest) -> pb.AgentResponse:
        """Commit the group's offset of one queue (clamped into the queue), as a record like every other change."""
        try:
            topic = self._topic(req.topic)
            self._group(req.group)
            if not 0 <= req.queue_id < max(topic.read_queue_nums, topic.write_queue_nums):
                raise Refused(ResponseCode.MESSAGE_ILLEGAL, f"queue {req.queue_id} is not a queue of {topic.name}")
            if req.offset < 0:
                raise Refused(ResponseCode.MESSAGE_ILLEGAL, f"offset {req.offset} is negative")
            with self._lock:
                replica, state = self._ready()
                low, high = readable_range(
                    state, req.topic, req.queue_id, *replica.store.queue_range(req.topic, req.queue_id)
                )
                offset = clamp_offset(req.offset, low, high)
                key = QueueKey(req.group, req.topic, req.queue_id)
                if self.acting and offset < (consumer_offset(state, key) or 0):
                    raise Refused(ResponseCode.NO_PERMISSION, ACTING_READ_ONLY.format(what="an offset reset"))
                change = OffsetCommitted(key, offset, _now_ms(), replica.position.master_epoch)
                appended = self._append(state, [change])
            self._settle(appended)
            return pb.AgentResponse(code=ResponseCode.SUCCESS, remark=f"offset {offset}")
        except Refused as exc:
            return pb.AgentResponse(code=exc.code, remark=str(exc))

    def reset_by_time(self, req: pb.ResetOffsetByTimeRequest) -> pb.ResetOffsetByTimeResponse:
        """Every queue of the topic to its first message stored at or after the time, in one batch of records."""
        try:
            topic = self._topic(req.topic)
            self._group(req.group)
            if req.timestamp_millis < 0:
                raise Refused(ResponseCode.MESSAGE_ILLEGAL, f"timestamp {req.timestamp_millis} is negative")
            with self._lock:
                replica, state = self._ready()
                if self.acting:
                    raise Refused(ResponseCode.NO_PERMISSION, ACTING_READ_ONLY.format(what="resetOffsetByTime"))
                store, now, epoch = replica.store, _now_ms(), replica.position.master_epoch
                changes: list[Change] = []
                for queue_id in range(max(topic.read_queue_nums, topic.write_queue_nums)):
                    low, high = readable_range(state, req.topic, queue_id, *store.queue_range(req.topic, queue_id))

                    def stored_at(offset: int, queue_id: int = queue_id) -> int:
                        return store.consume(req.topic, queue_id, offset, 1)[0][1].store_timestamp

                    offset = offset_at_time(low, high, req.timestamp_millis, stored_at)
                    changes.append(OffsetCommitted(QueueKey(req.group, req.topic, queue_id), offset, now, epoch))
                appended = self._append(state, changes)
            self._settle(appended)
            response = pb.ResetOffsetByTimeResponse(code=ResponseCode.SUCCESS)
            for c in changes:
                assert isinstance(c, OffsetCommitted)
                response.offsets.add(queue_id=c.queue.queue_id, offset=c.offset)
            return response
        except (Refused, OffsetTooSmall) as exc:
            if isinstance(exc, OffsetTooSmall):  # retention moved a queue's start during the search
                exc = Refused(ResponseCode.SYSTEM_ERROR, f"{exc}; retry")
            return pb.ResetOffsetByTimeResponse(
                code=exc.code, remark=str(exc), master_address=self._master_address(exc)
            )

    def progress(self, req: pb.GetConsumerProgressRequest) -> pb.GetConsumerProgressResponse:
        """Per queue of the group's topics here: the broker's offsets and the group's (``consumerProgress``)."""
        try:
            if problem := _name_problem("group", req.group, GROUP_MAX_LENGTH):
                raise Refused(ResponseCode.MESSAGE_ILLEGAL, problem)
            with self._lock:
                replica, state = self._ready()
            topics = self._progress_topics(req, state)
            store = replica.store
            response = pb.GetConsumerProgressResponse(code=ResponseCode.SUCCESS)
            for name, queue_count in topics:
                for queue_id in range(queue_count):
                    low, high = readable_range(state, name, queue_id, *store.queue_range(name, queue_id))
                    p = progress(state, QueueKey(req.group, name, queue_id), low)
                    response.queues.add(
                        topic=name, queue_id=queue_id, broker_offset=high, min_offset=low,
                        consumer_offset=p.consumer_offset, inflight=p.inflight,
                        last_timestamp_millis=_stored_at(store, name, queue_id, p.consumer_offset - 1, low),
                    )  # fmt: skip
            for (home, topic, queue_id), count in sorted(_escaped_of(state, req.group, req.topic).items()):
                response.escaped.add(home=home, topic=topic, queue_id=queue_id, changes=count)
            return response
        except Refused as exc:
            return pb.GetConsumerProgressResponse(
                code=exc.code, remark=str(exc), master_address=self._master_address(exc)
            )

    def _progress_topics(self, req: pb.GetConsumerProgressRequest, state: ConsumerState) -> list[tuple[str, int]]:
        """(topic, queue count) of the request's topic, else of every topic the group has state for here."""
        if req.topic:
            topic = self._topic(req.topic)
            return [(topic.name, max(topic.read_queue_nums, topic.write_queue_nums))]
        names = sorted({k.topic for k in _keys(state) if k.group == req.group})
        table = self._host.metadata.topics
        out: list[tuple[str, int]] = []
        for name in names:
            known = table.get(name)
            seen = 1 + max(k.queue_id for k in _keys(state) if (k.group, k.topic) == (req.group, name))
            out.append((name, max(seen, known.read_queue_nums, known.write_queue_nums) if known else seen))
        return out

    def _master_address(self, exc: Refused) -> str:
        return self._host.master_address() if exc.code == ResponseCode.SLAVE_NOT_AVAILABLE else ""

    # --- RIP-32: escape master, pre-online -----------------------------------------------------------

    def take_escaped(self, home: str, changes: Sequence[Escaped], copies: Sequence[Message]) -> None:
        """As another set's escape master: store its acting replica's changes, and the copies of the delayed
        messages it delivered (into their topics here), in one put; `Refused` when not stored."""
        if home == self._host.config.broker_name or any(c.home != home for c in changes):
            raise Refused(ResponseCode.MESSAGE_ILLEGAL, f"escaped changes must name their home set {home}, not this")
        if not changes:
            raise Refused(ResponseCode.MESSAGE_ILLEGAL, "no escaped change to store")
        placed: list[Message] = []
        for m in copies:
            if m.topic.startswith(DLQ_PREFIX):
                placed.append(replace(m, store_timestamp=_now_ms()))
                continue
            topic = self._topic(m.topic)
            queues = max(topic.write_queue_nums, 1)
            placed.append(replace(m, queue_id=m.queue_id % queues, store_timestamp=_now_ms()))
        with self._lock:
            _, state = self._ready()
            if self.acting:
                raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, ACTING_READ_ONLY.format(what="an escape"))
            appended = self._append(state, list(changes), placed)
        self._settle(appended)
        if placed:
            self.wake()

    def escaped_for(self, home: str) -> list[Escaped]:
        """The changes escaped here for set `home`, in key order (answered in pre-online too: two new masters
        ask each other)."""
        with self._lock:
            _, state = self._ready(pre_online=True)
        return sorted(state.escaped.get(home, {}).values(), key=lambda e: e.key)

    def release_escaped(self, released: EscapeReleased) -> None:
        """Drop the escaped changes set `released.home` took back (the ones still held)."""
        with self._lock:
            _, state = self._ready(pre_online=True)
            held = state.escaped.get(released.home, {})
            keys = tuple(k for k in released.keys if k in held)
            appended = self._append(state, [EscapeReleased(released.home, keys)]) if keys else None
        self._settle(appended)

    def state_now(self) -> ConsumerState:
        """This replica's consumer state for a take-back (``GetConsumerState``): the served one (an acting replica's
        with its escaped changes), else its log's."""
        with self._lock:
            replica = self._host.replica
            if replica is None:
                raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, "this broker has no store open yet; retry")
            if self._state is not None and self._built_for is not None and self._built_for[0] is replica:
                role = replica.position.role
                if (role is Role.MASTER) == (self._built_for[2] == 0) and role is not Role.FENCED:
                    return self._state
        return self._build(replica)

    def state_page(self, position: int, max_bytes: int) -> tuple[int, int, bytes]:
        """A page of `state_now` encoded as a snapshot: (its seq, the encoding's size, the page). The encoding of
        the last state asked is kept, so a paged read encodes once."""
        state = self.state_now()
        with self._lock:
            if self._encoded is None or self._encoded[0] is not state:
                self._encoded = (state, snapshot_encode(Snapshot(0, state)))
            data = self._encoded[1]
        size = max(0, min(max_bytes, MAX_PAGE_BYTES))
        return state.seq, len(data), data[position : position + size]

    def take_back_phase(self) -> tuple[tuple[Replica, int, int], bool] | None:
        """What the take-back thread is to do for the state `key` served now (a master's or an acting replica's):
        a pre-online (True) or a sweep for changes escaped since (False); None when this replica serves nothing or
        the feature is off."""
        if not self._host.config.enable_slave_acting_master:
            return None
        with self._lock:
            try:
                self._ready(pre_online=True)
            except Refused:
                return None
            key = self._built_for
            return None if key is None else (key, self._online_for != key)

    def take_back(
        self, key: tuple[Replica, int, int], replicas: Sequence[ConsumerState], escaped: Mapping[str, Sequence[Escaped]]
    ) -> dict[str, list[EscapeKey]]:
        """Merge the replicas' states and the escape masters' changes into the served state (``pre_online``'s
        join) and go online; the keys taken back, by escape master, to release. A master appends the merge as
        records like any change; an acting replica, which writes no log, holds it in memory and releases nothing
        (the set's next master takes the same changes back). `Refused` when the state changed hands meanwhile or
        the put fails (the thread tries again)."""
        with self._lock:
            _, state = self._ready(pre_online=True)
            if self._built_for != key:
                raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, "the master changed during the take-back")
            home = self._host.config.broker_name
            changes, pre = pre_online.merge_answers(state, home, replicas, escaped, _now_ms())
            appended = None
            if self.acting:
                self._state = apply_all(state, [StateRecord(state.seq + i, c) for i, c in enumerate(changes, 1)])
            elif changes:
                appended = self._append(state, changes)
            acting = self.acting
        self._settle(appended)
        with self._lock:
            if self._built_for == key and self._online_for != key:
                self._online_for = key
                self.counters.pre_online_s = time.monotonic() - self._pre_online_since
                self._pre_online_since = 0.0
                log.info("%s: pre-online done in %.3f s: %d record(s) merged, %d escaped change(s) taken back",
                         home, self.counters.pre_online_s, len(changes), len(pre.applied))  # fmt: skip
        if acting:
            return {}
        self.counters.taken_back += len(pre.applied)
        return {name: [c.key for c in cs if c.key in pre.applied] for name, cs in escaped.items()}


def _received(handles: list[ReceiptHandle], read: _Read) -> pb.ReceiveMessageResponse:
    """The reply to a receive that delivered `handles` (none: PULL_NOT_FOUND)."""
    response = pb.ReceiveMessageResponse(
        code=ResponseCode.SUCCESS if handles else ResponseCode.PULL_NOT_FOUND,
        pop_code=PopCode.OK if handles else PopCode.MESSAGE_NOT_FOUND,
        remark="" if handles else "no message is visible to the group now",
    )
    for h in handles:
        message, stored_at = read.messages[(h.queue_id, h.queue_offset)]
        response.messages.add(
            message=pb.Message(
                topic=message.topic, queue_id=message.queue_id, body=message.body, properties=message.properties
            ),
            queue_offset=h.queue_offset,
            store_timestamp=stored_at,
            delivery_attempt=h.attempt,
            receipt_handle=h.encode(),
            invisible_until_millis=h.deadline_ms,
            body_digest=body_digest(message.body),
        )
    return response


def _dead_letter_copy(store: MessageStore, handle: ReceiptHandle, group: str) -> list[Message]:
    """The dead-letter copy of the message `handle` delivered (none when retention removed it meanwhile)."""
    try:
        found = store.consume(handle.topic, handle.queue_id, handle.queue_offset, 1)
    except OffsetTooSmall:
        return []
    return [dead_letter(m, handle.attempt, dlq_topic(group), _now_ms()) for o, m in found if o == handle.queue_offset]


def _escaped_of(state: ConsumerState, group: str, topic: str) -> dict[tuple[str, str, int], int]:
    """How many of `group`'s changes (of `topic`, "" for all) this master holds for each other set, per (home,
    topic, queue id)."""
    counts: dict[tuple[str, str, int], int] = {}
    for home, held in state.escaped.items():
        for e in held.values():
            if isinstance(e.change, TimerDelivered):
                continue
            key = e.change.queue
            if key.group == group and topic in ("", key.topic):
                at = (home, key.topic, key.queue_id)
                counts[at] = counts.get(at, 0) + 1
    return counts


def _keys(state: ConsumerState) -> Iterable[QueueKey]:
    return itertools.chain(state.offsets, state.queues)


def _stored_at(store: MessageStore, topic: str, queue_id: int, offset: int, min_offset: int) -> int:
    """The store time of the message at `offset`, 0 if there is none (before the queue's first readable one)."""
    if offset < min_offset:
        return 0
    try:
        found = store.consume(topic, queue_id, offset, 1)
    except OffsetTooSmall:
        return 0
    return found[0][1].store_timestamp if found else 0


def _ack_result(handle: str, code: PopCode, remark: str) -> pb.AckResult:
    return pb.AckResult(receipt_handle=handle, code=remoting_code(code), pop_code=code, remark=remark)


def _now_ms() -> int:
    return int(time.time() * 1000)
