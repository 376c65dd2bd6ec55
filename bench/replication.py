"""Replication throughput master → 1 and → 2 slaves on loopback, against a plain socket copy of the same bytes.

The master is preloaded with N MB of 4 KiB messages (256 MB; --quick: 32 MB),
then empty slaves start and the clock runs until every slave's
store.max_offset equals the master's. Configurations: batch_size 32 KiB
(default), 256 KiB and 1 MiB, each with the default maxHaTransferByteInSecond
(100 MiB/s per connection) and with that cap lifted. Baseline, measured in the
same run before and after the replication runs: a server thread sendfile()s the
master's commit-log segment files to 1 (or 2 concurrent) clients that write the
bytes to a file, or only receive and discard them. Everything runs in this one
process (replica threads share the GIL), so CPU is given as wall and process
CPU seconds, and per role from the threads' /proc counters.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from _common import machine_note, parse_args, print_table
from _replicas import MB, SEGMENT, Cluster, cpu_window, mbps, preload, thread_cpu, thread_cpu_delta, wait_until

from agents.ha.config import HAConfig
from agents.ha.replica import Replica

BODY = 4096
PER_PUT = 64  # messages per preload put (256 KiB)
NO_CAP = 1 << 40
BATCHES = (32 * 1024, 256 * 1024, 1024 * 1024)
CHUNK = 1 << 20


@dataclass
class Run:
    label: str
    clients: int
    seconds: float
    cpu: float
    roles: dict[str, float]


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


def _receive(port: int, total: int, dest: Path | None, timeout: float, errors: list[str]) -> None:
    buf = memoryview(bytearray(CHUNK))
    out = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) if dest else -1
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            got = 0
            while got < total:
                n = sock.recv_into(buf, min(CHUNK, total - got))
                if n == 0:
                    raise OSError(f"server closed after {got} of {total} bytes")
                if out >= 0:
                    written = 0
                    while written < n:
                        written += os.write(out, buf[written:n])
                got += n
    except OSError as exc:
        errors.append(f"client: {exc}")
    finally:
        if out >= 0:
            os.close(out)


def plain_copy(files: list[tuple[Path, int]], clients: int, workdir: Path | None, timeout: float) -> Run:
    """Copy the segment files over loopback to `clients` concurrent receivers (to files in `workdir`, or discard)."""
    total = sum(size for _, size in files)
    errors: list[str] = []
    with socket.create_server(("127.0.0.1", 0), backlog=clients) as server:
        server.settimeout(timeout)
        port = server.getsockname()[1]
        dests = [workdir / f"copy{i}" if workdir else None for i in range(clients)]
        threads = [threading.Thread(target=_serve_files, args=(server, files, errors)) for _ in range(clients)]
        threads += [threading.Thread(target=_receive, args=(port, total, d, timeout, errors)) for d in dests]
        before = thread_cpu()
        with cpu_window() as w:
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout)
        roles = thread_cpu_delta(before)
    for d in dests:
        if d is not None:
            d.unlink(missing_ok=True)
    if errors or any(t.is_alive() for t in threads):
        raise RuntimeError(f"plain copy failed: {errors or 'a thread did not finish'}")
    label = f"plain copy, {clients} client{'s' * (clients > 1)}, " + ("write to file" if workdir else "discard")
    return Run(label, clients, w["wall"], w["cpu"], roles)


# --- replication ------------------------------------------------------------------------------------


def replicate(cluster: Cluster, master: Replica, slaves: int, tag: str, timeout: float) -> Run:
    """Start `slaves` empty slaves of `master`; time until all hold the master's whole log."""
    address = f"127.0.0.1:{master.master.port}" if master.master else ""
    made = [cluster.replica(2 + i, master.config, name=f"slave{i}-{tag}") for i in range(slaves)]
    end = master.store.max_offset
    try:
        before = thread_cpu()
        with cpu_window() as w:
            for s in made:
                s.change_to_slave(address, epoch=1)
            wait_until(lambda: all(s.store.max_offset == end for s in made), timeout, "slaves caught up", 0.005)
        roles = thread_cpu_delta(before)
        for s in made:  # spot-check the copy: the last MiB is byte-identical
            if s.store.read(end - CHUNK, CHUNK) != master.store.read(end - CHUNK, CHUNK):
                raise RuntimeError(f"slave {s.broker_id} differs from the master")
    finally:
        for s in made:
            cluster.drop(s)
    return Run(tag, slaves, w["wall"], w["cpu"], roles)


