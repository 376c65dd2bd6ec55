"""The benchmarks still run (quick mode, no timing assertions: figures live in docs/benchmarks.md)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness.processes import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def run_quick(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), "--quick", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result


@pytest.mark.parametrize(
    "script",
    [
        "election_storm.py",
        "controller_failover.py",
        "agent_failover.py",
        "transfer_window.py",
        "consumer_throughput.py",
    ],
)
def test_benchmark_runs_in_quick_mode(script: str) -> None:
    assert "controller logs:" in run_quick(script).stdout


def test_the_access_point_benchmark_runs_in_quick_mode() -> None:
    """Both parts: the send paths' table and the failover table (the script exits 1 if a send fails)."""
    out = run_quick("access_point.py").stdout
    assert "| official client" in out and "| window: last receipt before the kill" in out
    assert "controller logs:" in out


def test_the_consumer_rebuild_runs_small_and_rebuilds_the_same_state_every_way() -> None:
    """The script raises if the store's or the snapshot's rebuild differs from the pure one, and exits non-zero."""
    out = run_quick("consumer_rebuild.py", "--records", "3000").stdout
    assert "store: log_records + rebuild" in out and "snapshot of the final state:" in out


def test_the_consumer_profile_runs_in_quick_mode() -> None:
    out = run_quick("consumer_profile.py", "--messages", "320").stdout
    assert "receive + ack (PopService)" in out and "by own time" in out


@pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("pyspark", "pyarrow", "pandas")), reason="needs the [spark] extra"
)
def test_fleet_report_runs_in_quick_mode() -> None:
    assert "summaries: identical" in run_quick("fleet_report.py").stdout


def test_the_slave_ab_runs_in_quick_mode_against_this_checkout() -> None:
    """Both sides from this checkout: the harness itself (alternation, the copy check, the table) runs."""
    out = run_quick("slave_ab.py", "--old", str(ROOT)).stdout
    assert "| 4 KiB" in out and "new/old MB/s" in out


def test_the_slave_ab_says_what_to_do_with_a_wrong_old_checkout(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "slave_ab.py"), "--old", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "give a checkout of this repository" in result.stderr


def test_the_inprocess_send_benchmark_runs_in_quick_mode() -> None:
    """The script asserts that both paths give the same message and that every send on the store is answered OK."""
    out = run_quick("inprocess_send.py").stdout
    assert "| translations now (v2 → message)" in out and "saved per in-process send" in out


def test_the_pre_online_merge_runs_in_quick_mode_and_checks_its_merged_table() -> None:
    """The script exits non-zero if the merged table, the applied keys or the take-back on a real store are wrong."""
    out = run_quick("pre_online.py").stdout
    assert "| merge: 2 replicas + escaped changes twice" in out
    assert "| take_back.merge (merge + QueueMerged records appended)" in out


def test_the_acting_master_takeover_runs_in_quick_mode() -> None:
    """The script fails if the acting replica is not routed read-only, serving a read and serving a consumer's POP
    receive within ten times its target."""
    out = run_quick("acting_master.py").stdout
    assert "| no electable master" in out and "| controllers down" in out
    assert "| no electable master: POP receive served" in out and "| controllers down: POP receive served" in out


def test_the_index_benchmark_runs_in_quick_mode_and_finds_every_key() -> None:
    """The script exits non-zero if a lookup misses a message it holds or finds one for an absent key."""
    out = run_quick("index.py").stdout
    assert "| index, pure Python" in out and "A slave's apply of the same log" in out
    assert "| find_by_key, UNIQ_KEY" in out and "0/2000" in out
