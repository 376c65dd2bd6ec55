"""The chaos suite in CI: bounded runs with fixed seeds (about two minutes on 2 cores).

Each run starts 3 controllers and 3 agents, produces and consumes under random faults drawn from the seed
(kills, pauses, partitions through the proxies, a slow disk), heals, and checks the five invariants
(``invariants.py``). A failure prints the seed's report: rerun it with ``bench/chaos.py --seed N``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.chaos.runner import run_chaos

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DURATION_S = 25.0


@pytest.mark.parametrize(("seed", "sets"), [(1, 1), (2, 2), (3, 1)])
def test_no_invariant_breaks_under_random_faults(tmp_path: Path, seed: int, sets: int) -> None:
    report = run_chaos(tmp_path, seed, DURATION_S, sets)
    print(report.text())
    h = report.history
    assert not report.violations, report.text()
    assert not h.notes, report.text()  # every set converged after healing: liveness, not only safety
    assert sum(n for k, n in report.faults_by_kind().items() if not k.startswith("skip ")) > 0, report.text()
    assert h.acks and len(h.final_logs) == sets and len(h.controller_states) == 3, report.text()
    assert all(report.proxied[kind] > 0 for kind in ("raft", "grpc", "ha")), report.text()
