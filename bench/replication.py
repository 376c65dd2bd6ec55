"""Replication throughput master → 1 and → 2 slaves on loopback, against a plain socket copy of the same bytes.

For each message size (4 KiB, and 1, 16 and 64 KiB; --quick: 4 and 64 KiB) a
master is preloaded with N MB of messages (256 MB; --quick: 32 MB), then empty
slaves start and the clock runs until every slave's store.max_offset equals the
master's. With 4 KiB messages every configuration runs: batch_size 32 KiB
(default), 256 KiB and 1 MiB, each with the default maxHaTransferByteInSecond
(100 MiB/s per connection) and with that cap lifted; the other sizes run the
default and the fastest configuration (1 MiB, no cap). As deployed, every slave
is a process of its own (bench/_replica_child.py); the master runs in this
process. Baseline, measured in the same run before and after the replication
runs on the 4 KiB master's segment files: server threads here sendfile() them to
1 (or 2 concurrent) receiver processes that write the bytes to a file, or only
receive and discard them. CPU is given per process (the master's connection
threads from /proc as well). Every figure is the median of 3 runs (--quick: 1).

Before every timed run (copy or replication) the benchmark writes as many bytes
as the run will write to a scratch file and deletes it, so that both write into
recycled page cache: on this VM, page cache in memory the guest has not used for
a few seconds costs ~4x the CPU to fill (the host faults it in; measured 0.20-0.38
s vs 0.06 s per 256 MB), and which of the two paid that depended on the order of
the runs (a copy reused the pages of the copy before it; a slave mostly did not).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from _common import machine_note, parse_args, print_table
from _replicas import CHILD, MB, SEGMENT, Child, Cluster, cpu_window, mbps, preload, thread_cpu, thread_cpu_delta

from agents.ha.config import HAConfig
from agents.ha.replica import Replica

BODIES = (4096, 1024, 16 * 1024, 64 * 1024)  # the first runs every configuration
QUICK_BODIES = (4096, 64 * 1024)
PUT_BYTES = 256 * 1024  # message bytes per preload put
NO_CAP = 1 << 40
BATCHES = (32 * 1024, 256 * 1024, 1024 * 1024)
CHUNK = 1 << 20
SLACK = 16 * MB  # recycled per receiver beyond the log: consume queues, checkpoint, epoch file


@dataclass
class Run:
    label: str
    clients: int
    seconds: float
    cpu: float  # this process (the master, or the copy's server threads)
    roles: dict[str, float]  # CPU of this process's threads by name
    child_cpu: float  # the slave (or receiver) processes together
    nbytes: int  # copied to each slave (or receiver)


def recycle_page_cache(directory: Path, nbytes: int) -> None:
    """Write `nbytes` to a scratch file in `directory` and delete it: the next writes reuse page cache the
    guest holds (see the module docstring)."""
    scratch = directory / "recycle.tmp"
    buf = bytes(CHUNK)
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for _ in range(0, nbytes, CHUNK):
            os.write(fd, buf)
    finally:
        os.close(fd)
        scratch.unlink()


def timed_children(
    children: list[Child], recycle: tuple[Path, int] | None, start: Callable[[], None] = lambda: None
) -> tuple[float, float, float]:
    """Let set-up children go (after recycling page cache for them and `start()`): (wall seconds until the
    last finished, this process's CPU, the children's CPU together)."""
    if recycle is not None:
        recycle_page_cache(*recycle)
    cpu = time.process_time()
    began = time.monotonic()
    start()
    for c in children:
        c.go()
    reports = [c.done() for c in children]
    return max(end for end, _ in reports) - began, time.process_time() - cpu, sum(used for _, used in reports)


# --- baseline: plain socket copy --------------------------------------------------------------------


def segment_files(master: Replica, end: int) -> list[tuple[Path, int]]:
    """(segment file, bytes to copy) covering the master's log up to `end`."""
    directory = master.root / "store" / "commitlog"
    return [(directory / f"{start:020d}", min(SEGMENT, end - start)) for start in range(0, end, SEGMENT)]


def _serve_files(server: socket.socket, files: list[tuple[Path, int]], errors: list[str]) -> None:
    try:
        conn, _ = server.accept()
        with conn:
            for path, size in files:
                fd = os.open(path, os.O_RDONLY)
                try:
                    sent = 0
                    while sent < size:
                        sent += os.sendfile(conn.fileno(), fd, sent, size - sent)
                finally:
                    os.close(fd)
    except OSError as exc:
        errors.append(f"server: {exc}")


