"""The master's SyncStateSet shrink check runs every ``checkSyncStateSetPeriod`` (Java's meaning of the key): the
loop's wait is recorded instead of slept, so no time passes in the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.config import BrokerConfig
from agents.store.message_store import MessageStore
from tests.harness.ha_master import SEG, ha_master


class Waits:
    """An Event whose waits are recorded: the first `rounds` report a timeout, then it reports being set."""

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.timeouts: list[float | None] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.timeouts.append(timeout)
        return len(self.timeouts) > self.rounds


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MessageStore]:
    s = MessageStore(tmp_path / "store", SEG)
    yield s
    s.close()


@pytest.mark.parametrize("period_ms", [250, 1000, 5000])
def test_the_shrink_check_waits_the_configured_period(store: MessageStore, period_ms: int) -> None:
    config = BrokerConfig(check_sync_state_set_period=period_ms).to_ha_config()
    master = ha_master(store, check_sync_state_set_s=config.check_sync_state_set_s)
    waits = Waits(rounds=2)
    master._stopped = waits  # type: ignore[assignment]
    master._shrink_loop()
    assert waits.timeouts == [period_ms / 1000] * 3


def test_the_default_period_is_one_second_not_javas_five() -> None:
    """decisions.md, "Java broker keys that mean nothing here": a slower check only delays a shrink."""
    assert BrokerConfig().to_ha_config().check_sync_state_set_s == 1.0
