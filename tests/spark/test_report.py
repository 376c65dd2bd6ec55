"""The fleet report (``spark/report.py``) on a small hand-built fleet, every figure computed by hand.

The fleet: clusters ``alpha`` (5 broker sets) and ``beta``, two snapshots T0 and T1. ``beta`` is unreachable at
T1, so only its T0 data exists and none of it may count. Epoch caches are written as (epoch, start) pairs; the
last entry ends at the replica's maxOffset.

alpha at T1 (the latest snapshot); T0 (the previous one) only where it matters:

a1  master 1, masterEpoch 2 (T0: 2), SSS {1,2,3}, preferred 1
    b1 master (1,0)(2,100)        max 500
    b2 slave  (1,0)(2,100)        max 450  lag 50.  Epoch 2 same start on both: point min(450, 500) = 450, cuts 0.
    b3 slave  (1,0)(2,120)        max 350  lag 150. Diverged: epoch 2 starts at 120, the master's at 100. Epoch 1
                                           agrees: point min(its end 120, the master's end 100) = 100, so it cuts
                                           350 - 100 = 250 bytes. divergentEntries 1 (epoch 2).
    epochs {1,2} = 2, conflictingEpochs 1 (epoch 2), divergence 1 + 1 = 2. maxLag 150.
a2  master 3, masterEpoch 4 (T0: master 1, masterEpoch 3, SSS {1,2}), SSS {2,3}, preferred 1 -> imbalance
    b3 master (1,0)(4,150)        max 400
    b2 slave  (1,0)(4,150)        max 400  lag 0, point 400, cuts 0 (already truncated and caught up)
    b1 unreachable                         (no offsets, no cache: every measure null)
    masterChanges 4 - 3 = 1. Unclean, "confirmed data lost", seen only in T0: b1 and b2 (last epoch 3 < 4)
    had confirmOffset 900 > 150, where the new master's last epoch starts (reason 2 holds too: 3 was not in
    {1,2}; the first reason wins). epochs {1,4} = 2. maxLag 0.
a3  no master (T0: master 1), masterEpoch 5 (T0: 5), SSS {}, no preferred
    b1, b2 slaves (1,0)(5,10) max 60: the master is not known, so no lag, point or divergence.
a4  master 2, masterEpoch 7 (T0: master 1, masterEpoch 6, SSS {1,3}), SSS {2,3}, no preferred
    b2 master (5,500)(7,800)      max 850
    b1 slave  (3,100)(5,500)(6,800) max 1000  lag -150. Epoch 6: the master lacks it; epoch 5 agrees: point
                                           min(800, 800) = 800, cuts 200. divergentEntries 1: epoch 6 (lacking,
                                           >= the master's first epoch 5); epoch 3 is lacking but below 5.
    b3 slave  (6,800)             max 1000 lag -150. No common (epoch, start): no consistent point.
                                           divergentEntries 1 (epoch 6).
    masterChanges 1. Unclean, "not in previous SyncStateSet": 2 was not in {1,3}; no confirmOffset (800 at
    most, T0 and T1) exceeds 800, where the master's last epoch starts. epochs {3,5,6,7} = 4, no conflict.
a5  new at T1: master 1, masterEpoch 1, SSS {1,2}, preferred 2 -> imbalance; masterChanges null
    b1 master (1,0)               max 300
    b2 slave  (1,0)               max 250  lag 50, point 250, cuts 0
    b3 slave  (1,0)(2,0)          max 280  lag 20. A malformed cache (epoch 2 does not start after epoch 1):
                                           truncationError, no point. divergentEntries 1 (epoch 2, lacking).

alpha: 5 sets, 1 without master, 14 replicas, 9 in sync, 1 unreachable, masterChanges 0+1+0+1 = 2, divergent
a1 a4 a5, truncating a1/b3 + a4/b1 = 250 + 200 = 450 bytes, 1 without consistent point, unclean a2 a4,
imbalance a2 a5, maxLag 150.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from spark.dataset import DatasetError, rows_table, write_snapshot
from spark.report import TRUNCATION_SCHEMA, Report, main, run_report, truncation_batches
from spark.session import is_local, local_cores, on_this_machine, ship_packages

T0 = datetime(2024, 5, 1, 0, 0, tzinfo=UTC)
T1 = datetime(2024, 5, 1, 1, 0, tzinfo=UTC)
BETA_ERROR = "controller 192.0.2.9:9878: timed out after 3 s"
B1_ERROR = "GetBrokerEpochCache to broker 10.0.0.1:10911 refused"
MALFORMED = (
    "replica's epoch cache: epoch 2 starts at 0, not after epoch 1's start 0; start offsets must strictly ascend"
)

Cache = list[tuple[int, int]]


def sync(
    cluster: str, name: str, master: int | None, epoch: int, sss: list[int], preferred: int | None
) -> dict[str, Any]:
    return {
        "cluster": cluster,
        "brokerName": name,
        "masterBrokerId": master,
        "masterEpoch": epoch,
        "syncStateSetEpoch": epoch + 1,
        "syncStateSet": sss,
        "preferredBrokerId": preferred,
    }


class Snapshot:
    """Rows of one snapshot, built replica by replica (a replica's epoch entries come with it)."""

    def __init__(self, ts: datetime) -> None:
        self.ts = ts
        self.tables: dict[str, list[dict[str, Any]]] = {
            n: [] for n in ("clusters", "sync_state", "replicas", "epoch_entries")
        }

    def cluster(self, name: str, sets: int, error: str | None = None) -> None:
        row = {"cluster": name, "controllers": "10.0.0.9:9878", "reachable": error is None, "error": error}
        self.tables["clusters"].append(row | {"brokerSets": sets, "source": "synth"})

    def replica(
        self,
        cluster: str,
        name: str,
        broker_id: int,
        cache: Cache | None,
        max_offset: int = 0,
        confirm: int = 0,
        *,
        master: bool = False,
        in_sync: bool = True,
    ) -> None:
        """`cache` None: an unreachable replica (no offsets, no epoch entries)."""
        addr = f"10.0.0.{broker_id}:10911"
        reachable = cache is not None
        self.tables["replicas"].append(
            {
                "cluster": cluster,
                "brokerName": name,
                "brokerId": broker_id,
                "brokerAddr": addr,
                "role": "master" if master else "slave",
                "alive": reachable,
                "inSync": in_sync and reachable,
                "preferred": False,
                "reachable": reachable,
                "error": None if reachable else B1_ERROR,
                "minOffset": 0 if reachable else None,
                "maxOffset": max_offset if reachable else None,
                "confirmOffset": confirm if reachable else None,
            }
        )
        entries = cache or []
        ends = [start for _, start in entries[1:]] + [max_offset]
        for (epoch, start), end in zip(entries, ends[: len(entries)], strict=True):
            self.tables["epoch_entries"].append(
                {"cluster": cluster, "brokerName": name, "brokerId": broker_id, "brokerAddr": addr}
                | {"epoch": epoch, "startOffset": start, "endOffset": end}
            )

    def write(self, root: Path) -> None:
        tables = {n: rows_table(n, [r | {"snapshotTs": self.ts} for r in rows]) for n, rows in self.tables.items()}
        write_snapshot(root, tables, self.ts)


def snapshot_t0() -> Snapshot:
    s = Snapshot(T0)
    s.cluster("alpha", 4)
    s.cluster("beta", 1)
    s.tables["sync_state"] += [
        sync("alpha", "a1", 1, 2, [1, 2, 3], 1),
        sync("alpha", "a2", 1, 3, [1, 2], 1),
        sync("alpha", "a3", 1, 5, [1, 2], None),
        sync("alpha", "a4", 1, 6, [1, 3], None),
        sync("beta", "b1", 1, 1, [1, 2], 2),
    ]
    s.replica("alpha", "a1", 1, [(1, 0), (2, 100)], 400, 350, master=True)
    s.replica("alpha", "a1", 2, [(1, 0), (2, 100)], 350, 350)
    s.replica("alpha", "a1", 3, [(1, 0), (2, 120)], 300, 100)
    s.replica("alpha", "a2", 1, [(1, 0), (3, 200)], 1000, 900, master=True)
    s.replica("alpha", "a2", 2, [(1, 0), (3, 200)], 900, 900)
    s.replica("alpha", "a2", 3, [(1, 0)], 150, 150, in_sync=False)
    s.replica("alpha", "a3", 1, [(1, 0), (5, 10)], 60, 50, master=True)
    s.replica("alpha", "a3", 2, [(1, 0), (5, 10)], 60, 50)
    s.replica("alpha", "a4", 1, [(3, 100), (5, 500), (6, 800)], 1000, 800, master=True)
    s.replica("alpha", "a4", 2, [(5, 500)], 800, 700, in_sync=False)
    s.replica("alpha", "a4", 3, [(5, 500), (6, 800)], 1000, 800)
    s.replica("beta", "b1", 1, [(1, 0)], 5000, 5000, master=True)  # beta's T0 must not count: lag 4999
    s.replica("beta", "b1", 2, [(1, 0)], 1, 1)
    return s


def snapshot_t1() -> Snapshot:
    s = Snapshot(T1)
    s.cluster("alpha", 5)
    s.cluster("beta", 0, error=BETA_ERROR)
    s.tables["sync_state"] += [
        sync("alpha", "a1", 1, 2, [1, 2, 3], 1),
        sync("alpha", "a2", 3, 4, [2, 3], 1),
        sync("alpha", "a3", None, 5, [], None),
        sync("alpha", "a4", 2, 7, [2, 3], None),
        sync("alpha", "a5", 1, 1, [1, 2], 2),
    ]
    s.replica("alpha", "a1", 1, [(1, 0), (2, 100)], 500, 450, master=True)
    s.replica("alpha", "a1", 2, [(1, 0), (2, 100)], 450, 450)
    s.replica("alpha", "a1", 3, [(1, 0), (2, 120)], 350, 350)
    s.replica("alpha", "a2", 3, [(1, 0), (4, 150)], 400, 400, master=True)
    s.replica("alpha", "a2", 2, [(1, 0), (4, 150)], 400, 400)
    s.replica("alpha", "a2", 1, None)
    s.replica("alpha", "a3", 1, [(1, 0), (5, 10)], 60, 50, in_sync=False)
    s.replica("alpha", "a3", 2, [(1, 0), (5, 10)], 60, 50, in_sync=False)
    s.replica("alpha", "a4", 2, [(5, 500), (7, 800)], 850, 800, master=True)
    s.replica("alpha", "a4", 1, [(3, 100), (5, 500), (6, 800)], 1000, 800, in_sync=False)
    s.replica("alpha", "a4", 3, [(6, 800)], 1000, 800)
    s.replica("alpha", "a5", 1, [(1, 0)], 300, 250, master=True)
    s.replica("alpha", "a5", 2, [(1, 0)], 250, 250)
    s.replica("alpha", "a5", 3, [(1, 0), (2, 0)], 280, 250, in_sync=False)
    return s


@pytest.fixture(scope="module")
def fleet_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fleet")
    snapshot_t0().write(root)
    snapshot_t1().write(root)
    return root


@pytest.fixture(scope="module")
def report(spark: SparkSession, fleet_dir: Path) -> Iterator[Report]:
    result = run_report(spark, fleet_dir)
    yield result
    result.unpersist()


@pytest.fixture(scope="module")
def doc(report: Report) -> dict[str, Any]:
    return report.summary(details=True)


# --- expected figures (see the module docstring) --------------------------------------------------

FLEET_TOTALS = {
    "sets": 5,
    "setsWithoutMaster": 1,
    "replicas": 14,
    "inSyncReplicas": 9,
    "unreachableReplicas": 1,
    "masterChanges": 2,
    "divergentSets": 3,
    "replicasTruncating": 2,
    "predictedTruncationBytes": 450,
    "replicasWithoutConsistentPoint": 1,
    "uncleanElections": 2,
    "preferredImbalance": 2,
    "maxLag": 150,
}
BETA = {
    "cluster": "beta",
    "snapshotTs": T1.isoformat(),
    "reachable": False,
    "error": BETA_ERROR,
    **{key: 0 for key in FLEET_TOTALS},
    "masterChanges": None,
    "maxLag": None,
}

SET_KEYS = [
    "cluster", "brokerName", "snapshotTs", "masterBrokerId", "masterEpoch", "syncStateSetEpoch", "preferredBrokerId",
    "replicas", "inSyncReplicas", "aliveReplicas", "unreachableReplicas", "noMaster", "maxLag", "epochs",
    "masterChanges", "conflictingEpochs", "divergent", "replicasTruncating", "predictedTruncationBytes",
    "replicasWithoutConsistentPoint", "uncleanElection", "uncleanReason", "preferredImbalance",
]  # fmt: skip
SETS = [  # from masterBrokerId on, in SET_KEYS order
    ("a1", 1, 2, 3, 1, 3, 3, 3, 0, False, 150, 2, 0, 1, True, 1, 250, 0, False, None, False),
    ("a2", 3, 4, 5, 1, 3, 2, 2, 1, False, 0, 2, 1, 0, False, 0, 0, 0, True, "confirmed data lost", True),
    ("a3", None, 5, 6, None, 2, 0, 2, 0, True, None, 2, 0, 0, False, 0, 0, 0, False, None, False),
    ("a4", 2, 7, 8, None, 3, 2, 3, 0, False, 0, 4, 1, 0, True, 1, 200, 1, True, "not in previous SyncStateSet", False),
    ("a5", 1, 1, 2, 2, 3, 2, 3, 0, False, 50, 2, None, 0, True, 0, 0, 0, False, None, True),
]

REPLICA_KEYS = [
    "cluster", "brokerName", "brokerId", "brokerAddr", "role", "reachable", "alive", "inSync", "maxOffset",
    "confirmOffset", "lag", "consistentPoint", "noConsistentPoint", "predictedTruncationBytes", "divergentEntries",
    "truncationError",
]  # fmt: skip
REPLICAS = [  # brokerName, brokerId, maxOffset, lag, consistentPoint, noConsistentPoint, truncation, divergent, error
    ("a1", 1, 500, 0, None, False, 0, None, None),
    ("a1", 2, 450, 50, 450, False, 0, 0, None),
    ("a1", 3, 350, 150, 100, False, 250, 1, None),
    ("a2", 1, None, None, None, False, None, None, None),
    ("a2", 2, 400, 0, 400, False, 0, 0, None),
    ("a2", 3, 400, 0, None, False, 0, None, None),
    ("a3", 1, 60, None, None, False, None, None, None),
    ("a3", 2, 60, None, None, False, None, None, None),
    ("a4", 1, 1000, -150, 800, False, 200, 1, None),
    ("a4", 2, 850, 0, None, False, 0, None, None),
    ("a4", 3, 1000, -150, None, True, None, 1, None),
    ("a5", 1, 300, 0, None, False, 0, None, None),
    ("a5", 2, 250, 50, 250, False, 0, 0, None),
    ("a5", 3, 280, 20, None, False, None, 1, MALFORMED),
]
WORST = {
    "maxLag": [("a1", 150), ("a5", 50)],  # a2 and a4 have 0, a3 none
    "predictedTruncationBytes": [("a1", 250), ("a4", 200)],
    "masterChanges": [("a2", 1), ("a4", 1)],  # a tie: by broker name
    "divergence": [("a1", 2), ("a4", 2), ("a5", 1)],
}


def worst(lists: dict[str, list[tuple[str, int]]]) -> dict[str, list[dict[str, Any]]]:
    return {m: [{"cluster": "alpha", "brokerName": b, "value": v} for b, v in items] for m, items in lists.items()}


# --- the report -------------------------------------------------------------------------------------


def test_document_head_and_fleet(doc: dict[str, Any], fleet_dir: Path) -> None:
    head = ["formatVersion", "input", "since", "snapshots", "latestSnapshotTs", "fleet", "clusters", "worst"]
    assert list(doc) == [*head, "sets", "replicas"]
    assert doc["formatVersion"] == 1
    assert doc["input"] == str(fleet_dir)
    assert doc["since"] is None
    assert doc["snapshots"] == 2
    assert doc["latestSnapshotTs"] == "2024-05-01T01:00:00+00:00"
    assert doc["fleet"] == {"clusters": 2, "unreachableClusters": 1, **FLEET_TOTALS}
    assert list(doc["fleet"]) == ["clusters", "unreachableClusters", *FLEET_TOTALS]


def test_clusters(doc: dict[str, Any]) -> None:
    alpha = {"cluster": "alpha", "snapshotTs": T1.isoformat(), "reachable": True, "error": None, **FLEET_TOTALS}
    assert doc["clusters"] == [alpha, BETA]
    assert [list(c) for c in doc["clusters"]] == [list(alpha), list(alpha)]


def test_sets(doc: dict[str, Any]) -> None:
    expected = [dict(zip(SET_KEYS, ("alpha", row[0], T1.isoformat(), *row[1:]), strict=True)) for row in SETS]
    assert doc["sets"] == expected
    assert [list(s) for s in doc["sets"]] == [SET_KEYS] * len(SETS)


def test_replicas(doc: dict[str, Any]) -> None:
    got = [
        (
            r["brokerName"],
            r["brokerId"],
            r["maxOffset"],
            r["lag"],
            r["consistentPoint"],
            r["noConsistentPoint"],
            r["predictedTruncationBytes"],
            r["divergentEntries"],
            r["truncationError"],
        )
        for r in doc["replicas"]
    ]
    assert got == REPLICAS
    assert [list(r) for r in doc["replicas"]] == [REPLICA_KEYS] * len(REPLICAS)
    assert doc["replicas"][3] == {  # unreachable: nothing known but what the controller says
        **dict.fromkeys(REPLICA_KEYS),
        "cluster": "alpha",
        "brokerName": "a2",
        "brokerId": 1,
        "brokerAddr": "10.0.0.1:10911",
        "role": "slave",
        "reachable": False,
        "alive": False,
        "inSync": False,
        "noConsistentPoint": False,
    }


def test_worst(doc: dict[str, Any]) -> None:
    assert doc["worst"] == worst(WORST)


def test_since_after_every_snapshot(spark: SparkSession, fleet_dir: Path) -> None:
    with pytest.raises(DatasetError, match=r"no snapshot at or after 2024-05-01T02:00:00\+00:00 in table clusters"):
        run_report(spark, fleet_dir, since=datetime(2024, 5, 1, 2, 0, tzinfo=UTC))


def test_main_since_top_and_out(fleet_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--since drops T0: no previous snapshot, so no masterChanges, and both unclean elections needed T0 (a2
    saw its lost confirmed data only in T0's replicas; a4's new master is judged against T0's SyncStateSet).
    --top 1 keeps the head of each worst list; --out writes every table."""
    out = tmp_path / "out"
    argv = ["--input", str(fleet_dir), "--since", "2024-05-01T00:30:00", "--top", "1", "--out", str(out), "--details"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["since"] == "2024-05-01T00:30:00+00:00"  # naive: UTC
    assert doc["snapshots"] == 1
    totals = FLEET_TOTALS | {"masterChanges": None, "uncleanElections": 0}
    assert doc["fleet"] == {"clusters": 2, "unreachableClusters": 1, **totals}
    assert [(s["masterChanges"], s["uncleanElection"], s["uncleanReason"]) for s in doc["sets"]] == [
        (None, False, None)
    ] * 5
    later = WORST | {"masterChanges": []}
    assert doc["worst"] == worst({measure: items[:1] for measure, items in later.items()})

    assert pq.read_table(out / "fleet").to_pylist() == [doc["fleet"]]
    assert pq.read_table(out / "worst").to_pylist() == [
        {"measure": measure, "rank": 1, "cluster": "alpha", "brokerName": items[0][0], "value": items[0][1]}
        for measure, items in later.items()
        if items
    ]
    clusters = pq.read_table(out / "clusters")
    assert clusters.column_names == list(BETA)
    assert sorted(clusters.column("cluster").to_pylist()) == ["alpha", "beta"]
    sets = pq.read_table(out / "sets")
    assert sets.column_names == SET_KEYS
    assert sorted(sets.column("brokerName").to_pylist()) == [row[0] for row in SETS]
    replicas = pq.read_table(out / "replicas")
    assert replicas.column_names == REPLICA_KEYS
    assert replicas.num_rows == len(REPLICAS)


# --- bad input -------------------------------------------------------------------------------------


def small_dataset(root: Path) -> Path:
    s = Snapshot(T1)
    s.cluster("alpha", 1)
    s.tables["sync_state"].append(sync("alpha", "a1", 1, 1, [1], None))
    s.replica("alpha", "a1", 1, [(1, 0)], 10, 10, master=True)
    s.write(root)
    return root


def drop_table(root: Path) -> str:
    for path in (root / "epoch_entries").iterdir():
        path.unlink()
    (root / "epoch_entries").rmdir()
    return f"{root}: table epoch_entries is missing or empty (expected {root}/epoch_entries/*.parquet)"


def drop_column(root: Path) -> str:
    (path,) = (root / "replicas").glob("*.parquet")
    pq.write_table(pq.read_table(path).drop_columns(["confirmOffset"]), path)
    return f"{path}: column confirmOffset of table replicas is missing"


def empty(root: Path) -> str:
    for table in root.iterdir():
        for path in table.iterdir():
            path.unlink()
        table.rmdir()
    return f"{root}: table clusters is missing or empty"


def corrupt(root: Path) -> str:
    path = root / "sync_state" / "snapshot-garbage.parquet"
    path.write_bytes(b"this is not parquet at all" * 10)
    return f"{path}: not a readable Parquet file ("


@pytest.mark.parametrize("damage", [drop_table, drop_column, empty, corrupt])
def test_bad_input(
    damage: Callable[[Path], str], spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = small_dataset(tmp_path / "fleet")
    message = damage(root)
    with pytest.raises(DatasetError, match=re.escape(message)):
        run_report(spark, root)
    out = tmp_path / "out"
    assert main(["--input", str(root), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"error: {message}")
    assert not out.exists()


def test_not_a_directory(spark: SparkSession, tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such directory"):
        run_report(spark, tmp_path / "missing")


# --- the Python step and the session helpers, without Spark -----------------------------------------


def test_truncation_batches() -> None:
    """The mapInArrow step: the agents' truncation_point per row; a malformed cache on either side, or one
    ahead of its log, gives its error and no point; divergentEntries passes through; a set's master cache is
    shared by its slaves (rows of two sets interleave here)."""
    rows = [  # brokerName, localEpochs, localStarts, localMax, masterEpochs, masterStarts, masterMax
        ("a", [1, 2], [0, 100], 450, [1, 2], [0, 100], 500),  # point 450
        ("b", [6], [800], 1000, [5, 7], [500, 800], 850),  # no common (epoch, start)
        ("a", [], [], 70, [1, 2], [0, 100], 500),  # an empty cache copies from scratch: 0
        ("c", [1], [0], 10, [2, 1], [0, 50], 100),  # the master's epochs descend
        ("a", [1, 2], [0, 100], 50, [1, 2], [0, 100], 500),  # maxOffset 50 below epoch 2's start
        ("b", [5, 6], [500, 600], 700, [5, 7], [500, 800], 850),  # row 1's master: 600, where epoch 6 began
    ]
    names = ["brokerName", "localEpochs", "localStarts", "localMax", "masterEpochs", "masterStarts", "masterMax"]
    table = pa.Table.from_pylist([dict(zip(names, row, strict=True)) for row in rows])
    batch = (
        table.append_column("cluster", pa.array(["c"] * len(rows)))
        .append_column("brokerId", pa.array(range(len(rows)), pa.int64()))
        .append_column("divergentEntries", pa.array([0, 1, 0, 0, 1, 0], pa.int64()))
        .slice(0)  # a zero-offset view; the sliced case follows
        .to_batches()[0]
    )
    (out,) = truncation_batches(iter([batch]))
    assert out.schema.names == TRUNCATION_SCHEMA.fieldNames()
    got = out.to_pydict()
    assert got["brokerId"] == [0, 1, 2, 3, 4, 5]
    assert got["divergentEntries"] == [0, 1, 0, 0, 1, 0]
    assert got["consistentPoint"] == [450, None, 0, None, None, 600]
    assert got["noConsistentPoint"] == [False, True, False, False, False, False]
    assert got["truncationError"] == [
        None,
        None,
        None,
        "master's epoch cache: epoch 1 follows epoch 2; epochs must ascend",
        "cannot end epoch 2 at 50: it starts at 100",
        None,
    ]
    (tail,) = truncation_batches(iter([batch.slice(4)]))  # list offsets not starting at 0
    assert tail.to_pydict()["consistentPoint"] == [None, 600]


def test_local_masters() -> None:
    assert [is_local(m) for m in ("local", "local[2]", "local[*]", "local[4,2]")] == [True] * 4
    assert [is_local(m) for m in ("local-cluster[1,1,1024]", "yarn", "spark://h:7077", "k8s://h")] == [False] * 4
    assert (local_cores("local"), local_cores("local[3]"), local_cores("local[3,2]")) == (1, 3, 3)
    assert local_cores("local[*]") == (os.cpu_count() or 1)


def test_executors_on_this_machine() -> None:
    for master in ("local", "local[2]", "spark://127.0.0.1:7077", "spark://localhost:7077"):
        assert on_this_machine(master), master
    for master in ("spark://10.0.0.5:7077", "spark://127.0.0.1:7077,10.0.0.5:7077", "yarn", "k8s://https://h:6443"):
        assert not on_this_machine(master), master


def test_local_sessions_default_to_the_throughput_collector() -> None:
    """G1's native overhead took a 3g driver past 4 GiB at 100 M rows; a cluster's JVM options are its own."""
    from spark.session import default_conf

    assert default_conf("local[*]")["spark.driver.extraJavaOptions"] == "-XX:+UseParallelGC"
    assert "spark.driver.extraJavaOptions" not in default_conf("yarn")


def test_ship_packages_zips_what_executors_import() -> None:
    added: list[str] = []
    session = SimpleNamespace(sparkContext=SimpleNamespace(addPyFile=added.append))
    archive = ship_packages(cast(SparkSession, session))
    assert added == [str(archive)]
    with zipfile.ZipFile(archive) as zf:
        names = set(zf.namelist())
    assert {"agents/__init__.py", "agents/store/epochs.py", "spark/__init__.py", "spark/report.py"} <= names
    assert not [n for n in names if "__pycache__" in n or not n.endswith(".py")]
