"""``transferMaster``: hand a broker set's master role to an in-sync replica, gracefully, on demand.

The controller leader runs it (``controller.transferer``): the master pauses writes, the target acknowledges
the master's final offset, the target is elected in masterEpoch + 1 and the old master follows it without
truncating anything. Producers see a retriable MASTER_TRANSFERRING meanwhile. ``--dry-run`` asks the same
questions and changes nothing. ``transfer_doc`` is shared with getSyncStateSet's ``lastTransfer``.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, TypedDict

import typer

from mqadmin_py.commands.common import (
    broker_id_option,
    broker_name_option,
    check,
    cluster_name_option,
    code_name,
    controller_client,
    opt,
    seconds_option,
)
from mqadmin_py.options import ControllerOpt, OutputOpt
from mqadmin_py.output import Output, emit, emit_table, null
from mqbase.errors import OperationFailed, Refused

RPC_MARGIN_S = 10.0
"""On top of the pause budget: the controller's commit timeout (5 s) and the calls around it."""
DEFAULT_BUDGET_S = 60.0
"""The most the controller allows for the pause (transferMasterTimeoutMs), when --timeout is not given."""


class TransferDoc(TypedDict):
    """A TransferRecord: transferMaster's ``transfer``, getSyncStateSet's ``lastTransfer`` and ``lastRefusal``."""

    state: str
    trigger: str
    fromBrokerId: int | None
    toBrokerId: int
    fromMasterEpoch: int
    toMasterEpoch: int | None
    reason: str | None
    startedAtMillis: int
    durationMillis: int
    writesPausedMillis: int
    finalOffset: int | None


class TransferMasterDoc(TypedDict):
    clusterName: str
    brokerName: str
    brokerId: int
    dryRun: bool
    allowed: bool
    alreadyMaster: bool
    state: str | None
    reason: str | None
    warnings: list[str]
    masterBrokerId: int | None
    masterEpoch: int
    preferredBrokerId: int | None
    masterMaxOffset: int | None
    targetMaxOffset: int | None
    transfer: TransferDoc | None


def transfer_doc(t: Any) -> TransferDoc:
    """A TransferRecord as JSON (the schema in docs/cli.md)."""
    return {
        "state": t.state,
        "trigger": t.trigger,
        "fromBrokerId": t.from_broker_id if t.from_broker_id >= 0 else None,
        "toBrokerId": t.to_broker_id,
        "fromMasterEpoch": t.from_master_epoch,
        "toMasterEpoch": t.to_master_epoch or None,
        "reason": t.reason or None,
        "startedAtMillis": t.started_at_millis,
        "durationMillis": t.duration_millis,
        "writesPausedMillis": t.writes_paused_millis,
        "finalOffset": t.final_offset if t.final_offset >= 0 else None,
    }


def transfer_summary(t: TransferDoc) -> str:
    """One line for a transfer record, as getSyncStateSet and transferMaster print it."""
    moved = f"{null(t['fromBrokerId'])} -> {t['toBrokerId']}"
    if t["state"] == "done":
        return (f"{moved} done (masterEpoch {t['fromMasterEpoch']} -> {t['toMasterEpoch']}), writes paused "
                f"{t['writesPausedMillis']} ms, final offset {t['finalOffset']}")  # fmt: skip
    return f"{moved} {t['state']}" + (f": {t['reason']}" if t["reason"] else "")


