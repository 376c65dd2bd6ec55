"""The master's SyncStateSet, confirmOffset and acknowledgement rules."""

from __future__ import annotations

import pytest

from agents.ha.sync_state import (
    PutStatus,
    SlaveProgress,
    SyncState,
    acks_satisfied,
    admit_put,
    confirm_offset,
    expand,
    next_confirm_offset,
    proposal_expired,
    shrink,
)

MASTER = 1


def state(local: set[int], proposed: set[int] | None = None, epoch: int = 3) -> SyncState:
    return SyncState(MASTER, frozenset(local), epoch, None if proposed is None else frozenset(proposed))


def progress(broker_id: int, ack: int = -1, caught_up: float = 100.0, learner: bool = False) -> SlaveProgress:
    return SlaveProgress(broker_id, ack, caught_up, learner)


# --- synchronizing sets --------------------------------------------------------------------------


def test_a_pending_proposal_counts_acks_against_the_union() -> None:
    s = state({1, 2}).propose(frozenset({1, 2, 3}))
    assert s.synchronizing
    assert s.effective() == frozenset({1, 2, 3})
    assert s.in_sync_count() == 3


def test_a_pending_shrink_keeps_the_removed_member_counted_until_confirmed() -> None:
    s = state({1, 2, 3}).propose(frozenset({1, 2}))
    assert s.effective() == frozenset({1, 2, 3})
    assert s.in_sync_count() == 3


def test_the_proposal_always_contains_the_master() -> None:
    assert state({1, 2}).propose(frozenset({2, 3})).proposed == frozenset({1, 2, 3})


def test_confirmation_replaces_local_and_ends_synchronizing() -> None:
    s = state({1, 2}).propose(frozenset({1, 2, 3})).confirm(frozenset({1, 2, 3}), 4)
    assert (s.local, s.sync_state_set_epoch, s.synchronizing) == (frozenset({1, 2, 3}), 4, False)


def test_a_stale_confirmation_is_ignored() -> None:
    s = state({1, 2}, epoch=5).confirm(frozenset({1}), 4)
    assert (s.local, s.sync_state_set_epoch) == (frozenset({1, 2}), 5)


def test_abandon_keeps_local() -> None:
    s = state({1, 2}).propose(frozenset({1})).abandon()
    assert (s.local, s.synchronizing, s.unsure, s.unsettled) == (frozenset({1, 2}), False, frozenset(), False)


def test_a_dropped_expand_keeps_its_new_member_counted_until_the_controllers_set_is_known() -> None:
    """Fixed (docs/reliability.md, an open item): the controller may have committed the expand and lost only its
    answer; a write confirmed without the new member could then be lost by electing it."""
    s = state({1, 2}).propose(frozenset({1, 2, 3})).abandon()
    assert (s.local, s.unsure, s.unsettled, s.synchronizing) == (frozenset({1, 2}), frozenset({3}), True, False)
    assert s.effective() == frozenset({1, 2, 3})
    slaves = {2: progress(2, ack=500)}
    assert confirm_offset(s, slaves, max_offset=500, current=100) == 100  # 3 not connected: frozen
    assert not acks_satisfied(s, slaves, 500, all_ack_in_sync_state_set=True, in_sync_replicas=1)
    assert expand(s, progress(3, ack=500), confirm_offset=100, last_epoch_start=0) is None  # not proposed twice
    pending = s.propose(frozenset({1}))  # a later proposal: 3 stays counted while it waits, and is not settled
    assert (pending.effective(), pending.unsettled) == (frozenset({1, 2, 3}), False)


@pytest.mark.parametrize(("members", "epoch"), [({1, 2}, 3), ({1, 2, 3}, 4)], ids=["refused", "committed"])
def test_the_controllers_set_settles_the_unsure_members_even_at_the_same_epoch(members: set[int], epoch: int) -> None:
    s = state({1, 2}).propose(frozenset({1, 2, 3})).abandon().confirm(frozenset(members), epoch)
    assert (s.local, s.unsure, s.effective(), s.unsettled) == (frozenset(members), frozenset(), frozenset(members),
                                                                False)  # fmt: skip


