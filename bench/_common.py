"""Helpers shared by the controller benchmarks.

Sandbox life cycle (always torn down), a background asyncio loop running fake
brokers (one HeartbeatStream per broker, multiplexed over a few channels),
broker-set setup through the real API, CPU time from /proc, percentiles and
tables. Everything talks to 127.0.0.1 only, and every loop is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import grpc  # noqa: E402
from tabulate import tabulate  # noqa: E402

from mqadmin_py.client import ControllerClient  # noqa: E402
from mqadmin_py.proto import common_pb2 as common  # noqa: E402
from mqadmin_py.proto import controller_pb2 as pb  # noqa: E402
from mqadmin_py.proto import controller_pb2_grpc as pb_grpc  # noqa: E402
from mqadmin_py.sandbox import ControllerProcess, Sandbox  # noqa: E402

__all__ = ["ControllerClient", "Sandbox", "common", "grpc", "pb", "pb_grpc"]

T = TypeVar("T")
BrokerKey = tuple[str, int]
MACHINE_NOTE = f"{os.cpu_count()} cores (shared, noisy); loopback only"


# --- command line, stats, output -------------------------------------------------------------------


def parse_args(doc: str | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: finishes in under 30 s")
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


def ok(response: Any, what: str) -> Any:
    if response.code != 0:
        raise RuntimeError(f"{what}: code {response.code} {response.remark}")
    return response


# --- the sandbox ------------------------------------------------------------------------------------


@contextlib.contextmanager
def sandbox(controllers: int = 3, extra_config: dict[str, str] | None = None) -> Iterator[Sandbox]:
    """A fresh controller group in a temp dir; always stopped and removed on exit."""
    directory = tempfile.mkdtemp(prefix="mqbench-")
    sb = Sandbox(directory)
    try:
        sb.up(controllers=controllers, extra_config=extra_config, timeout=30.0)
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


def metadata(address: str, timeout: float = 1.0) -> pb.GetControllerMetadataResponse | None:
    with ControllerClient(address, timeout=timeout) as client:
        try:
            return client.metadata(address)
        except Exception:
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
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)

    def __enter__(self) -> LoopThread:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def aio_channel(address: str) -> grpc.aio.Channel:
    """A channel with its own TCP connection (no subchannel sharing); call on the loop."""
    return grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])


async def gather_limited(factories: Iterable[Callable[[], Awaitable[T]]], limit: int = 128) -> list[T]:
    """Run the calls the factories start, at most `limit` in flight, results in order.

    Factories, not awaitables: a grpc.aio call starts when it is created, and
    the server cancels RPCs beyond ~1000 pending on one connection.
    """
    sem = asyncio.Semaphore(limit)

    async def one(factory: Callable[[], Awaitable[T]]) -> T:
        async with sem:
            return await factory()

    return list(await asyncio.gather(*(one(f) for f in factories)))


# --- fake brokers -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Broker:
    cluster: str
    name: str
    id: int

    @property
    def key(self) -> BrokerKey:
        return (self.name, self.id)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{30000 + self.id}"

    def beat(self, timeout_ms: int) -> pb.BrokerHeartbeatRequest:
        return pb.BrokerHeartbeatRequest(
            cluster_name=self.cluster, broker_name=self.name, broker_address=self.address,
            broker_id=self.id, epoch=0, max_offset=0, heartbeat_timeout_millis=timeout_ms,
        )  # fmt: skip


def broker_sets(cluster: str, prefix: str, count: int, replicas: int = 3) -> list[list[Broker]]:
    return [[Broker(cluster, f"{prefix}{i}", b) for b in range(1, replicas + 1)] for i in range(count)]


class BrokerFleet:
    """Fake brokers on a LoopThread, each with its own HeartbeatStream beating every `interval_s`.

    Streams are spread over channels of `per_channel` streams each. Role-change
    notifications pushed back are recorded with their arrival time in `notes`.
    """

    def __init__(
        self,
        runner: LoopThread,
        address: str,
        interval_s: float = 1.0,
        timeout_ms: int = 10_000,
        per_channel: int = 200,
        lifetime_s: float = 900.0,
    ) -> None:
        self.runner, self.address, self.interval_s = runner, address, interval_s
        self.timeout_ms, self.per_channel = timeout_ms, per_channel
        self._deadline = time.monotonic() + lifetime_s
        self._channels: list[grpc.aio.Channel] = []
        self._calls: dict[BrokerKey, Any] = {}
        self._tasks: dict[BrokerKey, tuple[asyncio.Task[None], asyncio.Task[None]]] = {}
        self._stream_stub: pb_grpc.ControllerServiceStub | None = None
        self.notes: dict[BrokerKey, list[tuple[float, common.RoleChangeNotification]]] = defaultdict(list)
        self.stub: pb_grpc.ControllerServiceStub = runner.run(self._control_stub())

    async def _control_stub(self) -> pb_grpc.ControllerServiceStub:
        channel = aio_channel(self.address)
        self._channels.append(channel)
        return pb_grpc.ControllerServiceStub(channel)

    def open(self, brokers: Iterable[Broker]) -> None:
        self.runner.run(self._open(list(brokers)))

    async def _open(self, brokers: list[Broker]) -> None:
        for b in brokers:
            if self._stream_stub is None or len(self._calls) % self.per_channel == 0:
                self._stream_stub = await self._control_stub()
            call = self._stream_stub.HeartbeatStream()
            await call.write(b.beat(self.timeout_ms))
            self._calls[b.key] = call
            self._tasks[b.key] = (
                asyncio.ensure_future(self._read(b.key, call)),
                asyncio.ensure_future(self._beat(b, call)),
            )

    async def _read(self, key: BrokerKey, call: Any) -> None:
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
            async for note in call:
                self.notes[key].append((time.perf_counter(), note))

    async def _beat(self, b: Broker, call: Any) -> None:
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError, asyncio.InvalidStateError):
            await asyncio.sleep(random.uniform(0, self.interval_s))
            while time.monotonic() < self._deadline:
                await call.write(b.beat(self.timeout_ms))
                await asyncio.sleep(self.interval_s)

    def crash(self, keys: Iterable[BrokerKey]) -> tuple[float, float]:
        """Cancel these brokers' streams at once (a broker crash); returns perf_counter (start, end)."""
        return self.runner.run(self._crash(list(keys)))

    async def _crash(self, keys: list[BrokerKey]) -> tuple[float, float]:
        start = time.perf_counter()
        for key in keys:
            self._calls.pop(key).cancel()
            for task in self._tasks.pop(key):
                task.cancel()
        return start, time.perf_counter()

    def close(self) -> None:
        self.runner.run(self._close(), timeout=30)

    async def _close(self) -> None:
        await self._crash(list(self._calls))
        for channel in self._channels:
            await channel.close()
        self._channels.clear()

    def __len__(self) -> int:
        return len(self._calls)


