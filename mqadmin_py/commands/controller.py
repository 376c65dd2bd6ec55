"""Controller commands: getControllerMetaData, getSyncStateSet, electMaster, cleanBrokerMetadata, configs."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from mqadmin_py.commands.common import (
    CountOpt,
    IntervalOpt,
    add_commands,
    broker_id_list,
    broker_id_option,
    check,
    controller_client,
    opt,
    run,
)
from mqadmin_py.commands.transfer import transfer_doc, transfer_summary
from mqadmin_py.errors import ControllerUnavailable, MqError, OperationFailed, UsageError
from mqadmin_py.options import BrokerNamesOpt, ClusterNameOpt, ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table, null


def register(app: typer.Typer) -> None:
    add_commands(app, {
        "getControllerMetaData": get_controller_metadata,
        "getSyncStateSet": get_sync_state_set,
        "electMaster": elect_master,
        "cleanBrokerMetadata": clean_broker_metadata,
        "getControllerConfig": get_controller_config,
        "updateControllerConfig": update_controller_config,
    })  # fmt: skip


# --- getControllerMetaData ----------------------------------------------------------------------


def _metadata_doc(client: Any) -> dict[str, Any]:
    nodes: list[dict[str, Any]] = []
    group = leader_id = leader_address = None
    for address in client.addresses:
        try:
            m = client.metadata(address)
        except MqError as exc:
            nodes.append({"address": address, "reachable": False, "error": str(exc)})
            continue
        group = m.group
        if m.controller_leader_id:
            leader_id, leader_address = m.controller_leader_id, m.controller_leader_address
        nodes.append(
            {
                "address": address,
                "reachable": True,
                "id": m.self_id,
                "isLeader": m.is_leader,
                "state": m.raft.state,
                "term": m.raft.term,
                "commitIndex": m.raft.commit_index,
                "lastApplied": m.raft.last_applied,
                "hasQuorum": m.raft.has_quorum,
                "ready": m.raft.ready,
                "peers": [{"id": p.id, "address": p.grpc_address, "raftAddress": p.raft_address} for p in m.peer_list],
            }
        )
    if group is None:
        raise ControllerUnavailable("no controller answered: " + "; ".join(n["error"] for n in nodes))
    return {"group": group, "controllerLeaderId": leader_id, "controllerLeaderAddress": leader_address, "nodes": nodes}


def _metadata_table(doc: dict[str, Any]) -> None:
    title = f"Controller group {doc['group']} · leader {doc['controllerLeaderId'] or 'none'}"
    rows = [
        [n["address"], n.get("id"), n.get("state", "unreachable"), n.get("term"), n.get("commitIndex"),
         n.get("lastApplied"), n.get("hasQuorum")]
        for n in doc["nodes"]
    ]  # fmt: skip
    emit_table(title, ["Address", "Id", "Raft state", "Term", "Commit", "Applied", "Quorum"], rows)


def _metadata_legacy(doc: dict[str, Any]) -> str:
    out = f"\n#ControllerGroup\t{doc['group']}\n#ControllerLeaderId\t{doc['controllerLeaderId']}"
    out += f"\n#ControllerLeaderAddress\t{doc['controllerLeaderAddress']}"
    peers: list[dict[str, Any]] = next((n["peers"] for n in doc["nodes"] if n.get("reachable")), [])
    for p in peers:
        out += f"\n#Peer:\t{p['id']}:{p['address']}"
    return out + "\n"


def get_controller_metadata(
    controller: ControllerOpt, output: OutputOpt = Output.table, timeout: TimeoutOpt = 3.0
) -> None:
    """Show the controller group: leader, peers, and each node's Raft health (term, commit index, quorum)."""
    with controller_client(controller, timeout) as client:
        doc = _metadata_doc(client)
    emit(doc, output, _metadata_table, _metadata_legacy)


# --- getSyncStateSet ----------------------------------------------------------------------------


def _replica(r: Any) -> dict[str, Any]:
    return {"brokerId": r.broker_id, "brokerAddress": r.broker_address, "haAddress": r.ha_address, "alive": r.alive}


