"""Committed controller writes per second through Raft (3 nodes), against a read baseline.

Write: AlterSyncStateSet toggling a broker set's SyncStateSet between {1,2,3}
and {1,2} with the right epochs (every write is one Raft commit; concurrent
writes share entries through the proposer's group commit). Reads:
GetReplicaInfo on the leader, which a broker acts on, so it is answered only
after a Raft commit confirms the leadership (an empty entry per batch of reads,
controller/reads.py), and the plain-read baseline GetSyncStateData of the same
set (same queue, no Raft commit). Each client thread has its own broker set and
its own channel to the leader; the set's three brokers keep heartbeat streams
open to the leader so they stay alive.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from _brokers import BrokerFleet, broker_sets, register_sets
from _common import (
    LoopThread,
    common,
    controller_stub,
    cpu_seconds,
    grpc,
    leader_node,
    log_summary,
    machine_note,
    metadata,
    ms,
    ok,
    parse_args,
    pb,
    percentile,
    print_table,
    sandbox,
)

THREADS = (1, 4, 16)


class Client:
    """One client thread's channel, broker set and SyncStateSet epoch."""

    def __init__(self, address: str, broker_name: str, master_epoch: int, sss_epoch: int) -> None:
        self.channel = grpc.insecure_channel(address)
        self.stub = controller_stub(self.channel)
        self.name, self.master_epoch, self.sss_epoch = broker_name, master_epoch, sss_epoch
        self.full = True  # the set is {1,2,3} after setup

    def write(self) -> None:
        ids = [1, 2] if self.full else [1, 2, 3]
        req = pb.AlterSyncStateSetRequest(
            broker_name=self.name, master_broker_id=1, master_epoch=self.master_epoch,
            new_sync_state_set=common.SyncStateSet(broker_ids=ids, sync_state_set_epoch=self.sss_epoch),
        )  # fmt: skip
        resp = ok(self.stub.AlterSyncStateSet(req, timeout=10), "AlterSyncStateSet")
        self.sss_epoch, self.full = resp.new_sync_state_set_epoch, not self.full

    def read(self) -> None:
        ok(self.stub.GetReplicaInfo(pb.GetReplicaInfoRequest(broker_name=self.name), timeout=10), "GetReplicaInfo")

    def plain_read(self) -> None:
        request = pb.GetSyncStateDataRequest(broker_names=[self.name])
        ok(self.stub.GetSyncStateData(request, timeout=10), "GetSyncStateData")

    def op(self, kind: str) -> Callable[[], None]:
        return {"write": self.write, "read": self.read, "plain": self.plain_read}[kind]


def sequential(client: Client, kind: str, count: int, seconds: float) -> list[float]:
    op = client.op(kind)
    lat: list[float] = []
    deadline = time.perf_counter() + seconds
    while len(lat) < count and time.perf_counter() < deadline:
        t = time.perf_counter()
        op()
        lat.append(time.perf_counter() - t)
    return lat


def concurrent(clients: list[Client], kind: str, seconds: float, cap: int) -> tuple[int, float]:
    """All clients loop `kind` for `seconds` (at most `cap` ops each); returns (ops, elapsed)."""
    counts = [0] * len(clients)
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(clients) + 1)

    def work(i: int) -> None:
        op = clients[i].op(kind)
        barrier.wait()
        deadline = time.perf_counter() + seconds
        try:
            while counts[i] < cap and time.perf_counter() < deadline:
                op()
                counts[i] += 1
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(len(clients))]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join(seconds + 30)
    elapsed = time.perf_counter() - start
    if errors:
        raise errors[0]
    return sum(counts), elapsed


def main() -> None:
    args = parse_args(__doc__)
    seq_count, seq_s = (200, 2.0) if args.quick else (2000, 10.0)
    tput_s = 1.5 if args.quick else 5.0
    with sandbox(3) as sb, LoopThread() as runner:
        leader = leader_node(sb)
        fleet = BrokerFleet(runner, leader.address, interval_s=1.0)
        try:
            sets = broker_sets("bench-writes", "writes-", max(THREADS))
            epochs = register_sets(fleet, sets)
            clients = [Client(leader.address, s[0].name, *epochs[s[0].name]) for s in sets]
            for c in clients[:2]:
                sequential(c, "write", 50, 2.0)  # warm-up
                sequential(c, "read", 50, 2.0)
            seq_rows = []
            p50 = {}
            for kind, label in (
                ("plain", "GetSyncStateData (plain read, no commit)"),
                ("read", "GetReplicaInfo (read behind a barrier commit)"),
                ("write", "AlterSyncStateSet (commit)"),
            ):
                lat = sequential(clients[0], kind, seq_count, seq_s)
                p50[kind] = percentile(lat, 50)
                seq_rows.append([label, len(lat), ms(p50[kind]), ms(percentile(lat, 99)), ms(max(lat))])
            print(f"machine: {machine_note()}; leader {leader.id}; 3 nodes, default Raft timings")
            print_table("Sequential latency, 1 client (ms)", ["operation", "ops", "p50", "p99", "max"], seq_rows)
            print(f"Raft cost per write (p50 write - p50 plain read): {ms(p50['write'] - p50['plain'])} ms")
            print(f"Read barrier cost (p50 GetReplicaInfo - p50 plain read): {ms(p50['read'] - p50['plain'])} ms")
            rows = []
            for n in THREADS:
                rate, cpu_ms, per_entry = {}, {}, "-"
                for kind in ("plain", "read", "write"):
                    before = metadata(leader.address)
                    cpu0 = cpu_seconds(leader.pid or 0)
                    ops, elapsed = concurrent(clients[:n], kind, tput_s, cap=200_000)
                    cpu_ms[kind] = (cpu_seconds(leader.pid or 0) - cpu0) * 1e3 / max(ops, 1)
                    after = metadata(leader.address)
                    rate[kind] = ops / elapsed
                    if kind == "write" and before and after and after.raft.commit_index > before.raft.commit_index:
                        per_entry = f"{ops / (after.raft.commit_index - before.raft.commit_index):.1f}"
                rows.append([n, f"{rate['plain']:.0f}", f"{rate['read']:.0f}", f"{rate['write']:.0f}",
                             f"{rate['write'] / rate['read']:.2f}", per_entry, f"{cpu_ms['plain']:.2f}",
                             f"{cpu_ms['read']:.2f}", f"{cpu_ms['write']:.2f}"])  # fmt: skip
            print_table(
                f"Throughput, N client threads, {tput_s:g} s per cell",
                ["threads", "plain reads/s", "reads/s", "writes/s", "write/read", "writes per Raft entry",
                 "leader CPU ms/plain read", "leader CPU ms/read", "leader CPU ms/write"],
                rows,
            )  # fmt: skip
            print(log_summary(sb))
        finally:
            fleet.close()


if __name__ == "__main__":
    main()
