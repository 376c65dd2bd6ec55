"""Controller commands: getControllerMetaData, getSyncStateSet, electMaster, cleanBrokerMetadata, configs."""

from __future__ import annotations

import sys
import time
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import typer

from mqadmin_py.commands.common import (
    CountOpt,
    IntervalOpt,
    add_commands,
    agent_client,
    broker_id_list,
    broker_id_option,
    broker_name_option,
    check,
    cluster_name_option,
    code_name,
    controller_client,
    each_concurrently,
    local_time,
    opt,
    run,
)
from mqadmin_py.commands.transfer import TransferDoc, transfer_doc, transfer_summary
from mqadmin_py.options import BrokerNamesOpt, ClusterNameOpt, ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table, null
from mqbase.codes import ResponseCode
from mqbase.errors import ControllerUnavailable, MqError, OperationFailed, OperationRefused, TimedOut, UsageError


def register(app: typer.Typer) -> None:
    add_commands(app, {
        "getControllerMetaData": get_controller_metadata,
        "getSyncStateSet": get_sync_state_set,
        "electMaster": elect_master,
        "cleanBrokerMetadata": clean_broker_metadata,
        "getControllerConfig": get_controller_config,
        "updateControllerConfig": update_controller_config,
    })  # fmt: skip


class UnreachableNodeDoc(TypedDict):
    """A controller node that did not answer: these three keys only (docs/cli.md, "json")."""

    address: str
    reachable: Literal[False]
    error: str


# --- getControllerMetaData ----------------------------------------------------------------------


class PeerDoc(TypedDict):
    id: str
    address: str
    raftAddress: str


class MetadataNodeDoc(TypedDict):
    address: str
    reachable: Literal[True]
    id: str
    isLeader: bool
    state: str
    term: int
    commitIndex: int
    lastApplied: int
    hasQuorum: bool
    ready: bool
    peers: list[PeerDoc]


class MetadataDoc(TypedDict):
    group: str
    controllerLeaderId: str | None
    controllerLeaderAddress: str | None
    nodes: list[MetadataNodeDoc | UnreachableNodeDoc]


def _metadata_doc(client: Any) -> MetadataDoc:
    nodes: list[MetadataNodeDoc | UnreachableNodeDoc] = []
    group: str | None = None
    leader_id: str | None = None
    leader_address: str | None = None
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
        raise ControllerUnavailable(
            "no controller answered: " + "; ".join(n["error"] for n in nodes if not n["reachable"])
        )
    return {"group": group, "controllerLeaderId": leader_id, "controllerLeaderAddress": leader_address, "nodes": nodes}


def _metadata_table(doc: MetadataDoc) -> None:
    title = f"Controller group {doc['group']} · leader {doc['controllerLeaderId'] or 'none'}"
    rows = [
        [n["address"], n.get("id"), n.get("state", "unreachable"), n.get("term"), n.get("commitIndex"),
         n.get("lastApplied"), n.get("hasQuorum")]
        for n in doc["nodes"]
    ]  # fmt: skip
    emit_table(title, ["Address", "Id", "Raft state", "Term", "Commit", "Applied", "Quorum"], rows)


def _metadata_legacy(doc: MetadataDoc) -> str:
    out = f"\n#ControllerGroup\t{doc['group']}\n#ControllerLeaderId\t{doc['controllerLeaderId']}"
    out += f"\n#ControllerLeaderAddress\t{doc['controllerLeaderAddress']}"
    peers: list[PeerDoc] = next((n["peers"] for n in doc["nodes"] if n["reachable"]), [])
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


class ReplicaDoc(TypedDict):
    brokerId: int
    brokerAddress: str
    haAddress: str
    alive: bool


class SyncStateDoc(TypedDict):
    """One broker set as the controller sees it (what ``wait`` polls and prints, and other commands look up)."""

    clusterName: str
    brokerName: str
    masterBrokerId: int | None
    masterAddress: str | None
    masterEpoch: int
    syncStateSetEpoch: int
    preferredBrokerId: int | None
    inSyncReplicas: list[ReplicaDoc]
    notInSyncReplicas: list[ReplicaDoc]
    lastTransfer: TransferDoc | None
    lastRefusal: TransferDoc | None
    preferredMasterBlockedBy: str | None


