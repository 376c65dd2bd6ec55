"""Topics and subscription groups, kept by the controllers as cluster metadata.

updateTopic, deleteTopic, topicList, topicRoute, topicStatus, updateSubGroup, deleteSubGroup and getConsumerConfig,
with Java's names and options, except where Java's letters are ours already: ``-a`` is the controller address
(attributes are ``--attributes``) and ``-o`` the output format (orderly is ``--consume-orderly true``). ``-b`` names
one broker set (Java: one broker's address). The controller leader decides every change and commits it through
Raft, so a broker failover or a controller leader change loses none of it. An update merges: options left out keep the
current value (a new topic takes 8 read and 8 write queues and perm 6; a new group: not orderly, 16 retries,
consume enabled, Java's customized backoff levels), and the broker sets named are added to those already serving it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, TypedDict

import typer

from mqadmin_py.commands import legacy
from mqadmin_py.commands.common import (
    INT64_MAX,
    agent_client,
    broker_name_option,
    check,
    checked,
    cluster_name_option,
    controller_client,
    local_time,
    seconds_option,
)
from mqadmin_py.commands.controller import fetch_sync_state
from mqadmin_py.options import ClusterNameOpt, ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table
from mqbase import metadata, retry
from mqbase.codes import ResponseCode
from mqbase.errors import MqError, OperationFailed, UsageError

WRITE_TIMEOUT = 6.0
"""Default seconds for a change: the leader waits up to 5 s for its commit."""


# --- validators (ValueError → exit 2, with the controller's words) ---------------------------------------


def _no_problem(problem: str | None) -> None:
    if problem is not None:
        raise ValueError(problem)


def topic_name(value: str) -> str:
    _no_problem(metadata.topic_problem(value))
    return value


def group_name(value: str) -> str:
    _no_problem(metadata.group_problem(value))
    return value


def queue_nums(value: int | None) -> int | None:
    _no_problem(None if value is None else metadata.queue_nums_problem(value, "queue numbers"))
    return value


def perm(value: int | None) -> int | None:
    _no_problem(None if value is None else metadata.perm_problem(value))
    return value


def retry_max_times(value: int | None) -> int | None:
    _no_problem(None if value is None else metadata.retry_max_times_problem(value))
    return value


def group_retry_policy(value: str | None) -> str | None:
    """Java's ``--groupRetryPolicy`` JSON, checked here so a bad one never reaches the controller."""
    if value is not None:
        retry.parse(value)
    return value


def attributes(values: list[str] | None) -> list[str] | None:
    """Each ``--attributes`` value checked as Java's ``+key=value`` / ``-key`` (comma-separated allowed)."""
    if values:
        metadata.parse_attributes(",".join(values))
    return values


def true_false(value: str | None) -> str | None:
    """Java's boolean option values: ``true`` or ``false`` (any case), lower-cased."""
    if value is not None and value.lower() not in ("true", "false"):
        raise ValueError(f"want true or false, got {value!r}")
    return None if value is None else value.lower()


def _bool(value: str | None) -> bool | None:
    return None if value is None else value == "true"


TopicOpt = Annotated[str, typer.Option("-t", "--topic", help="Topic name.", callback=checked(topic_name))]
GroupOpt = Annotated[
    str, typer.Option("-g", "--groupName", help="Subscription group name.", callback=checked(group_name))
]
ServingClusterOpt = Annotated[
    str | None, cluster_name_option("-c", "--clusterName", help="Every broker set of this cluster serves it.")
]
ServingSetOpt = Annotated[str | None, broker_name_option("-b", "--brokerName", help="This broker set serves it.")]
OwnerClusterOpt = Annotated[str, cluster_name_option("-c", "--clusterName", help="Cluster it belongs to.")]
WriteTimeoutOpt = Annotated[float, seconds_option("--timeout", help="Seconds allowed for the change.")]


# --- documents ----------------------------------------------------------------------------------


class TopicDoc(TypedDict):
    """A topic's config, as the controllers keep it."""

    topicName: str
    clusterName: str
    brokerNames: list[str]
    readQueueNums: int
    writeQueueNums: int
    perm: int
    messageType: str


