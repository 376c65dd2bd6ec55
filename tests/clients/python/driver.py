"""The driver for the official Python client, ``rocketmq-python-client`` (tests/clients/README.md)."""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from concurrent.futures import Future
from typing import Any

from rocketmq import (
    ClientConfiguration,
    ConsumeResult,
    Credentials,
    FilterExpression,
    Message,
    MessageListener,
    Producer,
    PushConsumer,
    SimpleConsumer,
    TransactionChecker,
    TransactionResolution,
)

_print_lock = threading.Lock()
MAX_IN_FLIGHT = 16


def emit(**fields: Any) -> None:
    with _print_lock:
        sys.stdout.write(json.dumps(fields) + "\n")
        sys.stdout.flush()


def now_ms() -> int:
    return int(time.time() * 1000)


def error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def config(endpoints: str) -> ClientConfiguration:
    return ClientConfiguration(endpoints, Credentials())


def message(args: argparse.Namespace, seq: int) -> Message:
    m = Message()
    m.topic, m.body = args.topic, f"{args.prefix}-{seq}".encode()
    m.keys = f"{args.prefix}-{seq}"
    if args.tag:
        m.tag = args.tag
    if args.message_groups:
        m.message_group = f"g{seq % args.message_groups}"
    if args.delay_ms:
        m.delivery_timestamp = (now_ms() + args.delay_ms) // 1000  # this client takes seconds
    return m


def produce(args: argparse.Namespace) -> None:
    producer = Producer(config(args.endpoints), (args.topic,))
    producer.startup()
    try:
        if args.mode == "sync":
            for seq in range(args.count):
                started = time.monotonic()
                try:
                    receipt = producer.send(message(args, seq))
                except Exception as exc:  # the client's every failure is reported, not raised
                    emit(op="send", seq=seq, ok=False, error=error(exc))
                else:
                    emit(op="send", seq=seq, ok=True, id=receipt.message_id, ms=(time.monotonic() - started) * 1e3)
                time.sleep(args.interval_ms / 1000)
        else:
            slots = threading.Semaphore(MAX_IN_FLIGHT)
            pending: list[Future[Any]] = []
            for seq in range(args.count):
                slots.acquire()
                started = time.monotonic()
                future = producer.send_async(message(args, seq))
                future.add_done_callback(lambda f, s=seq, t=started: report(f, s, t, slots))
                pending.append(future)
            for future in pending:
                future.exception()  # wait; the callback reported it
    finally:
        producer.shutdown()
    emit(op="done")


def report(future: Future[Any], seq: int, started: float, slots: threading.Semaphore) -> None:
    if (exc := future.exception()) is not None:
        emit(op="send", seq=seq, ok=False, error=error(exc))
    else:
        emit(op="send", seq=seq, ok=True, id=future.result().message_id, ms=(time.monotonic() - started) * 1e3)
    slots.release()


def view(m: Message) -> dict[str, Any]:
    return {
        "id": m.message_id,
        "body": m.body.decode(errors="replace"),
        "keys": sorted(m.keys),
        "tag": m.tag,
        "message_group": m.message_group,
        "attempt": m.delivery_attempt,
        "delivery_ts": m.delivery_timestamp,
        "at": now_ms(),
    }


def receive(args: argparse.Namespace) -> None:
    consumer = SimpleConsumer(config(args.endpoints), args.group, {args.topic: FilterExpression()}, await_duration=5)
    consumer.startup()
    acked: set[str] = set()
    held: str | None = None  # the message whose invisibility was changed, not yet back
    last = time.monotonic()
    try:
        while len(acked) < args.count and time.monotonic() - last < args.idle_seconds:
            try:
                batch = consumer.receive(16, args.invisible_seconds)
            except Exception as exc:
                emit(op="receive_error", error=error(exc))
                continue
            for m in batch:
                last = time.monotonic()
                emit(op="receive", **view(m))
                if args.change_invisible_first and held is None and not acked:
                    held = m.message_id
                    try:
                        consumer.change_invisible_duration(m, 1)
                        emit(op="change_invisible", id=m.message_id, ok=True)
                    except Exception as exc:
                        emit(op="change_invisible", id=m.message_id, ok=False, error=error(exc))
                    continue
                try:
                    consumer.ack(m)
                except Exception as exc:
                    emit(op="ack", id=m.message_id, ok=False, error=error(exc))
                else:
                    acked.add(m.message_id)
                    emit(op="ack", id=m.message_id, ok=True)
    finally:
        consumer.shutdown()
    emit(op="done")


