"""CommitLogCleaner: retention on a schedule for one hosted broker (Java's ``CleanCommitLogService``).

Every ``cleanResourceInterval`` ms a thread reads the clock, the disk usage of ``storePathRootDir`` and the
replica's segments and floors, asks ``agents.ha.retention.plan`` what to delete, and deletes it one segment at a
time with ``Replica.delete_before``, ``deleteCommitLogFilesInterval`` ms apart. Masters and slaves alike: each
replica cleans its own store, as every Java broker runs the service whatever its role. A fenced replica (no role
yet, or changing it) is skipped, and a run stops when the role changes under it: its floors were the old role's.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from agents.broker.periodic import Periodic
from agents.config import BrokerConfig
from agents.ha.replica import Replica
from agents.ha.retention import Floors, Plan, Reason, Segment, plan, slave_floor
from agents.ha.role import Role

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Totals:
    """What the cleaner deleted since the agent started (for metrics)."""

    segments: int = 0
    bytes: int = 0


@dataclass(frozen=True, slots=True)
class ManualRun:
    """What a ``run_now`` deleted, and the floor that kept expired segments (None when none did)."""

    segments: int
    bytes: int
    held_by: str | None


class CommitLogCleaner(Periodic):
    """The retention thread of one broker; `replica` and `config` are read afresh at every run (the replica is
    opened after registration, the config changes with updateBrokerConfig)."""

    def __init__(
        self,
        replica: Callable[[], Replica | None],
        config: Callable[[], BrokerConfig],
        *,
        retained_floor: Callable[[], int | None] = lambda: None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        name = config().broker_name
        super().__init__(
            f"cleaner-{name}", lambda: config().clean_resource_interval / 1000, f"broker {name}: retention"
        )
        self._replica = replica
        self._config = config
        self._retained_floor = retained_floor
        self._clock = clock
        self._lock = threading.Lock()
        self._running = threading.Lock()  # the schedule's run and an operator's never overlap
        self._totals = Totals()

    @property
    def totals(self) -> Totals:
        with self._lock:
            return self._totals

    def run_once(self) -> Plan:
        """One evaluation, and the deletions it decides; returns the plan (empty for a fenced replica)."""
        with self._running:
            return self._run(manual=False)[0]

    def run_now(self) -> ManualRun:
        """Java's ``deleteExpiredCommitLog``: one run now, as at a ``deleteWhen`` hour (segments older than
        ``fileReservedTime`` go whatever the hour; the floors hold as always)."""
        with self._running:
            decided, deleted = self._run(manual=True)
        return ManualRun(deleted.segments, deleted.bytes, decided.held_by)

    def _run(self, *, manual: bool) -> tuple[Plan, Totals]:
        """The plan of one run and what it deleted."""
        replica, config = self._replica(), self._config()
        if replica is None:
            return Plan(), Totals()
        position = replica.position
        floors = self._floors(replica, position.role)
        if floors is None:
            return Plan(), Totals()
        now = self._clock()
        usage = shutil.disk_usage(config.store_root)
        size = replica.store.segment_size
        segments = [Segment(start, start + size, modified) for start, modified in replica.store.segment_times()]
        decided = plan(
            segments,
            now_ms=int(now * 1000),
            hour=time.localtime(now).tm_hour,
            disk_used=usage.used / usage.total if usage.total else 0.0,
            policy=config.retention_policy(),
            floors=floors,
            manual=manual,
        )
        if decided.held_by is not None:
            log.info("broker %s: retention (%s) held at offset %d by the %s",
                     config.broker_name, _word(decided.reason), floors.lowest()[0], decided.held_by)  # fmt: skip
        deleted = Totals()
        for i, segment in enumerate(decided.segments):
            if i and self._stopped.wait(config.delete_commit_log_files_interval / 1000):
                break
            if replica.position != position:
                log.info("broker %s: retention stopped: the role changed during the run", config.broker_name)
                break
            new_min = replica.delete_before(segment.end)
            if new_min < segment.end:
                break  # not yet dispatched into the consume queues: the next run deletes it
            deleted = Totals(deleted.segments + 1, deleted.bytes + segment.end - segment.start)
            with self._lock:
                self._totals = Totals(self._totals.segments + 1, self._totals.bytes + segment.end - segment.start)
            written = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(segment.modified_ms / 1000))
            log.info("broker %s: retention (%s) deleted commit-log segment %d-%d, last written %s; min offset %d",
                     config.broker_name, _word(decided.reason), segment.start, segment.end, written,
                     new_min)  # fmt: skip
        return decided, deleted

    def _floors(self, replica: Replica, role: Role) -> Floors | None:
        """The offsets this role must keep; None when the replica is fenced."""
        confirm, retained = replica.store.confirm_offset, self._retained_floor()
        if role is Role.SLAVE:
            return Floors(confirm, retained=retained)
        master = replica.master
        if role is not Role.MASTER or master is None:
            return None
        acks = {broker_id: progress.ack_offset for broker_id, progress in master.slaves().items()}
        members = master.sync_state.effective()
        return Floors(confirm, slave_floor(members, replica.broker_id, acks), retained)


def _word(reason: Reason | None) -> str:
    return reason.value if reason is not None else "none"
