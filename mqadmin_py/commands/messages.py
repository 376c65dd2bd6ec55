"""sendMessage and consumeMessage: exercise a cluster from a runbook (send to masters, read back confirmed data)."""

from __future__ import annotations

import base64
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Literal, TypedDict

import typer

from agents.delay.timer import TIMER_DELIVER_MS
from agents.metadata import KEYS, MESSAGE_GROUP, TAGS, UNIQ_KEY
from agents.pop.errors import PopCode
from agents.pop.filter import parse_filter
from agents.pop.model import DEFAULT_LIMITS
from agents.transaction.half import TRAN_MSG, TransactionRef
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
    local_time,
    message_body,
    not_empty,
    seconds_option,
)
from mqadmin_py.commands.controller import fetch_sync_state
from mqadmin_py.commands.topic import find_group, find_topic, group_name, metadata_of, set_masters
from mqadmin_py.options import ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table, null
from mqbase.codes import ResponseCode
from mqbase.errors import Interrupted, MqError, OperationFailed, OperationRefused, Refused, UsageError

RETRIABLE = frozenset({11, 14})
"""SLAVE_NOT_AVAILABLE and SERVICE_NOT_AVAILABLE: the broker stored nothing, so a retry cannot duplicate."""
RETRY_PAUSE_S = 0.02
PULL_BATCH = 32


def _masters(
    controller: str, timeout: float, broker_name: str | None, topic: str | None = None, *, writing: bool = False
) -> list[tuple[str, str]]:
    """(brokerName, masterAddress) of the named set, else of every set serving `topic` (``serving_sets``), else of
    every set, that has a master. `writing` (unless a set is named): the sets whose write permission is wiped
    (wipeWritePerm: draining) are left out while another one is left, as the access points route sends."""
    with controller_client(controller, timeout) as client:
        sets = fetch_sync_state(client, [broker_name] if broker_name else None, None)
        meta = metadata_of(client) if not broker_name and (topic is not None or writing) else None
    targets = [(d["brokerName"], d["masterAddress"]) for d in sets if d["masterAddress"]]
    served = serving_sets(meta, topic) if meta is not None and topic is not None else None
    if served is not None:
        targets = [t for t in targets if t[0] in served]
    if meta is not None and writing:
        wiped = set(meta.write_wiped_broker_names)
        targets = [t for t in targets if t[0] not in wiped] or targets
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
    unanswered: int | None
    """Sends of it that got no answer (the master died): each may have stored it, so a PUT_OK after one may be a
    duplicate (the same msgId), and a failure may be stored all the same."""


class SentDoc(SendOutcomeDoc):
    index: int
    msgId: str
    transactionId: str | None
    """A transactional message's id for its end (``--transaction``); null otherwise."""
    transaction: str | None
    """What became of its transaction: COMMIT or ROLLBACK (ended), OPEN (left for the check-back), or the code
    name of an end that failed; null for an ordinary message."""


class SendDoc(TypedDict):
    topic: str
    sent: int
    failed: int
    results: list[SentDoc]


def call_master(agents: Any, address: str, method: str, request: Any, budget_s: float) -> tuple[Any, str, int]:
    """Call `method` at a broker set's master, retrying refusals that did nothing for up to `budget_s`
    (`call_through`); a call that gets no answer raises. Returns (the last answer, the address that gave it, calls
    made)."""
    r, tries = call_through(agents, address, method, request, budget_s)
    return r, tries.address, tries.attempts


@dataclass(slots=True)
class Tries:
    """How `call_through` went: the address of the last call, the calls made, how many got no answer (each may
    have done its work all the same), and the last call's transport error (None: it was answered)."""

    address: str
    attempts: int = 0
    unanswered: int = 0
    error: MqError | None = None


Locate = Callable[[], str | None]
"""Where a broker set's master is now, as the controllers name it (None: no master, or no controller answered)."""