class SyncStateViewDoc(SyncStateDoc):
    """One broker set in getSyncStateSet: the controller's view, plus which replica acts as the set's read-only
    master (RIP-32) and since when (epoch ms). Only the replicas' agents know that, so each is asked; those that
    do not answer are listed in ``actingUnknown``."""

    actingMaster: int | None
    actingSince: int | None
    actingUnknown: list[int]


def _replica(r: Any) -> ReplicaDoc:
    return {"brokerId": r.broker_id, "brokerAddress": r.broker_address, "haAddress": r.ha_address, "alive": r.alive}


def _sync_state_docs(response: Any) -> list[SyncStateDoc]:
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


def with_acting(doc: SyncStateDoc, since: dict[int, int | None]) -> SyncStateViewDoc:
    """`doc` with its acting master, from each replica's answer in `since`: epoch ms it acts since, 0 when it does
    not act, None when its agent did not answer. When views briefly differ and two act, the smaller id is shown
    (the one every replica converges on)."""
    acting = sorted(i for i, ms in since.items() if ms)
    return {
        **doc,
        "actingMaster": acting[0] if acting else None,
        "actingSince": since[acting[0]] if acting else None,
        "actingUnknown": sorted(i for i, ms in since.items() if ms is None),
    }


def acting_since(agents: Any, address: str, broker_name: str, broker_id: int) -> int | None:
    """Since when (epoch ms) the replica acts as its set's read-only master (RIP-32), 0 when it does not; None
    when its agent (at `address`) does not answer ListBrokers or does not list it."""
    from mqbase.proto import agent_pb2 as pb

    try:
        r = check(agents.call(address, "ListBrokers", pb.ListBrokersRequest()))
    except MqError:
        return None
    return next(
        (int(b.acting_since_millis) for b in r.brokers if (b.broker_name, b.broker_id) == (broker_name, broker_id)),
        None,
    )


def fetch_sync_state_view(agents: Any, docs: list[SyncStateDoc]) -> list[SyncStateViewDoc]:
    """`docs` with each set's acting master, every replica's agent asked concurrently."""
    members = [(d["brokerName"], r) for d in docs for r in d["inSyncReplicas"] + d["notInSyncReplicas"]]
    answers = each_concurrently(members, lambda m: acting_since(agents, m[1]["brokerAddress"], m[0], m[1]["brokerId"]))
    since: dict[str, dict[int, int | None]] = {d["brokerName"]: {} for d in docs}
    for (name, r), answer in zip(members, answers, strict=True):
        since[name][r["brokerId"]] = answer
    return [with_acting(d, since[d["brokerName"]]) for d in docs]


def _role(d: SyncStateViewDoc, broker_id: int) -> str:
    role = (
        "master" if broker_id == d["masterBrokerId"] else "acting master" if broker_id == d["actingMaster"] else "slave"
    )
    return role + (" (preferred)" if broker_id == d["preferredBrokerId"] else "")


def _acting_cell(d: SyncStateViewDoc, broker_id: int) -> str:
    if broker_id == d["actingMaster"]:
        return local_time(d["actingSince"])
    return "unknown" if broker_id in d["actingUnknown"] else ""


