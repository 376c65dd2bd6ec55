"""A real RocketMQ 5 client through a failover: the official Python client (``rocketmq-python-client``, unmodified)
against the agents' access points. `make demo` runs it in two parts:

    python examples/rocketmq5_client.py produce ENDPOINTS TOPIC IDS_FILE [--ready FILE]
        Sends one message every 50 ms with the official Producer until SIGTERM (or SIGINT), then prints how many
        sends were acknowledged (send() returned a message id: the receipt), how many failed and the slowest
        send's time, and writes the receipted ids to IDS_FILE (JSON). --ready: a file created once the first 10
        sends are acknowledged.

    python examples/rocketmq5_client.py consume ENDPOINTS TOPIC GROUP IDS_FILE
        Receives and acks with the official SimpleConsumer until every receipted id came back (60 s at most), and
        prints whether each came back exactly once. Exits 1 if one is missing.

ENDPOINTS is the access points' list, ``host:port;host:port`` (``mqadmin sandbox status -o json`` ->
``proxyEndpoints``). The topic and the group must exist (``mqadmin updateTopic``, ``mqadmin updateSubGroup``).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from rocketmq import ClientConfiguration, Credentials, FilterExpression, Message, Producer, SimpleConsumer

SEND_EVERY_S = 0.05
READY_AFTER = 10
"""Acknowledged sends before --ready's file is made: the producer is up and its route known."""
CONSUME_TIMEOUT_S = 60.0
INVISIBLE_S = 30
"""A received message stays invisible to the group this long unless acked (far longer than the run)."""


def produce(endpoints: str, topic: str, ids_file: Path, ready: Path | None) -> int:
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    producer = Producer(ClientConfiguration(endpoints, Credentials()), (topic,))
    producer.startup()
    receipted: list[str] = []
    failed: list[str] = []
    slowest = 0.0
    started = time.monotonic()
    try:
        i = 0
        while not stop.is_set():
            m = Message()
            m.topic, m.body = topic, f"client-{i}".encode()
            sending = time.monotonic()
            try:
                receipted.append(producer.send(m).message_id)
            except Exception as exc:  # what the client raised is what we report
                failed.append(f"client-{i}: {exc}")
            slowest = max(slowest, time.monotonic() - sending)
            if ready is not None and len(receipted) == READY_AFTER:
                ready.touch()
            i += 1
            stop.wait(SEND_EVERY_S)
    finally:
        producer.shutdown()
    ids_file.write_text(json.dumps(receipted))
    took = time.monotonic() - started
    print(f"producer: {len(receipted) + len(failed)} sends in {took:.1f} s: {len(receipted)} acknowledged, "
          f"{len(failed)} failed; the slowest took {slowest:.2f} s (held by the access point while the set had "
          "no master)")  # fmt: skip
    for line in failed[:5]:
        print(f"  failed {line}")
    return 0


def consume(endpoints: str, topic: str, group: str, ids_file: Path) -> int:
    receipted = set(json.loads(ids_file.read_text()))
    consumer = SimpleConsumer(ClientConfiguration(endpoints, Credentials()), group, {topic: FilterExpression()}, 2)
    consumer.startup()
    seen: Counter[str] = Counter()
    try:
        deadline = time.monotonic() + CONSUME_TIMEOUT_S
        while time.monotonic() < deadline:
            got = consumer.receive(32, INVISIBLE_S)
            for m in got:
                seen[m.message_id] += 1
                consumer.ack(m)
            if not got and receipted <= set(seen):
                break  # everything is back and one more receive found nothing left (no late duplicate)
    finally:
        consumer.shutdown()
    missing = receipted - set(seen)
    twice = sorted(i for i, n in seen.items() if n > 1)
    extra = set(seen) - receipted  # sends that were stored although the client was told they failed
    print(f"consumer: received and acked {sum(seen.values())} messages, {len(seen)} distinct ids")
    if not missing and not twice:
        print(f"every one of the {len(receipted)} acknowledged message ids came back exactly once")
    if missing:
        print(f"MISSING: {len(missing)} acknowledged message ids never came back, e.g. {sorted(missing)[:3]}")
    if twice:
        print(f"{len(twice)} ids came back more than once (stored twice: a send retried across the kill), {twice[:3]}")
    if extra:
        print(f"{len(extra)} messages whose send was reported failed came back too")
    return 1 if missing else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("produce", help="send until SIGTERM, then report and save the acknowledged ids")
    p.add_argument("endpoints")
    p.add_argument("topic")
    p.add_argument("ids_file", type=Path)
    p.add_argument("--ready", type=Path, help="create this file once the first sends are acknowledged")
    c = sub.add_parser("consume", help="receive and ack until every saved id came back")
    c.add_argument("endpoints")
    c.add_argument("topic")
    c.add_argument("group")
    c.add_argument("ids_file", type=Path)
    args = parser.parse_args(argv)
    if args.command == "produce":
        return produce(args.endpoints, args.topic, args.ids_file, args.ready)
    return consume(args.endpoints, args.topic, args.group, args.ids_file)


if __name__ == "__main__":
    sys.exit(main())