def call_through(
    agents: Any, address: str, method: str, request: Any, budget_s: float, locate: Locate | None = None
) -> tuple[Any, Tries]:
    """Call `method` at a broker set's master, retrying what is worth retrying until `budget_s` has passed.

    SLAVE_NOT_AVAILABLE and SERVICE_NOT_AVAILABLE (which includes MASTER_TRANSFERRING during a graceful transfer)
    are retried, following the broker's hint of where the master is (`master_address`). With `locate` (the set's
    master as the controllers name it now, None if none), a call that gets no answer (the master died: a failover)
    is retried too, at the address `locate` gives, as is a refusal without a hint; without it, that call raises.
    Returns (the last answer, None when the last call got no answer; how the calls went).
    """
    deadline = time.monotonic() + budget_s
    tries = Tries(address)
    while True:
        tries.attempts += 1
        try:
            r = agents.call(tries.address, method, request)
        except MqError as exc:
            if locate is None:
                raise
            r, tries.error = None, exc
            tries.unanswered += 1
        else:
            tries.error = None
            if r.code not in RETRIABLE:
                return r, tries
        if time.monotonic() + RETRY_PAUSE_S > deadline:
            return r, tries
        hint = r.master_address if r is not None else ""
        hinted = bool(hint) and hint != tries.address
        if hinted:
            tries.address = hint
        if not hinted or tries.attempts > 1:  # the first hint is followed at once; ping-pong while roles switch is not
            time.sleep(min(RETRY_PAUSE_S * tries.attempts, 0.2))
        if not hinted and locate is not None:
            tries.address = locate() or tries.address


def _send_one(
    agents: Any, broker_name: str, address: str, message: Any, budget_s: float, locate: Locate | None = None
) -> tuple[SendOutcomeDoc, str]:
    """Send to `address`, retrying what is safe to retry for up to `budget_s` (`call_through`; with `locate`, also
    through a failover). Returns (result, address). A FLUSH_SLAVE_TIMEOUT is reported, not retried, since the
    message may be stored already (Java's default). A send that got no answer is resent, as a Java producer
    resends it: it may be stored twice then, under the same message id (`unanswered` says so)."""
    from mqbase.proto import agent_pb2 as pb

    request = pb.SendMessageRequest(broker=pb.BrokerRef(broker_name=broker_name), message=message)
    r, tries = call_through(agents, address, "SendMessage", request, budget_s, locate)
    placed = r.results[0] if r is not None and r.results else None
    return {
        "brokerName": broker_name,
        "brokerAddress": tries.address,
        "brokerId": r.broker_id if r is not None else None,
        "masterEpoch": r.master_epoch if r is not None else None,
        "status": (r.status or code_name(r.code)) if r is not None else "UNREACHABLE",
        "code": r.code if r is not None else None,
        "remark": (r.remark or None) if r is not None else str(tries.error),
        "queueId": placed.queue_id if placed else None,
        "queueOffset": placed.queue_offset if placed else None,
        "commitLogOffset": placed.commit_log_offset if placed else None,
        "attempts": tries.attempts,
        "unanswered": tries.unanswered,
    }, tries.address


def _send_table(doc: SendDoc, deliver_ms: int | None = None) -> None:
    """The results; a delayed send (`deliver_ms` ahead) says when its messages are delivered: until then they wait
    in the timer's queue, and QueueOffset (that queue's) is "scheduled"."""
    scheduled = deliver_ms is not None and deliver_ms > time.time() * 1000
    rows = [
        [
            r["index"],
            r["msgId"],
            r["brokerName"],
            r["brokerId"],
            r["status"],
            r["queueId"],
            "scheduled" if scheduled and r["status"] == "PUT_OK" else r["queueOffset"],
            r["commitLogOffset"],
            r["masterEpoch"],
        ]
        for r in doc["results"]
    ]
    columns = ["#", "MsgId", "Broker set", "Broker id", "Status", "Queue", "QueueOffset", "CommitLogOffset",
               "MasterEpoch"]  # fmt: skip
    if any(r["transaction"] for r in doc["results"]):  # --transaction: the half queue's offset, and the end
        columns += ["Transaction", "TransactionId"]
        for row, r in zip(rows, doc["results"], strict=True):
            row += [r["transaction"], r["transactionId"]]
    when = f"; delivered to consumers from {local_time(deliver_ms)}" if scheduled else ""
    emit_table(f"{doc['topic']}: {doc['sent']} sent, {doc['failed']} failed{when}", columns, rows)


def _send_legacy(doc: SendDoc) -> str:
    """SendMessageCommand's lines (its four columns; Java prints one message, we print each)."""
    rows: list[tuple[object, object, object, object]] = [("#Broker Name", "#QID", "#Send Result", "#MsgId")]
    rows += [(r["brokerName"], r["queueId"], r["status"], r["msgId"]) for r in doc["results"]]
    return "".join(f"{a!s:<32}  {b!s:<4}  {c!s:<20}    {d}\n" for a, b, c, d in rows)


