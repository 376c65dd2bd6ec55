"""``mqadmin epochs report``: per replica, broker set, cluster and fleet figures over a fleet dataset (PySpark).

The definitions are those of ``docs/analytics.md``. Everything runs in Spark SQL functions and window functions,
except the consistent point: that is ``agents.store.epochs.truncation_point``, the very code a slave runs on its
HA handshake, called per slave from ``mapInArrow`` (Arrow batches) rather than re-implemented here. Only small
results reach the driver (the summary, the worst lists; ``details`` adds every set and replica).

Run it with ``spark-submit spark/report.py --input DIR`` on any cluster, or ``python -m spark.report --input DIR``
in local mode.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__" and not __package__:  # spark-submit spark/report.py: the repo's packages, not spark/
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import json
import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import reduce
from itertools import pairwise
from typing import Any, Literal

import pyarrow as pa
from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from agents.store.epochs import EpochCache, EpochError, truncation_point
from spark.dataset import DatasetError, check_dataset
from spark.schema import TABLES

KEYS = ["cluster", "brokerName"]
REPLICA_KEYS = [*KEYS, "brokerId"]

REPLICA_COLUMNS = [
    *REPLICA_KEYS,
    "brokerAddr",
    "role",
    "reachable",
    "alive",
    "inSync",
    "maxOffset",
    "confirmOffset",
    "lag",
    "consistentPoint",
    "noConsistentPoint",
    "predictedTruncationBytes",
    "divergentEntries",
    "truncationError",
]
SET_COLUMNS = [
    *KEYS,
    "snapshotTs",
    "masterBrokerId",
    "masterEpoch",
    "syncStateSetEpoch",
    "preferredBrokerId",
    "replicas",
    "inSyncReplicas",
    "aliveReplicas",
    "unreachableReplicas",
    "noMaster",
    "maxLag",
    "epochs",
    "masterChanges",
    "conflictingEpochs",
    "divergent",
    "replicasTruncating",
    "predictedTruncationBytes",
    "replicasWithoutConsistentPoint",
    "uncleanElection",
    "uncleanReason",
    "preferredImbalance",
]
TOTALS = [  # per cluster and fleet, in document order
    "sets",
    "setsWithoutMaster",
    "replicas",
    "inSyncReplicas",
    "unreachableReplicas",
    "masterChanges",
    "divergentSets",
    "replicasTruncating",
    "predictedTruncationBytes",
    "replicasWithoutConsistentPoint",
    "uncleanElections",
    "preferredImbalance",
    "maxLag",
]
NULLABLE_TOTALS = {"masterChanges", "maxLag"}  # null when no set has a value; the other totals are counts
WORST_MEASURES = ["maxLag", "predictedTruncationBytes", "masterChanges", "divergence"]
WORST_COLUMNS = ["measure", "rank", *KEYS, "value"]

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ENTRY = "struct<epoch:int,startOffset:bigint>"  # one epoch cache entry, as the report carries it
MAX_FILTER_GROUPS = 32  # distinct snapshot times a table is filtered on before a join takes over

CONFIRMED_DATA_LOST = "confirmed data lost"
NOT_IN_PREVIOUS_SSS = "not in previous SyncStateSet"

TRUNCATION_SCHEMA = T.StructType(
    [
        T.StructField("cluster", T.StringType()),
        T.StructField("brokerName", T.StringType()),
        T.StructField("brokerId", T.LongType()),
        T.StructField("divergentEntries", T.LongType()),
        T.StructField("consistentPoint", T.LongType()),
        T.StructField("noConsistentPoint", T.BooleanType()),
        T.StructField("truncationError", T.StringType()),
    ]
)


@dataclass
class Report:
    """The report's tables (lazy, the big ones persisted) and the figures of the JSON document."""

    replicas: DataFrame
    sets: DataFrame
    clusters: DataFrame
    fleet: DataFrame
    worst: DataFrame
    input: str
    since: datetime | None
    snapshots: int
    latest_snapshot: datetime
    persisted: list[DataFrame] = field(default_factory=list, repr=False)

    def summary(self, details: bool = False) -> dict[str, Any]:
        """The JSON document; `details` adds every set and replica (collected: meant for small fleets)."""
        fleet = _collect(self.fleet)[0]
        doc: dict[str, Any] = {
            "formatVersion": 1,
            "input": self.input,
            "since": _iso(self.since),
            "snapshots": self.snapshots,
            "latestSnapshotTs": _iso(self.latest_snapshot),
            "fleet": fleet,
            "clusters": _collect(self.clusters.orderBy("cluster")),
            "worst": _worst_lists(_collect(self.worst)),
        }
        if details:
            doc["sets"] = _collect(self.sets.orderBy(*KEYS))
            doc["replicas"] = _collect(self.replicas.orderBy(*REPLICA_KEYS))
        return doc

    def write(self, out_dir: Path | str) -> None:
        """Each table as Parquet under `out_dir`/<name>/ (replacing what is there)."""
        for name in ("replicas", "sets", "clusters", "fleet", "worst"):
            frame: DataFrame = getattr(self, name)
            frame.write.mode("overwrite").parquet(str(Path(out_dir) / name))

    def unpersist(self) -> None:
        """Release the cached per-replica and per-set tables."""
        for frame in self.persisted:
            frame.unpersist()


