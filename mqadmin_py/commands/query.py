"""Message query with Java's names: queryMsgByKey, queryMsgByUniqueKey, queryMsgById,
queryMsgByOffset, printMsg, printMsgByQueue and queryCq.

Each asks the master of every set serving the topic (from the controllers), or, with ``--brokerAddr``, one replica:
every replica dispatches the replicated log into its own consume queues and message index (docs/storage.md), so a
slave answers the same for what it has confirmed, and a message found before a failover is found on the new master
at the same commit-log offset. Only confirmed messages are found, as only they are consumed.
"""

from __future__ import annotations

import base64
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Literal, TypedDict

import typer

from agents.metadata import BORN_HOST, BORN_TIMESTAMP, KEYS, TAGS, UNIQ_KEY
from agents.pop.filter import TagFilter, parse_filter
from mqadmin_py import message_id
from mqadmin_py.commands.common import (
    INT32_MAX,
    INT64_MAX,
    address_option,
    agent_client,
    broker_name_option,
    check,
    checked,
    controller_client,
    local_time,
    not_empty,
)
from mqadmin_py.commands.controller import fetch_sync_state
from mqadmin_py.commands.messages import _masters
from mqadmin_py.commands.offsets import reset_time
from mqadmin_py.options import ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table
from mqbase.errors import OperationFailed, UsageError

BodyFormat = Literal["text", "hex", "base64"]
PAGE = 1000
"""Entries asked per QueryConsumeQueue call (the agent's MAX_QUERY)."""


class FoundMessageDoc(TypedDict):
    """One stored message: where it is (the replica that answered is its store host), when, and what it holds.
    ``body`` is null when the command does not print bodies."""

    brokerName: str
    storeHost: str
    offsetMsgId: str | None
    msgId: str | None
    topic: str
    queueId: int
    queueOffset: int
    commitLogOffset: int
    size: int
    storeTimestamp: int
    tags: str | None
    keys: str | None
    properties: dict[str, str]
    body: str | None
    bodyFormat: BodyFormat


class MessagesDoc(TypedDict):
    """What a query found (``query`` repeats what was asked, e.g. ``key=OrderId-7``)."""

    query: str
    messages: list[FoundMessageDoc]


class CqEntryDoc(TypedDict):
    queueOffset: int
    commitLogOffset: int
    size: int


class ConsumeQueueDoc(TypedDict):
    """queryCq: entries of one queue on one replica, with the queue's first readable and next offset."""

    topic: str
    queueId: int
    brokerName: str
    brokerAddress: str
    minOffset: int
    maxOffset: int
    entries: list[CqEntryDoc]


# --- pure parts ---------------------------------------------------------------------------------


def body_text(data: bytes, fmt: BodyFormat, charset: str = "utf-8") -> str:
    """A body as printed: text (undecodable bytes as escapes), hex or base64."""
    if fmt == "hex":
        return data.hex()
    if fmt == "base64":
        return base64.b64encode(data).decode("ascii")
    return data.decode(charset, "backslashreplace")


def message_doc(
    broker_name: str, store_host: str, m: Any, fmt: BodyFormat, *, with_body: bool = True, charset: str = "utf-8"
) -> FoundMessageDoc:
    """The document of a StoredMessage `m` that the replica at `store_host` answered."""
    props = dict(m.properties)
    return {
        "brokerName": broker_name,
        "storeHost": store_host,
        "offsetMsgId": message_id.offset_id(store_host, m.commit_log_offset),
        "msgId": props.get(UNIQ_KEY),
        "topic": m.topic,
        "queueId": m.queue_id,
        "queueOffset": m.queue_offset,
        "commitLogOffset": m.commit_log_offset,
        "size": m.size,
        "storeTimestamp": m.store_timestamp,
        "tags": props.get(TAGS),
        "keys": props.get(KEYS),
        "properties": props,
        "body": body_text(m.body, fmt, charset) if with_body else None,
        "bodyFormat": fmt,
    }


