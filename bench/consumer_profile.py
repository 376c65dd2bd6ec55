"""Where a receive + ack spends its time on the master: ``PopService`` in this process, phases timed, cProfile.

A master replica and one slave replica (threads of this process, allAckInSyncStateSet=true, SyncStateSet {1,2})
under a ``Consumers`` whose host puts straight into the master replica (no gRPC, no agent). N messages of 1 KiB
(default 20 000; --quick: 640) over 8 queues are consumed, alternating for R rounds (default 3; --quick: 1), by the
PullMessage handler's own read (``store.consume`` of 32 and the protobuf reply) and by a new group's receive of 32
and one ack of its handles. Each receive and ack is split into the consumer-state put (``Replica.put`` of the
records: append, local flush, the slave's acknowledgement) and everything else (state rebuild check, the queue
reads, POP's decisions, handles, records, the reply). Then one more group's receive + ack runs under cProfile (the
calling thread only: the replicas' HA threads are not in it) and the functions with the most own time are listed.
Compare with consumer_throughput.py, which measures the same through real agent processes over gRPC.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from _common import machine_note, ms, parse_args, percentile, print_table
from _replicas import TOPIC, Cluster, messages, wait_until

from agents.broker import convert
from agents.broker.api import AckRequest, ReceiveRequest
from agents.broker.consumer_snapshots import SnapshotKeeper
from agents.broker.consumers import Consumers
from agents.config import BrokerConfig
from agents.consumer.records import Escaped
from agents.ha.config import HAConfig
from agents.ha.master_service import Appended, PutResult
from agents.ha.replica import Replica
from agents.ha.sync_state import PutStatus
from agents.metadata import MetadataTable, Topic
from agents.pop.model import QueueKey
from agents.store.record import Message
from mqbase.clock import SYSTEM
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb

QUEUES = 8
BODY = 1024
BATCH = 32
BROKER = "broker-a"
ORDERS = {"tottime": "own time", "cumulative": "time with callees"}


@dataclass
class TimedPut:
    """A put's append, timed from the append to the end of its settle (what one put costs)."""

    appended: Appended
    started: float
    puts: list[float]

    def settle(self) -> PutResult:
        result = self.appended.settle()
        self.puts.append(time.perf_counter() - self.started)
        return result


@dataclass
class Host:
    """The consumer side's host: the master replica, with every put timed."""

    config: BrokerConfig
    replica: Replica | None
    metadata: MetadataTable
    puts: list[float]

    def append(self, batch: Sequence[Message]) -> TimedPut | PutResult:
        assert self.replica is not None
        start = time.perf_counter()
        appended = self.replica.append(batch)
        return TimedPut(appended, start, self.puts) if isinstance(appended, Appended) else appended

    def master_address(self) -> str:
        return ""

    broker_id = 1
    acting_since_ms = 0

    def escape(self, changes: Sequence[Escaped], copies: Sequence[Message], serving: Callable[[str], bool]) -> str:
        raise AssertionError("a master never escapes")

    def lock_queues(self, keys: Sequence[QueueKey]) -> frozenset[QueueKey]:
        """One master, no peers: every orderly queue is its own (non-strict)."""
        return frozenset(keys)

    def dead_letters_stored(self, topics: frozenset[str]) -> None:
        raise AssertionError("this profile makes no dead letter")


def pull_all(replica: Replica, per_queue: list[int]) -> tuple[float, int]:
    """What the PullMessage handler does for every 32 messages of every queue: (seconds, messages)."""
    store, got = replica.store, 0
    start = time.perf_counter()
    for queue_id in range(QUEUES):
        offset = 0
        while offset < per_queue[queue_id]:
            found = store.consume(TOPIC, queue_id, offset, BATCH)
            response = pb.PullMessageResponse(code=ResponseCode.SUCCESS, next_offset=found[-1][0] + 1)
            for queue_offset, m in found:
                response.messages.add(
                    queue_offset=queue_offset,
                    store_timestamp=m.store_timestamp,
                    message=pb.Message(topic=m.topic, queue_id=m.queue_id, body=m.body, properties=dict(m.properties)),
                )
            response.SerializeToString()
            got += len(found)
            offset = found[-1][0] + 1
    return time.perf_counter() - start, got


@dataclass
class Consumed:
    seconds: float
    messages: int
    receive: list[float]
    ack: list[float]
    receive_puts: list[float]
    ack_puts: list[float]


