"""The epoch cache (Java's ``EpochFileCache``) and the handshake's "Election Truncation Algorithm"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.store.epochs import (
    MAX_OFFSET,
    EpochCache,
    EpochEntry,
    EpochError,
    find_consistent_point,
    truncation_point,
)

Pairs = list[tuple[int, int]]

THREE = EpochCache.from_pairs([(1, 0), (2, 100), (4, 200)])
"""Epochs 1, 2 and 4 (3 never wrote), the last one open."""


def cache(pairs: Pairs, last_end: int = MAX_OFFSET) -> EpochCache:
    return EpochCache.from_pairs(pairs, last_end)


def params(cases: Sequence[tuple[Any, ...]]) -> list[Any]:
    """Table rows whose first column is the case id."""
    return [pytest.param(*case[1:], id=case[0]) for case in cases]


# --- construction -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pairs", "last_end", "entries"),
    [
        pytest.param([], MAX_OFFSET, (), id="empty"),
        pytest.param([], 10, (), id="empty_ignores_last_end"),
        pytest.param([(1, 0)], MAX_OFFSET, (EpochEntry(1, 0),), id="one_open"),
        pytest.param([(0, 5)], 5, (EpochEntry(0, 5, 5),), id="epoch_0_closed_at_its_start"),
        pytest.param(
            [(1, 0), (3, 100), (4, 250)],
            300,
            (EpochEntry(1, 0, 100), EpochEntry(3, 100, 250), EpochEntry(4, 250, 300)),
            id="ends_derived_from_next_start",
        ),
        pytest.param([(2**31 - 1, MAX_OFFSET)], MAX_OFFSET, (EpochEntry(2**31 - 1, MAX_OFFSET),), id="extremes"),
    ],
)
def test_from_pairs(pairs: Pairs, last_end: int, entries: tuple[EpochEntry, ...]) -> None:
    built = EpochCache.from_pairs(pairs, last_end)
    assert built.entries == entries
    assert built.pairs() == tuple(pairs)


@pytest.mark.parametrize(
    ("pairs", "last_end", "message"),
    [
        pytest.param([(2, 0), (1, 100)], MAX_OFFSET, "epochs must ascend", id="descending_epochs"),
        pytest.param([(1, 0), (1, 100)], MAX_OFFSET, "epochs must ascend", id="repeated_epoch"),
        pytest.param([(1, 100), (2, 100)], MAX_OFFSET, "strictly ascend", id="equal_starts"),
        pytest.param([(1, 100), (2, 50)], MAX_OFFSET, "strictly ascend", id="descending_starts"),
        pytest.param([(1, -1)], MAX_OFFSET, "outside", id="negative_start"),
        pytest.param([(-1, 0)], MAX_OFFSET, "outside", id="negative_epoch"),
        pytest.param([(2**31, 0)], MAX_OFFSET, "outside", id="epoch_past_java_int"),
        pytest.param([(1, MAX_OFFSET + 1)], MAX_OFFSET, "outside", id="start_past_java_long"),
        pytest.param([(1, 0), (2, 100)], 99, r"ends at 99, outside \[100,", id="last_end_below_last_start"),
        pytest.param([(1, 0)], MAX_OFFSET + 1, "ends at .*, outside", id="last_end_past_java_long"),
    ],
)
def test_from_pairs_rejects_bad_histories(pairs: Pairs, last_end: int, message: str) -> None:
    with pytest.raises(EpochError, match=message):
        EpochCache.from_pairs(pairs, last_end)


def test_direct_construction_checks_the_derived_ends() -> None:
    with pytest.raises(EpochError, match="ends at 90, not where epoch 2 starts"):
        EpochCache((EpochEntry(1, 0, 90), EpochEntry(2, 100)))


# --- queries ------------------------------------------------------------------------------------


def test_queries_on_an_empty_cache() -> None:
    empty = EpochCache()
    assert (empty.last_epoch(), empty.last_entry(), empty.first_entry()) == (-1, None, None)
    assert (empty.find_by_epoch(0), empty.find_by_offset(0), empty.next_entry(-1)) == (None, None, None)
    assert empty.pairs() == ()


def test_first_and_last() -> None:
    assert THREE.first_entry() == EpochEntry(1, 0, 100)
    assert THREE.last_entry() == EpochEntry(4, 200, MAX_OFFSET)
    assert THREE.last_epoch() == 4


@pytest.mark.parametrize(
    ("epoch", "expected"),
    [
        (0, None),
        (1, EpochEntry(1, 0, 100)),
        (2, EpochEntry(2, 100, 200)),
        (3, None),
        (4, EpochEntry(4, 200)),
        (5, None),
    ],
)
def test_find_by_epoch(epoch: int, expected: EpochEntry | None) -> None:
    assert THREE.find_by_epoch(epoch) == expected


@pytest.mark.parametrize(
    ("offset", "epoch"),
    [(-1, None), (0, 1), (99, 1), (100, 2), (199, 2), (200, 4), (10**15, 4), (MAX_OFFSET - 1, 4), (MAX_OFFSET, None)],
)
def test_find_by_offset_uses_half_open_ranges(offset: int, epoch: int | None) -> None:
    found = THREE.find_by_offset(offset)
    assert (found.epoch if found else None) == epoch


@pytest.mark.parametrize(("offset", "epoch"), [(249, 4), (250, None), (199, 2)])
def test_find_by_offset_respects_a_closed_last_end(offset: int, epoch: int | None) -> None:
    found = THREE.with_last_end(250).find_by_offset(offset)
    assert (found.epoch if found else None) == epoch


@pytest.mark.parametrize(("epoch", "next_epoch"), [(-1, 1), (0, 1), (1, 2), (2, 4), (3, 4), (4, None), (9, None)])
def test_next_entry_is_the_first_greater_epoch(epoch: int, next_epoch: int | None) -> None:
    found = THREE.next_entry(epoch)
    assert (found.epoch if found else None) == next_epoch


# --- append -------------------------------------------------------------------------------------

APPEND_OK: list[tuple[str, Pairs, int, int, Pairs]] = [
    # (id, before, epoch, start, after)
    ("first_entry", [], 1, 0, [(1, 0)]),
    ("first_entry_anywhere", [], 7, 5000, [(7, 5000)]),
    ("epoch_0_is_valid", [], 0, 0, [(0, 0)]),
    ("next_epoch", [(1, 0)], 2, 100, [(1, 0), (2, 100)]),
    ("epochs_may_skip", [(1, 0)], 5, 100, [(1, 0), (5, 100)]),
    # Java #9689: re-elected before any write; Java rejects and keeps epoch 2 for epoch 3's data.
    ("equal_start_replaces_the_empty_last_entry", [(1, 0), (2, 100)], 3, 100, [(1, 0), (3, 100)]),
    ("equal_start_replaces_the_only_entry", [(1, 0)], 2, 0, [(2, 0)]),
]


@pytest.mark.parametrize(("before", "epoch", "start", "after"), params(APPEND_OK))
def test_append(before: Pairs, epoch: int, start: int, after: Pairs) -> None:
    original = cache(before)
    appended = original.append(epoch, start)
    assert appended == cache(after)
    assert original == cache(before)


APPEND_REJECTED: list[tuple[str, Pairs, int, int, str]] = [
    ("same_epoch", [(1, 0), (2, 100)], 2, 200, "not above the last epoch 2"),
    ("lower_epoch", [(1, 0), (2, 100)], 1, 200, "not above the last epoch 2"),
    ("lower_epoch_equal_start", [(1, 0), (2, 100)], 1, 100, "not above the last epoch 2"),
    ("start_goes_back", [(1, 0), (2, 100)], 3, 99, "before epoch 2's start 100"),
    ("negative_start", [(1, 0)], 2, -1, "negative offset"),
    ("negative_start_on_empty", [], 1, -5, "negative offset"),
    ("negative_epoch_on_empty", [], -1, 0, "outside"),
    ("epoch_past_java_int", [(1, 0)], 2**31, 10, "outside"),
]


@pytest.mark.parametrize(("before", "epoch", "start", "message"), params(APPEND_REJECTED))
def test_append_rejects(before: Pairs, epoch: int, start: int, message: str) -> None:
    with pytest.raises(EpochError, match=message):
        cache(before).append(epoch, start)


def test_append_closes_the_previous_entry_even_if_it_was_closed_elsewhere() -> None:
    appended = THREE.with_last_end(300).append(5, 260)
    assert appended.entries[-2:] == (EpochEntry(4, 200, 260), EpochEntry(5, 260))


# --- with_last_end ------------------------------------------------------------------------------


@pytest.mark.parametrize(("offset", "end"), [(200, 200), (201, 201), (10**12, 10**12), (MAX_OFFSET, MAX_OFFSET)])
def test_with_last_end(offset: int, end: int) -> None:
    closed = THREE.with_last_end(offset)
    assert closed.entries[:-1] == THREE.entries[:-1]
    assert closed.entries[-1] == EpochEntry(4, 200, end)


@pytest.mark.parametrize(
    ("offset", "message"), [(199, "starts at 200"), (-1, "starts at 200"), (MAX_OFFSET + 1, "ends at")]
)
def test_with_last_end_rejects(offset: int, message: str) -> None:
    with pytest.raises(EpochError, match=message):
        THREE.with_last_end(offset)


def test_with_last_end_on_an_empty_cache_is_a_no_op() -> None:
    assert EpochCache().with_last_end(500) == EpochCache()


# --- truncation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("offset", "after"),
    [
        (-1, []),
        (0, []),
        (1, [(1, 0)]),
        (100, [(1, 0)]),
        (101, [(1, 0), (2, 100)]),
        (200, [(1, 0), (2, 100)]),
        (201, [(1, 0), (2, 100), (4, 200)]),
        (MAX_OFFSET, [(1, 0), (2, 100), (4, 200)]),
    ],
)
def test_truncate_suffix_by_offset_drops_entries_starting_at_or_above(offset: int, after: Pairs) -> None:
    assert THREE.with_last_end(300).truncate_suffix_by_offset(offset) == cache(after)


@pytest.mark.parametrize(
    ("epoch", "after"),
    [
        (0, []),
        (1, []),
        (2, [(1, 0)]),
        (3, [(1, 0), (2, 100)]),
        (4, [(1, 0), (2, 100)]),
        (5, [(1, 0), (2, 100), (4, 200)]),
    ],
)
def test_truncate_suffix_by_epoch_drops_that_epoch_and_above(epoch: int, after: Pairs) -> None:
    assert THREE.with_last_end(300).truncate_suffix_by_epoch(epoch) == cache(after)


def test_suffix_truncation_reopens_the_last_end() -> None:
    # Java's ``EpochFileCache`` resets the end on a copy (a quirk), so its in-memory end stays stale; ours is MAX.
    assert THREE.with_last_end(300).truncate_suffix_by_offset(500).last_entry() == EpochEntry(4, 200, MAX_OFFSET)
    assert THREE.truncate_suffix_by_epoch(4).last_entry() == EpochEntry(2, 100, MAX_OFFSET)


@pytest.mark.parametrize(
    ("last_end", "offset", "after"),
    [
        (MAX_OFFSET, 0, [(1, 0), (2, 100), (4, 200)]),
        (MAX_OFFSET, 99, [(1, 0), (2, 100), (4, 200)]),
        (MAX_OFFSET, 100, [(2, 100), (4, 200)]),
        (MAX_OFFSET, 150, [(2, 100), (4, 200)]),
        (MAX_OFFSET, 200, [(4, 200)]),
        (MAX_OFFSET, 10**15, [(4, 200)]),
        (300, 299, [(4, 200)]),
        (300, 300, []),
    ],
)
def test_truncate_prefix_by_offset_drops_entries_wholly_below(last_end: int, offset: int, after: Pairs) -> None:
    assert THREE.with_last_end(last_end).truncate_prefix_by_offset(offset).pairs() == tuple(after)


def test_truncate_prefix_keeps_the_first_start_and_the_last_end() -> None:
    # The log now begins at 150, but epoch 2's start still identifies it at the handshake.
    assert THREE.with_last_end(300).truncate_prefix_by_offset(150).entries == (
        EpochEntry(2, 100, 200),
        EpochEntry(4, 200, 300),
    )


histories = st.lists(st.tuples(st.integers(0, 3), st.integers(1, 50)), max_size=6).map(
    lambda steps: EpochCache.from_pairs(_cumulative(steps))
)


def _cumulative(steps: list[tuple[int, int]]) -> Pairs:
    pairs: Pairs = []
    epoch, start = -1, 0
    for epoch_step, offset_step in steps:
        epoch, start = epoch + 1 + epoch_step, start + offset_step
        pairs.append((epoch, start))
    return pairs


@given(histories, st.integers(0, 400), st.integers(0, 400))
def test_truncations_keep_the_epoch_of_every_offset_they_keep(history: EpochCache, cut: int, probe: int) -> None:
    def epoch_at(c: EpochCache, offset: int) -> int | None:
        found = c.find_by_offset(offset)
        return found.epoch if found else None

    if probe < cut:
        assert epoch_at(history.truncate_suffix_by_offset(cut), probe) == epoch_at(history, probe)
    else:
        assert epoch_at(history.truncate_prefix_by_offset(cut), probe) == epoch_at(history, probe)
    kept = history.truncate_suffix_by_epoch(cut % 8)
    assert kept.pairs() == tuple(p for p in history.pairs() if p[0] < cut % 8)


# --- find_consistent_point ----------------------------------------------------------------------

CONSISTENT: list[tuple[str, Pairs, int, Pairs, int, int]] = [
    # (id, local, local last end, remote, remote last end, point)
    ("identical", [(1, 0), (2, 100)], 300, [(1, 0), (2, 100)], 300, 300),
    ("local_behind", [(1, 0), (2, 100)], 150, [(1, 0), (2, 100)], 300, 150),
    ("local_ahead", [(1, 0), (2, 100)], 300, [(1, 0), (2, 100)], 150, 150),
    ("remote_moved_on", [(1, 0)], 300, [(1, 0), (2, 100)], 400, 100),
    ("local_extra_epoch", [(1, 0), (3, 250)], 300, [(1, 0), (2, 100)], 400, 100),
    ("open_ends_mean_unbounded", [(1, 0)], MAX_OFFSET, [(1, 0)], MAX_OFFSET, MAX_OFFSET),
    ("diverged_start_walks_down", [(1, 0), (2, 100)], 300, [(1, 0), (2, 120)], 300, 100),
    ("matching_epoch_is_the_highest_local_one", [(1, 0), (2, 100), (3, 200)], 250, [(1, 0), (3, 200)], 260, 250),
    ("no_common_epoch", [(1, 0)], 100, [(2, 0)], 100, -1),
    ("same_epoch_never_same_start", [(1, 0), (2, 100)], 200, [(1, 5), (2, 90)], 200, -1),
    ("empty_local", [], 0, [(1, 0)], 100, -1),
    ("empty_remote", [(1, 0)], 100, [], 0, -1),
]


@pytest.mark.parametrize(("local", "local_end", "remote", "remote_end", "point"), params(CONSISTENT))
def test_find_consistent_point(local: Pairs, local_end: int, remote: Pairs, remote_end: int, point: int) -> None:
    assert find_consistent_point(cache(local, local_end), cache(remote, remote_end)) == point


# --- truncation_point: the design document's six examples ----------------------------------------
# The pictures are not available; these are the cases the text describes. A is the slave, B the new master.


def resync(local: Pairs, local_max: int, remote: Pairs, remote_max: int) -> tuple[int | None, Pairs]:
    """The slave's handshake: the truncation point and the slave's epochs after cutting there."""
    point = truncation_point(cache(local), local_max, cache(remote), remote_max)
    kept = cache(local) if point is None else cache(local).truncate_suffix_by_offset(point)
    return point, list(kept.pairs())


def test_seed_example_1_old_master_cuts_its_unreplicated_tail() -> None:
    # A wrote epoch 0 up to 1000; B held 900 when elected for epoch 1 and wrote up to 1200.
    assert resync([(0, 0)], 1000, [(0, 0), (1, 900)], 1200) == (900, [(0, 0)])


def test_seed_example_2_old_master_lost_its_tail_to_async_flush() -> None:
    # A lost 900-1000 in a crash; B had all of epoch 0 and opened epoch 1 at 1000. Nothing to cut: A copies on.
    assert resync([(0, 0)], 900, [(0, 0), (1, 1000)], 1200) == (900, [(0, 0)])


def test_seed_example_3_slave_behind_in_the_current_epoch_keeps_everything() -> None:
    assert resync([(0, 0), (1, 900)], 1200, [(0, 0), (1, 900)], 1500) == (1200, [(0, 0), (1, 900)])


def test_seed_example_4_epoch_the_master_never_saw_is_dropped() -> None:
    # A held epoch 0 to 1000 and later wrote epoch 2 alone; B has epoch 0 to 900, epoch 1 from 900 and was
    # re-elected for epoch 3 (the master always holds the highest epoch).
    assert resync([(0, 0), (2, 1000)], 1100, [(0, 0), (1, 900), (3, 1200)], 1300) == (900, [(0, 0)])


@pytest.mark.parametrize(("replica", "replica_max"), [("B", 1000), ("C", 900)])
def test_seed_example_5_two_slaves_cut_back_to_the_new_masters_epoch_start(replica: str, replica_max: int) -> None:
    # B and C copied epoch 1 further than A, which was elected for epoch 2 when it held 800.
    master = [(0, 0), (1, 500), (2, 800)]
    assert resync([(0, 0), (1, 500)], replica_max, master, 1100) == (800, [(0, 0), (1, 500)]), replica


def test_seed_example_6_slave_shorter_than_the_masters_epoch_keeps_everything() -> None:
    assert resync([(0, 0)], 1000, [(0, 0), (1, 1200)], 1500) == (1000, [(0, 0)])


# --- truncation_point: more cases ---------------------------------------------------------------

TRUNCATION: list[tuple[str, Pairs, int, Pairs, int, int | None]] = [
    # (id, local, local max, remote, remote max, point)
    ("new_empty_replica", [], 0, [(1, 0), (2, 100)], 300, 0),
    ("empty_history_with_data_starts_over", [], 500, [(1, 0)], 300, 0),
    # Java finds no common epoch here and retries forever.
    ("master_demoted_before_its_first_write", [(1, 0)], 0, [(3, 0)], 50, 0),
    ("remote_empty", [(1, 0)], 100, [], 0, None),
    ("no_common_epoch", [(1, 0)], 100, [(2, 0), (3, 50)], 200, None),
    ("diverged_last_epoch_walks_down", [(1, 0), (2, 500)], 800, [(1, 0), (2, 600)], 900, 500),
    ("diverged_every_epoch", [(1, 10), (2, 500)], 800, [(1, 0), (2, 600)], 900, None),
    ("missing_epochs_on_both_sides", [(1, 0), (3, 300), (5, 500)], 600, [(1, 0), (2, 200), (4, 400)], 700, 200),
    ("master_segments_deleted", [(1, 0), (2, 100)], 150, [(3, 1000)], 1200, None),
    ("identical_logs", [(1, 0), (2, 100)], 300, [(1, 0), (2, 100)], 300, 300),
    ("master_new_epoch_without_writes", [(1, 0)], 300, [(1, 0), (2, 300)], 300, 300),
    ("slave_ahead_in_same_epoch", [(1, 0)], 300, [(1, 0)], 200, 200),
    ("slave_own_empty_epoch", [(1, 0), (2, 300)], 300, [(1, 0), (3, 300)], 350, 300),
]


@pytest.mark.parametrize(("local", "local_max", "remote", "remote_max", "point"), params(TRUNCATION))
def test_truncation_point(local: Pairs, local_max: int, remote: Pairs, remote_max: int, point: int | None) -> None:
    assert truncation_point(cache(local), local_max, cache(remote), remote_max) == point


@pytest.mark.parametrize(
    ("local_max", "remote_max", "message"), [(99, 500, "epoch 2 at 99"), (300, 599, "epoch 3 at 599")]
)
def test_truncation_point_rejects_a_history_ahead_of_its_log(local_max: int, remote_max: int, message: str) -> None:
    with pytest.raises(EpochError, match=message):
        truncation_point(cache([(1, 0), (2, 100)]), local_max, cache([(1, 0), (3, 600)]), remote_max)


# --- property: simulated replication histories --------------------------------------------------


@dataclass
class Replica:
    """A broker's log (the epoch that wrote each offset; one offset per message) and its epoch cache."""

    log: list[int] = field(default_factory=list)
    epochs: EpochCache = field(default_factory=EpochCache)