# --- broker-set setup through the real API ------------------------------------------------------------


async def wait_alive(stub: pb_grpc.ControllerServiceStub, cluster: str, expected: int, timeout: float = 30.0) -> None:
    """Until the leader reports `expected` alive replicas in `cluster`."""
    alive = 0
    for _ in bounded(100_000, timeout):
        resp = ok(await stub.GetSyncStateData(pb.GetSyncStateDataRequest(cluster_name=cluster)), "GetSyncStateData")
        alive = sum(r.alive for i in resp.replicas_info for r in (*i.in_sync_replicas, *i.not_in_sync_replicas))
        if alive >= expected:
            return
        await asyncio.sleep(0.05)
    raise RuntimeError(f"only {alive} of {expected} brokers alive in {cluster} after {timeout:g} s")


async def _register(
    stub: pb_grpc.ControllerServiceStub, sets: list[list[Broker]], fleet: BrokerFleet, timings: dict[str, float]
) -> dict[str, Any]:
    mark = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        timings[name] = now - mark
        mark = now

    def apply(b: Broker) -> Awaitable[Any]:
        code = f"{b.address};{time.time_ns() // 1_000_000}"
        req = pb.ApplyBrokerIdRequest(
            cluster_name=b.cluster, broker_name=b.name, applied_broker_id=b.id, register_check_code=code
        )
        return stub.ApplyBrokerId(req, timeout=30)

    for phase in (lambda b: b.id == 1, lambda b: b.id != 1):  # the first id creates the set
        for resp in await gather_limited(partial(apply, b) for s in sets for b in s if phase(b)):
            ok(resp, "ApplyBrokerId")
    lap("ApplyBrokerId")
    await fleet._open([b for s in sets for b in s])
    lap("open streams")
    await wait_alive(stub, sets[0][0].cluster, sum(len(s) for s in sets))
    lap("all alive")
    elect = [
        partial(stub.ElectMaster, pb.ElectMasterRequest(broker_name=s[0].name, broker_id=1), timeout=30) for s in sets
    ]
    epochs: dict[str, Any] = {}
    for s, resp in zip(sets, await gather_limited(elect), strict=True):
        ok(resp, "ElectMaster")
        epochs[s[0].name] = (resp.master_epoch, resp.sync_state_set_epoch)
    lap("ElectMaster")

    def expand(s: list[Broker]) -> Awaitable[Any]:
        m_epoch, sss_epoch = epochs[s[0].name]
        sss = common.SyncStateSet(broker_ids=[b.id for b in s], sync_state_set_epoch=sss_epoch)
        req = pb.AlterSyncStateSetRequest(
            broker_name=s[0].name, master_broker_id=1, master_epoch=m_epoch, new_sync_state_set=sss
        )
        return stub.AlterSyncStateSet(req, timeout=30)

    for s, resp in zip(sets, await gather_limited(partial(expand, s) for s in sets), strict=True):
        ok(resp, "AlterSyncStateSet")
        epochs[s[0].name] = (epochs[s[0].name][0], resp.new_sync_state_set_epoch)
    lap("AlterSyncStateSet")
    return epochs


def register_sets(
    fleet: BrokerFleet, sets: list[list[Broker]], timings: dict[str, float] | None = None
) -> dict[str, tuple[int, int]]:
    """Register every broker id, open its heartbeat stream, elect broker 1 and set SSS = all replicas.

    Returns broker name → (masterEpoch, syncStateSetEpoch) after the setup; `timings`
    (if given) receives the seconds each phase took.
    """
    return fleet.runner.run(_register(fleet.stub, sets, fleet, {} if timings is None else timings))
