"""RIP-32's pre-online merge: scenarios, and the join's laws over random tables and escaped changes."""

from __future__ import annotations

import random
from collections.abc import Mapping
from types import MappingProxyType

from hypothesis import given
from hypothesis import strategies as st

from agents.consumer.pre_online import (
    Escaped,
    EscapeKey,
    Pending,
    PreOnline,
    Progress,
    Table,
    Version,
    commit,
    join,
    join_tables,
    online,
    progress_of,
    start,
    take_escaped,
    take_replica,
)
from agents.consumer.records import OffsetCommitted, StateRecord
from agents.consumer.state import apply_all
from agents.pop.events import Acked, Changed, Delivery, Popped
from agents.pop.model import QueueKey
from tests.harness.fuzzing import fuzz

Q = QueueKey("G", "T", 0)
Q2 = QueueKey("G", "T", 1)
V1, V2 = Version(1, 10), Version(2, 40)
HOME = "broker-a"


def progress(
    v: Version, committed: int, done: set[int] | None = None, inflight: dict[int, Pending] | None = None
) -> Progress:
    """A progress in its normal form (``join`` normalises)."""
    raw = Progress(v, committed, frozenset(done or ()), MappingProxyType(inflight or {}))
    return join(Progress(v, committed), raw)


def table(**by_queue: Progress) -> Table:
    keys = {"q": Q, "q2": Q2}
    return MappingProxyType({keys[k]: p for k, p in by_queue.items()})


def escaped(n: int, change: OffsetCommitted | Popped | Acked | Changed, v: Version = V1, home: str = HOME) -> Escaped:
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
    home = table(q=progress(V1, 3, inflight={3: Pending(1, 100), 4: Pending(1, 100)}))
    pre = take_escaped(
        start(HOME, home, frozenset(), ["escape:broker-b"]),
        "escape:broker-b",
        [escaped(1, Acked(Q, 4, 7)), escaped(2, OffsetCommitted(Q2, 9, 0))],
    )
    assert pre.table[Q] == progress(V1, 3, done={4}, inflight={3: Pending(1, 100)})  # 4 acked: never again
    assert pre.table[Q2] == progress(V1, 9)
    assert pre.applied == {EscapeKey(2, 1, 1), EscapeKey(2, 1, 2)}


def test_an_acting_replica_s_redelivery_keeps_its_attempt_and_deadline() -> None:
    home = table(q=progress(V1, 3, inflight={3: Pending(1, 100)}))
    redelivered = Popped(Q, 3, 4, (), (), (Delivery(3, 9, 250, 2),))
    pre = take_escaped(start(HOME, home, frozenset(), []), "e", [escaped(1, redelivered)])
    assert pre.table[Q].inflight == {3: Pending(2, 250)}
    extended = take_escaped(pre, "e", [escaped(2, Changed(Q, 3, 9, 10, 400))])
    assert extended.table[Q].inflight == {3: Pending(2, 400)}


def test_a_reset_on_the_home_log_voids_what_was_decided_before_it() -> None:
    home = table(q=progress(V2, 2))  # reset back to 2 at version V2
    pre = take_escaped(start(HOME, home, frozenset(), []), "e", [escaped(1, Acked(Q, 3, 1), V1)])
    assert pre.table[Q] == progress(V2, 2)
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
    assert commit(None, 0, V2) == progress(Version(), 0)


def test_progress_of_reads_a_replica_s_consumer_state() -> None:
    records = [
        StateRecord(1, OffsetCommitted(Q2, 7, 0)),
        StateRecord(2, Popped(Q, 0, 3, (1,), (), (Delivery(0, 1, 500, 1), Delivery(2, 2, 500, 1)))),
        StateRecord(3, Acked(Q, 2, 2)),
    ]
    got = progress_of(apply_all(None, records), {Q2: V2})
    assert got == {Q: progress(Version(), 0, {1, 2}, {0: Pending(1, 500)}), Q2: progress(V2, 7)}


# --- laws --------------------------------------------------------------------------------------

VERSIONS = st.sampled_from([Version(), V1, V2])
OFFSETS = st.integers(0, 12)
PENDING = st.builds(Pending, st.integers(1, 3), st.integers(0, 300))
PROGRESS = st.builds(
    progress, VERSIONS, st.integers(0, 6), st.sets(OFFSETS, max_size=5), st.dictionaries(OFFSETS, PENDING, max_size=4)
)
QUEUES = st.sampled_from([Q, Q2])
TABLES = st.dictionaries(QUEUES, PROGRESS, max_size=2)


def change_for(n: int, queue: QueueKey, kind: int, offset: int) -> OffsetCommitted | Popped | Acked | Changed:
    """The one change key `n` names (a key always names the same change)."""
    if kind == 0:
        return OffsetCommitted(queue, offset, 0)
    if kind == 1:
        return Acked(queue, offset, 1)
    if kind == 2:
        return Changed(queue, offset, 1, 2, 50 * n)
    return Popped(queue, offset // 2, offset + 1, (), (offset // 2 + 1,), (Delivery(offset, 1, 40 * n, 1 + n % 3),))


ESCAPES = st.dictionaries(
    st.integers(0, 15),
    st.tuples(QUEUES, st.integers(0, 3), OFFSETS, VERSIONS, st.sampled_from([HOME, "broker-c"])),
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
    assert first.table == second.table and first.applied == second.applied
    assert online(first) and online(second)
    again = merge(first.table, [("escape:b", escapes)], first.applied)
    assert again.table == first.table  # taken back once: the same changes again are skipped


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
