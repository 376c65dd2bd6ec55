"""Controller failover and broker-crash detection, 3 nodes with default settings.

Failure detection: a broker set with master 1 and SyncStateSet {1,2,3} whose
brokers stream heartbeats to the leader (1 s beats, default 10 s timeout).
Crash: broker 1's stream is cancelled. Hang: its stream stays open but its
beats stop (found only by heartbeat expiry). Measured: until GetReplicaInfo
on the leader shows the new master (crash: tight poll), and until the
surviving broker 2 receives the RoleChangeNotification. One fresh broker set
per run.

Controller failover: SIGKILL the leader, then retry an ApplyBrokerId for a
fresh broker set through ControllerClient (all addresses, 1 s timeout, 10 ms
pause between failed tries) until it succeeds. Also measured: until a
surviving node reports itself leader and ready (barrier committed). The
killed node is restarted and the group waits until all three are in sync
before the next run.
"""

from __future__ import annotations

import os
import signal
import threading
import time

from _brokers import BrokerFleet, broker_sets, register_sets
from _common import (
    ControllerClient,
    LoopThread,
    MqError,
    Sandbox,
    controller_stub,
    grpc,
    leader_node,
    log_summary,
    machine_note,
    metadata,
    ms,
    parse_args,
    pb,
    pb_grpc,
    percentile,
    print_table,
    sandbox,
)

FAILOVER_TARGET_S = 2.0
DETECT_TARGET_S = 0.1


def summary(name: str, values: list[float], target: float | None) -> list[str]:
    met = "-" if target is None else ("yes" if max(values) < target else "no")
    return [name, str(len(values)), ms(percentile(values, 50)), ms(percentile(values, 99)), ms(max(values)),
            "-" if target is None else f"< {ms(target)}", met]  # fmt: skip


def wait_new_master(stub: pb_grpc.ControllerServiceStub, name: str, t0: float, limit_s: float, pause_s: float) -> float:
    """Poll GetReplicaInfo on the leader until broker 1 is no longer master; seconds since t0."""
    req = pb.GetReplicaInfoRequest(broker_name=name)
    for _ in range(100_000):
        resp = stub.GetReplicaInfo(req, timeout=5)
        if resp.HasField("master_broker_id") and resp.master_broker_id not in (0, 1):
            return time.perf_counter() - t0
        if time.perf_counter() > t0 + limit_s:
            break
        time.sleep(pause_s)
    raise RuntimeError(f"{name}: no new master within {limit_s:g} s")


def detection(sb: Sandbox, crash_runs: int, hang_runs: int) -> dict[str, tuple[list[float], list[float]]]:
    """Per mode ("crash": stream cancelled, "hang": stream open, beats stop): (visible, notified) times."""
    leader = leader_node(sb)
    out: dict[str, tuple[list[float], list[float]]] = {"crash": ([], []), "hang": ([], [])}
    tag = f"det-{os.getpid()}-{time.time_ns() % 10**9}"
    with LoopThread() as runner:
        fleet = BrokerFleet(runner, leader.address, interval_s=1.0)
        channel = grpc.insecure_channel(leader.address)
        try:
            stub = controller_stub(channel)
            for run, mode in enumerate(["crash"] * crash_runs + ["hang"] * hang_runs):
                (brokers,) = sets = broker_sets("det", f"{tag}-{run}-", 1)
                register_sets(fleet, sets)
                time.sleep(0.3)
                if mode == "crash":
                    t0, _ = fleet.crash([brokers[0].key])
                    out[mode][0].append(wait_new_master(stub, brokers[0].name, t0, 5.0, 0.0))
                else:
                    fleet.hung.add(brokers[0].key)
                    t0 = time.perf_counter()
                    out[mode][0].append(wait_new_master(stub, brokers[0].name, t0, 30.0, 0.02))
                for _ in range(200):
                    notes = [t for t, n in fleet.notes[brokers[1].key] if n.master_broker_id not in (0, 1)]
                    if notes:
                        out[mode][1].append(notes[0] - t0)
                        break
                    time.sleep(0.01)
        finally:
            channel.close()
            fleet.close()
    return out


