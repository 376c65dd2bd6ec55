"""sendMessage and consumeMessage: exercise a cluster from a runbook (send to masters, read back confirmed data)."""

from __future__ import annotations

import base64
import sys
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypedDict

import typer

from agents.delay.timer import TIMER_DELIVER_MS
from agents.metadata import DEFAULT_QUEUE_NUMS, KEYS, MESSAGE_GROUP, TAGS, UNIQ_KEY
from agents.pop.errors import PopCode
from agents.pop.filter import parse_filter
from agents.pop.model import DEFAULT_LIMITS
from mqadmin_py import message_id
from mqadmin_py.commands.common import (
    INT32_MAX,
    INT64_MAX,
    address_option,
    agent_client,
    broker_name_option,
    check,
    checked,
    code_name,
    controller_client,
    key_values,
    not_empty,
    seconds_option,
)
from mqadmin_py.commands.controller import fetch_sync_state
from mqadmin_py.commands.topic import find_group, find_topic, group_name, metadata_of, set_masters
from mqadmin_py.options import ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table, null
from mqbase.codes import ResponseCode
from mqbase.errors import MqError, OperationFailed, OperationRefused, Refused, UsageError

RETRIABLE = frozenset({11, 14})
"""SLAVE_NOT_AVAILABLE and SERVICE_NOT_AVAILABLE: the broker stored nothing, so a retry cannot duplicate."""
RETRY_PAUSE_S = 0.02
PULL_BATCH = 32


def _masters(
    controller: str, timeout: float, broker_name: str | None, topic: str | None = None
) -> list[tuple[str, str]]:
    """(brokerName, masterAddress) of the named set, else of every set serving `topic` (``serving_sets``), else of
    every set, that has a master."""
    with controller_client(controller, timeout) as client:
        sets = fetch_sync_state(client, [broker_name] if broker_name else None, None)
        served = serving_sets(metadata_of(client), topic) if topic is not None and not broker_name else None
    targets = [(d["brokerName"], d["masterAddress"]) for d in sets if d["masterAddress"]]
    if served is not None:
        targets = [t for t in targets if t[0] in served]
    if not targets:
        which = f"broker set {broker_name} has" if broker_name else "no broker set has"
        which = f"no broker set serving {topic} has" if served is not None else which
        raise Refused(f"{which} no master now; see 'mqadmin getSyncStateSet', or 'mqadmin wait master -bn NAME'")
    return targets


def serving_sets(metadata_: Any, topic: str) -> frozenset[str] | None:
    """The broker sets a send of `topic` may go to: those serving it, as a producer follows the topic's route (any
    other set refuses it, NO_PERMISSION); None (every set) for a topic the controller does not have, whose refusal
    or creation (autoCreateTopicEnable) is the brokers' to answer."""
    found = [t for t in metadata_.topics if t.topic_name == topic]
    return frozenset(found[0].broker_names) if found else None


# --- sendMessage --------------------------------------------------------------------------------


class SendOutcomeDoc(TypedDict):
    """What became of one message; a broker that did not answer gives UNREACHABLE and nulls."""

    brokerName: str
    brokerAddress: str
    brokerId: int | None
    masterEpoch: int | None
    status: str
    code: int | None
    remark: str | None
    queueId: int | None
    queueOffset: int | None
    commitLogOffset: int | None
    attempts: int | None


class SentDoc(SendOutcomeDoc):
    index: int
    msgId: str


class SendDoc(TypedDict):
    topic: str
    sent: int
    failed: int
    results: list[SentDoc]


def call_master(agents: Any, address: str, method: str, request: Any, budget_s: float) -> tuple[Any, str, int]:
    """Call `method` at a broker set's master, retrying refusals that did nothing for up to `budget_s`.

    Only SLAVE_NOT_AVAILABLE and SERVICE_NOT_AVAILABLE (which includes MASTER_TRANSFERRING during a graceful
    transfer) are retried, following the broker's hint of where the master is (`master_address`). Returns
    (the last answer, the address that gave it, calls made).
    """
    deadline = time.monotonic() + budget_s
    attempts = 0
    while True:
        attempts += 1
        r = agents.call(address, method, request)
        if r.code not in RETRIABLE or time.monotonic() + RETRY_PAUSE_S > deadline:
            return r, address, attempts
        hinted = r.master_address and r.master_address != address
        if hinted:
            address = r.master_address
        if not hinted or attempts > 1:  # the first hint is followed at once; ping-pong while roles switch is not
            time.sleep(min(RETRY_PAUSE_S * attempts, 0.2))


