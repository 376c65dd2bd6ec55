"""The leader's single writer: decides requests in order and commits their events through Raft.

One thread drains a queue of requests. For each batch it computes every
request against a *speculative* state (the committed state plus the events
of the earlier requests in the batch), appends all the batch's events as one
Raft entry (group commit: one round trip for a storm of 1000 elections), and
answers every request once that entry is applied here. Reads ride the same
queue, so a read never overtakes a write that was answered before it.

A batch without events whose answers a broker may act on for safety (the
transfer lease question, roles, ``controller.reads``) commits an empty entry
first, and every such answer is given only when an entry committed after it was
decided confirms that this node is still the leader of the term it decided in:
a deposed leader that does not know it yet refuses instead of answering from
old state. Plain reads (``getSyncStateSet``) are answered at once.

Before serving in a new term the leader commits an empty entry (RocketMQ's
barrier): once it is applied, every entry of earlier terms is applied too, so
the leader decides against complete state.

What a decision reads (liveness, the clock) is read here on the leader and
only the resulting events are logged, so followers never re-decide.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from controller.events import Event
from controller.model import AliveView, Clock
from controller.raft import RaftNode
from controller.reads import may_answer, needs_barrier
from controller.requests import Request, Result
from controller.state import apply_events, compute
from controller.transfer import too_late
from mqbase.codes import NOT_LEADER_REMARK
from mqbase.codes import ResponseCode as C

log = logging.getLogger(__name__)

COMMIT_TIMEOUT_S = 5.0
"""How long a request waits for its entry to commit (Java's WAIT_TIMEOUT_OUT)."""
MAX_BATCH = 2048

ResultListener = Callable[[Request, Result[Any]], None]


@dataclass(slots=True)
class _Pending:
    request: Request
    future: Future[Result[Any]]


def not_leader() -> Result[Any]:
    return Result(C.CONTROLLER_NOT_LEADER, NOT_LEADER_REMARK)


def _answer(future: Future[Result[Any]], result: Result[Any]) -> None:
    """Resolve a request's future; a caller that gave up (deadline, disconnect) cancelled it already."""
    if not future.set_running_or_notify_cancel():
        return
    future.set_result(result)


def _unconfirmed(reason: str) -> Result[Any]:
    """The refusal of an answer whose leadership could not be confirmed: NOT_LEADER sends the caller on."""
    return Result(
        C.CONTROLLER_NOT_LEADER,
        f"this node could not confirm with a quorum that it is still the leader ({reason}); "
        "not answering from possibly stale state",
    )


class Proposer:
    """Serialises decisions on the leader; answers NOT_LEADER elsewhere."""

    def __init__(
        self,
        raft: RaftNode,
        alive: Callable[[], AliveView],
        allow_unclean: Callable[[], bool],
        preferred_master: Callable[[], bool] = lambda: False,
        *,
        clock: Clock,
        master_grace: Callable[[], bool] = lambda: False,
    ) -> None:
        self._raft = raft
        self._clock = clock
        self._alive = alive
        self._allow_unclean = allow_unclean
        self._preferred_master = preferred_master
        self._master_grace = master_grace
        self._queue: queue.Queue[_Pending | None] = queue.Queue()
        self._ready_term: int | None = None
        self._listeners: list[ResultListener] = []
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="proposer", daemon=True)

    def add_listener(self, listener: ResultListener) -> None:
        """Call `listener(request, result)` on the proposer thread after each answered request."""
        self._listeners.append(listener)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop deciding; requests still queued are answered NOT_LEADER so clients go elsewhere."""
        self._stopped.set()
        self._queue.put(None)
        if self._thread.is_alive():
            self._thread.join(timeout=COMMIT_TIMEOUT_S + 1)
        self._drain_with(not_leader())

    @property
    def serving(self) -> bool:
        """True when this node is leader and has passed the barrier of its term."""
        return self._raft.is_leader() and self._ready_term == self._raft.term()

    def submit(self, request: Request) -> Future[Result[Any]]:
        """Queue a request; the future resolves to its Result (NOT_LEADER off the leader)."""
        future: Future[Result[Any]] = Future()
        if self._stopped.is_set() or not self._raft.is_leader():
            future.set_result(not_leader())
        else:
            self._queue.put(_Pending(request, future))
        return future

    # --- the writer thread ----------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                self._step()
            except Exception:  # keep the writer alive; the failed batch was answered
                log.exception("proposer step failed")

    def _step(self) -> None:
        if not self._raft.is_leader():
            self._ready_term = None
            self._drain_with(not_leader())
            self._stopped.wait(0.01)
            return
        term = self._raft.term()
        if self._ready_term != term:
            if self._commit(()) is None:
                self._ready_term = term
                log.info("leader barrier committed in term %d; serving", term)
            else:
                self._stopped.wait(0.05)
            return
        batch = self._take_batch()
        if batch:
            self._decide(batch, term)

    def _take_batch(self) -> list[_Pending]:
        try:
            first = self._queue.get(timeout=0.05)
        except queue.Empty:
            return []
        batch = [first] if first is not None else []
        while len(batch) < MAX_BATCH:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                batch.append(item)
        return batch

    def _decide(self, batch: list[_Pending], term: int) -> None:
        """Decide `batch` as the leader of `term` (its barrier is committed), commit, answer."""
        speculative = self._raft.state
        alive = self._alive()
        unclean = self._allow_unclean()
        preferred = self._preferred_master()
        grace = self._master_grace()
        results: list[Result[Any]] = []
        events: list[Event] = []
        for pending in batch:
            try:
                result = too_late(pending.request, self._clock()) or compute(
                    speculative,
                    pending.request,
                    alive,
                    allow_unclean=unclean,
                    preferred_master=preferred,
                    master_grace=grace,
                )
            except Exception as exc:  # a bug must not take the batch down with it
                log.exception("compute failed for %r", pending.request)
                result = Result(C.SYSTEM_ERROR, f"internal error: {exc}")
            speculative = apply_events(speculative, result.events)
            events.extend(result.events)
            results.append(result)
        confirmed_in: int | None = None
        refusal = _unconfirmed("the term changed while its entry committed")
        if events or needs_barrier((p.request for p in batch), bool(events)):
            failure = self._commit(tuple(events))
            if failure is None:
                confirmed_in = self._raft.term()
            else:
                self._ready_term = None  # re-establish the barrier before deciding again
                refusal = failure if events else _unconfirmed(failure.remark)
                if events:  # later answers in the batch were decided on top of the lost events: fail them all
                    results = [failure] * len(batch)
        for pending, result in zip(batch, results, strict=True):
            if not may_answer(pending.request, term, confirmed_in):
                result = refusal
            _answer(pending.future, result)
            for listener in self._listeners:
                try:
                    listener(pending.request, result)
                except Exception:
                    log.exception("result listener failed")

    def _commit(self, events: tuple[Event, ...]) -> Result[Any] | None:
        """Commit one entry; None on success, else the Result to answer with."""
        done = threading.Event()
        outcome: list[tuple[bool, str]] = []

        def callback(ok: bool, reason: str) -> None:
            outcome.append((ok, reason))
            done.set()

        self._raft.commit(events, callback)
        if not done.wait(COMMIT_TIMEOUT_S):
            return Result(C.SYSTEM_ERROR, f"Raft commit not confirmed within {COMMIT_TIMEOUT_S:.0f} s; outcome unknown")
        ok, reason = outcome[0]
        if ok:
            return None
        log.info("Raft commit failed: %s", reason)
        return not_leader()

    def _drain_with(self, result: Result[Any]) -> None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item is not None:
                _answer(item.future, result)
