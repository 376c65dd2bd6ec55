"""Commands over every replica of a cluster: clusterList, getBrokerConfig, updateBrokerConfig.

Java's versions find brokers through the name server (-n); here the controllers (-a) say where every replica
is, and each replica is asked directly.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Literal, TypedDict

import typer

from mqadmin_py.commands import legacy
from mqadmin_py.commands.broker import OptionalControllerOpt, epoch_doc
from mqadmin_py.commands.common import (
    CountOpt,
    IntervalOpt,
    address_option,
    agent_client,
    check,
    cluster_name_option,
    code_name,
    controller_client,
    each_concurrently,
    local_time,
    run,
)
from mqadmin_py.commands.controller import acting_since, fetch_sync_state
from mqadmin_py.options import ClusterNameOpt, ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table
from mqbase.codes import ResponseCode
from mqbase.errors import MqError, OperationFailed, OperationRefused, Refused, UsageError


class ClusterReplicaDoc(TypedDict):
    """A replica as the controllers see it."""

    clusterName: str
    brokerName: str
    brokerId: int
    brokerAddress: str
    role: str
    alive: bool
    inSync: bool
    masterEpoch: int
    syncStateSetEpoch: int


def replicas(client: Any, cluster_name: str | None) -> list[ClusterReplicaDoc]:
    """Every replica the controllers know (of one cluster, or of all), with its set's view of it, ordered by
    cluster, set and id."""
    out: list[ClusterReplicaDoc] = []
    for d in fetch_sync_state(client, None, cluster_name):
        for members, in_sync in ((d["inSyncReplicas"], True), (d["notInSyncReplicas"], False)):
            for r in members:
                out.append(
                    {
                        "clusterName": d["clusterName"],
                        "brokerName": d["brokerName"],
                        "brokerId": r["brokerId"],
                        "brokerAddress": r["brokerAddress"],
                        "role": "master" if r["brokerId"] == d["masterBrokerId"] else "slave",
                        "alive": r["alive"],
                        "inSync": in_sync,
                        "masterEpoch": d["masterEpoch"],
                        "syncStateSetEpoch": d["syncStateSetEpoch"],
                    }
                )
    return sorted(out, key=lambda r: (r["clusterName"], r["brokerName"], r["brokerId"]))


# --- clusterList --------------------------------------------------------------------------------


class ClusterListDoc(ClusterReplicaDoc):
    """One row of clusterList: the controllers' view, then the replica's own (null when it does not answer)."""

    epoch: int | None
    minOffset: int | None
    maxOffset: int | None
    confirmOffset: int | None
    reachable: bool
    error: str | None
    actingMaster: bool | None
    actingSince: int | None
    version: str | None
    putTps: float | None
    getTps: float | None


def _traffic(agents: Any, replica: ClusterReplicaDoc) -> Any:
    """The replica's GetBrokerStats answer (Java's clusterList TPS and version), None when it gives none."""
    from mqbase.proto import agent_pb2 as pb

    ref = pb.BrokerRef(broker_name=replica["brokerName"], broker_id=replica["brokerId"])
    try:
        return check(agents.call(replica["brokerAddress"], "GetBrokerStats", ref))
    except MqError:
        return None


def fetch_cluster_list(client: Any, agents: Any, cluster_name: str | None) -> list[ClusterListDoc]:
    """Each replica as the controllers see it, plus what the replica itself says of its log (its last epoch and
    offsets; reachable=false and the error when it does not answer), and whether it acts as master (RIP-32)."""

    def one(replica: ClusterReplicaDoc) -> ClusterListDoc:
        own = epoch_doc(agents, replica)
        since, stats = None, None
        if own["reachable"]:
            since = acting_since(agents, replica["brokerAddress"], replica["brokerName"], replica["brokerId"])
            stats = _traffic(agents, replica)
        return {
            **replica,
            "epoch": own["epochs"][-1]["epoch"] if own["epochs"] else None,
            "minOffset": own["minOffset"],
            "maxOffset": own["maxOffset"],
            "confirmOffset": own["confirmOffset"],
            "reachable": own["reachable"],
            "error": own["error"],
            "actingMaster": None if since is None else since > 0,
            "actingSince": since or None,
            "version": stats.version if stats is not None else None,
            "putTps": round(stats.total.put_tps, 2) if stats is not None else None,
            "getTps": round(stats.total.get_tps, 2) if stats is not None else None,
        }

    return each_concurrently(replicas(client, cluster_name), one)


def _cluster_table(docs: list[ClusterListDoc]) -> None:
    rows = [
        [
            d["clusterName"],
            d["brokerName"],
            d["brokerId"],
            d["role"],
            d["brokerAddress"],
            d["alive"],
            "in-sync" if d["inSync"] else "not in sync",
            d["masterEpoch"],
            d["epoch"] if d["reachable"] else "unreachable",
            d["minOffset"],
            d["maxOffset"],
            d["confirmOffset"],
            local_time(d["actingSince"]),
            d["version"],
            d["putTps"],
            d["getTps"],
        ]
        for d in docs
    ]
    columns = ["Cluster", "Broker set", "Id", "Role", "Address", "Alive", "Sync", "MasterEpoch", "Epoch",
               "MinOffset", "MaxOffset", "ConfirmOffset", "Acting master since", "Version", "InTPS",
               "OutTPS"]  # fmt: skip
    emit_table("Cluster list", columns, rows)


def cluster_list(
    controller: ControllerOpt,
    cluster_name: ClusterNameOpt = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
    interval: IntervalOpt = None,
    count: CountOpt = None,
) -> None:
    """List every cluster, broker set and replica: role, address, alive, in sync, epochs and offsets, version and
    messages in and out per second (Java's InTPS/OutTPS, over the last minute).

    The controllers give the sets and roles, each replica its own last epoch, min/max/confirm offsets, figures and
    whether it acts as its set's read-only master (RIP-32); an unreachable replica is listed with reachable=false
    (exit 0, as getBrokerEpoch).
    """
    with controller_client(controller, timeout) as client, agent_client(timeout) as agents:
        run(lambda: fetch_cluster_list(client, agents, cluster_name), output, _cluster_table, legacy.cluster_list,
            interval, count)  # fmt: skip


# --- getBrokerConfig / updateBrokerConfig --------------------------------------------------------

BrokerAddrOpt = Annotated[str | None, address_option("-b", "--brokerAddr", help="One broker's address.")]
TargetClusterOpt = Annotated[
    str | None, cluster_name_option("-c", "--clusterName", help="Every replica of this cluster (found through -a).")
]


class TargetDoc(TypedDict):
    """A broker getBrokerConfig or updateBrokerConfig asks: with -b only its address is known."""

    clusterName: str | None
    brokerName: str | None
    brokerId: int | None
    brokerAddress: str


class BrokerConfigDoc(TargetDoc):
    """One broker in getBrokerConfig. ``config`` holds whatever keys the broker has (values are strings, as in its
    properties file); null when it did not answer."""

    reachable: bool
    error: str | None
    config: dict[str, str] | None
    differs: list[str] | None
    """With -c, the set-wide runtime keys on which this replica and another of its set differ; null with -b or when
    it did not answer."""


UpdateStatus = Literal["updated", "refused", "failed", "skipped", "unreachable"]


class UpdateOutcomeDoc(TargetDoc):
    status: UpdateStatus
    error: str | None


class UpdateBrokerConfigDoc(TypedDict):
    key: str
    value: str
    brokers: list[UpdateOutcomeDoc]


def _targets(controller: str, timeout: float, broker_addr: str | None, cluster_name: str | None) -> list[TargetDoc]:
    """The brokers -b or -c names; exactly one must be given and non-empty (no default reaches every broker)."""
    if (broker_addr is None) == (cluster_name is None) or not (broker_addr or cluster_name or "").strip():
        raise UsageError("give exactly one of -b brokerAddr or -c clusterName (with -a controllers)")
    if broker_addr is not None:
        return [{"clusterName": None, "brokerName": None, "brokerId": None, "brokerAddress": broker_addr}]
    if not controller:
        raise UsageError("-c needs the controllers: -a host:port;... or MQADMIN_CONTROLLERS")
    with controller_client(controller, timeout) as client:
        found = replicas(client, cluster_name)
    return [
        {"clusterName": r["clusterName"], "brokerName": r["brokerName"], "brokerId": r["brokerId"],
         "brokerAddress": r["brokerAddress"]}
        for r in found
    ]  # fmt: skip


def _ref(target: TargetDoc) -> Any:
    from mqbase.proto import agent_pb2 as pb

    if target["brokerName"] is None:
        return pb.BrokerRef()  # -b: the one broker served at that address
    return pb.BrokerRef(broker_name=target["brokerName"], broker_id=target["brokerId"])


def _config_doc(agents: Any, target: TargetDoc, strict: bool) -> BrokerConfigDoc:
    """A broker's configuration; one that does not answer raises when `strict` (-b: its error is the command's),
    else is listed with reachable=false (-c: the others are still shown)."""
    try:
        r = check(agents.call(target["brokerAddress"], "GetBrokerConfig", _ref(target)))
    except MqError as exc:
        if strict:
            raise
        return {**target, "reachable": False, "error": str(exc), "config": None, "differs": None}
    return {**target, "reachable": True, "error": None, "config": dict(sorted(r.config.items())), "differs": None}


def replica_differences(docs: list[BrokerConfigDoc]) -> dict[str, dict[str, dict[int, str]]]:
    """The runtime keys a set's reachable replicas disagree on, set → key → {brokerId: value}: a replica that
    missed an updateBrokerConfig (down, or added later with an older file) behaves otherwise after a failover.
    brokerElectionPriority is left out: it is meant to differ."""
    from agents.config import RUNTIME_KEYS

    sets: dict[str, dict[int, dict[str, str]]] = {}
    for d in docs:
        if d["config"] is not None and d["brokerName"] is not None and d["brokerId"] is not None:
            sets.setdefault(d["brokerName"], {})[d["brokerId"]] = d["config"]
    out: dict[str, dict[str, dict[int, str]]] = {}
    for name, configs in sorted(sets.items()):
        for key in sorted(RUNTIME_KEYS - {"brokerElectionPriority"}):
            values = {broker_id: config.get(key, "") for broker_id, config in sorted(configs.items())}
            if len(set(values.values())) > 1:
                out.setdefault(name, {})[key] = values
    return out


def _config_table(docs: list[BrokerConfigDoc]) -> None:
    for d in docs:
        title = f"{d['brokerAddress']}" + (f" ({d['brokerName']} broker {d['brokerId']})" if d["brokerName"] else "")
        if d["config"] is None:
            emit_table(f"{title}: unreachable", ["Error"], [[d["error"]]])
        else:
            emit_table(title, ["Key", "Value"], list(d["config"].items()))
    for name, keys in replica_differences(docs).items():
        for key, values in keys.items():
            typer.echo(f"{name}: {key} differs between replicas: " + ", ".join(f"{i}={v}" for i, v in values.items()))


def _config_legacy(docs: list[BrokerConfigDoc]) -> str:
    out = ""
    for d in docs:
        out += f"============{d['brokerAddress']}============\n"
        out += "".join(f"{k:<50}=  {v}\n" for k, v in (d["config"] or {}).items())
    return out


def get_broker_config(
    controller: OptionalControllerOpt = "",
    broker_addr: BrokerAddrOpt = None,
    cluster_name: TargetClusterOpt = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Show a broker's effective configuration (-b), or that of every replica of a cluster (-c).

    With -c an unreachable replica is listed with reachable=false and the command exits 1 after printing all.
    """
    targets = _targets(controller, timeout, broker_addr, cluster_name)
    with agent_client(timeout) as agents:
        docs = each_concurrently(targets, lambda t: _config_doc(agents, t, strict=broker_addr is not None))
    differs = replica_differences(docs)
    for d in docs:
        if d["config"] is not None and d["brokerName"] is not None:
            d["differs"] = sorted(differs.get(d["brokerName"], {}))
    emit(docs, output, _config_table, _config_legacy)
    unreachable = [d["brokerAddress"] for d in docs if not d["reachable"]]
    if unreachable:
        raise OperationFailed(-1, "UNREACHABLE", f"no answer from {', '.join(unreachable)}: not shown above")