def _send_one(agents: Any, broker_name: str, address: str, message: Any, budget_s: float) -> tuple[SendOutcomeDoc, str]:
    """Send to `address`, retrying what is safe to retry for up to `budget_s` (`call_master`). Returns (result,
    address). A FLUSH_SLAVE_TIMEOUT is reported, not retried, since the message may be stored already (Java's
    default)."""
    from mqbase.proto import agent_pb2 as pb

    request = pb.SendMessageRequest(broker=pb.BrokerRef(broker_name=broker_name), message=message)
    r, address, attempts = call_master(agents, address, "SendMessage", request, budget_s)
    placed = r.results[0] if r.results else None
    return {
        "brokerName": broker_name,
        "brokerAddress": address,
        "brokerId": r.broker_id,
        "masterEpoch": r.master_epoch,
        "status": r.status or code_name(r.code),
        "code": r.code,
        "remark": r.remark or None,
        "queueId": placed.queue_id if placed else None,
        "queueOffset": placed.queue_offset if placed else None,
        "commitLogOffset": placed.commit_log_offset if placed else None,
        "attempts": attempts,
    }, address


def _send_table(doc: SendDoc) -> None:
    rows = [
        [
            r["index"],
            r["brokerName"],
            r["brokerId"],
            r["status"],
            r["queueId"],
            r["queueOffset"],
            r["commitLogOffset"],
            r["masterEpoch"],
        ]
        for r in doc["results"]
    ]
    columns = ["#", "Broker set", "Broker id", "Status", "Queue", "QueueOffset", "CommitLogOffset", "MasterEpoch"]
    emit_table(f"{doc['topic']}: {doc['sent']} sent, {doc['failed']} failed", columns, rows)


def _send_legacy(doc: SendDoc) -> str:
    rows: list[tuple[object, object, object, object]] = [("#Broker Name", "#QID", "#Send Result", "#QueueOffset")]
    rows += [(r["brokerName"], r["queueId"], r["status"], r["queueOffset"]) for r in doc["results"]]
    return "".join(f"{a!s:<32}  {b!s:<4}  {c!s:<20}    {d}\n" for a, b, c, d in rows)


