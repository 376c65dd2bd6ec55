"""The checks a controller node runs on its Raft files before pysyncobj reads them: journal commands and the
term/vote file. Pure functions over bytes; `tests/integration/test_disk_damage.py` runs them through mqcontroller.
"""

from __future__ import annotations

import os
import pickle
from typing import Any

import pytest

from controller.codec import decode_events, encode_events, entry_json
from controller.events import CleanBrokerData, ElectMaster, Event
from controller.raft import _command_problem, _meta_problem, _sealed_meta, _unpickle
from tests.harness.controller_state import BROKER

EVENTS: list[Event] = [ElectMaster(BROKER, 2, 1), CleanBrokerData(BROKER, frozenset({3}))]


def _call(blob: Any, method: Any = 0) -> bytes:
    """A journal command as pysyncobj writes a call of ``_apply(blob)``: type byte 0, pickle protocol 2."""
    return b"\x00" + pickle.dumps((method, (blob,)), 2)


class _Boom:
    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, ("exit 3",))


COMMANDS: list[tuple[str, bytes, str | None]] = [
    ("no-op", b"\x01", None),
    ("checksummed call", _call(encode_events(EVENTS)), None),
    ("call written before the checksum", _call(entry_json(encode_events(EVENTS))), None),
    ("barrier", _call(encode_events([])), None),
    ("flipped JSON", _call(encode_events(EVENTS).replace(b"broker", b"brokes")), "fails its CRC-32 check"),
    ("no-op with more", b"\x01\x00", "has type 01"),
    ("membership change", b"\x02abc", "has type 02, which this node never writes"),
    ("empty", b"", "has type nothing"),
    ("cut pickle", _call(encode_events(EVENTS))[:-3], "is not a call of the replicated method (not a readable pickle"),
    ("bytes after the pickle", _call(encode_events(EVENTS)) + b"x", "1 bytes follow its end"),
    ("pickle naming code", b"\x00" + pickle.dumps((0, (_Boom(),)), 2), "it names posix.system"),
    ("not a call", b"\x00" + pickle.dumps([1, 2], 2), "not a call of the replicated method with one argument"),
    ("another method", _call(encode_events(EVENTS), method=1), "calls replicated method 1; the only one is 0"),
    ("text, not bytes", _call("{}"), "passes a str, not bytes"),
    ("unknown frame", _call(b"\x07" + encode_events(EVENTS)[1:]), "starts with byte 0x07"),
]


@pytest.mark.parametrize(("command", "problem"), [c[1:] for c in COMMANDS], ids=[c[0] for c in COMMANDS])
def test_command_problem(command: bytes, problem: str | None) -> None:
    found = _command_problem(command)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found and "\n" not in found


def test_every_flipped_bit_of_a_command_is_refused_or_reads_the_same() -> None:
    """Flips in pickle bookkeeping (a memo slot) can leave the same call; any other flip must be refused."""
    command = _call(encode_events(EVENTS))
    same = refused = 0
    for bit in range(len(command) * 8):
        flipped = bytearray(command)
        flipped[bit // 8] ^= 1 << (bit % 8)
        if _command_problem(bytes(flipped)) is not None:
            refused += 1
        else:
            _method, (blob,) = _unpickle(bytes(flipped)[1:])
            assert decode_events(blob) == EVENTS, f"bit {bit} changed the entry and was not refused"
            same += 1
    assert refused > same > 0


ADDRESSES = frozenset({"127.0.0.1:9001", "127.0.0.1:9002", "127.0.0.1:9003"})


def _meta(**values: Any) -> bytes:
    return pickle.dumps(values, 2)


VOTE = {"raftCommitIndex": 7, "currentTerm": 3, "votedForNodeId": "127.0.0.1:9002"}

METAS: list[tuple[str, bytes, str | None]] = [
    ("sealed", _sealed_meta(VOTE), None),
    ("sealed, a digit flipped", _sealed_meta(VOTE).replace(b"K\x03", b"K\x07"), "its CRC-32 does not match"),
    ("sealed, seal cut", _sealed_meta(VOTE)[:-1], "8 bytes follow its end that are not its CRC-32 seal"),
    ("vote", _meta(raftCommitIndex=7, currentTerm=3, votedForNodeId="127.0.0.1:9002"), None),
    ("no vote", _meta(raftCommitIndex=7, currentTerm=3, votedForNodeId=None), None),
    ("commit index alone (older pysyncobj)", _meta(raftCommitIndex=1), None),
    ("empty file", b"", "not a readable pickle"),
    ("cut", _meta(raftCommitIndex=7, currentTerm=3, votedForNodeId="127.0.0.1:9002")[:-5], "not a readable pickle"),
    ("garbage after", _meta(currentTerm=3) + b"\x00", "1 bytes follow its end that are not its CRC-32 seal"),
    ("not a dict", pickle.dumps([3], 2), "it holds a list, not a dict"),
    ("unknown key", _meta(currentTerm=3, votedFor=None), "unknown keys ['votedFor']"),
    ("negative term", _meta(currentTerm=-1), "currentTerm is -1, not a non-negative integer"),
    ("term as text", _meta(currentTerm="3"), "currentTerm is '3', not a non-negative integer"),
    ("commit index as bool", _meta(raftCommitIndex=True), "raftCommitIndex is True"),
    ("vote for a stranger", _meta(currentTerm=3, votedForNodeId="127.0.0.1:9012"), "not one of the group's Raft"),
    ("pickle naming code", pickle.dumps({"currentTerm": _Boom()}, 2), "it names posix.system"),
]


@pytest.mark.parametrize(("data", "problem"), [c[1:] for c in METAS], ids=[c[0] for c in METAS])
def test_meta_problem(data: bytes, problem: str | None) -> None:
    found = _meta_problem(data, ADDRESSES)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found and "\n" not in found


def test_every_flipped_bit_of_a_sealed_meta_is_refused_or_reads_the_same() -> None:
    sealed = _sealed_meta(VOTE)
    same = refused = 0
    for bit in range(len(sealed) * 8):
        flipped = bytearray(sealed)
        flipped[bit // 8] ^= 1 << (bit % 8)
        if _meta_problem(bytes(flipped), ADDRESSES) is not None:
            refused += 1
        else:
            assert pickle.loads(bytes(flipped)) == VOTE, f"bit {bit} changed the term or vote and was not refused"
            same += 1
    assert refused > same


def test_importing_the_raft_module_leaves_the_standard_inet_ntop() -> None:
    """pysyncobj replaces ``socket.inet_ntop`` with a Windows-only one on import; controller/raft.py puts it back."""
    import socket

    import controller.raft  # noqa: F401 - imported for its effect on socket

    assert socket.inet_ntop(socket.AF_INET, b"\x7f\x00\x00\x01") == "127.0.0.1"
    assert socket.inet_ntop(socket.AF_INET6, b"\x00" * 15 + b"\x01") == "::1"