def config_label(cfg: HAConfig) -> str:
    cap = "no cap" if cfg.max_bytes_per_s == NO_CAP else f"cap {cfg.max_bytes_per_s / 2**20:.0f} MiB/s"
    return f"batch {cfg.batch_size // 1024} KiB, {cap}"


def main() -> None:
    args = parse_args(__doc__)
    size = (32 if args.quick else 256) * MB
    timeout = 60.0 if args.quick else 180.0
    print(f"machine: {machine_note()}")
    default = HAConfig()
    configs = [replace(default, batch_size=b, max_bytes_per_s=c) for c in (default.max_bytes_per_s, NO_CAP)
               for b in BATCHES]  # fmt: skip
    with Cluster() as cluster:
        master = cluster.replica(1, default, name="master")
        cluster.start_master(master)
        with cpu_window() as w:
            puts = preload(master, size, BODY, PER_PUT, timeout)
        end = master.store.max_offset
        print(f"preloaded {end / MB:.1f} MB ({puts} puts of {PER_PUT} x {BODY} B) in {w['wall']:.1f} s")
        files = segment_files(master, end)
        copy_dir = cluster.dir / "copies"
        copy_dir.mkdir()

        def baselines() -> list[Run]:  # the median of 3 copies of each kind
            out = []
            for n, d in ((1, copy_dir), (1, None), (2, copy_dir), (2, None)):
                out.append(sorted((plain_copy(files, n, d, timeout) for _ in range(3)), key=lambda r: r.seconds)[1])
            return out

        before = baselines()
        runs: list[tuple[HAConfig, Run]] = []
        for i, cfg in enumerate(configs):
            cluster.drop(master, delete=False)  # reopen the same log with this configuration
            master = cluster.replica(1, cfg, name="master")
            cluster.start_master(master)
            for n in (1, 2):
                runs.append((cfg, replicate(cluster, master, n, f"r{i}-{n}", timeout)))
                time.sleep(0.2)  # let the master's connection threads notice the slaves left
        after = baselines()

    def per_client(run: Run) -> float:
        return mbps(end, run.seconds)

    base_rows = []
    ref: dict[tuple[int, bool], float] = {}
    for b, a in zip(before, after, strict=True):
        ref[(b.clients, "file" in b.label)] = (per_client(b) + per_client(a)) / 2
        base_rows.append([b.label, f"{per_client(b):.0f}", f"{per_client(a):.0f}", f"{b.cpu:.2f} / {a.cpu:.2f}"])
    print_table(
        f"Baseline: plain copy of the same {end / MB:.0f} MB, median of 3 (before / after the replication runs)",
        ["copy", "MB/s per client, before", "MB/s per client, after", "process CPU s"],
        base_rows,
    )
    rows = []
    for cfg, run in runs:
        rate = per_client(run)
        conn, slave = run.roles.get("ha-conn", 0.0), run.roles.get("ha-slave", 0.0)
        rows.append([
            f"{config_label(cfg)}", str(run.clients), f"{rate:.0f}", f"{rate * run.clients:.0f}",
            f"{rate / ref[(run.clients, True)]:.3f}", f"{rate / ref[(run.clients, False)]:.3f}",
            f"{run.seconds:.2f}", f"{run.cpu:.2f}", f"{conn:.2f}", f"{slave:.2f}",
        ])  # fmt: skip
    print_table(
        f"Replication of {end / MB:.0f} MB to empty slaves (until every slave's max_offset == master's)",
        ["config", "slaves", "MB/s per slave", "MB/s total", "× copy to file", "× copy discard", "wall s",
         "process CPU s", "master conn threads CPU s", "slave threads CPU s"],
        rows,
    )  # fmt: skip
    best = max(per_client(r) / ref[(r.clients, True)] for _, r in runs if r.clients == 1)
    print(f"\ntarget: replication ≥ 0.5 × plain copy (to file); best 1-slave ratio here {best:.3f}")
    print(f"machine after: {machine_note()}")


if __name__ == "__main__":
    main()
