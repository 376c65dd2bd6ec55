"""Transactional messages, ours against the real Java RocketMQ 5 in the same run, through the same official client:
what a transaction costs a producer over a plain send, and how late an open transaction is checked back.

The two clusters of bench/vs_java.py, both up (its `Java` and `Ours` sides, `java_reference` and `ours_config`):
Java's ``tests/harness/java_cluster.py`` (namesrv with the controller embedded, 2 brokers, a proxy in cluster
mode; the client is given the proxy), and a sandbox of 1 controller and one broker set of 3 replicas on 3 agents
with the Java master's ack rule (the client is given every access point, the master moved onto the first). The
check-back settings are the same on both: ``transactionTimeOut`` and ``transactionCheckInterval`` (default 1000 ms
each, ``--timeout-ms``, ``--check-interval-ms``) in ours' broker config at start, and on every Java broker through
``mqadmin updateBrokerConfig`` once it is up (Java's check service reads its interval once per turn, so the new
one applies after the turn under way, up to its default 30 s); each side's master reports them back.

The client is ``rocketmq-python-client`` 5.1.2, unmodified, in this process: one ``Producer`` per side, with a
``TransactionChecker``, for a NORMAL and a TRANSACTION topic of 8 queues; bodies are 1 KiB. Per round (R, default
3; --quick: 1), the sides' order alternating, after an untimed warm-up (W plain and W transactional sends, default
200; --quick: 20, and one check-back, which waits for Java's new interval):

* from 1 thread, N plain sync sends (default 500; --quick: 50), then N transactions, each ``begin_transaction``,
  ``send(message, transaction)`` and ``commit()``, timed from the first to the return of the last, and split
  into the half send and the commit: p50/p99 as the caller sees them, operations/s, CPU per operation of each
  side's server processes and of this process;
* P probes (default 20; --quick: 3), one every 0.3 s: a transactional send never ended. The checker notes when
  the client invokes it for each (and answers ROLLBACK, so each is checked once); the check-back's delay is from
  the send's return to that call, reported less ``transactionTimeOut``: the extra delay the check pass adds.
  A check-back of a transaction that was being committed (the check overtook the commit) is answered COMMIT and
  counted.

Prints the tables and, last, ``name: value`` per headline ratio (transactional / plain per side, and ours / Java).
``--json FILE`` writes the raw figures. The Java JVMs take 20 s to start on a quiet machine and 2-4 min under
load; the full run takes ~10 min. Everything started is stopped by pid on exit, also on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from _common import ms, percentile, print_table, sandbox
from _vs_java_sides import Java, Ours, Side
from rocketmq import Message, Producer, TransactionChecker, TransactionResolution  # noqa: TID251
from vs_java import Timed, begin, finish, measured, message, ours_config, pooled, producer, start_java

PLAIN_TOPIC, TX_TOPIC = "TxBenchPlain", "TxBenchTx"
CHECK_KEYS = ("transactionTimeOut", "transactionCheckInterval", "transactionCheckMax")
PROBE_GAP_S = 0.3
"""The pause between probes: not a divisor of the check interval, so the sends fall on every phase of its pass."""
LOOP_S = 300.0
"""Every timed loop stops after this long, whatever it still lacks."""
WARM_CHECK_S = 120.0
"""How long the warm-up waits for its check-back: Java's check service applies a new interval after its turn."""
TX_STEPS = ("half send", "commit")


