"""Failover as a client sees it: 3 controllers, 3 real agents (`mqagent`) hosting one broker set.

The broker set runs with allAckInSyncStateSet=true and the FAST settings of the end-to-end test
(200 ms broker heartbeats; the controllers scan for expired brokers every 200 ms). A producer thread in
this process sends one small message at a time (5 ms pause between acks) to whoever is master, found
with GetHAStatus on every agent after a failed or refused send (sends time out after --send-timeout-ms).

Each run waits until all three replicas are in the SyncStateSet (as the controller and the master see
it) and the producer has acks in that state, then SIGKILLs or SIGSTOPs the master agent. Measured with
time.monotonic in this process: the window from the last ack in the old epoch to the first ack in a newer
one, split by what is observable (a 10 ms poll): detection (GetSyncStateData on the controller leader
shows the old master not alive), election (it shows a new master), role switch (the new master's
GetHAStatus says master) and first send (the producer's first ack after that); a step seen after a later
one (poll lag) gets the later one's time. Afterwards the killed agent is started again, or the stopped
one gets SIGCONT and must step down by itself, and the run ends when all three are back in the
SyncStateSet.
"""

from __future__ import annotations

import argparse
import math
import queue
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from _common import (
    ControllerClient,
    MqError,
    Sandbox,
    grpc,
    log_summary,
    machine_note,
    ms,
    percentile,
    print_table,
    sandbox,
)
from _common import pb as cpb

from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as apb
from tests.harness.agents import BROKER, FAST, AgentProcess, create_topic
from tests.harness.controllers import CONTROLLER_CONFIG
from tests.harness.wait import wait_until

POLL_S = 0.01
PAUSE_S = 0.005
CRASH_TARGET_S = 1.0
HANG_MARGIN_S = 1.0
KINDS = {"kill": signal.SIGKILL, "stop": signal.SIGSTOP}
REF = apb.BrokerRef(broker_name=BROKER)
TOPIC = "Failover"
Answers = queue.Queue[tuple[AgentProcess, apb.GetHAStatusResponse | None]]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: 3 runs of each kind")
    parser.add_argument("--runs", type=int, default=20, help="runs per kind (default 20)")
    parser.add_argument("--kind", choices=["kill", "stop", "both"], default="both")
    parser.add_argument("--heartbeat-timeout-ms", type=int, default=2000, help="broker controllerHeartBeatTimeoutMills")
    parser.add_argument("--send-timeout-ms", type=int, default=500, help="the producer's send deadline")
    parser.add_argument("--keep", action="store_true", help="keep the agents' directory (agent.log files)")
    return parser.parse_args()


class Producer:
    """Sends to whoever is master; records (monotonic time, master epoch) of every acknowledged send."""

    def __init__(self, agents: Sequence[AgentProcess], send_timeout_s: float) -> None:
        self.agents = agents
        self.send_timeout_s = send_timeout_s
        self.acks: list[tuple[float, int]] = []
        self._asking: set[str] = set()  # agents with a GetHAStatus still unanswered (a stopped one)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="producer", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def acks_since(self, t: float) -> list[tuple[float, int]]:
        return [a for a in list(self.acks) if a[0] > t]

    def _run(self) -> None:
        target: AgentProcess | None = None
        i = 0
        while not self._stop.is_set():
            target = target or self._discover()
            if target is None:
                self._stop.wait(POLL_S)
                continue
            message = apb.Message(topic=TOPIC, queue_id=i % 2, body=f"m-{i:07d}".encode())
            try:
                response = target.stub(BROKER).SendMessage(
                    apb.SendMessageRequest(broker=REF, message=message), timeout=self.send_timeout_s
                )
            except grpc.RpcError:
                target = None
                continue
            if response.code != ResponseCode.SUCCESS:
                target = None
                continue
            self.acks.append((time.monotonic(), response.master_epoch))
            i += 1
            self._stop.wait(PAUSE_S)

    def _discover(self) -> AgentProcess | None:
        """Ask every running agent at once; the one that says master in the newest epoch (0.3 s at most)."""
        answers: Answers = queue.Queue()
        asked = 0
        for agent in self.agents:
            if agent.proc is None or agent.proc.poll() is not None or agent.name in self._asking:
                continue
            self._asking.add(agent.name)
            future = agent.stub().GetHAStatus.future(REF, timeout=2.0)
            future.add_done_callback(lambda f, a=agent: self._answered(a, f, answers))
            asked += 1
        best: tuple[AgentProcess, int] | None = None
        deadline = time.monotonic() + 0.3
        for _ in range(asked):
            try:
                agent, status = answers.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if status is not None and status.role == "master" and (best is None or status.master_epoch > best[1]):
                best = (agent, status.master_epoch)
        return best[0] if best else None

    def _answered(self, agent: AgentProcess, future: grpc.Future, answers: Answers) -> None:
        self._asking.discard(agent.name)
        try:
            answers.put((agent, future.result()))
        except grpc.RpcError:
            answers.put((agent, None))