def transfer_master(
    controller: ControllerOpt,
    cluster_name: Annotated[str, cluster_name_option("-c", "--clusterName", help="Cluster of the broker set.")],
    broker_name: Annotated[str, broker_name_option("-bn", "--brokerName", help="Broker set.")],
    broker_id: Annotated[int, broker_id_option("-b", "--brokerId", help="In-sync broker id to make master.")],
    timeout: Annotated[
        float | None,
        seconds_option(
            "--timeout",
            help="Seconds the master may pause writes waiting for the target to catch up (0.1-60; default: the "
            "controller's transferMasterTimeoutMs).",
            maximum=60.0,
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would happen and whether it is allowed; change nothing.")
    ] = False,
    output: OutputOpt = Output.table,
) -> None:
    """Move a broker set's master role to an in-sync replica without losing or truncating messages.

    Writes pause on the master (producers get a retriable MASTER_TRANSFERRING and the new master's address),
    the target acknowledges the master's last offset, and the controller elects it in masterEpoch + 1; the
    old master becomes its slave. If the target does not catch up within --timeout, or anything else fails,
    the transfer is aborted, writes resume on the old master, and the reason is printed.

    Exit 0 when done, when the broker already is master (a no-op), or for a dry run that would be allowed; 4 when
    refused (not in sync, not alive, a transfer already running, ...), 1 when aborted.
    """
    from mqbase.proto import controller_pb2 as pb

    request = pb.TransferMasterRequest(
        cluster_name=cluster_name,
        broker_name=broker_name,
        broker_id=broker_id,
        timeout_millis=int(timeout * 1000) if timeout else 0,
        dry_run=dry_run,
    )
    with controller_client(controller, (timeout or DEFAULT_BUDGET_S) + RPC_MARGIN_S) as client:
        r = client.call("TransferMaster", request)
    transfer = transfer_doc(r.transfer) if r.HasField("transfer") else None
    if r.code != 0 and transfer is None:
        check(r)  # refused before any check (unknown set, bad request): exit 1 with the code
    doc: TransferMasterDoc = {
        "clusterName": cluster_name,
        "brokerName": broker_name,
        "brokerId": broker_id,
        "dryRun": r.dry_run,
        "allowed": r.allowed,
        "alreadyMaster": r.code == 0 and transfer is None and opt(r, "master_broker_id") == broker_id,
        "state": transfer["state"] if transfer else None,
        "reason": r.remark or None,
        "warnings": list(r.warnings),
        "masterBrokerId": opt(r, "master_broker_id"),
        "masterEpoch": r.master_epoch,
        "preferredBrokerId": opt(r, "preferred_broker_id"),
        "masterMaxOffset": r.master_max_offset if r.master_max_offset >= 0 else None,
        "targetMaxOffset": r.target_max_offset if r.target_max_offset >= 0 else None,
        "transfer": transfer,
    }
    for warning in doc["warnings"]:
        print(f"mqadmin: note: {warning}", file=sys.stderr)
    emit(doc, output, _table, _legacy)
    if (dry_run and not r.allowed) or (transfer is not None and transfer["state"] == "refused"):
        raise Refused(f"transfer of {broker_name} to broker {broker_id} not allowed: {r.remark}")
    if r.code != 0:
        raise OperationFailed(r.code, code_name(r.code), f"transfer of {broker_name} aborted: {r.remark}")


def _table(d: TransferMasterDoc) -> None:
    t = d["transfer"]
    if d["alreadyMaster"]:
        title = f"{d['brokerName']}: broker {d['brokerId']} already master (no change)"
    elif d["dryRun"]:
        verdict = "allowed" if d["allowed"] else f"not allowed: {d['reason']}"
        title = f"{d['brokerName']}: dry run, master {null(d['masterBrokerId'])} -> {d['brokerId']} {verdict}"
    else:
        assert t is not None, "a run that changed or tried something carries its transfer record"
        title = f"{d['brokerName']}: master {transfer_summary(t)}"
    columns = ["Master", "Target", "MasterEpoch", "Preferred", "MasterMaxOffset", "TargetMaxOffset"]
    rows = [[d["masterBrokerId"], d["brokerId"], d["masterEpoch"], d["preferredBrokerId"], d["masterMaxOffset"],
             d["targetMaxOffset"]]]  # fmt: skip
    emit_table(title, columns, rows)


def _legacy(d: TransferMasterDoc) -> str:
    t = d["transfer"]
    lines = {
        "ClusterName": d["clusterName"],
        "BrokerName": d["brokerName"],
        "TargetBrokerId": d["brokerId"],
        "DryRun": str(d["dryRun"]).lower(),
        "Allowed": str(d["allowed"]).lower(),
        "State": d["state"],
        "Reason": d["reason"],
        "MasterBrokerId": d["masterBrokerId"],
        "MasterEpoch": d["masterEpoch"],
        "WritesPausedMillis": t["writesPausedMillis"] if t else None,
        "FinalOffset": t["finalOffset"] if t else None,
    }
    return "".join(f"#{k}\t{null(v)}\n" for k, v in lines.items())
