"""The RocketMQ 5 access point: sends with the official Python client against the agent's own RPC, and
failover as the official producer sees it.

Sandbox: 1 controller and one broker set of 3 replicas, each on its own agent process (``mqagent``), with
the sandbox's allAckInSyncStateSet=true: a send returns once both slaves hold the message. Every agent serves the
access point (``apache.rocketmq.v2.MessagingService``) next to its agent API. The topic is made with ``mqadmin
updateTopic`` (8 queues). The client is ``rocketmq-python-client`` 5.1.2, unmodified, given every access point.

Send (``--skip failover`` runs only this): the Python client's channel uses the first of the sorted access points,
so the master is first moved there (``transferMaster``) and all paths but the forwarded one reach the master's own
process. R rounds (default 5; --quick: 1), each with N sends (default 2000; --quick: 50) of one 1 KiB message, one
at a time from one thread, per path, the paths' order rotating every round:

* ``direct``: the agent API's ``SendMessages`` of 1 message to the master (a grpc stub, as consumer_throughput.py);
* ``raw v2``: ``SendMessage`` of the RocketMQ 5 protocol to the master's access point, a plain grpc stub with the
  client's own generated protos (``rocketmq.grpc_protocol``): the access point without the client library;
* ``raw v2, forwarded``: the same to a slave's access point, which forwards it over gRPC to the master;
* ``official client``: ``Producer.send`` (sync), i.e. the client library (its Python code and its asyncio loop
  thread) plus the access point.

Reported per path: p50/p99 of the send as the caller sees it, sends/s, the ratios to ``direct``, and CPU per send of
the master's agent process (access point + broker), of the slaves' agents and of this benchmark process (the caller).

Failover (``--skip send`` runs only this): the official producer sends one message, waits 10 ms, sends the next,
... while the master's agent gets SIGKILL, F times (default 20; --quick: 2). The master is first moved
(``transferMaster``) onto the host of the client's access point for every other kill and off it for the rest. Before
each kill all 3 replicas are in the SyncStateSet and the producer has receipts in that state; after it the killed
agent is restarted and the run waits until all 3 are in sync again. The client does not tell which epoch (master)
stored a message, so the window is bounded from above: from the last receipt returned before the kill to the first
receipt of a send that began after the kill (the old master was dead by then, so that message is in the new epoch);
it overstates by up to one send + pause when a send held across the kill returned first. The gap between the
receipts returned just before and just after the kill is a lower bound (a receipt returned after the kill may be
the old master's, still in flight).
Also reported: kill → the controller names a new master (a 10 ms GetSyncStateData poll), → first receipt, failed
sends (any exception from ``send``), and the window split by whether the killed agent's access point was the one
the client's channel used. Timing is reported, not asserted; exits 1 if a send fails or a call is refused.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from _common import (
    SEND_PAUSE_S,
    SendLoop,
    cpu_seconds,
    grpc,
    log_summary,
    machine_note,
    ms,
    parse_args,
    percentile,
    print_table,
    sandbox,
)
from rocketmq import ClientConfiguration, Credentials, Message, Producer
from rocketmq.grpc_protocol import definition_pb2 as v2
from rocketmq.grpc_protocol import service_pb2 as svc
from rocketmq.grpc_protocol import service_pb2_grpc as svc_grpc

from mqadmin_py.sandbox import Sandbox
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import agent_pb2_grpc as pb_grpc
from tests.harness.sandbox import BROKER, CLUSTER, Cli, Cluster
from tests.harness.wait import wait_until

TOPIC = "BenchAccess"
QUEUES = 8
BODY = 1024
"""The failover producer's pause between sends."""
ROUND_S = 120.0
"""Every timed loop stops after this long, whatever it still lacks."""
HEADERS = (("x-mq-client-id", f"bench-raw-{os.getpid()}"),)
PATHS = ("direct", "raw v2", "raw v2, forwarded", "official client")


