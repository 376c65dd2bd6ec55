"""The Raft replication of the controller state: the only module that imports pysyncobj.

``RaftNode`` is a small typed facade over one ``SyncObj`` with exactly one
replicated method, ``_apply(blob)``, whose argument is a versioned JSON list of
events (``controller.codec``): no pickled objects of ours in the log, and no
method-id remapping across releases.

Durability: the Raft journal and a snapshot file live in the node's store
directory. Both are always configured together (a journal alone loses all
state after a log compaction, see docs/decisions.md). The snapshot is written
by our own serializer as JSON and fsynced, on the tick thread, so it always
matches the last applied entry.

Where pysyncobj 0.3.17 falls short of Raft, the subclass steps in (docs/reliability.md): a follower applies
Raft's AppendEntries receiver rule instead of truncating after every retransmit, the term/vote file is sealed
with a CRC-32 and fsynced, the journal is on disk before any message or commit reflects it
(``controller.journal_sync``), and a node refuses to start on a journal, term/vote file or snapshot that does not
check out.

Threading: pysyncobj's tick thread applies entries and fires callbacks; it
exits when the thread that built the ``SyncObj`` exits, so build ``RaftNode``
in the main thread. Never make a blocking Raft call from a callback.
"""

from __future__ import annotations

import base64
import codecs
import io
import json
import logging
import os
import pickle
import socket
import struct
import zlib
from _socket import inet_ntop
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pysyncobj import FAIL_REASON, SyncObj, SyncObjConf, replicated
from pysyncobj import pickle as syncobj_pickle
from pysyncobj.journal import MetaStorer

from controller.append_entries import Refuse, plan_append
from controller.codec import CodecError, decode_events, decode_state, encode_events, encode_state, entry_json
from controller.config import ControllerConfig
from controller.errors import ControllerError
from controller.events import Event
from controller.journal_sync import JournalSync
from controller.model import ControllerState
from controller.state import apply_events
from mqbase.files import atomic_write

socket.inet_ntop = inet_ntop
"""pysyncobj 0.3.x's ``win_inet_pton`` replaces ``socket.inet_ntop`` on every platform, for the whole process,
with a Windows-only one that raises TypeError (``not_windows()``): the standard one is put back."""

log = logging.getLogger(__name__)

CommitCallback = Callable[[bool, str], None]
"""Called on the tick thread with (committed, failure reason)."""

_FAIL_NAMES = {v: k for k, v in vars(FAIL_REASON).items() if isinstance(v, int)}


class RaftStartError(ControllerError, RuntimeError):
    """The node cannot start: its port is taken, or its journal/snapshot cannot be read."""


@dataclass(frozen=True, slots=True)
class RaftStatus:
    """A point-in-time view of this node's Raft state."""

    state: str
    leader_raft_address: str | None
    term: int
    commit_index: int
    last_applied: int
    has_quorum: bool
    log_length: int
    connected_peers: int