# --- entry point ---------------------------------------------------------------------------------


def run_report(spark: SparkSession, input_dir: Path | str, since: datetime | None = None, top: int = 10) -> Report:
    """Validate the dataset at `input_dir` and build the report over its snapshots at or after `since`.

    Raises DatasetError for an unreadable dataset or when no snapshot is left after `since`. Computes the
    per-replica table (the one pass over the epoch entries) before returning; the rest is lazy.
    """
    if top < 0:
        raise ValueError(f"top must be 0 or more, not {top}")
    root = Path(input_dir)
    check_dataset(root)
    since = _utc(since) if since is not None else None
    tables = {name: _read_table(spark, root, name, since) for name in TABLES}
    snaps = _snapshots(spark, tables["clusters"], tables["sync_state"])
    if not snaps:
        after = f" at or after {since.isoformat()}" if since else ""
        raise DatasetError(f"{root}: no snapshot{after} in table clusters")

    sets_now = _at(tables["sync_state"], snaps, "latest")
    prepared = _prepare_replicas(tables["replicas"], tables["epoch_entries"], snaps, sets_now)
    prepared.persist(StorageLevel.MEMORY_AND_DISK)  # holds the epoch caches; read by both tables below
    replicas = _replica_figures(prepared).persist(StorageLevel.MEMORY_AND_DISK)
    set_epochs = _set_epochs(prepared).persist(StorageLevel.MEMORY_AND_DISK)
    replicas.count()  # fill both caches now: then the epoch caches can go
    set_epochs.count()
    prepared.unpersist()
    sets = _set_figures(sets_now, replicas, set_epochs, tables, snaps).persist(StorageLevel.MEMORY_AND_DISK)
    clusters = _cluster_figures(snaps.frame, sets).persist(StorageLevel.MEMORY_AND_DISK)
    return Report(
        replicas=replicas.select(REPLICA_COLUMNS),
        sets=sets.select(SET_COLUMNS),
        clusters=clusters,
        fleet=_fleet_figures(clusters),
        worst=_worst(sets, top),
        input=str(input_dir),
        since=since,
        snapshots=snaps.count,
        latest_snapshot=max(s.latest for s in snaps.rows),
        persisted=[replicas, set_epochs, sets, clusters],
    )


# --- input ---------------------------------------------------------------------------------------


def _spark_type(arrow: pa.DataType) -> T.DataType:
    if pa.types.is_list(arrow):
        return T.ArrayType(_spark_type(arrow.value_type))
    if pa.types.is_timestamp(arrow):
        return T.TimestampType()
    simple: dict[pa.DataType, T.DataType] = {
        pa.string(): T.StringType(),
        pa.bool_(): T.BooleanType(),
        pa.int32(): T.IntegerType(),
        pa.int64(): T.LongType(),
    }
    return simple[arrow]


def _read_table(spark: SparkSession, root: Path, name: str, since: datetime | None) -> DataFrame:
    """One table in the schema of ``spark/schema.py`` (extra columns of newer writers are ignored)."""
    schema = T.StructType([T.StructField(f.name, _spark_type(f.type)) for f in TABLES[name]])
    frame = spark.read.schema(schema).option("pathGlobFilter", "*.parquet").parquet(str(root / name))
    if since is not None:
        frame = frame.where(F.col("snapshotTs") >= _ts_literal(since))
    return frame


