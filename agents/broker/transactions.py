"""TransactionBook: one broker set's open transactions, their ends, and their check-backs (Java's
``TransactionalMessageService`` and ``TransactionalMessageCheckService``).

A transaction ends like any consumer change (``consumer_ledger``): a commit's copy in its real topic and the
``TransactionEnded`` record go in one put, so a new master holds both or neither, and the state its log rebuilds
says which transactions ended, and how the latest ended, so an end is idempotent across failovers: the first end
stands, and a later one writes nothing: it answers SUCCESS when it asks what happened (or that is no longer kept),
else MESSAGE_ILLEGAL saying what stood (``half.end_conflict``: a COMMIT after a check-back's ROLLBACK did not
happen, and its producer is told). Two ends of one transaction in flight at once share the first one's put and its
outcome, or that conflict.

Check-backs: each pass (``deliver_due``, run by a ``delays.TimerDelivery`` thread) reads the confirmed half messages
on from where it stopped, plans what is due (``agents.transaction.checks``), stores a ``TransactionChecked`` record
for those checked and drops those checked too often (a copy to ``TRANS_CHECK_MAX_TIME_TOPIC`` and a
``TransactionEnded`` DROPPED, in one put), and leaves each check-back in the outbox, from which an access point
with a producer of its topic takes it (`take_checks`) and asks that producer. Like the timer, the passes refuse on
a replica that is not master, so the checks follow the master role.

RIP-32: a replica acting as its set's read-only master ends and checks back too; its records escape to another
set's master with the commit's copy (``consumer_ledger``), and the set's next master takes the ends back at its
pre-online (``agents.consumer.pre_online``), so a committed message is stored once and a rollback stays one. An
acting replica drops nothing: the drop's copy has no set to go to, so the next master drops it.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from agents.broker.api import CheckBack, Checks, Ended, EndRequest
from agents.broker.consumer_checks import Refused
from agents.broker.consumer_ledger import Appended, ConsumerLedger, ServingKey
from agents.broker.pop_service import body_digest
from agents.consumer.records import TransactionChecked, TransactionEnded
from agents.consumer.state import ConsumerState
from agents.metadata import UNIQ_KEY
from agents.store.commitlog import OffsetTooSmall
from agents.store.message_store import MessageStore
from agents.store.record import Message
from agents.transaction import checks
from agents.transaction.half import (
    CHECK_MAX_TOPIC,
    HALF_TOPIC,
    Resolution,
    TransactionRef,
    committed,
    decode_id,
    dropped,
    end_conflict,
    immunity_ms,
    real_queue,
)
from mqbase.clock import wall_ms
from mqbase.codes import ResponseCode

log = logging.getLogger(__name__)

SCAN = 1024
"""At most this many half messages are read per pass, so a long backlog holds the lock in short turns."""
NOT_FOUND = (
    "transaction {id} is not one of this broker set's (no half message of message {message} in topic {topic} "
    "there): check the id the send returned"
)


@dataclass(slots=True)
class TransactionCounts:
    """What this replica did as master since the agent started, for the metrics."""

    committed: int = 0
    rolled_back: int = 0
    dropped: int = 0
    checked: int = 0
    """Check-backs issued (each counts toward ``transactionCheckMax``, taken by a producer or not)."""


@dataclass(frozen=True, slots=True)
class OpenTransaction:
    """An open transaction as ``transactionStatus`` shows it."""

    transaction_id: str
    topic: str
    message_id: str
    stored_ms: int
    checks: int


class TransactionBook:
    """See the module docstring."""

    def __init__(self, ledger: ConsumerLedger) -> None:
        self._ledger = ledger
        self._for: ServingKey | None = None  # the served state the tables below were read for
        self._open: dict[int, checks.OpenHalf] = {}  # half offset -> open half, of those read
        self._read = 0  # the next half queue offset to read
        self._last_checked: dict[int, int] = {}  # half offset -> when this master last checked it (ms)
        self._outbox: dict[int, CheckBack] = {}  # half offset -> its check-back, until an access point takes it
        self._ending: dict[int, _Ending] = {}  # half offset -> the outcome of its end in flight
        self.counts = TransactionCounts()

    @property
    def open_count(self) -> int:
        """The open transactions this master has read (half messages waiting for their end)."""
        return len(self._open)

    @property
    def _name(self) -> str:
        return self._ledger.name

    def _policy(self) -> checks.CheckPolicy:
        c = self._ledger.host.config
        return checks.CheckPolicy(c.transaction_check_interval, c.transaction_check_max)

    # --- ends ------------------------------------------------------------------------------------

    def end(self, request: EndRequest) -> Ended:
        """Commit or roll back the transaction `request` names, once (see the module docstring)."""
        ledger = self._ledger
        try:
            ref = decode_id(request.transaction_id)
            if ref is None or ref.broker_name != self._name:
                raise Refused(ResponseCode.MESSAGE_ILLEGAL, self._not_found(request))
            with ledger.lock:
                replica, state = ledger.ready()
                found = _half_at(replica.store, ref.half_offset)
                half = found[1] if found is not None and found[0] == ref.commit_log_offset else None
                if (
                    half is None
                    or half.properties.get(UNIQ_KEY) != request.message_id
                    or ((real_queue(half) or ("", 0))[0] != request.topic)
                ):
                    raise Refused(ResponseCode.MESSAGE_ILLEGAL, self._not_found(request))
                if request.resolution is None:
                    return Ended(ResponseCode.SUCCESS, "the transaction stays open: it is checked back later")
                ending, mine = self._ending.get(ref.half_offset), False
                if ending is None:
                    if state.transactions.done(ref.half_offset):
                        _refuse_conflict(request, state.resolutions.get(ref.half_offset))
                        return Ended(ResponseCode.SUCCESS, "the transaction was ended before; the first end stands")
                    ending, mine = self._start_end(state, ref.half_offset, half, request.resolution), True
            if mine:
                self._settle(ref.half_offset, ending)
            ending.wait()
            _refuse_conflict(request, ending.resolution)
            if mine and request.from_check:
                log.info("%s: transaction %s ended by its check-back: %s", self._name, request.transaction_id,
                         request.resolution.name)  # fmt: skip
            return Ended(ResponseCode.SUCCESS)
        except Refused as exc:
            return Ended(exc.code, str(exc), ledger.master_address(exc))

    def _not_found(self, request: EndRequest) -> str:
        return NOT_FOUND.format(id=request.transaction_id or '""', message=request.message_id, topic=request.topic)

    def _start_end(self, state: ConsumerState, offset: int, half: Message, resolution: Resolution) -> _Ending:
        """Append the end's record, with the commit's copy (caller holds the lock)."""
        copy = committed(half, wall_ms(self._ledger.clock)) if resolution is Resolution.COMMIT else None
        appended = self._ledger.append(state, [TransactionEnded((offset,), resolution)], [copy] if copy else [])
        ending = self._ending[offset] = _Ending(appended, resolution)
        self._outbox.pop(offset, None)
        return ending

    def _settle(self, offset: int, ending: _Ending) -> None:
        try:
            self._ledger.settle(ending.appended)
        except Refused as exc:
            ending.refused = exc
        finally:
            with self._ledger.lock:
                self._ending.pop(offset, None)
            ending.settled.set()
        if ending.refused is None:
            if ending.resolution is Resolution.COMMIT:
                self.counts.committed += 1
            else:
                self.counts.rolled_back += 1
            self._ledger.wake()  # a committed copy: long-polling receives look again

    # --- check-backs -----------------------------------------------------------------------------

    def deliver_due(self, now_ms: int) -> int | None:
        """One check pass at `now_ms` (see the module docstring): the earliest time something is due next (`now_ms`
        when more is to read or do at once, None when no transaction is open). `Refused` on a replica that is not
        master, or when the put fails."""
        ledger = self._ledger
        with ledger.lock:
            replica, state = ledger.ready()
            store = replica.store
            complete, gone = self._read_queue(store, state)
            for offset in [o for o in self._open if state.transactions.done(o)]:
                self._forget(offset)
            policy = self._policy()
            plan = checks.plan(self._open, state.transactions, state.checks, self._last_checked, now_ms, policy)
            if ledger.acting:  # a drop's copy has no set to go to: the set's next master drops it
                self._last_checked.update((o, now_ms) for o in plan.drop)  # and this replica looks again later
                plan, gone = checks.Plan(plan.check), []
            if not plan.check and not plan.drop and not gone:
                return (
                    checks.next_due(self._open, state.transactions, self._last_checked, policy) if complete else now_ms
                )
            changes: list[TransactionChecked | TransactionEnded] = []
            copies: list[Message] = []
            if plan.check:
                changes.append(TransactionChecked(plan.check))
            drops = tuple(sorted({*plan.drop, *gone}))
            if drops:
                changes.append(TransactionEnded(drops, Resolution.DROPPED))
                copies += (dropped(found[1], now_ms) for o in plan.drop if (found := _half_at(store, o)) is not None)
                log.warning("%s: %d transaction(s) dropped (to %s after %d check-backs without an answer, or deleted "
                            "by retention): half queue offsets %s", self._name, len(drops), CHECK_MAX_TOPIC,
                            policy.max_checks, list(drops)[:10])  # fmt: skip
            appended = ledger.append(state, changes, copies)
            for offset in drops:
                self._forget(offset)
            asks: dict[int, CheckBack] = {}
            for offset in plan.check:
                self._last_checked[offset] = now_ms
                found = _half_at(store, offset)
                copy = committed(found[1], found[1].store_timestamp) if found is not None else None
                if found is not None and copy is not None:
                    ref = TransactionRef(self._name, offset, found[0]).encode()
                    asks[offset] = CheckBack(ref, copy, body_digest(copy.body))
            serving = ledger.serving
        ledger.settle(appended)
        with ledger.lock:  # only a counted check-back is asked, and only while this state is served
            if ledger.serving == serving:
                ended = ledger.ready()[1].transactions  # an end may have come meanwhile
                self._outbox.update((o, c) for o, c in asks.items() if not ended.done(o))
        self.counts.checked += len(plan.check)
        self.counts.dropped += len(drops)
        return now_ms

    def _forget(self, offset: int) -> None:
        self._open.pop(offset, None)
        self._last_checked.pop(offset, None)
        self._outbox.pop(offset, None)

    def _read_queue(self, store: MessageStore, state: ConsumerState) -> tuple[bool, list[int]]:
        """Read the half messages confirmed since the last pass (caller holds the lock): False when `SCAN` were
        read and more wait; and the open ones retention deleted before they were read (at most a batch)."""
        if self._for != self._ledger.serving:  # a new master: read its half queue afresh, check what is due at once
            self._for, self._read = self._ledger.serving, state.transactions.floor
            self._open, self._last_checked, self._outbox = {}, {}, {}
        low, high = store.queue_range(HALF_TOPIC, 0)
        floor = state.transactions.floor
        gone = [o for o in range(floor, min(low, floor + SCAN)) if not state.transactions.done(o)]
        start = max(self._read, low)
        try:
            found = store.consume(HALF_TOPIC, 0, start, SCAN) if start < high else []
        except OffsetTooSmall:  # retention moved the queue's start meanwhile: the next pass starts there
            return False, gone[: checks.BATCH]
        timeout = self._ledger.host.config.transaction_time_out
        for offset, half in found:
            where = real_queue(half)
            if not state.transactions.done(offset) and where is not None:
                self._open[offset] = checks.OpenHalf(where[0], half.store_timestamp, immunity_ms(half, timeout))
        self._read = found[-1][0] + 1 if found else start
        return not found or self._read >= high, gone[: checks.BATCH]

    def take_checks(self, topics: frozenset[str]) -> Checks:
        """The check-backs waiting for these topics, each handed out once (to the first access point asking)."""
        ledger = self._ledger
        try:
            with ledger.lock:
                ledger.ready()
                taken = [o for o, c in sorted(self._outbox.items()) if c.message.topic in topics][: checks.BATCH]
                return Checks(ResponseCode.SUCCESS, checks=tuple(self._outbox.pop(o) for o in taken))
        except Refused as exc:
            return Checks(exc.code, str(exc))

    def open_transactions(self, topic: str) -> tuple[OpenTransaction, ...]:
        """The open transactions of `topic` on this master, oldest first (``transactionStatus``): of every half
        message confirmed (the first `SCAN` more than the check pass read so far)."""
        with self._ledger.lock:
            replica, state = self._ledger.ready()
            store = replica.store
            self._read_queue(store, state)
            out: list[OpenTransaction] = []
            for offset, half in sorted(self._open.items()):
                if half.topic != topic or state.transactions.done(offset):
                    continue
                found = _half_at(store, offset)
                if found is not None:
                    ref = TransactionRef(self._name, offset, found[0]).encode()
                    message_id = found[1].properties.get(UNIQ_KEY, "")
                    out.append(OpenTransaction(ref, topic, message_id, half.stored_ms, state.checks.get(offset, 0)))
            return tuple(out)


@dataclass(slots=True)
class _Ending:
    """An end in flight: its put, settled by the request that made it, waited for by any repeat meanwhile."""

    appended: Appended
    resolution: Resolution
    settled: threading.Event = field(default_factory=threading.Event)
    refused: Refused | None = None

    def wait(self) -> None:
        self.settled.wait()
        if self.refused is not None:
            raise Refused(self.refused.code, str(self.refused))


def _refuse_conflict(request: EndRequest, stood: Resolution | None) -> None:
    """`Refused` MESSAGE_ILLEGAL when the end that stood (`stood`) is not what `request` asks."""
    assert request.resolution is not None
    if conflict := end_conflict(stood, request.resolution):
        raise Refused(ResponseCode.MESSAGE_ILLEGAL, f"transaction {request.transaction_id} {conflict}")


def _half_at(store: MessageStore, offset: int) -> tuple[int, Message] | None:
    """(commit-log offset, half message) at `offset` of the half queue, if it is confirmed and still stored."""
    entries = store.queue_entries(HALF_TOPIC, 0, offset, 1)
    if not entries or entries[0][0] != offset:
        return None
    found = store.message_at(entries[0][1])
    return (entries[0][1], found[1]) if found is not None else None