class _ReplicatedController(SyncObj):  # type: ignore[misc]
    """The SyncObj subclass; holds the state and applies committed entries."""

    def __init__(self, self_address: str, partners: list[str], conf: SyncObjConf) -> None:
        # Assigned before SyncObj.__init__, which may load a snapshot into it.
        self.controller_state = ControllerState()
        conf.serializer = self._write_snapshot
        conf.deserializer = self._read_snapshot
        super().__init__(self_address, partners, conf)
        journal = self._SyncObj__raftLog  # pysyncobj's FileJournal; its meta writer is private, hence the names
        journal._FileJournal__metaStorer = _SealedMetaStorer(journal._FileJournal__metaStorer.getPath())
        self.journal_sync = JournalSync(journal._FileJournal__journalFile, Path(conf.fullDumpFile))
        transport = self._SyncObj__transport
        transport.send = self.journal_sync.before(transport.send)

    def _onTick(self, timeToWait: float = 0.0) -> None:
        """pysyncobj's tick, after a sync: a leader's commit counts its own entries only once they are on disk."""
        self.journal_sync.sync()
        super()._onTick(timeToWait)

    def _SyncObj__onMessageReceived(self, node: Any, message: dict[str, Any]) -> None:
        """pysyncobj's message handler, with Raft's AppendEntries receiver rule (``controller.append_entries``).

        pysyncobj registers its private handler (name-mangled, hence this name) with the transport; this override
        takes over only an AppendEntries that carries entries to check against the log and is not from a stale
        term. It applies the rule to the journal, lets pysyncobj do the rest of its bookkeeping (term, leader,
        election deadline, commit index) on the same message without the entries, its commit index capped at
        what the message proved, and acknowledges what the message proved. Everything else, and every refusal,
        is pysyncobj's own code. Valid only without dynamic membership changes (never enabled here), whose
        entries pysyncobj would roll back on a deletion.
        """
        entries = self._entries_to_check(message)
        if entries is None:
            super()._SyncObj__onMessageReceived(node, message)
            return
        journal = self._SyncObj__raftLog
        prev_index = message["prevLogIdx"]
        at = prev_index - journal[0][1]
        local = [(e[1], e[2]) for e in journal[at : at + len(entries) + 1]] if at >= 0 else []
        plan = plan_append(local, prev_index, message["prevLogTerm"], [(e[1], e[2]) for e in entries])
        if isinstance(plan, Refuse):
            super()._SyncObj__onMessageReceived(node, message)  # pysyncobj refuses the same way
            return
        if plan.delete_from is not None:
            if plan.delete_from <= self.raftLastApplied:
                log.critical(
                    "the leader replaces applied Raft entries from index %d (last applied %d): this node's state "
                    "may differ from the group's",
                    plan.delete_from,
                    self.raftLastApplied,
                )
            self._SyncObj__deleteEntriesFrom(plan.delete_from)
        for entry in entries[plan.append_from :]:
            journal.add(*entry)
        if "transmission" in message:
            self._SyncObj__recvTransmission = ""
        commit_index = min(message["commit_index"], plan.matched)
        super()._SyncObj__onMessageReceived(
            node, {"type": "append_entries", "term": message["term"], "commit_index": commit_index}
        )
        self._SyncObj__sendNextNodeIdx(node, nextNodeIdx=plan.matched + 1, success=True)

    def _entries_to_check(self, message: dict[str, Any]) -> list[tuple[bytes, int, int]] | None:
        """The entries of an AppendEntries the receiver rule applies to, or None to leave `message` to pysyncobj.

        A large entry comes in chunks (``transmission`` start, process, finish); only the last one carries it.
        """
        if (
            message.get("type") != "append_entries"
            or not isinstance(message.get("prevLogIdx"), int)
            or message["term"] < self.raftCurrentTerm
        ):
            return None
        transmission = message.get("transmission")
        if transmission is None:
            return list(message.get("entries", []))
        if transmission == "finish":
            return [syncobj_pickle.loads(self._SyncObj__recvTransmission + message["data"])]
        return None

    @replicated  # type: ignore[untyped-decorator]
    def _apply(self, blob: bytes) -> int:
        try:
            events = decode_events(blob)
        except CodecError:
            # Every node decodes the same bytes, so every node skips the same entry.
            log.exception("skipping an undecodable Raft log entry")
            return 0
        self.controller_state = apply_events(self.controller_state, events)
        return len(events)

    def _write_snapshot(self, file_name: str, raft_data: tuple[Any, Any, Any]) -> None:
        last, prev, cluster = raft_data
        doc = {
            "state": json.loads(encode_state(self.controller_state)),
            "raft": {
                "lastEntry": _encode_entry(last),
                "prevEntry": _encode_entry(prev),
                "cluster": sorted(getattr(n, "id", str(n)) for n in cluster),
            },
        }
        with open(file_name, "w", encoding="utf-8") as f:
            json.dump(doc, f, separators=(",", ":"))
            f.flush()
            os.fsync(f.fileno())

    def _read_snapshot(self, file_name: str) -> tuple[Any, Any, Any]:
        try:
            with open(file_name, encoding="utf-8") as f:
                doc = json.load(f)
            self.controller_state = decode_state(json.dumps(doc["state"]).encode())
            raft = doc["raft"]
            return _decode_entry(raft["lastEntry"]), _decode_entry(raft["prevEntry"]), list(raft["cluster"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise RaftStartError(f"cannot read Raft snapshot {file_name}: {exc}") from exc


_JOURNAL_HEADER = struct.Struct("<24s8sII")
_JOURNAL_RECORD = struct.Struct("<IQQ")


def _journal_problem(data: bytes) -> str | None:
    """What is wrong with pysyncobj journal bytes (see ``RaftNode._check_journal``), or None."""
    if len(data) < _JOURNAL_HEADER.size:
        return f"{len(data)} bytes, shorter than the {_JOURNAL_HEADER.size}-byte header"
    name, _version, fmt, end = _JOURNAL_HEADER.unpack_from(data)
    if name.rstrip(b"\0") != b"PYSYNCOBJ" or fmt != 1:
        return "not a pysyncobj journal of format 1"
    if not _JOURNAL_HEADER.size <= end <= len(data):
        return f"the header says the records end at byte {end}, the file has {len(data)}"
    at, previous = _JOURNAL_HEADER.size, None
    while at < end:
        if at + _JOURNAL_RECORD.size > end:
            return f"a record at byte {at} is cut off"
        size, index, term = _JOURNAL_RECORD.unpack_from(data, at)
        if size < 16 or at + 4 + size + 4 > end or data[at + 4 + size : at + 8 + size] != data[at : at + 4]:
            return f"the record at byte {at} is torn (its two size fields disagree or it runs past the end)"
        if previous is not None and (index != previous[0] + 1 or term < previous[1]):
            return f"the record at byte {at} has index {index}, term {term} after {previous[0]}, term {previous[1]}"
        problem = _command_problem(data[at + 4 + 16 : at + 4 + size])
        if problem is not None:
            return f"the command of the record at byte {at} (index {index}) {problem}"
        previous, at = (index, term), at + 8 + size
    return None


_REGULAR, _NO_OP = 0, 1
"""pysyncobj's command types: a call of a replicated method, and a leader's empty first entry of its term."""
_APPLY_METHOD_ID = 0
"""pysyncobj numbers the replicated methods in name order; ``_apply`` is the only one."""


def _command_problem(command: bytes) -> str | None:
    """What is wrong with one journal command, or None.

    We write two kinds: pysyncobj's no-op (its type byte alone), and a call of ``_apply``: type byte 0, then
    the pickled ``(method id, (blob,))``, whose blob carries its own CRC-32 (``controller.codec``); entries of
    releases before the checksum are bare JSON and are let through unchecked.
    """
    if command == bytes([_NO_OP]):
        return None
    if command[:1] != bytes([_REGULAR]):
        return f"has type {command[:1].hex() or 'nothing'}, which this node never writes"
    try:
        call = _unpickle(command[1:])
    except ValueError as exc:
        return f"is not a call of the replicated method ({exc})"
    if not (isinstance(call, tuple) and len(call) == 2 and isinstance(call[1], tuple) and len(call[1]) == 1):
        return "is not a call of the replicated method with one argument"
    if call[0] != _APPLY_METHOD_ID:
        return f"calls replicated method {call[0]!r}; the only one is {_APPLY_METHOD_ID}"
    blob = call[1][0]
    if not isinstance(blob, bytes):
        return f"passes a {type(blob).__name__}, not bytes"
    try:
        entry_json(blob)
    except CodecError as exc:
        return f"is damaged: {exc}"
    return None


class _DataUnpickler(pickle._Unpickler):
    """Reads pysyncobj's pickles (plain data) without running anything a damaged file could name.

    The one global allowed is how pickle protocol 2 spells bytes: ``_codecs.encode(text, "latin1")``. It is the
    pure-Python unpickler: the C one allocates a flipped length field's gigabytes before it finds the data short.
    """

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("_codecs", "encode"):
            return codecs.encode
        raise pickle.UnpicklingError(f"it names {module}.{name}")


def _unpickle(data: bytes) -> Any:
    """The value pickled in `data`, which must hold nothing after it; ValueError otherwise."""
    value, end = _unpickle_prefix(data)
    if end != len(data):
        raise ValueError(f"{len(data) - end} bytes follow its end")
    return value


def _unpickle_prefix(data: bytes) -> tuple[Any, int]:
    """The value pickled at the start of `data`, and where its pickle ends; ValueError if it does not read."""
    stream = io.BytesIO(data)
    try:
        value = _DataUnpickler(stream).load()
    except Exception as exc:  # damaged pickles raise many kinds (UnpicklingError, EOFError, KeyError, ...)
        raise ValueError(f"not a readable pickle: {type(exc).__name__}: {exc}") from exc
    return value, stream.tell()


_META_INTS = ("raftCommitIndex", "currentTerm")
_META_SEAL = b"CRC32"
"""Follows the pickle in a term/vote file we wrote, then the CRC-32 of the pickle (u32 big-endian)."""


def _sealed_meta(meta: dict[str, Any]) -> bytes:
    """The term/vote file's bytes: pysyncobj's pickle, which pysyncobj reads ignoring what follows, then a seal."""
    data: bytes = syncobj_pickle.dumps(meta)
    return data + _META_SEAL + zlib.crc32(data).to_bytes(4, "big")


class _SealedMetaStorer(MetaStorer):  # type: ignore[misc]
    """pysyncobj's writer of ``raft.journal.meta``, with a CRC-32 seal after the pickle (``_meta_problem``), and
    fsynced (pysyncobj's own only flushes to the page cache)."""

    def storeMeta(self, meta: dict[str, Any]) -> None:
        atomic_write(Path(self.getPath()), _sealed_meta(meta))  # durable before the vote or request it records


def _meta_problem(data: bytes, addresses: frozenset[str]) -> str | None:
    """What is wrong with pysyncobj's ``raft.journal.meta`` bytes, or None.

    It is the pickled dict of the node's commit index, current term and vote (``votedForNodeId``: the Raft
    address it voted for in that term, or None). pysyncobj reads anything it cannot unpickle as an empty dict:
    term 0 and no vote, so the node could vote a second time in a term. We seal what we write with a CRC-32
    (``_SealedMetaStorer``); a file without the seal (pysyncobj's own, before this release) gets the structural
    checks alone. `addresses` are the group's Raft addresses; a vote for any other is damage.
    """
    try:
        meta, end = _unpickle_prefix(data)
    except ValueError as exc:
        return str(exc)
    seal = data[end:]
    if seal and seal != _META_SEAL + zlib.crc32(data[:end]).to_bytes(4, "big"):
        if len(seal) == len(_META_SEAL) + 4 and seal.startswith(_META_SEAL):
            return f"its CRC-32 does not match (stored {seal[-4:].hex()}, computed {zlib.crc32(data[:end]):08x})"
        return f"{len(seal)} bytes follow its end that are not its CRC-32 seal"
    if not isinstance(meta, dict):
        return f"it holds a {type(meta).__name__}, not a dict"
    unknown = sorted(map(str, set(meta) - {*_META_INTS, "votedForNodeId"}))
    if unknown:
        return f"unknown keys {unknown}"
    for key in _META_INTS:
        value = meta.get(key, 0)
        if type(value) is not int or value < 0:
            return f"{key} is {value!r}, not a non-negative integer"
    vote = meta.get("votedForNodeId")
    if vote is not None and vote not in addresses:
        return f"votedForNodeId is {vote!r}, not one of the group's Raft addresses"
    return None


def _encode_entry(entry: tuple[bytes, int, int]) -> list[Any]:
    command, index, term = entry
    return [base64.b64encode(command).decode(), index, term]


def _decode_entry(doc: list[Any]) -> tuple[bytes, int, int]:
    return base64.b64decode(doc[0]), int(doc[1]), int(doc[2])


def _conf(config: ControllerConfig, store: Path) -> SyncObjConf:
    ms = 1000.0
    return SyncObjConf(
        appendEntriesUseBatch=False,  # batching costs 100-200 ms per write
        appendEntriesPeriod=config.raft_append_entries_period_ms / ms,
        raftMinTimeout=config.raft_min_timeout_ms / ms,
        raftMaxTimeout=config.raft_max_timeout_ms / ms,
        connectionTimeout=max(config.raft_max_timeout_ms / ms, 0.6),
        connectionRetryTime=config.raft_connection_retry_ms / ms,
        leaderFallbackTimeout=config.raft_leader_fallback_timeout_ms / ms,
        logCompactionMinEntries=config.raft_log_compaction_min_entries,
        logCompactionMinTime=config.raft_log_compaction_min_time_ms / ms,
        journalFile=str(store / "raft.journal"),
        fullDumpFile=str(store / "raft.snapshot"),
        maxBindRetries=5,
        bindRetryTime=0.2,
        commandsWaitLeader=False,
        dynamicMembershipChange=False,
        password=config.raft_password or None,  # authenticates and encrypts peer traffic (needs `cryptography`)
    )


class RaftNode:
    """One controller's Raft member: replicated state, commit, leadership and status."""

    def __init__(self, config: ControllerConfig) -> None:
        store = config.node_store_dir
        store.mkdir(parents=True, exist_ok=True)
        self._check_snapshot(store / "raft.snapshot")
        self._check_journal(store / "raft.journal")
        self._check_meta(store / "raft.journal.meta", frozenset(p.raft_address for p in config.controller_peers))
        me = config.self_peer
        partners = [p.raft_address for p in config.controller_peers if p.node_id != me.node_id]
        self._by_raft_address = {p.raft_address: p for p in config.controller_peers}
        try:
            self._obj = _ReplicatedController(me.raft_address, partners, _conf(config, store))
        except RaftStartError:
            raise
        except Exception as exc:  # pysyncobj raises bare exceptions on a damaged journal
            raise RaftStartError(f"cannot open the Raft journal in {store}: {exc!r}") from exc
        try:
            self._obj.waitBinded()
        except Exception as exc:
            self._obj.destroy()
            raise RaftStartError(f"cannot bind Raft port {me.raft_address}: {exc}") from exc

    @staticmethod
    def _check_journal(path: Path) -> None:
        """Refuse to start on a damaged journal: pysyncobj reads it without any check, so a truncated header reads
        as an empty log and a torn or flipped record as other entries, and the node would vote and serve on them.

        pysyncobj's layout: a 40-byte header (name, version, format 1, end offset u32 LE), then records
        ``size u32 | index u64 | term u64 | command | size u32`` up to the end offset; indexes follow on by one
        and terms never decrease. Each command must be one this node writes, its entry's checksum intact
        (``_command_problem``): a flipped command is refused here rather than replayed.
        """
        if not path.exists():
            return
        data = path.read_bytes()
        problem = _journal_problem(data)
        if problem is not None:
            raise RaftStartError(
                f"the Raft journal {path} is damaged ({problem}). Stop this node, clear its store directory "
                f"{path.parent} (move it away) and start it again: it catches up from its peers"
            )

    @staticmethod
    def _check_meta(path: Path, addresses: frozenset[str]) -> None:
        """Refuse to start on a damaged term/vote file, which pysyncobj would read as "no vote" (``_meta_problem``)."""
        if not path.exists():
            return
        problem = _meta_problem(path.read_bytes(), addresses)
        if problem is not None:
            raise RaftStartError(
                f"the Raft term and vote file {path} is damaged ({problem}). Stop this node, clear its store "
                f"directory {path.parent} (move it away) and start it again: it catches up from its peers"
            )

    @staticmethod
    def _check_snapshot(path: Path) -> None:
        """Refuse to start on a damaged snapshot rather than serve wrong (empty) state."""
        if not path.exists():
            return
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            decode_state(json.dumps(doc["state"]).encode())
            _ = doc["raft"]["lastEntry"], doc["raft"]["prevEntry"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise RaftStartError(
                f"the Raft snapshot {path} is damaged ({exc}); move it and the journal next to it away "
                f"(or clear the store directory {path.parent}) to let this node catch up from its peers"
            ) from exc

    @property
    def state(self) -> ControllerState:
        """The state as of the last applied entry (an immutable snapshot; safe from any thread)."""
        return self._obj.controller_state

    def is_leader(self) -> bool:
        return bool(self._obj._isLeader())

    def leader_raft_address(self) -> str | None:
        leader = self._obj._getLeader()
        return None if leader is None else str(getattr(leader, "address", leader))

    def leader_node_id(self) -> str | None:
        """The controller id of the current leader, if known."""
        address = self.leader_raft_address()
        peer = self._by_raft_address.get(address) if address else None
        return peer.node_id if peer else None

    def term(self) -> int:
        return int(self._obj.raftCurrentTerm)

    def commit(self, events: tuple[Event, ...], callback: CommitCallback) -> None:
        """Append one entry holding `events`; `callback` fires once it is applied here (or fails)."""

        def done(_result: Any, error: int) -> None:
            if error == FAIL_REASON.SUCCESS:
                callback(True, "")
            else:
                callback(False, _FAIL_NAMES.get(error, str(error)))

        self._obj._apply(encode_events(events), callback=done)

    def status(self) -> RaftStatus:
        """Raft health for GetControllerMetadata and metrics."""
        for _ in range(3):
            try:
                s = self._obj.getStatus()
                break
            except RuntimeError:  # a dict changed size under the tick thread; read again
                continue
        else:
            s = {}
        state = {0: "follower", 1: "candidate", 2: "leader"}.get(s.get("state", -1), "unknown")
        connected = sum(1 for k, v in s.items() if k.startswith("partner_node_status_server_") and v == 2)
        return RaftStatus(
            state=state,
            leader_raft_address=self.leader_raft_address(),
            term=int(s.get("raft_term", 0)),
            commit_index=int(s.get("commit_idx", 0)),
            last_applied=int(s.get("last_applied", 0)),
            has_quorum=bool(s.get("has_quorum", False)),
            log_length=int(s.get("log_len", 0)),
            connected_peers=connected,
        )

    def destroy(self) -> None:
        """Stop the tick thread and close sockets and files."""
        self._obj.destroy()