def _utc(moment: datetime) -> datetime:
    """A naive `since` is taken as UTC, like every snapshotTs."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _ts_literal(moment: datetime) -> Column:
    """A timestamp literal independent of the Python process's local time zone."""
    return F.timestamp_micros(F.lit(_micros(moment)))


def _micros(moment: datetime) -> int:
    return (moment - EPOCH) // timedelta(microseconds=1)


def _from_micros(micros: int) -> datetime:
    return EPOCH + timedelta(microseconds=micros)


# --- snapshots -----------------------------------------------------------------------------------


Which = Literal["latest", "previous"]


@dataclass(frozen=True)
class _Snapshot:
    cluster: str
    latest: datetime
    reachable: bool
    error: str | None
    previous: datetime | None


@dataclass(frozen=True)
class _Snapshots:
    """Each cluster's latest snapshot (its row in `clusters`) and previous one (in `sync_state`): one row per
    cluster, so it is collected and handed back to Spark as a small table (``frame``, broadcast in joins) and as
    literal timestamps, which let Parquet skip the files of every other snapshot."""

    rows: list[_Snapshot]
    frame: DataFrame  # cluster, snapshotTs (the latest), reachable, error, prevTs
    count: int  # distinct snapshotTs in clusters (at or after --since)

    def __bool__(self) -> bool:
        return bool(self.rows)

    def clusters_at(self, which: Which) -> dict[datetime, list[str]]:
        """The reachable clusters by their latest or previous snapshot time (the unreachable ones have no sets)."""
        groups: dict[datetime, list[str]] = {}
        for s in self.rows:
            at = s.latest if which == "latest" else s.previous
            if s.reachable and at is not None:
                groups.setdefault(at, []).append(s.cluster)
        return groups

    def pairs(self, which: Which) -> DataFrame:
        """(cluster, snapshotTs) of the latest or previous snapshots of the reachable clusters."""
        column = "snapshotTs" if which == "latest" else "prevTs"
        reachable = self.frame.where(F.col("reachable") & F.col(column).isNotNull())
        return reachable.select("cluster", F.col(column).alias("snapshotTs"))


def _snapshots(spark: SparkSession, clusters: DataFrame, sync_state: DataFrame) -> _Snapshots:
    """Collect each cluster's latest and previous snapshot, and how many snapshots the clusters table holds."""
    latest = clusters.groupBy("cluster").agg(
        F.max_by(F.struct("snapshotTs", "reachable", "error"), "snapshotTs").alias("s")
    )
    latest = latest.select("cluster", F.col("s.snapshotTs").alias("latestTs"), "s.reachable", "s.error")
    earlier = (
        sync_state.select("cluster", "snapshotTs")
        .join(F.broadcast(latest.select("cluster", "latestTs")), "cluster")
        .where(F.col("snapshotTs") < F.col("latestTs"))
        .groupBy("cluster")
        .agg(F.max("snapshotTs").alias("prevTs"))
    )
    count = clusters.agg(F.count_distinct("snapshotTs").alias("snapshots"))  # one row, joined for one job
    collected = (
        latest.join(earlier, "cluster", "left")
        .crossJoin(count)
        .select("cluster", F.unix_micros("latestTs"), "reachable", "error", F.unix_micros("prevTs"), "snapshots")
        .collect()
    )
    rows = [
        _Snapshot(c, _from_micros(ts), bool(ok), err, None if prev is None else _from_micros(prev))
        for c, ts, ok, err, prev, _ in collected
    ]
    schema = "cluster string, latest bigint, reachable boolean, error string, prev bigint"
    local = [(s.cluster, _micros(s.latest), s.reachable, s.error, _micros_or_none(s.previous)) for s in rows]
    frame = spark.createDataFrame(local, schema).select(
        "cluster",
        F.timestamp_micros("latest").alias("snapshotTs"),
        "reachable",
        "error",
        F.timestamp_micros("prev").alias("prevTs"),
    )
    return _Snapshots(rows, F.broadcast(frame), int(collected[0]["snapshots"]) if collected else 0)


def _micros_or_none(moment: datetime | None) -> int | None:
    return None if moment is None else _micros(moment)


