"""Wall time of mqadmin invocations as an operator types them: --help, and queries against a running sandbox.

Each command runs as a fresh process (`python -m mqadmin_py`, as the `mqadmin` script does), N times in
turn with the others so load changes hit every command alike; the baseline is `python -c pass` (the
interpreter's own start) measured in the same rounds. Target (issue 5): well under 0.5 s each.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from _common import ROOT, machine_note, ms, parse_args, percentile, print_table, sandbox


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, timeout=60)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{argv} failed ({result.returncode}): {result.stderr.decode(errors='replace')[-500:]}")
    return elapsed


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
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, argv in commands.items():
                samples[name].append(timed(argv, env))
    base = percentile(samples["python -c pass (baseline)"], 50)
    rows = [
        [name, ms(percentile(v, 50)), ms(percentile(v, 95)), ms(max(v)), f"{percentile(v, 50) / base:.1f}×"]
        for name, v in samples.items()
    ]
    print_table(f"mqadmin wall time, {rounds} runs each", ["command", "p50", "p95", "max", "p50 / baseline"], rows)


if __name__ == "__main__":
    main()