def consume_all(service: Consumers, host: Host, group: str, total: int) -> Consumed:
    """One group receives (32, no long polling) and acks every message once; each call and its put timed."""
    out = Consumed(0.0, 0, [], [], [], [])
    request = ReceiveRequest(group, TOPIC, BATCH, 60_000, "*")
    start = time.perf_counter()
    deadline = time.monotonic() + 120
    while out.messages < total and time.monotonic() < deadline:
        mark, host.puts = time.perf_counter(), []
        r = service.pop.receive(request)
        out.receive.append(time.perf_counter() - mark)
        out.receive_puts += host.puts
        if r.code != ResponseCode.SUCCESS:
            raise RuntimeError(f"receive: {r.code} {r.remark}")
        convert.received_to_pb(r).SerializeToString()  # what the agent API sends back
        ack = AckRequest(group, TOPIC, tuple(m.receipt_handle for m in r.messages))
        mark, host.puts = time.perf_counter(), []
        a = service.pop.ack(ack)
        out.ack.append(time.perf_counter() - mark)
        out.ack_puts += host.puts
        if a.code != ResponseCode.SUCCESS or any(x.pop_code != 20000 for x in a.results):
            raise RuntimeError(f"ack: {a.code} {a.remark}")
        out.messages += len(r.messages)
    out.seconds = time.perf_counter() - start
    return out


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--messages", type=int, help="messages per round (default 20000; --quick: 640)")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 3; --quick: 1)")
    parser.add_argument("--top", type=int, default=25, help="functions listed from the profile (default 25)")
    parser.add_argument("--sort", choices=tuple(ORDERS), default="tottime",
                        help="the profile's order: own time (default) or with callees")  # fmt: skip


def main() -> None:
    args = parse_args(__doc__, options)
    total = args.messages or (640 if args.quick else 20_000)
    rounds = args.rounds or (1 if args.quick else 3)
    print(f"machine: {machine_note()}")
    cfg = replace(HAConfig(), all_ack_in_sync_state_set=True)
    with Cluster(prefix="mqbench-consumer-") as cluster:
        master = cluster.replica(1, cfg, name="master")
        address = cluster.start_master(master)
        cluster.replica(2, cfg).change_to_slave(address, epoch=1)
        wait_until(lambda: master.master is not None and master.master.sync_state.local == frozenset({1, 2}), 30,
                   "the slave in the SyncStateSet")  # fmt: skip
        for i in range(0, total, BATCH):
            if master.put(messages(BATCH, BODY, first=i, queues=QUEUES)).status is not PutStatus.PUT_OK:
                raise RuntimeError("preload put failed")
        wait_until(lambda: master.store.confirm_offset == master.store.max_offset, 30, "the preload confirmed")
        per_queue = [master.store.queue_range(TOPIC, q)[1] for q in range(QUEUES)]
        topic = Topic(TOPIC, frozenset({BROKER}), QUEUES, QUEUES, 6)
        host = Host(BrokerConfig(broker_name=BROKER), master, MetadataTable(1, MappingProxyType({TOPIC: topic})), [])
        service = Consumers(host, SnapshotKeeper(lambda: master, lambda: host.config), SYSTEM)
        pull_all(master, per_queue)  # warm-up
        pulls, runs = [], []
        for k in range(rounds):
            pulls.append(pull_all(master, per_queue))
            runs.append(consume_all(service, host, f"GID_profile_{k}", total))
        profiler = cProfile.Profile()
        profiler.enable()
        consume_all(service, host, "GID_profiled", total)
        profiler.disable()

    pull_rate = statistics.median(n / s for s, n in pulls)
    rate = statistics.median(r.messages / r.seconds for r in runs)
    print_table(
        f"In-process: the PullMessage read against receive + ack, {total} messages of {BODY} B, "
        f"median of {rounds} round(s)",
        ["read", "msgs/s", "× raw read", "µs/msg"],
        [["raw read (store.consume + reply)", f"{pull_rate:.0f}", "1.00", f"{1e6 / pull_rate:.0f}"],
         ["receive + ack (PopService)", f"{rate:.0f}", f"{rate / pull_rate:.2f}", f"{1e6 / rate:.0f}"]],
    )  # fmt: skip
    got = sum(r.messages for r in runs)
    rows = []
    for label, calls, put in (("receive", "receive", "receive_puts"), ("ack", "ack", "ack_puts")):
        times = [t for r in runs for t in getattr(r, calls)]
        puts = [t for r in runs for t in getattr(r, put)]
        rows.append([label, str(len(times)), ms(percentile(times, 50)), f"{sum(times) / got * 1e6:.0f}",
                     str(len(puts)), ms(percentile(puts, 50)), f"{sum(puts) / got * 1e6:.0f}",
                     f"{(sum(times) - sum(puts)) / got * 1e6:.0f}"])  # fmt: skip
    print_table("Where a receive + ack goes (per call, and per message over all rounds)",
                ["call", "calls", "p50 ms", "µs/msg", "puts", "put p50 ms", "put µs/msg", "rest µs/msg"],
                rows)  # fmt: skip
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats(args.sort).print_stats(args.top)
    order = ORDERS[args.sort]
    print(f"\ncProfile of one more group's receive + ack of {total} messages (calling thread only), by {order}:")
    print("\n".join(line for line in text.getvalue().splitlines() if line.strip())[:12000])
    print(f"machine after: {machine_note()}")


if __name__ == "__main__":
    main()