def test_a_stale_set_does_not_settle_the_unsure_members() -> None:
    s = state({1, 2}, epoch=5).propose(frozenset({1, 2, 3})).abandon().confirm(frozenset({1, 2}), 4)
    assert s.unsure == frozenset({3})


# --- shrink --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("local", "slaves", "now", "expected"),
    [
        ({1, 2, 3}, {2: progress(2, caught_up=95), 3: progress(3, caught_up=99)}, 100.0, None),
        ({1, 2, 3}, {2: progress(2, caught_up=80), 3: progress(3, caught_up=99)}, 100.0, {1, 3}),
        ({1, 2, 3}, {3: progress(3, caught_up=99)}, 100.0, {1, 3}),
        ({1, 2, 3}, {}, 100.0, {1}),
        ({1}, {}, 100.0, None),
        ({1, 2}, {2: progress(2, caught_up=90)}, 100.0, None),
    ],
    ids=["all_caught_up", "lagging_too_long", "disconnected", "all_gone", "master_alone", "exactly_at_limit"],
)
def test_shrink(local: set[int], slaves: dict[int, SlaveProgress], now: float, expected: set[int] | None) -> None:
    assert shrink(state(local), slaves, now, max_not_catchup_s=10.0) == expected


# --- expand --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ack", "confirm", "epoch_start", "expected"),
    [
        (500, 500, 400, {1, 2, 3}),
        (499, 500, 400, None),
        (500, 300, 600, None),
        (700, 300, 600, {1, 2, 3}),
    ],
    ids=["caught_up", "below_confirm", "below_epoch_start", "past_both"],
)
def test_expand(ack: int, confirm: int, epoch_start: int, expected: set[int] | None) -> None:
    assert expand(state({1, 2}), progress(3, ack), confirm, epoch_start) == expected


def test_an_async_learner_never_joins() -> None:
    assert expand(state({1, 2}), progress(3, 10_000, learner=True), 0, 0) is None


def test_a_member_or_pending_member_is_not_added_twice() -> None:
    assert expand(state({1, 2}), progress(2, 900), 0, 0) is None
    assert expand(state({1, 2}, proposed={1, 2, 3}), progress(3, 900), 0, 0) is None


# --- confirmOffset -------------------------------------------------------------------------------


def test_confirm_offset_is_the_lowest_ack_in_the_set() -> None:
    slaves = {2: progress(2, 800), 3: progress(3, 650), 4: progress(4, 10)}
    assert confirm_offset(state({1, 2, 3}), slaves, max_offset=1000, current=500) == 650


def test_confirm_offset_never_moves_backwards() -> None:
    slaves = {2: progress(2, 300)}
    assert confirm_offset(state({1, 2}), slaves, max_offset=1000, current=500) == 500


def test_a_disconnected_member_freezes_the_confirm_offset() -> None:
    slaves = {2: progress(2, 900)}
    assert confirm_offset(state({1, 2, 3}), slaves, max_offset=1000, current=500) == 500


def test_a_member_that_has_not_acked_yet_is_ignored() -> None:
    slaves = {2: progress(2, 900), 3: progress(3, 0)}
    assert confirm_offset(state({1, 2, 3}), slaves, max_offset=1000, current=500) == 900


def test_a_master_alone_confirms_its_max_offset() -> None:
    assert confirm_offset(state({1}), {}, max_offset=1000, current=500) == 1000


def test_a_pending_member_counts_for_the_confirm_offset() -> None:
    slaves = {2: progress(2, 900), 3: progress(3, 700)}
    assert confirm_offset(state({1, 2}, proposed={1, 2, 3}), slaves, 1000, 500) == 700