class GroupDoc(TypedDict):
    """A subscription group's config, as the controllers keep it."""

    groupName: str
    clusterName: str
    brokerNames: list[str]
    consumeOrderly: bool
    retryMaxTimes: int
    consumeEnable: bool
    groupRetryPolicy: retry.JavaDoc
    """Java's ``GroupRetryPolicy`` JSON, as ``-q`` takes it."""


class TopicChangeDoc(TypedDict):
    """updateTopic: the topic after the change (changed false: it already was so)."""

    metadataVersion: int
    changed: bool
    topic: TopicDoc


class GroupChangeDoc(TypedDict):
    """updateSubGroup: the group after the change."""

    metadataVersion: int
    changed: bool
    group: GroupDoc


class DeletedDoc(TypedDict):
    """deleteTopic / deleteSubGroup (changed false: there was nothing to delete)."""

    kind: Literal["topic", "group"]
    name: str
    clusterName: str
    metadataVersion: int
    changed: bool


class TopicListDoc(TypedDict):
    metadataVersion: int
    topics: list[TopicDoc]


class RouteSetDoc(TypedDict):
    """One broker set serving a topic: its queues and its master now (null: none elected)."""

    brokerName: str
    readQueueNums: int
    writeQueueNums: int
    perm: int
    masterBrokerId: int | None
    masterAddress: str | None
    masterAlive: bool


class TopicRouteDoc(TypedDict):
    topicName: str
    clusterName: str
    messageType: str
    brokerSets: list[RouteSetDoc]


class QueueStatusDoc(TypedDict):
    """One queue of a topic on a broker set's master: the queue offsets readers can use, and the last store time."""

    queueId: int
    minOffset: int
    maxOffset: int
    lastUpdateTimestamp: int | None


class SetStatusDoc(TypedDict):
    """One broker set of a topic in topicStatus; an unreachable or masterless set has no queues and an error."""

    brokerName: str
    masterAddress: str | None
    reachable: bool
    error: str | None
    queues: list[QueueStatusDoc]


class TopicStatusDoc(TypedDict):
    topicName: str
    brokerSets: list[SetStatusDoc]


def _topic_doc(t: Any) -> TopicDoc:
    return {
        "topicName": t.topic_name,
        "clusterName": t.cluster_name,
        "brokerNames": list(t.broker_names),
        "readQueueNums": t.read_queue_nums,
        "writeQueueNums": t.write_queue_nums,
        "perm": t.perm,
        "messageType": t.attributes.get(metadata.MESSAGE_TYPE, "NORMAL"),
    }


def _group_doc(g: Any) -> GroupDoc:
    return {
        "groupName": g.group_name,
        "clusterName": g.cluster_name,
        "brokerNames": list(g.broker_names),
        "consumeOrderly": g.consume_orderly,
        "retryMaxTimes": g.retry_max_times,
        "consumeEnable": g.consume_enable,
        "groupRetryPolicy": retry.java_doc(retry.of_message(g.retry_policy)),
    }


def _perm_text(value: int) -> str:
    return {2: "W", 4: "R", 6: "RW"}.get(value, str(value))


def _topics_table(topics: list[TopicDoc], title: str) -> None:
    columns = ["Topic", "Cluster", "Broker sets", "Read", "Write", "Perm", "Message type"]
    rows = [
        [t["topicName"], t["clusterName"], ",".join(t["brokerNames"]), t["readQueueNums"], t["writeQueueNums"],
         _perm_text(t["perm"]), t["messageType"]]
        for t in topics
    ]  # fmt: skip
    emit_table(title, columns, rows)


