"""A consumer group's offsets: consumerProgress, resetOffsetByTime and resetOffsetByOffset.

Offsets live in each broker set's commit log and only its master answers for them, so every command asks the
master of each set serving the topic (or the group), found through the controllers, and follows a broker's hint
when a failover moved the master. Java's names and options, but ``-o`` (the output format here): Java's
``resetOffsetByOffset -o OFFSET`` is ``--offset``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Annotated, Any, TypedDict

import typer

from mqadmin_py.commands.common import (
    INT32_MAX,
    INT64_MAX,
    agent_client,
    broker_name_option,
    check,
    checked,
    controller_client,
    local_time,
)
from mqadmin_py.commands.controller import fetch_sync_state
from mqadmin_py.commands.messages import call_master
from mqadmin_py.commands.topic import (
    GroupOpt,
    TopicOpt,
    find_group,
    find_topic,
    metadata_of,
    set_masters,
    topic_name,
    true_false,
)
from mqadmin_py.options import ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table
from mqbase.codes import ResponseCode
from mqbase.errors import MqError, OperationFailed, Refused

JAVA_DATE = re.compile(r"\d{4}-\d{2}-\d{2}#\d{2}:\d{2}:\d{2}:\d{3}")
"""Java's ``UtilAll.YYYY_MM_DD_HH_MM_SS_SSS`` (``yyyy-MM-dd#HH:mm:ss:SSS``), the -s format besides epoch ms."""
NOW = "now"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


# --- pure parts ---------------------------------------------------------------------------------


def reset_time(text: str, tz: tzinfo | None = None) -> int | None:
    """The epoch milliseconds of a resetOffsetByTime ``-s`` value, None for ``now`` (every queue to its end).

    As Java: epoch milliseconds, ``now``, or ``yyyy-MM-dd#HH:mm:ss:SSS`` in `tz` (None: this host's zone, as
    Java's SimpleDateFormat). ValueError says what is wrong; a negative or too large number is one too.
    """
    value = text.strip()
    if value == NOW:
        return None
    if value.isascii() and value.isdigit():
        if int(value) > INT64_MAX:
            raise ValueError(f"timestamp {value} is beyond the largest epoch millisecond {INT64_MAX}")
        return int(value)
    if JAVA_DATE.fullmatch(value):
        try:
            moment = datetime.strptime(value, "%Y-%m-%d#%H:%M:%S:%f")
        except ValueError as exc:
            raise ValueError(f"timestamp {value!r} is not a date: {exc}") from exc
        millis = (moment.replace(tzinfo=tz) if tz else moment.astimezone()) - EPOCH
        if millis < timedelta(0):
            raise ValueError(f"timestamp {value!r} is before 1970-01-01")
        return millis // timedelta(milliseconds=1)
    raise ValueError(f"timestamp {text!r} is none of: epoch milliseconds, 'now', yyyy-MM-dd#HH:mm:ss:SSS")


def _checked_time(value: str) -> str:
    reset_time(value)
    return value


def _force(value: str | None) -> str | None:
    """Java's ``-f``: true (its default) resets; false (move back only) is refused, the broker has no such mode."""
    if true_false(value) == "false":
        raise ValueError("-f false (move offsets back only) is not supported: the broker resets every queue to the "
                         "time given; check the offsets first with 'mqadmin consumerProgress'")  # fmt: skip
    return value


class QueueProgressDoc(TypedDict):
    """One queue's progress for the group on a broker set's master."""

    topic: str
    brokerName: str
    queueId: int
    brokerOffset: int
    minOffset: int
    consumerOffset: int
    diff: int
    inflight: int
    lastTimestamp: int | None
    belowMinOffset: bool
    skippedByRetention: int


class ProgressSetDoc(TypedDict):
    """One broker set asked; one that has no master or did not answer has reachable false and the reason."""

    brokerName: str
    masterAddress: str | None
    reachable: bool
    error: str | None


class EscapedDoc(TypedDict):
    """RIP-32: the group's changes of a queue of set `brokerName` that its acting replica escaped to `heldBy`'s
    master, waiting for `brokerName`'s next master to take them back (pre-online)."""

    brokerName: str
    heldBy: str
    topic: str
    queueId: int
    changes: int


class ConsumerProgressDoc(TypedDict):
    group: str
    topic: str | None
    diffTotal: int
    inflightTotal: int
    queues: list[QueueProgressDoc]
    brokerSets: list[ProgressSetDoc]
    escaped: list[EscapedDoc]