@pytest.mark.parametrize(
    ("sync", "slaves", "all_ack", "durable", "current", "expected"),
    [
        pytest.param(state({1, 2}), {2: progress(2, 300)}, False, 1000, 500, 1000, id="acks_off_durable_counts"),
        pytest.param(state({1}), {}, True, 1000, 500, 1000, id="master_alone_durable_counts"),
        pytest.param(state({1}), {}, False, 400, 500, 500, id="never_below_current_acks_off"),
        pytest.param(state({1, 2}), {2: progress(2, 300)}, True, 1000, 500, 500, id="all_ack_lowest_ack_not_back"),
        pytest.param(state({1, 2}), {2: progress(2, 800)}, True, 1000, 500, 800, id="all_ack_lowest_ack"),
        pytest.param(state({1, 2}), {2: progress(2, 900)}, True, 700, 500, 700, id="all_ack_capped_at_durable"),
        pytest.param(state({1, 2}), {}, True, 1000, 500, 500, id="all_ack_disconnected_member_freezes"),
        pytest.param(
            state({1}, proposed={1, 2}), {2: progress(2, 600)}, True, 1000, 500, 600, id="pending_member_is_a_member"
        ),
    ],
)
def test_next_confirm_offset_picks_the_mode(
    sync: SyncState, slaves: dict[int, SlaveProgress], all_ack: bool, durable: int, current: int, expected: int
) -> None:
    """allAckInSyncStateSet off, or the master alone: what is durable is confirmed; otherwise the lowest ack."""
    assert next_confirm_offset(sync, slaves, durable, current, all_ack_in_sync_state_set=all_ack) == expected


@pytest.mark.parametrize(
    ("sync", "proposed_at", "now", "expired"),
    [
        pytest.param(state({1, 2}), 0.0, 100.0, False, id="no_proposal"),
        pytest.param(state({1, 2}, proposed={1}), 50.0, 55.0, False, id="waiting"),
        pytest.param(state({1, 2}, proposed={1}), 50.0, 60.0, False, id="exactly_the_timeout"),
        pytest.param(state({1, 2}, proposed={1}), 50.0, 60.5, True, id="unanswered_too_long"),
    ],
)
def test_an_unanswered_proposal_expires_after_the_timeout(
    sync: SyncState, proposed_at: float, now: float, expired: bool
) -> None:
    assert proposal_expired(sync, proposed_at, now, timeout_s=10.0) is expired
    assert proposal_expired(sync, proposed_at, now) is expired  # PROPOSAL_TIMEOUT_S is 10 s


# --- puts ----------------------------------------------------------------------------------------


def test_puts_fail_fast_below_min_in_sync_replicas() -> None:
    assert admit_put(state({1}), min_in_sync_replicas=2) is PutStatus.IN_SYNC_REPLICAS_NOT_ENOUGH
    assert admit_put(state({1, 2}), min_in_sync_replicas=2) is PutStatus.PUT_OK
    assert admit_put(state({1}, proposed={1, 2}), min_in_sync_replicas=2) is PutStatus.PUT_OK


def test_all_ack_waits_for_every_member_of_the_effective_set() -> None:
    s = state({1, 2, 3})
    slaves = {2: progress(2, 1000), 3: progress(3, 999)}
    assert not acks_satisfied(s, slaves, 1000, all_ack_in_sync_state_set=True, in_sync_replicas=1)
    slaves[3] = progress(3, 1000)
    assert acks_satisfied(s, slaves, 1000, all_ack_in_sync_state_set=True, in_sync_replicas=1)


def test_all_ack_with_a_pending_expand_waits_for_the_new_member_too() -> None:
    s = state({1, 2}, proposed={1, 2, 3})
    slaves = {2: progress(2, 1000), 3: progress(3, 10)}
    assert not acks_satisfied(s, slaves, 1000, all_ack_in_sync_state_set=True, in_sync_replicas=1)


def test_all_ack_with_the_master_alone_is_immediate() -> None:
    assert acks_satisfied(state({1}), {}, 1000, all_ack_in_sync_state_set=True, in_sync_replicas=3)


@pytest.mark.parametrize(("acks", "needed", "ok"), [((), 1, True), ((1000,), 2, True), ((999,), 2, False),
                                                     ((1000, 10), 3, False), ((1000, 1000), 3, True)])  # fmt: skip
def test_in_sync_replicas_counts_copies_including_the_master(acks: tuple[int, ...], needed: int, ok: bool) -> None:
    slaves = {i + 2: progress(i + 2, a) for i, a in enumerate(acks)}
    assert acks_satisfied(state({1}), slaves, 1000, all_ack_in_sync_state_set=False, in_sync_replicas=needed) is ok