def _sync_state_table(docs: list[SyncStateViewDoc]) -> None:
    rows = []
    for d in docs:
        members = [(r, "in-sync") for r in d["inSyncReplicas"]] + [(r, "not in sync") for r in d["notInSyncReplicas"]]
        for r, sync in members:
            rows.append([d["brokerName"], r["brokerId"], r["brokerAddress"], _role(d, r["brokerId"]), sync, r["alive"],
                         d["masterEpoch"], d["syncStateSetEpoch"], _acting_cell(d, r["brokerId"])])  # fmt: skip
    columns = ["Broker set", "Id", "Address", "Role", "Sync", "Alive", "MasterEpoch", "SSSEpoch", "Acting master since"]
    emit_table("SyncStateSet", columns, rows)
    for d in docs:
        if d["lastTransfer"] is not None:
            print(f"{d['brokerName']}: last transfer {transfer_summary(d['lastTransfer'])}")
        if d["lastRefusal"] is not None:
            print(f"{d['brokerName']}: last refused transfer {transfer_summary(d['lastRefusal'])}")
        if d["preferredMasterBlockedBy"] is not None:
            print(f"{d['brokerName']}: master not moved to the preferred broker: {d['preferredMasterBlockedBy']}")


def _sync_state_legacy(docs: list[SyncStateViewDoc]) -> str:
    def ident(d: SyncStateViewDoc, r: ReplicaDoc) -> str:
        return (f"ReplicaIdentity{{brokerName='{d['brokerName']}', brokerId={r['brokerId']}, "
                f"brokerAddress='{r['brokerAddress']}', alive={str(r['alive']).lower()}}}")  # fmt: skip

    out = ""
    for d in docs:
        out += (f"\n#brokerName\t{d['brokerName']}\n#MasterBrokerId\t{null(d['masterBrokerId'])}\n#MasterAddr\t"
                f"{null(d['masterAddress'])}\n#MasterEpoch\t{d['masterEpoch']}\n#SyncStateSetEpoch\t"
                f"{d['syncStateSetEpoch']}\n#SyncStateSetNums\t{len(d['inSyncReplicas'])}\n")  # fmt: skip
        if d["preferredBrokerId"] is not None:  # ours: Java has no preferred master, so it prints no such line
            out += f"#PreferredBrokerId\t{d['preferredBrokerId']}\n"
        if d["actingMaster"] is not None:  # ours too: Java's controller-mode tools do not show the acting master
            out += f"#ActingMasterBrokerId\t{d['actingMaster']}\n#ActingSince\t{d['actingSince']}\n"
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
    """Show master, epochs, and in-sync / not-in-sync replicas of broker sets (all sets when -b/-c are omitted),
    and which replica acts as read-only master (RIP-32), asked of each replica's agent."""
    with controller_client(controller, timeout) as client, agent_client(timeout) as agents:
        run(lambda: fetch_sync_state_view(agents, fetch_sync_state(client, broker_name, cluster_name)), output,
            _sync_state_table, _sync_state_legacy, interval, count)  # fmt: skip


def fetch_sync_state(client: Any, broker_names: list[str] | None, cluster_name: str | None) -> list[SyncStateDoc]:
    """The getSyncStateSet documents of the named sets, of a cluster, or (neither given) of every set."""
    from mqbase.proto import controller_pb2 as pb

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


class BrokerAddressDoc(TypedDict):
    brokerId: int
    brokerAddress: str


class ElectMasterDoc(TypedDict):
    clusterName: str
    brokerName: str
    changed: bool
    masterBrokerId: int | None
    masterAddress: str | None
    masterEpoch: int | None
    syncStateSetEpoch: int | None
    syncStateSet: list[int]
    brokers: list[BrokerAddressDoc]
    warnings: list[str]


