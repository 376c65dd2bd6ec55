"""The single-writer proposer: barrier, group commit, cancelled callers, failed commits.

A small in-memory stand-in replaces the Raft member (the seam the proposer talks to);
it applies committed events with the real ``apply_events``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import pytest

from controller.proposer import Proposer
from controller.requests import (
    ApplyBrokerIdRequest,
    GetNextBrokerIdRequest,
    GetReplicaInfoRequest,
    GetSyncStateDataRequest,
    NextBrokerIdReply,
    Result,
)
from mqbase.codes import ResponseCode
from tests.harness.controller_state import InMemoryRaft, reply_of


def apply_request(broker_id: int, broker_name: str = "b") -> ApplyBrokerIdRequest:
    return ApplyBrokerIdRequest("c", broker_name, broker_id, f"127.0.0.1:{9000 + broker_id};1")


def run_batch(raft: InMemoryRaft, submit: Callable[[Proposer], list[Future[Result[Any]]]]) -> list[Result[Any]]:
    """Queue requests before the writer starts, so they form one batch after the barrier."""
    proposer = Proposer(raft, alive=dict, allow_unclean=lambda: False, clock=time.monotonic)  # type: ignore[arg-type]
    futures = submit(proposer)
    proposer.start()
    try:
        return [f.result(timeout=10) for f in futures if not f.cancelled()]
    finally:
        proposer.stop()


def test_queued_requests_are_committed_as_one_entry_after_the_barrier() -> None:
    raft = InMemoryRaft()
    results = run_batch(raft, lambda p: [p.submit(apply_request(1, f"set-{i}")) for i in range(50)])
    assert [r.code for r in results] == [ResponseCode.SUCCESS] * 50
    assert raft.commits[0] == (), "the leader barrier (an empty entry) comes first"
    assert len(raft.commits) == 2 and len(raft.commits[1]) == 50
    assert len(raft.state) == 50


def test_later_requests_in_a_batch_see_earlier_ones() -> None:
    raft = InMemoryRaft()
    results = run_batch(
        raft,
        lambda p: [
            p.submit(apply_request(1)),
            p.submit(GetNextBrokerIdRequest("c", "b")),
            p.submit(apply_request(2)),
        ],
    )
    assert reply_of(results[1], NextBrokerIdReply).next_broker_id == 2
    assert results[2].code == ResponseCode.SUCCESS


def test_a_caller_that_gave_up_does_not_stop_the_rest_of_its_batch() -> None:
    raft = InMemoryRaft()

    def submit(p: Proposer) -> list[Future[Result[Any]]]:
        futures = [p.submit(apply_request(1, f"set-{i}")) for i in range(10)]
        assert futures[3].cancel(), "a pending future can be cancelled (client deadline)"
        return futures

    results = run_batch(raft, submit)
    assert len(results) == 9
    assert all(r.code == ResponseCode.SUCCESS for r in results)
    assert len(raft.state) == 10, "the cancelled caller's request was still decided and committed"


def test_a_failed_commit_fails_every_request_of_the_batch() -> None:
    raft = InMemoryRaft()
    proposer = Proposer(raft, alive=dict, allow_unclean=lambda: False, clock=time.monotonic)  # type: ignore[arg-type]
    proposer.start()
    try:
        assert proposer.submit(GetNextBrokerIdRequest("c", "b")).result(timeout=10).ok  # past the barrier
        raft.fail_commits = True
        futures = [proposer.submit(apply_request(1)), proposer.submit(GetNextBrokerIdRequest("c", "b"))]
        codes = {f.result(timeout=10).code for f in futures}
    finally:
        proposer.stop()
    assert codes == {ResponseCode.CONTROLLER_NOT_LEADER}
    assert len(raft.state) == 0


def test_a_batch_of_reads_commits_a_barrier_unless_all_are_plain() -> None:
    raft = InMemoryRaft()
    results = run_batch(
        raft, lambda p: [p.submit(GetReplicaInfoRequest("b")), p.submit(GetSyncStateDataRequest(broker_names=("b",)))]
    )
    assert ResponseCode.CONTROLLER_NOT_LEADER not in {r.code for r in results}
    assert raft.commits == [(), ()], "the leader barrier, then the read barrier"
    raft = InMemoryRaft()
    run_batch(raft, lambda p: [p.submit(GetSyncStateDataRequest()), p.submit(GetNextBrokerIdRequest("c", "b"))])
    assert raft.commits == [()], "plain reads need no barrier of their own"


def test_a_leader_that_cannot_commit_refuses_the_lease_question_but_answers_plain_reads() -> None:
    """A deposed leader that does not know it yet (its entries no longer commit) must not say who is master."""
    raft = InMemoryRaft()
    run_batch(raft, lambda p: [p.submit(apply_request(1))])
    raft.commits_allowed = len(raft.commits) + 1  # the next leader barrier passes, nothing after it
    lease, plain = run_batch(
        raft, lambda p: [p.submit(GetReplicaInfoRequest("b")), p.submit(GetSyncStateDataRequest(broker_names=("b",)))]
    )
    assert lease.code == ResponseCode.CONTROLLER_NOT_LEADER and lease.reply is None
    assert "could not confirm" in lease.remark
    assert plain.ok and plain.reply is not None and len(plain.reply.replicas_info) == 1


def test_an_answer_is_refused_when_the_term_changed_while_its_entry_committed() -> None:
    raft = InMemoryRaft()
    proposer = Proposer(raft, alive=dict, allow_unclean=lambda: False, clock=time.monotonic)  # type: ignore[arg-type]
    proposer.start()
    try:
        assert proposer.submit(apply_request(1)).result(timeout=10).ok
        raft.new_term_on_commit = True
        lease = proposer.submit(GetReplicaInfoRequest("b")).result(timeout=10)
    finally:
        proposer.stop()
    assert lease.code == ResponseCode.CONTROLLER_NOT_LEADER


def test_a_follower_answers_not_leader_at_once() -> None:
    raft = InMemoryRaft()
    raft.leader = False
    proposer = Proposer(raft, alive=dict, allow_unclean=lambda: False, clock=time.monotonic)  # type: ignore[arg-type]
    result = proposer.submit(apply_request(1)).result(timeout=1)
    assert result.code == ResponseCode.CONTROLLER_NOT_LEADER
    assert not proposer.serving


@pytest.mark.parametrize("leader", [True, False])
def test_stop_answers_queued_requests_not_leader(leader: bool) -> None:
    raft = InMemoryRaft()
    proposer = Proposer(raft, alive=dict, allow_unclean=lambda: False, clock=time.monotonic)  # type: ignore[arg-type]
    futures = [proposer.submit(apply_request(1, f"s{i}")) for i in range(3)]
    raft.leader = leader
    proposer.stop()
    assert {f.result(timeout=1).code for f in futures} == {ResponseCode.CONTROLLER_NOT_LEADER}
    assert proposer.submit(apply_request(9)).result(timeout=1).code == ResponseCode.CONTROLLER_NOT_LEADER