@dataclass
class Run:
    """Monotonic times of one fault."""

    fault: float
    last_ack: float = float("nan")
    detected: float = float("nan")
    elected: float = float("nan")
    role: float = float("nan")
    first_ack: float = float("nan")
    stepped_down: float = float("nan")  # SIGSTOP runs: SIGCONT → the old master says slave
    recovered: float = float("nan")  # restart or SIGCONT → all three back in the SyncStateSet
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        names = ("detected", "elected", "role", "first_ack")
        since = [f"{name} {ms(getattr(self, name) - self.fault)}" for name in names]
        return f"window {ms(self.first_ack - self.last_ack)} ms; since the fault: {', '.join(since)} ms"


def sync_state(client: ControllerClient) -> cpb.ReplicasInfo:
    response = client.call("GetSyncStateData", cpb.GetSyncStateDataRequest(broker_names=[BROKER]))
    info: cpb.ReplicasInfo = response.replicas_info[0]
    return info


def watch(client: ControllerClient, survivors: list[AgentProcess], old_id: int, old_epoch: int, run: Run) -> None:
    """Poll the controller and the survivors every 10 ms until detection, election and role switch are seen."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(map(math.isnan, (run.detected, run.elected, run.role))):
        try:
            info = sync_state(client)
        except MqError:
            info = None
        now = time.monotonic()
        if info is not None:
            replicas = [*info.in_sync_replicas, *info.not_in_sync_replicas]
            if math.isnan(run.detected) and not any(r.broker_id == old_id and r.alive for r in replicas):
                run.detected = now
            if math.isnan(run.elected) and info.master_epoch > old_epoch and info.master_broker_id != old_id:
                run.elected = now
        for agent in survivors:
            if math.isnan(run.role):
                try:
                    status = agent.ha_status(BROKER)
                except grpc.RpcError:
                    continue
                if status.role == "master" and status.master_epoch > old_epoch:
                    run.role = time.monotonic()
        time.sleep(POLL_S)


def master(agents: Sequence[AgentProcess]) -> tuple[AgentProcess, apb.GetHAStatusResponse]:
    def find() -> tuple[AgentProcess, apb.GetHAStatusResponse] | None:
        found = [(a, s) for a in agents if (s := a.ha_status(BROKER)).role == "master"]
        return found[0] if len(found) == 1 else None

    result: tuple[AgentProcess, apb.GetHAStatusResponse] = wait_until(find, 30, "exactly one master")
    return result


def wait_all_in_sync(client: ControllerClient, agents: Sequence[AgentProcess], producer: Producer) -> float:
    """Until the controller and the master both hold all three in the SyncStateSet and the producer acks."""

    def in_sync() -> bool:
        info = sync_state(client)
        if len(info.in_sync_replicas) != 3 or not all(r.alive for r in info.in_sync_replicas):
            return False
        _, status = master(agents)
        return len(status.sync_state_set) == 3 and all(a.role(BROKER) in ("master", "slave") for a in agents)

    wait_until(in_sync, 60, "all three replicas in the SyncStateSet")
    t = time.monotonic()
    wait_until(lambda: len(producer.acks_since(t)) >= 20, 30, "acks with all three in sync")
    return time.monotonic()


def one_run(kind: str, client: ControllerClient, agents: list[AgentProcess], producer: Producer) -> Run:
    old, status = master(agents)
    old_id, old_epoch = status.broker_id, status.master_epoch
    survivors = [a for a in agents if a is not old]
    run = Run(fault=float("nan"))
    watcher = threading.Thread(target=watch, args=(client, survivors, old_id, old_epoch, run), daemon=True)
    run.fault = time.monotonic()
    old.signal(KINDS[kind])
    watcher.start()
    if kind == "kill":
        assert old.proc is not None
        old.proc.wait(10)
    try:
        wait_until(lambda: any(e > old_epoch for _, e in producer.acks_since(run.fault)), 30, "an ack in a new epoch",
                 interval=POLL_S)  # fmt: skip
        watcher.join(30)
    except AssertionError as exc:
        run.notes.append(str(exc))
    acks = list(producer.acks)
    run.last_ack = max((t for t, e in acks if e <= old_epoch), default=float("nan"))
    run.first_ack = min((t for t, e in acks if e > old_epoch), default=float("nan"))
    # each step implies the ones before it: a later observation of an earlier step is poll lag
    run.role = min(run.role, run.first_ack)
    run.elected = min(run.elected, run.role)
    run.detected = min(run.detected, run.elected)
    restarted = time.monotonic()
    if kind == "kill":
        old.start()
    else:
        old.signal(signal.SIGCONT)
        wait_until(lambda: (s := old.ha_status(BROKER)).role == "slave" and s.master_epoch > old_epoch, 30,
                 "the stopped master to step down by itself")  # fmt: skip
        run.stepped_down = time.monotonic() - restarted
    run.recovered = wait_all_in_sync(client, agents, producer) - restarted
    return run


def row(name: str, values: list[float], target: float | None = None) -> list[str]:
    xs = [v for v in values if v == v]
    if not xs:
        return [name, "0", "-", "-", "-", "-", "-"]
    p99 = percentile(xs, 99)
    met = "-" if target is None else ("yes" if p99 < target and len(xs) == len(values) else "NO")
    return [name, str(len(xs)), ms(percentile(xs, 50)), ms(p99), ms(max(xs)),
            "-" if target is None else f"p99 < {ms(target)}", met]  # fmt: skip


def report(kind: str, runs: list[Run], target: float) -> None:
    def step(a: str, b: str) -> list[float]:
        return [max(0.0, getattr(r, b) - getattr(r, a)) for r in runs]

    title = {"kill": "SIGKILL of the master agent (crash)", "stop": "SIGSTOP of the master agent (hang)"}[kind]
    print_table(
        f"Failover seen by the producer, {title}: ms",
        ["measure", "runs", "p50", "p99", "max", "target", "met"],
        [
            row("window: last ack (old epoch) → first ack (new epoch)", step("last_ack", "first_ack"), target),
            row("  last ack → fault", step("last_ack", "fault")),
            row("  detection: fault → old master not alive (controller)", step("fault", "detected")),
            row("  election: detected → new master committed (controller)", step("detected", "elected")),
            row("  role switch: committed → new master's GetHAStatus says master", step("elected", "role")),
            row("  first send: role switch → first ack", step("role", "first_ack")),
            row("fault → first ack", step("fault", "first_ack")),
            *([row("step-down: SIGCONT → old master says slave", [r.stepped_down for r in runs])] * (kind == "stop")),
            row(f"recovery: {'restart' if kind == 'kill' else 'SIGCONT'} → all 3 in SyncStateSet",
                [r.recovered for r in runs]),
        ],
    )  # fmt: skip
    for i, r in enumerate(runs):
        if r.notes:
            print(f"  run {i + 1}: {'; '.join(r.notes)}")


def agent_log_summary(agents: Sequence[AgentProcess]) -> str:
    """WARNING/ERROR lines and tracebacks in the agents' logs (first of each kind)."""
    counts = {" WARNING ": 0, " ERROR ": 0, "Traceback": 0}
    firsts: dict[str, str] = {}
    for agent in agents:
        for line in agent.log_text().splitlines():
            for level in counts:
                if level in line:
                    counts[level] += 1
                    firsts.setdefault(level, f"{agent.name}: {line[:200]}")
    text = "agent logs: " + ", ".join(f"{n} {k.strip()}" for k, n in counts.items())
    return text + "".join(f"\n  first {k.strip()}: {line}" for k, line in firsts.items())


