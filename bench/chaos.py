"""Long chaos runs: the CI chaos suite's harness (``tests/harness/chaos``) for as long as you like.

3 controllers and 3 agents (one replica of each broker set per agent, allAckInSyncStateSet=true), a producer
(one send in ten a delayed message), a consumer, a consumer group and a controller poller, and random faults drawn
from ``--seed``: SIGKILL and SIGSTOP/SIGCONT of a master, a slave, the controller leader and a follower; partitions
(drop or blackhole) of a master from the controllers, of a master from its slaves, and of the controller leader from
its peers; a slow disk. After healing the invariants are checked (``tests/harness/chaos/invariants.py``). Prints
the seed, the faults, the acknowledged messages and every violation; exits 1 on any violation (or a cluster that
did not converge).

    .venv/bin/python bench/chaos.py --duration 600 --seed 7 [--sets 2] [--keep DIR] [--broker-config K=V]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.harness.chaos.runner import run_chaos  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("--duration", type=float, required=True, help="seconds of fault injection")
    parser.add_argument("--seed", type=int, default=None, help="the fault schedule's seed (default: random)")
    parser.add_argument("--sets", type=int, default=1, help="broker sets (3 replicas each)")
    parser.add_argument(
        "--broker-config",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a broker key (repeatable), e.g. allAckInSyncStateSet=false to see a loss",
    )
    parser.add_argument("--keep", type=Path, default=None, help="keep the run's files (logs, stores) in this dir")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    print(f"seed: {seed}", flush=True)
    directory = args.keep or Path(tempfile.mkdtemp(prefix=f"chaos-{seed}-"))
    directory.mkdir(parents=True, exist_ok=True)
    overrides = dict(item.split("=", 1) for item in args.broker_config)
    report = run_chaos(directory, seed, args.duration, args.sets, lambda s: print(s, flush=True), overrides)
    print(report.text())
    failed = bool(report.violations or report.history.notes)
    if failed:
        print(f"files kept in {directory}")
    elif args.keep is None:
        shutil.rmtree(directory, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
