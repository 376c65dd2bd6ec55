"""What a chaos run records: plain, immutable facts that the invariant checkers read (no I/O here).

The harness fills a ``History`` while the run goes on (``Recorder`` is its thread-safe front) and at the
end (final logs, replica files, controller states); ``invariants.py`` only reads it, so the checkers can be
tested with hand-made histories.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from agents.consumer.state import ConsumerState
from tests.harness.consumer_ledger import Ledger


@dataclass(frozen=True, slots=True)
class Ack:
    """A send the producer saw acknowledged (PUT_OK)."""

    broker_set: str
    payload: str
    broker_id: int
    broker_address: str
    master_epoch: int
    queue_id: int
    queue_offset: int
    commit_log_offset: int
    at: float


@dataclass(frozen=True, slots=True)
class DelayedSend:
    """A delayed send (``TIMER_DELIVER_MS``): not an `Ack`, since its placement is in the timer topic, not in the
    topic the other invariants check acks against; `acked` is False for a send with no clear answer, which may be
    stored (and then delivered) or not."""

    broker_set: str
    payload: str
    due_ms: int
    """The delivery time asked for (epoch ms): no copy may be stored in the topic before it."""
    acked: bool


@dataclass(frozen=True, slots=True)
class TransactionSend:
    """A transactional send (its half message) and what its producer decided: `commit` True commits it, False rolls
    it back, whether by the producer's own end or by its answer to a check-back (`ends` False: the producer
    "crashed" before its end, so only a check-back resolves it). A half not acknowledged (`acked` False) may be
    stored or not: its producer never ran its local transaction, so it answers a check-back with a rollback."""

    broker_set: str
    payload: str
    acked: bool
    commit: bool
    ends: bool
    transaction_id: str | None


@dataclass(frozen=True, slots=True)
class TransactionEnd:
    """An EndTransaction asked, by the producer or by its answer to a check-back (`from_check`), and its outcome
    (`code` None: no answer in time); `asked_ms` is epoch ms, the store timestamps' clock."""

    broker_set: str
    payload: str
    commit: bool
    from_check: bool
    asked_ms: int
    asked_at: float
    """The same moment on ``time.monotonic``, the consumer's clock."""
    code: int | None


@dataclass(frozen=True, slots=True)
class Seen:
    """A message a consumer read during the run."""

    broker_set: str
    queue_id: int
    queue_offset: int
    payload: str
    node: str
    at: float


@dataclass(frozen=True, slots=True)
class RoleChange:
    """A role change an agent logged ("<cluster>/<set>: broker <id> is <role> in epoch <e> (master <id>)")."""

    broker_set: str
    broker_id: int
    role: str
    epoch: int
    node: str


@dataclass(frozen=True, slots=True)
class ControllerView:
    """What one controller node said about one broker set (live poll) or held after one log entry (offline)."""

    node: str
    broker_set: str
    master_epoch: int
    sync_state_set_epoch: int
    master_id: int | None
    sync_state_set: tuple[int, ...]
    seq: float
    """Time of the poll, or the Raft index for views rebuilt from a node's journal."""
    source: str = "poll"


@dataclass(frozen=True, slots=True)
class LeaseAnswer:
    """A controller node's SUCCESS answer to GetReplicaInfo, the question a master asks before it resumes writes
    after a transfer's pause (and every broker's periodic poll); times are the poller's ``time.monotonic``."""

    node: str
    broker_set: str
    master_epoch: int
    master_id: int | None
    asked_at: float
    answered_at: float


@dataclass(frozen=True, slots=True)
class FinalLog:
    """A broker set's messages as the final master serves them, and its commit log decoded from disk."""

    master_node: str
    at_queue_offset: dict[tuple[int, int], str]
    """(queue id, queue offset) → payload, from PullMessage on the final master."""
    at_commit_log_offset: dict[int, str]
    """commit-log offset → payload of every record in the final master's log on disk."""
    stored_ms: dict[tuple[int, int], int] = field(default_factory=dict)
    """(queue id, queue offset) → the message's store timestamp (epoch ms), from the same PullMessage answers."""


@dataclass(frozen=True, slots=True)
class ReplicaFiles:
    """One replica's state on disk after healing."""

    node: str
    broker_id: int
    is_master: bool
    confirm_offset: int
    min_offset: int
    log: bytes
    """The commit log from ``min_offset`` up to its max offset."""
    epochs: tuple[tuple[int, int], ...]
    """(epoch, start offset) entries of the epoch file."""


@dataclass(frozen=True, slots=True)
class ActingEpisode:
    """A scripted RIP-32 episode: while `broker_set` had no master, the replica in `node` acted for it from
    `from_ms` until the scenario healed the faults at `to_ms` (epoch ms, the clock of the ledgers' answers)."""

    broker_set: str
    node: str
    from_ms: int
    to_ms: int