def start_agents(agents: Sequence[AgentProcess], topic: str) -> None:
    """The first agent alone until it is master (a deterministic start), then `topic` is created (brokers refuse
    sends to a topic the controller does not have), then the other agents start."""
    agents[0].start()
    wait_until(lambda: agents[0].role(BROKER) == "master", 30, "the first replica to become master")
    create_topic(agents[0].controllers, topic)
    for a in agents[1:]:
        a.start()


def finish(
    sb: Sandbox, agents: Sequence[AgentProcess], producer: Producer | None, directory: Path, *, keep: bool
) -> tuple[str, str]:
    """Stop the producer and the agents, summarise the controller and agent logs, remove (or keep) the files."""
    if producer is not None:
        producer.close()
    for a in agents:
        a.close()
    logs, agent_logs = log_summary(sb), agent_log_summary(agents)
    if keep:
        print(f"agents' directory kept: {directory}")
    else:
        shutil.rmtree(directory, ignore_errors=True)
    return logs, agent_logs


def main() -> None:
    args = parse_args()
    runs = 3 if args.quick else args.runs
    kinds = ["kill", "stop"] if args.kind == "both" else [args.kind]
    config = {**FAST, "controllerHeartBeatTimeoutMills": str(args.heartbeat_timeout_ms)}
    targets = {"kill": CRASH_TARGET_S, "stop": args.heartbeat_timeout_ms / 1000 + HANG_MARGIN_S}
    results: dict[str, list[Run]] = {k: [] for k in kinds}
    directory = Path(tempfile.mkdtemp(prefix="mqbench-agents-"))
    with sandbox(3, extra_config=dict(CONTROLLER_CONFIG)) as sb:
        addresses = sb.addresses()
        agents = [AgentProcess(directory, f"agent{i}", addresses, {BROKER: dict(config)}) for i in range(3)]
        producer: Producer | None = None
        try:
            with ControllerClient(addresses, timeout=1.0) as client:
                start_agents(agents, TOPIC)
                producer = Producer(agents, args.send_timeout_ms / 1000)
                wait_all_in_sync(client, agents, producer)
                for kind in kinds:
                    for i in range(runs):
                        r = one_run(kind, client, agents, producer)
                        results[kind].append(r)
                        print(f"  {kind} run {i + 1}: {r.line()}", flush=True)
        finally:
            logs, agent_logs = finish(sb, agents, producer, directory, keep=args.keep)
    print(f"\nmachine: {machine_note()}; 3 controllers ({', '.join(f'{k}={v}' for k, v in CONTROLLER_CONFIG.items())})"
          f", 3 agents; broker controllerHeartBeatTimeoutMills={args.heartbeat_timeout_ms}, "
          f"brokerHeartbeatInterval={config['brokerHeartbeatInterval']}, allAckInSyncStateSet=true; "
          f"producer send timeout {args.send_timeout_ms} ms")  # fmt: skip
    for kind in kinds:
        report(kind, results[kind], targets[kind])
    print(f"{logs}\n{agent_logs}")


if __name__ == "__main__":
    main()
