"""RIP-32's pre-online merge: scenarios, and the join's laws over random tables and escaped changes."""

from __future__ import annotations

import random
from collections.abc import Mapping
from types import MappingProxyType

from hypothesis import given
from hypothesis import strategies as st

from agents.consumer.pre_online import (
    Pending,
    PreOnline,
    Progress,
    Table,
    commit,
    join,
    join_tables,
    merge_answers,
    merge_changes,
    online,
    progress_of,
    start,
    take_escaped,
    take_replica,
)
from agents.consumer.progress import OffsetProgress
from agents.consumer.records import (
    Escaped,
    EscapedChange,
    EscapeKey,
    OffsetCommitted,
    QueueMerged,
    StateRecord,
    TimerDelivered,
    TransactionChecked,
    TransactionEnded,
    Version,
    decode,
    encode,
)
from agents.consumer.state import Committed, apply_all
from agents.pop.events import Acked, Changed, Delivery, Popped
from agents.pop.model import NO_TICKET, Inflight, QueueKey, QueueState
from agents.transaction.half import Resolution
from tests.harness.consumer_runs import STEPS, play
from tests.harness.fuzzing import fuzz

Q = QueueKey("G", "T", 0)
Q2 = QueueKey("G", "T", 1)
V1, V2 = Version(1, 10), Version(2, 40)
HOME = "broker-a"


def progress(
    v: Version,
    committed: int,
    done: set[int] | None = None,
    inflight: dict[int, Pending] | None = None,
    scanned: int = 0,
    next_ticket: int = 1,
) -> Progress:
    """A progress in its normal form (``join`` normalises)."""
    raw = Progress(v, committed, frozenset(done or ()), MappingProxyType(inflight or {}), scanned, next_ticket)
    return join(Progress(v, committed, scanned=committed), raw)


def table(**by_queue: Progress) -> Table:
    keys = {"q": Q, "q2": Q2}
    return MappingProxyType({keys[k]: p for k, p in by_queue.items()})


def escaped(n: int, change: EscapedChange, v: Version = V1, home: str = HOME) -> Escaped:
    return Escaped(home, EscapeKey(2, 1, n), v, change)


def consumed(p: Progress) -> set[int]:
    return set(range(p.committed)) | p.done


# --- scenarios ---------------------------------------------------------------------------------


def test_the_next_master_stays_isolated_until_every_source_answered() -> None:
    pre = start(HOME, table(q=progress(V1, 3)), frozenset(), ["replica:2", "escape:broker-b"])
    assert not online(pre)
    pre = take_replica(pre, "replica:2", table(q=progress(V1, 5)))
    assert not online(pre)
    pre = take_escaped(pre, "escape:broker-b", [])
    assert online(pre)
    assert pre.table[Q] == progress(V1, 5)


def test_an_acting_replica_s_acks_and_commits_come_back_and_nothing_rolls_back() -> None:
    home = table(q=progress(V1, 3, inflight={3: Pending(1, 100, 1), 4: Pending(1, 100, 7)}, scanned=5))
    pre = take_escaped(
        start(HOME, home, frozenset(), ["escape:broker-b"]),
        "escape:broker-b",
        [escaped(1, Acked(Q, 4, 7)), escaped(2, OffsetCommitted(Q2, 9, 0))],
    )
    assert pre.table[Q] == progress(V1, 3, {4}, {3: Pending(1, 100, 1)}, 5, 8)  # 4 acked: never again
    assert pre.table[Q2] == progress(V1, 9)
    assert pre.applied == {EscapeKey(2, 1, 1), EscapeKey(2, 1, 2)}


def test_an_acting_replica_s_redelivery_keeps_its_attempt_and_deadline() -> None:
    home = table(q=progress(V1, 3, inflight={3: Pending(1, 100, 1)}, scanned=4))
    redelivered = Popped(Q, 3, 4, (), (), (Delivery(3, 9, 250, 2),))
    pre = take_escaped(start(HOME, home, frozenset(), []), "e", [escaped(1, redelivered)])
    assert pre.table[Q].inflight == {3: Pending(2, 250, 9)}
    extended = take_escaped(pre, "e", [escaped(2, Changed(Q, 3, 9, 10, 400))])
    assert extended.table[Q].inflight == {3: Pending(2, 400, 10)}  # the client's handle is the extension's
    assert extended.table[Q].next_ticket == 11


def test_a_reset_on_the_home_log_voids_what_was_decided_before_it() -> None:
    home = table(q=progress(V2, 2))  # reset back to 2 at version V2
    pre = take_escaped(start(HOME, home, frozenset(), []), "e", [escaped(1, Acked(Q, 3, 1), V1)])
    assert pre.table[Q] == progress(V2, 2, next_ticket=2)  # void, but its ticket stays used
    assert EscapeKey(2, 1, 1) in pre.applied  # taken back, and void


