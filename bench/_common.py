"""Helpers shared by the controller benchmarks.

Sandbox life cycle (always torn down, logs summarised), a background asyncio
loop, CPU time from /proc, percentiles and tables. Fake brokers live in
_brokers.py. Everything talks to 127.0.0.1 only, and every loop is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import grpc  # noqa: E402
from tabulate import tabulate  # noqa: E402

from mqadmin_py.sandbox import ControllerProcess, Sandbox  # noqa: E402
from mqbase.client import ControllerClient  # noqa: E402
from mqbase.errors import MqError  # noqa: E402
from mqbase.proto import common_pb2 as common  # noqa: E402
from mqbase.proto import controller_pb2 as pb  # noqa: E402
from mqbase.proto import controller_pb2_grpc as pb_grpc  # noqa: E402

__all__ = ["ControllerClient", "MqError", "Sandbox", "common", "grpc", "pb", "pb_grpc"]

T = TypeVar("T")
BrokerKey = tuple[str, int]


def machine_note() -> str:
    """Cores and the current load average: other work on the shared machine skews every figure."""
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    return f"{os.cpu_count()} cores (shared, noisy), load average {load}; loopback only"


# --- command line, stats, output -------------------------------------------------------------------


def parse_args(doc: str | None, extra: Callable[[argparse.ArgumentParser], None] | None = None) -> argparse.Namespace:
    """``--quick`` and whatever options `extra` adds to the parser."""
    parser = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: finishes in under 30 s")
    if extra is not None:
        extra(parser)
    return parser.parse_args()


def bounded(count: int, seconds: float) -> Iterator[int]:
    """0, 1, 2, ... until `count` items or `seconds` have passed, whichever comes first."""
    deadline = time.perf_counter() + seconds
    for i in range(count):
        if time.perf_counter() >= deadline:
            return
        yield i


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, q in [0, 100]; nan for no values."""
    if not values:
        return float("nan")
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def print_table(title: str, headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    print(
        f"\n{title}\n" + tabulate(list(rows), headers=list(headers), tablefmt="github", disable_numparse=True),
        flush=True,
    )


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def controller_stub(channel: grpc.Channel | grpc.aio.Channel) -> pb_grpc.ControllerServiceStub:
    """A ControllerService stub on `channel`: the one call of the generated constructor, which has no annotations."""
    return pb_grpc.ControllerServiceStub(channel)  # type: ignore[no-untyped-call]  # generated, unannotated


def ok(response: Any, what: str) -> Any:
    if response.code != 0:
        raise RuntimeError(f"{what}: code {response.code} {response.remark}")
    return response


# --- the sandbox ------------------------------------------------------------------------------------


@contextlib.contextmanager
def sandbox(
    controllers: int = 3,
    extra_config: dict[str, str] | None = None,
    broker_sets: int = 0,
    replicas: int = 3,
    broker_config: dict[str, str] | None = None,
) -> Iterator[Sandbox]:
    """A fresh controller group (and `broker_sets` sets on `replicas` agents, with `broker_config` in every broker's
    file) in a temp dir; always stopped and removed."""
    directory = tempfile.mkdtemp(prefix="mqbench-")
    sb = Sandbox(directory)
    try:
        sb.up(controllers=controllers, extra_config=extra_config, timeout=60.0, broker_sets=broker_sets,
              replicas=replicas, broker_config=broker_config)  # fmt: skip
        yield sb
    except BaseException:
        for log in sorted(Path(directory, "logs").glob("*.log")):
            tail = log.read_text(errors="replace").splitlines()[-15:]
            print(f"--- tail of {log.name}\n" + "\n".join(tail), file=sys.stderr)
        raise
    finally:
        try:
            sb.down()
        finally:
            shutil.rmtree(directory, ignore_errors=True)


def metadata(
    address: str, timeout: float = 1.0, client: ControllerClient | None = None
) -> pb.GetControllerMetadataResponse | None:
    """One node's metadata, or None if it does not answer (uses `client`'s channels when given)."""
    with contextlib.ExitStack() as stack:
        if client is None:
            client = stack.enter_context(ControllerClient(address, timeout=timeout))
        try:
            return client.metadata(address)
        except MqError:
            return None


def leader_node(sb: Sandbox, timeout: float = 30.0) -> ControllerProcess:
    """The node that leads and serves now."""
    leader_id = sb.wait_for_leader(timeout)
    return next(n for n in sb.controllers() if n.id == leader_id)


# --- a background event loop --------------------------------------------------------------------------


class LoopThread:
    """An asyncio loop on a daemon thread; `run(coro)` blocks for its result."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="bench-loop", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 300.0) -> T:
        return self.submit(coro).result(timeout)

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)

    def __enter__(self) -> LoopThread:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def log_summary(sb: Sandbox) -> str:
    """Problems the controller logs show (ERROR/CRITICAL lines, first of each) and the Raft terms served."""
    counts = {" ERROR ": 0, " CRITICAL ": 0}
    firsts: dict[str, str] = {}
    terms: set[int] = set()
    for node in sb.controllers():
        for line in Path(node.logFile).read_text(errors="replace").splitlines():
            for level in counts:
                if level in line:
                    counts[level] += 1
                    firsts.setdefault(level, line[:220])
            if "leader barrier committed in term" in line:
                terms.add(int(line.split("in term ")[1].split(";")[0]))
    errors, critical = counts[" ERROR "], counts[" CRITICAL "]
    text = f"controller logs: {errors} ERROR, {critical} CRITICAL lines; terms served: {sorted(terms)}"
    return text + "".join(f"\n  first{level.rstrip()}: {line}" for level, line in firsts.items())


SEND_PAUSE_S = 0.01
"""The failover benchmarks' producer pause between sends."""


class SendLoop:
    """A producer on a thread: `send(i)`, pause `SEND_PAUSE_S`, `send(i + 1)` ... until stopped; each send's
    (monotonic start, end, the error it raised or None). What the client raises is the outcome measured."""

    def __init__(self, send: Callable[[int], object], close: Callable[[], object], name: str) -> None:
        self._send, self._close = send, close
        self._sends: list[tuple[float, float, str | None]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        i = 0
        while not self._stop.is_set():
            began = time.monotonic()
            error = None
            try:
                self._send(i)
            except Exception as exc:  # the outcome measured, whatever the client raises
                error = f"{type(exc).__name__}: {exc}"
            with self._lock:
                self._sends.append((began, time.monotonic(), error))
            i += 1
            self._stop.wait(SEND_PAUSE_S)

    def sends(self) -> list[tuple[float, float, str | None]]:
        with self._lock:
            return list(self._sends)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(60)
        self._close()