def send_message(
    controller: ControllerOpt,
    topic: Annotated[str, typer.Option("-t", "--topic", help="Topic.")],
    body: Annotated[str, typer.Option("-p", "--body", help="Message body; '{i}' is replaced by the message's index.")],
    keys: Annotated[str | None, typer.Option("-k", "--keys", "--key", help="Message keys (property KEYS).")] = None,
    tags: Annotated[str | None, typer.Option("-c", "--tags", help="Message tag (property TAGS).")] = None,
    message_group: Annotated[
        str | None,
        typer.Option(
            "--message-group",
            callback=checked(lambda value: not_empty(value, "message group")),
            help="Message group (property __SHARDINGKEY): without -q the broker hashes it to one queue, so the "
            "group's messages stay in order.",
        ),
    ] = None,
    user_properties: Annotated[
        list[str] | None,
        typer.Option("--property", help="A user property KEY=VALUE (repeatable).", show_default=False),
    ] = None,
    broker_name: Annotated[
        str | None,
        broker_name_option(
            "-b",
            "-bn",
            "--brokerName",
            "--broker",
            help="Broker set (default: round robin over the masters of the sets serving the topic).",
        ),
    ] = None,
    queue_id: Annotated[
        int,
        typer.Option(
            "-i", "-q", "--queueId", "--qid", help="Queue id (default: the broker picks).", min=-1, max=INT32_MAX
        ),
    ] = -1,
    count: Annotated[int, typer.Option("--count", help="How many messages to send.", min=1)] = 1,
    deliver_time: Annotated[
        int | None,
        typer.Option(
            "--deliverTime",
            help="A delayed message: delivered at this time (ms since the epoch; property TIMER_DELIVER_MS).",
            min=0,
            max=INT64_MAX,
        ),
    ] = None,
    delay: Annotated[
        float | None,
        seconds_option("--delay", help="A delayed message: delivered this many seconds from now.", minimum=0),
    ] = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Send messages to the master of a broker set (or round robin over the masters of the sets serving the topic).

    A message counts as sent only when stored and acknowledged as the broker is configured (PUT_OK); any other
    status is listed, and the command exits 1 after printing every result.
    """
    from mqbase.proto import agent_pb2 as pb

    properties = key_values(user_properties or [], "--property")  # a bad item is exit 2 before anything is asked
    properties.update(
        {key: value for key, value in ((KEYS, keys), (TAGS, tags), (MESSAGE_GROUP, message_group)) if value}
    )
    if deliver_time is not None and delay is not None:
        raise UsageError("give --deliverTime or --delay, not both")
    if delay is not None:
        at_ms = (time.time() + delay) * 1000
        if at_ms > INT64_MAX:
            raise UsageError(f"--delay {delay:g} s is past the last delivery time there is ({INT64_MAX} ms)")
        deliver_time = int(at_ms)
    if deliver_time is not None:
        properties[TIMER_DELIVER_MS] = str(deliver_time)
    targets = [list(t) for t in _masters(controller, timeout, broker_name, topic)]
    results: list[SentDoc] = []
    msg_ids = message_id.ids(time.time)
    with agent_client(timeout) as agents, _progress(count, "sending") as advance:
        for i in range(count):
            target = targets[i % len(targets)]
            msg_id = properties.get(UNIQ_KEY) or next(msg_ids)  # a retry resends the same id
            message = pb.Message(
                topic=topic,
                queue_id=queue_id,
                body=body.replace("{i}", str(i)).encode("utf-8", "surrogateescape"),
                properties={**properties, UNIQ_KEY: msg_id},
            )
            result: SendOutcomeDoc
            try:
                result, target[1] = _send_one(agents, target[0], target[1], message, timeout)
            except MqError as exc:
                result = {
                    "brokerName": target[0],
                    "brokerAddress": target[1],
                    "brokerId": None,
                    "masterEpoch": None,
                    "status": "UNREACHABLE",
                    "code": None,
                    "remark": str(exc),
                    "queueId": None,
                    "queueOffset": None,
                    "commitLogOffset": None,
                    "attempts": None,
                }
            results.append({"index": i, "msgId": msg_id, **result})
            advance()
    failed = [r for r in results if r["status"] != "PUT_OK"]
    doc: SendDoc = {"topic": topic, "sent": len(results) - len(failed), "failed": len(failed), "results": results}
    emit(doc, output, _send_table, _send_legacy)
    if failed:
        first = failed[0]
        raise OperationFailed(
            first["code"] if first["code"] is not None else -1,
            first["status"],
            f"{len(failed)} of {count} message(s) not acknowledged with PUT_OK; first: {first['remark']}",
        )


class _progress:
    """A progress bar on stderr for long sends (only on a terminal); the context value advances it."""

    def __init__(self, total: int, what: str) -> None:
        from rich.progress import Progress

        self._total, self._what = total, what
        self._bar: Progress | None = None

    def __enter__(self) -> Callable[[], None]:
        if self._total < 50 or not sys.stderr.isatty():
            return lambda: None
        from rich.console import Console
        from rich.progress import Progress

        bar = self._bar = Progress(console=Console(stderr=True), transient=True)
        bar.start()
        task = bar.add_task(self._what, total=self._total)
        return lambda: bar.advance(task)

    def __exit__(self, *_exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()


# --- consumeMessage -----------------------------------------------------------------------------


BodyEncoding = Literal["utf-8", "base64"]


class MessageDoc(TypedDict):
    """One message read. ``properties`` holds whatever the producer set (strings)."""

    queueId: int
    queueOffset: int
    body: str
    bodyEncoding: BodyEncoding
    keys: str | None
    properties: dict[str, str]
    storeTimestamp: int


class QueueDoc(TypedDict):
    """One queue read: where the read began and where the queue stands (min/max null when nothing was asked)."""

    queueId: int
    requestedOffset: int
    offsetMoved: bool
    firstReadOffset: int
    nextOffset: int
    minOffset: int | None
    maxOffset: int | None


class ConsumeDoc(TypedDict):
    topic: str
    brokerName: str
    brokerAddress: str
    messages: list[MessageDoc]
    queues: list[QueueDoc]


def _body(data: bytes) -> tuple[str, BodyEncoding]:
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return base64.b64encode(data).decode("ascii"), "base64"


def _pull_queue(
    agents: Any,
    address: str,
    broker_name: str,
    topic: str,
    queue_id: int,
    offset: int,
    wanted: int,
    messages: list[MessageDoc],
) -> QueueDoc:
    """Pull up to `wanted` confirmed messages of one queue from `offset` into `messages`; returns the queue doc."""
    from mqbase.proto import agent_pb2 as pb

    moved = False
    first = next_offset = offset
    r = None
    while wanted > 0:
        request = pb.PullMessageRequest(
            broker=pb.BrokerRef(broker_name=broker_name),
            topic=topic,
            queue_id=queue_id,
            queue_offset=next_offset,
            max_messages=min(wanted, PULL_BATCH),
        )
        r = check(agents.call(address, "PullMessage", request), allow=(21,))
        if r.code == 21:  # PULL_OFFSET_MOVED: below the first readable offset, resume there
            moved = True
            first = next_offset = r.next_offset
            continue
        for m in r.messages:
            text, encoding = _body(m.message.body)
            messages.append(
                {
                    "queueId": queue_id,
                    "queueOffset": m.queue_offset,
                    "body": text,
                    "bodyEncoding": encoding,
                    "keys": m.message.properties.get(KEYS),
                    "properties": dict(m.message.properties),
                    "storeTimestamp": m.store_timestamp,
                }
            )
        wanted -= len(r.messages)
        if not r.messages or r.next_offset <= next_offset:
            break
        next_offset = r.next_offset
    return {
        "queueId": queue_id,
        "requestedOffset": offset,
        "offsetMoved": moved,
        "firstReadOffset": first,
        "nextOffset": next_offset if r is None else r.next_offset,
        "minOffset": r.min_offset if r else None,
        "maxOffset": r.max_offset if r else None,
    }


def _consume_table(doc: ConsumeDoc) -> None:
    rows = [
        [
            m["queueId"],
            m["queueOffset"],
            m["keys"],
            m["body"] if m["bodyEncoding"] == "utf-8" else "(binary)",
            m["storeTimestamp"],
        ]
        for m in doc["messages"]
    ]
    emit_table(
        f"{doc['topic']} on {doc['brokerName']} ({doc['brokerAddress']}): {len(doc['messages'])} message(s)",
        ["Queue", "QueueOffset", "Keys", "Body", "StoreTimestamp"],
        rows,
    )


def _consume_legacy(doc: ConsumeDoc) -> str:
    return "".join(
        f"MSG: queueId={m['queueId']}, queueOffset={m['queueOffset']}, keys={null(m['keys'])}, body={m['body']}\n"
        for m in doc["messages"]
    )


def _read_queue_nums(controller: str, timeout: float, topic: str) -> int:
    """The topic's readQueueNums from the controller (DEFAULT_QUEUE_NUMS for a topic it does not know; also, with a
    warning, when no controller answers, e.g. reading one replica with --brokerAddr during an outage)."""
    from mqbase.proto import controller_pb2 as pb

    try:
        with controller_client(controller, timeout) as client:
            metadata = check(client.call("GetMetadata", pb.GetMetadataRequest()))
    except MqError as exc:
        print(f"mqadmin: cannot read {topic}'s queue count ({exc}); reading queues 0-{DEFAULT_QUEUE_NUMS - 1}, "
              "give -q to read another", file=sys.stderr)  # fmt: skip
        return DEFAULT_QUEUE_NUMS
    known = [t.read_queue_nums for t in metadata.topics if t.topic_name == topic and t.read_queue_nums > 0]
    return known[0] if known else DEFAULT_QUEUE_NUMS


# --- consumeMessage -g: receive and ack as a consumer group (POP) ------------------------------------


DEFAULT_INVISIBLE_MS = 30_000
"""How long a received message stays invisible to the group unless acked: long enough to print and ack a batch."""
DEFAULT_WAIT_MS = 1_000
"""Long polling per receive: a message sent a moment ago is still received, and an empty set costs one second."""
MAX_WAIT_MS = 20_000
"""The broker's bound on long polling (ReceiveMessageRequest.long_polling_millis)."""