def start_all(threads: list[threading.Thread]) -> None:
    for t in threads:
        t.start()


def plain_copy(files: list[tuple[Path, int]], clients: int, workdir: Path | None, timeout: float) -> Run:
    """Copy the segment files over loopback to `clients` receiver processes (to files in `workdir`, or discard)."""
    total = sum(size for _, size in files)
    errors: list[str] = []
    dests = [workdir / f"copy{i}" if workdir else None for i in range(clients)]
    with socket.create_server(("127.0.0.1", 0), backlog=clients) as server:
        server.settimeout(timeout)
        port = server.getsockname()[1]
        threads = [threading.Thread(target=_serve_files, args=(server, files, errors)) for _ in range(clients)]
        try:
            with contextlib.ExitStack() as stack:
                children = [
                    stack.enter_context(Child("receive", port, total, d or "-", timeout=timeout)) for d in dests
                ]
                before = thread_cpu()
                recycle = (workdir, clients * (total + SLACK)) if workdir else None
                wall, cpu, child_cpu = timed_children(children, recycle, lambda: start_all(threads))
                roles = thread_cpu_delta(before)
        finally:
            for t in threads:
                t.join(timeout)
    for d in dests:
        if d is not None:
            d.unlink(missing_ok=True)
    if errors or any(t.is_alive() for t in threads):
        raise RuntimeError(f"plain copy failed: {errors or 'a thread did not finish'}")
    label = f"plain copy, {clients} client{'s' * (clients > 1)}, " + ("write to file" if workdir else "discard")
    return Run(label, clients, wall, cpu, roles, child_cpu, total)


# --- replication ------------------------------------------------------------------------------------


def replicate(cluster: Cluster, master: Replica, slaves: int, tag: str, timeout: float, script: Path = CHILD) -> Run:
    """Start `slaves` empty slave processes of `master` (running `script`); time until all hold the master's whole
    log."""
    address = f"127.0.0.1:{master.master.port}" if master.master else ""
    end = master.store.max_offset
    roots = [cluster.dir / f"slave{i}-{tag}" for i in range(slaves)]
    try:
        with contextlib.ExitStack() as stack:
            children = [
                stack.enter_context(Child("slave", root, 2 + i, address, end, SEGMENT, timeout=timeout, script=script))
                for i, root in enumerate(roots)
            ]
            before = thread_cpu()
            wall, cpu, child_cpu = timed_children(children, (cluster.dir, slaves * (end + SLACK)))
            roles = thread_cpu_delta(before)
        segment = (end - 1) // SEGMENT * SEGMENT
        at = max(end - CHUNK, segment)  # spot-check the copy: its last MiB (within one segment) is byte-identical
        tail = master.store.read(at, end - at)
        for root in roots:
            with open(root / "store" / "commitlog" / f"{segment:020d}", "rb") as f:
                f.seek(at - segment)
                if f.read(end - at) != tail:
                    raise RuntimeError(f"slave {root.name} differs from the master")
    finally:
        for root in roots:
            shutil.rmtree(root, ignore_errors=True)
    return Run(tag, slaves, wall, cpu, roles, child_cpu, end)


def config_label(cfg: HAConfig) -> str:
    cap = "no cap" if cfg.max_bytes_per_s == NO_CAP else f"cap {cfg.max_bytes_per_s / 2**20:.0f} MiB/s"
    return f"batch {cfg.batch_size // 1024} KiB, {cap}"


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bodies", help="message sizes in KiB, comma-separated (default 4,1,16,64; the first runs every config)"
    )
    parser.add_argument("--fastest-only", action="store_true", help="only the fastest config (1 MiB batches, no cap)")
    parser.add_argument(
        "--queues", type=int, default=8, help="consume queues the messages are spread over, round-robin (default 8)"
    )


