"""Habits of Java mqadmin users that need no cluster: -h, --version, and -n accepted by every command."""

from __future__ import annotations

import tomllib

import pytest
import typer
from typer.main import get_command
from typer.testing import CliRunner

from mqadmin_py.app import app
from mqadmin_py.commands.common import AliasGroup
from mqbase import __version__
from mqbase.errors import UsageError
from tests.harness.processes import ROOT, run_module


@pytest.mark.parametrize(("module", "program"), [("mqadmin_py", "mqadmin"),
                                                 ("mqadmin_py.mqcontroller", "mqcontroller"),
                                                 ("mqadmin_py.mqagent", "mqagent")])  # fmt: skip
def test_each_program_prints_its_version_and_takes_dash_h(module: str, program: str) -> None:
    version = run_module(module, "--version")
    assert version.returncode == 0 and version.stdout == f"{program} {__version__}\n"
    short = run_module(module, "-h")
    assert short.returncode == 0 and "Usage:" in short.stdout and "-h, --help" in short.stdout
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts[program] == ("mqadmin_py.__main__" if module == "mqadmin_py" else module) + ":main"


def test_dash_h_reaches_every_command() -> None:
    result = CliRunner().invoke(app, ["getSyncStateSet", "-h"])
    assert result.exit_code == 0 and "--brokerName" in result.output


def test_every_top_level_command_accepts_the_name_server_option() -> None:
    group = get_command(app)
    assert isinstance(group, AliasGroup)
    commands = {name: c for name, c in group.commands.items() if not isinstance(c, typer.core.TyperGroup)}
    assert {"getSyncStateSet", "electMaster", "sendMessage", "consumeMessage", "clusterList"} <= set(commands)
    for name, command in commands.items():
        (option,) = [p for p in command.params if "-n" in p.opts]
        assert option.opts == ["-n", "--namesrvAddr"], name


@pytest.mark.parametrize("value", ["127.0.0.1:9876", "ns1:9876;ns2:9876", "ns1:9876,ns2:9876", "[::1]:9876"])
def test_a_name_server_list_is_accepted_and_ignored(value: str) -> None:
    result = CliRunner().invoke(app, ["cleanBrokerMetadata", "-n", value, "-a", "127.0.0.1:1", "-bn", "b"])
    assert isinstance(result.exception, UsageError)  # the command ran past -n: Java's own check refuses it
    assert "clusterName option can not be empty" in str(result.exception)


@pytest.mark.parametrize("value", ["10", "", "ns1", "ns1:port", ";"])
def test_a_name_server_option_that_is_no_address_list_is_a_usage_error(value: str) -> None:
    result = run_module("mqadmin_py", "sendMessage", "-t", "T", "-p", "x", "-n", value)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "--namesrvAddr" in result.stderr and "the number of messages is --count" in result.stderr
    other = run_module("mqadmin_py", "getSyncStateSet", "-n", value)
    assert other.returncode == 2 and "--count" not in other.stderr
