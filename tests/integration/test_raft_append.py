"""A follower's journal under retransmitted and conflicting AppendEntries, through pysyncobj's real message handler.

A ``_ReplicatedController`` with its real file journal (not ticking: the test delivers each message itself, as its
transport would) gets the messages a leader sends; its replies are recorded from its transport. After every
message the journal file on disk must hold every entry the node has acknowledged to that term's leader. pysyncobj
0.3.17 alone deleted everything after ``prevLogIdx`` on a retransmit, so the file held fewer (docs/benchmarks.md).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.config import ControllerConfig, Peer
from controller.raft import _conf, _ReplicatedController, _sealed_meta
from mqbase.ports import free_ports
from tests.harness.chaos.cluster import journal_entries

pytestmark = [pytest.mark.integration]

NO_OP = b"\x01"  # the command pysyncobj's leaders write first in a term; the content does not matter here


class Follower:
    """One follower node and the leader's view of it: what it acknowledged, per leader term."""

    def __init__(self, store: Path) -> None:
        me, leader, grpc_me, grpc_leader = free_ports(4)
        config = ControllerConfig(
            controller_peers=(Peer("n0", "127.0.0.1", me, grpc_me), Peer("n1", "127.0.0.1", leader, grpc_leader)),
            controller_self_id="n0",
            controller_store_path=str(store),
        )
        config.node_store_dir.mkdir(parents=True)
        self.journal = config.node_store_dir / "raft.journal"
        conf = _conf(config, config.node_store_dir)
        conf.autoTick = False
        self.node = _ReplicatedController(f"127.0.0.1:{me}", [f"127.0.0.1:{leader}"], conf)
        self.leader = next(iter(self.node.otherNodes))
        self.replies: list[dict[str, Any]] = []
        self.node._SyncObj__transport.send = lambda _node, message: self.replies.append(message)
        self.acked: dict[int, int] = {}

    def deliver(self, term: int, prev: tuple[int, int], entries: list[tuple[int, int]], commit: int = 1) -> None:
        """An AppendEntries of the leader of `term`; record what the follower acknowledged."""
        self.send(
            term,
            prev,
            {"entries": [(NO_OP, index, entry_term) for index, entry_term in entries], "commit_index": commit},
        )

    def send(self, term: int, prev: tuple[int, int], fields: dict[str, Any]) -> None:
        message = {"type": "append_entries", "term": term, "prevLogIdx": prev[0], "prevLogTerm": prev[1], **fields}
        self.replies.clear()
        self.node._SyncObj__onMessageReceived(self.leader, message)
        for reply in self.replies:
            if reply["type"] == "next_node_idx" and reply["success"]:
                self.acked[term] = max(self.acked.get(term, 0), reply["next_node_idx"] - 1)

    def on_disk(self) -> list[tuple[int, int]]:
        return [(index, term) for _command, index, term in journal_entries(self.journal)]

    def check_holds_what_it_acked(self, term: int) -> None:
        on_disk = self.on_disk()
        assert on_disk[-1][0] >= self.acked[term], (
            f"acknowledged index {self.acked[term]} to the leader of term {term}, the journal holds {on_disk}"
        )


@pytest.fixture
def follower(tmp_path: Path) -> Iterator[Follower]:
    f = Follower(tmp_path)
    yield f
    f.node.destroy()


def test_a_retransmitted_append_entries_keeps_what_was_acknowledged(follower: Follower) -> None:
    follower.deliver(1, (1, 0), [(2, 1), (3, 1), (4, 1)])
    assert follower.acked[1] == 4
    follower.deliver(1, (1, 0), [(2, 1)])  # the leader's earlier send of entry 2, answered after the later one
    follower.check_holds_what_it_acked(1)
    assert follower.on_disk() == [(1, 0), (2, 1), (3, 1), (4, 1)]
    assert follower.replies[-1]["next_node_idx"] == 3, "it acknowledges what this message proved, no more"


def test_a_heartbeat_behind_the_end_deletes_nothing(follower: Follower) -> None:
    follower.deliver(1, (1, 0), [(2, 1), (3, 1)])
    follower.deliver(1, (2, 1), [])
    follower.check_holds_what_it_acked(1)
    assert follower.on_disk() == [(1, 0), (2, 1), (3, 1)]


def test_a_retransmitted_large_entry_keeps_what_was_acknowledged(follower: Follower) -> None:
    """An entry at least appendEntriesBatchSizeBytes long comes in chunks; the last one carries it."""
    follower.deliver(1, (1, 0), [(2, 1), (3, 1)])
    entry = pickle.dumps((NO_OP, 2, 1), 2)
    follower.send(1, (1, 0), {"transmission": "start", "data": entry[:5], "commit_index": 1})
    follower.send(1, (1, 0), {"transmission": "finish", "data": entry[5:], "commit_index": 1})
    follower.check_holds_what_it_acked(1)
    assert follower.on_disk() == [(1, 0), (2, 1), (3, 1)]


def test_a_new_leader_replaces_the_conflicting_entries_only(follower: Follower) -> None:
    follower.deliver(1, (1, 0), [(2, 1), (3, 1), (4, 1)])
    follower.deliver(2, (2, 1), [(3, 2)])
    assert follower.on_disk() == [(1, 0), (2, 1), (3, 2)]
    assert follower.acked[2] == 3
    follower.deliver(2, (1, 0), [(2, 1)])  # a late retransmit of the new leader: nothing conflicts
    follower.check_holds_what_it_acked(2)
    assert follower.on_disk() == [(1, 0), (2, 1), (3, 2)]


def test_the_commit_index_stops_at_what_the_message_proved(follower: Follower) -> None:
    """Entries past the message's are unchecked: the old leader's (3, 1) must not count as committed at 3."""
    follower.deliver(1, (1, 0), [(2, 1), (3, 1)])
    follower.deliver(2, (1, 0), [(2, 1)], commit=3)  # the new leader's log is (2, 1), (3, 2), committed to 3
    assert follower.node.raftCommitIndex <= 2
    follower.deliver(2, (2, 1), [(3, 2)], commit=3)
    assert follower.on_disk() == [(1, 0), (2, 1), (3, 2)]
    assert follower.node.raftCommitIndex == 3


def test_a_message_that_does_not_match_is_refused_and_changes_nothing(follower: Follower) -> None:
    follower.deliver(1, (1, 0), [(2, 1)])
    follower.deliver(1, (5, 1), [(6, 1)])
    follower.deliver(1, (2, 3), [(3, 3)])
    assert [r["success"] for r in follower.replies] == [False]
    assert follower.on_disk() == [(1, 0), (2, 1)]
    assert follower.acked[1] == 2


def test_the_term_and_vote_file_is_written_sealed(follower: Follower) -> None:
    """pysyncobj's pickle, then our CRC-32 seal: a flipped term or vote is refused at the next start."""
    follower.deliver(3, (1, 0), [])
    meta = follower.journal.with_name("raft.journal.meta").read_bytes()
    assert meta == _sealed_meta({"currentTerm": 3, "votedForNodeId": None})
