"""Long-running CLI work against a real sandbox: a send that rides through a SIGKILL of the
master, Ctrl-C (SIGINT to the real CLI process) during a long send and during ``sandbox up``, and ``sandbox down``
with a damaged sandbox.json. One sandbox (3 controllers, 3 agents, one set) serves the module; its last test
tears it down through the damaged state file."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from mqadmin_py.sandbox import STATE_FILE, Sandbox, _pid_alive
from mqbase.client import AgentClient
from mqbase.proto import agent_pb2 as apb
from tests.harness.processes import ROOT
from tests.harness.sandbox import BROKER, CLUSTER, Cli, Cluster
from tests.harness.wait import wait_until

TOPIC = "LongWork"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    cli = Cli(tmp_path_factory.mktemp("long") / "sandbox")
    up = cli.json("sandbox", "up", "--timeout", "120")
    controllers = ";".join(c["address"] for c in up["controllers"])
    cli.env["MQADMIN_CONTROLLERS"] = controllers
    cluster = Cluster(cli, controllers)
    try:
        cli.json("updateTopic", "-c", CLUSTER, "-t", TOPIC, "-r", "4", "-w", "4")
        yield cluster
    finally:
        cluster.close()
        cli("sandbox", "down", ok=False)  # the last test has stopped it already, unless it failed first
        configs = [str(c) for c in (cli.dir / "conf").rglob("*.conf")]
        assert not any(_pid_alive(p["pid"], c) for p in up["controllers"] + up["agents"] for c in configs)


class Run(NamedTuple):
    code: int
    stdout: str
    stderr: str


def ctrl_c(pid: int) -> None:
    os.kill(pid, signal.SIGINT)


def run_until(cli: Cli, args: list[str], ready: Callable[[], bool], what: str, act: Callable[[int], None]) -> Run:
    """Run ``mqadmin args``; once `ready()` holds, `act(pid)` (a signal); then its exit code, stdout and stderr.
    Killed if it outlives the test."""
    proc = subprocess.Popen(cli.command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env=cli.env)  # fmt: skip
    try:
        wait_until(ready, 60, what)
        act(proc.pid)
        stdout, stderr = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in stderr, stderr
    return Run(proc.returncode, stdout, stderr)


def has_message(address: str, topic: str, offset: int) -> bool:
    """Whether queue 0 of `topic` at `address` has a confirmed message at `offset` (a send is under way)."""
    request = apb.PullMessageRequest(broker=apb.BrokerRef(broker_name=BROKER), topic=topic, queue_id=0,
                                     queue_offset=offset, max_messages=1)  # fmt: skip
    with AgentClient(timeout=3.0) as agents:
        return bool(agents.call(address, "PullMessage", request).messages)


def bodies(cli: Cli, topic: str) -> list[str]:
    doc = cli.json("consumeMessage", "-t", topic, "-bn", BROKER, "--max", "100000")
    return [m["body"] for m in doc["messages"]]


def test_a_send_rides_through_a_sigkill_of_the_master(cluster: Cluster) -> None:
    """Before: exit 1, "364 of 600 message(s) not acknowledged", though a new master existed within seconds."""
    cli, old = cluster.cli, cluster.healthy()
    topic = "RideThrough"
    cli.json("updateTopic", "-c", CLUSTER, "-t", topic, "-r", "4", "-w", "4")
    killed = cluster.agent_of(old.broker_id)
    code, stdout, stderr = run_until(
        cli, ["sendMessage", "-t", topic, "-p", "m-{i}", "--count", "600", "--timeout", "20", "-o", "json"],
        lambda: has_message(old.address, topic, 5), "the send under way",
        lambda _: cluster.signal(killed, signal.SIGKILL),
    )  # fmt: skip
    assert code == 0, stderr
    doc = json.loads(stdout)
    assert (doc["sent"], doc["failed"]) == (600, 0)
    results = doc["results"]
    assert [r["index"] for r in results] == list(range(600)) and len({r["msgId"] for r in results}) == 600
    new = cluster.wait_master(lambda m: m.broker_id != old.broker_id, 30, "a new master")
    assert results[0]["brokerAddress"] == old.address and results[-1]["brokerAddress"] == new.address
    assert any(r["attempts"] > 1 for r in results), "some send met the dead master and was retried"
    resent = {r["index"] for r in results if r["unanswered"]}
    assert ("may be stored twice, under the same msgId" in stderr) == bool(resent), stderr
    stored = bodies(cli, topic)
    assert set(stored) == {f"m-{i}" for i in range(600)}, "every acknowledged message is on the new master"
    twice = {int(b[2:]) for b in stored if stored.count(b) > 1}
    assert twice <= resent, "only a message resent after an unanswered send may be stored twice"
    cli("sandbox", "start", killed)
    cluster.healthy(90)


def test_ctrl_c_during_a_long_send_says_how_far_it_got(cluster: Cluster) -> None:
    """Before: exit 130 and not a word of the ~1,500 messages already acknowledged."""
    cli, master = cluster.cli, cluster.healthy()
    start = len(bodies(cli, TOPIC))
    code, stdout, stderr = run_until(
        cli, ["sendMessage", "-t", TOPIC, "-p", "c-{i}", "--count", "100000", "-o", "json"],
        lambda: has_message(master.address, TOPIC, start // 4 + 3), "the send under way", ctrl_c,
    )  # fmt: skip
    assert code == 130 and len(stderr.splitlines()) == 1, stderr
    doc = json.loads(stdout)
    results: list[dict[str, Any]] = doc["results"]
    acked = [r for r in results if r["status"] == "PUT_OK"]
    assert len(acked) == doc["sent"] >= 1 and doc["failed"] == len(results) - len(acked)
    last = acked[-1]
    assert stderr.startswith(
        f"mqadmin: interrupted after {len(results)} of 100000 message(s): {doc['sent']} acknowledged with PUT_OK, "
        f"{doc['failed']} not; last acknowledged: #{last['index']} msgId {last['msgId']} queue {last['queueId']} "
        f"offset {last['queueOffset']}"
    ), stderr
    stored = set(bodies(cli, TOPIC))
    assert {f"c-{r['index']}" for r in acked} <= stored, "what it reports acknowledged is stored"


def test_ctrl_c_during_sandbox_up_stops_what_it_started(tmp_path: Path) -> None:
    """Before: the controllers it had started were left running."""
    cli = Cli(tmp_path / "other")
    pids: list[int] = []

    def started() -> bool:
        """n0 runs: its pid file holds its pid."""
        with contextlib.suppress(OSError, ValueError):
            pids.append(int((cli.dir / "run" / "n0.pid").read_text()))
        return bool(pids)

    try:
        code, _, stderr = run_until(
            cli, ["sandbox", "up", "--controllers", "1", "--replicas", "1", "--timeout", "120"],
            started, "the controller started", ctrl_c,
        )  # fmt: skip
    finally:
        stopped = cli.json("sandbox", "down")["stopped"]
    assert code == 130 and len(stderr.splitlines()) == 1, stderr
    assert stderr.startswith(f"mqadmin: interrupted 'sandbox up' in {cli.dir}: stopped n0"), stderr
    assert not _pid_alive(pids[0], str(cli.dir / "conf" / "n0.conf"))
    assert stopped == [], "nothing it started was left for 'down' to stop"


def test_sandbox_down_with_a_damaged_state_file_stops_every_process(cluster: Cluster) -> None:
    """Before: a traceback, or advice to remove the directory, which orphans six running processes."""
    cli = cluster.cli
    running = {p.id: p for p in Sandbox(cli.dir).processes() if p.pid}
    assert len(running) == 6
    (cli.dir / STATE_FILE).write_text('{"controllers": [')
    status = cli("sandbox", "status", ok=False)
    assert status.returncode == 1 and len(status.stderr.splitlines()) == 1, status.stderr
    assert "sandbox.json is damaged" in status.stderr
    down = cli("sandbox", "down", "-o", "json")
    stopped = json.loads(down.stdout)["stopped"]
    assert sorted(p["id"] for p in stopped) == sorted(running)
    assert [p["id"][0] for p in stopped] == ["a"] * 3 + ["n"] * 3, "agents first"
    assert not any(_pid_alive(p.pid or 0, p.configFile) for p in running.values())
