"""Runs graceful master transfers on the controller leader; the decisions are ``controller.transfer``.

One attempt, for the admin's TransferMaster or for the preferred-master scan:

1. ``check_transfer`` and the one-per-set rule; a refusal changes nothing;
2. PrepareTransfer on the master's agent: it pauses writes (producers get MASTER_TRANSFERRING with the
   target's address) and waits until the target acknowledged the final offset, or resumes and says why not;
3. TransferMasterRequest through the proposer: the target is elected in masterEpoch + 1, fenced by the
   master and epoch the attempt started from, and decided only before the pause's lease runs out;
4. the election's push makes the target master and the old master its slave (its log is a prefix of the
   new master's: nothing to truncate). An election refused outright ends the pause with ResumeWrites; when
   the outcome is unknown (the commit timed out, leadership moved) the pause is left to its lease, after
   which the master resumes only once the controller confirms it is still master.

Records of attempts are this leader's memory (a new leader starts without them); they are what
``getSyncStateSet`` shows as ``lastTransfer``, and the last refused admin attempt, kept apart so that a
refused or mistyped request never hides the last real transfer, as ``lastRefusal``.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from controller.config import ControllerConfig
from controller.model import AliveView, BrokerSet, Clock, ControllerState
from controller.proposer import COMMIT_TIMEOUT_S
from controller.requests import Request, Result, TransferMasterRequest
from controller.transfer import (
    Planned,
    Record,
    ScanLimits,
    after_election,
    check_transfer,
    deadlines,
    not_registered,
    outcome_code,
    plan_transfers,
    scan_warning,
)
from mqbase.client import AgentClient
from mqbase.codes import ResponseCode as C
from mqbase.errors import MqError

log = logging.getLogger(__name__)

WORKERS = 8


@dataclass(frozen=True, slots=True)
class Outcome:
    code: int
    remark: str
    record: Record | None


class Transferer:
    """Transfer attempts of this leader: at most one per broker set, run on the caller's thread or the pool."""

    def __init__(
        self,
        state: Callable[[], ControllerState],
        alive: Callable[[], AliveView],
        submit: Callable[[Request], Future[Result[Any]]],
        config: Callable[[], ControllerConfig],
        *,
        clock: Clock,
    ) -> None:
        self._state = state
        self._clock = clock
        self._alive = alive
        self._submit = submit
        self._config = config
        self._lock = threading.Lock()
        self._running: set[str] = set()
        self._records: dict[str, Record] = {}
        self._refusals: dict[str, Record] = {}
        self._last_attempt: dict[str, float] = {}
        self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="transfer")

    def stop(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def record_of(self, broker_name: str) -> Record | None:
        """The set's last real attempt (running, done or aborted)."""
        return self._records.get(broker_name)

    def refusal_of(self, broker_name: str) -> Record | None:
        """The set's last admin attempt refused before it began (nothing changed)."""
        return self._refusals.get(broker_name)

    def _limits(self, c: ControllerConfig, *, capped: bool = True) -> ScanLimits:
        return ScanLimits(
            c.transfer_master_require_full_sync_state_set,
            c.preferred_master_transfer_interval_ms / 1000,
            c.preferred_master_transfer_max_per_scan if capped else 2**31,
        )

    def _plan(self, limits: ScanLimits) -> list[Planned]:
        with self._lock:
            busy, last = set(self._running), dict(self._last_attempt)
        return plan_transfers(self._state(), self._alive(), busy=busy, last_attempt=last, now=self._clock(),
                              limits=limits)  # fmt: skip

    def blocked(self) -> dict[str, str]:
        """Why the master of each set is not (yet) moved to its preferred broker, now (empty when disabled)."""
        c = self._config()
        if not c.enable_preferred_master:
            return {}
        plan = self._plan(self._limits(c, capped=False))
        return {p.broker_name: p.blocked_by for p in plan if p.blocked_by is not None}

    # --- the preferred-master scan ---------------------------------------------------------------

    def scan(self) -> list[Planned]:
        """Start the transfers the scan allows, on the pool (enablePreferredMaster); the whole plan."""
        c = self._config()
        if not c.enable_preferred_master:
            return []
        plan = self._plan(self._limits(c))
        state = self._state()
        for p in plan:
            bs = state.get(p.broker_name)
            if p.blocked_by is None and bs is not None:
                begun = self._begin(bs.cluster_name, bs.broker_name, p.target, "preferred")
                if not isinstance(begun, Outcome):  # marked running now: the next scan cannot queue it again
                    log.info("preferred master: moving %s from %s to %d", bs.broker_name, bs.master_id, p.target)
                    self._pool.submit(self._finish, *begun, c.transfer_master_timeout_ms / 1000)
        return plan

    def dry_run(self, bs: BrokerSet, target: int) -> tuple[str | None, list[str]]:
        """(why the transfer would be refused now or None, warnings worth reading before going ahead)."""
        broker_name = bs.broker_name
        c, alive = self._config(), self._alive()
        reason = self._refusal(bs, target)
        warnings = []
        master_info, target_info = alive.get((broker_name, bs.master_id or -1)), alive.get((broker_name, target))
        if master_info and target_info and 0 <= target_info.max_offset < master_info.max_offset:
            warnings.append(
                f"broker {target} was {master_info.max_offset - target_info.max_offset} bytes behind at the last "
                "heartbeats; writes pause until it has caught up (at most the timeout)"
            )
        if c.enable_preferred_master and (
            back := scan_warning(bs, target, alive, c.preferred_master_transfer_interval_ms)
        ):
            warnings.append(back)
        return reason, warnings

    # --- one attempt -----------------------------------------------------------------------------

    def run(self, cluster_name: str, broker_name: str, target: int, timeout_s: float, trigger: str) -> Outcome:
        """One attempt, start to end (blocks up to about `timeout_s` + the commit timeout)."""
        begun = self._begin(cluster_name, broker_name, target, trigger)
        return begun if isinstance(begun, Outcome) else self._finish(*begun, timeout_s)

    def _begin(
        self, cluster_name: str, broker_name: str, target: int, trigger: str
    ) -> Outcome | tuple[Record, BrokerSet]:
        """Pass the gate and mark the set running (and attempted) at once, so no second attempt can slip in."""
        bs = self._state().get(broker_name)
        if bs is None or bs.cluster_name != cluster_name:
            return Outcome(C.CONTROLLER_BROKER_METADATA_NOT_EXIST, not_registered(cluster_name, broker_name, bs), None)
        record = Record(
            cluster_name, broker_name, "running", trigger, bs.master_id, target, bs.master_epoch, time.time()
        )
        with self._lock:
            reason = self._refusal(bs, target)
            if reason is not None:
                refused = replace(record, state="refused", reason=reason)
                if trigger == "admin":  # a scan's refusals are kept as blocked_by, not as attempts
                    self._refusals[broker_name] = refused  # apart: a refusal must not hide the last real transfer
                return Outcome(C.CONTROLLER_ELECT_MASTER_FAILED, reason, refused)
            self._running.add(broker_name)
            self._last_attempt[broker_name] = self._clock()
            self._records[broker_name] = record
        return record, bs

    def _finish(self, record: Record, bs: BrokerSet, timeout_s: float) -> Outcome:
        """Run a begun attempt to its end and release the set."""
        started = self._clock()
        try:
            record = self._attempt(record, bs.addresses_of(bs.master_id)[0] or "",
                                   bs.addresses_of(record.to_id)[0] or "", timeout_s, started)  # fmt: skip
        except Exception as exc:  # never leave a set marked running
            log.exception("transfer of %s failed", bs.broker_name)
            record = replace(record, state="aborted", reason=f"internal error: {exc}")
        finally:
            with self._lock:
                self._running.discard(bs.broker_name)
        record = replace(record, duration_s=self._clock() - started)
        self._records[bs.broker_name] = record
        level = logging.INFO if record.state == "done" else logging.WARNING
        log.log(level, "transfer of %s from %s to %d (%s): %s%s", bs.broker_name, record.from_id, record.to_id,
                record.trigger, record.state, f": {record.reason}" if record.reason else "")  # fmt: skip
        return Outcome(outcome_code(record), record.reason, record)

    def _attempt(self, record: Record, master_address: str, target_address: str, timeout_s: float, started: float
                 ) -> Record:  # fmt: skip
        from mqbase.proto import agent_pb2 as apb

        master_id = record.from_id
        assert master_id is not None  # check_transfer passed: the set has a master
        name = record.broker_name
        token = uuid.uuid4().hex[:16]
        lease_s, not_after = deadlines(started, timeout_s)
        ref = apb.BrokerRef(broker_name=name, broker_id=master_id)
        with AgentClient(timeout=timeout_s + 1.0, security=self._config().security.client()) as agents:
            try:
                ready = agents.call(master_address, "PrepareTransfer", apb.PrepareTransferRequest(
                    broker=ref, target_broker_id=record.to_id, target_address=target_address,
                    master_epoch=record.from_epoch, timeout_millis=int(timeout_s * 1000),
                    lease_millis=int(lease_s * 1000), token=token,
                ))  # fmt: skip
            except MqError as exc:
                reason = f"the master's agent did not answer PrepareTransfer: {exc}"
                self._resume(agents, master_address, ref, token, reason)
                return replace(record, state="aborted", reason=reason)
            if ready.code != C.SUCCESS:
                return replace(record, state="aborted", reason=ready.remark, final_offset=ready.final_offset)
            record = replace(record, final_offset=ready.final_offset)
            request = TransferMasterRequest(
                record.cluster_name, name, record.to_id, master_id, record.from_epoch,
                not_after=not_after,
            )  # fmt: skip
            try:
                result = self._submit(request).result(timeout=COMMIT_TIMEOUT_S + 1.0)
            except TimeoutError:
                result = Result(C.SYSTEM_ERROR, "no answer from the proposer")
            record, resume = after_election(record, result, self._clock() - started)
            if resume:
                self._resume(agents, master_address, ref, token, record.reason)
            return record

    def _refusal(self, bs: BrokerSet, target: int) -> str | None:
        """The common gate of attempts and dry runs: ``check_transfer`` and one transfer per set."""
        required = self._config().transfer_master_require_full_sync_state_set
        reason = check_transfer(bs, target, self._alive(), require_full_sync_state_set=required)
        if reason is None and bs.broker_name in self._running:
            reason = f"a transfer of {bs.broker_name} is already running"
        return reason

    def _resume(self, agents: AgentClient, address: str, ref: Any, token: str, reason: str) -> None:
        from mqbase.proto import agent_pb2 as apb

        try:
            agents.call(address, "ResumeWrites", apb.ResumeWritesRequest(broker=ref, token=token, reason=reason))
        except MqError as exc:  # the pause's lease ends it anyway
            log.warning("could not resume writes on %s: %s", address, exc)
