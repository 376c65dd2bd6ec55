"""RIP-32 escape, the shell: where an acting replica's consumer changes go, and the calls that carry them.

A replica acting as its set's read-only master (``agents.ha.acting``) never writes its own log. What its consumers
change (deliveries, acks, invisibility, forward offset commits) and the delayed messages falling due escape to
the master of another set of the cluster, which stores them as ``Escaped`` records of its own log naming their home
set (``EscapeIntake.take_escaped``), replicated like any record of that set. ``acting.escape_target`` picks it:
a master the same agent hosts first (RIP-31's local escape, a direct call), else one of the cluster's (the escape
bridge, over the agent API). When no other set has a master, or the one picked does not store them (unreachable, or
its SyncStateSet cannot acknowledge: a lost member with the controllers down), changes without
delayed copies go to the replica's own journal (``agents.broker.escape_journal``; a copy must be stored by a set
that serves its topic, so the delivery waits). The home set's next master asks every master of the cluster, and
every alive replica of its set for its journal, before it serves (``agents.broker.take_back``), and releases them
once merged.

The cluster's masters come from the controllers (GetSyncStateData of the cluster); while they do not answer, the
last list known is used, as the acting replica exists precisely when the controllers may be gone.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from agents.broker.consumer_checks import Refused, served_topic
from agents.broker.consumer_ledger import ACTING_READ_ONLY, DLQ_PREFIX, ConsumerLedger
from agents.consumer.records import SYSTEM_TOPIC, Escaped, EscapeKey, EscapeReleased, StateRecord, from_message
from agents.consumer.records import to_message as records_message
from agents.ha import acting
from agents.store.record import Message
from mqbase.client import AgentClient
from mqbase.clock import wall_ms
from mqbase.codes import ResponseCode
from mqbase.errors import MqError
from mqbase.proto import agent_pb2 as apb
from mqbase.proto import controller_pb2 as cpb
from mqbase.security import ClientSecurity

log = logging.getLogger(__name__)

RPC_TIMEOUT_S = 3.0
"""How long an escape call waits for the other set's master."""


class EscapeMaster(Protocol):
    """A master's side of the escape (``EscapeIntake``)."""

    def take_escaped(self, home: str, changes: Sequence[Escaped], copies: Sequence[Message]) -> None: ...
    def escaped_for(self, home: str) -> list[Escaped]: ...
    def release_escaped(self, released: EscapeReleased) -> None: ...


class Journal(Protocol):
    """Where changes go when no other set has a master (``agents.broker.escape_journal``)."""

    def append(self, changes: Sequence[Escaped]) -> None: ...
    def held(self) -> list[Escaped]: ...
    def release(self, keys: Iterable[EscapeKey]) -> int: ...


JOURNAL = "the escape journal"
"""`EscapeLink.send`'s answer when the changes went to this replica's own journal."""


class Neighbour(Protocol):
    """A broker hosted by the same agent, as the escape needs it (``ReplicasManager``)."""

    @property
    def intake(self) -> EscapeMaster: ...

    def cluster_and_name(self) -> tuple[str, str]: ...

    def broker_address(self) -> str: ...

    def is_master(self) -> bool: ...

    def master_address(self) -> str: ...


class EscapeIntake:
    """A master's side of the escape: other sets' acting replicas' changes, stored here until their set takes them
    back (answered in pre-online too: two new masters ask each other)."""

    def __init__(self, ledger: ConsumerLedger) -> None:
        self._ledger = ledger

    def take_escaped(self, home: str, changes: Sequence[Escaped], copies: Sequence[Message]) -> None:
        """As another set's escape master: store its acting replica's changes, and the copies of the delayed
        messages it delivered (into their topics here), in one put; `Refused` when not stored."""
        ledger = self._ledger
        now = wall_ms(ledger.clock)
        if home == ledger.name or any(c.home != home for c in changes):
            raise Refused(ResponseCode.MESSAGE_ILLEGAL, f"escaped changes must name their home set {home}, not this")
        if not changes:
            raise Refused(ResponseCode.MESSAGE_ILLEGAL, "no escaped change to store")
        placed: list[Message] = []
        for m in copies:
            if m.topic.startswith(DLQ_PREFIX):
                placed.append(replace(m, store_timestamp=now))
                continue
            topic = served_topic(ledger.host.metadata, ledger.name, m.topic)
            queues = max(topic.write_queue_nums, 1)
            placed.append(replace(m, queue_id=m.queue_id % queues, store_timestamp=now))
        with ledger.lock:
            _, state = ledger.ready()
            if ledger.acting:
                raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, ACTING_READ_ONLY.format(what="an escape"))
            appended = ledger.append(state, list(changes), placed)
        ledger.settle(appended)
        if placed:
            ledger.wake()

    def escaped_for(self, home: str) -> list[Escaped]:
        """The changes escaped here for set `home`, in key order (answered in pre-online too: two new masters
        ask each other)."""
        ledger = self._ledger
        with ledger.lock:
            _, state = ledger.ready(pre_online=True)
        return sorted(state.escaped.get(home, {}).values(), key=lambda e: e.key)

    def release_escaped(self, released: EscapeReleased) -> None:
        """Drop the escaped changes set `released.home` took back (the ones still held)."""
        ledger = self._ledger
        with ledger.lock:
            _, state = ledger.ready(pre_online=True)
            held = state.escaped.get(released.home, {})
            keys = tuple(k for k in released.keys if k in held)
            appended = ledger.append(state, [EscapeReleased(released.home, keys)]) if keys else None
        ledger.settle(appended)