# --- setup ------------------------------------------------------------------------------------------


def cluster_view(sb: Sandbox) -> Cluster:
    cli = Cli(sb.dir)
    cli.env["MQADMIN_CONTROLLERS"] = sb.addresses()
    return Cluster(cli, sb.addresses())


def create_topic(sb: Sandbox, cluster: Cluster) -> None:
    """``mqadmin updateTopic``, then wait until every agent's metadata has it (the access points read it there)."""
    made = cluster.cli.json("updateTopic", "-c", CLUSTER, "-t", TOPIC, "-r", str(QUEUES), "-w", str(QUEUES))

    def learnt() -> bool:
        brokers = [b for a in sb.agents() for b in cluster.cli.json("listBrokers", "-c", a.address)]
        return all((b["metadataVersion"] or -1) >= made["metadataVersion"] for b in brokers)

    wait_until(learnt, 60, "every agent to learn the topic")


def first_access_point(sb: Sandbox) -> str:
    """The agent whose access point the Python client's channel uses: the first of the sorted addresses."""
    return min(sb.agents(), key=lambda a: a.proxyAddress).id


def master_on(cluster: Cluster, agent_id: str, there: bool = True) -> None:
    """Move the set's master to `agent_id`'s replica (``transferMaster``) unless it is there already; with `there`
    False, off it."""
    master = cluster.healthy()
    if (cluster.agent_of(master.broker_id) == agent_id) == there:
        return
    target = next(i for i in master.slaves() if (cluster.agent_of(i) == agent_id) == there)
    cluster.cli.json("transferMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(target))
    cluster.wait_master(lambda m: m.broker_id == target, 30, f"the master moved to broker {target}")
    cluster.healthy()


def producer(endpoints: str) -> Producer:
    p = Producer(ClientConfiguration(endpoints, Credentials()), (TOPIC,))
    p.startup()
    return p


def client_message(body: bytes) -> Message:
    m = Message()
    m.topic, m.body, m.tag = TOPIC, body, "TagA"
    return m


def body(i: int) -> bytes:
    return f"{i:010d}".encode() + b"x" * (BODY - 10)


# --- the send paths ---------------------------------------------------------------------------------


@dataclass
class Run:
    """One path's timed loop: per-send latencies, wall time and CPU seconds by process."""

    path: str
    latencies: list[float] = field(default_factory=list)
    wall: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)

    def rate(self) -> float:
        return len(self.latencies) / self.wall if self.wall > 0 else float("nan")


class Paths:
    """A send function per path, each with its channel or client; `close` ends them all."""

    def __init__(self, sb: Sandbox, master_agent: str) -> None:
        agents = {a.id: a for a in sb.agents()}
        master = agents[master_agent]
        slave = next(a for a in agents.values() if a.id != master_agent)
        self.pids = {"master": master.pid or 0, **{f"slave {a.id}": a.pid or 0 for a in agents.values()
                                                   if a.id != master_agent}}  # fmt: skip
        self.pids["bench"] = os.getpid()
        address = next(b.brokerAddress for b in master.brokers if b.brokerName == BROKER)
        opts = [("grpc.use_local_subchannel_pool", 1)]
        self._channels = [grpc.insecure_channel(a, options=opts) for a in
                          (address, master.proxyAddress, slave.proxyAddress)]  # fmt: skip
        self._agent = pb_grpc.AgentServiceStub(self._channels[0])  # type: ignore[no-untyped-call]  # generated
        self._local = svc_grpc.MessagingServiceStub(self._channels[1])
        self._forwarded = svc_grpc.MessagingServiceStub(self._channels[2])
        self._producer = producer(sb.proxy_endpoints())
        self.send: dict[str, Callable[[int], None]] = {
            "direct": self._direct,
            "raw v2": lambda i: self._raw(self._local, i),
            "raw v2, forwarded": lambda i: self._raw(self._forwarded, i),
            "official client": self._official,
        }

    def _direct(self, i: int) -> None:
        request = pb.SendMessagesRequest(
            broker=pb.BrokerRef(), messages=[pb.Message(topic=TOPIC, queue_id=-1, body=body(i))]
        )
        r = self._agent.SendMessages(request, timeout=30)
        if r.code != ResponseCode.SUCCESS:
            raise RuntimeError(f"SendMessages: code {r.code} {r.remark}")

    @staticmethod
    def _raw(stub: Any, i: int) -> None:
        m = v2.Message(topic=v2.Resource(name=TOPIC), body=body(i))
        m.system_properties.message_id = uuid.uuid4().hex.upper()
        m.system_properties.message_type = v2.NORMAL
        m.system_properties.tag = "TagA"
        m.system_properties.born_timestamp.GetCurrentTime()
        r = stub.SendMessage(svc.SendMessageRequest(messages=[m]), metadata=HEADERS, timeout=30)
        if r.status.code != v2.OK:
            raise RuntimeError(f"SendMessage: {v2.Code.Name(r.status.code)} {r.status.message}")

    def _official(self, i: int) -> None:
        self._producer.send(client_message(body(i)))

    def cpu(self) -> dict[str, float]:
        return {role: cpu_seconds(pid) for role, pid in self.pids.items()}

    def close(self) -> None:
        self._producer.shutdown()
        for channel in self._channels:
            channel.close()