def test_a_change_taken_back_before_is_skipped_and_another_set_s_is_left_alone() -> None:
    before = frozenset({EscapeKey(2, 1, 1)})
    pre = take_escaped(
        start(HOME, table(q=progress(V1, 3)), before, []),
        "e",
        [escaped(1, Acked(Q, 3, 1)), escaped(2, Acked(Q, 3, 1), home="broker-c")],
    )
    assert pre.table[Q] == progress(V1, 3)
    assert pre.applied == before


def test_the_commit_rule_makes_a_backward_commit_a_new_version_and_keeps_forward_progress() -> None:
    p = progress(V1, 3, done={5})
    assert commit(p, 4, V2) == progress(V1, 4, done={5})  # forward: the version and the acked 5 kept
    assert commit(p, 6, V2) == progress(V1, 6)
    assert commit(p, 1, V2) == progress(V2, 1)  # back: a reset, POP starts over
    assert commit(progress(V1, 3, next_ticket=5), 1, V2).next_ticket == 5  # tickets stay used
    assert commit(None, 0, V2) == progress(Version(), 0)


def test_a_replica_s_delivered_delayed_messages_and_escaped_ones_are_joined() -> None:
    pre = start(HOME, table(), frozenset(), ["r", "e"])
    pre = take_replica(pre, "r", table(), OffsetProgress(4, frozenset({7})))
    pre = take_escaped(pre, "e", [escaped(1, TimerDelivered((2, 9)))])
    assert (pre.timer, pre.timer_floor) == (frozenset({2, 7, 9}), 4)
    assert pre.table == {}  # a delayed message is no queue's


def test_progress_of_reads_a_replica_s_consumer_state() -> None:
    records = [
        StateRecord(1, OffsetCommitted(Q2, 7, 0)),
        StateRecord(2, Popped(Q, 0, 3, (1,), (), (Delivery(0, 1, 500, 1), Delivery(2, 2, 500, 1)))),
        StateRecord(3, Acked(Q, 2, 2)),
    ]
    got = progress_of(apply_all(None, records))
    assert got == {Q: progress(Version(), 0, {1, 2}, {0: Pending(1, 500, 1)}, 3, 3), Q2: progress(Version(), 7)}
    reset = progress_of(apply_all(None, [*records, StateRecord(4, OffsetCommitted(Q2, 2, 0, epoch=3))]))
    assert reset[Q2] == progress(Version(3, 4), 2)


# --- laws --------------------------------------------------------------------------------------

VERSIONS = st.sampled_from([Version(), V1, V2])
OFFSETS = st.integers(0, 12)
PENDING = st.builds(Pending, st.integers(1, 3), st.integers(0, 300), st.integers(1, 4))
PROGRESS = st.builds(
    progress,
    VERSIONS,
    st.integers(0, 6),
    st.sets(OFFSETS, max_size=5),
    st.dictionaries(OFFSETS, PENDING, max_size=4),
    st.integers(0, 13),
    st.integers(1, 6),
)
QUEUES = st.sampled_from([Q, Q2])
TABLES = st.dictionaries(QUEUES, PROGRESS, max_size=2)


