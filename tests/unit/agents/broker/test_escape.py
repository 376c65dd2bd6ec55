"""The escape shell's own choices: the wire of escaped changes, and which master an escape goes to (a master the
same agent hosts before the cluster's, the controllers' last list while they do not answer, the replica's own
journal when none can take them)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agents.broker.consumer_checks import Refused
from agents.broker.escape import JOURNAL, EscapeLink, decode_escaped, decode_released, encode_escaped
from agents.broker.escape_journal import EscapeJournal
from agents.consumer.records import Escaped, EscapeKey, EscapeReleased, TimerDelivered, Version
from agents.pop.events import Acked
from agents.pop.model import QueueKey
from agents.store.record import Message
from mqbase.errors import MqError
from mqbase.proto import controller_pb2 as cpb
from mqbase.security import PLAINTEXT

HOME = "broker-a"
KEY = QueueKey("g", "t", 1)
COPY = Message("t", 0, b"due", {}, 0)


def escaped(n: int) -> Escaped:
    return Escaped(HOME, EscapeKey(2, 1_700_000_000_000, n), Version(3, 40), Acked(KEY, 10 + n, 5))


class Master:
    """A neighbour's escape side that keeps what it is given."""

    def __init__(self) -> None:
        self.taken: list[tuple[str, list[Escaped], list[Message]]] = []
        self.released: list[EscapeReleased] = []

    def take_escaped(self, home: str, changes: Sequence[Escaped], copies: Sequence[Message]) -> None:
        self.taken.append((home, list(changes), list(copies)))

    def escaped_for(self, home: str) -> list[Escaped]:
        return [c for h, cs, _ in self.taken if h == home for c in cs]

    def release_escaped(self, released: EscapeReleased) -> None:
        self.released.append(released)


class Neighbour:
    def __init__(self, name: str, master: bool, cluster: str = "c", follows: str = "") -> None:
        """`follows`: the master a slave last learnt ("" unknown)."""
        self.name, self.master, self.cluster, self.follows = name, master, cluster, follows
        self.intake = Master()

    def cluster_and_name(self) -> tuple[str, str]:
        return self.cluster, self.name

    def broker_address(self) -> str:
        return f"127.0.0.1:{ord(self.name[-1])}"

    def is_master(self) -> bool:
        return self.master

    def master_address(self) -> str:
        return self.broker_address() if self.master else self.follows


class Controller:
    """The controllers' GetSyncStateData of the cluster, or no answer."""

    def __init__(self) -> None:
        self.masters: dict[str, str] = {}
        self.up = True

    def __call__(self, method: str, request: Any) -> Any:
        assert method == "GetSyncStateData" and request.cluster_name == "c"
        if not self.up:
            raise MqError("no controller answers")
        reply = cpb.GetSyncStateDataResponse()
        for name, address in self.masters.items():
            reply.replicas_info.add(cluster_name="c", broker_name=name, master_address=address)
        reply.replicas_info.add(cluster_name="c", broker_name="broker-z")  # no master: not a target
        return reply


def link(neighbours: list[Neighbour], controller: Controller, journal: Path | None = None) -> EscapeLink:
    """`journal`: the folder of the replica's escape journal (one that cannot be written when None)."""
    return EscapeLink("c", HOME, lambda: neighbours, controller, PLAINTEXT, EscapeJournal(journal or Path("/proc")))


def test_escaped_changes_cross_the_wire_unchanged() -> None:
    changes = [escaped(1), Escaped(HOME, EscapeKey(2, 1, 2), Version(), TimerDelivered((4, 9)))]
    assert decode_escaped(encode_escaped(changes)) == changes
    assert decode_escaped(encode_escaped([])) == []
    released = EscapeReleased(HOME, (EscapeKey(2, 1, 1), EscapeKey(2, 1, 2)))
    assert decode_released(encode_escaped([released])) == released


def test_a_body_of_another_kind_is_refused() -> None:
    released = EscapeReleased(HOME, (EscapeKey(2, 1, 1),))
    with pytest.raises(ValueError, match="not an escaped change"):
        decode_escaped(encode_escaped([released]))
    with pytest.raises(ValueError, match="exactly one"):
        decode_released(encode_escaped([escaped(1)]))
    with pytest.raises(ValueError, match="exactly one"):
        decode_released(b"")