def timed(paths: Paths, path: str, count: int, first: int) -> Run:
    run = Run(path)
    send = paths.send[path]
    deadline = time.monotonic() + ROUND_S
    before = paths.cpu()
    began = time.perf_counter()
    for i in range(count):
        if time.monotonic() >= deadline:
            break
        start = time.perf_counter()
        send(first + i)
        run.latencies.append(time.perf_counter() - start)
    run.wall = time.perf_counter() - began
    run.cpu = {role: used - before[role] for role, used in paths.cpu().items()}
    return run


def send_part(sb: Sandbox, cluster: Cluster, count: int, rounds: int) -> None:
    client_agent = first_access_point(sb)
    master_on(cluster, client_agent)
    paths = Paths(sb, client_agent)
    runs: dict[str, list[Run]] = {p: [] for p in PATHS}
    sent = 0
    try:
        for path in PATHS:  # warm-up: channels, routes, the client's settings
            timed(paths, path, min(100, count), sent)
            sent += min(100, count)
        for r in range(rounds):
            order = PATHS[r % len(PATHS) :] + PATHS[: r % len(PATHS)]
            for path in order:
                runs[path].append(timed(paths, path, count, sent))
                sent += count
            print(f"send: round {r + 1} of {rounds} done", flush=True)
    finally:
        paths.close()
    base = [t for run in runs["direct"] for t in run.latencies]
    base_rate = statistics.median(run.rate() for run in runs["direct"])
    rows = []
    for path in PATHS:
        lat = [t for run in runs[path] for t in run.latencies]
        rate = statistics.median(run.rate() for run in runs[path])
        done = len(lat)
        cpu = {role: sum(run.cpu[role] for run in runs[path]) / done * 1e6 for role in paths.pids}
        slaves = sum(v for role, v in cpu.items() if role.startswith("slave"))
        rows.append([
            path, str(done), ms(percentile(lat, 50)), ms(percentile(lat, 99)), f"{rate:.0f}",
            f"{percentile(lat, 50) / percentile(base, 50):.2f}", f"{percentile(lat, 99) / percentile(base, 99):.2f}",
            f"{rate / base_rate:.2f}", f"{cpu['master']:.0f}", f"{slaves:.0f}", f"{cpu['bench']:.0f}",
        ])  # fmt: skip
    print_table(
        f"Sends of 1 message of {BODY} B, one at a time, 1 thread; {rounds} round(s) of {count} per path, "
        "interleaved; master on the client's access point host",
        ["path", "sends", "p50 ms", "p99 ms", "sends/s", "p50 × direct", "p99 × direct", "sends/s × direct",
         "master agent CPU µs/send", "slave agents CPU µs/send", "caller CPU µs/send"],
        rows,
    )  # fmt: skip
    p50 = {p: percentile([t for run in runs[p] for t in run.latencies], 50) for p in PATHS}
    print(
        f"\naccess point's overhead per send (p50, raw v2 − direct): {(p50['raw v2'] - p50['direct']) * 1e3:.2f} ms;"
        f" the client library's (official − raw v2): {(p50['official client'] - p50['raw v2']) * 1e3:.2f} ms"
        f"\ntarget p50 ≤ 1.5 × direct: raw v2 {p50['raw v2'] / p50['direct']:.2f}, official client "
        f"{p50['official client'] / p50['direct']:.2f}",
        flush=True,
    )