def _filter(value: str | None) -> str | None:
    """A tag expression as the broker parses it (`*`, ``TagA || TagB``); PopError (a ValueError) names the fault."""
    if value is not None:
        parse_filter(value)
    return value


def _optional_group(value: str | None) -> str | None:
    return None if value is None else group_name(value)


class PopMessageDoc(TypedDict):
    """One message received for the group: where it is, its delivery, and what became of its ack."""

    brokerName: str
    queueId: int
    queueOffset: int
    msgId: str | None
    deliveryAttempt: int
    tag: str | None
    keys: str | None
    messageGroup: str | None
    storeTimestamp: int
    invisibleUntil: int
    body: str
    bodyEncoding: BodyEncoding
    bodyDigest: str
    properties: dict[str, str]
    receiptHandle: str
    acked: bool
    ackError: str | None


class PopSetDoc(TypedDict):
    """One broker set asked: its master (after a redirect: the new one), what it gave, and why it stopped early."""

    brokerName: str
    brokerAddress: str | None
    received: int
    acked: int
    error: str | None


class GroupConsumeDoc(TypedDict):
    topic: str
    group: str
    filterExpression: str
    invisibleMillis: int
    ack: bool
    received: int
    acked: int
    ackFailed: int
    messages: list[PopMessageDoc]
    brokerSets: list[PopSetDoc]