def update_broker_config(
    key: Annotated[str, typer.Option("-k", "--key", help="Config key (runtime keys only; see docs/agent.md).")],
    value: Annotated[str, typer.Option("-v", "--value", help="New value.")],
    controller: OptionalControllerOpt = "",
    broker_addr: BrokerAddrOpt = None,
    cluster_name: TargetClusterOpt = None,
    reachable_only: Annotated[
        bool, typer.Option("--reachable-only", help="With -c: update the replicas that answer, skip the others.")
    ] = False,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Change a runtime key of a broker (-b) or of every replica of a cluster (-c).

    Every target is asked first: if one does not answer, nothing is changed (exit 4) unless --reachable-only.
    A refused key (NO_PERMISSION: not a runtime key) stops at the first broker, exit 4. The result lists every
    broker with its outcome: updated, refused, failed, skipped (not reached) or unreachable.
    """
    from agents.config import check_value
    from mqbase.proto import agent_pb2 as pb

    if not key.strip():
        raise UsageError("-k/--key must not be empty")
    try:
        check_value(key, value)
    except ValueError as exc:
        raise UsageError(f"-k {key} -v {value}: {exc}") from exc
    with agent_client(timeout) as agents:
        targets = _targets(controller, timeout, broker_addr, cluster_name)
        probes = each_concurrently(targets, lambda t: _config_doc(agents, t, strict=broker_addr is not None))
        silent = [p for p in probes if not p["reachable"]]
        if silent and not reachable_only:
            names = ", ".join(p["brokerAddress"] for p in silent)
            raise Refused(f"nothing changed: {names} did not answer; retry when it is back, or pass --reachable-only")
        results: list[UpdateOutcomeDoc] = []
        refusal: str | None = None  # the first refusal's remark: the key is refused everywhere, so stop there
        for target, probe in zip(targets, probes, strict=True):
            outcome: UpdateOutcomeDoc = {**target, "status": "unreachable", "error": probe["error"]}
            if probe["reachable"] and refusal is not None:
                outcome["status"], outcome["error"] = "skipped", "not attempted after a refusal"
            elif probe["reachable"]:
                request = pb.UpdateBrokerConfigRequest(broker=_ref(target), values={key: value})
                status: UpdateStatus
                try:
                    r = agents.call(target["brokerAddress"], "UpdateBrokerConfig", request)
                    status = (
                        "updated" if r.code == 0 else "refused" if r.code == ResponseCode.NO_PERMISSION else "failed"
                    )
                    error = None if r.code == 0 else f"{code_name(r.code)} ({r.code}): {r.remark}"
                    refusal = r.remark if status == "refused" else None
                except MqError as exc:
                    status, error = "failed", str(exc)
                outcome["status"], outcome["error"] = status, error
            results.append(outcome)
    doc: UpdateBrokerConfigDoc = {"key": key, "value": value, "brokers": results}
    emit(doc, output, _update_table, _update_legacy)
    if refusal is not None:
        raise OperationRefused(ResponseCode.NO_PERMISSION, "NO_PERMISSION", refusal)
    failed = [r for r in results if r["status"] == "failed"]
    if failed:
        raise OperationFailed(-1, "FAILED", f"{len(failed)} broker(s) not updated; first: {failed[0]['error']}")
    if silent:
        print(f"mqadmin: not updated (unreachable): {', '.join(p['brokerAddress'] for p in silent)}", file=sys.stderr)


def _update_table(doc: UpdateBrokerConfigDoc) -> None:
    rows = [[r["brokerAddress"], r["brokerName"], r["brokerId"], r["status"], r["error"]] for r in doc["brokers"]]
    updated = sum(r["status"] == "updated" for r in doc["brokers"])
    emit_table(f"{doc['key']} = {doc['value']}: updated on {updated} of {len(rows)} broker(s)",
               ["Address", "Broker set", "Id", "Status", "Error"], rows)  # fmt: skip


def _update_legacy(doc: UpdateBrokerConfigDoc) -> str:
    return "".join(
        f"update broker config success, {r['brokerAddress']}\n"
        if r["status"] == "updated"
        else f"update broker config failed, {r['brokerAddress']}: {r['error']}\n"
        for r in doc["brokers"]
    )
