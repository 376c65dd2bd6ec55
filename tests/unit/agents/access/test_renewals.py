"""The renewals of push consumers' deliveries: a client's handle always reaches the current one."""

from __future__ import annotations

import asyncio

from agents.access import timing
from agents.access.renewals import Renewer
from agents.broker.api import Changed, ChangeInvisibleRequest
from mqbase.clock import wall_ms
from tests.harness import aio
from tests.harness.clock import ManualClock


class Master:
    """Stands in for the forwarder: answers changes of invisibility with numbered new handles."""

    def __init__(self, clock: ManualClock, code: int = 0) -> None:
        self.clock = clock
        self.code = code
        self.changed: list[str] = []

    async def call(self, broker_name: str, request: ChangeInvisibleRequest, deadline: float) -> Changed:
        assert broker_name == "broker-a"
        assert request.invisible_ms == timing.AUTO_RENEW_INVISIBLE_MS and deadline > self.clock.monotonic()
        self.changed.append(request.receipt_handle)
        await asyncio.sleep(0)
        return Changed(self.code, 20000, f"{request.receipt_handle}+", invisible_until_ms=10**13)


def renew_once(master: Master, deadline_in_ms: int) -> tuple[Renewer, str]:
    """One delivery invisible for `deadline_in_ms` more, one renewal pass, then the client's handle taken."""

    async def scenario() -> tuple[Renewer, str]:
        renewer = Renewer(master.call, master.clock)
        renewer.track("c1", "broker-a", "G", "T", "h", wall_ms(master.clock) + deadline_in_ms)
        await renewer.renew_due()
        return renewer, await renewer.take("h")

    return aio.run(scenario())


def test_a_delivery_near_its_deadline_is_renewed_once_and_taken_by_its_current_handle() -> None:
    master = Master(ManualClock())
    renewer, current = renew_once(master, 5_000)
    assert master.changed == ["h"] and current == "h+"
    assert aio.run(renewer.take("h")) == "h"  # taken: no longer renewed


def test_a_renewed_delivery_is_not_renewed_again_before_its_new_deadline_nears() -> None:
    clock = ManualClock()
    master = Master(clock)

    async def scenario() -> None:
        renewer = Renewer(master.call, clock)
        renewer.track("c1", "broker-a", "G", "T", "h", wall_ms(clock) + 5_000)
        await renewer.renew_due()
        clock.advance(60)
        await renewer.renew_due()  # the new deadline is 10**13 ms: far

    aio.run(scenario())
    assert master.changed == ["h"]


def test_a_delivery_far_from_its_deadline_is_left_alone() -> None:
    master = Master(ManualClock())
    _, current = renew_once(master, 50_000)
    assert master.changed == [] and current == "h"


def test_a_refused_renewal_stops_renewing() -> None:
    master = Master(ManualClock(), code=13)
    _, current = renew_once(master, 1_000)
    assert master.changed == ["h"] and current == "h"


def test_a_delivery_renewed_for_the_longest_time_is_dropped_not_renewed() -> None:
    clock = ManualClock()
    master = Master(clock)

    async def scenario() -> str:
        renewer = Renewer(master.call, clock)
        renewer.track("c1", "broker-a", "G", "T", "h", wall_ms(clock) + 1_000)
        clock.advance(timing.MAX_RENEW_MS / 1000)
        await renewer.renew_due()
        return await renewer.take("h")

    assert aio.run(scenario()) == "h" and master.changed == []


def test_a_terminated_clients_deliveries_are_forgotten() -> None:
    clock = ManualClock()
    renewer = Renewer(Master(clock).call, clock)
    renewer.track("c1", "broker-a", "G", "T", "h1", 0)
    renewer.track("c2", "broker-a", "G", "T", "h2", 0)
    renewer.forget("c1")
    assert aio.run(renewer.take("h1")) == "h1"