def queue_progress(
    topic: str, broker_name: str, queue_id: int, broker_offset: int, min_offset: int, consumer_offset: int,
    inflight: int, last_timestamp: int,
) -> QueueProgressDoc:  # fmt: skip
    """A queue's row: Java's diff (broker offset - consumer offset), and whether retention deleted messages the
    group never consumed (its offset is below the queue's first readable one: those are lost to it)."""
    skipped = max(0, min_offset - consumer_offset)
    return {
        "topic": topic, "brokerName": broker_name, "queueId": queue_id, "brokerOffset": broker_offset,
        "minOffset": min_offset, "consumerOffset": consumer_offset, "diff": broker_offset - consumer_offset,
        "inflight": inflight, "lastTimestamp": last_timestamp or None, "belowMinOffset": skipped > 0,
        "skippedByRetention": skipped,
    }  # fmt: skip


def progress_doc(
    group: str, topic: str | None, queues: list[QueueProgressDoc], sets: list[ProgressSetDoc],
    escaped: list[EscapedDoc] | None = None,
) -> ConsumerProgressDoc:  # fmt: skip
    """The document: queues sorted as Java sorts message queues (topic, broker set, queue id), and the totals."""
    ordered = sorted(queues, key=lambda q: (q["topic"], q["brokerName"], q["queueId"]))
    waiting = sorted(escaped or [], key=lambda e: (e["topic"], e["brokerName"], e["queueId"], e["heldBy"]))
    return {"group": group, "topic": topic, "diffTotal": sum(q["diff"] for q in ordered),
            "inflightTotal": sum(q["inflight"] for q in ordered), "queues": ordered, "brokerSets": sets,
            "escaped": waiting}  # fmt: skip


# --- consumerProgress ---------------------------------------------------------------------------


def _progress_table(doc: ConsumerProgressDoc) -> None:
    rows: list[list[Any]] = [
        [q["topic"], q["brokerName"], q["queueId"], q["brokerOffset"], q["consumerOffset"], q["minOffset"], q["diff"],
         q["inflight"], local_time(q["lastTimestamp"]),
         f"yes ({q['skippedByRetention']} lost)" if q["belowMinOffset"] else ""]
        for q in doc["queues"]
    ]  # fmt: skip
    rows += [[None, s["brokerName"], None, None, None, None, None, None, None, s["error"]] for s in doc["brokerSets"]
             if not s["reachable"]]  # fmt: skip
    columns = ["Topic", "Broker set", "QID", "Broker offset", "Consumer offset", "Min offset", "Diff", "Inflight",
               "Last time", "Below min offset"]  # fmt: skip
    title = f"Progress of {doc['group']}: diff total {doc['diffTotal']}, inflight total {doc['inflightTotal']}"
    emit_table(title, columns, rows)
    if doc["escaped"]:
        waiting = [[e["topic"], e["brokerName"], e["queueId"], e["heldBy"], e["changes"]] for e in doc["escaped"]]
        emit_table("Escaped changes waiting for their set's next master (RIP-32 pre-online)",
                   ["Topic", "Broker set", "QID", "Held by", "Changes"], waiting)  # fmt: skip


def _progress_legacy(doc: ConsumerProgressDoc) -> str:
    """Java 5's layout; no client connections are known here, so #Client IP is NA, and there is no Consume TPS."""
    line = "{:<32}  {:<32}  {:<4}  {:<20}  {:<20}  {:<20} {:<20}  {:<20}  {}\n"
    out = line.format("#Topic", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Client IP", "#Diff",
                      "#Inflight", "#LastTime")  # fmt: skip
    for q in doc["queues"]:
        out += line.format(q["topic"], q["brokerName"], q["queueId"], q["brokerOffset"], q["consumerOffset"], "NA",
                           q["diff"], q["inflight"], local_time(q["lastTimestamp"]))  # fmt: skip
    return out + f"\nDiff Total: {doc['diffTotal']}\nInflight Total: {doc['inflightTotal']}\n"


