"""TakeBack: the thread that runs a new master's RIP-32 pre-online, and later takes back late escapes.

With ``enableSlaveActingMaster``, a replica that becomes master serves no consumer (the ledger refuses
with SERVICE_NOT_AVAILABLE, ``ListBrokers`` reports ``pre_online``, the access points route nothing to it) until
this thread has fetched the consumer state of every alive replica of its set (``GetConsumerState``) and the
changes escaped for its set at every master of the cluster and in every such replica's escape journal
(``GetEscaped``), and the service has merged them
(`merge`). A source that does not answer is asked again at the next pass: the master stays
isolated rather than serve a state that could roll a consumer back. Once online, the thread asks the cluster's
masters again every `SWEEP_S` for changes escaped since (a set that had no master during the pre-online, an
acting replica that had not learnt of the new master yet) and merges those the same way. Changes taken back are
released at their escape master, best effort: the merge is a join, so one taken back twice changes nothing.
The agent's watchdog wakes it when the process ran nothing for a while (a process pause): the ledger sends an
online master through pre-online again, since a slave may have acted meanwhile.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence

from agents.broker.consumer_checks import Refused
from agents.broker.consumer_ledger import ConsumerLedger, ServingKey
from agents.broker.consumer_snapshots import MAX_PAGE_BYTES
from agents.broker.escape import JOURNAL, EscapeLink
from agents.config import BrokerConfig
from agents.consumer import pre_online as join
from agents.consumer.errors import StateFormatError
from agents.consumer.records import Escaped, EscapeKey
from agents.consumer.snapshot import decode as decode_snapshot
from agents.consumer.state import ConsumerState
from mqbase.client import AgentClient
from mqbase.clock import wall_ms
from mqbase.codes import ResponseCode
from mqbase.errors import MqError
from mqbase.proto import agent_pb2 as apb
from mqbase.security import ClientSecurity

log = logging.getLogger(__name__)

PRE_ONLINE_PASS_S = 0.5
"""How soon a pre-online that lacks an answer asks again."""
SWEEP_S = 5.0
"""How often an online master asks the cluster's masters for changes escaped since."""
RPC_TIMEOUT_S = 5.0


def replica_state(address: str, broker_name: str, broker_id: int, security: ClientSecurity) -> ConsumerState | None:
    """A replica's consumer state (``GetConsumerState``, page by page); None when its agent does not answer,
    refuses, or its state changes while read (the next pass asks again)."""
    ref = apb.BrokerRef(broker_name=broker_name, broker_id=broker_id)
    pages: list[bytes] = []
    seq: int | None = None
    try:
        with AgentClient(timeout=RPC_TIMEOUT_S, security=security) as client:
            while True:
                request = apb.GetConsumerStateRequest(
                    broker=ref, position=sum(map(len, pages)), max_bytes=MAX_PAGE_BYTES
                )
                r = client.call(address, "GetConsumerState", request)
                if r.code != ResponseCode.SUCCESS or (seq is not None and r.seq != seq):
                    remark = r.remark or "its state changed while read"
                    log.info("%s: replica %d gives no consumer state now: %s", broker_name, broker_id, remark)
                    return None
                seq = r.seq
                pages.append(r.snapshot)
                if sum(map(len, pages)) >= r.total_bytes or not r.snapshot:
                    return decode_snapshot(b"".join(pages)).state
    except (MqError, StateFormatError) as exc:
        log.info("%s: replica %d gives no consumer state now: %s", broker_name, broker_id, exc)
        return None


def phase(ledger: ConsumerLedger) -> tuple[ServingKey, bool] | None:
    """What the take-back thread is to do for the state served now (a master's or an acting replica's): a
    pre-online (True) or a sweep for changes escaped since (False); None when this replica serves nothing or the
    feature is off."""
    if not ledger.host.config.enable_slave_acting_master:
        return None
    with ledger.lock:
        try:
            ledger.ready(pre_online=True)
        except Refused:
            return None
        key = ledger.serving
        return None if key is None else (key, not ledger.online(key))


def merge(
    ledger: ConsumerLedger,
    key: ServingKey,
    replicas: Sequence[ConsumerState],
    escaped: Mapping[str, Sequence[Escaped]],
) -> dict[str, list[EscapeKey]]:
    """Merge the replicas' states and the escape masters' changes into the served state (``pre_online``'s join)
    and go online; the keys taken back, by escape master, to release. A master appends the merge as records like
    any change; an acting replica, which writes no log, holds it in memory and releases nothing (the set's next
    master takes the same changes back). `Refused` when the state changed hands meanwhile or the put fails (the
    thread tries again)."""
    with ledger.lock:
        _, state = ledger.ready(pre_online=True)
        if ledger.serving != key:
            raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, "the master changed during the take-back")
        changes, pre = join.merge_answers(state, ledger.name, replicas, escaped, wall_ms(ledger.clock))
        appended = None
        acting = ledger.acting
        if acting:
            ledger.hold(state, changes)
        elif changes:
            appended = ledger.append(state, changes)
    ledger.settle(appended)
    with ledger.lock:
        took = ledger.went_online(key)
    if took is not None:
        log.info("%s: pre-online done in %.3f s: %d record(s) merged, %d escaped change(s) taken back",
                 ledger.name, took, len(changes), len(pre.applied))  # fmt: skip
    if acting:
        return {}
    ledger.counters.taken_back += len(pre.applied)
    return {name: [c.key for c in cs if c.key in pre.applied] for name, cs in escaped.items()}


