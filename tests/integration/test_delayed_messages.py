"""Delayed (timer) messages on a real broker set: not receivable before their time, delivered once
after it, and through a SIGKILL of the master each due message is delivered exactly once by the new master.

One sandbox serves the module: one controller and one broker set of three replicas, each its own mqagent.
``mqadmin sendMessage --delay/--deliverTime`` sends; a ``GroupConsumer`` (tests/harness/consumer_clients.py)
receives and acks on whichever replica is master. A message re-put twice would come back at two queue offsets,
so "exactly once" is checked as one queue offset per message.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.delay.timer import TIMER_DELIVER_MS
from agents.metadata import UNIQ_KEY
from mqadmin_py.sandbox import Sandbox
from mqbase.errors import MqError, UsageError
from mqbase.proto import agent_pb2 as pb
from tests.harness.consumer_clients import GroupConsumer, payload
from tests.harness.consumer_ledger import Ledger
from tests.harness.sandbox import BROKER, Cli, Cluster, serving_sandbox

pytestmark = [pytest.mark.integration]

INVISIBLE_MS = 10_000
"""A receive whose answer a failover cut off comes back this soon (attempt 2, at the same queue offset)."""


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with serving_sandbox(Path(tmp_path_factory.mktemp("delay")), controllers=1, replicas=3) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def cluster(box: Sandbox) -> Iterator[Cluster]:
    cli = Cli(box.dir, box.addresses())
    c = Cluster(cli, box.addresses())
    yield c
    c.close()


def find_master(box: Sandbox) -> str | None:
    try:
        return box.master_agent(BROKER)[1].brokerAddress
    except (UsageError, MqError):
        return None


def send(cluster: Cluster, topic: str, prefix: str, count: int, *when: str) -> list[str]:
    """`count` messages `prefix`-0.. with the delivery options `when`; their message ids."""
    doc = cluster.cli.json("sendMessage", "-t", topic, "-p", prefix + "-{i}", "--count", str(count), *when)
    assert doc["sent"] == count, doc
    return [r["msgId"] for r in doc["results"]]


def collect(consumer: GroupConsumer, wanted: int, budget_s: float) -> dict[str, set[int]]:
    """Receive and ack until `wanted` messages came (or `budget_s` ran out): payload → queue offsets it came at."""
    seen: dict[str, set[int]] = {}
    deadline = time.monotonic() + budget_s
    while len(seen) < wanted and time.monotonic() < deadline:
        got = consumer.receive(32, INVISIBLE_MS, wait_ms=1000)
        for m in got:
            seen.setdefault(payload(m), set()).add(m.queue_offset)
        consumer.ack(got)
    return seen


def test_delayed_messages_are_received_once_and_not_before_their_time(box: Sandbox, cluster: Cluster) -> None:
    cluster.healthy()
    cluster.create_topic("TDelay", 2)
    deliver = int(time.time() * 1000) + 10_000
    ids = send(cluster, "TDelay", "late", 5, "--deliverTime", str(deliver))
    send(cluster, "TDelay", "now", 2)
    send(cluster, "TDelay", "past", 1, "--deliverTime", "1")  # a time gone: stored for delivery at once
    consumer = GroupConsumer(lambda: find_master(box), BROKER, "GDelay", "TDelay", Ledger())
    try:
        early = collect(consumer, 3, 4)
        assert set(early) == {"now-0", "now-1", "past-0"}
        assert int(time.time() * 1000) < deliver, "the machine was too slow to look before the delivery time"
        got: list[pb.ReceivedMessage] = []
        while len(got) < 5 and time.time() * 1000 < deliver + 20_000:
            batch = consumer.receive(32, INVISIBLE_MS, wait_ms=1000)
            consumer.ack(batch)
            got += batch
        assert sorted(payload(m) for m in got) == [f"late-{i}" for i in range(5)]
        for m in got:
            assert m.store_timestamp >= deliver
            assert m.message.properties[TIMER_DELIVER_MS] == str(deliver)
            assert "REAL_TOPIC" not in m.message.properties
        assert sorted(m.message.properties[UNIQ_KEY] for m in got) == sorted(ids)  # the ids the producer got
        assert collect(consumer, 1, 3) == {}  # nothing comes twice
    finally:
        consumer.close()


def test_a_delivery_time_beyond_the_max_delay_is_refused(cluster: Cluster) -> None:
    cluster.create_topic("TDelayFar", 1)
    far = str(int(time.time() * 1000) + 3 * 24 * 3600 * 1000 + 60_000)
    r = cluster.cli("sendMessage", "-t", "TDelayFar", "-p", "x", "--deliverTime", far, "-o", "json", ok=False)
    assert r.returncode == 1
    assert "the delay time should not be bigger than the max delay 259200000ms" in r.stdout + r.stderr


def test_each_due_message_is_delivered_exactly_once_through_a_sigkill_of_the_master(
    box: Sandbox, cluster: Cluster
) -> None:
    before = cluster.healthy()
    cluster.create_topic("TDelayKill", 4)
    start = int(time.time() * 1000)
    waves = 8
    for wave in range(waves):  # due every 500 ms from 3 s on: some before the kill, some during, some after
        send(cluster, "TDelayKill", f"w{wave}", 5, "--deliverTime", str(start + 3_000 + wave * 500))
    consumer = GroupConsumer(lambda: find_master(box), BROKER, "GDelayKill", "TDelayKill", Ledger())
    agent = cluster.agent_of(before.broker_id)
    try:
        time.sleep(max(start + 4_500 - time.time() * 1000, 0) / 1000)
        box.signal(agent, signal.SIGKILL)
        after = cluster.wait_master(lambda m: m.epoch > before.epoch, 60, "the new master")
        assert after.broker_id != before.broker_id
        seen = collect(consumer, waves * 5, 90)
        seen.update(collect(consumer, 10**6, 3))  # anything re-put twice would come now at the latest
    finally:
        consumer.close()
        box.start(agent)
        cluster.healthy(120)
    assert sorted(seen) == sorted(f"w{w}-{i}" for w in range(waves) for i in range(5))
    assert {p: offsets for p, offsets in seen.items() if len(offsets) != 1} == {}