def _sync_state_docs(response: Any) -> list[dict[str, Any]]:
    return [
        {
            "clusterName": x.cluster_name,
            "brokerName": x.broker_name,
            "masterBrokerId": opt(x, "master_broker_id"),
            "masterAddress": opt(x, "master_address"),
            "masterEpoch": x.master_epoch,
            "syncStateSetEpoch": x.sync_state_set_epoch,
            "preferredBrokerId": opt(x, "preferred_broker_id"),
            "inSyncReplicas": [_replica(r) for r in x.in_sync_replicas],
            "notInSyncReplicas": [_replica(r) for r in x.not_in_sync_replicas],
            "lastTransfer": transfer_doc(x.last_transfer) if x.HasField("last_transfer") else None,
            "lastRefusal": transfer_doc(x.last_refusal) if x.HasField("last_refusal") else None,
            "preferredMasterBlockedBy": x.preferred_master_blocked_by or None,
        }
        for x in response.replicas_info
    ]


def _sync_state_table(docs: list[dict[str, Any]]) -> None:
    rows = []
    for d in docs:
        members = [(r, "in-sync") for r in d["inSyncReplicas"]] + [(r, "not in sync") for r in d["notInSyncReplicas"]]
        for r, sync in members:
            role = "master" if r["brokerId"] == d["masterBrokerId"] else "slave"
            role += " (preferred)" if r["brokerId"] == d["preferredBrokerId"] else ""
            rows.append([d["brokerName"], r["brokerId"], r["brokerAddress"], role, sync, r["alive"],
                         d["masterEpoch"], d["syncStateSetEpoch"]])  # fmt: skip
    columns = ["Broker set", "Id", "Address", "Role", "Sync", "Alive", "MasterEpoch", "SSSEpoch"]
    emit_table("SyncStateSet", columns, rows)
    for d in docs:
        if d["lastTransfer"] is not None:
            print(f"{d['brokerName']}: last transfer {transfer_summary(d['lastTransfer'])}")
        if d["lastRefusal"] is not None:
            print(f"{d['brokerName']}: last refused transfer {transfer_summary(d['lastRefusal'])}")
        if d["preferredMasterBlockedBy"] is not None:
            print(f"{d['brokerName']}: master not moved to the preferred broker: {d['preferredMasterBlockedBy']}")


def _sync_state_legacy(docs: list[dict[str, Any]]) -> str:
    def ident(d: dict[str, Any], r: dict[str, Any]) -> str:
        return (f"ReplicaIdentity{{brokerName='{d['brokerName']}', brokerId={r['brokerId']}, "
                f"brokerAddress='{r['brokerAddress']}', alive={str(r['alive']).lower()}}}")  # fmt: skip

    out = ""
    for d in docs:
        out += (f"\n#brokerName\t{d['brokerName']}\n#MasterBrokerId\t{null(d['masterBrokerId'])}\n#MasterAddr\t"
                f"{null(d['masterAddress'])}\n#MasterEpoch\t{d['masterEpoch']}\n#SyncStateSetEpoch\t"
                f"{d['syncStateSetEpoch']}\n#SyncStateSetNums\t{len(d['inSyncReplicas'])}\n")  # fmt: skip
        if d["preferredBrokerId"] is not None:  # ours: Java has no preferred master, so it prints no such line
            out += f"#PreferredBrokerId\t{d['preferredBrokerId']}\n"
        out += "".join(f"\nInSyncReplica:\t{ident(d, r)}\n" for r in d["inSyncReplicas"])
        out += "".join(f"\nNotInSyncReplica:\t{ident(d, r)}\n" for r in d["notInSyncReplicas"])
    return out


def get_sync_state_set(
    controller: ControllerOpt,
    broker_name: BrokerNamesOpt = None,
    cluster_name: ClusterNameOpt = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
    interval: IntervalOpt = None,
    count: CountOpt = None,
) -> None:
    """Show master, epochs, and in-sync / not-in-sync replicas of broker sets (all sets when -b/-c are omitted)."""
    with controller_client(controller, timeout) as client:
        run(lambda: fetch_sync_state(client, broker_name, cluster_name), output, _sync_state_table,
            _sync_state_legacy, interval, count)  # fmt: skip


