"""Child processes of the tests: loopback ports, start with a log file, signal, stop by pid, run to the exit."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from mqbase.ports import free_port

ROOT = Path(__file__).resolve().parents[2]

_handed_out: set[int] = set()


@contextlib.contextmanager
def taken_port() -> Iterator[int]:
    """A loopback port something listens on for the duration (what a server that wants it must report)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


def unused_port() -> int:
    """A free loopback port never handed out before in this process.

    Ports are chosen before the processes bind them, so the OS may offer a just-released port twice (it did: an
    embedded controller's Raft port and another agent's listen port once collided); remembering them prevents it.
    """
    while (port := free_port("127.0.0.1")) in _handed_out:
        pass
    _handed_out.add(port)
    return port


def stop_process(proc: subprocess.Popen[Any]) -> None:
    """SIGCONT (it may be stopped), SIGTERM, then SIGKILL if it does not exit within 15 s."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGCONT)
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


class ChildProcess:
    """One ``python -m <module>`` child run from the repository root, its output appended to ``dir/<log>``."""

    def __init__(self, directory: Path, log_name: str) -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.log = self.dir / log_name
        self.proc: subprocess.Popen[bytes] | None = None

    def spawn(self, args: list[str], env: Mapping[str, str] | None = None) -> None:
        """Start ``python <args>``; `env` adds environment variables."""
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, *args],
                stdout=log,
                stderr=log,
                env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
                cwd=ROOT,
            )

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig: int) -> None:
        os.kill(self.pid, sig)

    def kill(self) -> None:
        """SIGKILL and reap (a crash)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        """SIGTERM (after SIGCONT), then SIGKILL if it does not exit."""
        if self.proc is not None:
            stop_process(self.proc)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


EXIT_WAIT_S = 60.0
"""How long the second process may take to give up (a second that runs instead never exits: the test fails)."""


def run_second(module: str, config_file: Path) -> subprocess.CompletedProcess[str]:
    """Run `python -m module -c config_file`, expected to exit; a process still running at EXIT_WAIT_S is killed
    and fails the test."""
    proc = subprocess.Popen(
        [sys.executable, "-m", module, "-c", str(config_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        out, err = proc.communicate(timeout=EXIT_WAIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the second {module} on the same store kept running: {err[-2000:]}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def run_module(module: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python -m module args`` from the repository root, run to its exit (output captured, as text)."""
    return subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout
    )


def run_mqadmin(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``mqadmin args`` as a user runs it, without a sandbox (``sandbox.Cli`` runs it against one)."""
    return run_module("mqadmin_py", *args, timeout=timeout)
