"""Graceful master transfer against crash failover, as a producer sees it (3 controllers, 3 real agents).

The cluster is agent_failover.py's: 3 controller processes, 3 agent processes (`mqagent`) hosting one
broker set with allAckInSyncStateSet=true and 200 ms broker heartbeats. A producer thread sends one small message
at a time (5 ms pause between acks). Each send has a deadline (--send-deadline-ms, 3 s like Java's
sendMsgTimeout) and retries until then: SLAVE_NOT_AVAILABLE (11) and SERVICE_NOT_AVAILABLE (14, which includes
MASTER_TRANSFERRING) by following the broker's `master_address` hint, or by asking every agent who is master
(GetHAStatus) when there is no usable hint; a transport error (dead or hung broker, per-attempt timeout
--send-timeout-ms) by asking every agent. Hints are ranked by the answering broker's master epoch, and in the
same epoch MASTER_TRANSFERRING's hint (the target) beats the target's own "I am a slave, ask the old master":
the producer retries the target every 5 ms until it is master instead of bouncing between the two brokers (a
lower-ranked hint is followed again 0.2 s after the best one was last confirmed, e.g. after an aborted
transfer). A send that is not acknowledged by its deadline, or that gets any other code, is a failed send.

Before each run all three replicas are in the SyncStateSet (controller and master agree) and the producer has
acks in that state. Transfer runs (--runs, default 20) call ControllerService.TransferMaster for one of the
in-sync slaves, each broker in turn (1 → 2 → 3 → 1); crash runs (--crash-runs, default 5) SIGKILL the master
agent and restart it afterwards, exactly as agent_failover.py does (its run code is imported). In both the
window is from the producer's last ack in the old master epoch to its first ack in a newer one
(time.monotonic in this process). Transfer runs also record the controller-reported writes_paused_millis, the
RPC's duration, the producer's first MASTER_TRANSFERRING answer and, from a 10 ms poll of the target's
GetHAStatus, when the target said master. Exits 1 if any send failed or a transfer did not complete; timing is
reported, not asserted.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from _common import ControllerClient, grpc, machine_note, ms, percentile, print_table, sandbox
from _common import pb as cpb
from agent_failover import (
    PAUSE_S,
    POLL_S,
    REF,
    Producer,
    Run,
    finish,
    master,
    one_run,
    start_agents,
    sync_state,
    wait_all_in_sync,
)

from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as apb
from tests.harness.agents import BROKER, FAST, AgentProcess
from tests.harness.controllers import CONTROLLER_CONFIG
from tests.harness.wait import wait_until

RETRIABLE = frozenset({ResponseCode.SLAVE_NOT_AVAILABLE, ResponseCode.SERVICE_NOT_AVAILABLE})
TRANSFERRING = "MASTER_TRANSFERRING"
RETRY_S = 0.005
"""Pause before retrying a broker that refused (the hint pointed nowhere new)."""
STICKY_S = 0.2
"""How long the best-ranked hint of a send outranks lower-ranked ones since it was last confirmed."""
TARGET_P99_S = 0.2
CLUSTER = "E2ECluster"
TOPIC = "Transfer"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: 3 transfer runs, 1 crash run")
    parser.add_argument("--runs", type=int, default=20, help="graceful transfers (default 20)")
    parser.add_argument("--crash-runs", type=int, default=5, help="SIGKILL failovers afterwards (default 5; 0: none)")
    parser.add_argument("--transfer-timeout-ms", type=int, default=3000,
                        help="TransferMasterRequest.timeout_millis: the longest pause (default 3000)")  # fmt: skip
    parser.add_argument("--send-timeout-ms", type=int, default=500, help="one send attempt's RPC timeout")
    parser.add_argument("--send-deadline-ms", type=int, default=3000, help="a send's deadline over all retries")
    parser.add_argument("--keep", action="store_true", help="keep the agents' directory (agent.log files)")
    return parser.parse_args()


@dataclass(frozen=True)
class Failed:
    """A send that was not acknowledged: when it started and ended, in which phase, and the last answer."""

    started: float
    ended: float
    phase: str
    attempts: int
    last: str


class RetryingProducer(Producer):
    """agent_failover's producer, but each message is retried until acknowledged or its deadline passes.

    Also records refusals (monotonic time, status) and failed sends; `phase` tags failures by what was running.
    """

    def __init__(self, agents: Sequence[AgentProcess], send_timeout_s: float, deadline_s: float) -> None:
        self.deadline_s = deadline_s
        self.phase = "setup"
        self.refusals: list[tuple[float, str, str]] = []  # (time, status, agent name)
        self.failed: list[Failed] = []
        self.retried_sends = 0  # acknowledged sends that needed more than one attempt
        self.put_s: dict[float, float] = {}  # ack time → how long the acknowledged attempt took
        self._by_address = {f"127.0.0.1:{a.broker_ports[BROKER]}": a for a in agents}
        super().__init__(agents, send_timeout_s)  # starts the thread: every field above must exist by now

    def _run(self) -> None:
        target: AgentProcess | None = None
        i = 0
        while not self._stop.is_set():
            message = apb.Message(topic=TOPIC, queue_id=i % 2, body=f"m-{i:07d}".encode())
            target = self._send(target, message)
            i += 1
            self._stop.wait(PAUSE_S)

    def _send(self, target: AgentProcess | None, message: apb.Message) -> AgentProcess | None:
        """One message until acknowledged or the deadline; returns where to send the next one."""
        started = time.monotonic()
        deadline = started + self.deadline_s
        phase = self.phase
        request = apb.SendMessageRequest(broker=REF, message=message)
        attempts, last = 0, "no master found"
        best: tuple[tuple[int, bool], AgentProcess, float] | None = None  # the hint to trust: rank, where, when
        while not self._stop.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            target = target or self._discover()
            if target is None:
                self._stop.wait(POLL_S)
                continue
            attempts += 1
            sent = time.monotonic()
            try:
                response = target.stub(BROKER).SendMessage(request, timeout=min(self.send_timeout_s, remaining))
            except grpc.RpcError as exc:
                last, target = f"{target.name}: {exc.code()}", None
                continue
            now = time.monotonic()
            if response.code == ResponseCode.SUCCESS:
                self.acks.append((now, response.master_epoch))
                self.put_s[now] = now - sent
                self.retried_sends += attempts > 1
                return target
            last = f"{target.name}: code {response.code} {response.status}"
            self.refusals.append((now, response.status or str(response.code), target.name))
            if response.code not in RETRIABLE:
                break
            hinted = self._by_address.get(response.master_address)
            if hinted is not None:
                # A hint from a newer epoch wins; in the same epoch MASTER_TRANSFERRING's wins over the target's
                # own "ask the old master" (it is still a slave), which would only bounce back and forth.
                rank = (response.master_epoch, response.status == TRANSFERRING)
                if best is None or rank >= best[0] or now - best[2] > STICKY_S:
                    best = (rank, hinted, now)
                hinted = best[1]
            if hinted is not None and hinted is not target:
                target = hinted  # follow the hint at once
            else:
                self._stop.wait(RETRY_S)
                target = hinted  # None: ask every agent
        if not self._stop.is_set():
            self.failed.append(Failed(started, time.monotonic(), phase, attempts, last))
        return None


@dataclass
class TransferRun:
    """Monotonic times of one graceful transfer, and what the controller reported."""

    target_id: int
    rpc_sent: float
    old_epoch: int
    rpc_done: float = float("nan")
    last_ack: float = float("nan")
    first_refusal: float = float("nan")  # the producer's first MASTER_TRANSFERRING
    role: float = float("nan")  # the target's GetHAStatus says master in a newer epoch (10 ms poll)
    first_ack: float = float("nan")
    first_put: float = float("nan")  # how long the first acknowledged attempt in the new epoch took
    state: str = ""
    paused_ms: int = 0  # writes_paused_millis, as the controller reported it
    refused: dict[str, int] = field(default_factory=dict)  # the producer's refusals in the window, by status
    notes: list[str] = field(default_factory=list)

    @property
    def window(self) -> float:
        return self.first_ack - self.last_ack

    def line(self) -> str:
        names = ("last_ack", "first_refusal", "rpc_done", "role", "first_ack")
        since = ", ".join(f"{name} {ms(getattr(self, name) - self.rpc_sent)}" for name in names)
        since += f" (its put {ms(self.first_put)})"
        refused = ", ".join(f"{k} ×{n}" for k, n in sorted(self.refused.items())) or "none"
        return (f"window {ms(self.window)} ms, writes paused {self.paused_ms} ms (controller), to broker "
                f"{self.target_id}: {self.state}; since the RPC was sent: {since} ms; refused: {refused}")  # fmt: skip


def watch_role(agent: AgentProcess, old_epoch: int, run: TransferRun, stop: threading.Event) -> None:
    """Poll the target every 10 ms until it says master in a newer epoch."""
    deadline = time.monotonic() + 30
    while not stop.is_set() and time.monotonic() < deadline:
        try:
            status = agent.ha_status(BROKER)
        except grpc.RpcError:
            status = None
        if status is not None and status.role == "master" and status.master_epoch > old_epoch:
            run.role = time.monotonic()
            return
        stop.wait(POLL_S)


def transfer_run(
    client: ControllerClient, transfers: ControllerClient, agents: list[AgentProcess],
    producer: RetryingProducer, timeout_ms: int,
) -> TransferRun:  # fmt: skip
    old, status = master(agents)
    info = sync_state(client)
    slaves = sorted(r.broker_id for r in info.in_sync_replicas if r.alive and r.broker_id != status.broker_id)
    target_id = next((b for b in slaves if b > status.broker_id), slaves[0])  # 1 → 2 → 3 → 1: every one in turn
    target = next(a for a in agents if a is not old and a.ha_status(BROKER).broker_id == target_id)
    run = TransferRun(target_id, rpc_sent=float("nan"), old_epoch=status.master_epoch)
    stop = threading.Event()
    watcher = threading.Thread(target=watch_role, args=(target, run.old_epoch, run, stop), daemon=True)
    watcher.start()
    request = cpb.TransferMasterRequest(cluster_name=CLUSTER, broker_name=BROKER, broker_id=target_id,
                                        timeout_millis=timeout_ms)  # fmt: skip
    run.rpc_sent = time.monotonic()
    response = transfers.call("TransferMaster", request)
    run.rpc_done = time.monotonic()
    record = response.transfer if response.HasField("transfer") else None
    run.state = record.state if record is not None else f"no record (code {response.code})"
    if record is not None:
        run.paused_ms = record.writes_paused_millis
    if response.code != ResponseCode.SUCCESS or run.state != "done":
        run.notes.append(f"transfer {run.state}: code {response.code} {response.remark}")
    try:
        wait_until(lambda: any(e > run.old_epoch for _, e in producer.acks_since(run.rpc_sent)), 30,
                 "an ack in a new epoch", interval=POLL_S)  # fmt: skip
    except AssertionError as exc:
        run.notes.append(str(exc))
    watcher.join(1.0)
    stop.set()
    acks = list(producer.acks)
    run.last_ack = max((t for t, e in acks if e <= run.old_epoch), default=float("nan"))
    run.first_ack = min((t for t, e in acks if e > run.old_epoch), default=float("nan"))
    refusals = [(t, s, a) for t, s, a in list(producer.refusals) if run.rpc_sent < t < run.first_ack]
    run.first_refusal = min((t for t, s, _ in refusals if s == TRANSFERRING), default=float("nan"))
    for _, s, a in refusals:
        who = f"{s} from the {'old master' if a == old.name else 'target' if a == target.name else a}"
        run.refused[who] = run.refused.get(who, 0) + 1
    run.role = min(run.role, run.first_ack)  # a later observation is poll lag
    run.first_put = producer.put_s.get(run.first_ack, float("nan"))
    return run


def stats(values: Sequence[float]) -> list[str]:
    xs = [v for v in values if not math.isnan(v)]
    if not xs:
        return ["0", "-", "-", "-", "-"]
    return [str(len(xs)), *(ms(percentile(xs, q)) for q in (50, 90, 99)), ms(max(xs))]


def report(transfers: list[TransferRun], crashes: list[Run], producer: RetryingProducer) -> int:
    """Print the tables; the number of failed sends plus transfers that did not complete."""

    def gap(runs: Sequence[object], a: str, b: str) -> list[float]:
        """b - a per run, signed; nan where either was not seen."""
        return [getattr(r, b) - getattr(r, a) for r in runs]

    def since_rpc(b: str) -> list[str]:
        return stats(gap(transfers, "rpc_sent", b))

    transfer_windows = [w for r in transfers if not math.isnan(w := r.window)]
    crash_windows = [w for r in crashes if not math.isnan(w := r.first_ack - r.last_ack)]
    print_table(
        "Write unavailability seen by the producer: ms",
        ["measure", "runs", "p50", "p90", "p99", "max"],
        [
            ["graceful transfer: window, last ack (old epoch) → first ack (new epoch)", *stats(transfer_windows)],
            ["  RPC sent → last ack in the old epoch (< 0: before the RPC)", *since_rpc("last_ack")],
            ["  RPC sent → first MASTER_TRANSFERRING (runs that saw one)", *since_rpc("first_refusal")],
            ["  RPC sent → RPC returned (TransferMaster duration)", *since_rpc("rpc_done")],
            ["  RPC sent → target says master (10 ms poll)", *since_rpc("role")],
            ["  RPC sent → first ack in the new epoch", *since_rpc("first_ack")],
            ["  target says master → first ack", *stats(gap(transfers, "role", "first_ack"))],
            ["  the first ack's own put on the new master", *stats([r.first_put for r in transfers])],
            ["  writes_paused_millis (controller-reported)", *stats([r.paused_ms / 1000 for r in transfers])],
            ["crash failover (SIGKILL): window, last ack (old epoch) → first ack (new epoch)", *stats(crash_windows)],
            ["  fault → first ack", *stats(gap(crashes, "fault", "first_ack"))],
        ],
    )
    phases = {"transfer": "graceful transfer", "crash": "crash failover (SIGKILL)", "setup": "setup / recovery"}
    rows = []
    for phase, name in phases.items():
        failed = [f for f in producer.failed if f.phase == phase]
        rows.append([name, str(len(failed)), "; ".join(f"{f.last} after {f.attempts} attempts" for f in failed[:3])])
    print_table("Failed sends (not acknowledged by the deadline, or refused with a non-retriable code)",
                ["phase", "failed sends", "examples"], rows)  # fmt: skip
    transfers_ok = [r for r in transfers if r.state == "done" and not math.isnan(r.window)]
    transfer_p50, crash_p50 = percentile(transfer_windows, 50), percentile(crash_windows, 50)
    tp99 = percentile(transfer_windows, 99)
    met = "yes" if tp99 < TARGET_P99_S and len(transfers_ok) == len(transfers) else "NO"
    print(f"\ntransfers done: {len(transfers_ok)}/{len(transfers)}; sends acknowledged: {len(producer.acks)}, of "
          f"which {producer.retried_sends} after retries; refusals: {len(producer.refusals)}")  # fmt: skip
    print(f"ratio crash p50 / transfer p50: {crash_p50 / transfer_p50:.2f}" if crashes and transfers else "ratio: -")
    print(f"target: transfer window p99 < {ms(TARGET_P99_S)} ms: p99 {ms(tp99)} ms: {met}; "
          f"failed sends: {len(producer.failed)}")  # fmt: skip
    for i, r in enumerate(transfers):
        if r.notes:
            print(f"  transfer run {i + 1}: {'; '.join(r.notes)}")
    for i, c in enumerate(crashes):
        if c.notes:
            print(f"  crash run {i + 1}: {'; '.join(c.notes)}")
    for f in producer.failed:
        print(f"  failed send ({f.phase}), {ms(f.ended - f.started)} ms, {f.attempts} attempts: {f.last}")
    return len(producer.failed) + len(transfers) - len(transfers_ok)


def main() -> int:
    args = parse_args()
    runs, crash_runs = (3, 1) if args.quick else (args.runs, args.crash_runs)
    config = dict(FAST)
    transfers: list[TransferRun] = []
    crashes: list[Run] = []
    directory = Path(tempfile.mkdtemp(prefix="mqbench-transfer-"))
    print(f"machine at the start: {machine_note()}", flush=True)
    with sandbox(3, extra_config=dict(CONTROLLER_CONFIG)) as sb:
        addresses = sb.addresses()
        agents = [AgentProcess(directory, f"agent{i}", addresses, {BROKER: dict(config)}) for i in range(3)]
        producer: RetryingProducer | None = None
        try:
            rpc_timeout = args.transfer_timeout_ms / 1000 + 10
            with ControllerClient(addresses, timeout=1.0) as client, ControllerClient(addresses, rpc_timeout) as tc:
                start_agents(agents, TOPIC)
                producer = RetryingProducer(agents, args.send_timeout_ms / 1000, args.send_deadline_ms / 1000)
                for i in range(runs):
                    wait_all_in_sync(client, agents, producer)
                    producer.phase = "transfer"
                    t = transfer_run(client, tc, agents, producer, args.transfer_timeout_ms)
                    producer.phase = "setup"
                    transfers.append(t)
                    print(f"  transfer run {i + 1}: {t.line()}", flush=True)
                wait_all_in_sync(client, agents, producer)
                for i in range(crash_runs):
                    producer.phase = "crash"
                    c = one_run("kill", client, agents, producer)  # ends with all three in the SyncStateSet
                    producer.phase = "setup"
                    crashes.append(c)
                    print(f"  crash run {i + 1}: {c.line()}", flush=True)
        finally:
            logs, agent_logs = finish(sb, agents, producer, directory, keep=args.keep)
    assert producer is not None
    controllers = ", ".join(f"{k}={v}" for k, v in CONTROLLER_CONFIG.items())
    broker = ", ".join(f"{k}={v}" for k, v in config.items() if k != "totalReplicas")
    print(f"\nmachine at the end: {machine_note()}; 3 controllers ({controllers}), 3 agents; broker {broker}; "
          f"transfer timeout {args.transfer_timeout_ms} ms; producer: attempt timeout {args.send_timeout_ms} ms, "
          f"send deadline {args.send_deadline_ms} ms")  # fmt: skip
    problems = report(transfers, crashes, producer)
    print(f"{logs}\n{agent_logs}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