def _duration(ms: int) -> str:
    """``5000`` → ``5s``, ``120000`` → ``2m``, ``7200000`` → ``2h``; other values stay in ms."""
    for unit, size in (("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms and ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def _retry_text(policy: retry.JavaDoc) -> str:
    """A retry policy in a table cell: the customized levels, or the exponential formula (JSON: ms)."""
    if policy["type"] == "CUSTOMIZED":
        return "customized " + " ".join(_duration(ms) for ms in policy["customizedRetryPolicy"]["next"])
    e = policy["exponentialRetryPolicy"]
    return f"exponential {_duration(e['initial'])} x{e['multiplier']} max {_duration(e['max'])}"


def _group_table(g: GroupDoc, title: str) -> None:
    """One key per row: a group's seven fields in one row were ~225 columns wide (the 18 retry levels)."""
    rows: list[list[object]] = [
        ["Group", g["groupName"]], ["Cluster", g["clusterName"]], ["Broker sets", ",".join(g["brokerNames"])],
        ["Orderly", g["consumeOrderly"]], ["Retry max times", g["retryMaxTimes"]],
        ["Retry policy", _retry_text(g["groupRetryPolicy"])], ["Consume enable", g["consumeEnable"]],
    ]  # fmt: skip
    emit_table(title, ["Key", "Value"], rows)


def _serving(cluster_name: str | None, broker_name: str | None) -> tuple[str, str]:
    if (cluster_name is None) == (broker_name is None):
        raise UsageError("give -c CLUSTER (every broker set of it) or -b BROKER_NAME (one broker set), not both")
    return cluster_name or "", broker_name or ""


def metadata_of(client: Any) -> Any:
    from mqbase.proto import controller_pb2 as pb

    return check(client.call("GetMetadata", pb.GetMetadataRequest()))


def find_topic(metadata_: Any, topic: str) -> Any:
    """`topic`'s config in a GetMetadata answer; OperationFailed TOPIC_NOT_EXIST (exit 1) when it has none."""
    found = [t for t in metadata_.topics if t.topic_name == topic]
    if not found:
        remark = f"No topic route info for the topic: {topic}; list the topics with 'mqadmin topicList'"
        raise OperationFailed(ResponseCode.TOPIC_NOT_EXIST, ResponseCode.TOPIC_NOT_EXIST.name, remark)
    return found[0]


def find_group(metadata_: Any, group: str) -> Any:
    """`group`'s config in a GetMetadata answer; OperationFailed SUBSCRIPTION_GROUP_NOT_EXIST (exit 1) otherwise."""
    found = [g for g in metadata_.groups if g.group_name == group]
    if not found:
        code = ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST
        raise OperationFailed(code, code.name, f"subscription group {group} does not exist")
    return found[0]


def set_masters(client: Any, broker_names: Any) -> dict[str, str | None]:
    """The master address of each named broker set, in the given order (None: the set has no master now)."""
    masters = {d["brokerName"]: d["masterAddress"] for d in fetch_sync_state(client, list(broker_names), None)}
    return {name: masters.get(name) for name in broker_names}


# --- commands -----------------------------------------------------------------------------------


def update_topic(
    controller: ControllerOpt,
    topic: TopicOpt,
    cluster_name: ServingClusterOpt = None,
    broker_name: ServingSetOpt = None,
    read_queue_nums: Annotated[
        int | None,
        typer.Option("-r", "--readQueueNums", help="Read queues [new topic: 8].", callback=checked(queue_nums)),
    ] = None,
    write_queue_nums: Annotated[
        int | None,
        typer.Option("-w", "--writeQueueNums", help="Write queues [new topic: 8].", callback=checked(queue_nums)),
    ] = None,
    perm_: Annotated[
        int | None, typer.Option("-p", "--perm", help="2 (W), 4 (R) or 6 (RW) [new topic: 6].", callback=checked(perm))
    ] = None,
    attributes_: Annotated[
        list[str] | None,
        typer.Option(
            "--attributes",
            help="+message.type=NORMAL|FIFO|DELAY|TRANSACTION sets, -message.type removes (Java's -a).",
            callback=checked(attributes),
        ),
    ] = None,
    output: OutputOpt = Output.table,
    timeout: WriteTimeoutOpt = WRITE_TIMEOUT,
) -> None:
    """Create a topic or change it (kept by the controllers; options left out keep the topic's values)."""
    from mqbase.proto import controller_pb2 as pb

    cluster, broker = _serving(cluster_name, broker_name)
    request = pb.UpdateTopicRequest(cluster_name=cluster, broker_name=broker, topic_name=topic,
                                    read_queue_nums=read_queue_nums, write_queue_nums=write_queue_nums, perm=perm_,
                                    attributes=attributes_ or [])  # fmt: skip
    with controller_client(controller, timeout) as client:
        r = check(client.call("UpdateTopic", request))
    doc: TopicChangeDoc = {"metadataVersion": r.metadata_version, "changed": r.changed, "topic": _topic_doc(r.topic)}
    verb = "updated" if doc["changed"] else "unchanged"
    emit(doc, output, lambda d: _topics_table([d["topic"]], f"Topic {verb} (metadata version {d['metadataVersion']})"),
         legacy.update_topic)  # fmt: skip


def delete_topic(
    controller: ControllerOpt,
    cluster_name: OwnerClusterOpt,
    topic: TopicOpt,
    output: OutputOpt = Output.table,
    timeout: WriteTimeoutOpt = WRITE_TIMEOUT,
) -> None:
    """Delete a topic's metadata (its messages stay until retention removes them); an unknown topic is a no-op."""
    from mqbase.proto import controller_pb2 as pb

    with controller_client(controller, timeout) as client:
        r = check(client.call("DeleteTopic", pb.DeleteTopicRequest(cluster_name=cluster_name, topic_name=topic)))
    _emit_deleted("topic", topic, cluster_name, r, output)


def _emit_deleted(kind: Literal["topic", "group"], name: str, cluster: str, r: Any, output: Output) -> None:
    doc: DeletedDoc = {"kind": kind, "name": name, "clusterName": cluster, "metadataVersion": r.metadata_version,
                       "changed": r.changed}  # fmt: skip

    def table(d: DeletedDoc) -> None:
        done = "deleted" if d["changed"] else "does not exist; nothing deleted"
        print(f"{d['kind']} {d['name']} {done} (metadata version {d['metadataVersion']})")

    emit(doc, output, table)


def topic_list(
    controller: ControllerOpt,
    cluster_name: ClusterNameOpt = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 5.0,
) -> None:
    """List the topics the controllers keep (of one cluster with -c), with their queues, perm and message type.

    A cluster with no broker set is exit 1 (2008), as every other command's -c: never an empty list for a typo.
    """
    with controller_client(controller, timeout) as client:
        if cluster_name is not None:
            fetch_sync_state(client, None, cluster_name)
        r = metadata_of(client)
    topics = [_topic_doc(t) for t in r.topics if cluster_name is None or t.cluster_name == cluster_name]
    doc: TopicListDoc = {"metadataVersion": r.metadata_version, "topics": topics}
    emit(doc, output, lambda d: _topics_table(d["topics"], f"Topics (metadata version {d['metadataVersion']})"),
         lambda d: "".join(f"{t['topicName']}\n" for t in d["topics"]))  # fmt: skip


def topic_route(
    controller: ControllerOpt,
    topic: TopicOpt,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 5.0,
) -> None:
    """Where a topic is served: per broker set its queues, perm and current master (exit 1: no such topic); a set
    whose write permission is wiped (wipeWritePerm) shows the perm without the write bit."""
    with controller_client(controller, timeout) as client:
        metadata_ = metadata_of(client)
        t = find_topic(metadata_, topic)
        wiped = set(metadata_.write_wiped_broker_names)
        sets = {d["brokerName"]: d for d in fetch_sync_state(client, None, None) if d["brokerName"] in t.broker_names}
    routes: list[RouteSetDoc] = []
    for name in t.broker_names:
        s = sets.get(name)
        master = None if s is None else s["masterBrokerId"]
        alive = s is not None and any(r["brokerId"] == master and r["alive"] for r in s["inSyncReplicas"])
        routes.append(
            {
                "brokerName": name,
                "readQueueNums": t.read_queue_nums,
                "writeQueueNums": t.write_queue_nums,
                "perm": t.perm & ~metadata.PERM_WRITE if name in wiped else t.perm,
                "masterBrokerId": master,
                "masterAddress": None if s is None else s["masterAddress"],
                "masterAlive": alive,
            }
        )
    doc: TopicRouteDoc = {
        "topicName": t.topic_name,
        "clusterName": t.cluster_name,
        "messageType": t.attributes.get(metadata.MESSAGE_TYPE, "NORMAL"),
        "brokerSets": routes,
    }

    def table(d: TopicRouteDoc) -> None:
        rows = [[s["brokerName"], s["readQueueNums"], s["writeQueueNums"], _perm_text(s["perm"]), s["masterBrokerId"],
                 s["masterAddress"], s["masterAlive"]] for s in d["brokerSets"]]  # fmt: skip
        title = f"Route of {d['topicName']} ({d['clusterName']}, {d['messageType']})"
        emit_table(title, ["Broker set", "Read", "Write", "Perm", "Master id", "Master address", "Alive"], rows)

    emit(doc, output, table, legacy.topic_route)


def _queue_status(agents: Any, address: str, broker_name: str, topic: str, queue_id: int) -> QueueStatusDoc:
    """Min and max offset of one queue (a pull past every offset returns no message, only the bounds), then the
    store time of the last message (None for an empty queue)."""
    from mqbase.proto import agent_pb2 as apb

    def pull(offset: int) -> Any:
        request = apb.PullMessageRequest(broker=apb.BrokerRef(broker_name=broker_name), topic=topic,
                                         queue_id=queue_id, queue_offset=offset, max_messages=1)  # fmt: skip
        return check(agents.call(address, "PullMessage", request))

    bounds = pull(INT64_MAX)
    last = None
    if bounds.max_offset > bounds.min_offset:
        tail = pull(bounds.max_offset - 1)
        last = tail.messages[0].store_timestamp if tail.messages else None
    return {"queueId": queue_id, "minOffset": bounds.min_offset, "maxOffset": bounds.max_offset,
            "lastUpdateTimestamp": last}  # fmt: skip


def topic_status(
    controller: ControllerOpt,
    topic: TopicOpt,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 5.0,
) -> None:
    """Per broker set serving a topic, each queue's min and max offset on the master and its last store time.

    Only confirmed messages count (what a consumer can read). A set without a master, or whose master does not
    answer, is listed with reachable=false and the reason (exit 0: during an incident that is expected).
    Exit 1: no such topic.
    """
    with controller_client(controller, timeout) as client:
        t = find_topic(metadata_of(client), topic)
        masters = set_masters(client, t.broker_names)
    queues = max(t.read_queue_nums, t.write_queue_nums)
    sets: list[SetStatusDoc] = []
    with agent_client(timeout) as agents:
        for name in t.broker_names:
            address = masters.get(name)
            error = None if address else "the broker set has no master now"
            status: SetStatusDoc = {"brokerName": name, "masterAddress": address, "reachable": False,
                                    "error": error, "queues": []}  # fmt: skip
            if address:
                try:
                    status["queues"] = [_queue_status(agents, address, name, topic, q) for q in range(queues)]
                    status["reachable"] = True
                except MqError as exc:
                    status["error"] = str(exc)
            sets.append(status)
    doc: TopicStatusDoc = {"topicName": topic, "brokerSets": sets}

    def table(d: TopicStatusDoc) -> None:
        rows = [[s["brokerName"], q["queueId"], q["minOffset"], q["maxOffset"], local_time(q["lastUpdateTimestamp"])]
                for s in d["brokerSets"] for q in s["queues"]]  # fmt: skip
        rows += [[s["brokerName"], None, None, None, s["error"]] for s in d["brokerSets"] if not s["reachable"]]
        columns = ["Broker set", "QID", "Min offset", "Max offset", "Last updated"]
        emit_table(f"Status of {d['topicName']}", columns, rows)

    emit(doc, output, table)


def update_sub_group(
    controller: ControllerOpt,
    group: GroupOpt,
    cluster_name: ServingClusterOpt = None,
    broker_name: ServingSetOpt = None,
    consume_orderly: Annotated[
        str | None,
        typer.Option(
            "--consume-orderly",
            help="true: a FIFO (orderly) group [new group: false] (Java's -o).",
            metavar="true|false",
            callback=checked(true_false),
        ),
    ] = None,
    retry_max_times_: Annotated[
        int | None,
        typer.Option(
            "-r",
            "--retryMaxTimes",
            help="Redeliveries before the dead-letter topic [new group: 16].",
            callback=checked(retry_max_times),
        ),
    ] = None,
    group_retry_policy_: Annotated[
        str | None,
        typer.Option(
            "-q",
            "--groupRetryPolicy",
            help='Java\'s JSON: {"type":"CUSTOMIZED","customizedRetryPolicy":{"next":[1000,5000]}} or '
            '{"type":"EXPONENTIAL","exponentialRetryPolicy":{"initial":1000,"max":7200000,"multiplier":2}} '
            "(ms) [new group: customized 1s 5s 10s 30s 1m 2m ... 2h].",
            metavar="JSON",
            callback=checked(group_retry_policy),
        ),
    ] = None,
    consume_enable: Annotated[
        str | None,
        typer.Option(
            "--consume-enable",
            help="false stops the group's consumption [new group: true] (Java's -s).",
            metavar="true|false",
            callback=checked(true_false),
        ),
    ] = None,
    output: OutputOpt = Output.table,
    timeout: WriteTimeoutOpt = WRITE_TIMEOUT,
) -> None:
    """Create a subscription group or change it (kept by the controllers; options left out keep its values)."""
    from mqbase.proto import controller_pb2 as pb

    cluster, broker = _serving(cluster_name, broker_name)
    policy = None if group_retry_policy_ is None else retry.to_message(retry.parse(group_retry_policy_))
    request = pb.UpdateSubscriptionGroupRequest(
        cluster_name=cluster, broker_name=broker, group_name=group, consume_orderly=_bool(consume_orderly),
        retry_max_times=retry_max_times_, consume_enable=_bool(consume_enable), retry_policy=policy,
    )  # fmt: skip
    with controller_client(controller, timeout) as client:
        r = check(client.call("UpdateSubscriptionGroup", request))
    doc: GroupChangeDoc = {"metadataVersion": r.metadata_version, "changed": r.changed, "group": _group_doc(r.group)}
    verb = "updated" if doc["changed"] else "unchanged"
    emit(doc, output, lambda d: _group_table(d["group"], f"Group {verb} (metadata version {d['metadataVersion']})"))


def delete_sub_group(
    controller: ControllerOpt,
    cluster_name: OwnerClusterOpt,
    group: GroupOpt,
    output: OutputOpt = Output.table,
    timeout: WriteTimeoutOpt = WRITE_TIMEOUT,
) -> None:
    """Delete a subscription group's metadata; an unknown group is a no-op."""
    from mqbase.proto import controller_pb2 as pb

    request = pb.DeleteSubscriptionGroupRequest(cluster_name=cluster_name, group_name=group)
    with controller_client(controller, timeout) as client:
        r = check(client.call("DeleteSubscriptionGroup", request))
    _emit_deleted("group", group, cluster_name, r, output)


def get_consumer_config(
    controller: ControllerOpt,
    group: GroupOpt,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 5.0,
) -> None:
    """A subscription group's config (exit 1: no such group)."""
    with controller_client(controller, timeout) as client:
        doc = _group_doc(find_group(metadata_of(client), group))
    emit(doc, output, lambda d: _group_table(d, f"Subscription group {d['groupName']}"), legacy.consumer_config)


COMMANDS: dict[str, Callable[..., None]] = {
    "updateTopic": update_topic,
    "deleteTopic": delete_topic,
    "topicList": topic_list,
    "topicRoute": topic_route,
    "topicStatus": topic_status,
    "updateSubGroup": update_sub_group,
    "deleteSubGroup": delete_sub_group,
    "getConsumerConfig": get_consumer_config,
}