def consumer_progress(
    controller: ControllerOpt,
    group: GroupOpt,
    topic: Annotated[
        str | None,
        typer.Option(
            "-t",
            "--topic",
            help="Only this topic (default: every topic the group consumed).",
            callback=checked(lambda v: v if v is None else topic_name(v)),
        ),
    ] = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 5.0,
) -> None:
    """A group's progress per queue on each broker set's master: broker and consumer offsets, diff, inflight, and
    whether retention deleted messages the group never consumed.

    Asks the sets serving the topic (-t), else every broker set. A set without a master, or whose master
    does not answer, is listed with reachable=false and the reason (exit 0). Exit 1: no such group or topic.
    """
    from mqbase.proto import agent_pb2 as pb

    with controller_client(controller, timeout) as client:
        metadata_ = metadata_of(client)
        find_group(metadata_, group)
        if topic is not None:
            masters = set_masters(client, find_topic(metadata_, topic).broker_names)
        else:  # a set consumes a group it does not serve with Java's defaults: ask them all
            masters = {d["brokerName"]: d["masterAddress"] for d in fetch_sync_state(client, None, None)}
    queues: list[QueueProgressDoc] = []
    sets: list[ProgressSetDoc] = []
    escaped: list[EscapedDoc] = []
    with agent_client(timeout) as agents:
        for name, address in masters.items():
            status: ProgressSetDoc = {"brokerName": name, "masterAddress": address, "reachable": False,
                                      "error": None if address else "the broker set has no master now"}  # fmt: skip
            sets.append(status)
            if address is None:
                continue
            request = pb.GetConsumerProgressRequest(broker=pb.BrokerRef(broker_name=name), group=group,
                                                    topic=topic or "")  # fmt: skip
            try:
                r, status["masterAddress"], _ = call_master(agents, address, "GetConsumerProgress", request, timeout)
                check(r)
            except MqError as exc:
                status["error"] = str(exc)
                continue
            status["reachable"] = True
            queues += [queue_progress(q.topic, name, q.queue_id, q.broker_offset, q.min_offset, q.consumer_offset,
                                      q.inflight, q.last_timestamp_millis) for q in r.queues]  # fmt: skip
            escaped += [{"brokerName": e.home, "heldBy": name, "topic": e.topic, "queueId": e.queue_id,
                         "changes": e.changes} for e in r.escaped]  # fmt: skip
    emit(progress_doc(group, topic, queues, sets, escaped), output, _progress_table, _progress_legacy)


# --- resetOffsetByTime --------------------------------------------------------------------------


class ResetQueueDoc(TypedDict):
    queueId: int
    offset: int


class ResetSetDoc(TypedDict):
    """One broker set: its queues' new offsets, or why it was not reset (then `queues` is empty)."""

    brokerName: str
    brokerAddress: str | None
    reset: bool
    error: str | None
    queues: list[ResetQueueDoc]


class ResetByTimeDoc(TypedDict):
    group: str
    topic: str
    timestamp: str
    timestampMillis: int | None
    brokerSets: list[ResetSetDoc]


def _reset_table(doc: ResetByTimeDoc) -> None:
    rows: list[list[Any]] = [
        [s["brokerName"], q["queueId"], q["offset"]] for s in doc["brokerSets"] for q in s["queues"]
    ]
    rows += [[s["brokerName"], None, s["error"]] for s in doc["brokerSets"] if not s["reset"]]
    when = "now (every queue to its end)" if doc["timestampMillis"] is None else f"{doc['timestampMillis']} ms"
    emit_table(f"Offsets of {doc['group']} on {doc['topic']} reset to {when}", ["Broker set", "QID", "Offset"], rows)


def _reset_legacy(doc: ResetByTimeDoc) -> str:
    millis = -1 if doc["timestampMillis"] is None else doc["timestampMillis"]  # Java's value for now
    out = (f"rollback consumer offset by specified group[{doc['group']}], topic[{doc['topic']}], force[true], "
           f"timestamp(string)[{doc['timestamp']}], timestamp(long)[{millis}]\n")  # fmt: skip
    out += f"{'#brokerName':<40}  {'#queueId':<40}  {'#offset':<40}\n"
    return out + "".join(
        f"{s['brokerName']:<40}  {q['queueId']:<40}  {q['offset']:<40}\n"
        for s in doc["brokerSets"]
        for q in s["queues"]
    )


