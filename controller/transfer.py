"""Graceful master transfer: who may take over, and which sets the preferred-master scan moves. Pure.

A transfer hands the master role of a broker set to one of its in-sync replicas without losing or
truncating anything: the master stops accepting writes, the target acknowledges the master's
final offset, and only then is the target elected with masterEpoch + 1. This module holds the decisions;
``controller.transferer`` runs the steps, ``agents.broker.manager`` fences the master.

``deadlines``, ``too_late`` and ``after_election`` time an attempt and read its election's answer, with the
clock passed in.

``check_transfer`` is the one gate every transfer passes (the admin's ``transferMaster``, its dry run, and
the preferred-master scan), so all three give the same reason for a refusal. ``plan_transfers`` applies the
scan's safeguards on top: one transfer per set at a time, a minimum interval per set, a cap per scan.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from controller.election import preferred_of
from controller.model import AliveView, BrokerSet, ControllerState, alive_in_set
from controller.requests import Request, Result, TransferMasterRequest
from mqbase.codes import ResponseCode as C

LEASE_MARGIN_S = 2.0
"""How much longer than the catch-up timeout the master's write pause lasts without word from the controller."""
DECIDE_MARGIN_S = 0.5
"""The election must be decided this long before the master's lease can run out."""
DECIDED = frozenset({
    C.CONTROLLER_BROKER_METADATA_NOT_EXIST, C.CONTROLLER_FENCED_MASTER_EPOCH,
    C.CONTROLLER_INVALID_MASTER, C.CONTROLLER_ELECT_MASTER_FAILED,
})  # fmt: skip
"""Election answers that certainly committed nothing (compute refused it): the pause can end at once."""


@dataclass(frozen=True, slots=True)
class ScanLimits:
    """The scan's safeguards (controller config ``transferMaster*`` / ``preferredMasterTransfer*``)."""

    require_full_sync_state_set: bool = True
    min_interval_s: float = 60.0
    max_per_scan: int = 100


@dataclass(frozen=True, slots=True)
class Planned:
    """The scan's verdict for one set whose master is not its preferred broker."""

    broker_name: str
    target: int
    blocked_by: str | None
    """None: transfer now; otherwise why not (yet)."""


@dataclass(frozen=True, slots=True)
class Record:
    """One transfer attempt (the proto's TransferRecord)."""

    cluster_name: str
    broker_name: str
    state: str  # running | done | aborted | refused
    trigger: str  # admin | preferred
    from_id: int | None
    to_id: int
    from_epoch: int
    started_at: float  # wall clock
    to_epoch: int = 0
    reason: str = ""
    duration_s: float = 0.0
    paused_s: float = 0.0
    final_offset: int = -1


def missing_from_full_set(bs: BrokerSet, alive: AliveView) -> tuple[int, ...]:
    """Registered brokers that should be in the SyncStateSet and are not (alive async learners never are)."""
    in_set = alive_in_set(alive, bs)
    return tuple(
        i for i in bs.broker_ids if i not in bs.sync_state_set and not (i in in_set and in_set[i].async_learner)
    )


def not_registered(cluster_name: str, broker_name: str, bs: BrokerSet | None) -> str:
    """The refusal of an admin request naming a set in the wrong cluster (or an unknown set)."""
    where = f", it belongs to cluster {bs.cluster_name}" if bs else ""
    return f"Broker-set: {broker_name} hasn't been registered in cluster {cluster_name}{where}"


def scan_warning(bs: BrokerSet, new_master: int, alive: AliveView, interval_ms: int) -> str | None:
    """With enablePreferredMaster: the warning that the scan will move the role from `new_master` back, or None.

    Shared by transferMaster and electMaster, which both make a master the operator chose.
    """
    preferred = preferred_of(bs.preferred_id, alive_in_set(alive, bs))
    if preferred is None or preferred == new_master:
        return None
    return (
        f"the preferred master of {bs.broker_name} is broker {preferred}: with enablePreferredMaster the "
        f"controller moves the role back to it (at most every {interval_ms} ms); "
        "assign-preferred-master first to make the move stick"
    )


