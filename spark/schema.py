"""The fleet dataset: the tables ``mqadmin epochs collect`` and ``synth`` write and the report reads.

A dataset is a directory with one sub-directory per table; every collect run appends one Parquet file per table
(``<table>/snapshot-<ts>-<id>.parquet``), and every row of a run carries the run's ``snapshotTs`` (UTC,
microseconds). Spark and pyarrow read a table directory as one table. Columns are camelCase, as RocketMQ names
them. The schemas below are the contract: adding a nullable column is compatible, anything else is a new
``FORMAT_VERSION``.

Tables:

``clusters``      one row per cluster and snapshot: was it reachable, how many broker sets it reported.
``sync_state``    one row per broker set and snapshot: the controller's view (master, epochs, SyncStateSet).
``replicas``      one row per replica the controller knows and snapshot: role, offsets, liveness, and whether
                  its agent answered (``reachable``) with the ``error`` if not.
``epoch_entries`` one row per epoch entry of every reachable replica's epoch cache; ``endOffset`` of the last
                  entry is the replica's maxOffset (as GetBrokerEpochCache reports it).
"""

from __future__ import annotations

import pyarrow as pa

FORMAT_VERSION = 1

TS = pa.timestamp("us", tz="UTC")

CLUSTERS = pa.schema(
    [
        pa.field("cluster", pa.string(), nullable=False),
        pa.field("controllers", pa.string(), nullable=False),  # the ';'-separated addresses asked ("" from stores)
        pa.field("reachable", pa.bool_(), nullable=False),
        pa.field("error", pa.string()),  # why not reachable (null when reachable)
        pa.field("brokerSets", pa.int32(), nullable=False),
        pa.field("source", pa.string(), nullable=False),  # "controller", "stores" or "synth"
        pa.field("snapshotTs", TS, nullable=False),
    ]
)

SYNC_STATE = pa.schema(
    [
        pa.field("cluster", pa.string(), nullable=False),
        pa.field("brokerName", pa.string(), nullable=False),
        pa.field("masterBrokerId", pa.int64()),  # null: the set has no master
        pa.field("masterEpoch", pa.int32(), nullable=False),
        pa.field("syncStateSetEpoch", pa.int32(), nullable=False),
        pa.field("syncStateSet", pa.list_(pa.int64()), nullable=False),  # broker ids in the SyncStateSet
        pa.field("preferredBrokerId", pa.int64()),  # null: no preferred master assigned
        pa.field("snapshotTs", TS, nullable=False),
    ]
)

REPLICAS = pa.schema(
    [
        pa.field("cluster", pa.string(), nullable=False),
        pa.field("brokerName", pa.string(), nullable=False),
        pa.field("brokerId", pa.int64(), nullable=False),
        pa.field("brokerAddr", pa.string()),  # null when read from a store directory
        pa.field("role", pa.string(), nullable=False),  # "master" or "slave", as the controller says
        pa.field("alive", pa.bool_(), nullable=False),  # the controller's liveness verdict
        pa.field("inSync", pa.bool_(), nullable=False),  # in the SyncStateSet
        pa.field("preferred", pa.bool_(), nullable=False),  # the set's preferred master
        pa.field("reachable", pa.bool_(), nullable=False),  # its agent answered GetBrokerEpochCache
        pa.field("error", pa.string()),  # why not reachable
        pa.field("minOffset", pa.int64()),  # null when not reachable
        pa.field("maxOffset", pa.int64()),
        pa.field("confirmOffset", pa.int64()),
        pa.field("snapshotTs", TS, nullable=False),
    ]
)

EPOCH_ENTRIES = pa.schema(
    [
        pa.field("cluster", pa.string(), nullable=False),
        pa.field("brokerName", pa.string(), nullable=False),
        pa.field("brokerId", pa.int64(), nullable=False),
        pa.field("brokerAddr", pa.string()),
        pa.field("epoch", pa.int32(), nullable=False),
        pa.field("startOffset", pa.int64(), nullable=False),
        pa.field("endOffset", pa.int64(), nullable=False),
        pa.field("snapshotTs", TS, nullable=False),
    ]
)

TABLES: dict[str, pa.Schema] = {
    "clusters": CLUSTERS,
    "sync_state": SYNC_STATE,
    "replicas": REPLICAS,
    "epoch_entries": EPOCH_ENTRIES,
}