def java_time(ms: int | None) -> str:
    """Java's ``timeMillisToHumanString2`` (``yyyy-MM-dd HH:mm:ss,SSS``, local), as its message details print."""
    if ms is None:
        return ""
    return f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(ms / 1000))},{ms % 1000:03d}"


def time_bound(text: str | None, option: str, default: int) -> int:
    """A -b/-e value (epoch ms, ``now``, or ``yyyy-MM-dd#HH:mm:ss:SSS``) as epoch ms; UsageError naming `option`."""
    if text is None:
        return default
    try:
        value = reset_time(text)
    except ValueError as exc:
        raise UsageError(f"{option}: {exc}") from exc
    return int(time.time() * 1000) if value is None else value


def flag(text: str, option: str) -> bool:
    """Java's boolean option values (``-d true``)."""
    value = text.strip().lower()
    if value not in ("true", "false"):
        raise UsageError(f"{option} takes true or false, got {text!r}")
    return value == "true"


# --- output ---------------------------------------------------------------------------------------


def _list_table(doc: MessagesDoc) -> None:
    rows = [
        [m["brokerName"], m["queueId"], m["queueOffset"], m["commitLogOffset"], m["storeHost"],
         local_time(m["storeTimestamp"]), m["msgId"], m["keys"], m["tags"], m["body"]]
        for m in doc["messages"]
    ]  # fmt: skip
    columns = ["Broker set", "Queue", "QueueOffset", "CommitLogOffset", "StoreHost", "StoreTime", "MsgId", "Keys",
               "Tags", "Body"]  # fmt: skip
    emit_table(f"{doc['query']}: {len(doc['messages'])} message(s)", columns, rows)


def _detail_table(doc: MessagesDoc) -> None:
    if not doc["messages"]:
        print(f"{doc['query']}: no message found")
    for m in doc["messages"]:
        rows: list[list[Any]] = [
            ["Topic", m["topic"]],
            ["Broker set", m["brokerName"]],
            ["Queue", m["queueId"]],
            ["QueueOffset", m["queueOffset"]],
            ["CommitLogOffset", m["commitLogOffset"]],
            ["Size", m["size"]],
            ["StoreHost", m["storeHost"]],
            ["StoreTime", local_time(m["storeTimestamp"])],
            ["MsgId", m["msgId"]],
            ["OffsetMsgId", m["offsetMsgId"]],
            ["Tags", m["tags"]],
            ["Keys", m["keys"]],
        ]
        rows += [[f"property {k}", v] for k, v in sorted(m["properties"].items())]
        rows.append([f"Body ({m['bodyFormat']})", m["body"]])  # fmt: skip
        emit_table(doc["query"], ["Field", "Value"], rows)


def _detail_legacy(doc: MessagesDoc) -> str:
    """Java's ``QueryMsgByIdSubCommand.printMsg`` lines (the body inline, not in a file)."""
    out = ""
    for m in doc["messages"]:
        p = m["properties"]
        born = int(p[BORN_TIMESTAMP]) if p.get(BORN_TIMESTAMP, "").isdigit() else None
        fields = [("OffsetID:", m["offsetMsgId"]), ("Topic:", m["topic"]), ("Tags:", f"[{m['tags'] or ''}]"),
                  ("Keys:", f"[{m['keys'] or ''}]"), ("Queue ID:", m["queueId"]), ("Queue Offset:", m["queueOffset"]),
                  ("CommitLog Offset:", m["commitLogOffset"]), ("Reconsume Times:", 0),
                  ("Born Timestamp:", java_time(born)), ("Store Timestamp:", java_time(m["storeTimestamp"])),
                  ("Born Host:", p.get(BORN_HOST, "")), ("Store Host:", m["storeHost"]), ("System Flag:", 0),
                  ("Properties:", "{" + ", ".join(f"{k}={v}" for k, v in p.items()) + "}"),
                  ("Message Body:", m["body"])]  # fmt: skip
        out += "".join(f"{name:<20} {value}\n" for name, value in fields) + "\n"
    return out


