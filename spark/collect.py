"""Rows of one fleet snapshot (``spark/schema.py``) from what a controller and the agents answered, or from broker
store directories read in place (``--from-stores``, for post-mortems when a cluster is down).

Fetching is the CLI's job (``mqadmin_py/commands/epochs.py``); this module only turns answers into rows, so it is
tested without a cluster, and it never imports Spark.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agents.identity import IdentityFiles
from agents.store.checkpoint import Checkpoint
from agents.store.commitlog import read_only_bounds
from agents.store.epoch_file import EpochFile
from agents.store.layout import EPOCH_FILE, STORE_DIR
from spark.errors import SparkError

Row = dict[str, Any]


@dataclass
class Snapshot:
    """The rows of every table for one snapshot timestamp."""

    ts: datetime
    tables: dict[str, list[Row]] = field(
        default_factory=lambda: {"clusters": [], "sync_state": [], "replicas": [], "epoch_entries": []}
    )

    def counts(self) -> dict[str, int]:
        return {name: len(rows) for name, rows in self.tables.items()}


def add_unreachable_cluster(snap: Snapshot, cluster: str, controllers: str, error: str) -> None:
    snap.tables["clusters"].append(_cluster_row(snap, cluster, controllers, False, error, 0, "controller"))


def add_cluster(
    snap: Snapshot,
    cluster: str,
    controllers: str,
    sync_docs: Iterable[Mapping[str, Any]],
    epoch_docs: Iterable[Mapping[str, Any]],
) -> None:
    """Rows of a reachable cluster from its getSyncStateSet documents and getBrokerEpoch documents (the CLI's
    JSON shapes, docs/cli.md), one epoch document per replica the controller listed."""
    sets = list(sync_docs)
    snap.tables["clusters"].append(_cluster_row(snap, cluster, controllers, True, None, len(sets), "controller"))
    epochs = {(d["brokerName"], d["brokerId"]): d for d in epoch_docs}
    for s in sets:
        snap.tables["sync_state"].append(
            {
                "cluster": cluster,
                "brokerName": s["brokerName"],
                "masterBrokerId": s["masterBrokerId"],
                "masterEpoch": s["masterEpoch"],
                "syncStateSetEpoch": s["syncStateSetEpoch"],
                "syncStateSet": sorted(r["brokerId"] for r in s["inSyncReplicas"]),
                "preferredBrokerId": s["preferredBrokerId"],
                "snapshotTs": snap.ts,
            }
        )
        members = [(r, True) for r in s["inSyncReplicas"]] + [(r, False) for r in s["notInSyncReplicas"]]
        for member, in_sync in sorted(members, key=lambda m: m[0]["brokerId"]):
            doc = epochs.get((s["brokerName"], member["brokerId"]))
            reachable = doc is not None and doc["reachable"]
            error = None if reachable else (doc["error"] if doc is not None else "not asked")
            _add_replica(
                snap,
                cluster,
                s["brokerName"],
                member["brokerId"],
                member["brokerAddress"],
                role="master" if member["brokerId"] == s["masterBrokerId"] else "slave",
                alive=bool(member["alive"]),
                in_sync=in_sync,
                preferred=member["brokerId"] == s["preferredBrokerId"],
                error=error,
                offsets=(doc["minOffset"], doc["maxOffset"], doc["confirmOffset"]) if reachable and doc else None,
                epochs=[(e["epoch"], e["startOffset"], e["endOffset"]) for e in doc["epochs"]]
                if reachable and doc
                else [],
            )


@dataclass(frozen=True)
class StoreReplica:
    """What one broker store directory says about its replica."""

    root: Path
    cluster: str
    broker_name: str
    broker_id: int
    min_offset: int
    max_offset: int
    confirm_offset: int
    epochs: tuple[tuple[int, int], ...]  # (epoch, startOffset)


class StoreError(SparkError, ValueError):
    """A directory that is not a readable broker store."""


def find_store_roots(paths: Iterable[Path], max_depth: int = 3) -> list[Path]:
    """Broker store roots (directories holding ``brokerIdentity``) at or below `paths`; StoreError if none."""
    found: list[Path] = []
    for path in paths:
        path = Path(path)
        if not path.is_dir():
            raise StoreError(f"{path}: no such directory")
        here = [p.parent for p in _walk(path, max_depth) if p.name == "brokerIdentity"]
        if not here:
            raise StoreError(f"{path}: no broker store below it (no brokerIdentity file within {max_depth} levels)")
        found.extend(here)
    return sorted(dict.fromkeys(found))


def _walk(path: Path, depth: int) -> Iterable[Path]:
    for child in sorted(path.iterdir()):
        yield child
        if child.is_dir() and depth > 0 and not child.is_symlink():
            yield from _walk(child, depth - 1)


def read_store(root: Path) -> StoreReplica:
    """Read a stopped broker's store in place; never writes (no recovery, no cut). StoreError if unusable."""
    try:
        identity = IdentityFiles(root).load()
        if identity is None:
            raise StoreError(f"{root}: no committed broker identity (brokerIdentity)")
        cache = EpochFile(root / EPOCH_FILE).load()
        checkpoint = Checkpoint(root / STORE_DIR / "checkpoint").load()
        low, high = read_only_bounds(root / STORE_DIR / "commitlog", checkpoint.flushed_offset)
    except StoreError:
        raise
    except (OSError, ValueError, RuntimeError) as exc:  # identity, epoch file, checkpoint and log errors
        raise StoreError(f"{root}: {exc}") from exc
    return StoreReplica(
        root,
        identity.cluster_name,
        identity.broker_name,
        identity.broker_id,
        low,
        high,
        min(checkpoint.confirm_offset, high),
        cache.pairs(),
    )


