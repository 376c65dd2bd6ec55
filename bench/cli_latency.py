"""Wall time of mqadmin invocations as an operator types them: --help, and queries against a running sandbox.

Each command runs as a fresh process (`python -m mqadmin_py`, as the `mqadmin` script does), N times in
turn with the others so load changes hit every command alike; the baseline is `python -c pass` (the
interpreter's own start) measured in the same rounds. Target: well under 0.5 s each.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

from _common import ROOT, machine_note, ms, parse_args, percentile, print_table, sandbox


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run; CPU (user + sys of the child) hardly moves with the machine's load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, timeout=60)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{argv} failed ({result.returncode}): {result.stderr.decode(errors='replace')[-500:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    args = parse_args(__doc__)
    rounds = 5 if args.quick else 30
    print(machine_note())
    with sandbox(broker_sets=1) as sb:
        env = {**os.environ, "MQADMIN_CONTROLLERS": sb.addresses(), "PYTHONPATH": str(ROOT)}
        mq = [sys.executable, "-m", "mqadmin_py"]
        commands = {
            "python -c pass (baseline)": [sys.executable, "-c", "pass"],
            "mqadmin --help": [*mq, "--help"],
            "mqadmin getControllerMetaData -o json": [*mq, "getControllerMetaData", "-o", "json"],
            "mqadmin getSyncStateSet": [*mq, "getSyncStateSet"],
            "mqadmin getSyncStateSet -o json": [*mq, "getSyncStateSet", "-o", "json"],
            "mqadmin getBrokerEpoch -o json": [*mq, "getBrokerEpoch", "-o", "json"],
            "mqadmin haStatus -o json": [*mq, "haStatus", "-o", "json"],
        }
        wall: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, argv in commands.items():
                w, c = timed(argv, env)
                wall[name].append(w)
                cpu[name].append(c)
    base = percentile(wall["python -c pass (baseline)"], 50)
    rows = [
        [
            name,
            ms(percentile(w, 50)),
            ms(percentile(w, 95)),
            ms(max(w)),
            f"{percentile(w, 50) / base:.1f}×",
            ms(percentile(cpu[name], 50)),
        ]
        for name, w in wall.items()
    ]
    headers = ["command", "wall p50", "wall p95", "wall max", "p50 / baseline", "CPU p50"]
    print_table(f"mqadmin wall and CPU time (ms), {rounds} runs each", headers, rows)


if __name__ == "__main__":
    main()