def _key_legacy(doc: MessagesDoc) -> str:
    """Java's ``QueryMsgByKeySubCommand`` table: message id, queue id, queue offset."""
    out = f"{'#Message ID':<50} {'#QID':>4} {'#Offset':>40}\n"
    return out + "".join(f"{m['msgId'] or '':<50} {m['queueId']:>4} {m['queueOffset']:>40}\n" for m in doc["messages"])


def _print_legacy(doc: MessagesDoc) -> str:
    """Java's ``PrintMessageSubCommand`` lines: ``MSGID: <id> <message> BODY: <body>``."""
    return "".join(
        f"MSGID: {m['msgId']} MessageExt [topic={m['topic']}, queueId={m['queueId']}, storeSize={m['size']}, "
        f"queueOffset={m['queueOffset']}, storeTimestamp={m['storeTimestamp']}, storeHost={m['storeHost']}, "
        f"commitLogOffset={m['commitLogOffset']}, properties={m['properties']}] BODY: {m['body'] or 'NOT PRINT BODY'}\n"
        for m in doc["messages"]
    )


def _cq_table(doc: ConsumeQueueDoc) -> None:
    rows = [[e["queueOffset"], e["commitLogOffset"], e["size"]] for e in doc["entries"]]
    title = (f"{doc['topic']}/{doc['queueId']} on {doc['brokerName']} ({doc['brokerAddress']}): queue offsets "
             f"{doc['minOffset']}..{doc['maxOffset']}")  # fmt: skip
    emit_table(title, ["QueueOffset", "CommitLogOffset", "Size"], rows)


def _cq_legacy(doc: ConsumeQueueDoc) -> str:
    out = f"#minOffset\t{doc['minOffset']}\n#maxOffset\t{doc['maxOffset']}\n"
    return out + "".join(
        f"queueOffset={e['queueOffset']}, commitLogOffset={e['commitLogOffset']}, size={e['size']}\n"
        for e in doc["entries"]
    )


# --- where to ask ---------------------------------------------------------------------------------


def _targets(
    controller: str, timeout: float, broker_name: str | None, broker_addr: str | None, topic: str | None
) -> list[tuple[str, str]]:
    """(broker set, address) to ask: the one replica given, else the masters (of the named set, or of the sets
    serving `topic`)."""
    if broker_addr:
        return [(broker_name or "", broker_addr)]
    return _masters(controller, timeout, broker_name, topic)


def _ask(agents: Any, address: str, broker_name: str, method: str, request: Any) -> Any:
    from mqbase.proto import agent_pb2 as pb

    request.broker.CopyFrom(pb.BrokerRef(broker_name=broker_name))
    return check(agents.call(address, method, request))


def _set_of_host(controller: str, timeout: float, store_host: str) -> tuple[str, str]:
    """(broker set, master address) of the set one of whose replicas is `store_host` (an offset id's)."""
    with controller_client(controller, timeout) as client:
        sets = fetch_sync_state(client, None, None)
    for d in sets:
        if store_host in {r["brokerAddress"] for r in d["inSyncReplicas"] + d["notInSyncReplicas"]}:
            if not d["masterAddress"]:
                raise OperationFailed(-1, "NO_MASTER", f"broker set {d['brokerName']} has no master now; ask a "
                                      "replica with --brokerAddr")  # fmt: skip
            return d["brokerName"], d["masterAddress"]
    raise OperationFailed(-1, "STORE_HOST_UNKNOWN", f"no broker set the controllers know has a replica at "
                          f"{store_host} (the id's store host); ask a replica with --brokerAddr")  # fmt: skip


# --- commands -------------------------------------------------------------------------------------

