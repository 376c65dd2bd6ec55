"""The benchmarks still run (quick mode, no timing assertions: figures live in docs/benchmarks.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "script", ["election_storm.py", "controller_failover.py", "agent_failover.py", "transfer_window.py"]
)
def test_benchmark_runs_in_quick_mode(script: str) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "controller logs:" in result.stdout