def send_message(
    controller: ControllerOpt,
    topic: Annotated[str, typer.Option("-t", "--topic", help="Topic.")],
    body: Annotated[
        str,
        typer.Option(
            "-p",
            "--body",
            help="Message body; '{i}' is replaced by the message's index.",
            callback=checked(message_body),
        ),
    ],
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
        seconds_option(
            "--delay", help="A delayed message: delivered this many seconds from now.", minimum=0, clamp=False
        ),
    ] = None,
    transaction: Annotated[
        Ending | None,
        typer.Option(
            "--transaction",
            help="A transactional message (the topic's message.type TRANSACTION): stored as a half message, then "
            "committed, rolled back, or left open for the broker's check-back (check).",
            case_sensitive=False,
        ),
    ] = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Send messages to the master of a broker set (or round robin over the masters of the sets serving the topic,
    leaving out those whose write permission is wiped while another one is left).

    A message counts as sent only when stored and acknowledged as the broker is configured (PUT_OK); any other
    status is listed, and the command exits 1 after printing every result. With --transaction, a message whose end
    failed counts as failed too.
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
    if transaction is not None:
        if deliver_time is not None or message_group:
            raise UsageError("a transactional message (--transaction) cannot be delayed or carry a message group")
        properties[TRAN_MSG] = "true"
    targets = [list(t) for t in _masters(controller, timeout, broker_name, topic, writing=True)]
    results: list[SentDoc] = []
    msg_ids = message_id.ids(time.time)
    in_flight: str | None = None
    with controller_client(controller, timeout) as client, agent_client(timeout) as agents, \
            _progress(count, "sending") as advance:  # fmt: skip
        try:
            for i in range(count):
                target = targets[i % len(targets)]
                in_flight = msg_id = properties.get(UNIQ_KEY) or next(msg_ids)  # a retry resends the same id
                message = pb.Message(
                    topic=topic,
                    queue_id=queue_id,
                    body=body.replace("{i}", str(i)).encode("utf-8", "surrogateescape"),
                    properties={**properties, UNIQ_KEY: msg_id},
                )
                locate = _locator(client, target[0])
                result, target[1] = _send_one(agents, target[0], target[1], message, timeout, locate)
                tx_id, ended = _end(agents, target, topic, msg_id, result, transaction, timeout, locate)
                results.append({"index": i, "msgId": msg_id, **result, "transactionId": tx_id, "transaction": ended})
                in_flight = None
                advance()
        except KeyboardInterrupt:
            _interrupted(topic, count, results, in_flight, output)
    doc = _send_doc(topic, results)
    emit(doc, output, lambda d: _send_table(d, deliver_time), _send_legacy)
    _note_duplicates(results)
    failed = [r for r in results if r["status"] != "PUT_OK"]
    if failed:
        first = failed[0]
        raise OperationFailed(
            first["code"] if first["code"] is not None else -1,
            first["status"],
            f"{len(failed)} of {count} message(s) not acknowledged with PUT_OK; first: {first['remark']}",
        )
    unended = [r for r in results if r["transaction"] not in (None, "OPEN", "COMMIT", "ROLLBACK")]
    if unended:
        raise OperationFailed(
            -1, str(unended[0]["transaction"]),
            f"{len(unended)} of {count} transaction(s) stored but not ended ({unended[0]['transaction']}): each stays "
            "open and is checked back; see 'mqadmin transactionStatus -t TOPIC'",
        )  # fmt: skip


class Ending(StrEnum):
    """What ``sendMessage --transaction`` does after the half message is stored."""

    commit = "commit"
    rollback = "rollback"
    check = "check"


def _end(
    agents: Any,
    target: list[str],
    topic: str,
    msg_id: str,
    sent: SendOutcomeDoc,
    ending: Ending | None,
    budget_s: float,
    locate: Locate,
) -> tuple[str | None, str | None]:
    """End a stored half message as `ending` says, at its set's master (held through a failover like the send):
    its transaction id and what became of it (see `SentDoc`); (None, None) for an ordinary message."""
    if ending is None or sent["status"] != "PUT_OK" or sent["queueOffset"] is None or sent["commitLogOffset"] is None:
        return None, None
    from mqbase.proto import agent_pb2 as pb

    tx_id = TransactionRef(target[0], sent["queueOffset"], sent["commitLogOffset"]).encode()
    if ending is Ending.check:
        return tx_id, "OPEN"
    request = pb.EndTransactionRequest(
        broker=pb.BrokerRef(broker_name=target[0]), topic=topic, message_id=msg_id, transaction_id=tx_id,
        resolution=pb.COMMIT if ending is Ending.commit else pb.ROLLBACK,
    )  # fmt: skip
    r, tries = call_through(agents, target[1], "EndTransaction", request, budget_s, locate)
    target[1] = tries.address
    if r is None:
        return tx_id, "UNREACHABLE"
    return tx_id, ending.name.upper() if r.code == ResponseCode.SUCCESS else code_name(r.code)