@dataclass
class Cluster:
    replicas: list[Replica]
    master: int | None = None
    epoch: int = 0

    def elect(self, broker: int, epoch_step: int) -> None:
        """The controller hands out a higher epoch to any replica holding data (elections may be unclean)."""
        if not self.replicas[broker].log and any(r.log for r in self.replicas):
            return
        self.epoch += epoch_step
        replica = self.replicas[broker]
        replica.epochs = replica.epochs.append(self.epoch, len(replica.log))
        self.master = broker

    def write(self, count: int) -> None:
        if self.master is not None:
            self.replicas[self.master].log.extend([self.epoch] * count)

    def crash(self, broker: int, lost: int) -> None:
        """Async flush: the broker restarts without its last `lost` messages; recovery trims its epochs."""
        replica = self.replicas[broker]
        del replica.log[max(0, len(replica.log) - lost) :]
        replica.epochs = replica.epochs.truncate_suffix_by_offset(len(replica.log))
        if broker == self.master:
            self.master = None

    def sync(self, broker: int, count: int) -> None:
        """Handshake with the master, cut at the truncation point, then copy `count` messages."""
        if self.master is None or broker == self.master:
            return
        master, slave = self.replicas[self.master], self.replicas[broker]
        point = truncation_point(slave.epochs, len(slave.log), master.epochs, len(master.log))
        if point is None:
            return
        assert point <= min(len(slave.log), len(master.log))
        assert slave.log[:point] == master.log[:point]
        assert below(slave.epochs, point) == below(master.epochs, point)
        del slave.log[point:]
        slave.epochs = slave.epochs.truncate_suffix_by_offset(point)
        sent = master.epochs.with_last_end(len(master.log))
        for offset in range(point, min(point + count, len(master.log))):
            entry = sent.find_by_offset(offset)
            assert entry is not None
            if entry.epoch != slave.epochs.last_epoch():
                slave.epochs = slave.epochs.append(entry.epoch, entry.start_offset)
            slave.log.append(master.log[offset])


def below(epochs: EpochCache, point: int) -> Pairs:
    return [pair for pair in epochs.pairs() if pair[1] < point]


def check_history_matches_log(replica: Replica) -> None:
    closed = replica.epochs.with_last_end(len(replica.log))
    for offset, writer in enumerate(replica.log):
        entry = closed.find_by_offset(offset)
        assert entry is not None and entry.epoch == writer, (offset, replica)


OPS = ("elect", "elect", "crash", "write", "write", "sync", "sync", "sync")
"""Weighted so that replicas fall behind, masters change mid-stream and slaves often have something to cut."""


@settings(max_examples=400)
@given(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 2), st.integers(0, 8)), min_size=20, max_size=80))
def test_truncation_point_keeps_replicas_consistent_in_simulated_histories(ops: list[tuple[str, int, int]]) -> None:
    cluster = Cluster([Replica() for _ in range(3)])
    cluster.elect(0, 1)
    for op, broker, amount in ops:
        if op == "elect":
            cluster.elect(broker, 1 + amount % 2)
        elif op == "write":
            cluster.write(amount)
        elif op == "sync":
            cluster.sync(broker, amount)
        else:
            cluster.crash(broker, amount)
        for replica in cluster.replicas:
            check_history_matches_log(replica)