def main() -> None:
    args = parse_args(__doc__, options)
    bodies = tuple(int(kib) * 1024 for kib in args.bodies.split(",")) if args.bodies else None
    size = (32 if args.quick else 256) * MB
    timeout = 60.0 if args.quick else 180.0
    reps = 1 if args.quick else 3
    print(f"machine: {machine_note()}")
    default = HAConfig()
    every = [replace(default, batch_size=b, max_bytes_per_s=c) for c in (default.max_bytes_per_s, NO_CAP)
             for b in BATCHES]  # fmt: skip
    fastest = replace(default, batch_size=BATCHES[-1], max_bytes_per_s=NO_CAP)
    runs: list[tuple[int, HAConfig, Run]] = []
    with Cluster() as cluster:
        copy_dir = cluster.dir / "copies"
        copy_dir.mkdir()
        files: list[tuple[Path, int]] = []
        before: list[Run] = []

        def baselines() -> list[Run]:  # the median of `reps` copies of each kind
            out = []
            for n, d in ((1, copy_dir), (1, None), (2, copy_dir), (2, None)):
                copies = sorted((plain_copy(files, n, d, timeout) for _ in range(reps)), key=lambda r: r.seconds)
                out.append(copies[reps // 2])
            return out

        for body in bodies or (QUICK_BODIES if args.quick else BODIES):
            master = cluster.replica(1, default, name=f"master-{body}")
            cluster.start_master(master)
            per_put = PUT_BYTES // body
            with cpu_window() as w:
                puts = preload(master, size, body, per_put, timeout, args.queues)
            end = master.store.max_offset
            shape = f"{puts} puts of {per_put} x {body} B, {args.queues} queues"
            print(f"preloaded {end / MB:.1f} MB ({shape}) in {w['wall']:.1f} s")
            if not files:
                files = segment_files(master, end)
                before = baselines()
            first = body == (bodies or BODIES)[0]
            for i, cfg in enumerate([fastest] if args.fastest_only else every if first else [default, fastest]):
                cluster.drop(master, delete=False)  # reopen the same log with this configuration
                master = cluster.replica(1, cfg, name=f"master-{body}")
                cluster.start_master(master)
                for n in (1, 2):
                    tries = []
                    for k in range(reps):
                        tries.append(replicate(cluster, master, n, f"{body}-{i}-{n}-{k}", timeout))
                        time.sleep(0.2)  # let the master's connection threads notice the slaves left
                    runs.append((body, cfg, sorted(tries, key=lambda r: r.seconds)[reps // 2]))
            if not first:
                cluster.drop(master)
        after = baselines()
    copied = sum(size for _, size in files)
    base_rows = []
    ref: dict[tuple[int, bool], float] = {}
    for b, a in zip(before, after, strict=True):
        ref[(b.clients, "file" in b.label)] = (mbps(copied, b.seconds) + mbps(copied, a.seconds)) / 2
        base_rows.append([
            b.label, f"{mbps(copied, b.seconds):.0f}", f"{mbps(copied, a.seconds):.0f}",
            f"{b.cpu:.2f} / {a.cpu:.2f}", f"{b.child_cpu / b.clients:.2f} / {a.child_cpu / a.clients:.2f}",
        ])  # fmt: skip
    print_table(
        f"Baseline: plain copy of the same {copied / MB:.0f} MB, median of {reps} (before / after replication)",
        ["copy", "MB/s per client, before", "MB/s per client, after", "server process CPU s",
         "CPU s per receiver process"],
        base_rows,
    )  # fmt: skip
    rows = []
    for body, cfg, run in runs:
        rate = mbps(run.nbytes, run.seconds)
        rows.append([
            f"{body // 1024} KiB", config_label(cfg), str(run.clients), f"{rate:.0f}", f"{rate * run.clients:.0f}",
            f"{rate / ref[(run.clients, True)]:.3f}", f"{rate / ref[(run.clients, False)]:.3f}",
            f"{run.seconds:.2f}", f"{run.cpu:.2f}", f"{run.roles.get('ha-conn', 0.0):.2f}",
            f"{run.child_cpu / run.clients:.2f}",
        ])  # fmt: skip
    print_table(
        f"Replication to empty slave processes (until every slave's max_offset == master's), median of {reps}",
        ["message", "config", "slaves", "MB/s per slave", "MB/s total", "× copy to file", "× copy discard", "wall s",
         "master process CPU s", "master conn threads CPU s", "CPU s per slave process"],
        rows,
    )  # fmt: skip
    for body in sorted({body for body, _, _ in runs}):
        best = max(
            mbps(r.nbytes, r.seconds) / ref[(r.clients, True)] for b, _, r in runs if b == body and r.clients == 1
        )
        print(
            f"target: replication >= 0.5 x plain copy (to file); best 1-slave ratio with {body // 1024} KiB: {best:.3f}"
        )
    print(f"machine after: {machine_note()}")


if __name__ == "__main__":
    main()
