"""Sending and consuming with the official RocketMQ Python client through an access point.

The access-point tests that run a producer to send a batch, or a simple consumer's receive-and-ack loop, around a
failover or an acting-master episode share these.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rocketmq import ClientConfiguration, Credentials, Message, Producer, SimpleConsumer


def send(endpoints: str, topic: str, count: int, deliver_s: int | None = None) -> set[str]:
    """Send `count` messages (delivered at `deliver_s`, a Unix time in seconds, if given); their message ids."""
    producer = Producer(ClientConfiguration(endpoints, Credentials()), (topic,))
    producer.startup()
    try:
        ids = set()
        for i in range(count):
            m = Message()
            m.topic, m.body = topic, f"{topic}-{i}".encode()
            if deliver_s is not None:
                m.delivery_timestamp = deliver_s
            ids.add(producer.send(m).message_id)
        return ids
    finally:
        producer.shutdown()


def send_bodies(endpoints: str, topic: str, bodies: list[str], group: str | None = None) -> dict[str, str]:
    """Send each body in order (one message group for all, if given); message id -> body."""
    producer = Producer(ClientConfiguration(endpoints, Credentials()), (topic,))
    producer.startup()
    try:
        sent = {}
        for body in bodies:
            m = Message()
            m.topic, m.body = topic, body.encode()
            if group is not None:
                m.message_group = group
            sent[producer.send(m).message_id] = body
        return sent
    finally:
        producer.shutdown()


def consume(
    consumer: SimpleConsumer, acked: dict[str, int], done: Callable[[], bool], batch: int = 8, timeout_s: float = 60
) -> None:
    """Receive and ack until `done()` or the timeout, counting each message id's deliveries in `acked`."""
    deadline = time.monotonic() + timeout_s
    while not done() and time.monotonic() < deadline:
        for m in consumer.receive(batch, 30):
            acked[m.message_id] = acked.get(m.message_id, 0) + 1
            consumer.ack(m)
