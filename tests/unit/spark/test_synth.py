"""The synthetic fleet generator (``spark/synth.py``) against an independent oracle.

The oracle (``tests/harness/synth_oracle.py``) reads the Parquet files back with pyarrow and computes the report's
measures (docs/analytics.md) in plain Python, one row at a time, with the agents' own ``truncation_point``: it
shares no code with the generator, so a figure both agree on is the figure the definitions give.
``tests/spark/test_synth_report.py`` holds the Spark report to the same oracle.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")
pytest.importorskip("numpy")
import pyarrow.parquet as pq  # noqa: E402

from agents.store.epochs import EpochCache  # noqa: E402
from spark.dataset import check_dataset  # noqa: E402
from spark.schema import TABLES  # noqa: E402
from spark.synth import (  # noqa: E402
    REASON_CONFIRMED,
    REASON_NOT_IN_SSS,
    SET_KINDS,
    AnomalyCounts,
    Manifest,
    synthesize,
)
from tests.harness.synth_oracle import ALL_KINDS, Row, SetKey, oracle, read  # noqa: E402

# --- fixtures -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Manifest]:
    out = tmp_path_factory.mktemp("synth") / "fleet"
    return out, synthesize(out, clusters=3, sets=12, replicas=3, epochs=5, seed=11, anomalies=ALL_KINDS)


# --- tests ----------------------------------------------------------------------------------------------------


def test_schemas_match_and_dataset_is_readable(fleet: tuple[Path, Manifest]) -> None:
    out, _ = fleet
    check_dataset(out)
    for name, schema in TABLES.items():
        for path in (out / name).glob("*.parquet"):
            assert pq.read_schema(path).remove_metadata() == schema, path


def test_row_counts(fleet: tuple[Path, Manifest]) -> None:
    out, manifest = fleet
    t = read(out)
    assert manifest.rows == {name: len(rows) for name, rows in t.items()}
    assert len(t["clusters"]) == 3 * 2
    assert len(t["sync_state"]) == 12 * 3 + 12 * 2  # the unreachable cluster only in the previous snapshot
    assert len(t["replicas"]) == 3 * len(t["sync_state"])
    assert {r["snapshotTs"] for r in t["epoch_entries"]} == {r["snapshotTs"] for r in t["clusters"]}
    assert json.loads((out / "manifest.json").read_text()) == manifest.to_dict()


def test_fleet_figures_match_the_oracle(fleet: tuple[Path, Manifest]) -> None:
    out, manifest = fleet
    assert oracle(out).fleet == manifest.expected["fleet"]


@pytest.mark.parametrize(
    ("clusters", "sets", "replicas", "epochs", "snapshots", "seed"),
    [
        pytest.param(2, 30, 3, 4, 2, 1, id="default-anomalies"),
        pytest.param(1, 20, 2, 2, 3, 2, id="two-replicas-three-snapshots"),
        pytest.param(2, 15, 5, 3, 2, 3, id="five-replicas"),
        pytest.param(2, 10, 3, 1, 1, 4, id="one-epoch-one-snapshot"),
        pytest.param(1, 12, 1, 3, 2, 5, id="one-replica"),
        pytest.param(1, 3, 3, 3, 2, 6, id="too-few-sets-for-defaults"),
    ],
)
def test_default_fleets_match_the_oracle(
    tmp_path: Path, clusters: int, sets: int, replicas: int, epochs: int, snapshots: int, seed: int
) -> None:
    manifest = synthesize(tmp_path / "f", clusters, sets, replicas, epochs, seed, snapshots=snapshots)
    assert oracle(tmp_path / "f").fleet == manifest.expected["fleet"]
    check_well_formed(tmp_path / "f")


def test_each_anomaly_is_where_the_manifest_says(fleet: tuple[Path, Manifest]) -> None:
    out, manifest = fleet
    got = oracle(out)
    listed = manifest.expected["anomalies"]
    assert got.unreachable_clusters == [d["cluster"] for d in listed["unreachable_cluster"]]
    places = {kind: {(d["cluster"], d["brokerName"]): d for d in listed[kind]} for kind in SET_KINDS}
    for kind, count in ALL_KINDS.per_kind().items():
        assert len(places[kind]) == count, kind
    anomalous = {key for items in places.values() for key in items}
    assert len(anomalous) == sum(ALL_KINDS.per_kind().values())  # distinct sets

    def where(predicate: Any) -> set[SetKey]:
        return {key for key, f in got.sets.items() if predicate(f)}

    assert where(lambda f: f.no_master) == set(places["no_master"])
    assert where(lambda f: f.divergent) == set(places["diverged"]) | set(places["extra_epoch"])
    assert where(lambda f: f.no_consistent_point) == set(places["no_consistent_point"])
    assert where(lambda f: f.unreachable) == set(places["unreachable_replica"])
    assert where(lambda f: f.unclean_reason == REASON_CONFIRMED) == set(places["unclean_confirmed"])
    assert where(lambda f: f.unclean_reason == REASON_NOT_IN_SSS) == set(places["unclean_not_in_sss"])
    assert where(lambda f: f.preferred_imbalance) == set(places["preferred_imbalance"])
    changed = set(places["master_change"]) | set(places["unclean_confirmed"]) | set(places["unclean_not_in_sss"])
    assert where(lambda f: bool(f.master_changes)) == changed
    truncating = set(places["diverged"]) | set(places["extra_epoch"])
    truncating |= {k for k, d in places["unclean_confirmed"].items() if d["evidence"] == "latest"}
    assert where(lambda f: f.truncating > 0) == truncating
    assert {d["evidence"] for d in places["unclean_confirmed"].values()} == {"latest", "previous"}

    for kind in ("diverged", "extra_epoch"):
        for key, d in places[kind].items():
            f = got.sets[key]
            assert (f.conflicting, f.divergent_entries, f.divergence) == (
                d["conflictingEpochs"],
                d["divergentEntries"],
                d["divergence"],
            )
            assert f.truncation_bytes == d["predictedTruncationBytes"] > 0
            assert f.per_replica[d["brokerId"]]["pred"] == d["predictedTruncationBytes"]
    for key, d in places["no_consistent_point"].items():
        assert got.sets[key].per_replica[d["brokerId"]]["lag"] == d["lag"]
        assert not got.sets[key].divergent
    for kind in ("master_change", "unclean_confirmed", "unclean_not_in_sss"):
        for key, d in places[kind].items():
            assert got.sets[key].master_changes == d["masterChanges"] > 0
    for key, d in places["unclean_confirmed"].items():
        f = got.sets[key]
        assert not f.divergent
        assert f.truncation_bytes == d.get("predictedTruncationBytes", 0)


def test_healthy_sets_are_healthy(fleet: tuple[Path, Manifest]) -> None:
    out, manifest = fleet
    got = oracle(out)
    anomalous = {(d["cluster"], d["brokerName"]) for k in SET_KINDS for d in manifest.expected["anomalies"][k]}
    healthy = [f for key, f in got.sets.items() if key not in anomalous]
    assert healthy
    for f in healthy:
        assert not f.no_master and f.in_sync == f.replicas == 3 and f.unreachable == 0
        assert f.master_changes == 0 and not f.divergent and f.truncating == 0 and f.truncation_bytes == 0
        assert f.no_consistent_point == 0 and f.unclean_reason is None and not f.preferred_imbalance
        assert f.max_lag is not None and f.max_lag >= 0


def check_well_formed(out: Path) -> None:
    """Every cache is a valid EpochCache whose rows chain (each ends where the next starts, the last at maxOffset),
    every confirmOffset is at most its set's smallest maxOffset, and caches only grow from snapshot to snapshot."""
    t = read(out)
    rows: dict[tuple[str, str, int, datetime], list[Row]] = defaultdict(list)
    for row in t["epoch_entries"]:
        rows[(row["cluster"], row["brokerName"], row["brokerId"], row["snapshotTs"])].append(row)
    by_set: dict[tuple[str, str, datetime], list[Row]] = defaultdict(list)
    for r in t["replicas"]:
        by_set[(r["cluster"], r["brokerName"], r["snapshotTs"])].append(r)
        entries = rows.get((r["cluster"], r["brokerName"], r["brokerId"], r["snapshotTs"]), [])
        if not r["reachable"]:
            assert not entries and r["maxOffset"] is None and r["error"]
            continue
        assert entries and r["error"] is None
        assert [e["epoch"] for e in entries] == sorted(e["epoch"] for e in entries)  # written in order
        cache = EpochCache.from_pairs([(e["epoch"], e["startOffset"]) for e in entries], r["maxOffset"])
        assert [x.end_offset for x in cache.entries] == [e["endOffset"] for e in entries]
        assert r["minOffset"] <= entries[0]["endOffset"]
    for reps in by_set.values():
        known = [r for r in reps if r["reachable"]]
        assert all(r["confirmOffset"] <= r["maxOffset"] for r in known)
    ts = sorted({r["snapshotTs"] for r in t["clusters"]})
    for (cluster, broker, broker_id, when), entries in rows.items():
        if when == ts[0]:
            continue
        before = rows.get((cluster, broker, broker_id, ts[ts.index(when) - 1]))
        if before is not None:
            now = [(e["epoch"], e["startOffset"]) for e in entries]
            then = [(e["epoch"], e["startOffset"]) for e in before]
            assert now[: len(then)] == then or now == then[: len(now)]  # an old master's tail may be cut
            assert before[-1]["endOffset"] <= entries[-1]["endOffset"] or len(now) > len(then)


