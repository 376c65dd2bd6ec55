"""CommitLogCleaner over a real replica in tmp_path: real segment files aged with ``os.utime``, a clock passed in."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from agents.broker.cleaner import CommitLogCleaner, Totals
from agents.config import BrokerConfig
from agents.ha.config import HAConfig
from agents.ha.replica import Replica
from agents.ha.retention import HOUR_MS, Reason
from agents.store.commitlog import segment_name
from agents.store.layout import STORE_DIR
from agents.store.record import Message

SEG = 1024
NOW = 1_700_000_000.0
ALL_HOURS = ";".join(str(h) for h in range(24))
"""deleteWhen: every hour, so a run at any clock reading (in any time zone) is in the window."""


def config(root: Path, **changes: object) -> BrokerConfig:
    base = BrokerConfig(broker_name="b", store_path_root_dir=str(root), controller_addr=("127.0.0.1:1",))
    defaults: dict[str, object] = {"delete_when": ALL_HOURS, "file_reserved_time": 1}
    return replace(base, delete_commit_log_files_interval=0, **(defaults | changes))  # type: ignore[arg-type]


def fill(replica: Replica, segments: int) -> None:
    """Put messages until the log spans `segments` segments (the last one partly written)."""
    i = 0
    while replica.store.max_offset < (segments - 1) * SEG + 100:
        result = replica.put([Message("Orders", 0, f"m{i}".encode().ljust(200, b"."), {}, i)])
        assert result.status.name == "PUT_OK"
        i += 1


def age(replica: Replica, hours_ago: list[float]) -> None:
    """Set the last-write time of segment i to `hours_ago[i]` hours before NOW."""
    for i, hours in enumerate(hours_ago):
        when = NOW - hours * HOUR_MS / 1000
        os.utime(replica.root / STORE_DIR / "commitlog" / segment_name(i * SEG), (when, when))


def files(replica: Replica) -> list[int]:
    return sorted(int(p.name) for p in (replica.root / STORE_DIR / "commitlog").iterdir() if p.name.isdigit())


@pytest.fixture
def master(tmp_path: Path) -> Iterator[Replica]:
    replica = Replica(tmp_path, 1, HAConfig(), SEG)
    replica.change_to_master(1, frozenset({1}), 1, lambda _s: None)
    yield replica
    replica.close()


def test_segments_older_than_the_reserved_time_are_deleted_oldest_first(master: Replica) -> None:
    fill(master, 5)
    age(master, [3, 2, 0.5, 2, 0])  # the third is young: it and everything after it stay (no holes)
    cleaner = CommitLogCleaner(lambda: master, lambda: config(master.root), clock=lambda: NOW)
    p = cleaner.run_once()
    assert p.reason is Reason.EXPIRED and [s.start for s in p.segments] == [0, SEG]
    assert master.store.min_offset == 2 * SEG and files(master)[0] == 2 * SEG
    assert cleaner.totals == Totals(segments=2, bytes=2 * SEG)
    assert cleaner.run_once().segments == ()  # nothing more has expired


def test_outside_the_delete_when_hours_nothing_goes(master: Replica) -> None:
    fill(master, 3)
    age(master, [100, 100, 0])
    hour = time.localtime(NOW).tm_hour
    other = config(master.root, delete_when=str((hour + 1) % 24))
    assert CommitLogCleaner(lambda: master, lambda: other, clock=lambda: NOW).run_once().segments == ()
    assert master.store.min_offset == 0


def test_an_operators_run_deletes_expired_segments_outside_the_delete_when_hours(master: Replica) -> None:
    """Issue 35, deleteExpiredCommitLog: Java's manual run counts as a deleteWhen hour; the floors still hold."""
    fill(master, 5)
    age(master, [100, 100, 100, 0.5, 0])
    hour = time.localtime(NOW).tm_hour
    other = config(master.root, delete_when=str((hour + 1) % 24))
    cleaner = CommitLogCleaner(lambda: master, lambda: other, retained_floor=lambda: 2 * SEG, clock=lambda: NOW)
    assert cleaner.run_once().segments == ()  # the schedule would not
    done = cleaner.run_now()
    # The third segment has expired too, but consumers still need it: the retained floor holds it.
    assert (done.segments, done.bytes, done.held_by) == (2, 2 * SEG, "retained floor")
    assert master.store.min_offset == 2 * SEG and cleaner.totals == Totals(segments=2, bytes=2 * SEG)


def test_the_retained_floor_is_never_crossed(master: Replica) -> None:
    fill(master, 5)
    age(master, [9, 9, 9, 9, 9])
    cleaner = CommitLogCleaner(
        lambda: master, lambda: config(master.root), retained_floor=lambda: 2 * SEG + 5, clock=lambda: NOW
    )
    p = cleaner.run_once()
    assert p.held_by == "retained floor" and master.store.min_offset == 2 * SEG


def test_an_in_sync_slave_that_has_acknowledged_nothing_holds_everything(tmp_path: Path) -> None:
    replica = Replica(tmp_path, 1, HAConfig(min_in_sync_replicas=1), SEG)
    try:
        replica.change_to_master(1, frozenset({1}), 1, lambda _s: None)
        fill(replica, 4)
        age(replica, [9, 9, 9, 9])
        master = replica.master
        assert master is not None
        master.confirm(frozenset({1, 2}), 2)  # broker 2 is in sync but has never connected
        p = CommitLogCleaner(lambda: replica, lambda: config(tmp_path), clock=lambda: NOW).run_once()
        assert p.held_by == "in-sync slave ack" and replica.store.min_offset == 0
    finally:
        replica.close()


def test_a_fenced_replica_is_left_alone(tmp_path: Path) -> None:
    replica = Replica(tmp_path, 1, HAConfig(), SEG)
    try:
        cleaner = CommitLogCleaner(lambda: replica, lambda: config(tmp_path), clock=lambda: NOW)
        assert cleaner.run_once().segments == ()
        assert CommitLogCleaner(lambda: None, lambda: config(tmp_path)).run_once().segments == ()
    finally:
        replica.close()


def test_the_thread_cleans_every_interval_and_stops(master: Replica) -> None:
    fill(master, 4)
    age(master, [9, 9, 9, 9])
    deleted = threading.Event()
    cleaner = CommitLogCleaner(lambda: master, lambda: config(master.root, clean_resource_interval=10),
                               clock=lambda: NOW)  # fmt: skip
    original = master.delete_before

    def spy(offset: int) -> int:
        new_min = original(offset)
        if new_min >= 3 * SEG:
            deleted.set()
        return new_min

    master.delete_before = spy  # type: ignore[method-assign]
    cleaner.start()
    try:
        assert deleted.wait(timeout=30)
    finally:
        cleaner.stop()
    assert not cleaner._thread.is_alive()
    assert files(master) == [3 * SEG] and cleaner.totals.segments == 3