def encode_escaped(changes: Sequence[Escaped | EscapeReleased]) -> bytes:
    """Changes as the records' wire (numbered 1, 2, ...: the receiver numbers them on from its own state)."""
    return records_message([StateRecord(i, c) for i, c in enumerate(changes, 1)], 0).body if changes else b""


def decode_escaped(body: bytes) -> list[Escaped]:
    """The `Escaped` changes of a body (`encode_escaped`); `StateFormatError` for a damaged one, ValueError for
    another kind."""
    if not body:
        return []
    out: list[Escaped] = []
    for record in from_message(Message(SYSTEM_TOPIC, 0, body, {}, 0)):
        if not isinstance(record.change, Escaped):
            raise ValueError(f"record {record.seq} is not an escaped change")
        out.append(record.change)
    return out


def decode_released(body: bytes) -> EscapeReleased:
    """The one `EscapeReleased` of a ReleaseEscaped body."""
    records = from_message(Message(SYSTEM_TOPIC, 0, body, {}, 0)) if body else ()
    if len(records) != 1 or not isinstance(records[0].change, EscapeReleased):
        raise ValueError("ReleaseEscaped carries exactly one EscapeReleased record")
    return records[0].change


def to_wire(message: Message) -> apb.Message:
    return apb.Message(
        topic=message.topic, queue_id=message.queue_id, body=message.body, properties=dict(message.properties)
    )


