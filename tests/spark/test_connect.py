"""The report on a Spark Connect server (``mqadmin epochs serve`` + ``epochs report --remote``): a real server
process on an ephemeral loopback port, real client processes, the same document as a local session's.

Clients run as child processes: PySpark keeps a process that opened a Connect session in Connect mode for good,
which would break the shared local session of the other Spark tests.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from spark.connect import LOOPBACK, SERVER_CLASS, TOKEN_ENV, ConnectServerError, check_reachable, server_command
from spark.connect import start_server as start_connect_server
from spark.report import run_report
from spark.synth import synthesize
from tests.harness.spark_conf import TEST_CONF
from tests.harness.terminal import Terminal

FAST_SMALL_JOBS = f"spark.driver.extraJavaOptions={TEST_CONF['spark.driver.extraJavaOptions']}"


def mqadmin(*args: str, env: dict[str, str] | None = None, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mqadmin_py", *args], capture_output=True, text=True, env=env, timeout=timeout
    )


# --- pure parts ------------------------------------------------------------------------------------------------


def test_server_command_binds_loopback_and_lets_conf_win() -> None:
    command = server_command(Path("/opt/spark"), 15010, "local[2]", {"spark.sql.shuffle.partitions": "7"})
    assert command[:5] == ["/opt/spark/bin/spark-submit", "--class", SERVER_CLASS, "--master", "local[2]"]
    confs = dict(command[i + 1].split("=", 1) for i, arg in enumerate(command) if arg == "--conf")
    assert confs["spark.connect.grpc.binding.address"] == LOOPBACK
    assert confs["spark.connect.grpc.binding.port"] == "15010"
    assert confs["spark.sql.shuffle.partitions"] == "7"  # ours said 4 for local[2]
    assert confs["spark.driver.extraJavaOptions"] == "-XX:+UseParallelGC"  # a local report session's defaults
    assert not any("token" in arg for arg in command)  # the token goes by environment, not argv (ps shows argv)
    for bad in (0, 65536):
        with pytest.raises(ValueError, match="port"):
            server_command(Path("/opt/spark"), bad, "local[2]")
    for key in ("spark.connect.grpc.binding.address", "spark.connect.grpc.binding.port"):
        with pytest.raises(ValueError, match=f"{key} cannot be set"):
            server_command(Path("/opt/spark"), 15010, "local[2]", {key: "0.0.0.0"})
    with pytest.raises(ValueError, match=f"cannot be set: a token goes in \\${TOKEN_ENV}"):
        server_command(Path("/opt/spark"), 15010, "local[2]", {"spark.connect.authenticate.token": "t"})


def test_serve_refuses_reserved_settings_before_starting() -> None:
    done = mqadmin("epochs", "serve", "--conf", "spark.connect.grpc.binding.address=0.0.0.0", timeout=60)
    assert done.returncode == 2
    assert "--conf spark.connect.grpc.binding.address cannot be set: the server binds 127.0.0.1 only" in done.stderr


def test_check_reachable() -> None:
    with socket.socket() as listener:
        listener.bind((LOOPBACK, 0))
        listener.listen()
        port = listener.getsockname()[1]
        check_reachable(f"sc://localhost:{port}")
        check_reachable(f"sc://127.0.0.1:{port}/;token=x")
    with pytest.raises(ConnectServerError, match=f"nothing answers at localhost:{port}"):
        check_reachable(f"sc://localhost:{port}", timeout=2)
    with pytest.raises(ConnectServerError, match="not a Spark Connect URL"):
        check_reachable("http://localhost:15002")


def test_a_taken_port_is_refused_before_anything_starts() -> None:
    with socket.socket() as listener:
        listener.bind((LOOPBACK, 0))
        listener.listen()
        port = listener.getsockname()[1]
        with pytest.raises(ConnectServerError, match=f"port {port} on 127.0.0.1 is taken"):
            start_connect_server(port)


def test_report_against_no_server_fails_at_once(tmp_path: Path) -> None:
    fleet = tmp_path / "fleet"
    synthesize(fleet, clusters=1, sets=2, replicas=2, epochs=2, seed=1)
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        port = probe.getsockname()[1]  # closed again below: nothing listens there
    started = time.monotonic()
    done = mqadmin("epochs", "report", "--input", str(fleet), "--remote", f"sc://localhost:{port}", timeout=60)
    assert done.returncode == 5, done.stderr
    assert f"nothing answers at localhost:{port}" in done.stderr and "mqadmin epochs serve" in done.stderr
    assert time.monotonic() - started < 30  # PySpark alone would retry for minutes
    both = mqadmin("epochs", "report", "--input", str(fleet), "--remote", "sc://x:1", "--master", "local[1]")
    assert both.returncode == 2 and "choose one" in both.stderr
    static = mqadmin("epochs", "report", "--input", str(fleet), "--remote", "sc://x:1",
                     "--conf", "spark.sql.shuffle.partitions=3", "--conf", "spark.driver.memory=3g")  # fmt: skip
    assert static.returncode == 2 and "--conf spark.driver.memory: a Spark Connect session takes only" in static.stderr


def test_sigterm_while_starting_leaves_nothing_running() -> None:
    """The server runs in its own session (no SIGINT from the terminal reaches it): serve must stop it even when
    interrupted before it listens."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mqadmin_py", "epochs", "serve", "--port", "0", "--conf", FAST_SMALL_JOBS],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        servers: list[int] = []
        while not servers and time.monotonic() < deadline:  # the JVM's group leader: a child of serve
            servers = [int(p) for p in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()]
            time.sleep(0.1)
        assert servers, "serve did not start a server"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
        with pytest.raises(ProcessLookupError):
            os.killpg(servers[0], 0)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


