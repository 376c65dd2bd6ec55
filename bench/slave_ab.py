"""A/B of the slave's code: one master, slave processes alternately from another checkout (OLD) and from this one.

On a shared machine the speed of the same run drifts by tens of percent within minutes, so two runs of
replication.py taken one after the other cannot show a 10 % change. Here both sides follow one preloaded master
(this checkout's code; only the slave side differs) in pairs, taking turns to go first, and each side's median
MB/s per slave and CPU per slave process are printed with the ratio new / old. Every run starts from empty
slaves, recycles page cache first and checks the copy's last MiB, as replication.py does (``replicate``).

OLD must be a checkout of this repository with its compiled module built, for example the commit before:

    git worktree add /tmp/ab_old HEAD~1
    (cd /tmp/ab_old && "$OLDPWD/.venv/bin/python" setup.py -q build_ext --inplace)
    .venv/bin/python bench/slave_ab.py --old /tmp/ab_old --bodies 1,4 --slaves 1,2 --pairs 8

Figures go to docs/benchmarks.md. ``--quick`` (a smoke run): 32 MB, 4 KiB messages, one slave, one pair.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from _common import machine_note, parse_args, print_table
from _replicas import CHILD, MB, Cluster, mbps, preload
from replication import NO_CAP, PUT_BYTES, replicate

from agents.ha.config import HAConfig


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--old", type=Path, required=True, help="the other checkout (its compiled module built)")
    parser.add_argument("--bodies", default="1,4", help="message sizes in KiB, comma-separated (default 1,4)")
    parser.add_argument("--slaves", default="1,2", help="slave counts, comma-separated (default 1,2)")
    parser.add_argument("--pairs", type=int, default=8, help="old/new pairs per configuration (default 8)")


def old_child(old: Path) -> Path:
    """OLD's child script; exits with what to do when OLD is not a built checkout."""
    script = old.resolve() / "bench" / "_replica_child.py"
    if not script.is_file():
        sys.exit(f"--old {old}: no bench/_replica_child.py there; give a checkout of this repository")
    if not list((old / "agents" / "store").glob("_fastscan*.so")):
        sys.exit(f"--old {old}: its compiled module is not built; run `python setup.py build_ext --inplace` there")
    return script


def main() -> None:
    args = parse_args(__doc__, options)
    scripts = {"old": old_child(args.old), "new": CHILD}
    bodies = [4096] if args.quick else [int(kib) * 1024 for kib in args.bodies.split(",")]
    counts = [1] if args.quick else [int(n) for n in args.slaves.split(",")]
    pairs = 1 if args.quick else args.pairs
    size = (32 if args.quick else 256) * MB
    timeout = 60.0 if args.quick else 180.0
    config = replace(HAConfig(), batch_size=1 << 20, max_bytes_per_s=NO_CAP)
    print(f"machine: {machine_note()}")
    rows = []
    with Cluster() as cluster:
        for body in bodies:
            master = cluster.replica(1, config, name=f"master-{body}")
            cluster.start_master(master)
            preload(master, size, body, max(1, PUT_BYTES // body), timeout)
            for slaves in counts:
                runs: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
                for k in range(pairs):
                    for side in ("old", "new") if k % 2 == 0 else ("new", "old"):
                        run = replicate(cluster, master, slaves, f"{side}-{k}", timeout, script=scripts[side])
                        runs[side].append((mbps(run.nbytes, run.seconds), run.child_cpu / slaves))
                        time.sleep(0.2)  # let the master's connection threads notice the slaves left
                medians = {side: [statistics.median(x) for x in zip(*got, strict=True)] for side, got in runs.items()}
                for side, got in runs.items():
                    rates = sorted(rate for rate, _ in got)
                    rows.append([
                        f"{body // 1024} KiB", str(slaves), side, f"{medians[side][0]:.0f}",
                        f"{rates[0]:.0f}–{rates[-1]:.0f}", f"{medians[side][1]:.3f}",
                        "" if side == "old" else f"{medians['new'][0] / medians['old'][0]:.3f}",
                        "" if side == "old" else f"{medians['new'][1] / medians['old'][1]:.3f}",
                    ])  # fmt: skip
            cluster.drop(master)
    print_table(
        f"Slave code A/B: {size // MB} MB, 1 MiB batches, no cap, {pairs} pair(s) per row, medians",
        ["message", "slaves", "side", "MB/s per slave", "min–max", "CPU s per slave", "new/old MB/s", "new/old CPU"],
        rows,
    )
    print(f"machine after: {machine_note()}")


if __name__ == "__main__":
    main()
