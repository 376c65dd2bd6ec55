"""Consumer groups on a real broker set: receive + ack against a raw read of the same messages, and what a consuming
group costs the put path.

Sandbox: 1 controller and one broker set of 2 replicas, each its own agent process, with the sandbox's
allAckInSyncStateSet=true: every put, of messages or of consumer-state records, returns once the slave holds it.
Topics are made with ``mqadmin updateTopic`` (8 queues). All calls go over gRPC from this process to the master.

Receive: N messages of 1 KiB (default 20 000; --quick: 640) are sent in batches of 32, a batch per queue in turn.
Then, alternating for R rounds (default 3; --quick: 1): a raw read of all of them (PullMessage, 32 per call, each
queue from offset 0; writes nothing), and a new consumer group receiving them all (ReceiveMessage, batch 32, 60 s
invisibility, no long polling) and acking each receive's handles with one AckMessage. 1 client thread, and 4
(--threads): the pullers split the queues, the receivers share one group. Reported per mode: messages/s (median of
the rounds), receive+ack / raw read, client time per call, and the CPU of the master's and the slave's agent process
per message.

Put path: a producer thread sends P puts (default 2000; --quick: 200) of 1 message of 1 KiB, and of 32, to a second
topic, alternating R rounds with no consumer and with one consumer thread of a group receiving (long polling 1 s,
batch 32) and acking what is sent meanwhile. Reported: put p50/p99 and puts/s, their ratios with / without, what the
consumer received, and the agents' CPU per put. Timing is reported, not asserted; exits 1 if a call fails.
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from _common import cpu_seconds, grpc, log_summary, machine_note, ms, parse_args, percentile, print_table, sandbox

from mqadmin_py.sandbox import Sandbox
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import agent_pb2_grpc as pb_grpc
from tests.harness.sandbox import BROKER, CLUSTER, Cli
from tests.harness.wait import wait_until

QUEUES = 8
BODY = 1024
BATCH = 32
INVISIBLE_MS = 60_000
ROUND_S = 120.0
"""Every timed loop stops after this long, whatever it still lacks (reported as a shortfall)."""
ACK_OK = 20000
RECEIVE_TOPIC, PUT_TOPIC = "BenchConsume", "BenchPut"


def stub_for(address: str) -> tuple[grpc.Channel, pb_grpc.AgentServiceStub]:
    channel = grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
    return channel, pb_grpc.AgentServiceStub(channel)  # type: ignore[no-untyped-call]  # generated, unannotated


def checked(response: Any, what: str, *codes: int) -> Any:
    if response.code not in (ResponseCode.SUCCESS, *codes):
        raise RuntimeError(f"{what}: code {response.code} {response.remark}")
    return response


class Agents:
    """The master's address and the CPU seconds of the master's and the slave's agent process."""

    def __init__(self, sb: Sandbox) -> None:
        master, broker = sb.master_agent(BROKER)
        self.address = broker.brokerAddress
        slaves = [a for a in sb.agents() if a.id != master.id]
        self.pids = {"master": master.pid or 0, "slave": slaves[0].pid or 0}

    def cpu(self) -> dict[str, float]:
        return {role: cpu_seconds(pid) for role, pid in self.pids.items()}


