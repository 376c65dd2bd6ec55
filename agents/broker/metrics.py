"""Prometheus metrics of one agent, served over HTTP when ``metricsExporterType=PROM``.

The agent owns its ``CollectorRegistry``, never the process-global one. The per-broker gauges are read
from the hosted managers at scrape time (``status()``, the replica's store and HA master), so a scrape
never shows a stale value. Puts are recorded where they happen: each broker's ``SendService`` calls ``observe_put``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

from prometheus_client import Counter, Histogram
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric

from agents.broker.cleaner import Totals
from agents.broker.consumer_ledger import Counters
from agents.broker.manager import Status
from agents.broker.transactions import TransactionCounts
from agents.config import BrokerConfig
from agents.consumer.snapshot import Snapshot
from agents.ha.replica import Replica
from agents.ha.role import Role
from mqbase.metrics import MetricsEndpoint

LABELS = ("cluster", "broker_name", "broker_id")


class Managed(Protocol):
    """What the collector reads from a hosted broker (``ReplicasManager`` fits)."""

    @property
    def config(self) -> BrokerConfig: ...
    @property
    def replica(self) -> Replica | None: ...
    def status(self) -> Status: ...
    @property
    def cleaner(self) -> Cleaner: ...
    @property
    def snapshots(self) -> Snapshots: ...
    @property
    def queue_locks(self) -> QueueLocks: ...
    @property
    def consumers(self) -> Consumers: ...


class Consumers(Protocol):
    """A broker's consumer side (``consumers.Consumers``): its ledger's RIP-32 figures."""

    @property
    def ledger(self) -> Ledger: ...
    @property
    def transactions(self) -> Transactions: ...


class Transactions(Protocol):
    """A broker's transactions (``TransactionBook``)."""

    counts: TransactionCounts

    @property
    def open_count(self) -> int: ...


class Ledger(Protocol):
    """RIP-32's figures of a broker's consumer state (``ConsumerLedger``)."""

    @property
    def counters(self) -> Counters: ...
    @property
    def pre_online(self) -> bool: ...


class Cleaner(Protocol):
    """The retention counters of a hosted broker (``CommitLogCleaner`` fits)."""

    @property
    def totals(self) -> Totals: ...


class QueueLocks(Protocol):
    """A hosted broker's queue-lock table (``queue_locks.QueueLocks`` fits)."""

    @property
    def refusals(self) -> int: ...
    def alive(self) -> int: ...


class Snapshots(Protocol):
    """The consumer-state snapshot of a hosted broker (``SnapshotKeeper`` fits)."""

    def last(self) -> Snapshot | None: ...


def broker_labels(manager: Managed) -> list[str]:
    """The label values of `manager` (its id is -1 until it has registered)."""
    c = manager.config
    return [c.broker_cluster_name, c.broker_name, str(manager.status().broker_id)]


