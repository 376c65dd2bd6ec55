"""Ours against the real Java RocketMQ 5 in the same run, through the same official client: the anchor every later
performance figure is measured against.

Two clusters, both up for the send and receive parts, on the same machine:

* Java: ``tests/harness/java_cluster.py``, the pinned Java RocketMQ 5 in controller mode (namesrv with the
  controller embedded, a broker set of 2 brokers, a proxy in cluster mode), started first; the settings its master
  reports (``getBrokerConfig``: ack rule, flush, heartbeats) are printed.
* ours: a sandbox of 1 controller and one broker set of 3 replicas on 3 agent processes (``mqagent``),
  each agent serving the RocketMQ 5 access point, with the Java master's ``allAckInSyncStateSet`` and
  ``inSyncReplicas``, so a send returns after the same acknowledgements on both (``--ours-all-ack true|false``
  overrides).

The client is ``rocketmq-python-client`` 5.1.2, unmodified, in this process; topics have 8 queues; bodies are
1 KiB. Ours is given every access point (the client's channel uses the first, sorted) and its master is moved
onto that agent: the access point in the master's own process. A third send target, ``ours, forwarded``, gives
the client a slave's access point, which forwards every send to the master over gRPC: the same hops as the Java
proxy's (client → access process → master). Java's client is given the proxy.

Per round (R, default 5; --quick: 1), the sides' order alternating, after an untimed warm-up (sends, and a
receive of 320 messages, per side; the JVMs' JIT needs it):

* sync sends, one at a time, from 1 thread (N sends, default 2000; --quick: 200) and from 8 threads sharing one
  ``Producer`` (N in all, N/8 per thread; ``--threads``): p50/p99 of ``send`` as the caller sees it, sends/s;
* receive + ack: M messages (default 2000; --quick: 200) sent first to a fresh topic (untimed), then one
  ``SimpleConsumer`` of a fresh group receives them in batches of 32 and acks each (``ack``, one call per
  message), from its first receive to its last ack: messages/s.

CPU per send / message of each side's server processes and of this process (the client) is reported with
each: a side whose servers use ~2 CPU-seconds per second is bound by the machine's 2 cores, a client near one
by the client's GIL and asyncio thread.

Then the kills (K per side, default 5; --quick: 1), ours first, with the other cluster stopped: a producer on a
thread sends one message, waits 10 ms, sends the next, recording each send's start, end and outcome, while the
master's process gets SIGKILL (ours: the agent hosting the master, the client given a surviving agent's access
point; Java: the master broker's JVM, the client given the proxy). Before each kill every replica is alive and in
sync and the producer has receipts in that state. After it the producer runs until a send begun after the kill
succeeded and then ``--settle`` s (default 5) more; the killed process is then restarted and the run waits until
every replica is in sync again. The window: the longest gap between successful completions from the last one
before the kill until the restart; failed sends (``send`` raised, after the client's own retries) are counted.

Prints the tables and, last, ``name: value`` per headline ratio (ours / Java; < 1 is ours faster for latencies
and windows, > 1 ours faster for throughputs). ``--json FILE`` writes the raw figures. The Java JVMs take 20 s
to start on a quiet machine and 2-4 min under load, so ``--quick`` takes a few minutes rather than 30 s; the full
run ~25 min. Everything started is stopped by pid on exit, also on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import math
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from _common import SEND_PAUSE_S, SendLoop, machine_note, ms, parse_args, percentile, print_table, sandbox
from _vs_java_sides import Java, Ours, Side
from rocketmq import (  # noqa: TID251
    ClientConfiguration,
    Credentials,
    FilterExpression,
    Message,
    Producer,
    SimpleConsumer,
    TransactionChecker,
)

from tests.harness import java_cluster
from tests.harness.java_cluster import JavaCluster

BODY = 1024
BATCH = 32
INVISIBLE_S = 30
AWAIT_S = 5
"""The SimpleConsumer's long-polling timeout: the Java proxy refuses a receive whose deadline (the client's
request timeout, 3 s, + this) leaves less than its minimum polling time, 5 s."""
SETTINGS_S = 1.0
"""Untimed pause after a consumer's startup: the Java proxy fails a receive (NullPointerException on the client's
settings) until the client's telemetry stream has delivered its settings."""
IDLE_S = 10.0
"""How long each side's idle CPU is measured, after the warm-up."""
"""The failover producer's pause between sends."""
LOOP_S = 300.0
"""Every timed loop stops after this long, whatever it still lacks."""
SEND_TOPIC = "VsJavaSend"
KILL_TOPIC = "VsJavaKill"
WARM_TOPIC, WARM_GROUP = "VsJavaWarm", "GID_VsJavaWarm"
SEND_TARGETS = ("ours", "ours, forwarded", "java")