def fetch_sync_state(client: Any, broker_names: list[str] | None, cluster_name: str | None) -> list[dict[str, Any]]:
    """The getSyncStateSet documents of the named sets, of a cluster, or (neither given) of every set."""
    from mqadmin_py.proto import controller_pb2 as pb

    request = pb.GetSyncStateDataRequest(
        broker_names=broker_names or [], cluster_name=cluster_name or "",
        all_broker_sets=not broker_names and not cluster_name,
    )  # fmt: skip
    docs = _sync_state_docs(check(client.call("GetSyncStateData", request)))
    missing = [n for n in dict.fromkeys(broker_names or []) if n not in {d["brokerName"] for d in docs}]
    if missing or (cluster_name and not broker_names and not docs):
        what = f"broker set(s) {', '.join(missing)}" if missing else f"any broker set of cluster {cluster_name}"
        remark = f"the controller does not know {what}; list the known sets with 'mqadmin getSyncStateSet'"
        raise OperationFailed(2008, "CONTROLLER_BROKER_METADATA_NOT_EXIST", remark)
    return docs


# --- electMaster --------------------------------------------------------------------------------


def elect_master(
    controller: ControllerOpt,
    cluster_name: Annotated[str, typer.Option("-c", "--clusterName", help="Cluster of the broker set.")],
    broker_name: Annotated[str, typer.Option("-bn", "--brokerName", help="Broker set to elect in.")],
    broker_id: Annotated[int, broker_id_option("-b", "--brokerId", help="Broker id that should become master.")],
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Make a broker master (admin-designated election; it must be alive and in the SyncStateSet).

    "Already master" is a no-op with exit 0. The set must belong to cluster -c (exit 1, 2008 otherwise). With
    enablePreferredMaster, a note on stderr says when the controller will move the role back to the preferred one.
    """
    from mqadmin_py.proto import controller_pb2 as pb

    request = pb.ElectMasterRequest(cluster_name=cluster_name, broker_name=broker_name, broker_id=broker_id,
                                    designate_elect=True)  # fmt: skip
    with controller_client(controller, timeout) as client:
        r = check(client.call("ElectMaster", request), allow=(2011,))
    doc = {
        "clusterName": cluster_name,
        "brokerName": broker_name,
        "changed": r.code == 0,
        "masterBrokerId": opt(r, "master_broker_id"),
        "masterAddress": opt(r, "master_address"),
        "masterEpoch": opt(r, "master_epoch"),
        "syncStateSetEpoch": opt(r, "sync_state_set_epoch"),
        "syncStateSet": sorted(r.sync_state_set),
        "brokers": [{"brokerId": k, "brokerAddress": v} for k, v in sorted(r.broker_addresses.items())],
        "warnings": list(r.warnings),
    }
    for warning in doc["warnings"]:
        print(f"mqadmin: note: {warning}", file=sys.stderr)

    def table(d: dict[str, Any]) -> None:
        verdict = "elected" if d["changed"] else "already master (no change)"
        emit_table(f"{d['brokerName']}: broker {d['masterBrokerId']} {verdict}",
                   ["MasterAddress", "MasterEpoch", "SyncStateSetEpoch", "SyncStateSet"],
                   [[d["masterAddress"], d["masterEpoch"], d["syncStateSetEpoch"], d["syncStateSet"]]])  # fmt: skip

    def legacy(d: dict[str, Any]) -> str:
        out = (f"\n#ClusterName\t{d['clusterName']}\n#BrokerName\t{d['brokerName']}\n#BrokerMasterAddr\t"
               f"{d['masterAddress']}\n#MasterEpoch\t{d['masterEpoch']}\n"
               f"#SyncStateSetEpoch\t{d['syncStateSetEpoch']}\n")  # fmt: skip
        return out + "".join(f"\t#Broker\t{b['brokerId']}\t{b['brokerAddress']}\n" for b in d["brokers"])

    emit(doc, output, table, legacy)


# --- cleanBrokerMetadata ------------------------------------------------------------------------


def clean_broker_metadata(
    controller: ControllerOpt,
    broker_name: Annotated[str, typer.Option("-bn", "--brokerName", help="Broker set to clean.")],
    broker_ids: Annotated[
        str | None,
        typer.Option("-b", "--brokerControllerIdsToClean", help="Ids to remove, e.g. '1;2' (or --wholeSet)."),
    ] = None,
    whole_set: Annotated[
        bool, typer.Option("--wholeSet", help="Remove the whole broker set instead of listed ids (-b).")
    ] = False,
    cluster_name: Annotated[str | None, typer.Option("-c", "--clusterName", help="Cluster of the set.")] = None,
    clean_living: Annotated[
        bool, typer.Option("-l", "--cleanLivingBroker", help="Also remove brokers that are still alive.")
    ] = False,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Remove dead brokers (with -l, alive ones too) from a broker set's controller metadata.

    Name the ids with -b, or the whole set with --wholeSet: an empty or missing -b never means "every id"
    (one unset shell variable must not wipe a running set).
    """
    from mqadmin_py.proto import controller_pb2 as pb

    if not clean_living and not cluster_name:
        raise UsageError("cleanLivingBroker option is false, clusterName option can not be empty.")
    if whole_set == (broker_ids is not None):
        raise UsageError("give -b IDS (e.g. '1;2') to remove brokers, or --wholeSet to remove the whole set")
    try:
        ids = sorted(broker_id_list(broker_ids)) if broker_ids is not None else []
    except ValueError as exc:
        raise UsageError(f"-b: {exc}") from exc
    request = pb.CleanBrokerDataRequest(cluster_name=cluster_name or "", broker_name=broker_name,
                                        broker_controller_ids_to_clean=";".join(map(str, ids)),
                                        is_clean_living_broker=clean_living, clean_whole_set=whole_set)  # fmt: skip
    with controller_client(controller, timeout) as client:
        check(client.call("CleanBrokerData", request))
    doc = {"brokerName": broker_name, "brokerIds": None if whole_set else ids, "wholeSet": whole_set, "cleaned": True}
    emit(doc, output, lambda d: typer.echo(f"clear broker {d['brokerName']} metadata from controller success!"),
         lambda d: f"clear broker {d['brokerName']} metadata from controller success! \n")  # fmt: skip


# --- configs ------------------------------------------------------------------------------------


def get_controller_config(
    controller: ControllerOpt, output: OutputOpt = Output.table, timeout: TimeoutOpt = 3.0
) -> None:
    """Show the effective configuration of every listed controller node."""
    from mqadmin_py.proto import controller_pb2 as pb

    docs = []
    with controller_client(controller, timeout) as client:
        for address in client.addresses:
            r = check(client.call_at(address, "GetControllerConfig", pb.GetControllerConfigRequest()))
            docs.append({"address": address, "config": dict(sorted(r.config.items()))})

    def table(ds: list[dict[str, Any]]) -> None:
        for d in ds:
            emit_table(d["address"], ["Key", "Value"], sorted(d["config"].items()))

    def legacy(ds: list[dict[str, Any]]) -> str:
        return "".join(
            f"============{d['address']}============\n" + "".join(f"{k:<50}=  {v}\n" for k, v in d["config"].items())
            for d in ds
        )

    emit(docs, output, table, legacy)


def update_controller_config(
    controller: ControllerOpt,
    key: Annotated[str, typer.Option("-k", "--key", help="Config key, e.g. enableElectUncleanMaster.")],
    value: Annotated[str, typer.Option("-v", "--value", help="New value.")],
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Change a runtime config key on every listed controller node (persisted across restarts)."""
    from mqadmin_py.proto import controller_pb2 as pb

    request = pb.UpdateControllerConfigRequest(properties={key: value})
    with controller_client(controller, timeout) as client:
        for address in client.addresses:
            check(client.call_at(address, "UpdateControllerConfig", request))
        addresses = client.addresses
    doc = {"controllers": addresses, "key": key, "value": value}
    emit(doc, output, lambda d: typer.echo(f"updated {key}={value} on {';'.join(addresses)}"),
         lambda d: f"update controller config success!{';'.join(addresses)}\n{key} : {value}\n")  # fmt: skip