def pop_error_text(code: int, pop_code: int, remark: str) -> str:
    """One refusal as ``NAME (code): remark``, named by its POP code when it carries one (20000 is OK)."""
    if pop_code and pop_code != PopCode.OK:
        try:
            return f"{PopCode(pop_code).name} ({pop_code}): {remark}"
        except ValueError:
            return f"POP code {pop_code}: {remark}"
    return f"{code_name(code)} ({code}): {remark}"


AckResult = tuple[str, int, int, str]
"""One handle's result in an AckMessage answer: (receipt handle, code, pop_code, remark)."""


def ack_outcomes(handles: list[str], code: int, remark: str, results: list[AckResult]) -> list[str | None]:
    """Each handle's ack outcome (None: acked, else why not) from an AckMessage answer: its batch `code`/`remark`
    and `results` as (handle, code, pop_code, remark). A refused batch fails every handle; a handle the answer
    does not mention is not acked."""
    if code != 0:
        return [pop_error_text(code, 0, remark)] * len(handles)
    by_handle = {handle: (c, p, r) for handle, c, p, r in results}
    outcomes: list[str | None] = []
    for handle in handles:
        found = by_handle.get(handle)
        if found is None:
            outcomes.append("the broker gave no result for this receipt handle")
        elif found[0] == 0 and found[1] in (0, PopCode.OK):
            outcomes.append(None)
        else:
            outcomes.append(pop_error_text(*found))
    return outcomes


def _pop_message_doc(broker_name: str, m: Any) -> PopMessageDoc:
    text, encoding = _body(m.message.body)
    properties = dict(m.message.properties)
    return {
        "brokerName": broker_name,
        "queueId": m.message.queue_id,
        "queueOffset": m.queue_offset,
        "msgId": properties.get(UNIQ_KEY),
        "deliveryAttempt": m.delivery_attempt,
        "tag": properties.get(TAGS),
        "keys": properties.get(KEYS),
        "messageGroup": properties.get(MESSAGE_GROUP),
        "storeTimestamp": m.store_timestamp,
        "invisibleUntil": m.invisible_until_millis,
        "body": text,
        "bodyEncoding": encoding,
        "bodyDigest": m.body_digest,
        "properties": properties,
        "receiptHandle": m.receipt_handle,
        "acked": False,
        "ackError": None,
    }


