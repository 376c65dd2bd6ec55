"""Forwarder: a broker set's current master through its `BrokerApi`, in-process when this agent hosts it, else over
the agent API (``remote.RemoteBroker``); a call is held while the set has no master that answers (failover, a
graceful transfer), within its deadline (``timing``), and moved to a new master as soon as the set has one.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc

from agents.access import timing
from agents.access.cluster import Cluster
from agents.access.remote import RemoteBroker
from agents.broker.api import (
    Acked,
    AckRequest,
    BrokerApi,
    Changed,
    ChangeInvisibleRequest,
    Checks,
    Ended,
    EndRequest,
    Received,
    ReceiveRequest,
    SendAnswer,
)
from agents.store.record import Message
from mqbase.clock import Clock
from mqbase.security import ClientSecurity, open_channel


class Forwarder:
    """Calls a broker set's current master through its `BrokerApi`: in-process when this agent hosts it, else over
    the agent API; holds the call while the set has no master that answers (see the module docstring)."""

    def __init__(self, cluster: Cluster, security: ClientSecurity, pool: ThreadPoolExecutor, clock: Clock) -> None:
        self._cluster = cluster
        self._clock = clock
        self._security = security
        self._pool = pool
        self._lock = threading.Lock()  # the pool's threads share the channels
        self._channels: dict[str, grpc.Channel] = {}

    def _api(self, broker_name: str, address: str, timeout: float) -> BrokerApi:
        hosted = next((b for b in self._cluster.hosted() if b.config.broker_name == broker_name
                       and b.config.broker_address == address), None)  # fmt: skip
        if hosted is not None:
            return hosted.api
        with self._lock:
            channel = self._channels.get(address)
            if channel is None:
                channel = self._channels[address] = open_channel(address, self._security)
        return RemoteBroker(channel, broker_name, address, timeout)

    def close(self) -> None:
        with self._lock:
            channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            channel.close()

    async def send(self, broker_name: str, messages: Sequence[Message], deadline: float) -> SendAnswer:
        """Each call answers the master's answer, or raises ``timing.GaveUp`` at the deadline."""
        answer: SendAnswer = await self._call(
            broker_name, lambda api, _deadline: api.send(messages, None), deadline, consumer=False
        )
        return answer

    async def receive(self, broker_name: str, make: Callable[[float], ReceiveRequest], deadline: float) -> Received:
        """`make(deadline)`: the request for the time left (its long polling ends before the deadline)."""
        answer: Received = await self._call(broker_name, lambda api, at: api.receive(make(at)), deadline, consumer=True)
        return answer

    async def ack(self, broker_name: str, request: AckRequest, deadline: float) -> Acked:
        answer: Acked = await self._call(broker_name, lambda api, _deadline: api.ack(request), deadline, consumer=True)
        return answer

    async def change_invisible(self, broker_name: str, request: ChangeInvisibleRequest, deadline: float) -> Changed:
        answer: Changed = await self._call(
            broker_name, lambda api, _deadline: api.change_invisible(request), deadline, consumer=True
        )
        return answer

    async def end_transaction(self, broker_name: str, request: EndRequest, deadline: float) -> Ended:
        """A transaction's end goes to the master of the set holding its half message (or the replica acting as
        master, RIP-32, whose end escapes), held through a failover."""
        answer: Ended = await self._call(
            broker_name, lambda api, _deadline: api.end_transaction(request), deadline, consumer=True
        )
        return answer

    async def take_checks(self, broker_name: str, topics: frozenset[str], deadline: float) -> Checks:
        answer: Checks = await self._call(
            broker_name, lambda api, _deadline: api.take_checks(topics), deadline, consumer=True
        )
        return answer

    async def _call(
        self, broker_name: str, ask: Callable[[BrokerApi, float], Any], deadline: float, *, consumer: bool
    ) -> Any:
        """The master's answer to ``ask(api, deadline)``; ``timing.GaveUp`` at the deadline. `consumer`: a
        consumption call, which a replica acting as master serves too (RIP-32)."""
        clock = self._clock
        started = clock.monotonic()
        loop = asyncio.get_running_loop()
        while True:
            address = self._cluster.consumer_target(broker_name) if consumer else self._cluster.master(broker_name)
            if address:
                timeout = max(0.1, deadline - timing.MARGIN_S - clock.monotonic())
                api = self._api(broker_name, address, timeout)
                call = loop.run_in_executor(self._pool, ask, api, deadline)
                answer = await self._answer_or_new_master(call, broker_name, address)
                if answer is not None and not timing.holds(answer.code):
                    return answer
            self._cluster.nudge()
            wait = timing.pause(clock.monotonic(), deadline)
            if wait is None:
                raise timing.GaveUp(timing.gave_up(broker_name, clock.monotonic() - started))
            await asyncio.sleep(wait)

    async def _answer_or_new_master(self, call: asyncio.Future[Any], broker_name: str, address: str) -> Any:
        """The call's answer, or None as soon as the set has another master: a master that hangs (SIGSTOP, a
        partition) answers nothing until the call's timeout, and the new one should be asked meanwhile. The
        abandoned call ends on its own timeout; a paused master that wakes refuses writes (its pause guard)."""
        while True:
            done, _ = await asyncio.wait({call}, timeout=timing.POLL_S)
            if done:
                return call.result()
            now = self._cluster.master(broker_name)
            if now and now != address:
                return None