class TakeBack:
    """The pre-online and sweep thread of one hosted broker."""

    def __init__(
        self,
        ledger: ConsumerLedger,
        link: EscapeLink,
        peers: Callable[[], Mapping[int, str] | None],
        config: Callable[[], BrokerConfig],
        security: ClientSecurity,
    ) -> None:
        """`peers`: the set's other replicas known alive, id → agent address; None until learnt for the current
        role (a pre-online waits for them)."""
        self._ledger = ledger
        self._link = link
        self._peers = peers
        self._config = config
        self._broker_name = config().broker_name
        self._security = security
        self._waited = ""  # the source the pre-online last waited for, logged once
        self._learnt = 0.0  # when the cluster's masters were last asked while serving nothing (monotonic)
        self._stopped = threading.Event()
        self._wake = threading.Event()  # a pass is due now (a gap sent the master back to pre-online, or stop)
        self._thread = threading.Thread(target=self._loop, name=f"take-back-{self._broker_name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _waiting(self, source: str) -> None:
        """Log, once per source in a row, what a pre-online waits for (the operator's next step)."""
        if source != self._waited:
            log.info("%s: pre-online waits for %s, which does not answer; asked again every %.1f s",
                     self._broker_name, source, PRE_ONLINE_PASS_S)  # fmt: skip
            self._waited = source

    def stop(self) -> None:
        self._stopped.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def wake(self) -> None:
        """Start the next pass now (the watchdog saw a gap that may send the master back to pre-online)."""
        self._wake.set()

    def _loop(self) -> None:
        while not self._stopped.is_set():
            self._wake.clear()  # a wake during the pass ends the wait below at once
            pause = PRE_ONLINE_PASS_S
            try:
                pause = self.run_once()
            except Exception:  # the thread must outlive any one pass; the next pass starts over
                log.exception("%s: take-back pass failed", self._broker_name)
            self._wake.wait(pause)

    def run_once(self) -> float:
        """One pass; the seconds until the next."""
        phase_now = phase(self._ledger)
        if phase_now is None:
            now = self._ledger.clock.monotonic()
            if self._config().enable_slave_acting_master and now - self._learnt >= SWEEP_S:
                self._learnt = now
                self._link.masters()  # learnt while the controllers answer: an acting replica may need the list
            return PRE_ONLINE_PASS_S
        key, pre_online = phase_now
        peers = self._peers()
        if peers is None and pre_online:
            self._waiting("the set's alive replicas to be learnt for the new role")
            return PRE_ONLINE_PASS_S
        peers = peers or {}
        masters = self._link.masters()
        escaped: dict[str, list[Escaped]] = {}
        for name, address in masters.items():
            held = self._link.held(name, address)
            if held is None and pre_online:
                self._waiting(f"the master of {name} at {address}")
                return PRE_ONLINE_PASS_S  # wait for every escape master
            if held:
                escaped[name] = held
        for broker_id, address in peers.items():
            held = self._link.journal_of(address)
            if held is None and pre_online:
                self._waiting(f"the escape journal of replica {broker_id} at {address}")
                return PRE_ONLINE_PASS_S
            if held:
                escaped[f"{JOURNAL} of replica {broker_id}"] = held
        if own := self._link.journal.held():
            escaped[JOURNAL] = own
        replicas: list[ConsumerState] = []
        if pre_online:
            for broker_id, address in peers.items():
                state = replica_state(address, self._broker_name, broker_id, self._security)
                if state is None:
                    self._waiting(f"replica {broker_id} at {address}")
                    return PRE_ONLINE_PASS_S
                replicas.append(state)
        elif not escaped:
            return SWEEP_S
        self._waited = ""
        try:
            taken = merge(self._ledger, key, replicas, escaped)
        except Refused as exc:
            log.info("%s: take-back not done now: %s", self._broker_name, exc)
            return PRE_ONLINE_PASS_S
        journals = {f"{JOURNAL} of replica {i}": address for i, address in peers.items()}
        for name, keys in taken.items():
            if name == JOURNAL:
                self._link.journal.release(keys)
            elif name in journals:
                self._link.release(self._broker_name, journals[name], keys)
            else:
                self._link.release(name, masters[name], keys)
        return PRE_ONLINE_PASS_S if pre_online else SWEEP_S
