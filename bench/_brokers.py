"""Fake brokers for the controller benchmarks, and broker-set setup through the real API.

A `BrokerFleet` runs on a `LoopThread`: one HeartbeatStream per broker (the
stream's key is the broker), multiplexed over a few grpc.aio channels.
`register_sets` registers broker sets, opens their streams, elects broker 1
and expands the SyncStateSet to every replica.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from _common import LoopThread, bounded, common, controller_stub, grpc, ok, pb, pb_grpc

T = TypeVar("T")
BrokerKey = tuple[str, int]


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

    Streams are spread over channels of `per_channel` streams each and opened in
    chunks (the server cancels calls beyond ~1000 waiting to be accepted). A
    broker whose stream breaks reconnects, as a real one would (`reconnects`
    counts it); `crash` cancels streams for good. Role-change notifications
    pushed back are recorded with their arrival time in `notes`.
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
        self._stubs: dict[BrokerKey, pb_grpc.ControllerServiceStub] = {}
        self._calls: dict[BrokerKey, Any] = {}
        self._tasks: dict[BrokerKey, asyncio.Task[None]] = {}
        self.reconnects = 0
        self.hung: set[BrokerKey] = set()  # brokers that keep their stream open but stop beating
        self.beats_sent = 0
        self.notes: dict[BrokerKey, list[tuple[float, common.RoleChangeNotification]]] = defaultdict(list)
        self.stub: pb_grpc.ControllerServiceStub = runner.run(self._new_stub())

    async def _new_stub(self) -> pb_grpc.ControllerServiceStub:
        channel = aio_channel(self.address)
        self._channels.append(channel)
        return controller_stub(channel)

    def open(self, brokers: Iterable[Broker]) -> None:
        self.runner.run(self._open(list(brokers)))

    async def _open(self, brokers: list[Broker], chunk: int = 100) -> None:
        stub = None
        for i in range(0, len(brokers), chunk):
            firsts = []
            for b in brokers[i : i + chunk]:
                if stub is None or len(self._stubs) % self.per_channel == 0:
                    stub = await self._new_stub()
                self._stubs[b.key] = stub
                first: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                self._tasks[b.key] = asyncio.ensure_future(self._run_broker(b, first))
                firsts.append(first)
            await asyncio.wait_for(asyncio.gather(*firsts), 60)
            await self.stub.GetControllerMetadata(pb.GetControllerMetadataRequest(), timeout=30)

    async def _run_broker(self, b: Broker, first: asyncio.Future[None]) -> None:
        for _attempt in range(1000):
            if time.monotonic() >= self._deadline:
                return
            call = self._calls[b.key] = self._stubs[b.key].HeartbeatStream()
            reader = asyncio.ensure_future(self._read(b.key, call))
            try:
                await call.write(b.beat(self.timeout_ms))
                if not first.done():
                    first.set_result(None)
                    await asyncio.sleep(random.uniform(0, self.interval_s))
                while time.monotonic() < self._deadline:
                    if b.key not in self.hung:
                        await call.write(b.beat(self.timeout_ms))
                        self.beats_sent += 1
                    await asyncio.sleep(self.interval_s)
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                self.reconnects += 1
                await asyncio.sleep(0.2)
            finally:
                reader.cancel()
                call.cancel()

    async def _read(self, key: BrokerKey, call: Any) -> None:
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
            async for note in call:
                self.notes[key].append((time.perf_counter(), note))

    def crash(self, keys: Iterable[BrokerKey]) -> tuple[float, float]:
        """Cancel these brokers' streams at once (a broker crash); returns perf_counter (start, end)."""
        return self.runner.run(self._crash(list(keys)))

    async def _crash(self, keys: list[BrokerKey]) -> tuple[float, float]:
        start = time.perf_counter()
        for key in keys:
            for item in (self._tasks.pop(key, None), self._calls.pop(key, None)):
                if item is not None:
                    item.cancel()
        return start, time.perf_counter()

    def close(self) -> None:
        self.runner.run(self._close(), timeout=30)

    async def _close(self) -> None:
        await self._crash(list(self._tasks))
        for channel in self._channels:
            await channel.close()
        self._channels.clear()

    def __len__(self) -> int:
        return len(self._tasks)


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
        call: Awaitable[Any] = stub.ApplyBrokerId(req, timeout=30)
        return call

    phases: tuple[Callable[[Broker], bool], ...] = (lambda b: b.id == 1, lambda b: b.id != 1)
    for phase in phases:  # the first id creates the set
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
        call: Awaitable[Any] = stub.AlterSyncStateSet(req, timeout=30)
        return call

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
