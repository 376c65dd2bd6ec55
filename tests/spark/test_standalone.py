"""The report on a real Spark standalone cluster: a master and a worker started from the installed pyspark on
loopback (ephemeral ports), ``mqadmin epochs report --master spark://…`` and ``spark-submit spark/report.py``
against it, each document equal to a local session's, and a run whose executors cannot import pyarrow.

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
FAST_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"  # small jobs start faster
JOB_CONF = {
    "spark.sql.shuffle.partitions": "2",
    "spark.executor.memory": "512m",
    "spark.cores.max": "1",  # the three reports run at once
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
    """A master and a worker offering 3 cores (one per report) on 127.0.0.1, ephemeral ports, web UIs too."""
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
                        ["--host", "127.0.0.1", "--port", "0", "--webui-port", "0", "--cores", "3",
                         "--memory", "2g", "--work-dir", str(work_dir), url], worker_log)  # fmt: skip
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


@dataclass
class Run:
    """A finished report process: its exit status and what it printed."""

    returncode: int
    stdout: str
    stderr: str


def _client_env() -> dict[str, str]:
    """This environment without Spark's variables: what a report does on its own is under test."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_", "SPARK_"))}


def _python_without_pyarrow(directory: Path) -> Path:
    """An interpreter for the executors that cannot import pyarrow, as a cluster's bare python3."""
    shim = directory / "shim" / "pyarrow"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'pyarrow'\", name='pyarrow')\n")
    python = directory / "python-without-pyarrow"
    path = f'PYTHONPATH="{shim.parent}${{PYTHONPATH:+:$PYTHONPATH}}"'
    python.write_text(f'#!/bin/sh\n{path} exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    return python


@pytest.fixture(scope="module")
def runs(
    standalone: Standalone, expected: tuple[Path, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, Run], set[str]]:
    """Three reports on the cluster at once, one core each (most of a small job's time is JVM start and
    scheduling, not computing): mqadmin, spark-submit, and mqadmin with executors that lack pyarrow. Returns each
    run and the applications the worker ran executors for meanwhile."""
    fleet, _ = expected
    base = tmp_path_factory.mktemp("standalone-runs")
    mqadmin = [sys.executable, "-m", "mqadmin_py", "epochs", "report", "--input", str(fleet),
               "--master", standalone.url, *CONF_ARGS]  # fmt: skip
    submit = [str(SPARK_HOME / "bin" / "spark-submit"), "--master", standalone.url, *CONF_ARGS,
              str(REPO / "spark" / "report.py"), "--input", str(fleet), "--details"]  # fmt: skip
    commands = {
        "mqadmin": ([*mqadmin, "--details", "-o", "json"], _client_env()),
        # spark-submit starts the driver's interpreter and JVM itself: these two are its to know.
        "spark-submit": (submit, _client_env() | {"PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}),
        "no-pyarrow": (
            [*mqadmin, "--conf", "spark.task.maxFailures=1"],
            _client_env() | {"PYSPARK_PYTHON": str(_python_without_pyarrow(base))},
        ),
    }
    before = standalone.apps()
    started: dict[str, subprocess.Popen[bytes]] = {}
    try:
        for name, (command, env) in commands.items():
            with (base / f"{name}.out").open("wb") as out, (base / f"{name}.err").open("wb") as err:
                started[name] = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=REPO,
                                                 stdin=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
        codes = {name: proc.wait(300) for name, proc in started.items()}
    finally:
        for proc in started.values():
            if proc.poll() is None:
                _stop(proc)
    done = {
        name: Run(code, (base / f"{name}.out").read_text(), (base / f"{name}.err").read_text())
        for name, code in codes.items()
    }
    return done, standalone.apps() - before


def test_every_run_was_an_application_on_the_cluster_with_the_packages(
    runs: tuple[dict[str, Run], set[str]], standalone: Standalone
) -> None:
    """None fell back to local mode (spark-submit did: the same document, but no application on the cluster)."""
    done, apps = runs
    assert len(apps) == len(done), f"{len(done)} reports, {len(apps)} applications on {standalone.url}"
    for app in apps:
        assert list((standalone.work_dir / app).glob("*/mqadmin_spark_job.zip")), f"{app}: packages not shipped"


def test_mqadmin_report_on_the_cluster(
    runs: tuple[dict[str, Run], set[str]], expected: tuple[Path, dict[str, Any]]
) -> None:
    """Executors on this machine run this interpreter (``python3`` from PATH would lack pyarrow)."""
    run = runs[0]["mqadmin"]
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout) == expected[1]


def test_spark_submit_report_on_the_cluster(
    runs: tuple[dict[str, Run], set[str]], expected: tuple[Path, dict[str, Any]]
) -> None:
    run = runs[0]["spark-submit"]
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout) == expected[1]


def test_executors_without_pyarrow_fail_in_one_line(runs: tuple[dict[str, Run], set[str]]) -> None:
    """Exit 1 and one line naming the missing module and what executors need, not the worker's traceback."""
    run = runs[0]["no-pyarrow"]
    assert run.returncode == 1, run.stderr[-3000:]
    assert "Traceback" not in run.stderr and run.stdout == "", run.stderr[-3000:]
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("mqadmin: the report's Python step failed on an executor: ModuleNotFoundError: No module ")
    assert "pyarrow" in last and "$PYSPARK_PYTHON" in last