TopicOpt = Annotated[
    str, typer.Option("-t", "--topic", help="Topic.", callback=checked(lambda v: not_empty(v, "topic")))
]
BrokerAddrOpt = Annotated[
    str | None,
    address_option("--brokerAddr", help="Ask this one replica (any role) instead of the masters."),
]
BrokerNameOpt = Annotated[
    str | None,
    broker_name_option("-bn", "--brokerName", help="Only this broker set (with --brokerAddr: the set it serves)."),
]
BodyFormatOpt = Annotated[
    str,
    typer.Option("--body-format", help="How bodies print: text, hex or base64."),
]
BeginOpt = Annotated[
    str | None,
    typer.Option("-b", "--beginTimestamp", help="Stored at or after: epoch ms, 'now', or yyyy-MM-dd#HH:mm:ss:SSS."),
]
EndOpt = Annotated[str | None, typer.Option("-e", "--endTimestamp", help="Stored at or before (as -b).")]


def _body_format(text: str) -> BodyFormat:
    formats: dict[str, BodyFormat] = {"text": "text", "hex": "hex", "base64": "base64"}
    if text in formats:
        return formats[text]
    raise UsageError(f"--body-format takes text, hex or base64, got {text!r}")


def _query_sets(
    targets: list[tuple[str, str]], timeout: float, method: str, request: Any, fmt: BodyFormat
) -> list[FoundMessageDoc]:
    found: list[FoundMessageDoc] = []
    with agent_client(timeout) as agents:
        for name, address in targets:
            r = _ask(agents, address, name, method, request)
            found += [message_doc(name, address, m, fmt) for m in r.messages]
    return found


