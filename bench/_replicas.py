"""Helpers shared by the data-plane benchmarks (replication.py, put_latency.py).

Replicas (``agents.ha.replica.Replica``) run in the benchmark process
(``Cluster``) or each in a child process of its own (``Child``, running
``_replica_child.py``), on loopback, with real stores in a temp directory; a
stand-in controller confirms every SyncStateSet proposal (as in
tests/integration/test_replication.py), so the data plane is measured on its
own. ``Cluster`` closes every replica it made and removes the directory;
``Child`` kills its process if it is still running on exit. Every wait is
bounded in time.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from _common import ROOT

from agents.ha.config import HAConfig
from agents.ha.replica import Replica
from agents.store.record import Message

SEGMENT = 64 * 1024 * 1024
TOPIC = "BenchTopic"
MB = 1_000_000
TICK = os.sysconf("SC_CLK_TCK")
CHILD = ROOT / "bench" / "_replica_child.py"


class Controller:
    """Plays the controller for SyncStateSet changes: confirms every proposal of the current master."""

    def __init__(self) -> None:
        self.epoch = 1
        self.master: Replica | None = None
        self.lock = threading.Lock()

    def on_propose(self, new_set: frozenset[int]) -> None:
        with self.lock:
            master = self.master
            if master is None or master.master is None:
                return
            self.epoch += 1
            master.master.confirm(new_set, self.epoch)


class Cluster:
    """Replicas under one temp directory; `close()` closes them all and removes the directory."""

    def __init__(self, prefix: str = "mqbench-ha-") -> None:
        self.dir = Path(tempfile.mkdtemp(prefix=prefix))
        self.controller = Controller()
        self.replicas: list[Replica] = []

    def replica(self, broker_id: int, config: HAConfig, name: str | None = None) -> Replica:
        replica = Replica(self.dir / (name or f"b{broker_id}"), broker_id, config, SEGMENT)
        self.replicas.append(replica)
        return replica

    def start_master(self, replica: Replica, members: frozenset[int] | None = None, epoch: int = 1) -> str:
        """Make `replica` master in `epoch`; returns the HA address slaves follow."""
        self.controller.master = replica
        port = replica.change_to_master(
            epoch, members or frozenset({replica.broker_id}), self.controller.epoch, self.controller.on_propose
        )
        return f"127.0.0.1:{port}"

    def drop(self, replica: Replica, delete: bool = True) -> None:
        """Close one replica (and delete its files unless told not to)."""
        replica.close()
        if replica in self.replicas:
            self.replicas.remove(replica)
        if delete:
            shutil.rmtree(replica.root, ignore_errors=True)

    def close(self) -> None:
        try:
            for replica in reversed(self.replicas):
                with contextlib.suppress(Exception):
                    replica.close()
            self.replicas.clear()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class Child:
    """One ``_replica_child.py`` process: started and set up on entry, told to finish (killed if it does not) on
    exit.

    ``go()`` lets it start working; ``done()`` waits for its report: (``time.monotonic()`` when it finished,
    its CPU seconds since ``go``). It keeps its connections until exit, so the caller can still read the
    CPU of the threads serving it.
    """

    def __init__(self, *args: object, timeout: float, script: Path = CHILD) -> None:
        """`script`: another checkout's ``_replica_child.py`` runs that checkout's code (``slave_ab.py``)."""
        self._timeout = timeout
        self._command = " ".join(map(str, args))
        self._proc = subprocess.Popen(
            [sys.executable, str(script), *map(str, args)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self._expect("ready")

    def go(self) -> None:
        self._say("go")

    def done(self) -> tuple[float, float]:
        _, finished, cpu = self._expect("done")
        return float(finished), float(cpu)

    def _say(self, line: str) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()

    def _expect(self, word: str) -> list[str]:
        """The child's next line, which must start with `word` (a line is written whole, so poll then read; poll,
        not select: a master with thousands of queue files holds descriptors above select's limit)."""
        out = self._proc.stdout
        assert out is not None
        poller = select.poll()
        poller.register(out, select.POLLIN)
        ready = poller.poll(self._timeout * 1000)
        fields = out.readline().split() if ready else []
        if not fields or fields[0] != word:
            raise RuntimeError(f"child {self._command!r} said {fields or 'nothing'} instead of {word!r}")
        return fields

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *_exc: object) -> None:
        with contextlib.suppress(OSError):
            self._say("exit")
        try:
            code = self._proc.wait(self._timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
            raise RuntimeError(f"child {self._command!r} did not exit") from None
        if code != 0:
            raise RuntimeError(f"child {self._command!r} exited with {code}")


def wait_until(predicate: Callable[[], bool], timeout: float, what: str, interval: float = 0.002) -> float:
    """Seconds until `predicate()` held (polled every `interval`); TimeoutError after `timeout`."""
    start = time.perf_counter()
    deadline = start + timeout
    while not predicate():
        if time.perf_counter() >= deadline:
            raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)
    return time.perf_counter() - start


def messages(count: int, body_size: int, first: int = 0, queues: int = 8) -> list[Message]:
    """`count` messages of `body_size` bytes, message i in queue i mod `queues`."""
    body = bytes(range(256)) * (body_size // 256) + b"x" * (body_size % 256)
    now = int(time.time() * 1000)
    return [Message(TOPIC, (first + i) % queues, body, {"KEYS": f"k{first + i}"}, now) for i in range(count)]


def preload(replica: Replica, total_bytes: int, body_size: int, per_put: int, timeout: float, queues: int = 8) -> int:
    """Put messages on a lone master until its log holds `total_bytes`, round-robin over `queues` queues;
    returns the number of puts."""
    puts = 0
    deadline = time.perf_counter() + timeout
    while replica.store.max_offset < total_bytes:
        if time.perf_counter() >= deadline:
            raise TimeoutError(f"preload reached only {replica.store.max_offset} of {total_bytes} bytes")
        result = replica.put(messages(per_put, body_size, puts * per_put, queues))
        if result.status.name != "PUT_OK":
            raise RuntimeError(f"preload put failed: {result.status}")
        puts += 1
    return puts


def thread_cpu() -> dict[int, tuple[str, float]]:
    """Native thread id -> (name, CPU seconds user + system) of this process's live Python threads."""
    out: dict[int, tuple[str, float]] = {}
    for t in threading.enumerate():
        if t.native_id is None:
            continue
        try:
            stat = Path(f"/proc/self/task/{t.native_id}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        out[t.native_id] = (t.name, (int(fields[11]) + int(fields[12])) / TICK)
    return out


def thread_cpu_delta(before: dict[int, tuple[str, float]]) -> dict[str, float]:
    """CPU seconds each thread name used since `before` (threads started since then count from zero)."""
    out: dict[str, float] = {}
    for tid, (name, cpu) in thread_cpu().items():
        out[name] = out.get(name, 0.0) + cpu - before.get(tid, (name, 0.0))[1]
    return out


@contextlib.contextmanager
def cpu_window() -> Iterator[dict[str, float]]:
    """Wall and process CPU seconds of the block: fills 'wall' and 'cpu' in the yielded dict on exit."""
    box: dict[str, float] = {}
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield box
    finally:
        box["wall"], box["cpu"] = time.perf_counter() - wall, time.process_time() - cpu


def mbps(nbytes: int, seconds: float) -> float:
    return nbytes / MB / seconds if seconds > 0 else float("nan")
