"""``mqadmin epochs report`` as an operator runs it, on a terminal: stage progress on stderr, the JVM's output in a
log file instead, and Ctrl-C (SIGINT to the terminal's process group, Python workers included) that cancels the
jobs and ends with one line and exit 130, leaving no JVM behind. One JVM start."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from spark.synth import synthesize
from tests.harness.processes import ROOT
from tests.harness.spark_conf import TEST_CONF
from tests.harness.terminal import Terminal
from tests.harness.wait import wait_until


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (the JVM that PySpark starts through spark-submit, ...)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_progress_a_quiet_stderr_and_ctrl_c(tmp_path: Path) -> None:
    """Before: ~50 s without a word but Spark's log4j lines, then on Ctrl-C some 50 lines of py4j tracebacks."""
    fleet = tmp_path / "fleet"
    synthesize(fleet, clusters=2, sets=6, replicas=3, epochs=4, seed=5)
    conf = [arg for key, value in TEST_CONF.items() for arg in ("--conf", f"{key}={value}")]
    terminal = Terminal()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path), "COLUMNS": "100"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mqadmin_py", "epochs", "report", "--input", str(fleet), "--master", "local[2]",
         "-o", "json", *conf],
        stdout=subprocess.PIPE, stderr=terminal.child_end, stdin=subprocess.DEVNULL, env=env, cwd=ROOT,
        start_new_session=True, text=True,
    )  # fmt: skip
    os.close(terminal.child_end)
    jvms: list[int] = []
    try:
        wait_until(lambda: re.search(r"Spark stages \d+/[1-9]", terminal.text), 240, "a stage in the progress bar")
        jvms = children(proc.pid)
        assert jvms, "PySpark runs its JVM as a child of the command"
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole foreground group hears it
        stdout, _ = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        terminal.close()
    stderr = terminal.text
    assert proc.returncode == 130, stderr[-3000:]
    assert stdout == ""
    assert "Traceback" not in stderr and "py4j" not in stderr.lower(), stderr[-3000:]
    assert "log4j" not in stderr and " WARN " not in stderr and "ERROR" not in stderr, stderr[-3000:]
    assert "mqadmin: stopping the report: cancelling its Spark jobs (Ctrl-C again to quit at once)" in stderr
    [log] = tmp_path.glob("mqadmin-epochs-report-*.log")
    interrupted = f"mqadmin: interrupted: the report's Spark jobs were cancelled, nothing printed; Spark's output " \
                  f"is in {log}\r\n"  # fmt: skip
    assert stderr.endswith(interrupted), stderr[-1000:]
    assert "log4j" in log.read_text(), "the JVM's own lines went to the log"
    wait_until(lambda: not any(alive(pid) for pid in jvms), 60, "the JVM to exit with the command")


@pytest.mark.parametrize("fails", [False, True])
def test_the_jvm_log_is_kept_and_named_only_when_the_report_fails(
    fails: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from mqadmin_py.commands.epochs import _jvm_log
    from mqbase.errors import MqError

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    with contextlib.suppress(MqError), _jvm_log(True) as log:
        assert log is not None and log.parent == tmp_path
        if fails:
            raise MqError("the report failed")
    assert log is not None and log.exists() == fails
    named = f"mqadmin: Spark's output (JVM, log4j, Python workers) is in {log}\n"
    assert capsys.readouterr().err == (named if fails else "")
