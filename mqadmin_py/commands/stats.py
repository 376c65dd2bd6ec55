"""A broker's runtime figures and retention on demand: brokerStatus, statsAll and deleteExpiredCommitLog.

Java's names and options. Each broker counts what it stored and handed out since it started (``GetBrokerStats``,
``agents.broker.stats``): messages and bytes, and messages per second over the last minute. ``-b`` is one
broker's address; ``-c`` every replica of a cluster, found through the controllers (``-a``), as in getBrokerConfig.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

import typer

from mqadmin_py.commands.broker import OptionalControllerOpt
from mqadmin_py.commands.cluster import BrokerAddrOpt, TargetClusterOpt, TargetDoc, _ref, _targets, replicas
from mqadmin_py.commands.common import agent_client, check, checked, controller_client, each_concurrently, local_time
from mqadmin_py.commands.topic import metadata_of, topic_name
from mqadmin_py.options import ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table, null
from mqbase.errors import MqError, OperationFailed

# --- brokerStatus -------------------------------------------------------------------------------


class BrokerStatusDoc(TargetDoc):
    """One broker's runtime figures; every figure null when it did not answer."""

    reachable: bool
    error: str | None
    version: str | None
    bootTimestamp: int | None
    role: str | None
    masterEpoch: int | None
    actingMaster: bool | None
    minOffset: int | None
    maxOffset: int | None
    confirmOffset: int | None
    putMessages: int | None
    putBytes: int | None
    getMessages: int | None
    getBytes: int | None
    putTps: float | None
    getTps: float | None


def status_doc(target: TargetDoc, r: Any) -> BrokerStatusDoc:
    """The document of a GetBrokerStats answer `r` (None: no answer); with -b the broker names itself."""
    named: TargetDoc = {**target}
    if r is not None and target["brokerName"] is None:
        named = {"clusterName": r.cluster_name, "brokerName": r.broker_name, "brokerId": r.broker_id,
                 "brokerAddress": target["brokerAddress"]}  # fmt: skip
    t = r.total if r is not None else None
    return {
        **named, "reachable": r is not None, "error": None,
        "version": r.version if r is not None else None,
        "bootTimestamp": r.boot_timestamp_millis if r is not None else None,
        "role": r.role if r is not None else None, "masterEpoch": r.master_epoch if r is not None else None,
        "actingMaster": r.acting_master if r is not None else None,
        "minOffset": r.min_offset if r is not None else None, "maxOffset": r.max_offset if r is not None else None,
        "confirmOffset": r.confirm_offset if r is not None else None,
        "putMessages": t.put_messages if t is not None else None, "putBytes": t.put_bytes if t is not None else None,
        "getMessages": t.get_messages if t is not None else None, "getBytes": t.get_bytes if t is not None else None,
        "putTps": round(t.put_tps, 2) if t is not None else None,
        "getTps": round(t.get_tps, 2) if t is not None else None,
    }  # fmt: skip


def broker_stats(agents: Any, target: TargetDoc) -> Any:
    """`target`'s GetBrokerStats answer; MqError when it does not answer or refuses."""
    return check(agents.call(target["brokerAddress"], "GetBrokerStats", _ref(target)))


def _status_or_error(agents: Any, target: TargetDoc, strict: bool) -> BrokerStatusDoc:
    try:
        return status_doc(target, broker_stats(agents, target))
    except MqError as exc:
        if strict:
            raise
        return {**status_doc(target, None), "error": str(exc)}


JAVA_KEYS = {
    "brokerVersionDesc": "version", "bootTimestamp": "bootTimestamp", "brokerRole": "role",
    "masterEpoch": "masterEpoch", "brokerActingMaster": "actingMaster", "commitLogMinOffset": "minOffset",
    "commitLogMaxOffset": "maxOffset", "confirmOffset": "confirmOffset", "putMessageTimesTotal": "putMessages",
    "putMessageSizeTotal": "putBytes", "getMessageTimesTotal": "getMessages", "getMessageSizeTotal": "getBytes",
    "putTps": "putTps", "getTransferredTps": "getTps",
}  # fmt: skip
"""The legacy keys (Java's runtime-info names where one means the same) and the JSON field each prints."""