class ReceiveAsk(TypedDict):
    """What every receive of one run asks for (the request's fields but the set, the batch and the attempt id)."""

    group: str
    topic: str
    queue_id: int | None
    filter_expression: str
    invisible_millis: int
    long_polling_millis: int


def _receive(agents: Any, target: PopSetDoc, ask: ReceiveAsk, batch: int, budget_s: float) -> list[PopMessageDoc]:
    """One receive at the set's master (following a redirect): its messages, [] when nothing is visible."""
    import uuid

    from mqbase.proto import agent_pb2 as pb

    request = pb.ReceiveMessageRequest(broker=pb.BrokerRef(broker_name=target["brokerName"]), batch_size=batch,
                                       attempt_id=uuid.uuid4().hex, **ask)  # fmt: skip
    r, target["brokerAddress"], _ = call_master(agents, target["brokerAddress"] or "", "ReceiveMessage", request,
                                                budget_s)  # fmt: skip
    if r.code == ResponseCode.PULL_NOT_FOUND:
        return []
    if r.code != 0:
        error = OperationRefused if r.code == ResponseCode.NO_PERMISSION else OperationFailed
        raise error(r.code, code_name(r.code), pop_error_text(r.code, r.pop_code, r.remark))
    return [_pop_message_doc(target["brokerName"], m) for m in r.messages]


def _ack(agents: Any, target: PopSetDoc, group: str, topic: str, docs: list[PopMessageDoc], budget_s: float) -> None:
    """Ack `docs` in one AckMessage; each doc's `acked`/`ackError` tell its outcome, the set's `acked` counts them.
    Raises the MqError (every doc then carries it) when the master did not answer."""
    from mqbase.proto import agent_pb2 as pb

    handles = [d["receiptHandle"] for d in docs]
    request = pb.AckMessageRequest(broker=pb.BrokerRef(broker_name=target["brokerName"]), group=group, topic=topic,
                                   receipt_handles=handles)  # fmt: skip
    try:
        r, target["brokerAddress"], _ = call_master(agents, target["brokerAddress"] or "", "AckMessage", request,
                                                    budget_s)  # fmt: skip
    except MqError as exc:
        for d in docs:
            d["ackError"] = str(exc)
        raise
    results = [(a.receipt_handle, a.code, a.pop_code, a.remark) for a in r.results]
    for d, outcome in zip(docs, ack_outcomes(handles, r.code, r.remark, results), strict=True):
        d["acked"], d["ackError"] = outcome is None, outcome
    target["acked"] += sum(d["acked"] for d in docs)


def _consume_group(
    controller: str, timeout: float, topic: str, group: str, broker_name: str | None, ask: ReceiveAsk, count: int,
    ack: bool,
) -> tuple[GroupConsumeDoc, list[MqError]]:  # fmt: skip
    """Receive (and ack) up to `count` messages for `group`, round robin over the sets serving `topic`, until
    `count` or until one round over every set gave nothing. Returns the document and the errors met, in order."""
    with controller_client(controller, timeout) as client:
        metadata_ = metadata_of(client)
        t = find_topic(metadata_, topic)
        find_group(metadata_, group)
        if broker_name is not None and broker_name not in t.broker_names:
            code = ResponseCode.TOPIC_NOT_EXIST
            remark = f"broker set {broker_name} does not serve topic {topic}; see 'mqadmin topicRoute -t {topic}'"
            raise OperationFailed(code, code.name, remark)
        masters = set_masters(client, [broker_name] if broker_name else t.broker_names)
    sets: list[PopSetDoc] = [{"brokerName": name, "brokerAddress": address, "received": 0, "acked": 0,
                              "error": None} for name, address in masters.items()]  # fmt: skip
    with agent_client(timeout + ask["long_polling_millis"] / 1000) as agents:
        messages, errors = consume_sets(agents, sets, ask, count, ack, timeout)
    acked = sum(s["acked"] for s in sets)
    doc: GroupConsumeDoc = {
        "topic": topic, "group": group, "filterExpression": ask["filter_expression"],
        "invisibleMillis": ask["invisible_millis"], "ack": ack, "received": len(messages), "acked": acked,
        "ackFailed": len(messages) - acked if ack else 0, "messages": messages, "brokerSets": sets,
    }  # fmt: skip
    return doc, errors


