"""sendMessage and consumeMessage: exercise a cluster from a runbook (send to masters, read back confirmed data)."""

from __future__ import annotations

import base64
import sys
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypedDict

import typer

from agents.metadata import DEFAULT_QUEUE_NUMS, MESSAGE_GROUP
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
)
from mqadmin_py.commands.controller import fetch_sync_state
from mqadmin_py.options import ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table, null
from mqbase.errors import MqError, OperationFailed, Refused, UsageError

RETRIABLE = frozenset({11, 14})
"""SLAVE_NOT_AVAILABLE and SERVICE_NOT_AVAILABLE: the broker stored nothing, so a retry cannot duplicate."""
RETRY_PAUSE_S = 0.02
PULL_BATCH = 32


def _masters(controller: str, timeout: float, broker_name: str | None) -> list[tuple[str, str]]:
    """(brokerName, masterAddress) of the named set, or of every set that has a master."""
    with controller_client(controller, timeout) as client:
        sets = fetch_sync_state(client, [broker_name] if broker_name else None, None)
    targets = [(d["brokerName"], d["masterAddress"]) for d in sets if d["masterAddress"]]
    if not targets:
        which = f"broker set {broker_name} has" if broker_name else "no broker set has"
        raise Refused(f"{which} no master now; see 'mqadmin getSyncStateSet', or 'mqadmin wait master -bn NAME'")
    return targets


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


def _send_one(agents: Any, broker_name: str, address: str, message: Any, budget_s: float) -> tuple[SendOutcomeDoc, str]:
    """Send to `address`, retrying what is safe to retry for up to `budget_s`. Returns (result, address).

    Only refusals that stored nothing are retried (SLAVE_NOT_AVAILABLE, SERVICE_NOT_AVAILABLE, which includes
    MASTER_TRANSFERRING during a graceful transfer), following the broker's hint of where the master is; a
    FLUSH_SLAVE_TIMEOUT is reported, not retried, since the message may be stored already (Java's default).
    """
    from mqbase.proto import agent_pb2 as pb

    request = pb.SendMessageRequest(broker=pb.BrokerRef(broker_name=broker_name), message=message)
    deadline = time.monotonic() + budget_s
    attempts = 0
    while True:
        attempts += 1
        r = agents.call(address, "SendMessage", request)
        if r.code not in RETRIABLE or time.monotonic() + RETRY_PAUSE_S > deadline:
            break
        hinted = r.master_address and r.master_address != address
        if hinted:
            address = r.master_address
        if not hinted or attempts > 1:  # the first hint is followed at once; ping-pong while roles switch is not
            time.sleep(min(RETRY_PAUSE_S * attempts, 0.2))
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
            "-b", "-bn", "--brokerName", "--broker", help="Broker set (default: round robin over every master)."
        ),
    ] = None,
    queue_id: Annotated[
        int,
        typer.Option(
            "-i", "-q", "--queueId", "--qid", help="Queue id (default: the broker picks).", min=-1, max=INT32_MAX
        ),
    ] = -1,
    count: Annotated[int, typer.Option("--count", help="How many messages to send.", min=1)] = 1,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Send messages to the master of a broker set (or round robin over every set's master).

    A message counts as sent only when stored and acknowledged as the broker is configured (PUT_OK); any other
    status is listed, and the command exits 1 after printing every result.
    """
    from mqbase.proto import agent_pb2 as pb

    properties = key_values(user_properties or [], "--property")  # a bad item is exit 2 before anything is asked
    properties.update(
        {key: value for key, value in (("KEYS", keys), ("TAGS", tags), (MESSAGE_GROUP, message_group)) if value}
    )
    targets = [list(t) for t in _masters(controller, timeout, broker_name)]
    results: list[SentDoc] = []
    msg_ids = message_id.ids(time.time)
    with agent_client(timeout) as agents, _progress(count, "sending") as advance:
        for i in range(count):
            target = targets[i % len(targets)]
            msg_id = properties.get(message_id.UNIQ_KEY) or next(msg_ids)  # a retry resends the same id
            message = pb.Message(
                topic=topic,
                queue_id=queue_id,
                body=body.replace("{i}", str(i)).encode("utf-8", "surrogateescape"),
                properties={**properties, message_id.UNIQ_KEY: msg_id},
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
                    "keys": m.message.properties.get("KEYS"),
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


def consume_message(
    controller: ControllerOpt,
    topic: Annotated[str, typer.Option("-t", "--topic", help="Topic.")],
    broker_name: Annotated[str, broker_name_option("-b", "-bn", "--brokerName", help="Broker set to read from.")],
    queue_id: Annotated[
        int | None,
        typer.Option("-i", "-q", "--queueId", help="One queue (default: every queue).", min=0, max=INT32_MAX),
    ] = None,
    offset: Annotated[
        int, typer.Option("--offset", help="Queue offset to start at (Java's -o).", min=0, max=INT64_MAX)
    ] = 0,
    max_messages: Annotated[
        int, typer.Option("-c", "--MessageNumber", "--max", help="At most this many messages in all.", min=1)
    ] = 32,
    broker_addr: Annotated[
        str | None, address_option("--brokerAddr", help="Read from this replica instead of the master.")
    ] = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Read confirmed messages of a topic from a broker set's master (or one replica with -b).

    Only messages up to the confirmOffset are visible, so nothing read here can be truncated by a failover.
    """
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