def _status_legacy(docs: list[BrokerStatusDoc]) -> str:
    """Java's ``%-32s: %s`` lines sorted by key; with -c each line starts with the broker's address."""
    out = ""
    for d in docs:
        lines = sorted((key, d[field]) for key, field in JAVA_KEYS.items())  # type: ignore[literal-required]
        if not d["reachable"]:
            lines = [("error", d["error"])]
        prefix = f"{d['brokerAddress']:<24} " if len(docs) > 1 else ""
        out += "".join(f"{prefix}{key:<32}: {_java(value)}\n" for key, value in lines)
    return out


def _java(value: object) -> str:
    """A value as Java prints it: booleans lower-case, a missing one ``null``."""
    return str(value).lower() if isinstance(value, bool) else null(value)


def _status_table(docs: list[BrokerStatusDoc]) -> None:
    rows = [
        [d["brokerAddress"], d["brokerName"], d["brokerId"], d["role"], d["version"], local_time(d["bootTimestamp"]),
         d["putTps"], d["getTps"], d["putMessages"], d["getMessages"], d["minOffset"], d["maxOffset"],
         d["confirmOffset"], d["error"]]
        for d in docs
    ]  # fmt: skip
    columns = ["Address", "Broker set", "Id", "Role", "Version", "Started", "Put TPS", "Get TPS", "Puts", "Gets",
               "MinOffset", "MaxOffset", "ConfirmOffset", "Error"]  # fmt: skip
    emit_table("Broker status (counts since the broker started; TPS over the last minute)", columns, rows)


