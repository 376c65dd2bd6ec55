"""Broker commands: getBrokerEpoch, haStatus, resetMasterFlushOffset.

They talk to broker agents directly (each broker's listen port serves the
agent API); the controller tells them where the replicas are, so no name
server is needed.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

import typer

from mqadmin_py.commands.common import (
    INT64_MAX,
    CountOpt,
    IntervalOpt,
    address_option,
    agent_client,
    check,
    checked,
    cluster_name_option,
    controller_client,
    each_concurrently,
    optional_controller_addresses,
    run,
)
from mqadmin_py.commands.controller import ReplicaDoc, fetch_sync_state
from mqadmin_py.options import BrokerNamesOpt, ClusterNameOpt, ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table, null
from mqbase.errors import MqError, UsageError

OptionalControllerOpt = Annotated[
    str,
    typer.Option(
        "-a",
        "--controllerAddress",
        envvar="MQADMIN_CONTROLLERS",
        show_default=False,
        help="Controller gRPC addresses, ';'-separated (env MQADMIN_CONTROLLERS); not needed with -b.",
        callback=checked(optional_controller_addresses),
    ),
]


# --- getBrokerEpoch -----------------------------------------------------------------------------


class ReplicaRefDoc(TypedDict):
    """What names one replica: enough to ask it for its epochs (clusterList's rows are one too)."""

    clusterName: str
    brokerName: str
    brokerId: int
    brokerAddress: str


class MemberDoc(ReplicaDoc):
    """A set's replica as getSyncStateSet lists it, with the set's names."""

    clusterName: str
    brokerName: str


class EpochEntryDoc(TypedDict):
    epoch: int
    startOffset: int
    endOffset: int


class EpochDoc(TypedDict):
    """One replica in getBrokerEpoch: an unreachable one keeps every key (no epochs, null offsets)."""

    clusterName: str
    brokerName: str
    brokerId: int
    brokerAddress: str
    reachable: bool
    error: str | None
    epochs: list[EpochEntryDoc]
    maxOffset: int | None
    minOffset: int | None
    confirmOffset: int | None


def epoch_doc(agents: Any, member: ReplicaRefDoc) -> EpochDoc:
    from mqbase.proto import agent_pb2 as pb

    doc: EpochDoc = {
        "clusterName": member["clusterName"],
        "brokerName": member["brokerName"],
        "brokerId": member["brokerId"],
        "brokerAddress": member["brokerAddress"],
        "reachable": True,
        "error": None,
        "epochs": [],
        "maxOffset": None,
        "minOffset": None,
        "confirmOffset": None,
    }
    request = pb.GetBrokerEpochCacheRequest(broker_name=member["brokerName"], broker_id=member["brokerId"])
    try:
        r = check(agents.call(member["brokerAddress"], "GetBrokerEpochCache", request))
    except MqError as exc:
        doc["reachable"], doc["error"] = False, str(exc)
        return doc
    doc["epochs"] = [{"epoch": e.epoch, "startOffset": e.start_offset, "endOffset": e.end_offset} for e in r.epoch_list]
    doc["maxOffset"], doc["minOffset"], doc["confirmOffset"] = r.max_offset, r.min_offset, r.confirm_offset
    return doc


def fetch_broker_epochs(
    client: Any, agents: Any, broker_names: list[str] | None, cluster_name: str | None
) -> list[EpochDoc]:
    """Every replica of the selected sets with its epoch entries (the last one ending at maxOffset)."""
    members: list[MemberDoc] = [
        {"clusterName": d["clusterName"], "brokerName": d["brokerName"], **r}
        for d in fetch_sync_state(client, broker_names, cluster_name)
        for r in sorted(d["inSyncReplicas"] + d["notInSyncReplicas"], key=lambda r: r["brokerId"])
    ]
    return each_concurrently(members, lambda m: epoch_doc(agents, m))


def _epochs_table(docs: list[EpochDoc]) -> None:
    rows = []
    for d in docs:
        if not d["reachable"]:
            rows.append([d["brokerName"], d["brokerId"], d["brokerAddress"], "unreachable", None, None, None, None])
        for e in d["epochs"]:
            rows.append(
                [
                    d["brokerName"],
                    d["brokerId"],
                    d["brokerAddress"],
                    e["epoch"],
                    e["startOffset"],
                    e["endOffset"],
                    d["maxOffset"],
                    d["confirmOffset"],
                ]
            )
    columns = ["Broker set", "Id", "Address", "Epoch", "StartOffset", "EndOffset", "MaxOffset", "ConfirmOffset"]
    emit_table("Broker epochs", columns, rows)


def _epochs_legacy(docs: list[EpochDoc]) -> str:
    out = ""
    for d in docs:
        out += (
            f"\n#clusterName\t{d['clusterName']}\n#brokerName\t{d['brokerName']}\n#brokerAddr\t"
            f"{d['brokerAddress']}\n#brokerId\t{d['brokerId']}"
        )
        out += "".join(
            f"\n#Epoch: EpochEntry{{epoch={e['epoch']}, startOffset={e['startOffset']}, endOffset={e['endOffset']}}}"
            for e in d["epochs"]
        )
        out += "\n"
    return out


def get_broker_epoch(
    controller: ControllerOpt,
    broker_name: BrokerNamesOpt = None,
    cluster_name: ClusterNameOpt = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
    interval: IntervalOpt = None,
    count: CountOpt = None,
) -> None:
    """Show every replica's epoch entries and offsets (all sets when -b/-c are omitted).

    The controller says where the replicas are; each is asked directly. An unreachable replica is listed with
    reachable=false (exit 0): during an incident a dead replica is expected.
    """
    with controller_client(controller, timeout) as client, agent_client(timeout) as agents:
        run(
            lambda: fetch_broker_epochs(client, agents, broker_name, cluster_name),
            output,
            _epochs_table,
            _epochs_legacy,
            interval,
            count,
        )


# --- haStatus -----------------------------------------------------------------------------------


class SlaveDoc(TypedDict):
    brokerId: int
    brokerAddress: str | None
    ackOffset: int
    diff: int
    inSync: bool
    lastCaughtUpMillisAgo: int


class HaDoc(TypedDict):
    """One broker in haStatus; ``slaves`` is a master's, the master* and connection keys a slave's view."""

    brokerAddress: str
    reachable: Literal[True]
    error: None
    clusterName: str
    brokerName: str
    brokerId: int
    role: str
    masterEpoch: int
    maxOffset: int
    confirmOffset: int
    syncStateSet: list[int]
    syncStateSetEpoch: int
    slaves: list[SlaveDoc]
    masterAddress: str | None
    masterHaAddress: str | None
    connected: bool
    lastError: str | None


class HaUnreachableDoc(TypedDict):
    """A broker that did not answer haStatus: these three keys only (docs/cli.md, "json")."""

    brokerAddress: str
    reachable: Literal[False]
    error: str


def _ha_doc(agents: Any, address: str, addresses: dict[int, str]) -> HaDoc | HaUnreachableDoc:
    from mqbase.proto import agent_pb2 as pb

    try:
        r = check(agents.call(address, "GetHAStatus", pb.BrokerRef()))
    except MqError as exc:
        return {"brokerAddress": address, "reachable": False, "error": str(exc)}
    return {
        "brokerAddress": address,
        "reachable": True,
        "error": None,
        "clusterName": r.cluster_name,
        "brokerName": r.broker_name,
        "brokerId": r.broker_id,
        "role": r.role,
        "masterEpoch": r.master_epoch,
        "maxOffset": r.max_offset,
        "confirmOffset": r.confirm_offset,
        "syncStateSet": list(r.sync_state_set),
        "syncStateSetEpoch": r.sync_state_set_epoch,
        "slaves": [
            {
                "brokerId": s.broker_id,
                "brokerAddress": addresses.get(s.broker_id),
                "ackOffset": s.ack_offset,
                "diff": s.diff,
                "inSync": s.in_sync,
                "lastCaughtUpMillisAgo": s.last_caught_up_millis_ago,
            }
            for s in r.slaves
        ],
        "masterAddress": r.master_address or None,
        "masterHaAddress": r.master_ha_address or None,
        "connected": r.connected,
        "lastError": r.last_error or None,
    }


def fetch_ha_status(
    controller: str, agents: Any, timeout: float, broker_addr: str | None, cluster_name: str | None
) -> list[HaDoc | HaUnreachableDoc]:
    """HA status of one broker (-b), or of the master of every set (of a cluster with -c)."""
    addresses: dict[int, str] = {}
    if broker_addr:
        targets = [broker_addr]
    else:
        if not controller:
            raise UsageError("give -b brokerAddr, or -a controllers (with -c cluster or for every set)")
        with controller_client(controller, timeout) as client:
            sets = fetch_sync_state(client, None, cluster_name)
        targets = [d["masterAddress"] for d in sets if d["masterAddress"]]
        for d in sets:
            addresses.update({r["brokerId"]: r["brokerAddress"] for r in d["inSyncReplicas"] + d["notInSyncReplicas"]})
    return each_concurrently(targets, lambda a: _ha_doc(agents, a, addresses))


def _ha_table(docs: list[HaDoc | HaUnreachableDoc]) -> None:
    for d in docs:
        if not d["reachable"]:
            emit_table(f"{d['brokerAddress']}: unreachable", ["Error"], [[d["error"]]])
            continue
        title = (
            f"{d['brokerName']} broker {d['brokerId']} at {d['brokerAddress']}: {d['role']}, "
            f"masterEpoch {d['masterEpoch']}, maxOffset {d['maxOffset']}, confirmOffset {d['confirmOffset']}"
        )
        if d["role"] == "master":
            rows = [
                [
                    s["brokerId"],
                    s["brokerAddress"],
                    s["ackOffset"],
                    s["diff"],
                    "OK" if s["inSync"] else "Fall Behind",
                    s["lastCaughtUpMillisAgo"],
                ]
                for s in d["slaves"]
            ]
            emit_table(title, ["Slave id", "Address", "AckOffset", "Diff", "Status", "Caught up ms ago"], rows)
        else:
            rows = [[d["masterAddress"], d["masterHaAddress"], d["connected"], d["lastError"]]]
            emit_table(title, ["Master", "Master HA address", "Connected", "Last error"], rows)


def _ha_legacy(docs: list[HaDoc | HaUnreachableDoc]) -> str:
    out = ""
    for d in docs:
        if not d["reachable"]:
            out += f"\n#BrokerAddr\t{d['brokerAddress']}\n#Error\t{d['error']}\n"
        elif d["role"] == "master":
            in_sync = sum(1 for s in d["slaves"] if s["inSync"])
            out += (
                f"\n#MasterAddr\t{d['brokerAddress']}\n#MasterCommitLogMaxOffset\t{d['maxOffset']}\n"
                f"#SlaveNum\t{len(d['slaves'])}\n#InSyncSlaveNum\t{in_sync}\n"
            )
            head = ("#SlaveAddr", "#SlaveAckOffset", "#Diff", "#TransferSpeed(KB/s)", "#Status", "#TransferFromWhere")
            out += "{:<32}  {:<16} {:>16} {:>16} {:>16} {:>16}\n".format(*head)
            for s in d["slaves"]:
                status = "OK" if s["inSync"] else "Fall Behind"
                address = s["brokerAddress"] or f"id:{s['brokerId']}"
                out += f"{address:<32}  {s['ackOffset']:<16d} {s['diff']:>16d} {'n/a':>16} {status:>16} {'n/a':>16}\n"
        else:
            out += (
                f"\n#MasterAddr\t{null(d['masterAddress'])}\n#CommitLogMaxOffset\t{d['maxOffset']}\n"
                f"#ConfirmOffset\t{d['confirmOffset']}\n"
            )
    return out


def ha_status(
    controller: OptionalControllerOpt = "",
    broker_addr: Annotated[str | None, address_option("-b", "--brokerAddr", help="One broker's address.")] = None,
    cluster_name: Annotated[
        str | None, cluster_name_option("-c", "--clusterName", help="Masters of a cluster.")
    ] = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
    interval: IntervalOpt = None,
    count: CountOpt = None,
) -> None:
    """Show HA runtime status: a master's slaves (ack offset, lag, in sync), or a slave's master and connection.

    With -b: that broker. Otherwise the master of every set (of cluster -c), found through the controllers (-a).
    """
    with agent_client(timeout) as agents:
        run(
            lambda: fetch_ha_status(controller, agents, timeout, broker_addr, cluster_name),
            output,
            _ha_table,
            _ha_legacy,
            interval,
            count,
        )


# --- resetMasterFlushOffset ---------------------------------------------------------------------


class ResetFlushDoc(TypedDict):
    brokerAddress: str
    offset: int
    remark: str


def reset_master_flush_offset(
    broker_addr: Annotated[str, address_option("-b", "--brokerAddr", help="The master broker's address.")],
    offset: Annotated[
        int, typer.Option("--offset", help="New flush (confirm) offset; Java's -o.", min=0, max=INT64_MAX)
    ],
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Raise a master's flush offset, i.e. its confirmOffset (RESET_MASTER_FLUSH_OFFSET); it never moves back.

    For recovery when the SyncStateSet cannot ack (e.g. every slave lost): consumers then see messages up to the
    new offset. An offset past the end of the log is exit 2 (2005) and changes nothing; a lower one is a no-op.
    """
    from mqbase.proto import agent_pb2 as pb

    with agent_client(timeout) as agents:
        r = check(agents.call(broker_addr, "ResetMasterFlushOffset", pb.ResetMasterFlushOffsetRequest(offset=offset)))
    doc: ResetFlushDoc = {"brokerAddress": broker_addr, "offset": offset, "remark": r.remark}
    emit(doc, output, lambda d: typer.echo(f"reset master flush offset to {offset}: {d['remark']}"),
         lambda _d: f"reset master flush offset to {offset} success\n")  # fmt: skip
