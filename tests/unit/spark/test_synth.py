"""The synthetic fleet generator (``spark/synth.py``, issue 7) against an independent oracle.

The oracle reads the Parquet files back with pyarrow and computes the report's measures (docs/analytics.md) in
plain Python, one row at a time, with the agents' own ``truncation_point``: it shares no code with the generator,
so a figure both agree on is the figure the definitions give. ``tests/spark/test_synth_report.py`` holds the Spark
report to the same oracle.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")
pytest.importorskip("numpy")
import pyarrow.parquet as pq  # noqa: E402

from agents.store.epochs import EpochCache, truncation_point  # noqa: E402
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

Row = dict[str, Any]
SetKey = tuple[str, str]

ALL_KINDS = AnomalyCounts(
    no_master=1,
    diverged=2,
    extra_epoch=2,
    no_consistent_point=1,
    unreachable_replica=1,
    unclean_confirmed=2,
    unclean_not_in_sss=1,
    preferred_imbalance=1,
    master_change=2,
    unreachable_cluster=1,
)
"""Every kind, two of those with variants or figures that add up (both unclean_confirmed evidences)."""


# --- the oracle -----------------------------------------------------------------------------------------------


def read(out: Path) -> dict[str, list[Row]]:
    return {name: pq.read_table(out / name).to_pylist() for name in TABLES}


@dataclass
class SetFigures:
    """The per-set measures of docs/analytics.md for one broker set of the latest snapshot."""

    cluster: str
    broker: str
    no_master: bool
    replicas: int
    in_sync: int
    unreachable: int
    max_lag: int | None
    master_changes: int | None
    conflicting: int
    divergent_entries: int
    truncating: int
    truncation_bytes: int | None
    no_consistent_point: int
    unclean_reason: str | None
    preferred_imbalance: bool
    per_replica: dict[int, Row] = field(default_factory=dict)

    @property
    def divergent(self) -> bool:
        return self.conflicting > 0 or self.divergent_entries > 0

    @property
    def divergence(self) -> int:
        return self.conflicting + self.divergent_entries


@dataclass
class Oracle:
    fleet: dict[str, Any]
    sets: dict[SetKey, SetFigures]
    unreachable_clusters: list[str]


def _sum(values: list[int | None]) -> int | None:
    """SQL's SUM: over the non-null values, null when there are none."""
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def oracle(out: Path, since: datetime | None = None) -> Oracle:
    t = read(out)
    latest: dict[str, Row] = {}
    for row in t["clusters"]:
        if since is not None and row["snapshotTs"] < since:
            continue
        if row["cluster"] not in latest or row["snapshotTs"] > latest[row["cluster"]]["snapshotTs"]:
            latest[row["cluster"]] = row
    sync_by: dict[tuple[str, datetime], list[Row]] = defaultdict(list)
    for row in t["sync_state"]:
        sync_by[(row["cluster"], row["snapshotTs"])].append(row)
    replicas_by: dict[tuple[str, str, datetime], list[Row]] = defaultdict(list)
    for row in t["replicas"]:
        replicas_by[(row["cluster"], row["brokerName"], row["snapshotTs"])].append(row)
    entries_by: dict[tuple[str, str, int, datetime], list[tuple[int, int]]] = defaultdict(list)
    for row in t["epoch_entries"]:
        key = (row["cluster"], row["brokerName"], row["brokerId"], row["snapshotTs"])
        entries_by[key].append((row["epoch"], row["startOffset"]))
    for pairs in entries_by.values():
        pairs.sort()

    figures: dict[SetKey, SetFigures] = {}
    for cluster, crow in sorted(latest.items()):
        if not crow["reachable"]:
            continue
        ts = crow["snapshotTs"]
        earlier = [s for (c, s) in sync_by if c == cluster and s < ts and (since is None or s >= since)]
        prev_ts = max(earlier) if earlier else None
        prev_sets = {r["brokerName"]: r for r in sync_by.get((cluster, prev_ts), [])} if prev_ts else {}
        for s in sync_by[(cluster, ts)]:
            figures[(cluster, s["brokerName"])] = _set_figures(
                s, prev_sets.get(s["brokerName"]), replicas_by, entries_by
            )

    sets = list(figures.values())
    lags = [f.max_lag for f in sets if f.max_lag is not None]
    fleet = {
        "clusters": len(latest),
        "unreachableClusters": sum(1 for r in latest.values() if not r["reachable"]),
        "sets": len(sets),
        "setsWithoutMaster": sum(f.no_master for f in sets),
        "replicas": sum(f.replicas for f in sets),
        "inSyncReplicas": sum(f.in_sync for f in sets),
        "unreachableReplicas": sum(f.unreachable for f in sets),
        "masterChanges": _sum([f.master_changes for f in sets]),
        "divergentSets": sum(f.divergent for f in sets),
        "replicasTruncating": sum(f.truncating for f in sets),
        "predictedTruncationBytes": sum(f.truncation_bytes or 0 for f in sets),  # a byte count: 0 for none
        "replicasWithoutConsistentPoint": sum(f.no_consistent_point for f in sets),
        "uncleanElections": sum(f.unclean_reason is not None for f in sets),
        "preferredImbalance": sum(f.preferred_imbalance for f in sets),
        "maxLag": max(lags) if lags else None,
    }
    down = sorted(c for c, r in latest.items() if not r["reachable"])
    return Oracle(fleet, figures, down)