def consume_sets(
    agents: Any, sets: list[PopSetDoc], ask: ReceiveAsk, count: int, ack: bool, timeout: float
) -> tuple[list[PopMessageDoc], list[MqError]]:
    """Receive (and ack, each batch in one AckMessage) round robin over `sets` until `count` messages or until a
    round over every set gave nothing. A set that fails is dropped and the others go on; a set without a master
    (brokerAddress None) is not asked. Returns the messages and the errors met, in order; `sets` counts."""
    errors: list[MqError] = []
    for s in sets:
        if s["brokerAddress"] is None:
            errors.append(Refused(f"broker set {s['brokerName']} has no master now; see 'mqadmin getSyncStateSet'"))
            s["error"] = str(errors[-1])
    messages: list[PopMessageDoc] = []
    active = [s for s in sets if s["error"] is None]
    while active and len(messages) < count:
        received_any = False
        for s in list(active):
            wanted = count - len(messages)
            if wanted <= 0:
                break
            try:
                batch = _receive(agents, s, ask, min(wanted, PULL_BATCH), timeout)
                s["received"] += len(batch)
                messages += batch
                received_any = received_any or bool(batch)
                if ack and batch:
                    _ack(agents, s, ask["group"], ask["topic"], batch, timeout)
            except MqError as exc:
                s["error"] = str(exc)
                errors.append(exc)
                active.remove(s)
                continue
            failed = [d for d in batch if ack and not d["acked"]]
            if failed:
                why = f"{len(failed)} of {len(batch)} ack(s) on {s['brokerName']} failed; first: "
                errors.append(MqError(why + str(failed[0]["ackError"])))
        if not received_any:
            break
    return messages, errors


def _group_table(doc: GroupConsumeDoc) -> None:
    rows: list[list[Any]] = [
        [m["brokerName"], m["queueId"], m["queueOffset"], m["msgId"], m["deliveryAttempt"], m["tag"], m["keys"],
         m["body"] if m["bodyEncoding"] == "utf-8" else "(binary)",
         ("yes" if m["acked"] else m["ackError"] or "no") if doc["ack"] else "no (--no-ack)"]
        for m in doc["messages"]
    ]  # fmt: skip
    rows += [[s["brokerName"], None, None, None, None, None, None, None, s["error"]] for s in doc["brokerSets"]
             if s["error"]]  # fmt: skip
    title = f"{doc['topic']} for group {doc['group']}: {doc['received']} received, {doc['acked']} acked"
    emit_table(title, ["Broker set", "Queue", "QueueOffset", "MsgId", "Attempt", "Tag", "Keys", "Body", "Acked"], rows)


def _group_legacy(doc: GroupConsumeDoc) -> str:
    return "".join(
        f"MSG: brokerName={m['brokerName']}, queueId={m['queueId']}, queueOffset={m['queueOffset']}, "
        f"msgId={null(m['msgId'])}, deliveryAttempt={m['deliveryAttempt']}, tag={null(m['tag'])}, "
        f"keys={null(m['keys'])}, acked={str(m['acked']).lower()}, body={m['body']}\n"
        for m in doc["messages"]
    )


