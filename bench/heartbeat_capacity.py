"""Heartbeats one controller node absorbs, and its CPU cost per 1000 brokers beating every 1 s.

A single-node group (heartbeats are served locally on every node, leader or
not; one node keeps the other two processes off the 2 cores). Phases:

1. idle: the node's CPU with no brokers (the baseline);
2. saturation: unary BrokerHeartbeat from 64 concurrent callers, and beats
   written back-to-back on 64 HeartbeatStreams (a stream's beats count once
   the server has read them all: the bench half-closes and waits for the end);
3. 1000 brokers beating every 1 s, over streams and over unary calls: the
   node's CPU time (/proc/<pid>/stat) over a fixed window.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import TypeVar

from _brokers import Broker, BrokerFleet, aio_channel
from _common import (
    LoopThread,
    controller_stub,
    cpu_seconds,
    log_summary,
    machine_note,
    parse_args,
    print_table,
    sandbox,
)

T = TypeVar("T")
CALLERS = 64
BROKERS = 1000
WARM_S = 1.5


async def unary_max(address: str, seconds: float) -> int:
    channel = aio_channel(address)
    stub = controller_stub(channel)
    deadline = time.perf_counter() + seconds

    async def caller(i: int) -> int:
        beat = Broker("hb-cluster", f"hb-unary-{i}", 1).beat(10_000)
        done = 0
        while time.perf_counter() < deadline and done < 1_000_000:
            resp = await stub.BrokerHeartbeat(beat, timeout=10)
            done += resp.code == 0
        return done

    try:
        return sum(await asyncio.gather(*(caller(i) for i in range(CALLERS))))
    finally:
        await channel.close()


async def stream_max(address: str, seconds: float) -> tuple[int, float]:
    """(beats the server read, seconds until it had read them all)."""
    channels = [aio_channel(address) for _ in range(4)]
    start = time.perf_counter()
    deadline = start + seconds

    async def streamer(i: int) -> int:
        beat = Broker("hb-cluster", f"hb-stream-{i}", 1).beat(10_000)
        call = controller_stub(channels[i % len(channels)]).HeartbeatStream()
        sent = 0
        while time.perf_counter() < deadline and sent < 1_000_000:
            await call.write(beat)
            sent += 1
        await call.done_writing()
        async for _ in call:  # the server ends the call once it has read our last beat
            pass
        return sent

    try:
        total = sum(await asyncio.gather(*(streamer(i) for i in range(CALLERS))))
        return total, time.perf_counter() - start
    finally:
        for channel in channels:
            await channel.close()


async def unary_fleet(address: str, count: int, interval: float, seconds: float, done: list[int]) -> None:
    """`count` brokers each calling BrokerHeartbeat every `interval` for `seconds`; counts beats in done[0]."""
    channel = aio_channel(address)
    stub = controller_stub(channel)
    deadline = time.perf_counter() + seconds

    async def broker(i: int) -> None:
        beat = Broker("hb-cluster", f"hb-u1s-{i}", 1).beat(10_000)
        await asyncio.sleep(random.uniform(0, interval))
        for _ in range(100_000):
            if time.perf_counter() >= deadline:
                return
            t = time.perf_counter()
            success = (await stub.BrokerHeartbeat(beat, timeout=10)).code == 0
            done[0] += success  # after the await: `done[0] += await ...` would read done[0] before it
            await asyncio.sleep(max(0.0, interval - (time.perf_counter() - t)))

    try:
        await asyncio.gather(*(broker(i) for i in range(count)))
    finally:
        await channel.close()


def measure(pid: int, action: Callable[[], T]) -> tuple[float, float, float, T]:
    """Run `action`; returns (wall s, node CPU s, bench process CPU s, its result)."""
    node0, bench0, t0 = cpu_seconds(pid), time.process_time(), time.perf_counter()
    result = action()
    wall = time.perf_counter() - t0
    return wall, cpu_seconds(pid) - node0, time.process_time() - bench0, result


def main() -> None:
    args = parse_args(__doc__)
    sat_s, window_s = (2.0, 4.0) if args.quick else (5.0, 20.0)
    with sandbox(1) as sb, LoopThread() as runner:
        node = sb.controllers()[0]
        pid = node.pid or 0
        time.sleep(1.0)
        idle_wall, idle_cpu, _, _ = measure(pid, lambda: time.sleep(window_s / 2))
        idle = idle_cpu / idle_wall
        rows = [["idle (no brokers)", "-", "-", "-", f"{idle:.3f}", "-"]]
        wall, cpu, bench, beats = measure(pid, lambda: runner.run(unary_max(node.address, sat_s)))
        rows.append([f"unary, {CALLERS} callers", str(beats), f"{beats / wall:.0f}", f"{cpu * 1e6 / beats:.0f}",
                     f"{cpu / wall:.2f}", f"{bench / wall:.2f}"])  # fmt: skip
        wall, cpu, bench, (beats, elapsed) = measure(pid, lambda: runner.run(stream_max(node.address, sat_s)))
        rows.append([f"stream, {CALLERS} streams", str(beats), f"{beats / elapsed:.0f}", f"{cpu * 1e6 / beats:.0f}",
                     f"{cpu / wall:.2f}", f"{bench / wall:.2f}"])  # fmt: skip
        print(f"machine: {machine_note()}; 1 controller node")
        print_table(
            f"Saturation ({sat_s:g} s per mode)",
            ["mode", "beats", "beats/s", "node CPU µs/beat", "node cores used", "bench cores used"],
            rows,
        )
        fleet = BrokerFleet(runner, node.address, interval_s=1.0)
        per_k: list[tuple[str, float, float]] = []  # (mode, beats/s, node cores)
        try:
            fleet.open(Broker("hb-cluster", f"hb-s1s-{i}", 1) for i in range(BROKERS))
            time.sleep(WARM_S)
            sent0 = fleet.beats_sent
            wall, cpu, _, _ = measure(pid, lambda: time.sleep(window_s))
            per_k.append(("stream", (fleet.beats_sent - sent0) / wall, cpu / wall))
        finally:
            fleet.close()
        done = [0]
        future = runner.submit(unary_fleet(node.address, BROKERS, 1.0, WARM_S + window_s + 0.5, done))
        time.sleep(WARM_S)
        beats0 = done[0]
        wall, cpu, _, _ = measure(pid, lambda: time.sleep(window_s))
        per_k.append(("unary", (done[0] - beats0) / wall, cpu / wall))
        future.result(30)
        rows = [
            [mode, str(BROKERS), f"{rate:.0f}", f"{cores:.3f}", f"{(cores - idle) / (BROKERS / 1000):.3f}",
             f"{cores / idle:.0f}" if idle > 0 else "-"]
            for mode, rate, cores in per_k
        ]  # fmt: skip
        print_table(
            f"{BROKERS} brokers beating every 1 s, {window_s:g} s window (node CPU s per wall s = cores)",
            ["mode", "brokers", "beats/s", "node cores", "cores per 1000 brokers above idle", "x idle"],
            rows,
        )
        print(log_summary(sb))


if __name__ == "__main__":
    main()
