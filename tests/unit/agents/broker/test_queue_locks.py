"""The broker's side of RIP-32's lock quorum: request checks, this replica's table, and the coordinator's count
when peers do not answer (the agents' answers are tested in tests/integration/test_lock_quorum.py)."""

from __future__ import annotations

from agents.broker.queue_locks import Batch, QueueLocks, batch_problem, keys_of
from agents.pop.model import QueueKey
from mqbase.security import SecurityConfig
from tests.harness.clock import ManualClock

KEYS = keys_of("G", "T", [0, 1])
UNREACHABLE = "127.0.0.1:1"  # nothing listens on port 1


def table(*, fresh: bool = False) -> QueueLocks:
    """A replica's table with a 60 s lock life; unless `fresh`, past its start's grace (one lock life), so it grants
    at once."""
    clock = ManualClock()
    locks = QueueLocks("b", lambda: 60_000, SecurityConfig().client(), clock)
    if not fresh:
        clock.advance(60.001)
    return locks


def test_bad_requests_are_named() -> None:
    assert batch_problem("1", "G", "T", [0, 1], 0) is None
    assert batch_problem("", "G", "T", [0], 0) == "owner is empty"
    assert batch_problem("1", "", "T", [0], 0) == "group is empty"
    assert batch_problem("1", "G", "T" * 300, [0], 0) == "topic is longer than 127 characters"
    assert batch_problem("1", "G", "T", [0, -2], 0) == "queue ids [-2] are negative"
    assert batch_problem("1", "G", "T", [0], -1) == "life_millis -1 is negative"


def test_a_restarted_replica_grants_nothing_for_one_lock_life_unless_it_decides_alone() -> None:
    t = table(fresh=True)
    assert t.lock_batch(Batch("1", KEYS, 60_000)) == frozenset()
    assert t.acquire(KEYS, "1", strict=True, self_id=1, peers={1: "self"}) == frozenset()
    assert t.acquire(KEYS, "1", strict=False, self_id=1, peers={}) == KEYS  # not strict: no majority to protect
    assert t.lock_batch(Batch("2", KEYS, 60_000)) == frozenset()  # still within the start's grace


def test_one_owner_at_a_time_and_only_the_owner_unlocks() -> None:
    t = table()
    assert t.lock_batch(Batch("1", KEYS, 60_000)) == KEYS
    assert t.lock_batch(Batch("2", KEYS, 60_000)) == frozenset()
    assert t.unlock_batch(Batch("2", KEYS, 0)) == frozenset()
    assert t.unlock_batch(Batch("1", keys_of("G", "T", [1]), 0)) == {QueueKey("G", "T", 1)}
    assert t.lock_batch(Batch("2", KEYS, 60_000)) == {QueueKey("G", "T", 1)} and t.alive() == 2


def test_non_strict_takes_the_local_grant_strict_needs_a_majority_of_the_known_replicas() -> None:
    t = table()
    assert t.acquire(KEYS, "1", strict=False, self_id=1, peers={}) == KEYS
    assert t.acquire(KEYS, "1", strict=True, self_id=1, peers={}) == frozenset()  # no replica known: no quorum
    assert t.acquire(KEYS, "1", strict=True, self_id=1, peers={1: "self", 2: UNREACHABLE}) == frozenset()
    assert t.acquire(KEYS, "1", strict=True, self_id=1, peers={1: "self"}) == KEYS  # a set of one
    assert t.refusals == 4


def test_release_frees_the_local_locks_even_when_peers_do_not_answer() -> None:
    t = table()
    t.acquire(KEYS, "1", strict=False, self_id=1, peers={})
    t.release(1, {1: "self", 2: UNREACHABLE})
    assert t.alive() == 0 and t.lock_batch(Batch("2", KEYS, 60_000)) == KEYS