@dataclass
class Run:
    """One timed loop: its messages, wall time, client call times by kind and the agents' CPU."""

    messages: int = 0
    wall: float = 0.0
    calls: dict[str, list[float]] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def call(self, kind: str, fn: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        out = fn()
        spent = time.perf_counter() - start
        with self.lock:
            self.calls.setdefault(kind, []).append(spent)
        return out

    def rate(self) -> float:
        return self.messages / self.wall if self.wall > 0 else float("nan")


def timed(agents: Agents, threads: int, work: Callable[[int, Run], None]) -> Run:
    """`work(thread index, run)` on `threads` threads, timed as a whole with the agents' CPU."""
    run = Run()
    start = threading.Barrier(threads + 1)
    errors: list[BaseException] = []

    def body(index: int) -> None:
        start.wait(30)
        try:
            work(index, run)
        except BaseException as exc:  # reported after the join: a failed call fails the benchmark
            errors.append(exc)

    pool = [threading.Thread(target=body, args=(i,), name=f"client-{i}") for i in range(threads)]
    for t in pool:
        t.start()
    before = agents.cpu()
    start.wait(30)
    began = time.perf_counter()
    for t in pool:
        t.join(ROUND_S + 30)
    run.wall = time.perf_counter() - began
    run.cpu = {role: used - before[role] for role, used in agents.cpu().items()}
    if errors:
        raise errors[0]
    return run


# --- setup ----------------------------------------------------------------------------------------


def create_topic(sb: Sandbox, topic: str, stub: pb_grpc.AgentServiceStub) -> None:
    cli = Cli(sb.dir)
    cli.env["MQADMIN_CONTROLLERS"] = sb.addresses()
    cli("updateTopic", "-c", CLUSTER, "-t", topic, "-r", str(QUEUES), "-w", str(QUEUES))
    probe = pb.ReceiveMessageRequest(group="probe", topic=topic, batch_size=1, invisible_millis=INVISIBLE_MS)
    learnt = (ResponseCode.SUCCESS, ResponseCode.PULL_NOT_FOUND)  # not TOPIC_NOT_EXIST, nor "no metadata yet"
    wait_until(lambda: stub.ReceiveMessage(probe, timeout=10).code in learnt, 30, f"the agent learnt topic {topic}")


def batch(topic: str, queue_id: int, count: int, first: int) -> pb.SendMessagesRequest:
    pad = os.urandom(BODY)
    messages = [
        pb.Message(topic=topic, queue_id=queue_id, body=f"{first + i:010d}".encode() + pad[10:]) for i in range(count)
    ]
    return pb.SendMessagesRequest(broker=pb.BrokerRef(), messages=messages)


def preload(stub: pb_grpc.AgentServiceStub, total: int) -> None:
    for i in range(0, total, BATCH):
        request = batch(RECEIVE_TOPIC, (i // BATCH) % QUEUES, min(BATCH, total - i), i)
        checked(stub.SendMessages(request, timeout=30), "SendMessages")


# --- receive + ack against a raw read -------------------------------------------------------------


def pull_all(agents: Agents, threads: int, per_queue: list[int]) -> Run:
    """Every queue read from offset 0 to its end, the queues split among `threads` clients."""

    def work(index: int, run: Run) -> None:
        channel, stub = stub_for(agents.address)
        deadline = time.monotonic() + ROUND_S
        try:
            for queue_id in range(index, QUEUES, threads):
                offset = 0
                while offset < per_queue[queue_id] and time.monotonic() < deadline:
                    request = pb.PullMessageRequest(
                        broker=pb.BrokerRef(), topic=RECEIVE_TOPIC, queue_id=queue_id, queue_offset=offset,
                        max_messages=BATCH,
                    )  # fmt: skip
                    r = checked(run.call("pull", partial(stub.PullMessage, request, timeout=30)), "PullMessage")
                    with run.lock:
                        run.messages += len(r.messages)
                    offset = r.next_offset
        finally:
            channel.close()

    return timed(agents, threads, work)


def receive_all(agents: Agents, threads: int, group: str, total: int) -> Run:
    """`threads` clients of one new group receive and ack until the group got `total` messages."""

    def work(_index: int, run: Run) -> None:
        channel, stub = stub_for(agents.address)
        deadline = time.monotonic() + ROUND_S
        request = pb.ReceiveMessageRequest(
            group=group, topic=RECEIVE_TOPIC, filter_expression="*", batch_size=BATCH, invisible_millis=INVISIBLE_MS
        )
        try:
            while run.messages < total and time.monotonic() < deadline:
                r = run.call("receive", lambda: stub.ReceiveMessage(request, timeout=30))
                checked(r, "ReceiveMessage", ResponseCode.PULL_NOT_FOUND)
                if not r.messages:
                    continue
                ack = pb.AckMessageRequest(
                    group=group, topic=RECEIVE_TOPIC, receipt_handles=[m.receipt_handle for m in r.messages]
                )
                acked = checked(run.call("ack", partial(stub.AckMessage, ack, timeout=30)), "AckMessage")
                bad = [x for x in acked.results if x.pop_code != ACK_OK]
                if bad:
                    raise RuntimeError(f"AckMessage: {len(bad)} handles refused, first: {bad[0].remark}")
                with run.lock:
                    run.messages += len(r.messages)
        finally:
            channel.close()

    return timed(agents, threads, work)


def receive_part(agents: Agents, stub: pb_grpc.AgentServiceStub, total: int, rounds: int, modes: list[int]) -> None:
    preload(stub, total)
    per_queue = [stub.PullMessage(pb.PullMessageRequest(broker=pb.BrokerRef(), topic=RECEIVE_TOPIC, queue_id=q,
                                                        max_messages=1), timeout=10).max_offset
                 for q in range(QUEUES)]  # fmt: skip
    if sum(per_queue) != total:
        raise RuntimeError(f"the queues hold {sum(per_queue)} messages, not {total}")
    print(f"preloaded {total} messages of {BODY} B over {QUEUES} queues", flush=True)
    results: dict[int, tuple[list[Run], list[Run]]] = {}
    groups = iter(range(1_000_000))
    for threads in modes:
        pull_all(agents, threads, per_queue)  # warm-up (page cache, channels)
        pulls, receives = [], []
        for _ in range(rounds):
            pulls.append(pull_all(agents, threads, per_queue))
            receives.append(receive_all(agents, threads, f"GID_bench_{next(groups)}", total))
        results[threads] = (pulls, receives)
        print(f"receive: {threads} thread(s) done", flush=True)
    rows, calls, notes = [], [], []
    for threads, (pulls, receives) in results.items():
        pull_rate = statistics.median(r.rate() for r in pulls)
        receive_rate = statistics.median(r.rate() for r in receives)
        for label, runs, rate in (("raw read (PullMessage)", pulls, pull_rate),
                                  ("receive + ack (group)", receives, receive_rate)):  # fmt: skip
            got = sum(r.messages for r in runs)
            per = {role: sum(r.cpu[role] for r in runs) / got * 1e6 for role in ("master", "slave")}
            rows.append([
                f"{threads}", label, f"{rate:.0f}", " / ".join(f"{r.rate():.0f}" for r in runs),
                f"{rate / pull_rate:.2f}", f"{per['master']:.0f}", f"{per['slave']:.0f}",
                str(rounds * total - got) if got < rounds * total else "0",
            ])  # fmt: skip
            for kind in sorted({k for r in runs for k in r.calls}):
                times = [t for r in runs for t in r.calls[kind]]
                calls.append([f"{threads}", kind, str(len(times)), ms(percentile(times, 50)),
                              ms(percentile(times, 99)), f"{sum(times) / got * 1e6:.0f}"])  # fmt: skip
        notes.append(f"target: receive+ack >= 0.5 x raw read; {threads} thread(s): {receive_rate / pull_rate:.2f}")
    print_table(
        f"Receive + ack against a raw read of the same {total} messages of {BODY} B, median of {rounds} round(s)",
        ["threads", "read", "msgs/s", "msgs/s per round", "× raw read", "master agent CPU µs/msg",
         "slave agent CPU µs/msg", "shortfall"],
        rows,
    )  # fmt: skip
    print_table("Client time per call", ["threads", "call", "calls", "p50 ms", "p99 ms", "client µs/msg"], calls)
    print("\n" + "\n".join(notes))


# --- the put path with and without a consuming group ----------------------------------------------


class Consumer:
    """A thread receiving (long polling) and acking PUT_TOPIC for `group` until stopped."""

    def __init__(self, address: str, group: str) -> None:
        self.group = group
        self.received = self.receives = self.empty = 0
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._channel, self._stub = stub_for(address)
        for queue_id in range(QUEUES):  # start at the queues' ends (Java's CONSUME_FROM_LAST_OFFSET): only new puts
            commit = pb.UpdateConsumerOffsetRequest(group=group, topic=PUT_TOPIC, queue_id=queue_id, offset=2**62)
            checked(self._stub.UpdateConsumerOffset(commit, timeout=30), "UpdateConsumerOffset")
        self._thread = threading.Thread(target=self._run, name=f"consumer-{group}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        request = pb.ReceiveMessageRequest(group=self.group, topic=PUT_TOPIC, filter_expression="*", batch_size=BATCH,
                                           invisible_millis=INVISIBLE_MS, long_polling_millis=1000)  # fmt: skip
        try:
            while not self._stop.is_set():
                r = checked(
                    self._stub.ReceiveMessage(request, timeout=30), "ReceiveMessage", ResponseCode.PULL_NOT_FOUND
                )
                self.receives += 1
                if not r.messages:
                    self.empty += 1
                    continue
                handles = [m.receipt_handle for m in r.messages]
                ack = pb.AckMessageRequest(group=self.group, topic=PUT_TOPIC, receipt_handles=handles)
                checked(self._stub.AckMessage(ack, timeout=30), "AckMessage")
                self.received += len(handles)
        except BaseException as exc:  # reported by stop()
            self._error = exc

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(35)
        self._channel.close()
        if self._error is not None:
            raise self._error


def puts(agents: Agents, count: int, per_put: int, first: int) -> Run:
    def work(_index: int, run: Run) -> None:
        channel, stub = stub_for(agents.address)
        deadline = time.monotonic() + ROUND_S
        try:
            for i in range(count):
                if time.monotonic() >= deadline:
                    break
                request = batch(PUT_TOPIC, -1, per_put, first + i * per_put)
                checked(run.call("put", partial(stub.SendMessages, request, timeout=30)), "SendMessages")
                run.messages += 1
        finally:
            channel.close()

    return timed(agents, 1, work)


def put_part(agents: Agents, count: int, rounds: int) -> None:
    groups: Iterator[int] = iter(range(1_000_000))
    rows, notes = [], []
    sent = 0
    for per_put in (1, BATCH):
        puts(agents, min(100, count), per_put, sent)  # warm-up
        sent += min(100, count) * per_put
        alone: list[Run] = []
        consumed: list[Run] = []
        got = receives = empty = 0
        for _ in range(rounds):
            alone.append(puts(agents, count, per_put, sent))
            sent += count * per_put
            consumer = Consumer(agents.address, f"GID_put_{next(groups)}")
            try:
                consumed.append(puts(agents, count, per_put, sent))
            finally:
                time.sleep(0.5)  # let the consumer take the last puts
                consumer.stop()
            sent += count * per_put
            got, receives, empty = got + consumer.received, receives + consumer.receives, empty + consumer.empty
        base_lat = [t for r in alone for t in r.calls["put"]]
        base_rate = statistics.median(r.rate() for r in alone)
        for label, runs in (("no consumer", alone), ("a group receiving + acking", consumed)):
            lat = [t for r in runs for t in r.calls["put"]]
            rate = statistics.median(r.rate() for r in runs)
            done = sum(r.messages for r in runs)
            cpu = {role: sum(r.cpu[role] for r in runs) / done * 1e6 for role in ("master", "slave")}
            rows.append([
                f"{per_put}", label, str(done), ms(percentile(lat, 50)), ms(percentile(lat, 99)),
                f"{rate:.0f}", f"{percentile(lat, 50) / percentile(base_lat, 50):.2f}", f"{rate / base_rate:.2f}",
                f"{cpu['master']:.0f}", f"{cpu['slave']:.0f}",
            ])  # fmt: skip
        notes.append(f"{per_put} msg(s)/put: the consumers received and acked {got} of "
                     f"{rounds * count * per_put} messages sent meanwhile in {receives} receives "
                     f"({empty} empty)")  # fmt: skip
    print_table(
        f"Put path (SendMessages of {BODY} B messages, 1 producer thread), {rounds} round(s) each, interleaved",
        ["msgs/put", "while", "puts", "p50 ms", "p99 ms", "puts/s", "p50 × alone", "puts/s × alone",
         "master agent CPU µs/put", "slave agent CPU µs/put"],
        rows,
    )  # fmt: skip
    print("\n" + "\n".join(notes))


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--messages", type=int, help="messages received per round (default 20000; --quick: 640)")
    parser.add_argument("--puts", type=int, help="puts per round and size (default 2000; --quick: 200)")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 3; --quick: 1)")
    parser.add_argument("--threads", default="1,4", help="client threads of the receive part (default 1,4)")
    parser.add_argument("--skip", choices=("receive", "put"), help="leave one part out")


def main() -> None:
    args = parse_args(__doc__, options)
    total = args.messages or (640 if args.quick else 20_000)
    count = args.puts or (200 if args.quick else 2000)
    rounds = args.rounds or (1 if args.quick else 3)
    modes = [1] if args.quick else [int(t) for t in args.threads.split(",")]
    print(f"machine: {machine_note()}")
    with sandbox(controllers=1, broker_sets=1, replicas=2) as sb:
        agents = Agents(sb)
        channel, stub = stub_for(agents.address)
        try:
            create_topic(sb, RECEIVE_TOPIC, stub)
            create_topic(sb, PUT_TOPIC, stub)
            if args.skip != "receive":
                receive_part(agents, stub, total, rounds, modes)
            if args.skip != "put":
                put_part(agents, count, rounds)
        finally:
            channel.close()
        print(f"\n{log_summary(sb)}")
    print(f"machine after: {machine_note()}")


if __name__ == "__main__":
    main()