# --- failover ---------------------------------------------------------------------------------------


class Sender:
    """The official producer (`SendLoop`): each successful send's start and end, each failure's end and error."""

    def __init__(self, endpoints: str) -> None:
        made = producer(endpoints)
        self._loop = SendLoop(lambda i: made.send(client_message(body(i))), made.shutdown, "failover-sender")

    @property
    def receipts(self) -> list[tuple[float, float]]:
        """(monotonic time each successful send() began, when it returned)"""
        return [(began, ended) for began, ended, error in self._loop.sends() if error is None]

    @property
    def failed(self) -> list[tuple[float, str]]:
        return [(ended, error) for _, ended, error in self._loop.sends() if error is not None]

    def count(self) -> int:
        return len(self.receipts)

    def around(self, t: float) -> tuple[float | None, float | None, float | None]:
        """The last receipt returned at or before `t`, the first returned after it, and the first of a send that
        began after it."""
        receipts = self.receipts
        before = [end for _, end in receipts if end <= t]
        after = [end for _, end in receipts if end > t]
        later = [end for began, end in receipts if began > t]
        return (before[-1] if before else None, after[0] if after else None, later[0] if later else None)

    def stop(self) -> None:
        self._loop.stop()


@dataclass
class Kill:
    window: float
    """last receipt before the kill → first receipt of a send begun after it (an upper bound: new epoch only)"""
    gap: float
    """last receipt before the kill → first receipt returned after it (a lower bound: may be the old epoch's)"""
    to_first: float
    """kill → first receipt of a send begun after it"""
    last_before: float
    """last receipt → kill"""
    elected: float
    """kill → the controller names a new master (10 ms poll)"""
    recovery: float
    """restart → all 3 replicas in the SyncStateSet"""
    client_host: bool
    """the killed agent's access point was the client's channel's"""