def _locator(client: Any, broker_name: str) -> Locate:
    """The master of `broker_name` as the controllers name it when asked (None: none, or no controller answered):
    where a send goes after its master stopped answering."""

    def locate() -> str | None:
        try:
            found = fetch_sync_state(client, [broker_name], None)
        except MqError:
            return None
        return found[0]["masterAddress"] if found else None

    return locate


def _send_doc(topic: str, results: list[SentDoc]) -> SendDoc:
    failed = sum(r["status"] != "PUT_OK" for r in results)
    return {"topic": topic, "sent": len(results) - failed, "failed": failed, "results": results}


def _note_duplicates(results: list[SentDoc]) -> None:
    """One stderr line naming the acknowledged messages that were resent after a send got no answer."""
    resent = [r for r in results if r["status"] == "PUT_OK" and r["unanswered"]]
    if resent:
        ids = ", ".join(f"#{r['index']} {r['msgId']}" for r in resent[:5]) + (", ..." if len(resent) > 5 else "")
        print(f"mqadmin: {len(resent)} message(s) were resent after a send got no answer and may be stored twice, "
              f"under the same msgId: {ids}", file=sys.stderr)  # fmt: skip


def _interrupted(topic: str, count: int, results: list[SentDoc], in_flight: str | None, output: Output) -> None:
    """Ctrl-C: print what was sent (as a finished run does), then raise Interrupted saying how far it got."""
    doc = _send_doc(topic, results)
    emit(doc, output, _send_table, _send_legacy)
    _note_duplicates(results)
    acked = [r for r in results if r["status"] == "PUT_OK"]
    last = f"; last acknowledged: #{acked[-1]['index']} msgId {acked[-1]['msgId']} queue {acked[-1]['queueId']} " \
           f"offset {acked[-1]['queueOffset']}" if acked else ""  # fmt: skip
    flight = f"; the message being sent (msgId {in_flight}) may be stored or not" if in_flight else ""
    raise Interrupted(f"interrupted after {len(results)} of {count} message(s): {doc['sent']} acknowledged with "
                      f"PUT_OK, {doc['failed']} not{last}{flight}")  # fmt: skip


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
            local_time(m["storeTimestamp"]),
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


def _queue_nums(agents: Any, address: str, broker_name: str, topic: str) -> int:
    """How many queues of `topic` the replica read says to read (``PullMessageResponse.queue_nums``: a pull past the
    end of queue 0, which reads nothing): the replica knows, so a read needs no controller, as in an outage."""
    from mqbase.proto import agent_pb2 as pb

    request = pb.PullMessageRequest(broker=pb.BrokerRef(broker_name=broker_name), topic=topic, queue_id=0,
                                    queue_offset=INT64_MAX, max_messages=1)  # fmt: skip
    return int(check(agents.call(address, "PullMessage", request)).queue_nums)


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
    try:
        _consume_rounds(agents, active, ask, count, ack, timeout, messages, errors)
    except KeyboardInterrupt:  # first, so that it is the error the command ends with
        acked = sum(s["acked"] for s in sets)
        errors.insert(0, Interrupted(f"interrupted after {len(messages)} message(s) received, {acked} acked (listed "
                                     "above); one not acked comes back after --invisible-time"))  # fmt: skip
    return messages, errors


def _consume_rounds(
    agents: Any, active: list[PopSetDoc], ask: ReceiveAsk, count: int, ack: bool, timeout: float,
    messages: list[PopMessageDoc], errors: list[MqError],
) -> None:  # fmt: skip
    """`consume_sets`'s rounds over the `active` sets, into `messages` and `errors`."""
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
    messages: list[MessageDoc] = []
    queues = []
    with agent_client(timeout) as agents:
        queue_nums = _queue_nums(agents, address, broker_name, topic)
        if not queue_nums:  # as -g says, and Java's pull: never an empty read of a topic that is not there
            raise OperationFailed(ResponseCode.TOPIC_NOT_EXIST, "TOPIC_NOT_EXIST",
                                  f"the replica at {address} has no topic {topic}; list the topics with "
                                  "'mqadmin topicList'")  # fmt: skip
        for q in [queue_id] if queue_id is not None else range(queue_nums):
            queues.append(
                _pull_queue(agents, address, broker_name, topic, q, offset, max_messages - len(messages), messages)
            )
    doc: ConsumeDoc = {"topic": topic, "brokerName": broker_name, "brokerAddress": address, "messages": messages,
                       "queues": queues}  # fmt: skip
    emit(doc, output, _consume_table, _consume_legacy)