@dataclass(frozen=True, slots=True)
class Fault:
    """One injected fault (or heal), as printed and counted."""

    at: float
    kind: str
    target: str
    detail: str = ""


@dataclass
class History:
    acks: list[Ack] = field(default_factory=list)
    delayed: list[DelayedSend] = field(default_factory=list)
    """Every delayed send, acknowledged or not (never in `acks`)."""
    transactions: list[TransactionSend] = field(default_factory=list)
    """Every transactional send, its half acknowledged or not (never in `acks`)."""
    transaction_ends: list[TransactionEnd] = field(default_factory=list)
    open_transactions: dict[str, list[str]] = field(default_factory=dict)
    """broker set → the transaction ids its final master still listed open when the check bound after healing ran
    out (each a violation of invariant 9)."""
    transactions_wait_s: float = 0.0
    """How long the final masters took, after healing, to have no open transaction."""
    seen: list[Seen] = field(default_factory=list)
    role_changes: list[RoleChange] = field(default_factory=list)
    controller_views: list[ControllerView] = field(default_factory=list)
    lease_answers: list[LeaseAnswer] = field(default_factory=list)
    final_logs: dict[str, FinalLog] = field(default_factory=dict)
    replicas: dict[str, list[ReplicaFiles]] = field(default_factory=dict)
    controller_states: dict[str, dict[str, ControllerView]] = field(default_factory=dict)
    """node → broker set → that node's final view (rebuilt offline from its journal and snapshot)."""
    groups: dict[str, Ledger] = field(default_factory=dict)
    """broker set → what the consumer group's client was told there (sends PUT_OK, deliveries, acks)."""
    consumer_states: dict[str, ConsumerState] = field(default_factory=dict)
    """broker set → the consumer state its final master's files rebuild to (snapshot and log, read offline)."""
    faults: list[Fault] = field(default_factory=list)
    acting: list[ActingEpisode] = field(default_factory=list)
    """The acting-master episodes a scripted run saw (the random schedule has none: acting is off there)."""
    send_attempts: int = 0
    send_failures: dict[str, int] = field(default_factory=dict)
    drain_s: float = 0.0
    """How long the consumer group took to ack what was left after healing."""
    delayed_wait_s: float = 0.0
    """How long reading the final logs took, waiting for the last delayed messages to be delivered."""
    group_failures: dict[str, int] = field(default_factory=dict)
    """Consumer-group requests refused with a code no retry changes, by request and code (not violations)."""
    notes: list[str] = field(default_factory=list)
    """Things that are not invariant violations but explain a run (a set that did not converge in time, ...)."""


class Recorder:
    """Thread-safe appends to a ``History`` from the producer, consumer, poller and fault threads."""

    def __init__(self, history: History) -> None:
        self.history = history
        self._lock = threading.Lock()

    def ack(self, ack: Ack) -> None:
        with self._lock:
            self.history.acks.append(ack)
            self.history.send_attempts += 1

    def delayed(self, send: DelayedSend, status: str) -> None:
        """A delayed send and its outcome (`status` counts as a failure unless the send was acknowledged)."""
        with self._lock:
            self.history.delayed.append(send)
            self.history.send_attempts += 1
            if not send.acked:
                self.history.send_failures[status] = self.history.send_failures.get(status, 0) + 1

    def transaction(self, send: TransactionSend, status: str) -> None:
        """A transactional send and its half's outcome (`status` counts as a failure unless it was acknowledged)."""
        with self._lock:
            self.history.transactions.append(send)
            self.history.send_attempts += 1
            if not send.acked:
                self.history.send_failures[status] = self.history.send_failures.get(status, 0) + 1

    def transaction_end(self, end: TransactionEnd) -> None:
        with self._lock:
            self.history.transaction_ends.append(end)

    def failed_send(self, status: str) -> None:
        with self._lock:
            self.history.send_attempts += 1
            self.history.send_failures[status] = self.history.send_failures.get(status, 0) + 1

    def seen(self, items: list[Seen]) -> None:
        with self._lock:
            self.history.seen.extend(items)

    def group_ledger(self, broker_set: str) -> Ledger:
        """The set's consumer-group ledger (appends to it are thread-safe on their own)."""
        with self._lock:
            return self.history.groups.setdefault(broker_set, Ledger())

    def failed_group_request(self, what: str) -> None:
        with self._lock:
            self.history.group_failures[what] = self.history.group_failures.get(what, 0) + 1

    def controller_view(self, view: ControllerView) -> None:
        with self._lock:
            self.history.controller_views.append(view)

    def lease_answer(self, answer: LeaseAnswer) -> None:
        with self._lock:
            self.history.lease_answers.append(answer)

    def fault(self, fault: Fault) -> None:
        with self._lock:
            self.history.faults.append(fault)

    def acting(self, episode: ActingEpisode) -> None:
        with self._lock:
            self.history.acting.append(episode)

    def note(self, text: str) -> None:
        with self._lock:
            self.history.notes.append(text)