def new_master(cluster: Cluster, old: int, timeout: float = 30.0) -> float:
    """When GetSyncStateData first names a master other than `old` (polled every 10 ms)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):  # the controller is answering: a failed poll is "not yet"
            m = cluster.master()
            if m is not None and m.broker_id != old:
                return time.monotonic()
        time.sleep(0.01)
    raise RuntimeError(f"no new master within {timeout:g} s")


def one_kill(sb: Sandbox, cluster: Cluster, sender: Sender, client_agent: str) -> Kill:
    """All 3 in sync and receipts in that state; SIGKILL the master's agent; a receipt after it; restart and wait
    until all 3 are in sync again."""
    master = cluster.healthy()
    at = sender.count()
    wait_until(lambda: sender.count() >= at + 5, 30, "receipts with all replicas in sync")
    killed = cluster.agent_of(master.broker_id)
    kill_at = time.monotonic()
    sb.signal(killed, signal.SIGKILL)
    elected = new_master(cluster, master.broker_id) - kill_at
    wait_until(lambda: sender.around(kill_at)[2] is not None, 60, "a receipt of a send begun after the kill")
    last, first, new = sender.around(kill_at)
    if last is None or first is None or new is None:
        raise RuntimeError("no receipt before or after the kill")
    time.sleep(0.2)
    restart = time.monotonic()
    sb.start(killed)
    cluster.healthy(120)
    recovery = time.monotonic() - restart
    return Kill(new - last, first - last, new - kill_at, kill_at - last, elected, recovery, killed == client_agent)


def failover_part(sb: Sandbox, cluster: Cluster, kills: int) -> int:
    client_agent = first_access_point(sb)
    sender = Sender(sb.proxy_endpoints())
    results: list[Kill] = []
    try:
        wait_until(lambda: sender.count() >= 20, 30, "receipts before the first kill")
        for n in range(kills):
            master_on(cluster, client_agent, there=n % 2 == 0)  # half the kills hit the client's access point
            results.append(one_kill(sb, cluster, sender, client_agent))
            print(f"failover: kill {n + 1} of {kills}: window {ms(results[-1].window)} ms", flush=True)
    finally:
        sender.stop()
    rows = []
    measures: list[tuple[str, Callable[[Kill], float]]] = [
        ("window: last receipt before the kill → first of a send begun after it", lambda k: k.window),
        ("gap between the receipts around the kill", lambda k: k.gap),
        ("last receipt → kill", lambda k: k.last_before),
        ("kill → the controller names a new master", lambda k: k.elected),
        ("new master named → first receipt", lambda k: k.to_first - k.elected),
        ("kill → first receipt of a send begun after it", lambda k: k.to_first),
        ("recovery: restart → all 3 in the SyncStateSet", lambda k: k.recovery),
    ]
    for label, pick in measures:
        for subset, chosen in (("all", results), ("client's host killed", [k for k in results if k.client_host]),
                               ("another host killed", [k for k in results if not k.client_host])):  # fmt: skip
            if subset != "all" and not label.startswith("window"):
                continue
            values = [pick(k) for k in chosen]
            if not values:
                continue
            rows.append([label if subset == "all" else f"  {subset}", str(len(values)), ms(percentile(values, 50)),
                         ms(percentile(values, 99)), ms(max(values))])  # fmt: skip
    print_table(
        f"SIGKILL of the master's agent while the official producer sends (1 KiB, {SEND_PAUSE_S * 1000:.0f} ms "
        "pause), ms",
        ["", "kills", "p50", "p99", "max"],
        rows,
    )
    print(f"\nreceipts: {len(sender.receipts)}; failed sends: {len(sender.failed)}")
    for t, what in sender.failed[:5]:
        print(f"  failed at +{t - sender.receipts[0][0]:.3f} s: {what[:200]}")
    return len(sender.failed)


# --- main -------------------------------------------------------------------------------------------


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sends", type=int, help="sends per round and path (default 2000; --quick: 50)")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 5; --quick: 1)")
    parser.add_argument("--kills", type=int, help="SIGKILLs of the master's agent (default 20; --quick: 2)")
    parser.add_argument("--skip", choices=("send", "failover"), help="leave one part out")


@contextlib.contextmanager
def view(sb: Sandbox) -> Iterator[Cluster]:
    cluster = cluster_view(sb)
    try:
        yield cluster
    finally:
        cluster.close()


def main() -> None:
    args = parse_args(__doc__, options)
    count = args.sends or (50 if args.quick else 2000)
    rounds = args.rounds or (1 if args.quick else 5)
    kills = args.kills or (2 if args.quick else 20)
    print(f"machine: {machine_note()}", flush=True)
    failed = 0
    with sandbox(controllers=1, broker_sets=1, replicas=3) as sb, view(sb) as cluster:
        sb.wait_for_brokers(timeout=60.0)
        create_topic(sb, cluster)
        if args.skip != "send":
            send_part(sb, cluster, count, rounds)
        if args.skip != "failover":
            failed = failover_part(sb, cluster, kills)
        print(f"\n{log_summary(sb)}")
    print(f"machine after: {machine_note()}")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
