"""The renewals of push consumers' deliveries: a client's handle always reaches the current one."""

from __future__ import annotations

import asyncio
import time

import pytest

from agents.access import timing
from agents.access.renewals import Renewer
from agents.broker.api import Changed, ChangeInvisibleRequest
from mqbase.clock import SYSTEM
from tests.harness import aio


class Master:
    """Stands in for the forwarder: answers changes of invisibility with numbered new handles."""

    def __init__(self, code: int = 0) -> None:
        self.code = code
        self.changed: list[str] = []

    async def call(self, broker_name: str, request: ChangeInvisibleRequest, deadline: float) -> Changed:
        assert broker_name == "broker-a"
        assert request.invisible_ms == timing.AUTO_RENEW_INVISIBLE_MS and deadline > time.monotonic()
        self.changed.append(request.receipt_handle)
        await asyncio.sleep(0)
        return Changed(self.code, 20000, f"{request.receipt_handle}+", invisible_until_ms=10**13)


def renew_once(monkeypatch: pytest.MonkeyPatch, master: Master, deadline_ms: int) -> tuple[Renewer, str]:
    monkeypatch.setattr(timing, "RENEW_PERIOD_S", 0.01)

    async def scenario() -> tuple[Renewer, str]:
        renewer = Renewer(master.call, SYSTEM)
        renewer.track("c1", "broker-a", "G", "T", "h", deadline_ms)
        task = asyncio.create_task(renewer.run())
        await asyncio.sleep(0.05)
        current = await renewer.take("h")
        task.cancel()
        return renewer, current

    return aio.run(scenario())


def test_a_delivery_near_its_deadline_is_renewed_once_and_taken_by_its_current_handle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    master = Master()
    renewer, current = renew_once(monkeypatch, master, int(time.time() * 1000) + 5_000)
    assert master.changed == ["h"] and current == "h+"  # renewed to 10**13: not due again
    assert aio.run(renewer.take("h")) == "h"  # taken: no longer renewed


def test_a_delivery_far_from_its_deadline_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    master = Master()
    _, current = renew_once(monkeypatch, master, int(time.time() * 1000) + 50_000)
    assert master.changed == [] and current == "h"


def test_a_refused_renewal_stops_renewing(monkeypatch: pytest.MonkeyPatch) -> None:
    master = Master(code=13)
    _, current = renew_once(monkeypatch, master, int(time.time() * 1000) + 1_000)
    assert master.changed == ["h"] and current == "h"


def test_a_terminated_clients_deliveries_are_forgotten() -> None:
    renewer = Renewer(Master().call, SYSTEM)
    renewer.track("c1", "broker-a", "G", "T", "h1", 0)
    renewer.track("c2", "broker-a", "G", "T", "h2", 0)
    renewer.forget("c1")
    assert aio.run(renewer.take("h1")) == "h1"