def query_msg_by_key(
    controller: ControllerOpt,
    topic: TopicOpt,
    key: Annotated[str, typer.Option("-k", "--msgKey", help="A message key (one word of KEYS).")],
    begin: BeginOpt = None,
    end: EndOpt = None,
    max_num: Annotated[
        int, typer.Option("-m", "--maxNum", help="At most this many per broker set.", min=1, max=1000)
    ] = 64,
    broker_name: BrokerNameOpt = None,
    broker_addr: BrokerAddrOpt = None,
    body_format: BodyFormatOpt = "text",
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Find messages by key through the message index, newest first (Java's queryMsgByKey)."""
    from mqbase.proto import agent_pb2 as pb

    fmt = _body_format(body_format)
    request = pb.QueryMessageRequest(topic=topic, key=key, unique=False, max_num=max_num,
                                     begin_timestamp=time_bound(begin, "-b", 0),
                                     end_timestamp=time_bound(end, "-e", INT64_MAX))  # fmt: skip
    targets = _targets(controller, timeout, broker_name, broker_addr, topic)
    doc: MessagesDoc = {"query": f"{topic} key={key}", "messages": _query_sets(targets, timeout, "QueryMessage",
                                                                               request, fmt)}  # fmt: skip
    emit(doc, output, _list_table, _key_legacy)


def query_msg_by_unique_key(
    controller: ControllerOpt,
    msg_id: Annotated[str, typer.Option("-i", "--msgId", help="The message id a client gave it (UNIQ_KEY).")],
    topic: TopicOpt,
    show_all: Annotated[
        bool, typer.Option("--showAll", help="Every message found (a resent id), not the first.")
    ] = False,
    broker_name: BrokerNameOpt = None,
    broker_addr: BrokerAddrOpt = None,
    body_format: BodyFormatOpt = "text",
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Find a message by its unique key (the client's message id) through the message index."""
    from mqbase.proto import agent_pb2 as pb

    fmt = _body_format(body_format)
    request = pb.QueryMessageRequest(topic=topic, key=msg_id, unique=True, max_num=32, end_timestamp=INT64_MAX)
    found = _query_sets(_targets(controller, timeout, broker_name, broker_addr, topic), timeout, "QueryMessage",
                        request, fmt)  # fmt: skip
    doc: MessagesDoc = {"query": f"{topic} msgId={msg_id}", "messages": found if show_all else found[:1]}
    emit(doc, output, _detail_table, _detail_legacy)
    if not found:
        raise OperationFailed(-1, "NO_MESSAGE", f"no message of {topic} has the unique key {msg_id}")


def query_msg_by_id(
    controller: ControllerOpt,
    msg_ids: Annotated[str, typer.Option("-i", "--msgId", help="Offset message id(s) (offsetMsgId), ','-separated.")],
    broker_addr: BrokerAddrOpt = None,
    body_format: BodyFormatOpt = "text",
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Show messages by offset message id (store host and commit-log offset), from the master of the set that host
    belongs to (or one replica with --brokerAddr)."""
    from mqbase.proto import agent_pb2 as pb

    fmt = _body_format(body_format)
    try:
        wanted = [message_id.decode_offset_id(i) for i in msg_ids.split(",") if i.strip()]
    except ValueError as exc:
        raise UsageError(f"-i: {exc}") from exc
    if not wanted:
        raise UsageError("-i: give at least one offset message id")
    found: list[FoundMessageDoc] = []
    missing: list[str] = []
    with agent_client(timeout) as agents:
        for store_host, offset in wanted:
            name, address = ("", broker_addr) if broker_addr else _set_of_host(controller, timeout, store_host)
            r = _ask(agents, address, name, "ViewMessage", pb.ViewMessageRequest(commit_log_offset=offset))
            found += [message_doc(name, address, m, fmt) for m in r.messages]
            if not r.messages:
                missing.append(f"{message_id.offset_id(store_host, offset)}: {r.remark}")
    doc: MessagesDoc = {"query": f"msgId={msg_ids}", "messages": found}
    emit(doc, output, _detail_table, _detail_legacy)
    if missing:
        raise OperationFailed(-1, "NO_MESSAGE", "; ".join(missing))


def _entries(
    agents: Any, name: str, address: str, topic: str, queue_id: int, start: int, begin_ms: int, end_ms: int
) -> Iterator[Any]:
    """The entries (with messages) of one queue from `start`, or from `begin_ms` on, up to `end_ms`, a page at a
    time."""
    from mqbase.proto import agent_pb2 as pb

    while True:
        request = pb.QueryConsumeQueueRequest(
            topic=topic, queue_id=queue_id, index=start, count=PAGE, with_messages=True, begin_timestamp=begin_ms,
            end_timestamp=end_ms,
        )  # fmt: skip
        r = _ask(agents, address, name, "QueryConsumeQueue", request)
        yield from r.entries
        if len(r.entries) < PAGE:
            return
        start, begin_ms = r.entries[-1].queue_offset + 1, 0


def query_msg_by_offset(
    controller: ControllerOpt,
    topic: TopicOpt,
    broker_name: Annotated[str, broker_name_option("-b", "--brokerName", help="Broker set.")],
    queue_id: Annotated[int, typer.Option("-i", "--queueId", help="Queue id.", min=0, max=INT32_MAX)],
    offset: Annotated[int, typer.Option("-o", "--offset", help="Queue offset.", min=0, max=INT64_MAX)],
    broker_addr: BrokerAddrOpt = None,
    body_format: BodyFormatOpt = "text",
    output: Annotated[Output, typer.Option("--output", help="table, json or legacy.")] = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Show the message at a queue offset (Java's queryMsgByOffset; -o is the offset here, so the output format is
    --output only)."""
    from mqbase.proto import agent_pb2 as pb

    fmt = _body_format(body_format)
    [(name, address)] = _targets(controller, timeout, broker_name, broker_addr, None)[:1]
    request = pb.QueryConsumeQueueRequest(topic=topic, queue_id=queue_id, index=offset, count=1, with_messages=True)
    with agent_client(timeout) as agents:
        r = _ask(agents, address, name or broker_name, "QueryConsumeQueue", request)
    hits = [e for e in r.entries if e.queue_offset == offset]
    doc: MessagesDoc = {"query": f"{topic}/{queue_id} offset {offset} on {broker_name}",
                        "messages": [message_doc(broker_name, address, e.message, fmt) for e in hits]}  # fmt: skip
    emit(doc, output, _detail_table, _detail_legacy)
    if not hits:
        raise OperationFailed(-1, "NO_MESSAGE", f"{topic}/{queue_id} on {broker_name} has no confirmed message at "
                              f"offset {offset} (readable: {r.min_offset}..{r.max_offset - 1})")  # fmt: skip


def _tag_filter(expression: str) -> TagFilter:
    try:
        return parse_filter(expression)
    except ValueError as exc:
        raise UsageError(f"-s: {exc}") from exc


def _print_queues(
    agents: Any, name: str, address: str, topic: str, queue_ids: list[int] | None, window: tuple[int, int],
    keep: Callable[[Any], bool], fmt: BodyFormat, with_body: bool, charset: str,
) -> list[FoundMessageDoc]:  # fmt: skip
    """The messages of `queue_ids` (None: every queue of the topic the replica holds) stored within `window` that
    `keep` keeps."""
    from mqbase.proto import agent_pb2 as pb

    if queue_ids is None:
        held = _ask(agents, address, name, "QueryConsumeQueue", pb.QueryConsumeQueueRequest(topic=topic, count=1))
        queue_ids = list(held.queue_ids)
    out = []
    for q in queue_ids:
        for e in _entries(agents, name, address, topic, q, 0, *window):
            if keep(e.message):
                out.append(message_doc(name, address, e.message, fmt, with_body=with_body, charset=charset))
    return out


def print_msg(
    controller: ControllerOpt,
    topic: TopicOpt,
    charset: Annotated[str, typer.Option("-c", "--charsetName", help="Charset of text bodies.")] = "utf-8",
    sub_expression: Annotated[str, typer.Option("-s", "--subExpression", help="Tag expression ('*', 'A || B').")] = "*",
    begin: BeginOpt = None,
    end: EndOpt = None,
    print_body: Annotated[str, typer.Option("-d", "--printBody", help="true or false.")] = "true",
    broker_name: BrokerNameOpt = None,
    broker_addr: BrokerAddrOpt = None,
    body_format: BodyFormatOpt = "text",
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Print the confirmed messages of every queue of a topic stored within -b..-e (Java's printMsg)."""
    fmt, tags = _body_format(body_format), _tag_filter(sub_expression)
    _check_charset(charset)
    window = (time_bound(begin, "-b", 0), time_bound(end, "-e", INT64_MAX))
    with_body = flag(print_body, "-d")
    found: list[FoundMessageDoc] = []
    with agent_client(timeout) as agents:
        for name, address in _targets(controller, timeout, broker_name, broker_addr, topic):
            found += _print_queues(agents, name, address, topic, None, window,
                                   lambda m: tags.matches(m.properties.get(TAGS)), fmt, with_body, charset)  # fmt: skip
    doc: MessagesDoc = {"query": f"{topic} {sub_expression}", "messages": found}
    emit(doc, output, _list_table, _print_legacy)


def _check_charset(charset: str) -> None:
    try:
        b"".decode(charset)
    except LookupError as exc:
        raise UsageError(f"-c: unknown charset {charset!r}") from exc


def print_msg_by_queue(
    controller: ControllerOpt,
    topic: TopicOpt,
    broker_name: Annotated[str, broker_name_option("-bn", "--brokerName", help="Broker set (Java's -a).")],
    queue_id: Annotated[int, typer.Option("-i", "--queueId", help="Queue id.", min=0, max=INT32_MAX)],
    charset: Annotated[str, typer.Option("-c", "--charsetName", help="Charset of text bodies.")] = "utf-8",
    sub_expression: Annotated[str, typer.Option("-s", "--subExpression", help="Tag expression ('*', 'A || B').")] = "*",
    begin: BeginOpt = None,
    end: EndOpt = None,
    print_msg_flag: Annotated[str, typer.Option("-p", "--print", help="Print the messages: true or false.")] = "true",
    print_body: Annotated[str, typer.Option("-d", "--printBody", help="Print bodies: true or false.")] = "false",
    calculate: Annotated[
        str, typer.Option("-f", "--calculate", help="Count messages by tag: true or false.")
    ] = "false",
    broker_addr: BrokerAddrOpt = None,
    body_format: BodyFormatOpt = "text",
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Print a range of one queue, stored within -b..-e (Java's printMsgByQueue; the set is -bn here, as -a is the
    controllers)."""
    fmt, tags = _body_format(body_format), _tag_filter(sub_expression)
    _check_charset(charset)
    window = (time_bound(begin, "-b", 0), time_bound(end, "-e", INT64_MAX))
    shown, with_body, counting = flag(print_msg_flag, "-p"), flag(print_body, "-d"), flag(calculate, "-f")
    [(name, address)] = _targets(controller, timeout, broker_name, broker_addr, None)[:1]
    with agent_client(timeout) as agents:
        found = _print_queues(agents, name or broker_name, address, topic, [queue_id], window,
                              lambda m: tags.matches(m.properties.get(TAGS)), fmt, with_body, charset)  # fmt: skip
    if counting and output != Output.json:
        for tag, n in Counter(m["tags"] or "" for m in found).most_common():
            print(f"Tag: {tag:<30} Count: {n}")
    doc: MessagesDoc = {"query": f"{topic}/{queue_id} on {broker_name}", "messages": found if shown else []}
    if shown or output == Output.json:
        emit(doc, output, _list_table, _print_legacy)


def query_cq(
    controller: ControllerOpt,
    topic: TopicOpt,
    queue_id: Annotated[int, typer.Option("-q", "--queue", help="Queue id.", min=0, max=INT32_MAX)],
    index: Annotated[int, typer.Option("-i", "--index", help="First queue offset.", min=0, max=INT64_MAX)] = 0,
    count: Annotated[int, typer.Option("-c", "--count", help="How many entries.", min=1, max=PAGE)] = 10,
    broker_addr: Annotated[
        str | None, address_option("-b", "--brokerAddr", help="Ask this one replica (default: the set's master).")
    ] = None,
    broker_name: BrokerNameOpt = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Show consume-queue entries of one queue: where each message lies in the commit log (Java's queryCq)."""
    from mqbase.proto import agent_pb2 as pb

    if broker_addr is None and broker_name is None:
        raise UsageError("give -b BROKER_ADDRESS (one replica) or -bn BROKER_NAME (the set's master)")
    [(name, address)] = _targets(controller, timeout, broker_name, broker_addr, None)[:1]
    request = pb.QueryConsumeQueueRequest(topic=topic, queue_id=queue_id, index=index, count=count)
    with agent_client(timeout) as agents:
        r = _ask(agents, address, name, "QueryConsumeQueue", request)
    doc: ConsumeQueueDoc = {
        "topic": topic, "queueId": queue_id, "brokerName": name, "brokerAddress": address,
        "minOffset": r.min_offset, "maxOffset": r.max_offset,
        "entries": [{"queueOffset": e.queue_offset, "commitLogOffset": e.commit_log_offset, "size": e.size}
                    for e in r.entries],
    }  # fmt: skip
    emit(doc, output, _cq_table, _cq_legacy)


COMMANDS: dict[str, Callable[..., None]] = {
    "queryMsgByKey": query_msg_by_key,
    "queryMsgByUniqueKey": query_msg_by_unique_key,
    "queryMsgById": query_msg_by_id,
    "queryMsgByOffset": query_msg_by_offset,
    "printMsg": print_msg,
    "printMsgByQueue": print_msg_by_queue,
    "queryCq": query_cq,
}
