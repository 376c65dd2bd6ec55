"""Graceful master transfer: who may take over, and which sets the preferred-master scan moves. Pure.

A transfer hands the master role of a broker set to one of its in-sync replicas without losing or
truncating anything (issue 6): the master stops accepting writes, the target acknowledges the master's
final offset, and only then is the target elected with masterEpoch + 1. This module holds the decisions;
``controller.transferer`` runs the steps, ``agents.broker.manager`` fences the master.

``check_transfer`` is the one gate every transfer passes (the admin's ``transferMaster``, its dry run, and
the preferred-master scan), so all three give the same reason for a refusal. ``plan_transfers`` applies the
scan's safeguards on top: one transfer per set at a time, a minimum interval per set, a cap per scan.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from controller.election import preferred_of
from controller.model import AliveView, BrokerSet, ControllerState, alive_in_set


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