class Listener(MessageListener):  # type: ignore[misc]
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args

    def consume(self, message: Message) -> ConsumeResult:
        fail = message.tag is not None and (
            message.tag == self.args.fail_tag or (message.tag == self.args.retry_tag and message.delivery_attempt == 1)
        )
        result = ConsumeResult.FAILURE if fail else ConsumeResult.SUCCESS
        fields = view(message)
        del fields["delivery_ts"]
        emit(op="consume", **fields, result=result.name)
        return result


def push(args: argparse.Namespace) -> None:
    consumer = PushConsumer(config(args.endpoints), args.group, Listener(args), {args.topic: FilterExpression()})
    consumer.startup()
    try:
        time.sleep(args.seconds)
    finally:
        consumer.shutdown()
    emit(op="done")


ANSWERS = {
    "commit": TransactionResolution.COMMIT,
    "rollback": TransactionResolution.ROLLBACK,
    "unknown": TransactionResolution.TRANSACTION_RESOLUTION_UNSPECIFIED,
}


class Checker(TransactionChecker):  # type: ignore[misc]
    def __init__(self, answer: str) -> None:
        self.answer = answer

    def check(self, message: Message) -> Any:
        emit(
            op="check",
            id=message.message_id,
            body=message.body.decode(errors="replace"),
            answer=self.answer,
            at=now_ms(),
        )
        return ANSWERS[self.answer]


def transact(args: argparse.Namespace) -> None:
    producer = Producer(config(args.endpoints), (args.topic,), checker=Checker(args.check_answer))
    producer.startup()
    decisions = args.decisions.split(",")
    try:
        for seq in range(args.count):
            decision = decisions[seq % len(decisions)]
            m = Message()
            m.topic, m.body = args.topic, f"{args.prefix}-{seq}".encode()
            m.keys = f"{args.prefix}-{seq}"
            try:
                transaction = producer.begin_transaction()
                receipt = producer.send(m, transaction)
            except Exception as exc:
                emit(op="send", seq=seq, ok=False, error=error(exc), decision=decision)
                continue
            emit(op="send", seq=seq, ok=True, id=receipt.message_id, decision=decision)
            if decision == "none":
                continue
            try:
                if decision == "commit":
                    transaction.commit()
                else:
                    transaction.rollback()
            except Exception as exc:
                emit(op="end", seq=seq, decision=decision, ok=False, error=error(exc))
            else:
                emit(op="end", seq=seq, decision=decision, ok=True)
        time.sleep(args.seconds)
    finally:
        producer.shutdown()
    emit(op="done")


DEFAULTS = {"count": 10, "prefix": "m", "seconds": 20}
TRANSACT_DEFAULTS = {"count": 1, "prefix": "t", "seconds": 0}
"""The options whose default differs for ``transact``."""


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="driver")
    parser.add_argument("command", choices=("produce", "receive", "push", "transact"))
    parser.add_argument("--endpoints", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--group")
    parser.add_argument("--count", type=int)
    parser.add_argument("--mode", choices=("sync", "async"), default="sync")
    parser.add_argument("--interval-ms", type=int, default=0)
    parser.add_argument("--prefix")
    parser.add_argument("--tag")
    parser.add_argument("--message-groups", type=int, default=0)
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--idle-seconds", type=float, default=20)
    parser.add_argument("--invisible-seconds", type=int, default=20)
    parser.add_argument("--change-invisible-first", action="store_true")
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--fail-tag")
    parser.add_argument("--retry-tag")
    parser.add_argument("--decisions", default="commit")
    parser.add_argument("--check-answer", choices=tuple(ANSWERS), default="commit")
    args = parser.parse_args(argv)
    for name, default in (TRANSACT_DEFAULTS if args.command == "transact" else DEFAULTS).items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    if bad := set(args.decisions.split(",")) - {"commit", "rollback", "none"}:
        parser.error(f"--decisions: {', '.join(sorted(bad))} is not commit, rollback or none")
    if args.command not in ("produce", "transact") and not args.group:
        parser.error(f"{args.command} needs --group")
    return args


def main(argv: list[str]) -> int:
    args = parse(argv)
    {"produce": produce, "receive": receive, "push": push, "transact": transact}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