def _set_figures(
    s: Row,
    prev: Row | None,
    replicas_by: dict[tuple[str, str, datetime], list[Row]],
    entries_by: dict[tuple[str, str, int, datetime], list[tuple[int, int]]],
) -> SetFigures:
    cluster, broker, ts = s["cluster"], s["brokerName"], s["snapshotTs"]
    reps = replicas_by[(cluster, broker, ts)]
    cache = {r["brokerId"]: entries_by.get((cluster, broker, r["brokerId"], ts), []) for r in reps}
    master = next((r for r in reps if r["brokerId"] == s["masterBrokerId"] and r["reachable"]), None)
    per: dict[int, Row] = {}
    divergent_entries = 0
    for r in reps:
        fig: Row = {"lag": None, "cp": None, "noCp": False, "pred": None, "divergentEntries": None}
        if master is not None and r["reachable"]:
            fig["lag"] = master["maxOffset"] - r["maxOffset"]
            if r is master:
                fig["pred"] = 0
            else:
                mine = EpochCache.from_pairs(cache[r["brokerId"]])
                theirs = EpochCache.from_pairs(cache[master["brokerId"]])
                point = truncation_point(mine, r["maxOffset"], theirs, master["maxOffset"])
                fig["cp"], fig["noCp"] = point, point is None
                fig["pred"] = None if point is None else r["maxOffset"] - point
                by_epoch = dict(cache[master["brokerId"]])
                first = min(by_epoch) if by_epoch else None
                fig["divergentEntries"] = sum(
                    1
                    for epoch, start in cache[r["brokerId"]]
                    if (epoch in by_epoch and by_epoch[epoch] != start)
                    or (epoch not in by_epoch and first is not None and epoch >= first)
                )
                divergent_entries += fig["divergentEntries"]
        per[r["brokerId"]] = fig
    starts: dict[int, set[int]] = defaultdict(set)
    for pairs in cache.values():
        for epoch, start in pairs:
            starts[epoch].add(start)
    lags = [f["lag"] for f in per.values() if f["lag"] is not None]
    changes = s["masterEpoch"] - prev["masterEpoch"] if prev is not None else None
    preds = [f["pred"] for f in per.values()]
    return SetFigures(
        cluster=cluster,
        broker=broker,
        no_master=s["masterBrokerId"] is None,
        replicas=len(reps),
        in_sync=sum(r["inSync"] for r in reps),
        unreachable=sum(not r["reachable"] for r in reps),
        max_lag=max(lags) if lags else None,
        master_changes=changes,
        conflicting=sum(1 for v in starts.values() if len(v) > 1),
        divergent_entries=divergent_entries,
        truncating=sum(1 for p in preds if p is not None and p > 0),
        truncation_bytes=_sum(preds),
        no_consistent_point=sum(f["noCp"] for f in per.values()),
        unclean_reason=_unclean(s, prev, master, cache, replicas_by, entries_by, changes),
        preferred_imbalance=s["preferredBrokerId"] is not None and s["preferredBrokerId"] != s["masterBrokerId"],
        per_replica=per,
    )


def _unclean(
    s: Row,
    prev: Row | None,
    master: Row | None,
    cache: dict[int, list[tuple[int, int]]],
    replicas_by: dict[tuple[str, str, datetime], list[Row]],
    entries_by: dict[tuple[str, str, int, datetime], list[tuple[int, int]]],
    changes: int | None,
) -> str | None:
    if master is None:
        return None
    master_last_start = cache[master["brokerId"]][-1][1]
    snaps = [(s["snapshotTs"], cache)]
    if prev is not None:
        ts = prev["snapshotTs"]
        reps = replicas_by[(s["cluster"], s["brokerName"], ts)]
        snaps.append(
            (ts, {r["brokerId"]: entries_by.get((s["cluster"], s["brokerName"], r["brokerId"], ts), []) for r in reps})
        )
    for ts, caches in snaps:
        for r in replicas_by[(s["cluster"], s["brokerName"], ts)]:
            pairs = caches[r["brokerId"]]
            if not pairs or r["confirmOffset"] is None:
                continue
            if pairs[-1][0] < s["masterEpoch"] and r["confirmOffset"] > master_last_start:
                return REASON_CONFIRMED
    if changes is not None and changes > 0 and prev is not None and master["brokerId"] not in prev["syncStateSet"]:
        return REASON_NOT_IN_SSS
    return None


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
