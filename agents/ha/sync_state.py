"""The master's SyncStateSet, confirmOffset and acknowledgement rules (Java's ``AutoSwitchHAService``). Pure.

The master keeps two sets:

* ``local`` — the SyncStateSet the controller confirmed (with its epoch);
* ``proposed`` — a change reported with AlterSyncStateSet and not yet confirmed.

While a proposal is pending the set is "synchronizing": acknowledgements are
counted against ``local ∪ proposed`` and the in-sync size is the larger of the
two, so neither a shrink nor an expand can make a write count as replicated
by fewer brokers than the set that will be in force (RocketMQ #5663). A
proposal becomes ``local`` only when the controller confirms it (#6662,
#6728 explain the losses when Java applied it early).

A proposal that is refused or never answered is dropped, but the members it
added stay counted (``unsure``) until the controller's set is known again
(``confirm``): the controller may have committed the expand and lost only
the answer, and could then elect a member that lacks writes confirmed
without it.

confirmOffset is the lowest acknowledged offset over the set and never moves
backwards; while any member is disconnected it stays where it is. Which of the
two modes applies, and when an unanswered proposal is dropped, are decided here
too (``next_confirm_offset``, ``proposal_expired``); ``HAMaster`` passes its clock in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import Enum

PROPOSAL_TIMEOUT_S = 10.0
"""How long a SyncStateSet proposal may wait for the controller's answer before it is abandoned."""


@dataclass(frozen=True, slots=True)
class SlaveProgress:
    """What the master knows about one connected slave."""

    broker_id: int
    ack_offset: int = -1
    last_caught_up: float = 0.0
    async_learner: bool = False


@dataclass(frozen=True, slots=True)
class SyncState:
    """The master's view of its SyncStateSet."""

    self_id: int
    local: frozenset[int]
    sync_state_set_epoch: int
    proposed: frozenset[int] | None = None
    unsure: frozenset[int] = frozenset()
    """Members a dropped proposal added: perhaps in the controller's set, until a set from it says."""

    @property
    def synchronizing(self) -> bool:
        return self.proposed is not None

    @property
    def unsettled(self) -> bool:
        """A dropped proposal left members ``unsure`` and none is pending: the controller's current set, even at
        this epoch, settles them (a pending proposal waits for its own answer instead)."""
        return bool(self.unsure) and self.proposed is None

    def effective(self) -> frozenset[int]:
        """The set acknowledgements are counted against: local ∪ proposed while synchronizing, and ∪ unsure."""
        pending = self.proposed if self.proposed is not None else frozenset()
        return self.local | pending | self.unsure

    def in_sync_count(self) -> int:
        """Members for the minInSyncReplicas check: the larger of the two sets while synchronizing."""
        return max(len(self.local), len(self.proposed)) if self.proposed is not None else len(self.local)

    def propose(self, new_set: frozenset[int]) -> SyncState:
        """Mark a change as sent to the controller (the base is always ``local``)."""
        return replace(self, proposed=frozenset(new_set | {self.self_id}))

    def confirm(self, new_set: frozenset[int], sync_state_set_epoch: int) -> SyncState:
        """The controller confirmed (or pushed) a set: it becomes ``local`` and the proposal is done."""
        if sync_state_set_epoch < self.sync_state_set_epoch:
            return self
        return replace(
            self, local=frozenset(new_set), sync_state_set_epoch=sync_state_set_epoch, proposed=None, unsure=frozenset()
        )

    def abandon(self) -> SyncState:
        """The proposal was refused or went unanswered: keep ``local``, and count what it added as ``unsure``."""
        added = self.proposed - self.local if self.proposed is not None else frozenset()
        return replace(self, proposed=None, unsure=self.unsure | added)


def shrink(
    state: SyncState, slaves: Mapping[int, SlaveProgress], now: float, max_not_catchup_s: float
) -> frozenset[int] | None:
    """The set without members that lag too long or are not connected; None when nothing changes."""
    keep = {
        member
        for member in state.local
        if member == state.self_id or (member in slaves and now - slaves[member].last_caught_up <= max_not_catchup_s)
    }
    return frozenset(keep) if keep != state.local else None