def elect_master(
    controller: ControllerOpt,
    cluster_name: Annotated[str, cluster_name_option("-c", "--clusterName", help="Cluster of the broker set.")],
    broker_name: Annotated[str, broker_name_option("-bn", "--brokerName", help="Broker set to elect in.")],
    broker_id: Annotated[int, broker_id_option("-b", "--brokerId", help="Broker id that should become master.")],
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Make a broker master (admin-designated election; it must be alive and in the SyncStateSet).

    "Already master" is a no-op with exit 0; a broker that is not eligible is refused (exit 4, the remark says why
    and which ids are). The set must belong to cluster -c (exit 1, 2008 otherwise). With
    enablePreferredMaster, a note on stderr says when the controller will move the role back to the preferred one.
    """
    from mqbase.proto import controller_pb2 as pb

    request = pb.ElectMasterRequest(cluster_name=cluster_name, broker_name=broker_name, broker_id=broker_id,
                                    designate_elect=True)  # fmt: skip
    with controller_client(controller, timeout) as client:
        r = check(client.call("ElectMaster", request), allow=(2011,))
    doc: ElectMasterDoc = {
        "clusterName": cluster_name,
        "brokerName": broker_name,
        "changed": r.code == 0,
        "masterBrokerId": opt(r, "master_broker_id"),
        "masterAddress": opt(r, "master_address"),
        "masterEpoch": opt(r, "master_epoch"),
        "syncStateSetEpoch": opt(r, "sync_state_set_epoch"),
        "syncStateSet": sorted(r.sync_state_set_info.broker_ids),
        "brokers": [{"brokerId": k, "brokerAddress": v} for k, v in sorted(r.broker_addresses.items())],
        "warnings": list(r.warnings),
    }
    for warning in doc["warnings"]:
        print(f"mqadmin: note: {warning}", file=sys.stderr)

    def table(d: ElectMasterDoc) -> None:
        verdict = "elected" if d["changed"] else "already master (no change)"
        emit_table(f"{d['brokerName']}: broker {d['masterBrokerId']} {verdict}",
                   ["MasterAddress", "MasterEpoch", "SyncStateSetEpoch", "SyncStateSet"],
                   [[d["masterAddress"], d["masterEpoch"], d["syncStateSetEpoch"], d["syncStateSet"]]])  # fmt: skip

    def legacy(d: ElectMasterDoc) -> str:
        out = (f"\n#ClusterName\t{d['clusterName']}\n#BrokerName\t{d['brokerName']}\n#BrokerMasterAddr\t"
               f"{d['masterAddress']}\n#MasterEpoch\t{d['masterEpoch']}\n"
               f"#SyncStateSetEpoch\t{d['syncStateSetEpoch']}\n")  # fmt: skip
        return out + "".join(f"\t#Broker\t{b['brokerId']}\t{b['brokerAddress']}\n" for b in d["brokers"])

    emit(doc, output, table, legacy)


# --- cleanBrokerMetadata ------------------------------------------------------------------------


class CleanDoc(TypedDict):
    brokerName: str
    brokerIds: list[int] | None
    wholeSet: bool
    cleaned: bool


def clean_broker_metadata(
    controller: ControllerOpt,
    broker_name: Annotated[str, broker_name_option("-bn", "--brokerName", help="Broker set to clean.")],
    broker_ids: Annotated[
        str | None,
        typer.Option("-b", "--brokerControllerIdsToClean", help="Ids to remove, e.g. '1;2' (or --wholeSet)."),
    ] = None,
    whole_set: Annotated[
        bool, typer.Option("--wholeSet", help="Remove the whole broker set instead of listed ids (-b).")
    ] = False,
    cluster_name: Annotated[str | None, cluster_name_option("-c", "--clusterName", help="Cluster of the set.")] = None,
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
    from mqbase.proto import controller_pb2 as pb

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
    doc: CleanDoc = {"brokerName": broker_name, "brokerIds": None if whole_set else ids, "wholeSet": whole_set,
                     "cleaned": True}  # fmt: skip
    emit(doc, output, lambda d: typer.echo(f"clear broker {d['brokerName']} metadata from controller success!"),
         lambda d: f"clear broker {d['brokerName']} metadata from controller success! \n")  # fmt: skip


# --- configs ------------------------------------------------------------------------------------

APPLY_POLL_S = 0.1
"""How often updateControllerConfig re-reads a node that has not applied the change yet."""


class ConfigNodeDoc(TypedDict):
    """One node in getControllerConfig. Values are strings, as in the properties file (any key the node has)."""

    address: str
    reachable: Literal[True]
    id: str | None
    configVersion: int
    groupConfig: dict[str, str]
    config: dict[str, str]
    differs: NotRequired[list[str]]  # getControllerConfig adds it once every node has answered


class UpdateNodeDoc(TypedDict):
    address: str
    reachable: Literal[True]
    id: str | None
    value: str | None
    configVersion: int
    applied: bool


class UpdateConfigDoc(TypedDict):
    key: str
    value: str
    changed: bool
    configVersion: int
    controllers: list[str]
    nodes: list[UpdateNodeDoc | UnreachableNodeDoc]


def _config_node(client: Any, address: str) -> ConfigNodeDoc | UnreachableNodeDoc:
    """One node's GetControllerConfig as a document; an unreachable node is marked, not fatal."""
    from mqbase.proto import controller_pb2 as pb

    try:
        r = check(client.call_at(address, "GetControllerConfig", pb.GetControllerConfigRequest()))
    except MqError as exc:
        return {"address": address, "reachable": False, "error": str(exc)}
    return {
        "address": address,
        "reachable": True,
        "id": r.self_id or None,
        "configVersion": r.config_version,
        "groupConfig": dict(sorted(r.group_config.items())),
        "config": dict(sorted(r.config.items())),
    }


def config_differences(docs: list[ConfigNodeDoc | UnreachableNodeDoc]) -> dict[str, dict[str, str]]:
    """Runtime keys whose effective value is not the same on every reachable node: key → {address: value}."""
    from controller.config import RUNTIME_KEYS

    reachable = [d for d in docs if d["reachable"]]
    out: dict[str, dict[str, str]] = {}
    for key in sorted(RUNTIME_KEYS):
        values = {d["address"]: d["config"].get(key, "") for d in reachable}
        if len(set(values.values())) > 1:
            out[key] = values
    return out


def _unreachable_line(d: UnreachableNodeDoc) -> str:
    return f"{d['address']}: unreachable ({d['error']})"


def get_controller_config(
    controller: ControllerOpt, output: OutputOpt = Output.table, timeout: TimeoutOpt = 3.0
) -> None:
    """Show the effective configuration of every listed controller node, and the runtime keys they disagree on.

    Unreachable nodes are marked (exit 0 while any node answers, 5 when none does).
    """
    with controller_client(controller, timeout) as client:
        docs = [_config_node(client, address) for address in client.addresses]
    if not any(d["reachable"] for d in docs):
        raise ControllerUnavailable(
            "no controller answered: " + "; ".join(d["error"] for d in docs if not d["reachable"])
        )
    differs = config_differences(docs)
    for d in docs:
        if d["reachable"]:
            d["differs"] = [k for k, values in differs.items() if d["address"] in values]

    def table(ds: list[ConfigNodeDoc | UnreachableNodeDoc]) -> None:
        for d in ds:
            if not d["reachable"]:
                typer.echo(_unreachable_line(d))
                continue
            title = f"{d['address']} ({d['id'] or '?'}, config version {d['configVersion']})"
            emit_table(title, ["Key", "Value"], sorted(d["config"].items()))
        for key, values in differs.items():
            typer.echo(f"{key} differs between nodes: " + ", ".join(f"{a}={v}" for a, v in values.items()))

    def legacy(ds: list[ConfigNodeDoc | UnreachableNodeDoc]) -> str:
        return "".join(
            f"============{d['address']}============\n"
            + (
                "".join(f"{k:<50}=  {v}\n" for k, v in d["config"].items())
                if d["reachable"]
                else f"unreachable: {d['error']}\n"
            )
            for d in ds
        )

    emit(docs, output, table, legacy)


def _wait_applied(client: Any, version: int, timeout: float) -> list[ConfigNodeDoc | UnreachableNodeDoc]:
    """Every listed node's config once it has applied config `version`, or as it was when `timeout` ran out.

    An unreachable node is not asked again: each try could cost a whole RPC timeout.
    """
    deadline = time.monotonic() + timeout
    docs = {address: _config_node(client, address) for address in client.addresses}

    def behind() -> list[str]:
        return [a for a, d in docs.items() if d["reachable"] and d["configVersion"] < version]

    while behind() and time.monotonic() < deadline:
        time.sleep(APPLY_POLL_S)
        for address in behind():
            docs[address] = _config_node(client, address)
    return list(docs.values())


def not_held_error(
    key: str, value: str, version: int, nodes: list[UpdateNodeDoc | UnreachableNodeDoc]
) -> MqError | None:
    """The error to exit with when a listed node does not hold committed config `version` yet, else None.

    ControllerUnavailable (5) when a node is unreachable, TimedOut (3) when every node answered but one had not
    applied the change in time: either way the group holds the value, and the message says so.
    """
    missing = [n for n in nodes if not n.get("applied")]
    if not missing:
        return None
    lines = [
        f"{n['address']}: still at config version {n['configVersion']}" if n["reachable"] else _unreachable_line(n)
        for n in missing
    ]
    message = (
        f"{key}={value} is committed for the group (config version {version}) but not yet held by "
        f"{'; '.join(lines)}; a node takes it when it catches up"
    )
    return (ControllerUnavailable if any(not n["reachable"] for n in missing) else TimedOut)(message)


def update_controller_config(
    controller: ControllerOpt,
    key: Annotated[str, typer.Option("-k", "--key", help="Config key, e.g. enableElectUncleanMaster.")],
    value: Annotated[str, typer.Option("-v", "--value", help="New value.")],
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Set a runtime config key for the whole controller group (through the leader and Raft), then show each node.

    Exit 0 once every listed node holds the value; 5 when a node is unreachable and 3 when one has not applied it
    within --timeout (the group holds the value all the same: such a node takes it when it catches up).
    """
    from controller.config import RUNTIME_KEYS, check_value
    from mqbase.proto import controller_pb2 as pb

    try:
        check_value(key, value)
    except ValueError as exc:
        raise UsageError(f"-k {key} -v {value}: {exc}") from exc
    request = pb.UpdateControllerConfigRequest(properties={key: value})
    with controller_client(controller, timeout) as client:
        r = client.call("UpdateControllerConfig", request)
        if r.code == ResponseCode.CONTROLLER_INVALID_REQUEST and key not in RUNTIME_KEYS:
            # a key that needs a restart is refused (exit 4), as a broker refuses one; not a bad value (exit 2)
            raise OperationRefused(r.code, code_name(r.code), r.remark)
        check(r)
        docs = _wait_applied(client, r.config_version, timeout)
    held = [d for d in docs if d["reachable"] and d["configVersion"] >= r.config_version]
    group_value = held[0]["config"][key] if held else value
    nodes: list[UpdateNodeDoc | UnreachableNodeDoc] = [
        {"address": d["address"], "reachable": False, "error": d["error"]}
        if not d["reachable"]
        else {
            "address": d["address"],
            "reachable": True,
            "id": d["id"],
            "value": d["config"].get(key),
            "configVersion": d["configVersion"],
            "applied": d["configVersion"] >= r.config_version,
        }
        for d in docs
    ]
    doc: UpdateConfigDoc = {
        "key": key,
        "value": group_value,
        "changed": bool(r.changed),
        "configVersion": r.config_version,
        "controllers": [d["address"] for d in docs],
        "nodes": nodes,
    }

    def table(d: UpdateConfigDoc) -> None:
        verdict = "set" if d["changed"] else "already held (no change)"
        rows = [
            [n["address"], n.get("id"), n.get("value", "unreachable"), n.get("configVersion"),
             ("yes" if n["applied"] else "not yet") if n["reachable"] else "unreachable"]
            for n in d["nodes"]
        ]  # fmt: skip
        emit_table(f"{key}={d['value']} {verdict} for the group (config version {d['configVersion']})",
                   ["Address", "Id", "Value", "ConfigVersion", "Holds it"], rows)  # fmt: skip

    def legacy(d: UpdateConfigDoc) -> str:
        holding = [n["address"] for n in d["nodes"] if n.get("applied")]
        return f"update controller config success!{';'.join(holding)}\n{key} : {d['value']}\n"

    emit(doc, output, table, legacy)
    error = not_held_error(key, group_value, r.config_version, nodes)
    if error is not None:
        raise error