def _at(table: DataFrame, snaps: _Snapshots, which: Which) -> DataFrame:
    """`table`'s rows of each reachable cluster's latest or previous snapshot.

    A filter on literal times and cluster names: Parquet skips the files of other snapshots, and no row pays for
    a join. Clusters collected at many different times get a broadcast join instead of a long filter.
    """
    groups = snaps.clusters_at(which)
    if not groups:
        return table.limit(0)
    on_time = F.col("snapshotTs").isin(*(_ts_literal(t) for t in groups))
    if len(groups) > MAX_FILTER_GROUPS:
        return table.where(on_time).join(snaps.pairs(which), ["cluster", "snapshotTs"])
    pairs = [(F.col("snapshotTs") == _ts_literal(t)) & F.col("cluster").isin(*names) for t, names in groups.items()]
    return table.where(on_time & reduce(operator.or_, pairs))


# --- replicas ------------------------------------------------------------------------------------


def _prepare_replicas(replicas: DataFrame, entries: DataFrame, snaps: _Snapshots, sets_now: DataFrame) -> DataFrame:
    """Every replica of the latest snapshots with its epoch cache (``entries``, sorted (epoch, startOffset)
    structs; null without entries), its last entry, and whether its master is known (with the master's maxOffset
    and the start of its last epoch entry).

    The entries are grouped per replica first: the partial aggregation packs them before the shuffle, the only
    one of the big table. The windows then move one row per replica.
    """
    caches = (
        _at(entries, snaps, "latest")
        .groupBy(*REPLICA_KEYS)
        .agg(
            F.array_sort(F.collect_list(F.struct("epoch", "startOffset"))).alias("entries"),
            F.max("epoch").alias("lastEpoch"),
            F.max_by("startOffset", "epoch").alias("lastStart"),
        )
    )
    serving = F.col("isMaster") & F.col("reachable")
    by_set = Window.partitionBy(*KEYS)
    return (
        _at(replicas, snaps, "latest")
        .join(sets_now.select(*KEYS, "masterBrokerId", "masterEpoch"), KEYS)
        .join(caches, REPLICA_KEYS, "left")
        .withColumn("isMaster", F.coalesce(F.col("brokerId") == F.col("masterBrokerId"), F.lit(False)))
        .withColumn("masterKnown", F.coalesce(F.bool_or(serving).over(by_set), F.lit(False)))
        .withColumn("masterMax", F.max(F.when(serving, F.col("maxOffset"))).over(by_set))
        .withColumn("masterLastStart", F.max(F.when(serving, F.col("lastStart"))).over(by_set))
    )


def _replica_figures(prepared: DataFrame) -> DataFrame:
    """One row per replica of the latest snapshots: REPLICA_COLUMNS plus what the set figures need."""
    rows = prepared.drop("entries").join(_against_master(prepared), REPLICA_KEYS, "left")
    compared = F.col("masterKnown") & F.col("reachable")
    return rows.select(
        *REPLICA_KEYS,
        "brokerAddr",
        "role",
        "reachable",
        "alive",
        "inSync",
        "maxOffset",
        "confirmOffset",
        F.when(compared, F.col("masterMax") - F.col("maxOffset")).alias("lag"),
        "consistentPoint",
        F.coalesce("noConsistentPoint", F.lit(False)).alias("noConsistentPoint"),
        F.when(F.col("isMaster"), F.lit(0).cast("long"))
        .otherwise(F.col("maxOffset") - F.col("consistentPoint"))
        .alias("predictedTruncationBytes"),
        "divergentEntries",
        "truncationError",
        # for the set figures
        "snapshotTs",
        "isMaster",
        "masterKnown",
        "masterEpoch",
        "masterLastStart",
        _confirmed_data_lost().alias("confirmedLost"),
    )