def test_a_master_in_the_same_agent_takes_the_escape() -> None:
    b, own, other_cluster = Neighbour("broker-b", True), Neighbour(HOME, True), Neighbour("broker-c", True, "x")
    controller = Controller()
    controller.masters = {"broker-a": "127.0.0.1:1", "broker-b": "127.0.0.1:2", "broker-d": "127.0.0.1:4"}
    escape = link([own, b, other_cluster], controller)
    assert escape.send([escaped(1)], [], lambda _name: True) == "broker-b"
    assert b.intake.taken == [(HOME, [escaped(1)], [])]
    assert own.intake.taken == [] and other_cluster.intake.taken == []
    assert escape.held("broker-b", "unused") == [escaped(1)]
    escape.release("broker-b", "unused", [escaped(1).key])
    assert b.intake.released == [EscapeReleased(HOME, (escaped(1).key,))]


def test_a_local_master_that_cannot_take_the_copies_is_passed_over() -> None:
    b = Neighbour("broker-b", True)
    escape = link([b], Controller())
    with pytest.raises(Refused, match="no other set"):
        escape.send([escaped(1)], [COPY], lambda name: name != "broker-b")
    assert b.intake.taken == []


def test_the_masters_are_the_controllers_last_list_and_the_local_ones() -> None:
    controller = Controller()
    controller.masters = {"broker-a": "127.0.0.1:1", "broker-d": "127.0.0.1:4"}
    escape = link([Neighbour("broker-b", True), Neighbour("broker-e", False)], controller)
    assert escape.masters() == {"broker-d": "127.0.0.1:4", "broker-b": "127.0.0.1:98"}
    controller.up = False  # the last list stays
    assert escape.masters() == {"broker-d": "127.0.0.1:4", "broker-b": "127.0.0.1:98"}
    controller.up, controller.masters = True, {}
    assert escape.masters() == {"broker-b": "127.0.0.1:98"}


def test_a_master_moved_after_the_last_list_is_found_where_the_local_slave_follows_it() -> None:
    """The list is asked every few seconds; a transfer just before the controllers went down is not in it, but a
    replica of that set in this agent learnt its new master with its role."""
    controller = Controller()
    controller.masters = {"broker-d": "127.0.0.1:4", "broker-f": "127.0.0.1:6"}
    follower = Neighbour("broker-d", False, follows="127.0.0.1:44")
    escape = link(
        [follower, Neighbour("broker-f", False), Neighbour("broker-g", False, "x", "127.0.0.1:7")], controller
    )
    assert escape.masters() == {"broker-d": "127.0.0.1:4", "broker-f": "127.0.0.1:6"}  # the controllers say
    controller.up = False
    assert escape.masters() == {"broker-d": "127.0.0.1:44", "broker-f": "127.0.0.1:6"}
    follower.follows = ""  # nothing learnt: the last list
    assert escape.masters() == {"broker-d": "127.0.0.1:4", "broker-f": "127.0.0.1:6"}


def test_with_no_master_anywhere_changes_go_to_the_journal_and_copies_are_refused(tmp_path: Path) -> None:
    idle = Neighbour("broker-b", False)
    controller = Controller()
    controller.up = False
    escape = link([idle], controller, tmp_path)
    with pytest.raises(Refused, match="retry"):
        escape.send([escaped(1)], [COPY], lambda _name: True)  # a copy needs a set that serves its topic
    assert escape.journal.held() == [] and idle.intake.taken == []
    assert escape.send([escaped(2)], [], lambda _name: True) == JOURNAL
    assert escape.journal.held() == [escaped(2)] and idle.intake.taken == []
    assert EscapeJournal(tmp_path).held() == [escaped(2)]  # on disk


def test_an_unreachable_escape_master_sends_the_changes_to_the_journal(tmp_path: Path) -> None:
    controller = Controller()
    controller.masters = {"broker-b": "127.0.0.1:1"}  # nothing listens there
    escape = link([], controller, tmp_path)
    assert escape.send([escaped(1)], [], lambda _name: True) == JOURNAL
    assert escape.journal.held() == [escaped(1)]
    with pytest.raises(Refused, match="escape to broker-b failed"):
        escape.send([escaped(2)], [COPY], lambda _name: True)
    assert escape.journal.held() == [escaped(1)]


def test_a_journal_that_cannot_be_written_refuses_with_a_reason() -> None:
    with pytest.raises(Refused, match="the escape journal cannot write"):
        link([], Controller()).send([escaped(1)], [], lambda _name: True)