def test_every_cache_is_well_formed(fleet: tuple[Path, Manifest]) -> None:
    check_well_formed(fleet[0])


def _contents(out: Path) -> dict[str, Any]:
    keys = {
        "clusters": ["snapshotTs", "cluster"],
        "sync_state": ["snapshotTs", "cluster", "brokerName"],
        "replicas": ["snapshotTs", "cluster", "brokerName", "brokerId"],
        "epoch_entries": ["snapshotTs", "cluster", "brokerName", "brokerId", "epoch"],
    }
    return {name: pq.read_table(out / name).sort_by([(k, "ascending") for k in keys[name]]) for name in TABLES}


def _digests(out: Path) -> dict[str, list[str]]:
    return {
        name: sorted(hashlib.sha256(p.read_bytes()).hexdigest() for p in (out / name).glob("*.parquet"))
        for name in TABLES
    }


def test_same_seed_same_data(tmp_path: Path) -> None:
    a = synthesize(tmp_path / "a", 2, 20, 3, 4, seed=5)
    b = synthesize(tmp_path / "b", 2, 20, 3, 4, seed=5)
    synthesize(tmp_path / "c", 2, 20, 3, 4, seed=6)
    assert a.to_dict() == b.to_dict()
    ta, tb, tc = _contents(tmp_path / "a"), _contents(tmp_path / "b"), _contents(tmp_path / "c")
    assert all(ta[name].equals(tb[name]) for name in TABLES)
    assert _digests(tmp_path / "a") == _digests(tmp_path / "b")  # byte-identical files, other names
    assert not ta["epoch_entries"].equals(tc["epoch_entries"])