def check_transfer(bs: BrokerSet, target: int, alive: AliveView, *, require_full_sync_state_set: bool) -> str | None:
    """Why the master of `bs` may not be handed to `target` now, or None when it may.

    The controller checks what it knows (registration, liveness, the SyncStateSet); whether the target has
    caught up is the master's to check, with writes paused, since only the master knows its exact offset.
    """
    name = bs.broker_name
    if bs.replica(target) is None:
        registered = ", ".join(map(str, bs.broker_ids)) or "none"
        return f"broker {target} is not registered in broker set {name} (registered ids: {registered})"
    if bs.master_id is None:
        return f"broker set {name} has no master; elect one first (mqadmin electMaster)"
    if bs.master_id == target:
        return f"broker {target} is already the master of {name} (masterEpoch {bs.master_epoch})"
    in_set = alive_in_set(alive, bs)
    if bs.master_id not in in_set:
        return f"master {bs.master_id} of {name} is not alive; the controller elects a new master by itself"
    info = in_set.get(target)
    if info is None:
        return f"broker {target} of {name} is not alive (no heartbeat within its timeout)"
    if info.async_learner:
        return f"broker {target} of {name} is an async learner, which never becomes master"
    if target not in bs.sync_state_set:
        members = ", ".join(map(str, sorted(bs.sync_state_set)))
        return (
            f"broker {target} is not in the SyncStateSet of {name} ({members}); it must catch up with the master first"
        )
    missing = missing_from_full_set(bs, alive)
    if require_full_sync_state_set and missing:
        ids = ", ".join(map(str, missing))
        return (
            f"the SyncStateSet of {name} is below its full size (not in sync: {ids}); "
            "wait for them, clean dead brokers (mqadmin cleanBrokerMetadata), "
            "or set transferMasterRequireFullSyncStateSet=false"
        )
    return None


def plan_transfers(
    state: ControllerState,
    alive: AliveView,
    *,
    busy: Collection[str],
    last_attempt: Mapping[str, float],
    now: float,
    limits: ScanLimits,
) -> list[Planned]:
    """Every set whose master is not its effective preferred broker, with the scan's verdict for each.

    At most ``limits.max_per_scan`` verdicts are "transfer now"; sets beyond the cap wait for the next scan
    (in broker-name order, so no set starves behind an unlucky hash order). Sets without a preferred broker,
    or without a master (the elector's business), are not listed.
    """
    out: list[Planned] = []
    started = 0
    for bs in sorted(state, key=lambda b: b.broker_name):
        target = preferred_of(bs.preferred_id, alive_in_set(alive, bs))
        if target is None or bs.master_id is None or target == bs.master_id:
            continue
        name = bs.broker_name
        reason = check_transfer(bs, target, alive, require_full_sync_state_set=limits.require_full_sync_state_set)
        if reason is None and name in busy:
            reason = f"a transfer of {name} is already running"
        if reason is None and now - last_attempt.get(name, float("-inf")) < limits.min_interval_s:
            wait = limits.min_interval_s - (now - last_attempt[name])
            reason = f"the last transfer attempt of {name} is within the minimum interval (next in {wait:.0f} s)"
        if reason is None and started >= limits.max_per_scan:
            reason = f"{limits.max_per_scan} transfers started in this scan already (cap per scan)"
        started += reason is None
        out.append(Planned(name, target, reason))
    return out


# --- one attempt's timing and outcome ----------------------------------------------------------------


def deadlines(started: float, timeout_s: float) -> tuple[float, float]:
    """(the master's write-pause lease in seconds, the latest clock time the election may be decided at) of an
    attempt begun at `started` that gives the target `timeout_s` to catch up."""
    lease_s = timeout_s + LEASE_MARGIN_S
    return lease_s, started + lease_s - DECIDE_MARGIN_S


def too_late(request: Request, now: float) -> Result[Any] | None:
    """A transfer's election decided after its deadline could overlap the paused master resuming writes."""
    if isinstance(request, TransferMasterRequest) and now > request.not_after:
        return Result(
            C.CONTROLLER_ELECT_MASTER_FAILED,
            "the election was not decided before the master's write pause ran out; nothing changed",
        )
    return None


def after_election(record: Record, result: Result[Any], paused_s: float) -> tuple[Record, bool]:
    """The attempt's record once its election answered, and whether to end the pause now (ResumeWrites).

    Only an answer that certainly committed nothing ends the pause at once; when the outcome is unknown the
    pause is left to its lease, so the old master cannot write beside a new one.
    """
    if result.code == C.SUCCESS and result.reply is not None:
        return replace(record, state="done", to_epoch=result.reply.master_epoch, paused_s=paused_s), False
    if result.code in DECIDED:
        return replace(record, state="aborted", reason=result.remark, paused_s=paused_s), True
    reason = (
        f"the election's outcome is unknown ({result.remark}); the master keeps writes paused until the "
        "controller confirms its role"
    )
    return replace(record, state="aborted", reason=reason, paused_s=paused_s), False


def outcome_code(record: Record) -> C:
    """The answer to the caller of a finished attempt: SUCCESS only when the target was elected."""
    return C.SUCCESS if record.state == "done" else C.CONTROLLER_ELECT_MASTER_FAILED
