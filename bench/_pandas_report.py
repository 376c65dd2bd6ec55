"""The fleet report of docs/analytics.md in pandas: the benchmark's baseline and the Spark report's oracle.

Written as a pandas user would write it, vectorized where pandas allows: pyarrow reads only the columns and
snapshots the report needs, the string keys become categoricals and then one integer set key, every measure is
a groupby/merge, and the consistent point is the agents' own ``truncation_point`` called once per slave in a
plain loop (the only per-row Python, as in the Spark job). ``summary()`` returns the same document as
``spark.report.Report.summary()``, so the benchmark can compare the two for equality.

Run alone: ``python bench/_pandas_report.py DATASET [--since ISO] [--top N]`` prints the summary as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.store.epochs import EpochCache, EpochError, truncation_point  # noqa: E402

NO_TS = np.iinfo(np.int64).min
"""Stands for "no snapshot" in the per-cluster timestamp arrays (microseconds since the epoch otherwise)."""

CONFIRMED_LOST = "confirmed data lost"
NOT_IN_PREVIOUS_SSS = "not in previous SyncStateSet"
WORST = ("maxLag", "predictedTruncationBytes", "masterChanges", "divergence")


def _read(root: Path, table: str, columns: list[str], ts: list[int] | None = None) -> pd.DataFrame:
    """Columns of one table (only the snapshots `ts`, in microseconds, when given); strings as categoricals and
    snapshotTs as int64 microseconds, which keeps 100 M rows within reach of pandas at all."""
    filters = None
    if ts is not None:
        filters = [("snapshotTs", "in", pa.array(ts, pa.int64()).cast(pa.timestamp("us", tz="UTC")).to_pylist())]
    tab = pq.read_table(root / table, columns=columns, filters=filters)
    if "snapshotTs" in columns:
        i = tab.schema.get_field_index("snapshotTs")
        tab = tab.set_column(i, "snapshotTs", tab.column(i).cast(pa.timestamp("us", tz="UTC")).cast(pa.int64()))
    return tab.to_pandas(strings_to_categorical=True, self_destruct=True)


def _codes(col: pd.Series, categories: pd.Index) -> np.ndarray:
    """Integer codes of a categorical column against `categories` (-1: not among them)."""
    if not isinstance(col.dtype, pd.CategoricalDtype):
        col = col.astype("category")
    codes: np.ndarray = col.cat.set_categories(categories).cat.codes.to_numpy(np.int64)
    return codes


@dataclass
class PandasReport:
    """Per-set measures (`sets`: one row per broker set of a reachable cluster's latest snapshot) and each
    cluster's latest snapshot (`clusters`: cluster, snapshotTs in µs, reachable, error)."""

    sets: pd.DataFrame
    clusters: pd.DataFrame
    input: str
    since: datetime | None
    snapshots: int
    latest_us: int
    top: int

    def summary(self, details: bool = False) -> dict[str, Any]:
        """The JSON document of ``spark.report.Report.summary`` (`details` adds every set; replicas are not kept)."""
        return summary_document(self, details)


def run_report(input_dir: str | Path, since: datetime | str | None = None, top: int = 10) -> PandasReport:
    """The report over dataset `input_dir` (latest snapshot per cluster at or after `since`, and the previous)."""
    root = Path(input_dir)
    since_dt = None if since is None else pd.Timestamp(since).tz_localize("UTC") if pd.Timestamp(since).tz is None \
        else pd.Timestamp(since).tz_convert("UTC")  # fmt: skip
    since_us = NO_TS if since_dt is None else int(since_dt.value // 1000)

    # Latest snapshot of each cluster (from `clusters`) and the previous one (from `sync_state`).
    cl = _read(root, "clusters", ["cluster", "reachable", "error", "snapshotTs"])
    cl = cl[cl["snapshotTs"] >= since_us]
    if cl.empty:
        raise ValueError(f"{root}: no snapshot{'' if since_dt is None else ' at or after ' + str(since_dt)}")
    cluster_cats = pd.Index(sorted(cl["cluster"].astype(str).unique()))
    cl["c"] = _codes(cl["cluster"], cluster_cats)
    latest_ts = np.full(len(cluster_cats), NO_TS, np.int64)
    np.maximum.at(latest_ts, cl["c"].to_numpy(), cl["snapshotTs"].to_numpy())
    at_latest = cl[cl["snapshotTs"].to_numpy() == latest_ts[cl["c"].to_numpy()]].drop_duplicates("c").set_index("c")
    clusters = pd.DataFrame(
        {"cluster": cluster_cats, "snapshotTs": latest_ts,
         "reachable": at_latest["reachable"].reindex(range(len(cluster_cats))).to_numpy(bool),
         "error": at_latest["error"].astype(object).reindex(range(len(cluster_cats))).to_numpy()}
    )  # fmt: skip
    snapshots = int(cl["snapshotTs"].nunique())
    latest_us = int(cl["snapshotTs"].max())

    ss = _read(
        root,
        "sync_state",
        ["cluster", "brokerName", "masterBrokerId", "masterEpoch", "syncStateSetEpoch", "syncStateSet",
         "preferredBrokerId", "snapshotTs"],
    )  # fmt: skip
    ss["c"] = _codes(ss["cluster"], cluster_cats)
    ss = ss[(ss["c"] >= 0) & (ss["snapshotTs"] >= since_us)]
    ss_latest_ts = latest_ts[ss["c"].to_numpy()]
    prev_ts = np.full(len(cluster_cats), NO_TS, np.int64)
    earlier = ss["snapshotTs"].to_numpy() < ss_latest_ts
    np.maximum.at(prev_ts, ss["c"].to_numpy()[earlier], ss["snapshotTs"].to_numpy()[earlier])
    latest_ts = np.where(clusters["reachable"].to_numpy(), latest_ts, NO_TS)  # an unreachable cluster has no sets

    brokers = pd.Index(sorted(ss["brokerName"].astype(str).unique()))
    nb = max(len(brokers), 1)

    def keyed(df: pd.DataFrame) -> pd.DataFrame:
        """Adds the set key `sk` and `latest`/`prev` flags; drops rows of neither snapshot or of no known set."""
        c = df["c"].to_numpy() if "c" in df else _codes(df["cluster"], cluster_cats)
        b = _codes(df["brokerName"], brokers)
        ts = df["snapshotTs"].to_numpy()
        known = (c >= 0) & (b >= 0)
        cc = np.where(known, c, 0)
        is_latest = known & (ts == latest_ts[cc])
        is_prev = known & (ts == prev_ts[cc]) & (prev_ts[cc] != NO_TS)
        keep = is_latest | is_prev
        out = df.loc[keep].drop(columns=[x for x in ("cluster", "brokerName", "c") if x in df])
        out["sk"] = (c * nb + b)[keep]
        out["latest"] = is_latest[keep]
        return out

    ss = keyed(ss)
    wanted = sorted({int(t) for t in np.concatenate([latest_ts, prev_ts]) if t != NO_TS})
    rep = keyed(
        _read(
            root,
            "replicas",
            ["cluster", "brokerName", "brokerId", "alive", "inSync", "reachable", "maxOffset", "confirmOffset",
             "snapshotTs"],
            wanted,
        )
    )  # fmt: skip
    ent = keyed(_read(root, "epoch_entries", ["cluster", "brokerName", "brokerId", "epoch", "startOffset",
                                              "snapshotTs"], wanted))  # fmt: skip

    sets = _set_measures(ss, rep, ent)
    sets["cluster"] = cluster_cats[sets.index.to_numpy() // nb]
    sets["brokerName"] = brokers[sets.index.to_numpy() % nb]
    return PandasReport(
        sets.reset_index(drop=True), clusters, str(input_dir), None if since_dt is None else since_dt.to_pydatetime(),
        snapshots, latest_us, top,
    )  # fmt: skip


def _set_measures(ss: pd.DataFrame, rep: pd.DataFrame, ent: pd.DataFrame) -> pd.DataFrame:
    """Every per-set measure of docs/analytics.md, indexed by the set key."""
    cur = ss[ss["latest"]].set_index("sk")
    prev = ss[~ss["latest"]].set_index("sk")
    s = cur[["masterBrokerId", "masterEpoch", "syncStateSetEpoch", "preferredBrokerId"]].copy()

    # Replicas of the latest snapshot, with their set's master id.
    r = rep[rep["latest"]].drop(columns="latest")
    r = r[r["sk"].isin(s.index)]
    r = r.join(s["masterBrokerId"], on="sk")
    r["isMaster"] = r["brokerId"].eq(r["masterBrokerId"]).fillna(False).astype(bool)
    m = r[r["isMaster"]].drop_duplicates("sk").set_index("sk")
    known = m.index[m["reachable"].astype(bool)]
    s["masterKnown"] = s.index.isin(known)
    s["masterMax"] = m["maxOffset"].reindex(s.index).where(s["masterKnown"])

    # Entries of the latest snapshot, grouped by replica: [lo, hi) ranges into sorted arrays.
    e = ent[ent["latest"]]
    order = np.lexsort((e["epoch"].to_numpy(), e["brokerId"].to_numpy(), e["sk"].to_numpy()))
    sk_e = e["sk"].to_numpy()[order]
    bid_e = e["brokerId"].to_numpy()[order]
    epoch_e = e["epoch"].to_numpy(np.int64)[order]
    start_e = e["startOffset"].to_numpy(np.int64)[order]
    del e, order
    n = len(sk_e)
    new_replica = np.r_[True, (sk_e[1:] != sk_e[:-1]) | (bid_e[1:] != bid_e[:-1])] if n else np.zeros(0, bool)
    starts = np.flatnonzero(new_replica)
    ends = np.r_[starts[1:], n].astype(np.int64)
    ranges = pd.DataFrame(
        {"sk": sk_e[starts], "brokerId": bid_e[starts], "lo": starts, "hi": ends, "lastEpoch": epoch_e[ends - 1],
         "lastStart": start_e[ends - 1]}
    )  # fmt: skip
    r = r.merge(ranges, on=["sk", "brokerId"], how="left")

    # lag and the consistent point (truncation_point per slave, the handshake's own code).
    r = r.join(s[["masterKnown", "masterMax"]], on="sk")
    r["lag"] = (r["masterMax"] - r["maxOffset"]).where(r["masterKnown"] & r["maxOffset"].notna())
    mr = r.loc[r["isMaster"] & r["masterKnown"], ["sk", "lo", "hi", "lastStart"]].drop_duplicates("sk")
    mr = mr.set_index("sk")
    r = r.join(mr.rename(columns={"lo": "mlo", "hi": "mhi", "lastStart": "mLastStart"}), on="sk")
    slave = ~r["isMaster"] & r["masterKnown"] & r["reachable"].astype(bool)
    r["consistentPoint"], r["noConsistentPoint"] = _consistent_points(r[slave], epoch_e, start_e)
    r["predictedTruncationBytes"] = (r["maxOffset"] - r["consistentPoint"]).where(~r["isMaster"], 0)

    # divergentEntries: a slave's entries the master holds with another start, or lacks from its first epoch on.
    ent_frame = pd.DataFrame({"sk": sk_e, "brokerId": bid_e, "epoch": epoch_e, "startOffset": start_e})
    ent_frame = ent_frame.join(s[["masterBrokerId", "masterKnown"]], on="sk")
    is_m = ent_frame["brokerId"].eq(ent_frame["masterBrokerId"]).fillna(False).to_numpy(bool)
    me = ent_frame.loc[is_m & ent_frame["masterKnown"].to_numpy(bool), ["sk", "epoch", "startOffset"]]
    first = me.groupby("sk")["epoch"].min().rename("mFirst")
    se = ent_frame.loc[~is_m & ent_frame["masterKnown"].to_numpy(bool), ["sk", "brokerId", "epoch", "startOffset"]]
    se = se.merge(me.rename(columns={"startOffset": "mStart"}), on=["sk", "epoch"], how="left").join(first, on="sk")
    differs = se["mStart"].notna() & (se["mStart"] != se["startOffset"])
    lacks = se["mStart"].isna() & (se["epoch"] >= se["mFirst"])
    se["div"] = (differs | lacks).astype(np.int64)
    div = se.groupby(["sk", "brokerId"])["div"].sum().rename("divergentEntries")
    r = r.join(div, on=["sk", "brokerId"])
    del se, me

    # epochs and conflictingEpochs: per (set, epoch) do the replicas' starts differ?
    per_epoch = ent_frame.groupby(["sk", "epoch"])["startOffset"].agg(["min", "max"])
    del ent_frame
    s["epochs"] = per_epoch.groupby(level="sk").size().reindex(s.index, fill_value=0)
    conflict = (per_epoch["min"] != per_epoch["max"]).groupby(level="sk").sum()
    s["conflictingEpochs"] = conflict.reindex(s.index, fill_value=0)

    g = r.groupby("sk")
    s["replicas"] = g.size().reindex(s.index, fill_value=0)
    for name, col in (("inSyncReplicas", "inSync"), ("aliveReplicas", "alive")):
        s[name] = g[col].sum().reindex(s.index, fill_value=0)
    s["unreachableReplicas"] = (~r["reachable"].astype(bool)).groupby(r["sk"]).sum().reindex(s.index, fill_value=0)
    s["maxLag"] = g["lag"].max().reindex(s.index)
    truncating = r["predictedTruncationBytes"] > 0
    s["replicasTruncating"] = truncating.groupby(r["sk"]).sum().reindex(s.index, fill_value=0)
    s["predictedTruncationBytes"] = (
        r["predictedTruncationBytes"].where(truncating, 0).groupby(r["sk"]).sum().reindex(s.index, fill_value=0)
    )
    s["replicasWithoutConsistentPoint"] = g["noConsistentPoint"].sum().reindex(s.index, fill_value=0)
    s["divergentEntries"] = g["divergentEntries"].sum().reindex(s.index, fill_value=0)
    s["noMaster"] = s["masterBrokerId"].isna()
    s["masterChanges"] = s["masterEpoch"] - prev["masterEpoch"].reindex(s.index)
    s["divergent"] = (s["conflictingEpochs"] > 0) | (s["divergentEntries"] > 0)
    s["divergence"] = s["conflictingEpochs"] + s["divergentEntries"]
    s["preferredImbalance"] = s["preferredBrokerId"].notna() & (s["preferredBrokerId"] != s["masterBrokerId"])

    # Unclean election, reason 1: a replica (latest or previous snapshot) whose last epoch is below masterEpoch
    # holds a confirmOffset beyond the start of the master's last epoch entry.
    prev_last = (
        ent[~ent["latest"]].groupby(["sk", "brokerId"])["epoch"].max().rename("lastEpoch")
        if (~ent["latest"]).any()
        else pd.Series(dtype=np.int64, name="lastEpoch")
    )
    p = rep[~rep["latest"] & rep["sk"].isin(s.index)][["sk", "brokerId", "confirmOffset"]]
    p = p.join(prev_last, on=["sk", "brokerId"])
    both = pd.concat([r[["sk", "lastEpoch", "confirmOffset"]], p[["sk", "lastEpoch", "confirmOffset"]]])
    both = both.join(s["masterEpoch"], on="sk").join(mr["lastStart"].rename("mLastStart"), on="sk")
    lost = (both["lastEpoch"].fillna(-1) < both["masterEpoch"]) & (both["confirmOffset"] > both["mLastStart"])
    reason1 = lost.groupby(both["sk"]).any().reindex(s.index, fill_value=False) & s["masterKnown"]

    # Reason 2: the master changed and was not in the previous SyncStateSet.
    pss = prev["syncStateSet"].explode().dropna()
    members = pd.MultiIndex.from_arrays([pss.index.to_numpy(), pss.to_numpy(np.int64)])
    in_prev = pd.MultiIndex.from_arrays([s.index.to_numpy(), s["masterBrokerId"].fillna(-1).to_numpy(np.int64)])
    reason2 = s["masterKnown"] & (s["masterChanges"] > 0) & ~in_prev.isin(members)
    s["uncleanElection"] = reason1 | reason2
    # np.array(None): the object array numpy makes of a bare None, which its typing does not accept
    s["uncleanReason"] = np.where(reason1, CONFIRMED_LOST, np.where(reason2, NOT_IN_PREVIOUS_SSS, np.array(None)))
    return s


def _consistent_points(slaves: pd.DataFrame, epoch_e: np.ndarray, start_e: np.ndarray) -> tuple[pd.Series, pd.Series]:
    """truncation_point for each slave row against its master (caches from the sorted entry arrays): the point
    (NaN when none) and 1.0 where the function found none. A malformed cache (EpochError) gives neither: the
    handshake would not get that far, and the Spark report records it as a truncationError."""
    points = np.full(len(slaves), np.nan)
    none = np.zeros(len(slaves))
    masters: dict[int, EpochCache | None] = {}
    cols = [slaves[c].to_numpy() for c in ("sk", "lo", "hi", "maxOffset", "mlo", "mhi", "masterMax")]
    for i, (sk, lo, hi, max_offset, mlo, mhi, master_max) in enumerate(zip(*cols, strict=True)):
        if sk not in masters:
            try:
                masters[sk] = _cache(epoch_e, start_e, mlo, mhi)
            except EpochError:
                masters[sk] = None
        master = masters[sk]
        if master is None:
            continue
        try:
            point = truncation_point(_cache(epoch_e, start_e, lo, hi), int(max_offset), master, int(master_max))
        except EpochError:
            continue
        if point is None:
            none[i] = 1.0
        else:
            points[i] = point
    return pd.Series(points, index=slaves.index), pd.Series(none, index=slaves.index)


def _cache(epoch_e: np.ndarray, start_e: np.ndarray, lo: float, hi: float) -> EpochCache:
    if lo != lo:  # NaN: the replica has no entries
        return EpochCache()
    a, b = int(lo), int(hi)
    return EpochCache.from_pairs(zip(epoch_e[a:b].tolist(), start_e[a:b].tolist(), strict=True))


TOTALS = (
    "sets", "setsWithoutMaster", "replicas", "inSyncReplicas", "unreachableReplicas", "masterChanges", "divergentSets",
    "replicasTruncating", "predictedTruncationBytes", "replicasWithoutConsistentPoint", "uncleanElections",
    "preferredImbalance", "maxLag",
)  # fmt: skip
NULLABLE_TOTALS = ("masterChanges", "maxLag")
"""Null when no set has a value (SQL's sum and max); the other totals are counts, 0 over nothing."""


def _int(value: Any) -> int | None:
    return None if value is None or pd.isna(value) else int(value)


def _iso(micros: int) -> str:
    return (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=int(micros))).isoformat()


def summary_document(report: PandasReport, details: bool) -> dict[str, Any]:
    """Fleet totals, one entry per cluster, the worst sets (and every set with `details`); the key order and the
    null/0 conventions of the Spark report, integers as ints."""
    s = report.sets

    def as_int(col: str) -> pd.Series:
        return s[col].fillna(0).astype(np.int64)

    per_set = pd.DataFrame(
        {
            "cluster": s["cluster"].to_numpy(),
            "sets": 1,
            "setsWithoutMaster": s["noMaster"].astype(np.int64),
            "replicas": as_int("replicas"),
            "inSyncReplicas": as_int("inSyncReplicas"),
            "unreachableReplicas": as_int("unreachableReplicas"),
            "masterChanges": s["masterChanges"],
            "divergentSets": s["divergent"].astype(np.int64),
            "replicasTruncating": as_int("replicasTruncating"),
            "predictedTruncationBytes": as_int("predictedTruncationBytes"),
            "replicasWithoutConsistentPoint": as_int("replicasWithoutConsistentPoint"),
            "uncleanElections": s["uncleanElection"].astype(np.int64),
            "preferredImbalance": s["preferredImbalance"].astype(np.int64),
            "maxLag": s["maxLag"],
        }
    )
    g = per_set.groupby("cluster")
    sums = g[[t for t in TOTALS if t not in NULLABLE_TOTALS]].sum()
    sums["masterChanges"] = g["masterChanges"].sum(min_count=1)
    sums["maxLag"] = g["maxLag"].max()
    clusters = []
    for row in report.clusters.sort_values("cluster").itertuples(index=False):
        totals = sums.loc[row.cluster] if row.cluster in sums.index else None
        entry: dict[str, Any] = {
            "cluster": row.cluster,
            "snapshotTs": _iso(row.snapshotTs),
            "reachable": bool(row.reachable),
            "error": None if row.error is None or pd.isna(row.error) else str(row.error),
        }
        for name in TOTALS:
            value = None if totals is None else _int(totals[name])
            entry[name] = value if value is not None or name in NULLABLE_TOTALS else 0
        clusters.append(entry)
    fleet: dict[str, Any] = {
        "clusters": len(clusters),
        "unreachableClusters": sum(not c["reachable"] for c in clusters),
    }
    for name in TOTALS:
        values = [c[name] for c in clusters if c[name] is not None]
        if name == "maxLag":
            fleet[name] = max(values) if values else None
        elif name in NULLABLE_TOTALS:
            fleet[name] = sum(values) if values else None
        else:
            fleet[name] = sum(values)
    worst: dict[str, list[dict[str, Any]]] = {}
    for measure in WORST:
        value = s[measure]
        ranked = s.loc[value.notna() & (value != 0), ["cluster", "brokerName", measure]]
        ranked = ranked.sort_values([measure, "cluster", "brokerName"], ascending=[False, True, True]).head(report.top)
        worst[measure] = [
            {"cluster": c, "brokerName": b, "value": int(v)} for c, b, v in ranked.itertuples(index=False, name=None)
        ]
    doc: dict[str, Any] = {
        "formatVersion": 1,
        "input": report.input,
        "since": None if report.since is None else report.since.isoformat(),
        "snapshots": report.snapshots,
        "latestSnapshotTs": _iso(report.latest_us),
        "fleet": fleet,
        "clusters": clusters,
        "worst": worst,
    }
    if details:
        doc["sets"] = [
            {k: (_int(v) if isinstance(v, float | np.integer) else v) for k, v in row.items()}
            for row in s.sort_values(["cluster", "brokerName"]).to_dict("records")
        ]
    return doc


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("input", type=Path)
    parser.add_argument("--since")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--details", action="store_true")
    args = parser.parse_args()
    report = run_report(args.input, args.since, args.top)
    print(json.dumps(report.summary(args.details), indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