def body(i: int) -> bytes:
    return f"{i:010d}".encode() + b"x" * (BODY - 10)


def message(topic: str, i: int) -> Message:
    m = Message()
    m.topic, m.body, m.tag = topic, body(i), "TagA"
    return m


def producer(endpoints: str, topics: tuple[str, ...], checker: TransactionChecker | None = None) -> Producer:
    """A started Producer; with `checker`, one that sends transactional messages and answers their check-backs."""
    p = Producer(ClientConfiguration(endpoints, Credentials()), topics, checker)
    p.startup()
    return p


def recv_topic(r: int) -> tuple[str, str]:
    """Round r's receive topic and group: fresh each round, so a new group reads exactly that round's messages."""
    return f"VsJavaRecv{r}", f"GID_VsJavaRecv{r}"


# --- sends ----------------------------------------------------------------------------------------------------------


@dataclass
class Timed:
    """One timed loop: per-operation latencies (sends only), completed count, wall, CPU of servers and client."""

    target: str
    kind: str
    done: int = 0
    wall: float = 0.0
    latencies: list[float] = field(default_factory=list)
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    errors: list[str] = field(default_factory=list)
    empty: int = 0
    """receives that returned nothing (a long poll on an empty queue while others still held messages)"""

    def rate(self) -> float:
        return self.done / self.wall if self.wall > 0 else float("nan")


@dataclass
class Target:
    """Where sends go: a producer and the side whose server processes are charged for them."""

    name: str
    side: Side
    producer: Producer


def measured(target_name: str, kind: str, side: Side, run: Callable[[Timed], None]) -> Timed:
    """Run `run` with the wall clock and the CPU of the side's servers and of this process around it."""
    out = Timed(target_name, kind)
    servers, client = side.cpu(), time.process_time()
    began = time.perf_counter()
    run(out)
    out.wall = time.perf_counter() - began
    after = side.cpu()
    out.server_cpu = sum(after[r] - servers[r] for r in after if r in servers)
    out.client_cpu = time.process_time() - client
    return out