def expand(state: SyncState, slave: SlaveProgress, confirm_offset: int, last_epoch_start: int) -> frozenset[int] | None:
    """The set plus `slave` once it has caught up; None when it does not qualify or is already in.

    A slave qualifies when its ack reaches the confirmOffset and the start of
    the master's current epoch (so it holds every message of this epoch that
    counts as confirmed). Async learners never join.
    """
    if slave.async_learner or slave.broker_id in state.effective():
        return None
    if slave.ack_offset < confirm_offset or slave.ack_offset < last_epoch_start:
        return None
    return state.local | {slave.broker_id}


def confirm_offset(state: SyncState, slaves: Mapping[int, SlaveProgress], max_offset: int, current: int) -> int:
    """The new confirmOffset: min ack over the effective set, never below `current`.

    A member with no connection freezes the value (#6662); a connection that
    has not acknowledged anything yet (ack <= 0) is ignored (#6728).
    """
    candidate = max_offset
    for member in state.effective():
        if member == state.self_id:
            continue
        progress = slaves.get(member)
        if progress is None:
            return current
        if progress.ack_offset > 0:
            candidate = min(candidate, progress.ack_offset)
    return max(current, candidate)


def next_confirm_offset(
    state: SyncState,
    slaves: Mapping[int, SlaveProgress],
    durable: int,
    current: int,
    *,
    all_ack_in_sync_state_set: bool,
) -> int:
    """confirmOffset after a change, never below `current`; `durable` is what a flush on the master made durable.

    With allAckInSyncStateSet off, or an effective set of the master alone, every durable write counts as
    confirmed; otherwise it is ``confirm_offset`` over the set, capped at `durable`.
    """
    if len(state.effective()) <= 1 or not all_ack_in_sync_state_set:
        return max(current, durable)
    return confirm_offset(state, slaves, durable, current)


def proposal_expired(state: SyncState, proposed_at: float, now: float, timeout_s: float = PROPOSAL_TIMEOUT_S) -> bool:
    """True when the pending proposal (made at `proposed_at`) has waited longer than `timeout_s` for the
    controller's answer (a lost RPC): the master abandons it and decides again."""
    return state.synchronizing and now - proposed_at > timeout_s


class PutStatus(Enum):
    """Outcome of a put on the master, as RocketMQ's PutMessageStatus names them (MASTER_TRANSFERRING is ours:
    writes are paused while the master role moves to another replica)."""

    PUT_OK = "PUT_OK"
    FLUSH_SLAVE_TIMEOUT = "FLUSH_SLAVE_TIMEOUT"
    IN_SYNC_REPLICAS_NOT_ENOUGH = "IN_SYNC_REPLICAS_NOT_ENOUGH"
    SLAVE_NOT_AVAILABLE = "SLAVE_NOT_AVAILABLE"
    SERVICE_NOT_AVAILABLE = "SERVICE_NOT_AVAILABLE"
    MASTER_TRANSFERRING = "MASTER_TRANSFERRING"


def admit_put(state: SyncState, min_in_sync_replicas: int) -> PutStatus:
    """Fail fast when the SyncStateSet is smaller than minInSyncReplicas."""
    if state.in_sync_count() < min_in_sync_replicas:
        return PutStatus.IN_SYNC_REPLICAS_NOT_ENOUGH
    return PutStatus.PUT_OK


def acks_satisfied(
    state: SyncState,
    slaves: Mapping[int, SlaveProgress],
    end_offset: int,
    *,
    all_ack_in_sync_state_set: bool,
    in_sync_replicas: int,
) -> bool:
    """True once enough replicas acknowledged the put ending at `end_offset`.

    With allAckInSyncStateSet every member of the effective set (the master
    counts itself) must have acked; otherwise ``inSyncReplicas`` copies in
    total, counting the master and any acknowledging slave.
    """
    acked = {b for b, p in slaves.items() if p.ack_offset >= end_offset}
    if all_ack_in_sync_state_set:
        members = state.effective()
        return all(m == state.self_id or m in acked for m in members)
    return 1 + len(acked) >= in_sync_replicas