def consume_message(
    controller: ControllerOpt,
    topic: Annotated[str, typer.Option("-t", "--topic", help="Topic.")],
    broker_name: Annotated[
        str | None,
        broker_name_option(
            "-b", "-bn", "--brokerName", help="Broker set to read from (with -g: default every set serving the topic)."
        ),
    ] = None,
    queue_id: Annotated[
        int | None,
        typer.Option("-i", "-q", "--queueId", help="One queue (default: every queue).", min=0, max=INT32_MAX),
    ] = None,
    offset: Annotated[
        int | None,
        typer.Option("--offset", help="Queue offset to start at (Java's -o) [0]; not with -g.", min=0, max=INT64_MAX),
    ] = None,
    max_messages: Annotated[
        int, typer.Option("-c", "--MessageNumber", "--max", help="At most this many messages in all.", min=1)
    ] = 32,
    broker_addr: Annotated[
        str | None, address_option("--brokerAddr", help="Read from this replica instead of the master; not with -g.")
    ] = None,
    group: Annotated[
        str | None,
        typer.Option(
            "-g",
            "--consumerGroup",
            help="Receive and ack as this subscription group (POP) instead of reading raw.",
            callback=checked(_optional_group),
        ),
    ] = None,
    filter_expression: Annotated[
        str | None,
        typer.Option("--filter", help="With -g: tag expression, '*' or 'TagA || TagB' [*].", callback=checked(_filter)),
    ] = None,
    invisible_ms: Annotated[
        int | None,
        typer.Option(
            "--invisible-time",
            help=f"With -g: ms a received message stays invisible to the group unless acked [{DEFAULT_INVISIBLE_MS}].",
            min=DEFAULT_LIMITS.min_receive_invisible_ms,
            max=DEFAULT_LIMITS.max_invisible_ms,
        ),
    ] = None,
    wait_ms: Annotated[
        int | None,
        typer.Option(
            "--wait",
            help=f"With -g: ms each receive waits for a message when none is visible [{DEFAULT_WAIT_MS}].",
            min=0,
            max=MAX_WAIT_MS,
        ),
    ] = None,
    no_ack: Annotated[
        bool, typer.Option("--no-ack", help="With -g: receive only; the messages come back after --invisible-time.")
    ] = False,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Read confirmed messages of a topic from a broker set's master (or one replica with --brokerAddr), or with -g
    receive and ack them as a consumer group.

    Only messages up to the confirmOffset are visible, so nothing read here can be truncated by a failover. With -g
    each message is delivered to the group once (again only when not acked within --invisible-time).
    """
    if group is None:
        given = {"--filter": filter_expression is not None, "--invisible-time": invisible_ms is not None,
                 "--wait": wait_ms is not None, "--no-ack": no_ack}  # fmt: skip
        pop_only = [name for name, present in given.items() if present]
        if pop_only:
            raise UsageError(f"{', '.join(pop_only)}: only with -g GROUP (receive as a consumer group)")
        if broker_name is None:
            raise UsageError("give -b BROKER_NAME (the set to read from), or -g GROUP to receive as a consumer group")
        _consume_raw(controller, topic, broker_name, queue_id, offset or 0, max_messages, broker_addr, output, timeout)
        return
    raw = {"--offset": offset, "--brokerAddr": broker_addr}
    raw_only = [name for name, value in raw.items() if value is not None]
    if raw_only:
        raise UsageError(f"{', '.join(raw_only)}: only without -g (with -g the group's offsets say where to read)")
    ask: ReceiveAsk = {
        "group": group,
        "topic": topic,
        "queue_id": queue_id,
        "filter_expression": filter_expression or "*",
        "invisible_millis": invisible_ms or DEFAULT_INVISIBLE_MS,
        "long_polling_millis": DEFAULT_WAIT_MS if wait_ms is None else wait_ms,
    }
    doc, errors = _consume_group(controller, timeout, topic, group, broker_name, ask, max_messages, not no_ack)
    emit(doc, output, _group_table, _group_legacy)
    if errors:
        raise errors[0]


def _consume_raw(
    controller: str, topic: str, broker_name: str, queue_id: int | None, offset: int, max_messages: int,
    broker_addr: str | None, output: Output, timeout: float,
) -> None:  # fmt: skip
    """consumeMessage without -g: pull confirmed messages from `offset`, as the Java tool does."""
    if ":" in broker_name:
        raise UsageError(
            f"-b/--brokerName takes a broker set name, as in Java's mqadmin, got {broker_name!r}; "
            "read from one replica with --brokerAddr"
        )
    address = broker_addr or _masters(controller, timeout, broker_name)[0][1]
    queue_ids = [queue_id] if queue_id is not None else list(range(_read_queue_nums(controller, timeout, topic)))
    messages: list[MessageDoc] = []
    queues = []
    with agent_client(timeout) as agents:
        for q in queue_ids:
            queues.append(
                _pull_queue(agents, address, broker_name, topic, q, offset, max_messages - len(messages), messages)
            )
    doc: ConsumeDoc = {"topic": topic, "brokerName": broker_name, "brokerAddress": address, "messages": messages,
                       "queues": queues}  # fmt: skip
    emit(doc, output, _consume_table, _consume_legacy)