def test_chunks_and_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("spark.synth.TARGET_ROWS", 60)  # 5 sets of 3 x 4 entries per chunk
    calls: list[tuple[int, int]] = []
    manifest = synthesize(tmp_path / "f", 2, 12, 3, 4, seed=8, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(5, 24), (10, 24), (15, 24), (20, 24), (24, 24)]
    files = [p.name for p in (tmp_path / "f" / "epoch_entries").glob("*.parquet")]
    first = datetime.fromisoformat(manifest.snapshots[0]).strftime("snapshot-%Y%m%dT%H%M%S%fZ")
    assert sum(name.startswith(first) for name in files) == 5  # one file per chunk
    assert oracle(tmp_path / "f").fleet == manifest.expected["fleet"]
    check_well_formed(tmp_path / "f")


def test_since_drops_earlier_snapshots(fleet: tuple[Path, Manifest]) -> None:
    """The manifest's snapshots are one minute apart: from the latest on, no previous snapshot and no changes."""
    out, manifest = fleet
    got = oracle(out, since=datetime.fromisoformat(manifest.snapshots[-1]))
    assert got.fleet["masterChanges"] is None
    assert len(manifest.snapshots) == 2
    assert datetime.fromisoformat(manifest.snapshots[1]) - datetime.fromisoformat(manifest.snapshots[0]) == (
        datetime.fromisoformat("2025-01-01T00:01:00") - datetime.fromisoformat("2025-01-01T00:00:00")
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"clusters": 0}, "clusters must be positive"),
        ({"sets": -1}, "sets must be positive"),
        ({"replicas": 0}, "replicas must be positive"),
        ({"epochs": 0}, "epochs must be positive"),
        ({"snapshots": 0}, "snapshots must be positive"),
        ({"seed": -1}, "seed must not be negative"),
        ({"anomalies": AnomalyCounts(diverged=5, master_change=5)}, "10 broker sets with anomalies"),
        ({"anomalies": AnomalyCounts(no_master=1, unreachable_cluster=2)}, "0 in reachable clusters"),
        ({"anomalies": AnomalyCounts(unreachable_cluster=3)}, "3 unreachable clusters requested"),
        ({"anomalies": AnomalyCounts(diverged=1), "replicas": 1}, "diverged needs at least 2 replicas"),
        ({"anomalies": AnomalyCounts(master_change=1), "snapshots": 1}, "master_change needs"),
        ({"anomalies": AnomalyCounts(extra_epoch=1), "epochs": 1}, "extra_epoch needs"),
        ({"anomalies": AnomalyCounts(no_master=-1)}, "must not be negative"),
    ],
)
def test_invalid_fleets(tmp_path: Path, kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"clusters": 2, "sets": 4, "replicas": 3, "epochs": 3, "seed": 1} | kwargs
    with pytest.raises(ValueError, match=message):
        synthesize(tmp_path / "f", **args)
    assert not (tmp_path / "f" / "clusters").exists()  # nothing written


def test_refuses_an_existing_dataset(fleet: tuple[Path, Manifest]) -> None:
    with pytest.raises(ValueError, match="already holds a dataset"):
        synthesize(fleet[0], 1, 1, 1, 1, seed=1)


def test_default_counts() -> None:
    assert AnomalyCounts.default(100, 6667, 3, 50) == AnomalyCounts(
        **dict.fromkeys(SET_KINDS, 99 * 6667 // 100), unreachable_cluster=1
    )
    small = AnomalyCounts.default(1, 9, 3, 2, snapshots=2)
    assert small == AnomalyCounts(**dict.fromkeys(SET_KINDS, 1))
    assert AnomalyCounts.default(1, 8, 3, 2) == AnomalyCounts()  # fewer sets than kinds: none
    only = AnomalyCounts.default(1, 100, 1, 1, snapshots=1)
    assert only == AnomalyCounts(no_master=1)