def broker_status(
    controller: OptionalControllerOpt = "",
    broker_addr: BrokerAddrOpt = None,
    cluster_name: TargetClusterOpt = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """A broker's runtime figures (-b), or every replica's of a cluster (-c): version, start time, role, offsets,
    messages put and got since it started and per second over the last minute.

    -b: an unreachable broker is exit 5. -c: an unreachable replica is listed (reachable=false) and the command
    exits 1 after printing all; an unknown cluster is exit 1 (2008).
    """
    targets = _targets(controller, timeout, broker_addr, cluster_name)
    with agent_client(timeout) as agents:
        docs = each_concurrently(targets, lambda t: _status_or_error(agents, t, strict=broker_addr is not None))
    emit(docs, output, _status_table, _status_legacy)
    unreachable = [d["brokerAddress"] for d in docs if not d["reachable"]]
    if unreachable:
        raise OperationFailed(-1, "UNREACHABLE", f"no answer from {', '.join(unreachable)}: listed above")


# --- statsAll -----------------------------------------------------------------------------------


class StatsRowDoc(TypedDict):
    """A topic and one group consuming it (Java's row), or the topic alone (`group` null: no group consumed it)."""

    topic: str
    group: str | None
    accumulation: int
    inTps: float
    outTps: float | None
    inMessages: int
    outMessages: int | None


class StatsBrokerDoc(TypedDict):
    """A replica asked, and why it did not answer (its figures are then missing from the sums)."""

    brokerName: str
    brokerId: int
    brokerAddress: str
    reachable: bool
    error: str | None


class StatsAllDoc(TypedDict):
    rows: list[StatsRowDoc]
    brokers: list[StatsBrokerDoc]


def stats_rows(
    topics: list[str], figures: list[Any], accumulation: dict[tuple[str, str], int], active_only: bool
) -> list[StatsRowDoc]:
    """Java's statsAll rows from every replica's ``TrafficStats`` rows (summed over the replicas: a message is
    counted by the one master that stored or handed it out) and each (topic, group)'s diff on the masters.

    A topic's groups are those that got messages of it or hold offsets on it; a topic no group consumes gets one
    row with group null. `active_only` (Java's -a) drops rows with no message in or out."""
    put: dict[str, list[float]] = {}
    get: dict[tuple[str, str], list[float]] = {}
    for f in figures:
        if f.group:
            counts = get.setdefault((f.topic, f.group), [0, 0.0])
            counts[0] += f.get_messages
            counts[1] += f.get_tps
        elif f.put_messages:
            counts = put.setdefault(f.topic, [0, 0.0])
            counts[0] += f.put_messages
            counts[1] += f.put_tps
    rows: list[StatsRowDoc] = []
    for topic in sorted(set(topics) | set(put)):
        in_messages, in_tps = put.get(topic, [0, 0.0])
        groups = sorted({g for t, g in [*get, *accumulation] if t == topic})
        for group in groups:
            out_messages, out_tps = get.get((topic, group), [0, 0.0])
            behind = max(0, accumulation.get((topic, group), 0))
            row: StatsRowDoc = {"topic": topic, "group": group, "accumulation": behind, "inTps": round(in_tps, 2),
                                "outTps": round(out_tps, 2), "inMessages": int(in_messages),
                                "outMessages": int(out_messages)}  # fmt: skip
            if not active_only or in_messages or out_messages:
                rows.append(row)
        if not groups and (not active_only or in_messages):
            rows.append({"topic": topic, "group": None, "accumulation": 0, "inTps": round(in_tps, 2), "outTps": None,
                         "inMessages": int(in_messages), "outMessages": None})  # fmt: skip
    return rows


def _accumulation(agents: Any, masters: dict[str, str], groups: list[str]) -> dict[tuple[str, str], int]:
    """Each (topic, group)'s diff summed over the sets' masters (Java's ``computeTotalDiff``); a master that
    does not answer adds nothing."""
    from mqbase.proto import agent_pb2 as pb

    out: dict[tuple[str, str], int] = {}

    def one(ask: tuple[str, str, str]) -> list[tuple[str, str, int]]:
        name, address, group = ask
        request = pb.GetConsumerProgressRequest(broker=pb.BrokerRef(broker_name=name), group=group)
        try:
            r = check(agents.call(address, "GetConsumerProgress", request))
        except MqError:
            return []
        return [(q.topic, group, q.broker_offset - q.consumer_offset) for q in r.queues]

    asks = [(name, address, group) for name, address in masters.items() for group in groups]
    for found in each_concurrently(asks, one):
        for topic, group, diff in found:
            out[(topic, group)] = out.get((topic, group), 0) + diff
    return out


def _stats_table(doc: StatsAllDoc) -> None:
    rows = [[r["topic"], r["group"] or "(no consumer)", r["accumulation"], r["inTps"], r["outTps"], r["inMessages"],
             r["outMessages"]] for r in doc["rows"]]  # fmt: skip
    rows += [[None, None, None, None, None, None, f"{b['brokerAddress']}: {b['error']}"] for b in doc["brokers"]
             if not b["reachable"]]  # fmt: skip
    columns = ["Topic", "Consumer group", "Accumulation", "In TPS", "Out TPS", "In messages", "Out messages"]
    emit_table("Topic and consumer figures (counts since each broker started; TPS over the last minute)", columns, rows)


def _stats_legacy(doc: StatsAllDoc) -> str:
    """Java's layout; the counts are since each broker started (Java's: the last 24 hours)."""
    head = "{:<64}  {:<64} {:>12} {:>11} {:>11} {:>14} {:>14}\n"
    out = head.format("#Topic", "#Consumer Group", "#Accumulation", "#InTPS", "#OutTPS", "#InMsg24Hour",
                      "#OutMsg24Hour")  # fmt: skip
    for r in doc["rows"]:
        if r["group"] is None:
            out += f"{r['topic']:<64}  {'':<64} {0:>12} {r['inTps']:>11.2f} {'':>11} {r['inMessages']:>14} " \
                   f"{'NO_CONSUMER':>14}\n"  # fmt: skip
        else:
            out += f"{r['topic']:<64}  {r['group']:<64} {r['accumulation']:>12} {r['inTps']:>11.2f} " \
                   f"{r['outTps'] or 0:>11.2f} {r['inMessages']:>14} {r['outMessages'] or 0:>14}\n"  # fmt: skip
    return out


def stats_all(
    controller: ControllerOpt,
    topic: Annotated[
        str | None,
        typer.Option(
            "-t", "--topic", help="Only this topic.", callback=checked(lambda v: v if v is None else topic_name(v))
        ),
    ] = None,
    active_topic: Annotated[
        bool, typer.Option("--activeTopic", help="Only rows with messages in or out (Java's -a).")
    ] = False,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 5.0,
) -> None:
    """Per topic and consumer group: accumulation (messages not yet consumed), messages in and out per second
    over the last minute, and since the brokers started. Every topic of the controllers' metadata (or -t).

    An unreachable replica is listed under brokers (its figures are missing, exit 0). Exit 1: -t names no topic.
    """
    from mqadmin_py.commands.topic import find_topic

    with controller_client(controller, timeout) as client:
        metadata_ = metadata_of(client)
        topics = [find_topic(metadata_, topic).topic_name] if topic else [t.topic_name for t in metadata_.topics]
        groups = [g.group_name for g in metadata_.groups]
        found = replicas(client, None)
    masters = {r["brokerName"]: r["brokerAddress"] for r in found if r["role"] == "master" and r["alive"]}
    brokers: list[StatsBrokerDoc] = []
    figures: list[Any] = []
    with agent_client(timeout) as agents:
        targets: list[TargetDoc] = [{"clusterName": r["clusterName"], "brokerName": r["brokerName"],
                                     "brokerId": r["brokerId"], "brokerAddress": r["brokerAddress"]}
                                    for r in found]  # fmt: skip

        def ask(target: TargetDoc) -> tuple[StatsBrokerDoc, Any]:
            status: StatsBrokerDoc = {
                "brokerName": target["brokerName"] or "", "brokerId": target["brokerId"] or 0,
                "brokerAddress": target["brokerAddress"], "reachable": True, "error": None,
            }  # fmt: skip
            try:
                return status, broker_stats(agents, target)
            except MqError as exc:
                return {**status, "reachable": False, "error": str(exc)}, None

        for status, answer in each_concurrently(targets, ask):
            brokers.append(status)
            figures += list(answer.rows) if answer is not None else []
        accumulation = _accumulation(agents, masters, groups)
    wanted = [(t, g) for t, g in accumulation if t in topics]
    rows = stats_rows(topics, [f for f in figures if f.topic in topics], {k: accumulation[k] for k in wanted},
                      active_topic)  # fmt: skip
    doc: StatsAllDoc = {"rows": rows, "brokers": brokers}
    emit(doc, output, _stats_table, _stats_legacy)


# --- deleteExpiredCommitLog ---------------------------------------------------------------------


class DeletedLogDoc(TargetDoc):
    """What one replica's run deleted; `heldBy` names the floor that kept expired segments (null: none did)."""

    deleted: bool
    error: str | None
    deletedSegments: int
    deletedBytes: int
    minOffset: int | None
    heldBy: str | None


def delete_expired_commit_log(
    controller: OptionalControllerOpt = "",
    broker_addr: BrokerAddrOpt = None,
    cluster_name: TargetClusterOpt = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 10.0,
) -> None:
    """Run retention now on a broker (-b) or on every replica of a cluster (-c), as at a deleteWhen hour:
    commit-log segments older than fileReservedTime are deleted whatever the hour (never what a slave, a
    consumer or the confirmOffset still needs).

    Exit 1 when a replica did not run it (unreachable, fenced): the others still did.
    """
    targets = _targets(controller, timeout, broker_addr, cluster_name)

    def one(target: TargetDoc) -> DeletedLogDoc:
        doc: DeletedLogDoc = {**target, "deleted": False, "error": None, "deletedSegments": 0, "deletedBytes": 0,
                              "minOffset": None, "heldBy": None}  # fmt: skip
        try:
            r = check(agents.call(target["brokerAddress"], "DeleteExpiredCommitLog", _ref(target)))
        except MqError as exc:
            return {**doc, "error": str(exc)}
        return {**doc, "deleted": True, "deletedSegments": r.deleted_segments, "deletedBytes": r.deleted_bytes,
                "minOffset": r.min_offset, "heldBy": r.held_by or None}  # fmt: skip

    with agent_client(timeout) as agents:
        docs = each_concurrently(targets, one)

    def table(ds: list[DeletedLogDoc]) -> None:
        rows = [[d["brokerAddress"], d["brokerName"], d["brokerId"], d["deletedSegments"], d["deletedBytes"],
                 d["minOffset"], d["heldBy"], d["error"]] for d in ds]  # fmt: skip
        columns = ["Address", "Broker set", "Id", "Segments deleted", "Bytes deleted", "MinOffset", "Held by", "Error"]
        emit_table("Expired commit-log segments deleted", columns, rows)

    emit(docs, output, table, lambda ds: "".join("success\n" if d["deleted"] else "false\n" for d in ds))
    failed = [d for d in docs if not d["deleted"]]
    if failed:
        raise OperationFailed(-1, "FAILED", f"{failed[0]['brokerAddress']} did not run it: {failed[0]['error']}")