def send_loop(target: Target, count: int, threads: int, first: int) -> Timed:
    """`count` sync sends in all from `threads` threads sharing the target's producer, each one at a time."""
    per = max(1, count // threads)
    start = threading.Barrier(threads + 1)
    lock = threading.Lock()

    def worker(t: int, out: Timed) -> None:
        lat: list[float] = []
        errors: list[str] = []
        start.wait()
        deadline = time.monotonic() + LOOP_S
        for i in range(per):
            if time.monotonic() >= deadline:
                break
            began = time.perf_counter()
            try:
                target.producer.send(message(SEND_TOPIC, first + t * per + i))
            except Exception as exc:  # a failure is a figure of the run, not a crash of it
                errors.append(f"{type(exc).__name__}: {exc}"[:200])
                continue
            lat.append(time.perf_counter() - began)
        with lock:
            out.latencies.extend(lat)
            out.errors.extend(errors)
            out.done += len(lat)

    def run(out: Timed) -> None:
        workers = [threading.Thread(target=worker, args=(t, out), daemon=True) for t in range(threads)]
        for w in workers:
            w.start()
        start.wait()
        for w in workers:
            w.join(LOOP_S + 60)

    return measured(target.name, f"send {threads}t", target.side, run)


# --- receive + ack --------------------------------------------------------------------------------------------------


def fill(side: Side, topic: str, count: int, threads: int) -> None:
    """Send `count` messages to `topic` (untimed), from `threads` threads sharing one producer."""
    p = producer(side.endpoints(), (topic,))
    try:
        per = -(-count // threads)

        def worker(t: int) -> None:
            for i in range(t * per, min(count, (t + 1) * per)):
                p.send(message(topic, i))

        workers = [threading.Thread(target=worker, args=(t,), daemon=True) for t in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(LOOP_S)
    finally:
        p.shutdown()


def receive_loop(side: Side, topic: str, group: str, count: int) -> Timed:
    """One SimpleConsumer receives batches of 32 and acks each message, until `count` distinct ones are acked."""
    consumer = SimpleConsumer(ClientConfiguration(side.endpoints(), Credentials()), group,
                              {topic: FilterExpression()}, AWAIT_S)  # fmt: skip
    consumer.startup()
    time.sleep(SETTINGS_S)
    seen: set[str] = set()

    def run(out: Timed) -> None:
        deadline = time.monotonic() + LOOP_S
        while len(seen) < count and time.monotonic() < deadline:
            try:
                batch = consumer.receive(BATCH, INVISIBLE_S)
            except Exception as exc:  # counted, and the loop goes on (bounded by its deadline)
                out.errors.append(f"receive: {type(exc).__name__}: {exc}"[:200])
                continue
            out.empty += not batch
            for m in batch:
                try:
                    consumer.ack(m)
                except Exception as exc:
                    out.errors.append(f"ack: {type(exc).__name__}: {exc}"[:200])
                    continue
                seen.add(m.message_id)
        out.done = len(seen)

    try:
        return measured(side.name, "receive+ack", side, run)
    finally:
        consumer.shutdown()


# --- the rounds -------------------------------------------------------------------------------------------------------


def warm_up(targets: list[Target], sides: list[Side], sends: int, threads: int) -> None:
    """Untimed: channels, routes, the client's settings, and the JVMs' JIT on the send and receive paths."""
    for target in targets:
        send_loop(target, sends // 4, 1, 0)
        send_loop(target, sends - sends // 4, threads, 0)
    for side in sides:
        fill(side, WARM_TOPIC, 320, threads)
        receive_loop(side, WARM_TOPIC, WARM_GROUP, 320)
    print("warm-up done", flush=True)


def idle(sides: list[Side], seconds: float) -> list[Timed]:
    """Each side's servers' CPU while nothing is sent (heartbeats, scans, timers): what the figures above it hold
    that no send caused; recorded as a `Timed` of kind "idle", 0 done."""
    before = {s.name: s.cpu() for s in sides}
    start = time.process_time()
    time.sleep(seconds)
    out = []
    for side in sides:
        after = side.cpu()
        used = sum(after[r] - before[side.name][r] for r in after if r in before[side.name])
        out.append(Timed(side.name, "idle", wall=seconds, server_cpu=used, client_cpu=time.process_time() - start))
    print("idle: " + ", ".join(f"{t.target} servers {t.server_cpu / t.wall:.3f} cores" for t in out), flush=True)
    return out


def rounds_part(targets: list[Target], sides: list[Side], args: argparse.Namespace) -> list[Timed]:
    runs: list[Timed] = idle(sides, IDLE_S)
    sent = 0
    for r in range(args.rounds):
        order = targets if r % 2 == 0 else targets[::-1]
        for target in order:
            runs.append(send_loop(target, args.sends, 1, sent))
            runs.append(send_loop(target, args.sends, args.threads, sent + args.sends))
            sent += 2 * args.sends
        for side in sides if r % 2 == 0 else sides[::-1]:
            topic, group = recv_topic(r)
            fill(side, topic, args.messages, args.threads)
            runs.append(receive_loop(side, topic, group, args.messages))
        line = "; ".join(f"{t.target} {t.kind} {t.rate():.0f}/s" for t in runs[-(2 * len(targets) + len(sides)) :])
        print(f"round {r + 1} of {args.rounds}: {line}", flush=True)
    return runs


def pooled(runs: list[Timed], target: str, kind: str) -> dict[str, float]:
    chosen = [t for t in runs if t.target == target and t.kind == kind]
    lat = [x for t in chosen for x in t.latencies]
    done = sum(t.done for t in chosen)
    return {
        "runs": len(chosen), "done": done, "errors": sum(len(t.errors) for t in chosen),
        "empty": sum(t.empty for t in chosen),
        "p50": percentile(lat, 50), "p99": percentile(lat, 99),
        "rate": statistics.median(t.rate() for t in chosen) if chosen else float("nan"),
        "server_cpu_us": sum(t.server_cpu for t in chosen) / done * 1e6 if done else float("nan"),
        "client_cpu_us": sum(t.client_cpu for t in chosen) / done * 1e6 if done else float("nan"),
        "server_cores": sum(t.server_cpu for t in chosen) / sum(t.wall for t in chosen) if chosen else float("nan"),
        "client_cores": sum(t.client_cpu for t in chosen) / sum(t.wall for t in chosen) if chosen else float("nan"),
    }  # fmt: skip


def rounds_tables(runs: list[Timed], threads: int) -> dict[str, dict[str, float]]:
    summary: dict[str, dict[str, float]] = {}
    rows = []
    for kind in ("send 1t", f"send {threads}t"):
        for target in SEND_TARGETS:
            s = pooled(runs, target, kind)
            if not s["runs"]:
                continue
            summary[f"{target} {kind}"] = s
            rows.append([f"{target}, {kind[5:]}", str(int(s["done"])), ms(s["p50"]), ms(s["p99"]), f"{s['rate']:.0f}",
                         f"{s['server_cpu_us']:.0f}", f"{s['server_cores']:.2f}", f"{s['client_cpu_us']:.0f}",
                         f"{s['client_cores']:.2f}", str(int(s["errors"]))])  # fmt: skip
    print_table(
        f"Sync sends of {BODY} B through the official Python client (t: threads sharing one Producer); "
        "sends/s the median of the rounds",
        ["target, threads", "sends", "p50 ms", "p99 ms", "sends/s", "servers CPU µs/send", "servers cores",
         "client CPU µs/send", "client cores", "errors"],
        rows,
    )  # fmt: skip
    rows = []
    for side in ("ours", "java"):
        s = pooled(runs, side, "receive+ack")
        if not s["runs"]:
            continue
        summary[f"{side} receive+ack"] = s
        rows.append([side, str(int(s["done"])), f"{s['rate']:.0f}", f"{s['server_cpu_us']:.0f}",
                     f"{s['server_cores']:.2f}", f"{s['client_cpu_us']:.0f}", f"{s['client_cores']:.2f}",
                     str(int(s["empty"])), str(int(s["errors"]))])  # fmt: skip
    print_table(
        f"SimpleConsumer receive (batches of {BATCH}) + one ack per message, 1 thread, a fresh group per round; "
        "messages/s the median of the rounds",
        ["side", "messages", "messages/s", "servers CPU µs/msg", "servers cores", "client CPU µs/msg",
         "client cores", "empty receives", "errors"],
        rows,
    )  # fmt: skip
    for t in (t for t in runs if t.kind == "idle"):
        summary[f"{t.target} idle"] = {"server_cores": t.server_cpu / t.wall}
    idle_line = ", ".join(f"{k[:-5]} {v['server_cores']:.3f}" for k, v in summary.items() if k.endswith(" idle"))
    print(f"\nservers' cores while idle ({IDLE_S:g} s, both clusters up, after the warm-up): {idle_line}", flush=True)
    return summary


# --- kills ------------------------------------------------------------------------------------------------------------


class Sender:
    """The failover producer (`SendLoop`): every send's start, end and whether it succeeded."""

    def __init__(self, endpoints: str) -> None:
        made = producer(endpoints, (KILL_TOPIC,))
        self._loop = SendLoop(lambda i: made.send(message(KILL_TOPIC, i)), made.shutdown, "kill-sender")

    @property
    def failures(self) -> list[str]:
        return [error[:200] for _, _, error in self._loop.sends() if error is not None]

    def snapshot(self) -> list[tuple[float, float, bool]]:
        return [(began, ended, error is None) for began, ended, error in self._loop.sends()]

    def successes_since(self, t: float, began_after: bool = False) -> int:
        return sum(ok and (s if began_after else e) > t for s, e, ok in self.snapshot())

    def stop(self) -> None:
        self._loop.stop()


@dataclass
class Kill:
    side: str
    window: float
    """longest gap between successful completions, from the last before the kill until the restart"""
    failed: int
    """sends that ended in failure between the kill and the restart"""
    elected: float
    """kill → the controller names another master (polled)"""
    first_success: float
    """kill → first success of a send begun after the kill"""
    longest_send: float
    """the longest single send() between the kill and the restart (success or not)"""
    recovery: float
    """restart → every replica in sync again"""


def wait_for(pred: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.05)


def one_kill(side: Side, sender: Sender, settle: float) -> Kill:
    side.ready_for_kill(180)
    mark = time.monotonic()
    wait_for(lambda: sender.successes_since(mark) >= 20, 60, "receipts with every replica in sync")
    kill_at = side.kill_master()
    elected = side.wait_elected(120) - kill_at
    wait_for(lambda: sender.successes_since(kill_at, began_after=True) >= 1, 180, "a success after the kill")
    time.sleep(settle)
    restart_at = time.monotonic()
    sends = [s for s in sender.snapshot() if s[1] <= restart_at]
    ends = sorted(e for _, e, ok in sends if ok)
    before = [e for e in ends if e <= kill_at]
    if not before:
        raise RuntimeError("no success before the kill")
    around = [before[-1], *(e for e in ends if e > kill_at)]
    window = max(b - a for a, b in itertools.pairwise(around))
    after = [s for s in sends if s[1] > kill_at]
    first = min(e for s, e, ok in after if ok and s > kill_at)
    side.restart_killed(300)
    return Kill(
        side=side.name, window=window, failed=sum(not ok for _, _, ok in after), elected=elected,
        first_success=first - kill_at, longest_send=max(e - s for s, e, _ in after),
        recovery=time.monotonic() - restart_at,
    )  # fmt: skip


def kill_part(side: Side, kills: int, settle: float) -> list[Kill]:
    sender = Sender(side.kill_endpoints())
    results: list[Kill] = []
    try:
        wait_for(lambda: sender.successes_since(0) >= 20, 60, "the failover producer's first receipts")
        for n in range(kills):
            results.append(one_kill(side, sender, settle))
            k = results[-1]
            print(f"{side.name}: kill {n + 1} of {kills}: window {ms(k.window)} ms, {k.failed} failed, "
                  f"elected after {ms(k.elected)} ms", flush=True)  # fmt: skip
    finally:
        sender.stop()
    for line in sender.failures[:3]:
        print(f"  {side.name} failed send: {line}")
    return results


def kill_table(kills: list[Kill]) -> dict[str, dict[str, float]]:
    summary: dict[str, dict[str, float]] = {}
    rows = []
    for side in ("ours", "java"):
        chosen = [k for k in kills if k.side == side]
        if not chosen:
            continue

        def med(pick: Callable[[Kill], float], chosen: list[Kill] = chosen) -> float:
            return statistics.median(pick(k) for k in chosen)

        s = {
            "kills": len(chosen), "window_median": med(lambda k: k.window),
            "window_max": max(k.window for k in chosen), "failed": sum(k.failed for k in chosen),
            "elected_median": med(lambda k: k.elected), "first_success_median": med(lambda k: k.first_success),
            "longest_send_max": max(k.longest_send for k in chosen), "recovery_median": med(lambda k: k.recovery),
        }  # fmt: skip
        summary[side] = s
        rows.append([side, str(len(chosen)), ms(s["window_median"]), ms(s["window_max"]), str(s["failed"]),
                     ms(s["elected_median"]), ms(s["first_success_median"]), ms(s["longest_send_max"]),
                     ms(s["recovery_median"])])  # fmt: skip
    print_table(
        f"SIGKILL of the master while the official producer sends every {SEND_PAUSE_S * 1000:.0f} ms (1 KiB), ms",
        ["side", "kills", "window median", "window max", "failed sends", "kill → new master named (median)",
         "kill → first success (median)", "longest send (max)", "restart → in sync (median)"],
        rows,
    )  # fmt: skip
    return summary


# --- main -------------------------------------------------------------------------------------------------------------


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sends", type=int, help="sends per round, target and thread count (default 2000; quick 200)")
    parser.add_argument("--threads", type=int, default=8, help="threads of the multi-threaded sends (default 8)")
    parser.add_argument("--messages", type=int, help="messages received + acked per round (default 2000; quick 200)")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 5; quick 1)")
    parser.add_argument("--warmup", type=int, help="untimed sends per target first (default 3000; quick 100)")
    parser.add_argument("--kills", type=int, help="SIGKILLs of the master per side (default 5; quick 1)")
    parser.add_argument("--settle", type=float, default=5.0, help="s the producer runs after its first success "
                        "after a kill, before the restart (default 5)")  # fmt: skip
    parser.add_argument("--skip", action="append", choices=("rounds", "kills", "forwarded"), default=[],
                        help="leave a part out (repeatable)")  # fmt: skip
    parser.add_argument("--ours-all-ack", choices=("match", "true", "false"), default="match",
                        help="ours' allAckInSyncStateSet (default: the Java master's)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="write the raw figures to this file")


def defaults(args: argparse.Namespace) -> None:
    quick = args.quick
    args.sends = args.sends or (200 if quick else 2000)
    args.messages = args.messages or (200 if quick else 2000)
    args.rounds = args.rounds or (1 if quick else 5)
    args.warmup = args.warmup if args.warmup is not None else (100 if quick else 3000)
    args.kills = args.kills if args.kills is not None else (1 if quick else 5)


@contextlib.contextmanager
def java_reference(directory: Path) -> Iterator[JavaCluster]:
    """The reference cluster in `directory`, always stopped; on a failure the tails of its JVMs' logs are printed
    (the directory is removed afterwards)."""
    cluster = JavaCluster(directory, java_cluster.classpath())
    try:
        cluster.start(timeout=300)
        yield cluster
    except BaseException:
        for log in sorted((directory / "logs").glob("*.out")):
            tail = log.read_text(errors="replace").splitlines()[-15:]
            print(f"--- tail of {log.name}\n" + "\n".join(tail), file=sys.stderr)
        raise
    finally:
        cluster.stop()


def setup(sides: list[Side], rounds: int) -> None:
    for side in sides:
        for topic in (SEND_TOPIC, KILL_TOPIC, WARM_TOPIC, *(recv_topic(r)[0] for r in range(rounds))):
            side.make_topic(topic)
        for group in (WARM_GROUP, *(recv_topic(r)[1] for r in range(rounds))):
            side.make_group(group)


def ours_config(java: dict[str, str], all_ack: str) -> dict[str, str]:
    """Ours' broker settings: the Java master's ack rule unless `all_ack` says otherwise."""
    config = {k: java[k] for k in ("allAckInSyncStateSet", "inSyncReplicas") if java.get(k, "?") != "?"}
    if all_ack != "match":
        config["allAckInSyncStateSet"] = all_ack
    return config


def ratios(rounds: dict[str, dict[str, float]], kills: dict[str, dict[str, float]], threads: int) -> dict[str, float]:
    out: dict[str, float] = {}

    def ratio(name: str, a: float | None, b: float | None) -> None:
        if a is not None and b is not None and b > 0:
            out[name] = a / b

    def get(key: str, stat: str, table: dict[str, dict[str, float]] = rounds) -> float | None:
        return table[key][stat] if key in table else None

    ratio("send_p50_ratio_ours_over_java", get("ours send 1t", "p50"), get("java send 1t", "p50"))
    ratio("send_p99_ratio_ours_over_java", get("ours send 1t", "p99"), get("java send 1t", "p99"))
    ratio("throughput_1t_ratio", get("ours send 1t", "rate"), get("java send 1t", "rate"))
    ratio("throughput_8t_ratio", get(f"ours send {threads}t", "rate"), get(f"java send {threads}t", "rate"))
    ratio("send_p50_ratio_forwarded_over_java", get("ours, forwarded send 1t", "p50"), get("java send 1t", "p50"))
    ratio("throughput_8t_ratio_forwarded", get(f"ours, forwarded send {threads}t", "rate"),
          get(f"java send {threads}t", "rate"))  # fmt: skip
    ratio("receive_ack_ratio", get("ours receive+ack", "rate"), get("java receive+ack", "rate"))
    ratio("kill_window_ratio", get("ours", "window_median", kills), get("java", "window_median", kills))
    return out


def finite(value: Any) -> Any:
    """`value` with every NaN as None: strict JSON (a receive has no latency percentiles)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value


def interrupted(*_: object) -> None:
    """SIGTERM as Ctrl-C: every context manager below stops what it started."""
    raise KeyboardInterrupt


def send_and_receive(ours: Ours, java: Java, args: argparse.Namespace) -> list[Timed]:
    """The interleaved rounds, on producers made here and shut down however they end."""
    ours.master_on_client_host()
    targets = [Target("ours", ours, producer(ours.endpoints(), (SEND_TOPIC,)))]
    if "forwarded" not in args.skip:
        targets.append(Target("ours, forwarded", ours, producer(ours.forwarded_endpoint(), (SEND_TOPIC,))))
    targets.append(Target("java", java, producer(java.endpoints(), (SEND_TOPIC,))))
    try:
        warm_up(targets, [ours, java], args.warmup, args.threads)
        return rounds_part(targets, [ours, java], args)
    finally:
        for t in targets:
            t.producer.shutdown()


def begin(
    doc: str | None,
    add_options: Callable[[argparse.ArgumentParser], None],
    set_defaults: Callable[[argparse.Namespace], None],
) -> tuple[argparse.Namespace, dict[str, Any]]:
    """The options with their defaults, SIGTERM as Ctrl-C, and the raw figures' first entries (the machine before)."""
    args = parse_args(doc, add_options)
    set_defaults(args)
    signal.signal(signal.SIGTERM, interrupted)
    print(f"machine: {machine_note()}", flush=True)
    return args, {"args": {k: str(v) for k, v in vars(args).items()}, "machine_before": machine_note()}  # fmt: skip


def start_java(stack: contextlib.ExitStack) -> Java:
    """The Java reference in a temporary directory, both left to `stack` to stop and remove."""
    workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mqbench-java-")))
    began = time.monotonic()
    java = Java(stack.enter_context(java_reference(workdir / "java")))
    print(f"java {java_cluster.version()}: started in {time.monotonic() - began:.0f} s", flush=True)
    return java


def finish(
    args: argparse.Namespace, raw: dict[str, Any], settings: dict[str, dict[str, str]], headline: dict[str, float]
) -> None:
    """The raw figures to ``--json``, then the machine after, the settings, and the headline ratios as last lines."""
    raw.update(machine_after=machine_note(), java_version=java_cluster.version(), settings=settings,
               ratios=headline)  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(finite(raw), indent=1) + "\n")
    print(f"\nmachine after: {machine_note()}")
    print(f"java: RocketMQ {java_cluster.version()}; settings: {settings}")
    for name, value in headline.items():
        print(f"{name}: {value:.2f}")


def main() -> None:
    args, raw = begin(__doc__, options, defaults)
    kills: list[Kill] = []
    runs: list[Timed] = []
    rounds_summary: dict[str, dict[str, float]] = {}
    with contextlib.ExitStack() as stack:
        java = start_java(stack)
        raw["settings"] = {"java": java.settings()}
        broker_config = ours_config(raw["settings"]["java"], args.ours_all_ack)
        with contextlib.ExitStack() as ours_stack:  # ours is down before the Java kills
            sb = ours_stack.enter_context(sandbox(controllers=1, broker_sets=1, replicas=3,
                                                  broker_config=broker_config))  # fmt: skip
            sb.wait_for_brokers(timeout=120.0)
            ours = Ours(sb, broker_config)
            ours_stack.callback(ours.close)
            setup([ours, java], args.rounds)
            raw["settings"]["ours"] = ours.settings()
            for side in (ours, java):
                print(f"{side.name} settings: {raw['settings'][side.name]}", flush=True)
            if "rounds" not in args.skip:
                runs = send_and_receive(ours, java, args)
                rounds_summary = rounds_tables(runs, args.threads)
            if "kills" not in args.skip and args.kills:
                kills += kill_part(ours, args.kills, args.settle)
        if "kills" not in args.skip and args.kills:
            kills += kill_part(java, args.kills, args.settle)
    kills_summary = kill_table(kills) if kills else {}
    headline = ratios(rounds_summary, kills_summary, args.threads)
    raw.update(rounds=[asdict(t) for t in runs], kills=[asdict(k) for k in kills],
               summary={"rounds": rounds_summary, "kills": kills_summary})  # fmt: skip
    finish(args, raw, raw["settings"], headline)


if __name__ == "__main__":
    main()
