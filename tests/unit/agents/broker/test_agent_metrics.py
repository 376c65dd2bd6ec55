"""AgentMetrics: the scrape-time collector over fake managers, put recording, and the HTTP endpoint."""

from __future__ import annotations

import urllib.request
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from agents.broker.cleaner import Totals
from agents.broker.consumer_ledger import Counters
from agents.broker.manager import Status
from agents.broker.metrics import AgentMetrics
from agents.broker.transactions import TransactionCounts
from agents.config import BrokerConfig
from agents.consumer.snapshot import Snapshot
from agents.consumer.state import ConsumerState
from agents.ha.role import Role
from agents.ha.sync_state import SlaveProgress, SyncState

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@dataclass
class FakeManager:
    """Just what the collector reads: config, status() and replica (store, master)."""

    broker_id: int
    role: Role
    epoch: int = 3
    replica: Any = None
    config: BrokerConfig = field(default_factory=lambda: BrokerConfig(broker_cluster_name="C", broker_name="b"))
    cleaner: Any = field(default_factory=lambda: SimpleNamespace(totals=Totals()))
    snapshot: Snapshot | None = None
    acting_since_ms: int = 0
    acting_episodes: int = 0
    queue_locks: Any = field(default_factory=lambda: SimpleNamespace(refusals=0, alive=lambda: 0))
    consumers: Any = field(
        default_factory=lambda: SimpleNamespace(
            ledger=SimpleNamespace(counters=Counters(), pre_online=False),
            transactions=SimpleNamespace(counts=TransactionCounts(), open_count=0),
        )
    )

    @property
    def snapshots(self) -> SimpleNamespace:
        return SimpleNamespace(last=lambda: self.snapshot)

    def status(self) -> Status:
        return Status(
            self.broker_id, self.role, self.epoch, 1, "", "", 2, "", self.acting_since_ms, self.acting_episodes
        )


def replica(max_offset: int, confirm: int, master: Any = None) -> SimpleNamespace:
    store = SimpleNamespace(min_offset=0, max_offset=max_offset, confirm_offset=confirm)
    return SimpleNamespace(store=store, master=master)


def ha_master(sync_set: set[int], acks: dict[int, int]) -> SimpleNamespace:
    progress = {i: SlaveProgress(i, ack_offset=a) for i, a in acks.items()}
    return SimpleNamespace(sync_state=SyncState(1, frozenset(sync_set), 2), slaves=lambda: progress)


def scrape(metrics: AgentMetrics) -> Samples:
    text = generate_latest(metrics.registry).decode()
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def at(samples: Samples, name: str, broker_id: int, **labels: str) -> float | None:
    key = frozenset({"cluster": "C", "broker_name": "b", "broker_id": str(broker_id), **labels}.items())
    return samples.get((name, key))


def test_master_and_slave_gauges_are_read_at_scrape_time() -> None:
    master = FakeManager(1, Role.MASTER, replica=replica(1000, 900, ha_master({1, 2}, {2: 900, 3: -1})))
    slave = FakeManager(2, Role.SLAVE, replica=replica(900, 900))
    metrics = AgentMetrics(lambda: [master, slave])
    s = scrape(metrics)
    assert at(s, "mqagent_broker_role", 1, role="master") == 1.0
    assert at(s, "mqagent_broker_role", 1, role="slave") == 0.0
    assert at(s, "mqagent_broker_role", 2, role="slave") == 1.0
    assert at(s, "mqagent_master_epoch", 1) == 3.0
    assert at(s, "mqagent_max_offset_bytes", 1) == 1000.0 and at(s, "mqagent_confirm_offset_bytes", 1) == 900.0
    assert at(s, "mqagent_sync_state_set_size", 1) == 2.0 and at(s, "mqagent_sync_state_set_size", 2) is None
    assert at(s, "mqagent_slave_lag_bytes", 1, slave_id="2") == 100.0
    assert at(s, "mqagent_slave_lag_bytes", 1, slave_id="3") == 1000.0  # nothing acknowledged yet
    assert at(s, "mqagent_max_offset_bytes", 2) == 900.0
    master.replica.store.max_offset = 1500  # the next scrape sees the new value
    assert at(scrape(metrics), "mqagent_max_offset_bytes", 1) == 1500.0


def test_escapes_take_backs_and_pre_online_are_counted() -> None:
    counters = Counters(escaped=7, taken_back=5, pre_online_s=0.25)
    ledger = SimpleNamespace(counters=counters, pre_online=True)
    tx = SimpleNamespace(counts=TransactionCounts(committed=4, rolled_back=1, dropped=2, checked=9), open_count=3)
    master = FakeManager(1, Role.MASTER, consumers=SimpleNamespace(ledger=ledger, transactions=tx))
    idle = FakeManager(2, Role.SLAVE)
    s = scrape(AgentMetrics(lambda: [master, idle]))
    assert at(s, "mqagent_escaped_changes_total", 1) == 7.0 and at(s, "mqagent_escaped_taken_back_total", 1) == 5.0
    assert at(s, "mqagent_pre_online", 1) == 1.0 and at(s, "mqagent_pre_online_seconds", 1) == 0.25
    assert at(s, "mqagent_pre_online", 2) == 0.0 and at(s, "mqagent_escaped_changes_total", 2) == 0.0
    assert at(s, "mqagent_transactions_open", 1) == 3.0 and at(s, "mqagent_transaction_checks_total", 1) == 9.0
    ended = {r: at(s, "mqagent_transactions_ended_total", 1, resolution=r) for r in ("commit", "rollback", "dropped")}
    assert ended == {"commit": 4.0, "rollback": 1.0, "dropped": 2.0}