class EscapeLink:
    """One broker's way to the cluster's other masters (its escape targets, and the sources of a take-back)."""

    def __init__(
        self,
        cluster: str,
        home: str,
        neighbours: Callable[[], Iterable[Neighbour]],
        controller: Callable[[str, Any], Any],
        security: ClientSecurity,
        journal: Journal,
    ) -> None:
        self._cluster = cluster
        self.journal = journal
        self._home = home
        self._neighbours = neighbours
        self._controller = controller
        self._security = security
        self._lock = threading.Lock()
        self._masters: dict[str, str] = {}  # set name -> its master's broker address, as last learnt

    def masters(self) -> dict[str, str]:
        """The cluster's other sets that have a master now, with its broker address: the controllers' list, and the
        masters this agent hosts. While the controllers do not answer: their last list, corrected by where this
        agent's replicas of those sets last learnt their master to be (each learns it as its own set's roles change,
        so a master moved after the list was last asked is found where it went)."""
        request = cpb.GetSyncStateDataRequest(cluster_name=self._cluster)
        try:
            response = self._controller("GetSyncStateData", request)
            found = {
                info.broker_name: info.master_address
                for info in response.replicas_info
                if info.broker_name != self._home and info.HasField("master_address") and info.master_address
            }
            with self._lock:
                self._masters = found
        except MqError:
            with self._lock:
                found = dict(self._masters) | self._followed()
        return found | {name: address for name, (address, _) in self._local().items()}

    def _followed(self) -> dict[str, str]:
        """The masters of other sets of the cluster as this agent's slave replicas of them last learnt."""
        out: dict[str, str] = {}
        for n in self._neighbours():
            cluster, name = n.cluster_and_name()
            if cluster == self._cluster and name != self._home and not n.is_master() and (at := n.master_address()):
                out[name] = at
        return out

    def _local(self) -> dict[str, tuple[str, EscapeMaster]]:
        """The masters of other sets of the cluster that this agent hosts: their address and consumer service."""
        out: dict[str, tuple[str, EscapeMaster]] = {}
        for n in self._neighbours():
            cluster, name = n.cluster_and_name()
            if cluster == self._cluster and name != self._home and n.is_master():
                out[name] = (n.broker_address(), n.intake)
        return out

    def send(self, changes: Sequence[Escaped], copies: Sequence[Message], serving: Callable[[str], bool]) -> str:
        """Store the changes (and copies) at an escape master in one put; the set that took them. `serving`:
        whether a set may take the copies (it serves their topics). With no other master in the cluster, changes
        without copies go to this replica's own journal (`JOURNAL`). `Refused` when none can be reached or it
        refuses: nothing is known written then, and the caller's client retries."""
        local = {name: c for name, (_, c) in self._local().items() if serving(name)}
        remote = {name: a for name, a in self.masters().items() if serving(name)} if not local else {}
        target = acting.escape_target(self._home, local, remote)
        if target is None and not copies:  # every set may take changes without copies: none has a master
            return self._journal(changes)
        if target is None:
            raise Refused(
                ResponseCode.SERVICE_NOT_AVAILABLE,
                f"broker set {self._home} has no master and no other set of cluster {self._cluster} that serves "
                "the topics has one to escape to; retry",
            )
        if target in local:
            local[target].take_escaped(self._home, changes, copies)
            return target
        request = apb.EscapeChangesRequest(
            broker=apb.BrokerRef(broker_name=target),
            home=self._home,
            records=encode_escaped(changes),
            copies=[to_wire(m) for m in copies],
        )
        try:
            with AgentClient(timeout=RPC_TIMEOUT_S, security=self._security) as client:
                response = client.call(remote[target], "EscapeChanges", request)
        except MqError as exc:
            failed = f"{exc}"
        else:
            if response.code == ResponseCode.SUCCESS:
                return target
            failed = f"{response.code}: {response.remark}"
        if not copies:  # it may hold them already if only the answer was lost: a take-back merges both once
            log.info("%s: escape to %s failed (%s); the changes go to the escape journal", self._home, target, failed)
            return self._journal(changes)
        raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, f"escape to {target} failed ({failed}); retry")

    def _journal(self, changes: Sequence[Escaped]) -> str:
        try:
            self.journal.append(changes)
        except OSError as exc:
            raise Refused(
                ResponseCode.SYSTEM_ERROR, f"the escape journal cannot write ({exc.strerror or exc}); retry later"
            ) from exc
        return JOURNAL

    def journal_of(self, address: str) -> list[Escaped] | None:
        """The journal of the set's replica at `address` (this set's changes it holds); None when it does not
        answer (or refuses)."""
        return self.held(self._home, address)

    def held(self, name: str, address: str) -> list[Escaped] | None:
        """The changes set `name`'s master holds for this set; None when it does not answer (or refuses)."""
        local = self._local().get(name)
        try:
            if local is not None:
                return local[1].escaped_for(self._home)
            request = apb.GetEscapedRequest(broker=apb.BrokerRef(broker_name=name), home=self._home)
            with AgentClient(timeout=RPC_TIMEOUT_S, security=self._security) as client:
                response = client.call(address, "GetEscaped", request)
            if response.code != ResponseCode.SUCCESS:
                log.debug("%s: %s cannot list its escaped changes now: %s", self._home, name, response.remark)
                return None
            return decode_escaped(response.records)
        except (MqError, Refused, ValueError) as exc:
            log.debug("%s: cannot list the changes escaped to %s: %s", self._home, name, exc)
            return None

    def release(self, name: str, address: str, keys: Iterable[EscapeKey]) -> None:
        """Tell set `name`'s master the changes taken back (best effort: a later take-back skips them anyway)."""
        released = EscapeReleased(self._home, tuple(sorted(keys)))
        if not released.keys:
            return
        local = self._local().get(name)
        try:
            if local is not None:
                local[1].release_escaped(released)
                return
            request = apb.ReleaseEscapedRequest(
                broker=apb.BrokerRef(broker_name=name), home=self._home, records=encode_escaped([released])
            )
            with AgentClient(timeout=RPC_TIMEOUT_S, security=self._security) as client:
                response = client.call(address, "ReleaseEscaped", request)
            if response.code != ResponseCode.SUCCESS:
                log.info("%s: %s keeps the escaped changes taken back: %s", self._home, name, response.remark)
        except (MqError, Refused) as exc:
            log.info("%s: %s keeps the escaped changes taken back: %s", self._home, name, exc)