def change_for(n: int, queue: QueueKey, kind: int, offset: int) -> EscapedChange:
    """The one change key `n` names (a key always names the same change)."""
    if kind == 4:
        return TimerDelivered((offset, offset + n + 1))
    if kind == 0:
        return OffsetCommitted(queue, offset, 0)
    if kind == 1:
        return Acked(queue, offset, 1)
    if kind == 2:
        return Changed(queue, offset, 1, 2, 50 * n)
    return Popped(queue, offset // 2, offset + 1, (), (offset // 2 + 1,), (Delivery(offset, 1, 40 * n, 1 + n % 3),))


ESCAPES = st.dictionaries(
    st.integers(0, 15),
    st.tuples(QUEUES, st.integers(0, 4), OFFSETS, VERSIONS, st.sampled_from([HOME, "broker-c"])),
    max_size=8,
).map(
    lambda d: [
        Escaped(home, EscapeKey(2, 1, n), v, change_for(n, q, kind, off)) for n, (q, kind, off, v, home) in d.items()
    ]
)


def merge(own: Table, answers: list[tuple[str, Table | list[Escaped]]], applied: frozenset[EscapeKey]) -> PreOnline:
    pre = start(HOME, own, applied, [source for source, _ in answers])
    for source, answer in answers:
        pre = take_escaped(pre, source, answer) if isinstance(answer, list) else take_replica(pre, source, answer)
    return pre


@fuzz(300)
@given(PROGRESS, PROGRESS, PROGRESS)
def test_join_is_commutative_associative_and_idempotent(a: Progress, b: Progress, c: Progress) -> None:
    assert join(a, b) == join(b, a)
    assert join(join(a, b), c) == join(a, join(b, c))
    assert join(a, a) == a
    assert join(a, join(a, b)) == join(a, b)


@fuzz(200)
@given(TABLES, st.lists(TABLES, max_size=3), ESCAPES, st.randoms(use_true_random=False))
def test_any_answer_order_and_any_repeat_merge_alike(
    own: Table, replicas: list[Table], escapes: list[Escaped], rnd: random.Random
) -> None:
    answers: list[tuple[str, Table | list[Escaped]]] = [(f"replica:{i}", t) for i, t in enumerate(replicas)]
    half = len(escapes) // 2
    answers += [("escape:b", escapes[: half + 1]), ("escape:c", escapes[half:])]  # one change escaped twice
    shuffled = list(answers)
    rnd.shuffle(shuffled)
    first, second = merge(own, answers, frozenset()), merge(own, shuffled + answers[:1], frozenset())
    assert (first.table, first.applied, first.timer) == (second.table, second.applied, second.timer)
    assert online(first) and online(second)
    again = merge(first.table, [("escape:b", escapes)], first.applied)
    assert again.table == first.table  # taken back once: the same changes again are skipped
    assert first.timer == {o for e in escapes if e.home == HOME and isinstance(e.change, TimerDelivered)
                           for o in e.change.offsets}  # fmt: skip


@fuzz(300)
@given(TABLES, st.lists(TABLES, max_size=3), ESCAPES)
def test_no_offset_rolls_back_and_no_acked_message_is_delivered_again(
    own: Table, replicas: list[Table], escapes: list[Escaped]
) -> None:
    pre = merge(own, [(f"r{i}", t) for i, t in enumerate(replicas)] + [("e", escapes)], frozenset())
    sources: list[Mapping[QueueKey, Progress]] = [own, *replicas]
    for key, merged in pre.table.items():
        for src in sources:
            p = src.get(key)
            if p is None:
                continue
            assert p.version <= merged.version
            if p.version == merged.version:
                assert merged.committed >= p.committed
                assert consumed(p) <= consumed(merged)
        for e in escapes:
            c = e.change
            if e.home == HOME and isinstance(c, Acked) and c.queue == key and e.version == merged.version:
                assert c.offset in consumed(merged) and c.offset not in merged.inflight
        assert not set(merged.inflight) & consumed(merged)
    assert all(e.key in pre.applied for e in escapes if e.home == HOME)
    assert not any(e.key in pre.applied for e in escapes if e.home != HOME)
    assert join_tables(pre.table, own.items()) == pre.table  # the home table adds nothing the merge lacks


# --- writing the merge -------------------------------------------------------------------------


def gapless(p: Progress) -> bool:
    """Every offset from committed to scanned is done or in flight, and none above: what a POP state can hold."""
    return p.done | p.inflight.keys() == set(range(p.committed, p.scanned))


def test_the_escaped_ends_of_transactions_are_taken_back_once_and_the_first_stands() -> None:
    """An acting replica's ends (their commit copies went to the escape master) become the home set's records; a
    replica's own ended progress is not taken (a partitioned old master's end was never acknowledged), nor are
    escaped check-backs (the count only paces the drop)."""
    own = apply_all(None, [StateRecord(1, TransactionEnded((0,), Resolution.COMMIT))])
    pre = start(HOME, progress_of(own), frozenset(), ["r", "e"])
    pre = take_replica(pre, "r", table())
    pre = take_escaped(pre, "e", [
        escaped(1, TransactionEnded((0, 3), Resolution.ROLLBACK)),  # 0 ended in the home log already
        escaped(2, TransactionEnded((5,), Resolution.COMMIT)),
        escaped(3, TransactionEnded((5,), Resolution.ROLLBACK)),  # a later end of 5: the first stands
        escaped(4, TransactionChecked((7,))),
    ])  # fmt: skip
    assert dict(pre.ended) == {0: Resolution.ROLLBACK, 3: Resolution.ROLLBACK, 5: Resolution.COMMIT}
    assert pre.table == {} and online(pre)
    changes = merge_changes(own, pre, 77)
    assert changes == [TransactionEnded((5,), Resolution.COMMIT), TransactionEnded((3,), Resolution.ROLLBACK)]
    after = apply_all(own, [StateRecord(own.seq + i, c) for i, c in enumerate(changes, 1)])
    assert after.transactions == OffsetProgress(1, frozenset({3, 5})) and merge_changes(after, pre, 78) == []
    assert take_escaped(pre, "e", [escaped(2, TransactionEnded((9,), Resolution.COMMIT))]).ended == pre.ended


def test_merge_changes_write_a_moved_queue_whole_and_the_delayed_messages_delivered_elsewhere() -> None:
    own = apply_all(None, [StateRecord(1, OffsetCommitted(Q, 3, 0)), StateRecord(2, TimerDelivered((0,)))])
    pre = take_escaped(
        start(HOME, progress_of(own), frozenset(), ["e"]),
        "e",
        [
            escaped(1, Popped(Q, 3, 5, (4,), (), (Delivery(3, 1, 900, 1),)), Version()),
            escaped(2, TimerDelivered((0, 2))),
        ],
    )
    changes = merge_changes(own, pre, 77)
    merged = QueueState(3, 5, MappingProxyType({3: Inflight(1, 900, 1)}), MappingProxyType({4: NO_TICKET}), 2)
    assert changes == [QueueMerged(Q, Version(), merged, 77), TimerDelivered((2,))]
    after = apply_all(own, [StateRecord(own.seq + i, c) for i, c in enumerate(changes, 1)])
    assert after.queues[Q] == merged and after.offsets[Q] == Committed(3, 77) and after.timer.done(2)
    assert merge_changes(after, pre, 78) == []


@fuzz(200)
@given(STEPS, st.integers(0, 50), ESCAPES, st.integers(0, 5), st.sets(st.integers(0, 9), max_size=3))
def test_merge_changes_make_the_own_state_the_merged_one_and_once_is_enough(
    steps: list[tuple[str, int, int]], cut: int, escapes: list[Escaped], floor: int, delivered: set[int]
) -> None:
    """The new master's own log is a prefix of an old master's, which went on; acting replicas escaped changes."""
    own, old = play(steps[:cut]).state, play(steps).state
    assert merge_changes(own, start(HOME, progress_of(own), frozenset(), []), 5) == []  # nothing newer
    pre = start(HOME, progress_of(own), frozenset(), ["old", "e"])
    pre = take_escaped(
        take_replica(pre, "old", progress_of(old), OffsetProgress(floor, frozenset(delivered))), "e", escapes
    )
    changes = merge_changes(own, pre, 5)
    records = [StateRecord(own.seq + i, c) for i, c in enumerate(changes, 1)]
    after = apply_all(own, [decode(encode(r)) for r in records])  # every change is a valid record
    mine = progress_of(after)
    for key, p in pre.table.items():
        if gapless(p):
            assert mine[key] == p
        assert mine[key].committed == p.committed and mine[key].version == p.version
    assert all(after.timer.done(o) for o in pre.timer | set(range(floor)))
    assert merge_changes(after, pre, 6) == []  # applied once, nothing is left to write


@fuzz(200)
@given(STEPS, st.integers(0, 50), st.integers(0, 50), ESCAPES)
def test_the_merge_of_the_queues_that_differ_is_the_merge_of_them_all(
    steps: list[tuple[str, int, int]], cut: int, other_cut: int, escapes: list[Escaped]
) -> None:
    """`merge_answers` joins only the queues some answer shows differently: the same records and the same keys
    taken back as the join of every queue of every answer."""
    own, replicas = play(steps[:cut]).state, [play(steps).state, play(steps[:other_cut]).state]
    pre = start(HOME, progress_of(own), frozenset(), [])
    for i, other in enumerate(replicas):
        pre = take_replica(pre, f"replica {i}", progress_of(other), other.timer)
    pre = take_escaped(pre, "e", escapes)
    changes, merged = merge_answers(own, HOME, replicas, {"e": escapes}, 5)
    assert changes == merge_changes(own, pre, 5)
    assert merged.applied == pre.applied
    assert merge_answers(own, HOME, [own], {}, 5)[0] == []  # a replica that agrees joins nothing


def test_a_merged_queue_keeps_the_own_ack_tickets_and_attempt_id() -> None:
    deliveries = tuple(Delivery(o, o + 1, 900, 1) for o in range(3))
    own = apply_all(None, [StateRecord(1, Popped(Q, 0, 3, (), (), deliveries, "a-1")), StateRecord(2, Acked(Q, 1, 2))])
    pre = take_escaped(start(HOME, progress_of(own), frozenset(), ["e"]), "e", [escaped(1, Acked(Q, 2, 3), Version())])
    [merged] = merge_changes(own, pre, 5)
    assert isinstance(merged, QueueMerged)
    assert (dict(merged.state.done), merged.state.attempt_id) == ({1: 2, 2: NO_TICKET}, "a-1")
    assert merged.state.inflight == {0: Inflight(1, 900, 1)}
