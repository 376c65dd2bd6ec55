"""CLI behaviour that needs no running cluster: help, usage errors and exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from mqadmin_py.app import app
from mqadmin_py.sandbox import free_ports

ROOT = Path(__file__).resolve().parents[2]


def run_mqadmin(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mqadmin_py", *args], capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def test_help_lists_rocketmq_command_names() -> None:
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for name in ("getControllerMetaData", "getSyncStateSet", "electMaster", "cleanBrokerMetadata", "sandbox"):
        assert name in result.output


def test_kebab_case_alias_reaches_the_same_command() -> None:
    result = CliRunner().invoke(app, ["get-sync-state-set", "--help"])
    assert result.exit_code == 0
    assert "--brokerName" in result.output


def test_missing_required_option_is_a_usage_error() -> None:
    assert run_mqadmin("electMaster", "-a", "127.0.0.1:1").returncode == 2


def test_unreachable_controllers_exit_5_without_a_traceback() -> None:
    port = free_ports(1)[0]
    result = run_mqadmin("getSyncStateSet", "-a", f"127.0.0.1:{port}", "--timeout", "1")
    assert result.returncode == 5
    assert "Traceback" not in result.stderr
    assert "no controller leader reachable" in result.stderr


def test_clean_without_cluster_or_living_flag_is_refused_as_in_java() -> None:
    result = run_mqadmin("cleanBrokerMetadata", "-a", "127.0.0.1:1", "-bn", "b")
    assert result.returncode == 2
    assert "clusterName option can not be empty" in result.stderr