def add_stores(snap: Snapshot, stores: Iterable[StoreReplica]) -> None:
    """Rows from store directories. Without a controller the master is taken to be the replica whose epoch cache
    holds the highest epoch (the last one elected; ties: the longest log), the SyncStateSet is unknown (empty),
    and no replica is called alive or in sync."""
    by_set: dict[tuple[str, str], list[StoreReplica]] = {}
    for st in stores:
        by_set.setdefault((st.cluster, st.broker_name), []).append(st)
    for cluster in sorted({c for c, _ in by_set}):
        names = sorted(n for c, n in by_set if c == cluster)
        snap.tables["clusters"].append(_cluster_row(snap, cluster, "", True, None, len(names), "stores"))
        for name in names:
            members = sorted(by_set[(cluster, name)], key=lambda st: st.broker_id)
            master = max(members, key=lambda st: (st.epochs[-1][0] if st.epochs else -1, st.max_offset))
            master_epoch = master.epochs[-1][0] if master.epochs else 0
            snap.tables["sync_state"].append(
                {
                    "cluster": cluster,
                    "brokerName": name,
                    "masterBrokerId": master.broker_id if master.epochs else None,
                    "masterEpoch": master_epoch,
                    "syncStateSetEpoch": 0,
                    "syncStateSet": [],
                    "preferredBrokerId": None,
                    "snapshotTs": snap.ts,
                }
            )
            for st in members:
                ends = [start for _, start in st.epochs[1:]] + [st.max_offset]
                _add_replica(
                    snap,
                    cluster,
                    name,
                    st.broker_id,
                    None,
                    role="master" if st is master and master.epochs else "slave",
                    alive=False,
                    in_sync=False,
                    preferred=False,
                    error=None,
                    offsets=(st.min_offset, st.max_offset, st.confirm_offset),
                    epochs=[(e, start, end) for (e, start), end in zip(st.epochs, ends, strict=True)],
                )


def _cluster_row(
    snap: Snapshot, cluster: str, controllers: str, reachable: bool, error: str | None, sets: int, source: str
) -> Row:
    return {
        "cluster": cluster,
        "controllers": controllers,
        "reachable": reachable,
        "error": error,
        "brokerSets": sets,
        "source": source,
        "snapshotTs": snap.ts,
    }


def _add_replica(
    snap: Snapshot,
    cluster: str,
    broker_name: str,
    broker_id: int,
    addr: str | None,
    *,
    role: str,
    alive: bool,
    in_sync: bool,
    preferred: bool,
    error: str | None,
    offsets: tuple[int, int, int] | None,
    epochs: list[tuple[int, int, int]],
) -> None:
    low, high, confirm = offsets if offsets is not None else (None, None, None)
    snap.tables["replicas"].append(
        {
            "cluster": cluster,
            "brokerName": broker_name,
            "brokerId": broker_id,
            "brokerAddr": addr,
            "role": role,
            "alive": alive,
            "inSync": in_sync,
            "preferred": preferred,
            "reachable": offsets is not None,
            "error": error,
            "minOffset": low,
            "maxOffset": high,
            "confirmOffset": confirm,
            "snapshotTs": snap.ts,
        }
    )
    if offsets is None:
        return
    for epoch, start, end in epochs:
        snap.tables["epoch_entries"].append(
            {
                "cluster": cluster,
                "brokerName": broker_name,
                "brokerId": broker_id,
                "brokerAddr": addr,
                "epoch": epoch,
                "startOffset": start,
                "endOffset": end,
                "snapshotTs": snap.ts,
            }
        )