def reset_offset_by_time(
    controller: ControllerOpt,
    group: GroupOpt,
    topic: TopicOpt,
    timestamp: Annotated[
        str,
        typer.Option(
            "-s",
            "--timestamp",
            help="Epoch ms, 'now', or yyyy-MM-dd#HH:mm:ss:SSS (this host's zone).",
            callback=checked(_checked_time),
        ),
    ],
    force: Annotated[
        str | None,
        typer.Option(
            "-f",
            "--force",
            help="Java's switch: only true (its default) is supported.",
            metavar="true",
            callback=checked(_force),
        ),
    ] = None,
    broker_name: Annotated[
        str | None, broker_name_option("-b", "--brokerName", help="Only this broker set (default: every set).")
    ] = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 5.0,
) -> None:
    """Move a group's offsets on a topic to the first message stored at or after a time, on every broker set
    serving it: the group then receives again from there (or skips ahead). Its inflight messages are dropped.

    Every set must have a master before anything is reset (exit 4 otherwise, nothing changed); a set that fails
    during the reset is listed with its error and the command exits with that error's code after the others.
    """
    from mqbase.proto import agent_pb2 as pb

    millis = reset_time(timestamp)
    with controller_client(controller, timeout) as client:
        metadata_ = metadata_of(client)
        find_group(metadata_, group)
        t = find_topic(metadata_, topic)
        if broker_name is not None and broker_name not in t.broker_names:
            code = ResponseCode.TOPIC_NOT_EXIST
            remark = f"broker set {broker_name} does not serve topic {topic}; see 'mqadmin topicRoute -t {topic}'"
            raise OperationFailed(code, code.name, remark)
        masters = set_masters(client, [broker_name] if broker_name else t.broker_names)
    if masterless := [name for name, address in masters.items() if address is None]:
        raise Refused(f"broker set(s) {', '.join(masterless)} have no master now: nothing was reset; wait for one "
                      "('mqadmin wait master -bn NAME') or reset the others one by one with -b")  # fmt: skip
    sets: list[ResetSetDoc] = []
    errors: list[MqError] = []
    with agent_client(timeout) as agents:
        for name, address in masters.items():
            status: ResetSetDoc = {"brokerName": name, "brokerAddress": address, "reset": False, "error": None,
                                   "queues": []}  # fmt: skip
            sets.append(status)
            request = pb.ResetOffsetByTimeRequest(broker=pb.BrokerRef(broker_name=name), group=group, topic=topic,
                                                  timestamp_millis=INT64_MAX if millis is None else millis)  # fmt: skip
            try:
                r, status["brokerAddress"], _ = call_master(agents, address or "", "ResetOffsetByTime", request,
                                                            timeout)  # fmt: skip
                check(r)
            except MqError as exc:
                status["error"] = str(exc)
                errors.append(exc)
                continue
            status["reset"] = True
            status["queues"] = [{"queueId": q.queue_id, "offset": q.offset} for q in r.offsets]
    doc: ResetByTimeDoc = {"group": group, "topic": topic, "timestamp": timestamp, "timestampMillis": millis,
                           "brokerSets": sets}  # fmt: skip
    emit(doc, output, _reset_table, _reset_legacy)
    if errors:
        raise errors[0]


# --- resetOffsetByOffset ------------------------------------------------------------------------


class ResetByOffsetDoc(TypedDict):
    """The offset asked for; the broker clamps it to the queue's [min, max] offsets (`remark` says so)."""

    group: str
    topic: str
    brokerName: str
    brokerAddress: str
    queueId: int
    offset: int
    remark: str | None


def reset_offset_by_offset(
    controller: ControllerOpt,
    group: GroupOpt,
    topic: TopicOpt,
    broker_name: Annotated[str, broker_name_option("-b", "--brokerName", help="The broker set of the queue.")],
    queue_id: Annotated[int, typer.Option("-i", "-q", "--queueId", help="The queue.", min=0, max=INT32_MAX)],
    offset: Annotated[
        int, typer.Option("--offset", help="The group's next offset in the queue (Java's -o).", min=0, max=INT64_MAX)
    ],
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 5.0,
) -> None:
    """Set a group's offset in one queue (the next message it receives there); its inflight messages of the
    queue are dropped. Exit 1: no such group or topic, or the set does not serve the topic; 4: no master."""
    from mqbase.proto import agent_pb2 as pb

    with controller_client(controller, timeout) as client:
        metadata_ = metadata_of(client)
        find_group(metadata_, group)
        if broker_name not in find_topic(metadata_, topic).broker_names:
            code = ResponseCode.TOPIC_NOT_EXIST
            remark = f"broker set {broker_name} does not serve topic {topic}; see 'mqadmin topicRoute -t {topic}'"
            raise OperationFailed(code, code.name, remark)
        address = set_masters(client, [broker_name])[broker_name]
    if address is None:
        raise Refused(f"broker set {broker_name} has no master now; see 'mqadmin getSyncStateSet'")
    request = pb.UpdateConsumerOffsetRequest(broker=pb.BrokerRef(broker_name=broker_name), group=group, topic=topic,
                                             queue_id=queue_id, offset=offset)  # fmt: skip
    with agent_client(timeout) as agents:
        r = check(agents.call(address, "UpdateConsumerOffset", request))
    doc: ResetByOffsetDoc = {"group": group, "topic": topic, "brokerName": broker_name, "brokerAddress": address,
                             "queueId": queue_id, "offset": offset, "remark": r.remark or None}  # fmt: skip

    def table(d: ResetByOffsetDoc) -> None:
        print(f"offset of {d['group']} on {d['topic']} {d['brokerName']} queue {d['queueId']} set to {d['offset']}"
              + (f" ({d['remark']})" if d["remark"] else ""))  # fmt: skip

    def legacy(d: ResetByOffsetDoc) -> str:
        return (f"rollback consumer offset by specified brokerName[{d['brokerName']}] group[{d['group']}], "
                f"topic[{d['topic']}], queue[{d['queueId']}], offset[{d['offset']}], result[true]\n")  # fmt: skip

    emit(doc, output, table, legacy)


COMMANDS: dict[str, Callable[..., None]] = {
    "consumerProgress": consumer_progress,
    "resetOffsetByTime": reset_offset_by_time,
    "resetOffsetByOffset": reset_offset_by_offset,
}