def wait_synced(sb: Sandbox, timeout: float = 60.0) -> str:
    """Until one node leads with both peers connected and every follower has applied its commit index."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        metas = [metadata(n.address, timeout=0.5) for n in sb.controllers()]
        leaders = [m for m in metas if m and m.is_leader and m.raft.ready]
        if len(leaders) == 1 and all(metas) and leaders[0].raft.connected_peers == 2:
            target = leaders[0].raft.commit_index
            if all(m.raft.ready and m.raft.last_applied >= target for m in metas if m):
                return leaders[0].self_id
        time.sleep(0.05)
    raise RuntimeError(f"the group did not get back in sync within {timeout:g} s")


def watch_leader(sb: Sandbox, old: str, t0: list[float], out: list[float], stop: threading.Event) -> None:
    """Record when a surviving node first reports itself leader and ready."""
    survivors = [n.address for n in sb.controllers() if n.id != old]
    deadline = time.monotonic() + 30
    with ControllerClient(survivors, timeout=0.2) as client:
        while not stop.is_set() and time.monotonic() < deadline:
            for address in survivors:
                m = metadata(address, client=client)
                if t0 and m and m.is_leader and m.raft.ready:
                    out.append(time.perf_counter() - t0[0])
                    return
            time.sleep(0.01)


def apply_request(name: str) -> pb.ApplyBrokerIdRequest:
    return pb.ApplyBrokerIdRequest(cluster_name="failover", broker_name=name, applied_broker_id=1,
                                   register_check_code=f"127.0.0.1:30001;{time.time_ns() // 10**6}")  # fmt: skip


def failover(sb: Sandbox, runs: int) -> tuple[list[float], list[float], list[int]]:
    writes: list[float] = []
    leaders: list[float] = []
    tries: list[int] = []
    tag = f"fo-{os.getpid()}-{time.time_ns() % 10**9}"
    for run in range(runs):
        old = wait_synced(sb)
        with ControllerClient(sb.addresses(), timeout=1.0) as client:
            if client.call("ApplyBrokerId", apply_request(f"{tag}-warm-{run}")).code != 0:  # learn the leader
                raise RuntimeError("warm-up write failed")
            t0: list[float] = []
            stop = threading.Event()
            watcher = threading.Thread(target=watch_leader, args=(sb, old, t0, leaders, stop), daemon=True)
            watcher.start()
            request = apply_request(f"{tag}-{run}")  # retried as is: a retry with the same check code is idempotent
            sb.signal(old, signal.SIGKILL)
            t0.append(time.perf_counter())
            attempt = 0
            while attempt < 3000:
                attempt += 1
                try:
                    if client.call("ApplyBrokerId", request).code == 0:
                        break
                except MqError:
                    pass
                if time.perf_counter() - t0[0] > 30:
                    raise RuntimeError(f"run {run}: no successful write 30 s after killing {old}")
                time.sleep(0.01)
            else:
                raise RuntimeError(f"run {run}: no successful write in {attempt} tries")
            writes.append(time.perf_counter() - t0[0])
            tries.append(attempt)
            watcher.join(30)
            stop.set()
        print(f"  run {run + 1}: killed {old}; write ok after {ms(writes[-1])} ms ({attempt} tries)", flush=True)
        sb.start(old)
    wait_synced(sb)
    return writes, leaders, tries


def main() -> None:
    args = parse_args(__doc__)
    runs = 3 if args.quick else 10
    crash_runs, hang_runs = (3, 0) if args.quick else (20, 3)
    with sandbox(3) as sb:
        detected = detection(sb, crash_runs, hang_runs)
        writes, leaders, tries = failover(sb, runs)
        logs = log_summary(sb)
    print(f"\nmachine: {machine_note()}; 3 controller nodes, default settings (raft timeouts 300-600 ms)")
    polled, notified = detected["crash"]
    rows = [summary("crash: new master visible (GetReplicaInfo poll)", polled, DETECT_TARGET_S),
            summary("crash: new master notified to broker 2", notified, DETECT_TARGET_S)]  # fmt: skip
    if hang_runs:
        rows.append(summary("hang: new master visible (20 ms poll; Java: 10-15 s)", detected["hang"][0], None))
    print_table(
        "Broker failure detection (ms): crash = master's stream cancelled; hang = stream open, beats stop",
        ["measure", "runs", "p50", "p99", "max", "target", "met (max)"],
        rows,
    )
    print_table(
        "Controller failover: leader SIGKILLed (ms)",
        ["measure", "runs", "p50", "p99", "max", "target", "met (max)"],
        [summary("new leader ready (metadata poll)", leaders, FAILOVER_TARGET_S),
         summary("first successful write (ApplyBrokerId)", writes, FAILOVER_TARGET_S)],
    )  # fmt: skip
    print(f"client tries per failover: {tries}\n{logs}")


if __name__ == "__main__":
    main()
