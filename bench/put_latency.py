"""Put latency and throughput on a master with allAckInSyncStateSet=true and 2 slaves, against a lone master.

Replicated: master 1 with slaves 2 and 3 on loopback, SyncStateSet {1,2,3},
allAckInSyncStateSet=true (a put returns once both slaves acknowledged it).
Baseline in the same run: the same puts on a master alone (SyncStateSet {1},
same config). Below both, the disk: a MessageStore alone (put, set_confirm_offset,
flush; the flush timed on its own) and a raw pwrite + fdatasync of the same
bytes into a sparse file, the floor of any durable put. Modes: 1 producer
thread with 1 message of 1 KiB per put, 1 thread with 32 messages per put, and
4 producer threads with 1 message per put; alone and replicated run
interleaved per mode so both see the same machine. 3000 puts per mode
(--quick: 300), each mode bounded to 60 s. The fsync/fdatasync calls made on
the producer threads are counted (os.fsync and os.fdatasync are wrapped in
this process for the run).
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ParamSpec

from _common import bounded, machine_note, ms, parse_args, percentile, print_table
from _replicas import MB, SEGMENT, Cluster, messages

from agents.ha.config import HAConfig
from agents.ha.replica import Replica
from agents.store.message_store import MessageStore
from agents.store.record import encode

BODY = 1024
MODES = (("1 thread, 1 msg/put", 1, 1), ("1 thread, 32 msgs/put", 1, 32), ("4 threads, 1 msg/put", 4, 1))
MODE_SECONDS = 60.0


@dataclass
class Result:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    wall: float = 0.0
    cpu: float = 0.0
    split: list[float] = field(default_factory=list)  # store alone: the flush part of each put
    syncs: int = 0  # fsync + fdatasync calls made by the producer threads

    def add(self, seconds: float, status: str) -> None:
        self.latencies.append(seconds)
        self.statuses[status] += 1


def timed(threads: int, count: int, one: Callable[[int, Result], None]) -> Result:
    """`count` calls of `one(thread index, result)` spread over `threads` threads, timed as a whole."""
    result = Result()
    lock = threading.Lock()
    start = threading.Barrier(threads + 1)

    def worker(index: int) -> None:
        local = Result()
        start.wait(timeout=30)
        for _ in bounded(count // threads, MODE_SECONDS):
            one(index, local)
        with lock:
            result.latencies += local.latencies
            result.statuses += local.statuses
            result.split += local.split

    pool = [threading.Thread(target=worker, args=(i,), name=f"producer-{i}") for i in range(threads)]
    for t in pool:
        t.start()
    start.wait(timeout=30)
    wall, cpu, syncs = time.perf_counter(), time.process_time(), SYNCS[0]
    for t in pool:
        t.join(MODE_SECONDS + 30)
    result.wall, result.cpu = time.perf_counter() - wall, time.process_time() - cpu
    result.syncs = SYNCS[0] - syncs
    return result


SYNCS = [0]
_SYNC_LOCK = threading.Lock()


P = ParamSpec("P")


def _counting(sync: Callable[P, None]) -> Callable[P, None]:
    """Wrap os.fsync / os.fdatasync to count the calls made on producer threads (the put path)."""

    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        if threading.current_thread().name.startswith("producer-"):
            with _SYNC_LOCK:
                SYNCS[0] += 1
        sync(*args, **kwargs)

    return wrapper


def replica_puts(replica: Replica, threads: int, per_put: int, count: int) -> Result:
    batches = [messages(per_put, BODY, first=i * per_put) for i in range(threads)]

    def one(index: int, out: Result) -> None:
        t = time.perf_counter()
        status = replica.put(batches[index]).status.name
        out.add(time.perf_counter() - t, status)

    return timed(threads, count, one)


def store_puts(store: MessageStore, per_put: int, count: int) -> Result:
    batch = messages(per_put, BODY)

    def one(_index: int, out: Result) -> None:
        t = time.perf_counter()
        end = store.put(batch).end
        store.set_confirm_offset(end)  # what a lone master does: dispatch to the consume queues
        t_flush = time.perf_counter()
        store.flush()
        done = time.perf_counter()
        out.add(done - t, "PUT_OK")
        out.split.append(done - t_flush)

    return timed(1, count, one)


def fdatasync_puts(path: Path, per_put: int, count: int) -> Result:
    """pwrite the bytes of one put at the end of a sparse file, then fdatasync: the disk's floor."""
    data = b"".join(encode(m) for m in messages(per_put, BODY))
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    os.ftruncate(fd, SEGMENT)
    pos = [0]

    def one(_index: int, out: Result) -> None:
        t = time.perf_counter()
        os.pwrite(fd, data, pos[0] % (SEGMENT - len(data)))
        os.fdatasync(fd)  # wrapped: counted
        out.add(time.perf_counter() - t, "PUT_OK")
        pos[0] += len(data)

    try:
        return timed(1, count, one)
    finally:
        os.close(fd)
        path.unlink(missing_ok=True)


