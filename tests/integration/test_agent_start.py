"""An agent with nothing working does not pretend to run: with every broker broken it exits 1 naming each one,
``-p`` checks the broker files (exit 2 naming file and key), and a broker that cannot start is listed with its
error next to the ones that run. No controller is needed: all of this happens before registration.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from tests.harness.agents import AgentProcess
from tests.harness.processes import ROOT, run_second, taken_port, unused_port
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]


def broker_file(path: Path, **keys: str) -> Path:
    """A broker config with working defaults, `keys` replacing them (an empty value drops the key)."""
    values = {
        "brokerName": "b",
        "listenPort": str(unused_port()),
        "haListenPort": "0",
        "storePathRootDir": str(path.parent / f"{path.stem}-store"),
        "controllerAddr": f"127.0.0.1:{unused_port()}",
        **keys,
    }
    path.write_text("".join(f"{k}={v}\n" for k, v in values.items() if v))
    return path


def agent_file(directory: Path, *broker_files: Path) -> Path:
    conf = directory / "agent.conf"
    paths = ";".join(map(str, broker_files))
    store = directory / "agent-store"
    conf.write_text(
        f"listenPort={unused_port()}\nenableProxy=false\nbrokerConfigPaths={paths}\nagentStorePath={store}\n"
    )
    return conf


def _missing_file(d: Path) -> Path:
    return d / "absent.conf"


BROKEN: dict[str, tuple[Callable[[Path], Path], str]] = {
    "missing file": (_missing_file, "cannot read config file"),
    "missing brokerName": (lambda d: broker_file(d / "x.conf", brokerName=""), "brokerName is required"),
    "garbage controllerAddr": (lambda d: broker_file(d / "x.conf", controllerAddr="nowhere"), "controllerAddr"),
    "unknown key": (lambda d: broker_file(d / "x.conf", brokerNmae="b"), "brokerNmae"),
    "store under /proc": (
        lambda d: broker_file(d / "x.conf", storePathRootDir="/proc/mqagent-store"),
        "cannot lock store /proc/mqagent-store",
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_an_agent_whose_only_broker_is_broken_exits_1_naming_it(case: str, tmp_path: Path) -> None:
    make, reason = BROKEN[case]
    broken = make(tmp_path)
    result = run_second("mqadmin_py.mqagent", agent_file(tmp_path, broken))
    assert result.returncode == 1, result.stderr
    line = [x for x in result.stderr.splitlines() if x.startswith("mqagent: cannot start: ")]
    assert line and "no broker could start" in line[0] and str(broken) in line[0] and reason in line[0], line
    assert "Traceback" not in result.stderr


def test_a_broker_whose_ha_port_is_taken_fails_at_start_not_at_its_first_failover(tmp_path: Path) -> None:
    """The HA port opens only when the broker becomes master; a taken one is named at start all the same."""
    with taken_port() as port:
        broken = broker_file(tmp_path / "ha.conf", haListenPort=str(port))
        result = run_second("mqadmin_py.mqagent", agent_file(tmp_path, broken))
    assert result.returncode == 1, result.stderr
    expected = f"{broken}: cannot serve HA on 127.0.0.1:{port} (haListenPort of {broken}): address already in use"
    assert expected in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_two_brokers_of_one_agent_with_one_ha_port_are_refused_at_start(tmp_path: Path) -> None:
    """Neither is master yet, so nothing listens on the port: the agent compares its brokers' ports itself."""
    port = str(unused_port())
    same = {"haListenPort": port}
    agent = AgentProcess(tmp_path, "twins", f"127.0.0.1:{unused_port()}", {"first": same, "second": same})
    try:
        agent.start()

        def both() -> list[pb.HostedBroker] | None:
            brokers = list(agent.stub().ListBrokers(pb.ListBrokersRequest(), timeout=2).brokers)
            return brokers if len(brokers) == 2 else None

        by_path = {b.config_path: b for b in wait_until(both, 30, "both brokers to be listed")}
        first, second = str(agent.dir / "first.conf"), str(agent.dir / "second.conf")
        assert by_path[first].broker_name == "first" and "haListenPort" not in by_path[first].error  # waits to register
        assert by_path[second].error == f"cannot start: haListenPort {port} is used by {first}", by_path[second]
    finally:
        agent.close()


def test_an_agent_whose_brokers_all_fail_exits_1_with_each_reason(tmp_path: Path) -> None:
    with taken_port() as port:
        in_use = broker_file(tmp_path / "in-use.conf", listenPort=str(port))
        unnamed = broker_file(tmp_path / "unnamed.conf", brokerName="")
        result = run_second("mqadmin_py.mqagent", agent_file(tmp_path, in_use, unnamed))
    assert result.returncode == 1, result.stderr
    assert f"{in_use}: cannot serve broker b on 127.0.0.1:{port} (listenPort of {in_use}): address already in use" in (
        result.stderr
    )
    assert f"{unnamed}: brokerName is required" in result.stderr


def test_print_config_checks_every_broker_file(tmp_path: Path) -> None:
    good = broker_file(tmp_path / "good.conf")
    bad = broker_file(tmp_path / "bad.conf", brokerNmae="b")
    conf = agent_file(tmp_path, good, bad)
    result = subprocess.run(
        [sys.executable, "-m", "mqadmin_py.mqagent", "-c", str(conf), "-p"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode == 2, result.stdout
    expected = f"mqagent: bad configuration: {bad}: unknown config key 'brokerNmae'"
    assert result.stderr.startswith(expected), result.stderr
    assert result.stdout == ""


def test_a_broker_that_cannot_start_is_listed_with_its_error(tmp_path: Path) -> None:
    agent = AgentProcess(tmp_path, "mixed", f"127.0.0.1:{unused_port()}", {"good": {}})
    bad = broker_file(agent.dir / "bad.conf", brokerName="")
    agent.conf.write_text(agent.conf.read_text().replace(".conf\n", f".conf;{bad}\n", 1))
    try:
        agent.start()

        def both() -> list[pb.HostedBroker] | None:
            brokers = list(agent.stub().ListBrokers(pb.ListBrokersRequest(), timeout=2).brokers)
            return brokers if len(brokers) == 2 else None

        brokers = wait_until(both, 30, "both brokers to be listed")
        by_path = {b.config_path: b for b in brokers}
        assert set(by_path) == {str(agent.dir / "good.conf"), str(bad)}
        failed = by_path[str(bad)]
        assert failed.error == f"cannot start: {bad}: brokerName is required", failed
        assert (failed.broker_id, failed.role) == (-1, "fenced")
        assert by_path[str(agent.dir / "good.conf")].broker_name == "good"
    finally:
        agent.close()


def test_an_agent_without_brokers_starts_empty_on_purpose(tmp_path: Path) -> None:
    agent = AgentProcess(tmp_path, "empty", "", {})  # brokerConfigPaths= (empty)
    try:
        agent.start()
        listed = wait_until(lambda: agent.stub().ListBrokers(pb.ListBrokersRequest(), timeout=2), 30, "ListBrokers")
        assert listed.code == ResponseCode.SUCCESS and list(listed.brokers) == []
    finally:
        agent.close()
