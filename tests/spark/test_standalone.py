"""The report on a real Spark standalone cluster: a master and a worker started from the installed pyspark on
loopback (ephemeral ports), ``mqadmin epochs report --master spark://…`` and ``spark-submit spark/report.py``
against it, each document equal to a local session's.

Each run must register an application with the master that the worker ran executors for, with the ``agents`` and
``spark`` packages shipped to them as a zip: a run that silently fell back to local mode would give the same
document.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyspark
import pytest
from pyspark.sql import SparkSession

from spark.report import run_report
from spark.synth import synthesize

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SPARK_HOME = Path(os.environ.get("SPARK_HOME") or Path(pyspark.__file__).parent)
REPO = Path(__file__).resolve().parents[2]
FAST_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"  # small jobs start faster (platform notes §2.1)
JOB_CONF = {
    "spark.sql.shuffle.partitions": "2",
    "spark.executor.memory": "512m",
    "spark.driver.extraJavaOptions": FAST_JVM,
    "spark.executor.extraJavaOptions": FAST_JVM,
}
CONF_ARGS = [arg for key, value in JOB_CONF.items() for arg in ("--conf", f"{key}={value}")]
MASTER_URL = re.compile(rb"Starting Spark master at (spark://127\.0\.0\.1:\d+)")


@dataclass
class Standalone:
    """A running master and worker: the master's URL and the worker's directory of application runs."""

    url: str
    work_dir: Path

    def apps(self) -> set[str]:
        return {p.name for p in self.work_dir.glob("app-*")}


def _daemon_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_", "SPARK_"))}
    return env | {
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_DAEMON_JAVA_OPTS": FAST_JVM,
        "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",  # its REST server would take the fixed port 6066
    }


def _start(cls: str, args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [str(SPARK_HOME / "bin" / "spark-class"), cls, *args], stdin=subprocess.DEVNULL, stdout=out,
            stderr=subprocess.STDOUT, env=_daemon_env(), start_new_session=True,
        )  # fmt: skip


def _wait_log(proc: subprocess.Popen[bytes], log: Path, pattern: re.Pattern[bytes], timeout: float) -> re.Match[bytes]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = pattern.search(log.read_bytes())
        if found is not None:
            return found
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    raise AssertionError(f"{log.name}: no {pattern.pattern!r} in time; it says:\n{log.read_text()[-3000:]}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the daemon's group (spark-class and its JVM), SIGKILL if it lingers."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.fixture(scope="module")
def standalone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Standalone]:
    """A master and a 2-core worker on 127.0.0.1, ephemeral ports, web UIs on ephemeral ports too."""
    base = tmp_path_factory.mktemp("standalone")
    work_dir = base / "work"
    started: list[subprocess.Popen[bytes]] = []
    try:
        master_log = base / "master.log"
        master = _start("org.apache.spark.deploy.master.Master",
                        ["--host", "127.0.0.1", "--port", "0", "--webui-port", "0"], master_log)  # fmt: skip
        started.append(master)
        url = _wait_log(master, master_log, MASTER_URL, 120).group(1).decode()
        worker_log = base / "worker.log"
        worker = _start("org.apache.spark.deploy.worker.Worker",
                        ["--host", "127.0.0.1", "--port", "0", "--webui-port", "0", "--cores", "2",
                         "--memory", "1g", "--work-dir", str(work_dir), url], worker_log)  # fmt: skip
        started.append(worker)
        _wait_log(worker, worker_log, re.compile(rb"Successfully registered with master"), 120)
        yield Standalone(url, work_dir)
    finally:
        for proc in reversed(started):
            _stop(proc)


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory, spark: SparkSession) -> tuple[Path, dict[str, Any]]:
    """A small synthetic fleet and its report in the shared local session."""
    fleet = tmp_path_factory.mktemp("standalone-fleet") / "fleet"
    synthesize(fleet, clusters=2, sets=6, replicas=3, epochs=4, seed=5)
    local = run_report(spark, fleet)
    try:
        return fleet, json.loads(json.dumps(local.summary(details=True)))
    finally:
        local.unpersist()


def _run(command: list[str], env: dict[str, str], cluster: Standalone) -> dict[str, Any]:
    """Run `command` (a report printing its JSON document); it must have run as one new application on the
    cluster, whose executors received the shipped packages."""
    before = cluster.apps()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    new = cluster.apps() - before
    assert len(new) == 1, f"not run on {cluster.url} (applications: {sorted(new)})"
    assert list((cluster.work_dir / new.pop()).glob("*/mqadmin_spark_job.zip")), "packages not shipped"
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def _client_env() -> dict[str, str]:
    """This environment without Spark's variables: what a report does on its own is under test."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_", "SPARK_"))}


def test_mqadmin_report_on_the_cluster(standalone: Standalone, expected: tuple[Path, dict[str, Any]]) -> None:
    """Executors on this machine run this interpreter (``python3`` from PATH would lack pyarrow)."""
    fleet, doc = expected
    command = [sys.executable, "-m", "mqadmin_py", "epochs", "report", "--input", str(fleet),
               "--master", standalone.url, "--details", "-o", "json", *CONF_ARGS]  # fmt: skip
    assert _run(command, _client_env(), standalone) == doc


def test_spark_submit_report_on_the_cluster(standalone: Standalone, expected: tuple[Path, dict[str, Any]]) -> None:
    """spark-submit --master spark://… spark/report.py runs there, not in local mode."""
    fleet, doc = expected
    command = [str(SPARK_HOME / "bin" / "spark-submit"), "--master", standalone.url, *CONF_ARGS,
               str(REPO / "spark" / "report.py"), "--input", str(fleet), "--details"]  # fmt: skip
    # spark-submit starts the driver's interpreter and JVM itself: these two are its to know.
    env = _client_env() | {"PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    assert _run(command, env, standalone) == doc


def test_executors_without_pyarrow_fail_in_one_line(
    standalone: Standalone, expected: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """An interpreter on the executors that cannot import pyarrow (a cluster's bare python3): exit 1 and one line
    naming the missing module and what executors need, not the worker's traceback."""
    fleet, _ = expected
    shim = tmp_path / "shim" / "pyarrow"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'pyarrow'\", name='pyarrow')\n")
    python = tmp_path / "python-without-pyarrow"
    python.write_text(
        f'#!/bin/sh\nPYTHONPATH="{shim.parent}${{PYTHONPATH:+:$PYTHONPATH}}" exec {sys.executable} "$@"\n'
    )
    python.chmod(0o755)
    command = [sys.executable, "-m", "mqadmin_py", "epochs", "report", "--input", str(fleet),
               "--master", standalone.url, *CONF_ARGS, "--conf", "spark.task.maxFailures=1"]  # fmt: skip
    env = _client_env() | {"PYSPARK_PYTHON": str(python)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert done.returncode == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and done.stdout == "", done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("mqadmin: the report's Python step failed on an executor: ModuleNotFoundError: No module ")
    assert "pyarrow" in last and "$PYSPARK_PYTHON" in last
