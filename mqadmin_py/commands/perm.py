"""Topic and broker-set permissions and placement: updateTopicPerm, wipeWritePerm, addWritePerm, topicClusterList
and updateOrderConf, with Java's names and options.

Everything here changes or reads the controllers' replicated metadata, as updateTopic does: agents learn each change
by push within moments. A topic has one config for every set serving it, so ``updateTopicPerm`` changes the topic
wherever it is served (Java: on the brokers named). ``wipeWritePerm`` is the drain step of Java's runbooks: the set
refuses every send (``NO_PERMISSION``) and the access points' routes show its queues read-only, so producers move
to the other sets while consumers finish what it holds; ``addWritePerm`` gives the permission back. Every scope
option is checked before anything changes: a wrong ``-c`` or ``-b`` is exit 1 with 2008 and changes nothing.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

import typer

from mqadmin_py.commands.common import broker_name_option, check, checked, cluster_name_option, controller_client
from mqadmin_py.commands.controller import fetch_sync_state
from mqadmin_py.commands.topic import WRITE_TIMEOUT, TopicOpt, WriteTimeoutOpt, find_topic, metadata_of, perm
from mqadmin_py.options import ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table
from mqbase import metadata
from mqbase.codes import ResponseCode
from mqbase.errors import OperationFailed, UsageError

NOT_EXIST = ResponseCode.CONTROLLER_BROKER_METADATA_NOT_EXIST


def _not_exist(remark: str) -> OperationFailed:
    return OperationFailed(NOT_EXIST, NOT_EXIST.name, remark)


def scope_problem(topic: Any, cluster_name: str | None, broker_name: str | None) -> str | None:
    """Why `-c`/`-b` do not name where `topic` (its controller config) is: its cluster, or a set serving it."""
    if cluster_name is not None and cluster_name != topic.cluster_name:
        return f"topic {topic.topic_name} belongs to cluster {topic.cluster_name}, not {cluster_name}"
    if broker_name is not None and broker_name not in topic.broker_names:
        serving = ", ".join(sorted(topic.broker_names)) or "none"
        return f"broker set {broker_name} does not serve topic {topic.topic_name} (served by: {serving})"
    return None


# --- updateTopicPerm ------------------------------------------------------------------------------


class TopicPermDoc(TypedDict):
    topicName: str
    clusterName: str
    brokerNames: list[str]
    oldPerm: int
    perm: int
    changed: bool
    metadataVersion: int


def update_topic_perm(
    controller: ControllerOpt,
    topic: TopicOpt,
    perm_: Annotated[int, typer.Option("-p", "--perm", help="2 (W), 4 (R) or 6 (RW).", callback=checked(perm))],
    cluster_name: Annotated[str | None, cluster_name_option("-c", "--clusterName", help="The topic's cluster.")] = None,
    broker_name: Annotated[
        str | None, broker_name_option("-b", "--brokerName", help="A broker set serving the topic.")
    ] = None,
    output: OutputOpt = Output.table,
    timeout: WriteTimeoutOpt = WRITE_TIMEOUT,
) -> None:
    """Change a topic's permission: 2 (W), 4 (R) or 6 (RW), on every broker set serving it.

    Exactly one of -c (the topic's cluster) and -b (a set serving it), checked against the topic: a wrong one is
    exit 1 (2008) and nothing changes. The same perm again is a no-op (exit 0, changed false).
    """
    from mqbase.proto import controller_pb2 as pb

    if (cluster_name is None) == (broker_name is None):
        raise UsageError("give exactly one of -c clusterName and -b brokerName")
    with controller_client(controller, timeout) as client:
        t = find_topic(metadata_of(client), topic)
        if problem := scope_problem(t, cluster_name, broker_name):
            raise _not_exist(problem)
        serving = broker_name or sorted(t.broker_names)[0]
        r = check(client.call("UpdateTopic", pb.UpdateTopicRequest(broker_name=serving, topic_name=topic,
                                                                   perm=perm_)))  # fmt: skip
    doc: TopicPermDoc = {"topicName": topic, "clusterName": t.cluster_name, "brokerNames": sorted(t.broker_names),
                         "oldPerm": t.perm, "perm": r.topic.perm, "changed": r.changed,
                         "metadataVersion": r.metadata_version}  # fmt: skip

    def table(d: TopicPermDoc) -> None:
        rows = [[d["topicName"], d["clusterName"], ", ".join(d["brokerNames"]), d["oldPerm"], d["perm"]]]
        verb = "changed" if d["changed"] else "unchanged"
        emit_table(f"Topic perm {verb} (metadata version {d['metadataVersion']})",
                   ["Topic", "Cluster", "Broker sets", "Old perm", "Perm"], rows)  # fmt: skip

    def legacy(d: TopicPermDoc) -> str:
        if not d["changed"]:
            return "new perm equals to the old one!\n"
        return "".join(f"update topic perm from {d['oldPerm']} to {d['perm']} in {name} success.\n"
                       for name in d["brokerNames"])  # fmt: skip

    emit(doc, output, table, legacy)


# --- wipeWritePerm / addWritePerm ---------------------------------------------------------------------


class WritePermDoc(TypedDict):
    """A set's write permission after the call; `topics`: how many topics it serves (Java's count)."""

    brokerName: str
    clusterName: str
    writable: bool
    changed: bool
    metadataVersion: int
    topics: int


BrokerSetOpt = Annotated[str, broker_name_option("-b", "--brokerName", help="The broker set.")]
ScopeClusterOpt = Annotated[
    str | None, cluster_name_option("-c", "--clusterName", help="The set's cluster (checked; ours, not Java's).")
]


def _set_write_perm(controller: str, broker_name: str, cluster_name: str | None, writable: bool, timeout: float,
                    output: Output) -> None:  # fmt: skip
    from mqbase.proto import controller_pb2 as pb

    request = pb.SetBrokerPermissionRequest(cluster_name=cluster_name or "", broker_name=broker_name,
                                            writable=writable)  # fmt: skip
    with controller_client(controller, timeout) as client:
        r = check(client.call("SetBrokerPermission", request))
        metadata_ = metadata_of(client)
        cluster = fetch_sync_state(client, [broker_name], None)[0]["clusterName"]
    topics = sum(1 for t in metadata_.topics if broker_name in t.broker_names)
    doc: WritePermDoc = {"brokerName": broker_name, "clusterName": cluster, "writable": writable,
                         "changed": r.changed, "metadataVersion": r.metadata_version, "topics": topics}  # fmt: skip
    verb = "add" if writable else "wipe"

    def table(d: WritePermDoc) -> None:
        state = "writable" if d["writable"] else "read-only (sends refused)"
        note = "" if d["changed"] else " (already so)"
        print(f"{d['brokerName']} ({d['clusterName']}): {state}{note}; {d['topics']} topic(s); metadata version "
              f"{d['metadataVersion']}")  # fmt: skip

    def legacy(d: WritePermDoc) -> str:
        return f"{verb} write perm of broker[{d['brokerName']}] in controller[{controller}] OK, {d['topics']}\n"

    emit(doc, output, table, legacy)


def wipe_write_perm(
    controller: ControllerOpt,
    broker_name: BrokerSetOpt,
    cluster_name: ScopeClusterOpt = None,
    output: OutputOpt = Output.table,
    timeout: WriteTimeoutOpt = WRITE_TIMEOUT,
) -> None:
    """Take a broker set's write permission away (the drain step before maintenance): the set refuses every send
    and routes show its queues read-only; consumers keep reading it. Undo with addWritePerm.

    Unknown set, or a set of another cluster than -c: exit 1 (2008), nothing changes. Already wiped: exit 0.
    """
    _set_write_perm(controller, broker_name, cluster_name, False, timeout, output)


def add_write_perm(
    controller: ControllerOpt,
    broker_name: BrokerSetOpt,
    cluster_name: ScopeClusterOpt = None,
    output: OutputOpt = Output.table,
    timeout: WriteTimeoutOpt = WRITE_TIMEOUT,
) -> None:
    """Give a broker set its write permission back after wipeWritePerm: it accepts sends again.

    Unknown set, or a set of another cluster than -c: exit 1 (2008), nothing changes. Already writable: exit 0.
    """
    _set_write_perm(controller, broker_name, cluster_name, True, timeout, output)


# --- topicClusterList -----------------------------------------------------------------------------


class TopicClusterDoc(TypedDict):
    topicName: str
    clusters: list[str]


def topic_cluster_list(
    controller: ControllerOpt,
    topic: TopicOpt,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 5.0,
) -> None:
    """The cluster a topic belongs to (Java lists every cluster of its brokers; a topic here has one). Exit 1:
    no such topic."""
    with controller_client(controller, timeout) as client:
        t = find_topic(metadata_of(client), topic)
    doc: TopicClusterDoc = {"topicName": t.topic_name, "clusters": [t.cluster_name]}
    emit(doc, output, lambda d: emit_table(f"Clusters of {d['topicName']}", ["Cluster"], [[c] for c in d["clusters"]]),
         lambda d: "".join(f"{c}\n" for c in d["clusters"]))  # fmt: skip


# --- updateOrderConf ------------------------------------------------------------------------------


def order_conf(text: str) -> dict[str, int]:
    """Java's ``-v brokerName1:num;brokerName2:num`` as set → queues; ValueError says what is wrong. Every set
    must name the same number: a topic here has one queue count for all its sets."""
    out: dict[str, int] = {}
    for item in (token.strip() for token in text.split(";")):
        if not item:
            continue
        name, sep, num = item.rpartition(":")
        if not sep or not name or not (num.isascii() and num.isdigit()):
            raise ValueError(f"order conf entry {item!r} is not brokerName:queues")
        if problem := metadata.queue_nums_problem(int(num), "queue numbers"):
            raise ValueError(problem)
        out[name] = int(num)
    if not out:
        raise ValueError(f"no brokerName:queues in {text!r}")
    if len(set(out.values())) > 1:
        raise ValueError(f"every broker set must have the same queues here (a topic has one queue count), got {text}")
    return out


def order_conf_text(topic: Any) -> str | None:
    """A FIFO topic's order conf as Java prints it (``broker-a:8;broker-b:8``); None for a topic that is not."""
    if topic.attributes.get(metadata.MESSAGE_TYPE) != "FIFO":
        return None
    return ";".join(f"{name}:{topic.write_queue_nums}" for name in sorted(topic.broker_names))


