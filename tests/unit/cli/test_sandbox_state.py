"""A damaged sandbox.json: one line naming what is wrong, and ``down`` still stops what the pid
files name, with real processes standing in for the sandbox's (their command lines hold the config paths)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqadmin_py.sandbox import STATE_FILE, Sandbox
from mqadmin_py.sandbox_state import DamagedState
from mqbase.errors import TimedOut
from tests.harness.processes import run_mqadmin

CONTROLLER = {"id": "n0", "address": "127.0.0.1:1", "raftAddress": "127.0.0.1:2", "configFile": "c", "logFile": "l"}
BROKER = {"clusterName": "C", "brokerName": "b", "brokerAddress": "127.0.0.1:3", "haAddress": "127.0.0.1:4",
          "configFile": "b.conf"}  # fmt: skip
AGENT = {"id": "a0", "address": "127.0.0.1:5", "configFile": "a", "logFile": "l", "brokers": [BROKER],
         "proxyAddress": "127.0.0.1:6"}  # fmt: skip


def state(directory: Path, text: str) -> Sandbox:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / STATE_FILE).write_text(text)
    return Sandbox(directory)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{}", "no 'controllers' or 'agents' list"),
        ("[]", "expected a JSON object with controllers and agents, got list"),
        ('{"controllers": [{"id": "n0", "addr', "Unterminated string"),
        ('{"controllers": {}, "agents": []}', "controllers: expected a list, got dict"),
        ('{"controllers": [7], "agents": []}', "controllers[0]: expected an object, got int"),
        (json.dumps({"controllers": [{**CONTROLLER, "address": 5}], "agents": []}),
         "controllers[0].address: expected a string, got int"),
        (json.dumps({"controllers": [{k: v for k, v in CONTROLLER.items() if k != "logFile"}], "agents": []}),
         "controllers[0]: no 'logFile'"),
        (json.dumps({"controllers": [{**CONTROLLER, "colour": "red"}], "agents": []}),
         "controllers[0]: unknown key 'colour'"),
        (json.dumps({"controllers": [], "agents": [{**AGENT, "brokers": [{**BROKER, "haAddress": None}]}]}),
         "agents[0].brokers[0].haAddress: expected a string, got NoneType"),
        (json.dumps({"controllers": [], "agents": [{**AGENT, "brokers": "b"}]}),
         "agents[0].brokers: expected a list, got str"),
    ],
)  # fmt: skip
def test_a_damaged_state_file_is_one_line_naming_what_is_wrong(tmp_path: Path, text: str, why: str) -> None:
    """Before: a TypeError/KeyError/AttributeError traceback from the dataclass constructors, or advice to remove
    the directory, which orphans the running processes."""
    box = state(tmp_path / "box", text)
    with pytest.raises(DamagedState) as caught:
        box.processes()
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'box' / STATE_FILE} is damaged (") and why in message
    assert "\n" not in message and "sandbox down" in message and caught.value.exit_code == 1


def test_a_good_state_file_still_reads(tmp_path: Path) -> None:
    box = state(tmp_path / "box", json.dumps({"controllers": [CONTROLLER], "agents": [AGENT]}))
    assert [p.id for p in box.processes()] == ["n0", "a0"]
    assert box.agents()[0].brokers[0].brokerAddress == "127.0.0.1:3"


@pytest.fixture
def stand_ins(tmp_path: Path) -> Iterator[dict[str, subprocess.Popen[bytes]]]:
    """Processes whose command lines hold a controller's and an agent's config path, and one that holds neither
    (a recycled pid): each with its pid file."""
    box = tmp_path / "box"
    (box / "run").mkdir(parents=True)
    marks = {"n0": box / "conf" / "n0.conf", "a0": box / "conf" / "a0" / "agent.conf", "n1": tmp_path / "other"}
    procs = {node: subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "-c", str(mark)])
             for node, mark in marks.items()}  # fmt: skip
    for node, proc in procs.items():
        (box / "run" / f"{node}.pid").write_text(f"{proc.pid}\n")
    (box / "run" / "a1.pid").write_text("not a pid\n")
    try:
        yield procs
    finally:
        for proc in procs.values():
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("text", ["{}", "[]", '{"controllers": [', '{"controllers": 3, "agents": []}'])
def test_down_with_a_damaged_state_stops_what_the_pid_files_name(
    tmp_path: Path, stand_ins: dict[str, subprocess.Popen[bytes]], text: str
) -> None:
    (tmp_path / "box" / STATE_FILE).write_text(text)
    result = run_mqadmin("sandbox", "down", "--dir", str(tmp_path / "box"), "-o", "json")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr
    assert "is damaged" in result.stderr and "stopping what its run/*.pid files name" in result.stderr
    stopped = json.loads(result.stdout)["stopped"]
    assert stopped == [{"id": "a0", "pid": stand_ins["a0"].pid}, {"id": "n0", "pid": stand_ins["n0"].pid}]
    assert stand_ins["a0"].wait(10) is not None and stand_ins["n0"].wait(10) is not None
    assert stand_ins["n1"].poll() is None, "a pid that does not run the node's config is never signalled"
    assert not (tmp_path / "box" / "run" / "n0.pid").exists() and not (tmp_path / "box" / "run" / "a0.pid").exists()


def test_down_purge_with_a_damaged_state_removes_the_directory(
    tmp_path: Path, stand_ins: dict[str, subprocess.Popen[bytes]]
) -> None:
    (tmp_path / "box" / STATE_FILE).write_text("{")
    result = run_mqadmin("sandbox", "down", "--dir", str(tmp_path / "box"), "--purge", "-o", "json")
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "box").exists() and stand_ins["n0"].wait(10) is not None


@pytest.mark.parametrize("command", [["status"], ["up", "--timeout", "5"], ["kill", "n0"]])
def test_other_sandbox_commands_refuse_a_damaged_state_in_one_line(tmp_path: Path, command: list[str]) -> None:
    state(tmp_path / "box", "[]")
    result = run_mqadmin("sandbox", *command, "--dir", str(tmp_path / "box"))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("mqadmin: ") and len(result.stderr.splitlines()) == 1, result.stderr
    assert "is damaged (expected a JSON object" in result.stderr and "sandbox down" in result.stderr


def test_a_readiness_timeout_names_the_broker_an_agent_could_not_start(tmp_path: Path) -> None:
    """An agent runs on when one of its brokers cannot start (CI once saw its HA port taken): the set never
    fills, and before this the timeout said only how many replicas were in sync."""
    log = tmp_path / "a0.log"
    log.write_text(
        "2026-12-03 14:50:02,387 ERROR [agent] agents.broker.agent: broker b.conf not started: cannot serve HA on"
        " 127.0.0.1:4: address already in use\n2026-12-03 14:50:03,000 INFO [agent] later\n"
    )
    box = state(tmp_path / "box", json.dumps({"controllers": [CONTROLLER], "agents": [{**AGENT, "logFile": str(log)}]}))
    with pytest.raises(TimedOut, match=r"; a0: \[agent\] agents.broker.agent: broker b.conf not started: cannot "
                       r"serve HA on 127.0.0.1:4: address already in use; see the logs"):  # fmt: skip
        box.wait_for_brokers(timeout=0)
