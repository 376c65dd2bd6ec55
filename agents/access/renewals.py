"""Renewing a push consumer's deliveries (``ReceiveMessage`` with ``auto_renew``), as Java's proxy does: while the
listener runs, the access point that delivered a message extends its invisibility (``timing.renewal``), so a slow
listener does not see it delivered twice. A renewal gives the message a new handle and makes the client's stale;
the client's ack, nack or dead-letter forward is therefore translated to the current handle (``take``), which also
ends the renewals. A client that says goodbye (``NotifyClientTermination``) has its deliveries dropped: they
become visible again when their invisibility ends.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from agents.access import timing
from agents.broker.api import Changed, ChangeInvisibleRequest
from mqbase.clock import Clock, wall_ms

log = logging.getLogger(__name__)

Call = Callable[[str, ChangeInvisibleRequest, float], Awaitable[Changed]]
"""A change of invisibility through ``Forwarder.change_invisible``: (broker set, request, deadline) → the answer;
``timing.GaveUp`` at the deadline."""


@dataclass
class Held:
    """One delivery being renewed: its current handle and invisibility deadline, whose client received it when."""

    client_id: str
    broker_name: str
    group: str
    topic: str
    current: str
    deadline_ms: int
    received_ms: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Renewer:
    """The deliveries this access point renews, by the handle the client holds; all on the server's loop."""

    def __init__(self, call: Call, clock: Clock) -> None:
        self._call = call
        self._clock = clock
        self._held: dict[str, Held] = {}

    def track(self, client_id: str, broker_name: str, group: str, topic: str, handle: str, deadline_ms: int) -> None:
        self._held[handle] = Held(client_id, broker_name, group, topic, handle, deadline_ms, wall_ms(self._clock))

    async def take(self, handle: str) -> str:
        """The current handle of the delivery the client knows as `handle` (itself if not renewed); its renewals
        end. Waits for a renewal in flight, whose new handle is the current one."""
        held = self._held.pop(handle, None)
        if held is None:
            return handle
        async with held.lock:
            return held.current

    def forget(self, client_id: str) -> None:
        """Stop renewing a client's deliveries (it terminated)."""
        for handle in [h for h, held in self._held.items() if held.client_id == client_id]:
            del self._held[handle]

    async def run(self) -> None:
        """Renew what is due every ``RENEW_PERIOD_S`` until cancelled."""
        while True:
            await asyncio.sleep(timing.RENEW_PERIOD_S)
            await self.renew_due()

    async def renew_due(self) -> None:
        """One pass: renew the deliveries near their deadline now, drop those renewed for too long."""
        now = wall_ms(self._clock)
        for handle, held in list(self._held.items()):
            decision = timing.renewal(held.deadline_ms, held.received_ms, now)
            if decision == "drop":
                self._held.pop(handle, None)
            elif decision == "renew":
                await self._renew(handle, held)

    async def _renew(self, handle: str, held: Held) -> None:
        async with held.lock:
            if self._held.get(handle) is not held:
                return  # acked or dropped meanwhile
            change = ChangeInvisibleRequest(held.group, held.topic, held.current, timing.AUTO_RENEW_INVISIBLE_MS)
            try:
                answer = await self._call(held.broker_name, change, self._clock.monotonic() + timing.DEFAULT_TIMEOUT_S)
            except timing.GaveUp as exc:
                log.info("access point: renewing a delivery of %s/%s failed: %s", held.group, held.topic, exc)
                self._held.pop(handle, None)
                return
            if answer.code == 0 and answer.receipt_handle:
                held.current, held.deadline_ms = answer.receipt_handle, answer.invisible_until_ms
            else:
                log.info("access point: renewing a delivery of %s/%s failed: %s", held.group, held.topic, answer)
                self._held.pop(handle, None)
