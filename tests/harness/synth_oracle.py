"""The pure-Python oracle of the synthetic fleet (``spark/synth.py``): docs/analytics.md's measures.

It reads the Parquet files back with pyarrow and computes the report's measures in plain Python, one row at a
time, with the agents' own ``truncation_point``: it shares no code with the generator or the Spark report, so a
figure it agrees on with either is the figure the definitions give. ``tests/unit/spark/test_synth.py`` holds the
generator to it, ``tests/spark/test_synth_report.py`` the Spark report. Import it after
``pytest.importorskip("pyarrow")``: pyarrow is in the optional ``[spark]`` extra.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from agents.store.epochs import EpochCache, truncation_point
from spark.schema import TABLES
from spark.synth import REASON_CONFIRMED, REASON_NOT_IN_SSS, AnomalyCounts

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