class _BrokerCollector:
    """Builds the per-broker families from the hosted managers on every scrape."""

    def __init__(self, managers: Callable[[], Iterable[Managed]]) -> None:
        self._managers = managers

    def collect(self) -> Iterator[Metric]:
        def gauge(name: str, doc: str, extra: tuple[str, ...] = ()) -> GaugeMetricFamily:
            return GaugeMetricFamily(name, doc, labels=[*LABELS, *extra])

        role = gauge("mqagent_broker_role", "1 for the broker's current role.", ("role",))
        epoch = gauge("mqagent_master_epoch", "The masterEpoch the broker is in.")
        # Offsets are gauges: a slave's log shrinks when it truncates to the consistent point on a role change.
        max_offset = gauge("mqagent_max_offset_bytes", "Commit-log max offset (a slave's grows as it replicates).")
        confirm = gauge("mqagent_confirm_offset_bytes", "Commit-log confirmOffset.")
        sss = gauge("mqagent_sync_state_set_size", "Members of the confirmed SyncStateSet (master only).")
        lag = gauge("mqagent_slave_lag_bytes", "Master max offset minus a slave's acknowledged offset.", ("slave_id",))
        min_offset = gauge("mqagent_min_offset_bytes", "Commit-log min offset (rises as retention deletes).")
        deleted_segments = CounterMetricFamily(
            "mqagent_retention_deleted_segments", "Commit-log segments deleted by retention.", labels=LABELS
        )
        deleted_bytes = CounterMetricFamily(
            "mqagent_retention_deleted_bytes", "Bytes of commit-log segments deleted by retention.", labels=LABELS
        )
        covered = gauge(
            "mqagent_consumer_snapshot_offset_bytes", "Commit-log offset the consumer-state snapshot covers."
        )
        records = gauge("mqagent_consumer_snapshot_records", "Consumer-state records the snapshot holds.")
        acting = gauge("mqagent_acting_master", "1 while this slave acts as its set's read-only master (RIP-32).")
        episodes = CounterMetricFamily(
            "mqagent_acting_master_episodes", "Times this slave started acting as master (RIP-32).", labels=LABELS
        )
        escaped = CounterMetricFamily(
            "mqagent_escaped_changes", "Consumer changes this replica escaped to another set's master while acting "
            "as master (RIP-32).", labels=LABELS,
        )  # fmt: skip
        taken = CounterMetricFamily(
            "mqagent_escaped_taken_back", "Escaped consumer changes this master took back (RIP-32).", labels=LABELS
        )
        pre_online = gauge("mqagent_pre_online", "1 while this new master takes back its set's state (RIP-32).")
        pre_online_s = gauge("mqagent_pre_online_seconds", "How long this broker's last pre-online took (RIP-32).")
        held = gauge("mqagent_queue_locks_held", "Orderly queue locks alive in this replica's table (RIP-32).")
        refusals = CounterMetricFamily(
            "mqagent_lock_refusals", "Orderly queues this coordinator could not lock (RIP-32).", labels=LABELS
        )
        open_tx = gauge("mqagent_transactions_open", "Open transactions this master has read (half messages).")
        ended = CounterMetricFamily(
            "mqagent_transactions_ended", "Transactions this master ended, by resolution.",
            labels=(*LABELS, "resolution"),
        )  # fmt: skip
        checks = CounterMetricFamily(
            "mqagent_transaction_checks", "Check-backs this master issued to producers.", labels=LABELS
        )
        for manager in self._managers():
            status = manager.status()
            if status.broker_id < 0:
                continue  # not registered yet: no stable labels
            labels = broker_labels(manager)
            for r in Role:
                role.add_metric([*labels, r.value], 1.0 if status.role is r else 0.0)
            epoch.add_metric(labels, status.master_epoch)
            acting.add_metric(labels, 1.0 if status.acting_since_ms else 0.0)
            episodes.add_metric(labels, status.acting_episodes)
            counts = manager.consumers.ledger.counters
            escaped.add_metric(labels, counts.escaped)
            taken.add_metric(labels, counts.taken_back)
            pre_online.add_metric(labels, 1.0 if manager.consumers.ledger.pre_online else 0.0)
            pre_online_s.add_metric(labels, counts.pre_online_s)
            tx = manager.consumers.transactions
            open_tx.add_metric(labels, tx.open_count)
            for resolution, n in (("commit", tx.counts.committed), ("rollback", tx.counts.rolled_back),
                                  ("dropped", tx.counts.dropped)):  # fmt: skip
                ended.add_metric([*labels, resolution], n)
            checks.add_metric(labels, tx.counts.checked)
            held.add_metric(labels, manager.queue_locks.alive())
            refusals.add_metric(labels, manager.queue_locks.refusals)
            totals = manager.cleaner.totals
            deleted_segments.add_metric(labels, totals.segments)
            deleted_bytes.add_metric(labels, totals.bytes)
            last = manager.snapshots.last()
            if last is not None:
                covered.add_metric(labels, last.covered)
                records.add_metric(labels, last.state.seq)
            replica = manager.replica
            if replica is None:
                continue
            top = replica.store.max_offset
            max_offset.add_metric(labels, top)
            min_offset.add_metric(labels, replica.store.min_offset)
            confirm.add_metric(labels, replica.store.confirm_offset)
            master = replica.master
            if status.role is Role.MASTER and master is not None:
                sss.add_metric(labels, len(master.sync_state.local))
                for slave_id, progress in sorted(master.slaves().items()):
                    lag.add_metric([*labels, str(slave_id)], max(0, top - max(progress.ack_offset, 0)))
        yield from (role, epoch, max_offset, min_offset, confirm, sss, lag, deleted_segments, deleted_bytes)
        yield from (covered, records, acting, episodes, escaped, taken, pre_online, pre_online_s, held, refusals)
        yield from (open_tx, ended, checks)


class AgentMetrics(MetricsEndpoint):
    """The metrics of one agent and their HTTP endpoint."""

    def __init__(self, managers: Callable[[], Iterable[Managed]]) -> None:
        super().__init__("mqagent")
        self.registry.register(_BrokerCollector(managers))
        self._put_seconds = Histogram(
            "mqagent_put_seconds", "Time to write a send on a master, acknowledgements included.", LABELS,
            registry=self.registry,
        )  # fmt: skip
        self._puts = Counter(
            "mqagent_puts", "Sends answered by the store, by put status.", [*LABELS, "status"], registry=self.registry
        )

    def observe_put(self, manager: Managed, seconds: float, status: str) -> None:
        """Record one ``manager.put``; `status` is the PutStatus name (``PUT_OK``, ``FLUSH_SLAVE_TIMEOUT``, ...)."""
        labels = broker_labels(manager)
        self._put_seconds.labels(*labels).observe(seconds)
        self._puts.labels(*labels, status).inc()