class Checker(TransactionChecker):  # type: ignore[misc]
    """Answers every check-back: ROLLBACK for a probe, noting when the client asked (the first time); COMMIT for
    any other message (a transaction whose commit the check overtook), counted."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.probes: set[str] = set()
        self.asked: dict[str, float] = {}
        self.overtaken = 0

    def expect(self, message_id: str) -> None:
        with self.lock:
            self.probes.add(message_id)

    def check(self, message: Message) -> TransactionResolution:
        at = time.monotonic()
        with self.lock:
            if message.message_id in self.probes:
                self.asked.setdefault(message.message_id, at)
                return TransactionResolution.ROLLBACK
            self.overtaken += 1
        return TransactionResolution.COMMIT


@dataclass
class Client:
    """A side and the one producer (with its checker) that sends to it."""

    side: Side
    producer: Producer
    checker: Checker


@dataclass
class Probes:
    """One round's probes on one side: each send's return → its check-back, s (None: not checked back in time)."""

    side: str
    delays: list[float | None] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


# --- the operations ---------------------------------------------------------------------------------------------


def plain_send(p: Producer, i: int) -> tuple[float, ...]:
    began = time.perf_counter()
    p.send(message(PLAIN_TOPIC, i))
    return began, time.perf_counter()


def tx_send(p: Producer, i: int) -> tuple[float, ...]:
    """begin, half send, commit: the start and the end of each step."""
    began = time.perf_counter()
    transaction = p.begin_transaction()
    p.send(message(TX_TOPIC, i), transaction)
    sent = time.perf_counter()
    transaction.commit()
    return began, sent, time.perf_counter()


def loop(client: Client, kind: str, count: int, first: int, op: Callable[[Producer, int], tuple[float, ...]],
         steps: tuple[str, ...] = ()) -> list[Timed]:  # fmt: skip
    """`count` operations one at a time: a `Timed` of the whole (with CPU) and one per step of `steps` (latencies
    only)."""
    stamps: list[tuple[float, ...]] = []

    def run(out: Timed) -> None:
        deadline = time.monotonic() + LOOP_S
        for i in range(count):
            if time.monotonic() >= deadline:
                break
            try:
                stamps.append(op(client.producer, first + i))
            except Exception as exc:  # a failure is a figure of the run, not a crash of it
                out.errors.append(f"{type(exc).__name__}: {exc}"[:200])
        out.latencies = [s[-1] - s[0] for s in stamps]
        out.done = len(stamps)

    whole = measured(client.side.name, kind, client.side, run)
    parts = [Timed(whole.target, f"{kind}: {step}", done=whole.done, wall=whole.wall,
                   latencies=[s[k + 1] - s[k] for s in stamps]) for k, step in enumerate(steps)]  # fmt: skip
    return [whole, *parts]


def probe(client: Client, count: int, first: int, wait: float) -> Probes:
    """`count` transactional sends never ended, one every `PROBE_GAP_S`; then up to `wait` s for their
    check-backs."""
    out = Probes(client.side.name)
    sent: dict[str, float] = {}
    for i in range(count):
        try:
            receipt = client.producer.send(message(TX_TOPIC, first + i), client.producer.begin_transaction())
        except Exception as exc:
            out.errors.append(f"{type(exc).__name__}: {exc}"[:200])
            continue
        returned = time.monotonic()
        client.checker.expect(receipt.message_id)
        sent[receipt.message_id] = returned
        time.sleep(PROBE_GAP_S)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and not all(m in client.checker.asked for m in sent):
        time.sleep(0.05)
    with client.checker.lock:
        out.delays = [client.checker.asked[m] - at if m in client.checker.asked else None for m, at in sent.items()]
    return out


# --- the run ------------------------------------------------------------------------------------------------------


def warm_up(clients: list[Client], count: int) -> None:
    """Untimed: channels, routes, the client's settings, the JVMs' JIT, and one check-back per side."""
    for c in clients:
        loop(c, "plain", count, 0, plain_send)
        loop(c, "tx", count, 0, tx_send)
        began = time.monotonic()
        p = probe(c, 1, 0, WARM_CHECK_S)
        if not p.delays or p.delays[0] is None:
            raise RuntimeError(f"{c.side.name}: no check-back within {WARM_CHECK_S:g} s ({p.errors})")
        print(f"{c.side.name}: warm-up done, its check-back after {time.monotonic() - began:.1f} s", flush=True)


def rounds(clients: list[Client], args: argparse.Namespace) -> tuple[list[Timed], list[Probes]]:
    runs: list[Timed] = []
    probes: list[Probes] = []
    first = args.warmup
    wait = 3 * args.check_interval_ms / 1000 + args.timeout_ms / 1000 + 30
    for r in range(args.rounds):
        order = clients if r % 2 == 0 else clients[::-1]
        for c in order:
            runs += loop(c, "plain", args.sends, first, plain_send)
            runs += loop(c, "tx", args.sends, first, tx_send, TX_STEPS)
            first += args.sends
        for c in order:
            probes.append(probe(c, args.probes, first, wait))
            first += args.probes
        line = "; ".join(
            f"{t.target} {t.kind} {t.rate():.0f}/s" for t in runs[-len(clients) * 4 :] if ":" not in t.kind
        )
        print(f"round {r + 1} of {args.rounds}: {line}", flush=True)
    return runs, probes


def send_table(runs: list[Timed], clients: list[Client]) -> dict[str, dict[str, float]]:
    summary: dict[str, dict[str, float]] = {}
    rows = []
    for c in clients:
        for kind in ("plain", "tx", *(f"tx: {s}" for s in TX_STEPS)):
            s = pooled(runs, c.side.name, kind)
            summary[f"{c.side.name} {kind}"] = s
            whole = ":" not in kind
            label = {"plain": "plain send", "tx": "send + commit"}.get(kind, f"  of which {kind[4:]}")
            rows.append([c.side.name, label,
                         str(int(s["done"])), ms(s["p50"]), ms(s["p99"]), f"{s['rate']:.0f}" if whole else "-",
                         f"{s['server_cpu_us']:.0f}" if whole else "-", f"{s['client_cpu_us']:.0f}" if whole else "-",
                         str(int(s["errors"]))])  # fmt: skip
    print_table(
        "Sync sends of 1 KiB from 1 thread through the official Python client: plain, and a transaction (half send +"
        " commit); ops/s the median of the rounds",
        ["side", "operation", "ops", "p50 ms", "p99 ms", "ops/s", "servers CPU µs/op", "client CPU µs/op", "errors"],
        rows,
    )  # fmt: skip
    return summary


def probe_table(probes: list[Probes], clients: list[Client], settings: dict[str, dict[str, str]],
                timeout_ms: int) -> dict[str, dict[str, float]]:  # fmt: skip
    summary: dict[str, dict[str, float]] = {}
    rows = []
    for c in clients:
        chosen = [p for p in probes if p.side == c.side.name]
        all_delays = [d for p in chosen for d in p.delays]
        delays = [d for d in all_delays if d is not None]
        extra = [d - timeout_ms / 1000 for d in delays]
        s = {
            "probes": len(all_delays), "checked": len(delays), "errors": sum(len(p.errors) for p in chosen),
            "p50": percentile(delays, 50), "max": max(delays, default=float("nan")),
            "extra_p50": percentile(extra, 50), "extra_p90": percentile(extra, 90),
            "extra_min": min(extra, default=float("nan")), "extra_max": max(extra, default=float("nan")),
            "overtaken": c.checker.overtaken,
        }  # fmt: skip
        summary[c.side.name] = s
        got = settings[c.side.name]
        rows.append([c.side.name, got.get("transactionTimeOut", "?"), got.get("transactionCheckInterval", "?"),
                     str(s["probes"]), str(s["checked"]), ms(s["p50"]), ms(s["max"]), ms(s["extra_min"]),
                     ms(s["extra_p50"]), ms(s["extra_p90"]), ms(s["extra_max"]), str(s["overtaken"]),
                     str(s["errors"])])  # fmt: skip
    print_table(
        "Check-back of a transaction never ended: from the send's return to the client's TransactionChecker call; "
        f"extra = that less transactionTimeOut ({timeout_ms} ms)",
        ["side", "transactionTimeOut", "transactionCheckInterval", "probes", "checked back", "p50 ms", "max ms",
         "extra min ms", "extra p50 ms", "extra p90 ms", "extra max ms", "commits overtaken", "send errors"],
        rows,
    )  # fmt: skip
    return summary


def ratios(sends: dict[str, dict[str, float]], checks: dict[str, dict[str, float]]) -> dict[str, float]:
    out: dict[str, float] = {}

    def ratio(name: str, a: float, b: float) -> None:
        if b > 0 and a == a:  # a NaN (nothing measured) gives no ratio
            out[name] = a / b

    for side in ("ours", "java"):
        ratio(f"tx_over_plain_p50_{side}", sends[f"{side} tx"]["p50"], sends[f"{side} plain"]["p50"])
        ratio(f"tx_over_plain_p99_{side}", sends[f"{side} tx"]["p99"], sends[f"{side} plain"]["p99"])
        ratio(f"tx_over_plain_throughput_{side}", sends[f"{side} tx"]["rate"], sends[f"{side} plain"]["rate"])
    ratio("plain_p50_ratio_ours_over_java", sends["ours plain"]["p50"], sends["java plain"]["p50"])
    ratio("tx_p50_ratio_ours_over_java", sends["ours tx"]["p50"], sends["java tx"]["p50"])
    ratio("tx_p99_ratio_ours_over_java", sends["ours tx"]["p99"], sends["java tx"]["p99"])
    ratio("tx_throughput_ratio_ours_over_java", sends["ours tx"]["rate"], sends["java tx"]["rate"])
    ratio("commit_p50_ratio_ours_over_java", sends["ours tx: commit"]["p50"], sends["java tx: commit"]["p50"])
    ratio("checkback_p50_ratio_ours_over_java", checks["ours"]["p50"], checks["java"]["p50"])
    ratio("checkback_extra_p50_ratio_ours_over_java", checks["ours"]["extra_p50"], checks["java"]["extra_p50"])
    return out


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sends", type=int, help="plain sends, and transactions, per round and side (default 500; "
                        "quick 50)")  # fmt: skip
    parser.add_argument("--probes", type=int, help="transactions left open per round and side (default 20; quick 3)")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 3; quick 1)")
    parser.add_argument("--warmup", type=int, help="untimed plain sends and transactions per side first (default 200;"
                        " quick 20)")  # fmt: skip
    parser.add_argument("--timeout-ms", type=int, default=1000, help="transactionTimeOut on both (default 1000)")
    parser.add_argument("--check-interval-ms", type=int, default=1000,
                        help="transactionCheckInterval on both (default 1000)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="write the raw figures to this file")


def defaults(args: argparse.Namespace) -> None:
    quick = args.quick
    args.sends = args.sends or (50 if quick else 500)
    args.probes = args.probes or (3 if quick else 20)
    args.rounds = args.rounds or (1 if quick else 3)
    args.warmup = args.warmup if args.warmup is not None else (20 if quick else 200)


def measure(ours: Ours, java: Java, args: argparse.Namespace) -> tuple[list[Client], list[Timed], list[Probes]]:
    """The warm-up and the rounds, on producers made here and shut down however they end."""
    ours.master_on_client_host()
    clients: list[Client] = []
    try:
        for side in (ours, java):
            checker = Checker()
            clients.append(Client(side, producer(side.endpoints(), (PLAIN_TOPIC, TX_TOPIC), checker), checker))
        warm_up(clients, args.warmup)
        runs, probes = rounds(clients, args)
        return clients, runs, probes
    finally:
        for c in clients:
            c.producer.shutdown()


def main() -> None:
    args, raw = begin(__doc__, options, defaults)
    checks = {"transactionTimeOut": str(args.timeout_ms), "transactionCheckInterval": str(args.check_interval_ms)}
    with contextlib.ExitStack() as stack:
        java = start_java(stack)
        java.configure(checks)
        broker_config = {**ours_config(java.settings(), "match"), **checks}
        sb = stack.enter_context(sandbox(controllers=1, broker_sets=1, replicas=3, broker_config=broker_config))
        sb.wait_for_brokers(timeout=120.0)
        ours = Ours(sb, broker_config)
        stack.callback(ours.close)
        settings: dict[str, dict[str, str]] = {}
        for side in (ours, java):
            side.make_topic(PLAIN_TOPIC)
            side.make_topic(TX_TOPIC, "TRANSACTION")
            settings[side.name] = {**side.settings(), **side.settings(CHECK_KEYS)}
            print(f"{side.name} settings: {settings[side.name]}", flush=True)
        clients, runs, probes = measure(ours, java, args)
    sends = send_table(runs, clients)
    checked = probe_table(probes, clients, settings, args.timeout_ms)
    headline = ratios(sends, checked)
    raw.update(runs=[asdict(t) for t in runs], probes=[asdict(p) for p in probes],
               summary={"sends": sends, "checks": checked})  # fmt: skip
    finish(args, raw, settings, headline)


if __name__ == "__main__":
    main()