class OrderConfDoc(TypedDict):
    topicName: str
    method: Method
    orderConf: str | None
    changed: bool


def update_order_conf(
    controller: ControllerOpt,
    topic: TopicOpt,
    method: Annotated[str, typer.Option("-m", "--method", help="put, get or delete.", callback=checked(_method))],
    conf: Annotated[
        str | None, typer.Option("-v", "--orderConf", help="put: brokerName1:num;brokerName2:num (same num).")
    ] = None,
    output: OutputOpt = Output.table,
    timeout: WriteTimeoutOpt = WRITE_TIMEOUT,
) -> None:
    """Make a topic ordered on the broker sets named, or show or remove that (Java's order conf).

    An ordered topic here is a FIFO topic (message.type=FIFO): put sets it FIFO with the queues given on the sets
    named, each of which must already serve it or be added (updateTopic -b adds sets; none is removed: a set
    serving it but not named is exit 1). get prints the conf of a FIFO topic; delete makes it NORMAL again.
    """
    from mqbase.proto import controller_pb2 as pb

    if (method == "put") != (conf is not None):
        raise UsageError("-v orderConf is needed with -m put, and only then")
    wanted = order_conf(conf) if conf is not None else {}
    changes: list[Any] = []  # the UpdateTopic requests to make, in order
    with controller_client(controller, timeout) as client:
        t = find_topic(metadata_of(client), topic)
        if method == "put":
            known = {d["brokerName"]: d["clusterName"] for d in fetch_sync_state(client, None, None)}
            if unknown := [name for name in wanted if known.get(name) != t.cluster_name]:
                raise _not_exist(f"broker set(s) {', '.join(unknown)} not registered in cluster {t.cluster_name}")
            if left := sorted(set(t.broker_names) - set(wanted)):
                remark = f"topic {topic} is also served by {', '.join(left)}: name every set serving it"
                raise OperationFailed(ResponseCode.CONTROLLER_INVALID_REQUEST, "CONTROLLER_INVALID_REQUEST", remark)
            queues = next(iter(wanted.values()))
            fifo = [f"+{metadata.MESSAGE_TYPE}=FIFO"]
            changes = [
                pb.UpdateTopicRequest(
                    broker_name=name, topic_name=topic, read_queue_nums=queues, write_queue_nums=queues, attributes=fifo
                )
                for name in sorted(wanted)
            ]
        elif method == "delete" and order_conf_text(t) is not None:
            normal = [f"-{metadata.MESSAGE_TYPE}"]
            changes = [
                pb.UpdateTopicRequest(broker_name=sorted(t.broker_names)[0], topic_name=topic, attributes=normal)
            ]
        changed = False
        for request in changes:
            r = check(client.call("UpdateTopic", request))
            changed, t = changed or r.changed, r.topic
    doc: OrderConfDoc = {"topicName": topic, "method": _method(method), "orderConf": order_conf_text(t),
                         "changed": changed}  # fmt: skip

    def table(d: OrderConfDoc) -> None:
        note = "" if d["changed"] or d["method"] == "get" else " (unchanged)"
        print(f"{d['topicName']}: orderConf {d['orderConf'] or '(none: not FIFO)'}{note}")

    def legacy(d: OrderConfDoc) -> str:
        if d["method"] == "get":
            return f"get orderConf success. topic=[{d['topicName']}], orderConf=[{d['orderConf'] or ''}] \n"
        if d["method"] == "put":
            return f"update orderConf success. topic=[{d['topicName']}], orderConf=[{d['orderConf']}]\n"
        return f"delete orderConf success. topic=[{d['topicName']}]\n"

    emit(doc, output, table, legacy)


Method = Literal["put", "get", "delete"]


def _method(value: str) -> Method:
    if value == "put":
        return "put"
    if value == "get":
        return "get"
    if value == "delete":
        return "delete"
    raise ValueError(f"want put, get or delete, got {value!r}")