def start_replicated(cluster: Cluster, cfg: HAConfig) -> Replica:
    """Master 1 with slaves 2 and 3; returns once the SyncStateSet is {1,2,3}."""
    master = cluster.replica(1, cfg, name="master")
    address = cluster.start_master(master)
    for broker_id in (2, 3):
        cluster.replica(broker_id, cfg).change_to_slave(address, epoch=1)
    warm = messages(1, BODY)
    deadline = time.monotonic() + 30
    while master.master is None or master.master.sync_state.local != frozenset({1, 2, 3}):
        if time.monotonic() > deadline:
            raise TimeoutError("the slaves did not join the SyncStateSet")
        master.put(warm)  # a put may time out while the set grows; the loop only warms up
        time.sleep(0.05)
    return master


def row(label: str, r: Result, per_put: int, base: Result | None) -> list[str]:
    puts = len(r.latencies)
    rate = puts / r.wall if r.wall > 0 else float("nan")
    p50 = percentile(r.latencies, 50)
    ratio_p50 = f"{p50 / percentile(base.latencies, 50):.2f}" if base else "–"
    ratio_rate = f"{rate / (len(base.latencies) / base.wall):.2f}" if base else "–"
    failed = sum(n for s, n in r.statuses.items() if s != "PUT_OK")
    cpu = f"{r.cpu / puts * 1e6:.0f}" if puts else "–"
    syncs = f"{r.syncs / puts:.1f}" if puts else "–"
    return [
        label, str(puts), ms(p50), ms(percentile(r.latencies, 99)), ms(max(r.latencies, default=float("nan"))),
        f"{rate:.0f}", f"{rate * per_put * BODY / MB:.2f}", ratio_p50, ratio_rate, cpu, syncs, str(failed),
    ]  # fmt: skip


def main() -> None:
    args = parse_args(__doc__)
    count = 300 if args.quick else 3000
    print(f"machine: {machine_note()}")
    cfg = replace(HAConfig(), all_ack_in_sync_state_set=True)
    results: dict[str, list[list[str]]] = {}
    notes: list[str] = []
    real_syncs = os.fsync, os.fdatasync
    os.fsync, os.fdatasync = _counting(os.fsync), _counting(os.fdatasync)
    try:
        with Cluster(prefix="mqbench-alone-") as alone_cluster, Cluster(prefix="mqbench-repl-") as repl_cluster:
            alone = alone_cluster.replica(1, cfg, name="master")
            alone_cluster.start_master(alone)
            replicated = start_replicated(repl_cluster, cfg)
            store = MessageStore(alone_cluster.dir / "store-only", SEGMENT)
            try:
                for label, threads, per_put in MODES:
                    for r in (alone, replicated):
                        replica_puts(r, threads, per_put, min(50, count))  # warm-up
                    base = replica_puts(alone, threads, per_put, count)
                    repl = replica_puts(replicated, threads, per_put, count)
                    rows = [row("master alone (SyncStateSet {1})", base, per_put, None),
                            row("master + 2 slaves, allAck (SyncStateSet {1,2,3})", repl, per_put, base)]  # fmt: skip
                    if threads == 1:
                        disk = store_puts(store, per_put, count)
                        floor = fdatasync_puts(alone_cluster.dir / "floor", per_put, count)
                        rows += [row("MessageStore alone: put + confirm + flush", disk, per_put, base),
                                 row("raw pwrite + fdatasync of the same bytes", floor, per_put, base)]  # fmt: skip
                        share = percentile(disk.split, 50) / percentile(disk.latencies, 50)
                        notes.append(f"{label}: MessageStore.flush is {share:.0%} of a store-alone put at p50")
                    results[label] = rows
                    print(f"{label}: done", flush=True)
                final = replicated.master.sync_state.local if replicated.master else frozenset()
            finally:
                store.close()
    finally:
        os.fsync, os.fdatasync = real_syncs
    headers = ["puts on", "puts", "p50 ms", "p99 ms", "max ms", "puts/s", "MB/s", "p50 × alone", "puts/s × alone",
               "process CPU µs/put", "syncs/put", "not PUT_OK"]  # fmt: skip
    for label, rows in results.items():
        print_table(f"{label}, {BODY} B bodies", headers, rows)
    print("\n" + "\n".join(notes))
    print(f"SyncStateSet at the end of the replicated runs: {sorted(final)}")
    print(f"machine after: {machine_note()}")


if __name__ == "__main__":
    main()