# --- a real server ---------------------------------------------------------------------------------------------


def _read_json(fd: int, deadline: float) -> dict[str, Any]:
    """The first JSON document written to the pipe `fd` (printed indented, over several lines). Reads the fd
    itself: a buffered reader could hold the rest of the document where select() no longer sees it."""
    text = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        text += chunk
        try:
            doc: dict[str, Any] = json.loads(text)
            return doc
        except ValueError:
            continue
    raise AssertionError(f"no JSON document from 'mqadmin epochs serve' in time; got {text!r}")


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[subprocess.Popen[bytes], dict[str, Any]]]:
    """``mqadmin epochs serve --port 0 -o json``: the process and its ready document; stopped by pid after."""
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_REMOTE", TOKEN_ENV)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mqadmin_py", "epochs", "serve", "--port", "0", "-o", "json",
         "--conf", FAST_SMALL_JOBS, "--conf", "spark.sql.shuffle.partitions=2"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, start_new_session=True,
    )  # fmt: skip
    assert proc.stdout is not None
    server_pid = None
    try:
        ready = _read_json(proc.stdout.fileno(), time.monotonic() + 240)
        server_pid = ready["pid"]
        yield proc, ready
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for group in (proc.pid, server_pid):  # whatever is left of either, by pid
            if group is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(group, signal.SIGKILL)
        proc.stdout.close()


@pytest.fixture(scope="module")
def fleet_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("connect") / "fleet"
    synthesize(out, clusters=2, sets=6, replicas=3, epochs=4, seed=5)
    return out


def test_remote_report_equals_the_local_one(
    served: tuple[subprocess.Popen[bytes], dict[str, Any]], fleet_dir: Path, spark: SparkSession
) -> None:
    _, ready = served
    assert ready["url"] == f"sc://localhost:{ready['port']}" and ready["token"]
    env = os.environ | {"SPARK_REMOTE": ready["url"], TOKEN_ENV: ready["token"]}
    done = mqadmin("epochs", "report", "--input", str(fleet_dir), "--details", "-o", "json", env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    local = run_report(spark, fleet_dir)
    try:
        expected = json.loads(json.dumps(local.summary(details=True)))
    finally:
        local.unpersist()
    assert json.loads(done.stdout) == expected


def test_a_remote_report_shows_its_stages_on_a_terminal(
    served: tuple[subprocess.Popen[bytes], dict[str, Any]], fleet_dir: Path
) -> None:
    """The server's progress reports feed the same bar as a local session's status tracker."""
    _, ready = served
    env = os.environ | {"SPARK_REMOTE": ready["url"], TOKEN_ENV: ready["token"], "COLUMNS": "100"}
    terminal = Terminal()
    command = [sys.executable, "-m", "mqadmin_py", "epochs", "report", "--input", str(fleet_dir), "-o", "json"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=terminal.child_end, env=env, text=True)
    os.close(terminal.child_end)
    try:
        stdout, _ = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        terminal.close()
    assert proc.returncode == 0, terminal.text[-2000:]
    assert json.loads(stdout)["snapshots"] >= 1
    assert re.search(r"Spark stages \d+/[1-9]", terminal.text) and "Traceback" not in terminal.text, terminal.text


def test_a_wrong_token_is_refused(served: tuple[subprocess.Popen[bytes], dict[str, Any]], fleet_dir: Path) -> None:
    _, ready = served
    env = os.environ | {"SPARK_REMOTE": ready["url"], TOKEN_ENV: "not-" + ready["token"]}
    done = mqadmin("epochs", "report", "--input", str(fleet_dir), env=env, timeout=120)
    assert done.returncode == 5
    assert "UNAUTHENTICATED" in done.stderr and TOKEN_ENV in done.stderr


def test_sigterm_stops_the_server_and_its_jvm(served: tuple[subprocess.Popen[bytes], dict[str, Any]]) -> None:
    proc, ready = served
    os.kill(proc.pid, signal.SIGTERM)
    assert proc.wait(60) == 0
    with pytest.raises(ProcessLookupError):
        os.killpg(ready["pid"], 0)  # spark-submit's group, the JVM in it: all gone
    with pytest.raises(ConnectServerError):
        check_reachable(ready["url"], timeout=2)