def _against_master(prepared: DataFrame) -> DataFrame:
    """Each reachable slave whose master is known, compared with the master's epoch cache: divergentEntries,
    then consistentPoint, noConsistentPoint and truncationError from the agents' ``truncation_point``.

    One row per slave carries both caches; both sides of the join come from `prepared`, already partitioned
    by broker set, so nothing moves.
    """
    empty = F.array().cast(f"array<{ENTRY}>")
    slaves = prepared.where(
        "masterKnown AND reachable AND NOT isMaster AND maxOffset IS NOT NULL AND masterMax IS NOT NULL"
    ).select(
        *REPLICA_KEYS, F.coalesce("entries", empty).alias("local"), F.col("maxOffset").alias("localMax"), "masterMax"
    )
    master = prepared.where("isMaster AND reachable").select(*KEYS, F.coalesce("entries", empty).alias("master"))
    local, theirs = F.col("local"), F.col("master")
    # Entries the master lacks or holds with another start (local minus master), except those below the
    # master's first epoch: the master may have deleted those, which is no divergence.
    below_first = F.filter(local, lambda e: e["epoch"] < theirs[0]["epoch"])
    divergent = F.when(F.size(theirs) == 0, F.lit(0)).otherwise(
        F.size(F.array_except(local, theirs)) - F.size(below_first)
    )
    return (
        slaves.join(master, KEYS)
        .select(
            *REPLICA_KEYS,
            divergent.cast("long").alias("divergentEntries"),
            F.transform(local, lambda e: e["epoch"]).alias("localEpochs"),
            F.transform(local, lambda e: e["startOffset"]).alias("localStarts"),
            "localMax",
            F.transform(theirs, lambda e: e["epoch"]).alias("masterEpochs"),
            F.transform(theirs, lambda e: e["startOffset"]).alias("masterStarts"),
            "masterMax",
        )
        .mapInArrow(truncation_batches, TRUNCATION_SCHEMA)
    )


def _set_epochs(prepared: DataFrame) -> DataFrame:
    """Per broker set: ``epochs`` (distinct, over its replicas' entries) and ``conflictingEpochs`` (held with
    different starts). `prepared` is partitioned by set already: both groupings stay in place."""
    pairs = prepared.select(*KEYS, F.explode("entries").alias("e")).select(*KEYS, "e.epoch", "e.startOffset")
    per_epoch = pairs.groupBy(*KEYS, "epoch").agg((F.min("startOffset") != F.max("startOffset")).alias("conflict"))
    return per_epoch.groupBy(*KEYS).agg(
        F.count(F.lit(1)).alias("epochs"), F.count_if("conflict").alias("conflictingEpochs")
    )