def test_acting_mode_is_a_gauge_and_its_episodes_a_counter() -> None:
    acting = FakeManager(2, Role.SLAVE, replica=replica(900, 900), acting_since_ms=1_700_000_000_000, acting_episodes=2)
    other = FakeManager(3, Role.SLAVE, replica=replica(900, 900))
    s = scrape(AgentMetrics(lambda: [acting, other]))
    assert at(s, "mqagent_acting_master", 2) == 1.0 and at(s, "mqagent_acting_master", 3) == 0.0
    assert at(s, "mqagent_acting_master_episodes_total", 2) == 2.0
    assert at(s, "mqagent_acting_master_episodes_total", 3) == 0.0


def test_queue_locks_held_is_a_gauge_and_refusals_a_counter() -> None:
    master = FakeManager(1, Role.MASTER, queue_locks=SimpleNamespace(refusals=5, alive=lambda: 3))
    s = scrape(AgentMetrics(lambda: [master]))
    assert at(s, "mqagent_queue_locks_held", 1) == 3.0 and at(s, "mqagent_lock_refusals_total", 1) == 5.0


def test_offsets_are_gauges_in_bytes() -> None:
    """A slave truncating to its consistent point makes its offsets go down: a counter would read that as a
    reset (rate() spikes), so every offset is a gauge, and every byte quantity says so in its name."""
    slave = FakeManager(2, Role.SLAVE, replica=replica(900, 900))
    master = FakeManager(1, Role.MASTER, replica=replica(1000, 900, ha_master({1, 2}, {2: 900})))
    metrics = AgentMetrics(lambda: [master, slave])
    text = generate_latest(metrics.registry).decode()
    kinds = {f.name: f.type for f in text_string_to_metric_families(text) if f.name.startswith("mqagent_")}
    assert {name: kind for name, kind in kinds.items() if "offset" in name or "lag" in name or "bytes" in name} == {
        "mqagent_max_offset_bytes": "gauge",
        "mqagent_min_offset_bytes": "gauge",
        "mqagent_confirm_offset_bytes": "gauge",
        "mqagent_slave_lag_bytes": "gauge",
        "mqagent_consumer_snapshot_offset_bytes": "gauge",
        "mqagent_retention_deleted_bytes": "counter",  # what retention deleted never goes down
    }
    slave.replica.store.max_offset = 600  # truncated on a role change
    assert at(scrape(metrics), "mqagent_max_offset_bytes", 2) == 600.0


def test_retention_totals_and_min_offset_are_read_at_scrape_time() -> None:
    master = FakeManager(1, Role.MASTER, replica=replica(1000, 900, ha_master({1}, {})))
    metrics = AgentMetrics(lambda: [master])
    assert at(scrape(metrics), "mqagent_retention_deleted_segments_total", 1) == 0.0
    master.cleaner.totals = Totals(segments=2, bytes=2048)
    master.replica.store.min_offset = 2048
    s = scrape(metrics)
    assert at(s, "mqagent_retention_deleted_segments_total", 1) == 2.0
    assert at(s, "mqagent_retention_deleted_bytes_total", 1) == 2048.0
    assert at(s, "mqagent_min_offset_bytes", 1) == 2048.0


def test_the_consumer_snapshot_is_read_at_scrape_time() -> None:
    master = FakeManager(1, Role.MASTER, replica=replica(1000, 900, ha_master({1}, {})))
    metrics = AgentMetrics(lambda: [master])
    assert at(scrape(metrics), "mqagent_consumer_snapshot_offset_bytes", 1) is None  # none cut yet
    master.snapshot = Snapshot(900, ConsumerState(seq=12))
    s = scrape(metrics)
    assert (at(s, "mqagent_consumer_snapshot_offset_bytes", 1), at(s, "mqagent_consumer_snapshot_records", 1)) == (
        900,
        12,
    )


def test_unregistered_broker_is_skipped_and_fenced_one_has_only_role_and_epoch() -> None:
    starting = FakeManager(-1, Role.FENCED)
    fenced = FakeManager(4, Role.FENCED)
    s = scrape(AgentMetrics(lambda: [starting, fenced]))
    assert not any(dict(labels).get("broker_id") == "-1" for _, labels in s)
    assert at(s, "mqagent_broker_role", 4, role="fenced") == 1.0
    assert at(s, "mqagent_master_epoch", 4) == 3.0 and at(s, "mqagent_max_offset_bytes", 4) is None


def test_puts_are_counted_by_status_with_latency() -> None:
    master = FakeManager(1, Role.MASTER)
    metrics = AgentMetrics(lambda: [])
    metrics.observe_put(master, 0.002, "PUT_OK")
    metrics.observe_put(master, 0.3, "PUT_OK")
    metrics.observe_put(master, 3.0, "FLUSH_SLAVE_TIMEOUT")
    s = scrape(metrics)
    assert at(s, "mqagent_puts_total", 1, status="PUT_OK") == 2.0
    assert at(s, "mqagent_puts_total", 1, status="FLUSH_SLAVE_TIMEOUT") == 1.0
    assert at(s, "mqagent_put_seconds_count", 1) == 3.0
    assert at(s, "mqagent_put_seconds_sum", 1) == pytest.approx(3.302)
    assert at(s, "mqagent_put_seconds_bucket", 1, le="0.005") == 1.0


def test_endpoint_serves_on_an_ephemeral_port_and_releases_it() -> None:
    metrics = AgentMetrics(lambda: [FakeManager(1, Role.MASTER, replica=replica(10, 10, ha_master({1}, {})))])
    _, port = metrics.serve(0, "127.0.0.1")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            text = response.read().decode()
        assert 'mqagent_broker_role{broker_id="1",broker_name="b",cluster="C",role="master"} 1.0' in text
    finally:
        metrics.stop()
    metrics.stop()  # idempotent