def truncation_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` step: the handshake's truncation point for each slave row (output: ``TRUNCATION_SCHEMA``).

    Stays in Arrow: the list columns become Python ints in one C conversion per batch, and a set's master cache
    is built once for all of that set's slaves, as the pandas report does.
    """
    for batch in batches:
        local_epochs, local_starts, master_epochs, master_starts = (
            _lists(batch.column(name)) for name in ("localEpochs", "localStarts", "masterEpochs", "masterStarts")
        )
        masters: dict[tuple[str, str], EpochCache | str] = {}
        points: list[int | None] = []
        errors: list[str | None] = []
        rows = zip(
            batch.column("cluster").to_pylist(),
            batch.column("brokerName").to_pylist(),
            local_epochs,
            local_starts,
            batch.column("localMax").to_pylist(),
            master_epochs,
            master_starts,
            batch.column("masterMax").to_pylist(),
            strict=True,
        )
        for cluster, name, l_epochs, l_starts, l_max, m_epochs, m_starts, m_max in rows:
            master = masters.get((cluster, name))
            if master is None:  # one master per set: its cache (or why it has none) serves every slave
                master = masters[cluster, name] = _master_cache(m_epochs, m_starts)
            point, error = _truncation_point(l_epochs, l_starts, l_max, master, m_max)
            points.append(point)
            errors.append(error)
        yield pa.RecordBatch.from_arrays(
            [
                batch.column("cluster"),
                batch.column("brokerName"),
                batch.column("brokerId"),
                batch.column("divergentEntries"),  # computed in Spark, passed through
                pa.array(points, pa.int64()),
                pa.array([p is None and e is None for p, e in zip(points, errors, strict=True)], pa.bool_()),
                pa.array(errors, pa.string()),
            ],
            names=TRUNCATION_SCHEMA.fieldNames(),
        )


def _lists(column: pa.Array) -> list[list[int]]:
    """A list<int> column as Python lists: one conversion of the flat values, then slices."""
    flat = column.flatten().to_numpy(zero_copy_only=False).tolist()
    offsets = column.offsets.to_numpy()
    offsets = (offsets - offsets[0]).tolist()
    return [flat[a:b] for a, b in pairwise(offsets)]


def _master_cache(epochs: list[int], starts: list[int]) -> EpochCache | str:
    try:
        return EpochCache.from_pairs(zip(epochs, starts, strict=True))
    except EpochError as exc:
        return f"master's epoch cache: {exc}"


def _truncation_point(
    local_epochs: list[int], local_starts: list[int], local_max: int, master: EpochCache | str, master_max: int
) -> tuple[int | None, str | None]:
    """(point, None), (None, None) without a consistent point, or (None, why) for a malformed epoch cache
    (`master` is that message when the master's cache is the malformed one)."""
    try:
        local = EpochCache.from_pairs(zip(local_epochs, local_starts, strict=True))
    except EpochError as exc:
        return None, f"replica's epoch cache: {exc}"
    if isinstance(master, str):
        return None, master
    try:
        return truncation_point(local, local_max, master, master_max), None
    except EpochError as exc:  # a cache ahead of its log (max offset below its last epoch's start)
        return None, str(exc)


# --- broker sets ---------------------------------------------------------------------------------


def _set_figures(
    sets_now: DataFrame, replicas: DataFrame, set_epochs: DataFrame, tables: dict[str, DataFrame], snaps: _Snapshots
) -> DataFrame:
    """One row per broker set of the latest snapshots: SET_COLUMNS plus ``divergentEntries`` (for the worst list)."""
    counts = replicas.groupBy(*KEYS).agg(
        F.count(F.lit(1)).alias("replicas"),
        F.count_if("inSync").alias("inSyncReplicas"),
        F.count_if("alive").alias("aliveReplicas"),
        F.count_if(~F.col("reachable")).alias("unreachableReplicas"),
        F.max("lag").alias("maxLag"),
        F.sum("divergentEntries").alias("divergentEntries"),
        F.count_if(F.col("predictedTruncationBytes") > 0).alias("replicasTruncating"),
        F.sum(F.when(F.col("predictedTruncationBytes") > 0, F.col("predictedTruncationBytes"))).alias("truncBytes"),
        F.count_if("noConsistentPoint").alias("replicasWithoutConsistentPoint"),
        F.bool_or("masterKnown").alias("masterKnown"),
        F.max("masterEpoch").alias("currentEpoch"),
        F.max("masterLastStart").alias("masterLastStart"),
        F.bool_or("confirmedLost").alias("lostNow"),
    )
    previous = _at(tables["sync_state"], snaps, "previous").select(
        *KEYS, F.col("masterEpoch").alias("prevMasterEpoch"), F.col("syncStateSet").alias("prevSyncStateSet")
    )
    rows = (
        sets_now.join(counts, KEYS, "left")
        .join(set_epochs, KEYS, "left")
        .join(previous, KEYS, "left")
        .join(_lost_before(counts, tables, snaps), KEYS, "left")
    )

    zero = F.lit(0).cast("long")
    master_changes = F.col("masterEpoch") - F.col("prevMasterEpoch")
    known = F.coalesce("masterKnown", F.lit(False))
    new_master = (master_changes > 0) & ~F.array_contains("prevSyncStateSet", F.col("masterBrokerId"))
    lost = F.coalesce("lostNow", F.lit(False)) | F.coalesce("lostBefore", F.lit(False))
    reason = F.when(known & lost, F.lit(CONFIRMED_DATA_LOST)).when(
        known & F.coalesce(new_master, F.lit(False)), F.lit(NOT_IN_PREVIOUS_SSS)
    )
    preferred = F.col("preferredBrokerId")
    conflicting = F.coalesce("conflictingEpochs", zero)
    divergent_entries = F.coalesce("divergentEntries", zero)
    return rows.select(
        *KEYS,
        "snapshotTs",
        "masterBrokerId",
        "masterEpoch",
        "syncStateSetEpoch",
        "preferredBrokerId",
        *(F.coalesce(c, zero).alias(c) for c in ("replicas", "inSyncReplicas", "aliveReplicas")),
        F.coalesce("unreachableReplicas", zero).alias("unreachableReplicas"),
        F.col("masterBrokerId").isNull().alias("noMaster"),
        "maxLag",
        F.coalesce("epochs", zero).alias("epochs"),
        master_changes.alias("masterChanges"),
        conflicting.alias("conflictingEpochs"),
        ((conflicting > 0) | (divergent_entries > 0)).alias("divergent"),
        F.coalesce("replicasTruncating", zero).alias("replicasTruncating"),
        F.coalesce("truncBytes", zero).alias("predictedTruncationBytes"),
        F.coalesce("replicasWithoutConsistentPoint", zero).alias("replicasWithoutConsistentPoint"),
        reason.isNotNull().alias("uncleanElection"),
        reason.alias("uncleanReason"),
        (preferred.isNotNull() & ~preferred.eqNullSafe(F.col("masterBrokerId"))).alias("preferredImbalance"),
        divergent_entries.alias("divergentEntries"),
    )


def _confirmed_data_lost() -> Column:
    """Reason 1 of an unclean election, for one replica: its last epoch is below masterEpoch (an empty cache has
    Java's lastEpoch() of -1), yet it saw data confirmed beyond the start of the master's last epoch entry."""
    last_epoch = F.coalesce("lastEpoch", F.lit(-1))
    return (last_epoch < F.col("masterEpoch")) & (F.col("confirmOffset") > F.col("masterLastStart"))


def _lost_before(counts: DataFrame, tables: dict[str, DataFrame], snaps: _Snapshots) -> DataFrame:
    """KEYS, lostBefore: reason 1 seen on a replica of the set's previous snapshot."""
    prev_last = (
        _at(tables["epoch_entries"], snaps, "previous").groupBy(*REPLICA_KEYS).agg(F.max("epoch").alias("lastEpoch"))
    )
    masters = counts.select(*KEYS, F.col("currentEpoch").alias("masterEpoch"), "masterLastStart")
    return (
        _at(tables["replicas"], snaps, "previous")
        .join(prev_last, REPLICA_KEYS, "left")
        .join(masters, KEYS)
        .groupBy(*KEYS)
        .agg(F.bool_or(_confirmed_data_lost()).alias("lostBefore"))
    )


# --- clusters, fleet, worst ----------------------------------------------------------------------


def _cluster_figures(latest: DataFrame, sets: DataFrame) -> DataFrame:
    """One row per cluster (its latest snapshot); an unreachable cluster has no sets, so zero counts."""
    totals = sets.groupBy("cluster").agg(
        F.count(F.lit(1)).alias("sets"),
        F.count_if("noMaster").alias("setsWithoutMaster"),
        F.sum("replicas").alias("replicas"),
        F.sum("inSyncReplicas").alias("inSyncReplicas"),
        F.sum("unreachableReplicas").alias("unreachableReplicas"),
        F.sum("masterChanges").alias("masterChanges"),
        F.count_if("divergent").alias("divergentSets"),
        F.sum("replicasTruncating").alias("replicasTruncating"),
        F.sum("predictedTruncationBytes").alias("predictedTruncationBytes"),
        F.sum("replicasWithoutConsistentPoint").alias("replicasWithoutConsistentPoint"),
        F.count_if("uncleanElection").alias("uncleanElections"),
        F.count_if("preferredImbalance").alias("preferredImbalance"),
        F.max("maxLag").alias("maxLag"),
    )
    return latest.join(totals, "cluster", "left").select(
        "cluster", "snapshotTs", "reachable", "error", *(_total(name, F.col(name)) for name in TOTALS)
    )


def _fleet_figures(clusters: DataFrame) -> DataFrame:
    """One row: the cluster totals added up (maxLag: the greatest)."""
    sums = [_total(name, F.max(name) if name == "maxLag" else F.sum(name)) for name in TOTALS]
    return clusters.agg(
        F.count(F.lit(1)).alias("clusters"), F.count_if(~F.col("reachable")).alias("unreachableClusters"), *sums
    )


def _total(name: str, value: Column) -> Column:
    """A total as a long: 0 for a count over nothing, null for masterChanges/maxLag without values."""
    value = value.cast("long")
    return (value if name in NULLABLE_TOTALS else F.coalesce(value, F.lit(0).cast("long"))).alias(name)


def _worst(sets: DataFrame, top: int) -> DataFrame:
    """The `top` sets per measure by value descending, then cluster and broker name; null and 0 left out."""
    values = {
        "maxLag": F.col("maxLag"),
        "predictedTruncationBytes": F.col("predictedTruncationBytes"),
        "masterChanges": F.col("masterChanges"),
        "divergence": F.col("conflictingEpochs") + F.col("divergentEntries"),
    }
    measures = [
        F.struct(F.lit(i).alias("order"), F.lit(name).alias("measure"), values[name].cast("long").alias("value"))
        for i, name in enumerate(WORST_MEASURES)
    ]
    stacked = sets.select(*KEYS, F.explode(F.array(*measures)).alias("m")).select(*KEYS, "m.*")
    ranking = Window.partitionBy("measure").orderBy(F.col("value").desc(), *KEYS)
    return (
        stacked.where(F.col("value").isNotNull() & (F.col("value") != 0))
        .withColumn("rank", F.row_number().over(ranking))
        .where(F.col("rank") <= top)
        .orderBy("order", "rank")
        .select(WORST_COLUMNS)
    )


# --- collecting the small results ----------------------------------------------------------------


def _collect(frame: DataFrame) -> list[dict[str, Any]]:
    """Rows as plain dicts, timestamps as UTC-aware ISO strings (collected as microseconds: PySpark would
    otherwise convert them to naive local times)."""
    stamps = [f.name for f in frame.schema.fields if isinstance(f.dataType, T.TimestampType)]
    columns = [F.unix_micros(F.col(c)).alias(c) if c in stamps else F.col(c) for c in frame.columns]
    rows = [row.asDict() for row in frame.select(columns).collect()]
    for row in rows:
        for name in stamps:
            row[name] = _iso(_from_micros(row[name])) if row[name] is not None else None
    return rows


def _worst_lists(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    lists: dict[str, list[dict[str, Any]]] = {name: [] for name in WORST_MEASURES}
    for row in rows:  # already ordered by measure and rank
        lists[row["measure"]].append(
            {"cluster": row["cluster"], "brokerName": row["brokerName"], "value": row["value"]}
        )
    return lists


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


# --- command line --------------------------------------------------------------------------------


def _parse_since(text: str) -> datetime:
    try:
        return _utc(datetime.fromisoformat(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an ISO-8601 time: {text!r}") from exc


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"not a count: {text!r}")
    return int(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spark/report.py", description="Fleet epochs report over a dataset written by 'mqadmin epochs collect'."
    )
    parser.add_argument("--input", required=True, type=Path, help="the dataset directory")
    parser.add_argument("--since", type=_parse_since, help="ignore snapshots before this ISO-8601 time (UTC if naive)")
    parser.add_argument("--top", type=_count, default=10, help="length of each worst-sets list (default 10)")
    parser.add_argument("--out", type=Path, help="also write every table as Parquet under this directory")
    parser.add_argument("--details", action="store_true", help="list every broker set and replica in the JSON")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--master", help="Spark master (default: spark-submit's, else local[*])")
    where.add_argument("--remote", help="Spark Connect server URL, sc://host:port (default: $SPARK_REMOTE)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the report and print its JSON document; exit status 2 for a dataset it cannot read."""
    args = _parser().parse_args(argv)
    try:
        check_dataset(args.input)  # before paying for a JVM
    except DatasetError as exc:
        return _fail(exc)
    from spark.session import build_session, is_connect, is_local, ship_packages

    running = SparkSession.getActiveSession()  # embedded (tests, a notebook): use it and leave it running
    spark = running or build_session(master=args.master, remote=args.remote)
    try:
        local = not is_connect(spark) and is_local(spark.sparkContext.master or "")
        if __name__ == "__main__" and not __package__ and local:
            ship_packages(spark)  # spark-submit of this file: workers may not have the project installed (on a
            # cluster, build_session has shipped it already)
        try:
            report = run_report(spark, args.input, since=args.since, top=args.top)
        except DatasetError as exc:  # e.g. nothing left after --since
            return _fail(exc)
        try:
            print(json.dumps(report.summary(details=args.details), indent=2))
            if args.out is not None:
                report.write(args.out)
        finally:
            report.unpersist()
        return 0
    finally:
        if running is None:
            spark.stop()


def _fail(exc: DatasetError) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
