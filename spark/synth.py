"""Synthetic fleet datasets (``mqadmin epochs synth``): a fleet of any size whose report figures are known exactly.

Why: the report (``docs/analytics.md``) must be checked on fleets far larger than any sandbox, and against
anomalies that a real fleet shows rarely and never on demand. ``synthesize`` writes healthy broker sets and
injects each anomaly kind into a known number of distinct sets, then states in the manifest the exact fleet
figures the report must give; the anomalies are built so that they do not interact (see ``_inject``).

Generation is vectorized with numpy, one chunk of broker sets at a time, each chunk written as one Parquet file per
table and snapshot (``spark.dataset.write_table``), so memory stays bounded whatever the fleet size. Every random
draw comes from generators seeded by (seed, chunk): the same seed writes the same rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from spark.dataset import write_table
from spark.schema import CLUSTERS, EPOCH_ENTRIES, REPLICAS, SYNC_STATE, TABLES, TS

I64 = npt.NDArray[np.int64]
Bool = npt.NDArray[np.bool_]

SET_KINDS = (
    "no_master",
    "diverged",
    "extra_epoch",
    "no_consistent_point",
    "unreachable_replica",
    "unclean_confirmed",
    "unclean_not_in_sss",
    "preferred_imbalance",
    "master_change",
)
"""Anomalies injected into one broker set each (``unreachable_cluster`` takes a whole cluster)."""

CHANGE_KINDS = frozenset({"unclean_confirmed", "unclean_not_in_sss", "master_change"})
"""The kinds whose master changes between the previous and the latest snapshot."""

_NEEDS: dict[str, tuple[int, int, int]] = {
    "no_master": (1, 1, 1),
    "diverged": (2, 2, 1),
    "extra_epoch": (2, 2, 1),
    "no_consistent_point": (2, 1, 1),
    "unreachable_replica": (2, 1, 1),
    "unclean_confirmed": (2, 2, 2),
    "unclean_not_in_sss": (2, 2, 2),
    "preferred_imbalance": (2, 1, 1),
    "master_change": (2, 2, 2),
}
"""Per kind, the least (replicas, epochs, snapshots) it can be built with (a slave, two epochs, a previous
snapshot)."""

REASON_CONFIRMED = "confirmed data lost"
REASON_NOT_IN_SSS = "not in previous SyncStateSet"

TARGET_ROWS = 1_000_000
"""Epoch entries per chunk: about 100 MB of arrays and strings at a time."""
LAG_CAP = 1 << 24
"""The greatest lag of a healthy slave that holds the master's last epoch (16 MiB)."""
LAGGING_SHARE = 0.05
"""Share of healthy slaves lagging by whole epochs (they lack the master's last one to three epochs)."""
CONF_CAP = 1 << 20
"""How far confirmOffset trails the set's smallest maxOffset at most."""
BASE_TS = datetime(2025, 1, 1, tzinfo=UTC)
CONTROLLER_PORT = 9878
BROKER_PORT = 10911
CLUSTER_ERROR = "synth: no controller answered (injected unreachable cluster)"
REPLICA_ERROR = "synth: agent did not answer GetBrokerEpochCache (injected unreachable replica)"


@dataclass(frozen=True)
class AnomalyCounts:
    """How many broker sets (clusters for ``unreachable_cluster``) get each anomaly; each in a distinct set."""

    no_master: int = 0
    diverged: int = 0
    extra_epoch: int = 0
    no_consistent_point: int = 0
    unreachable_replica: int = 0
    unclean_confirmed: int = 0
    unclean_not_in_sss: int = 0
    preferred_imbalance: int = 0
    master_change: int = 0
    unreachable_cluster: int = 0

    @classmethod
    def default(cls, clusters: int, sets: int, replicas: int, epochs: int, snapshots: int = 2) -> AnomalyCounts:
        """About 1 % of the sets per kind (1 % of the clusters unreachable), at least one of each kind the fleet
        can hold; none at all when the reachable sets are fewer than the kinds."""
        unreachable = max(1, clusters // 100) if clusters >= 2 else 0
        reachable_sets = (clusters - unreachable) * sets
        possible = [k for k in SET_KINDS if _fits(k, replicas, epochs, snapshots)]
        each = max(1, reachable_sets // 100)
        if each * len(possible) > reachable_sets:
            each = 0
        return cls(unreachable_cluster=unreachable, **{k: each for k in possible})

    def per_kind(self) -> dict[str, int]:
        """The set kinds and their counts, in ``SET_KINDS`` order."""
        return {k: int(getattr(self, k)) for k in SET_KINDS}

    def check(self, clusters: int, sets: int, replicas: int, epochs: int, snapshots: int) -> None:
        """Raise ValueError if the fleet cannot hold these anomalies, each in its own set."""
        for f in fields(self):
            if getattr(self, f.name) < 0:
                raise ValueError(f"anomaly count {f.name} must not be negative")
        if self.unreachable_cluster > clusters:
            raise ValueError(f"{self.unreachable_cluster} unreachable clusters requested, the fleet has {clusters}")
        wanted = self.per_kind()
        for kind, count in wanted.items():
            if count and not _fits(kind, replicas, epochs, snapshots):
                need = _NEEDS[kind]
                raise ValueError(
                    f"anomaly {kind} needs at least {need[0]} replicas, {need[1]} epochs and {need[2]} snapshots "
                    f"(have {replicas}, {epochs}, {snapshots})"
                )
        total = sum(wanted.values())
        reachable_sets = (clusters - self.unreachable_cluster) * sets
        if total > reachable_sets:
            raise ValueError(
                f"{total} broker sets with anomalies requested, the fleet has {reachable_sets} in reachable clusters "
                f"({clusters - self.unreachable_cluster} clusters x {sets} sets): use a larger fleet or fewer anomalies"
            )


def _fits(kind: str, replicas: int, epochs: int, snapshots: int) -> bool:
    r, e, s = _NEEDS[kind]
    return replicas >= r and epochs >= e and snapshots >= s


@dataclass
class Manifest:
    """What was written and what the report must say about it (``out/manifest.json``).

    ``expected["fleet"]``: the report summary's fleet figures; ``expected["anomalies"]``: per kind, the sets (or
    clusters) it was injected into, with the figures the report must show for them.
    """

    params: dict[str, Any]
    snapshots: list[str]
    rows: dict[str, int]
    files: int
    expected: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Plan:
    """Fleet-wide decisions taken before any chunk: which clusters are down, which set gets which anomaly."""

    cluster_names: list[str]
    set_width: int
    unreachable: Bool  # per cluster, in the latest snapshot
    kind: npt.NDArray[np.int8]  # per global set index: 0 healthy, else 1 + index in SET_KINDS
    injected: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SET_KINDS, 0))  # so far, per kind


@dataclass
class _Chunk:
    """The state of a chunk's sets: the latest snapshot, and what differs in the earlier ones."""

    cl: I64  # cluster index per set
    names: pa.Array  # brokerName per set
    kind: npt.NDArray[np.int8]
    ep: I64  # (n, R, W) epochs of each replica's cache (first k valid)
    st: I64  # (n, R, W) start offsets
    k: I64  # (n, R) entries in the latest snapshot
    mx: I64  # (n, R) maxOffset in the latest snapshot
    minoff: I64
    reach: Bool  # (n, R) latest
    alive: Bool
    insync: Bool  # latest
    insync_prev: Bool
    conf_own: Bool  # (n, R) confirmOffset is the replica's own maxOffset in the latest snapshot
    conf_own_prev: Bool
    conf_u: npt.NDArray[np.float64]  # (n,) how far confirmOffset trails, as a share of CONF_CAP
    mid: I64  # (n,) master slot in the latest snapshot, -1: none
    mid_prev: I64
    epoch: I64  # (n,) masterEpoch latest
    epoch_prev: I64
    sss_epoch: I64
    sss_epoch_prev: I64
    pref: I64  # (n,) preferred slot, -1: none
    change: Bool  # (n,) master changes into the latest snapshot
    k_prev: I64  # (n, R)
    lo_prev: I64  # (n, R) maxOffset range of the earlier snapshots
    hi_prev: I64
    found: dict[str, list[dict[str, Any]]]


def synthesize(
    out: Path,
    clusters: int,
    sets: int,
    replicas: int,
    epochs: int,
    seed: int,
    snapshots: int = 2,
    anomalies: AnomalyCounts | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Manifest:
    """Write a synthetic fleet into dataset `out` and return (and write) its manifest.

    `sets` is per cluster, `epochs` the entries of each master's cache, `snapshots` one minute apart; `anomalies`
    defaults to ``AnomalyCounts.default``. `progress(sets_done, sets_total)` is called after every chunk. Raises
    ValueError for non-positive sizes, a fleet too small for the anomalies, or an `out` already holding a dataset.
    """
    for name, value in (("clusters", clusters), ("sets", sets), ("replicas", replicas), ("epochs", epochs)):
        if value < 1:
            raise ValueError(f"{name} must be positive, not {value}")
    if snapshots < 1:
        raise ValueError(f"snapshots must be positive, not {snapshots}")
    if seed < 0:
        raise ValueError(f"seed must not be negative, not {seed}")
    if replicas > 1000 or epochs > 100_000:
        raise ValueError("at most 1000 replicas per set and 100000 epochs per replica")
    counts = anomalies if anomalies is not None else AnomalyCounts.default(clusters, sets, replicas, epochs, snapshots)
    counts.check(clusters, sets, replicas, epochs, snapshots)
    out = Path(out)
    if any((out / t).exists() for t in TABLES):
        raise ValueError(f"{out} already holds a dataset: synth writes into a new or empty directory")
    out.mkdir(parents=True, exist_ok=True)

    plan = _plan(clusters, sets, counts, seed)
    times = [BASE_TS + timedelta(minutes=seed % 525_600 + j) for j in range(snapshots)]
    rows = dict.fromkeys(TABLES, 0)
    files = 0
    written: set[tuple[str, int]] = set()
    for j, ts in enumerate(times):
        table = _clusters_table(plan, sets, latest=j == snapshots - 1, ts=ts)
        write_table(out, "clusters", table, ts)
        rows["clusters"] += table.num_rows
        files += 1

    total = clusters * sets
    chunk = max(1, TARGET_ROWS // (replicas * epochs))
    found: dict[str, list[dict[str, Any]]] = {k: [] for k in SET_KINDS}
    max_lag: int | None = None
    in_sync = unreachable_replicas = 0
    for index, lo in enumerate(range(0, total, chunk)):
        hi = min(total, lo + chunk)
        rng = np.random.default_rng([seed, 1, index])
        c = _chunk(rng, plan, lo, hi, sets, replicas, epochs)
        for kind, items in c.found.items():
            found[kind].extend(items)
        keep = ~plan.unreachable[c.cl]
        in_sync += int(c.insync[keep].sum())
        unreachable_replicas += int((~c.reach[keep]).sum())
        lag = _max_lag(c, keep)
        if lag is not None:
            max_lag = lag if max_lag is None else max(max_lag, lag)
        for j, ts in enumerate(times):
            for name, table in _snapshot_tables(c, plan, j, snapshots, ts).items():
                if table.num_rows:
                    write_table(out, name, table, ts)
                    rows[name] += table.num_rows
                    files += 1
                    written.add((name, j))
        if progress is not None:
            progress(hi, total)
    for j, ts in enumerate(times):  # every snapshot has a file per table, even an empty one
        for name in ("sync_state", "replicas", "epoch_entries"):
            if (name, j) not in written:
                write_table(out, name, TABLES[name].empty_table(), ts)
                files += 1

    manifest = Manifest(
        params={
            "clusters": clusters,
            "sets": sets,
            "replicas": replicas,
            "epochs": epochs,
            "seed": seed,
            "snapshots": snapshots,
            "anomalies": asdict(counts),
        },
        snapshots=[t.isoformat() for t in times],
        rows=rows,
        files=files,
        expected=_expected(plan, sets, replicas, snapshots, found, in_sync, unreachable_replicas, max_lag),
    )
    (out / "manifest.json").write_text(json.dumps(manifest.to_dict(), indent=2) + "\n")
    return manifest


def _plan(clusters: int, sets: int, counts: AnomalyCounts, seed: int) -> _Plan:
    rng = np.random.default_rng([seed, 0])
    width = len(str(clusters - 1))
    unreachable = np.zeros(clusters, dtype=np.bool_)
    unreachable[rng.choice(clusters, size=counts.unreachable_cluster, replace=False)] = True
    reachable_sets = (np.flatnonzero(~unreachable)[:, None] * sets + np.arange(sets)[None, :]).ravel()
    per_kind = counts.per_kind()
    chosen = rng.choice(reachable_sets, size=sum(per_kind.values()), replace=False)
    kind = np.zeros(clusters * sets, dtype=np.int8)
    at = 0
    for number, count in enumerate(per_kind.values(), start=1):
        kind[chosen[at : at + count]] = number
        at += count
    return _Plan([f"synth-{c:0{width}d}" for c in range(clusters)], len(str(sets - 1)), unreachable, kind)


def _controllers(cluster: str) -> str:
    return ";".join(f"{cluster}-controller-{i}.synth:{CONTROLLER_PORT}" for i in range(3))


def _clusters_table(plan: _Plan, sets: int, latest: bool, ts: datetime) -> pa.Table:
    down = plan.unreachable if latest else np.zeros_like(plan.unreachable)
    n = len(plan.cluster_names)
    return pa.Table.from_arrays(
        [
            pa.array(plan.cluster_names, pa.string()),
            pa.array([_controllers(c) for c in plan.cluster_names], pa.string()),
            pa.array(~down),
            pa.array([CLUSTER_ERROR if d else None for d in down.tolist()], pa.string()),
            pa.array(np.where(down, 0, sets).astype(np.int32)),
            pa.array(["synth"] * n, pa.string()),
            pa.repeat(pa.scalar(ts, TS), n),
        ],
        schema=CLUSTERS,
    )


def _chunk(rng: np.random.Generator, plan: _Plan, lo: int, hi: int, sets: int, r: int, e: int) -> _Chunk:
    """Healthy sets for global set indices [lo, hi), then the anomalies planned for them."""
    n = hi - lo
    g = np.arange(lo, hi, dtype=np.int64)
    w = max(e, 2)  # room for a two-entry cache below the master's (no_consistent_point) when e is 1
    slots = np.arange(r)[None, :]

    # The master's cache: ascending epochs with gaps of 1-3, entries of 1 MiB to 1 GiB.
    gaps = rng.integers(1, 4, size=(n, e))
    gaps[:, 0] = rng.integers(3, 100, size=n)  # the first epoch: room below it for older epochs
    lens = rng.integers(1 << 20, 1 << 30, size=(n, e))
    first = rng.integers(1 << 20, 1 << 32, size=n)
    ep = np.zeros((n, r, w), dtype=np.int64)
    st = np.zeros((n, r, w), dtype=np.int64)
    ep[:, :, :e] = np.cumsum(gaps, axis=1)[:, None, :]
    st[:, :, :e] = (first[:, None] + np.cumsum(lens, axis=1) - lens)[:, None, :]
    master_max = first + lens.sum(axis=1)
    fm = rng.integers(0, r, size=n)  # the master (for a changed set: the previous one)
    other = (fm + rng.integers(1, max(r, 2), size=n)) % r  # the slave an anomaly picks
    kind = plan.kind[lo:hi]
    healthy = kind == 0
    is_master = slots == fm[:, None]

    # Slaves: most hold the master's last epoch, up to LAG_CAP behind (a third caught up); a few lag whole epochs.
    k = np.full((n, r), e, dtype=np.int64)
    if e >= 2:
        lagging = (rng.random((n, r)) < LAGGING_SHARE) & ~is_master & healthy[:, None]
        k -= np.where(lagging, rng.integers(1, min(3, e - 1) + 1, size=(n, r)), 0)
    else:
        lagging = np.zeros((n, r), dtype=np.bool_)
    last_start = np.take_along_axis(st, (k - 1)[:, :, None], axis=2)[:, :, 0]
    next_start = np.take_along_axis(st, np.minimum(k, w - 1)[:, :, None], axis=2)[:, :, 0]
    upper = np.where(k == e, master_max[:, None], next_start)
    span = upper - last_start - 1
    span = np.where(lagging, span, np.minimum(span, LAG_CAP))
    u = np.where(rng.random((n, r)) < 1 / 3, 0.0, rng.random((n, r)))
    mx = np.where(is_master, master_max[:, None], upper - (u * span).astype(np.int64))
    pref = np.where(rng.random(n) < 0.5, fm, -1)
    sss0 = rng.integers(1, 50, size=n)

    c = _Chunk(
        cl=g // sets,
        names=pa.array([f"broker-{s:0{plan.set_width}d}" for s in (g % sets).tolist()], pa.string()),
        kind=kind,
        ep=ep,
        st=st,
        k=k,
        mx=mx,
        minoff=st[:, :, 0].copy(),
        reach=np.ones((n, r), dtype=np.bool_),
        alive=np.ones((n, r), dtype=np.bool_),
        insync=np.ones((n, r), dtype=np.bool_),
        insync_prev=np.ones((n, r), dtype=np.bool_),
        conf_own=np.zeros((n, r), dtype=np.bool_),
        conf_own_prev=np.zeros((n, r), dtype=np.bool_),
        conf_u=rng.random(n),
        mid=fm.copy(),
        mid_prev=fm.copy(),
        epoch=np.zeros(n, dtype=np.int64),
        epoch_prev=np.zeros(n, dtype=np.int64),
        sss_epoch=sss0.copy(),
        sss_epoch_prev=sss0,
        pref=pref,
        change=np.zeros(n, dtype=np.bool_),
        k_prev=k,
        lo_prev=last_start + 1,
        hi_prev=mx,
        found={kk: [] for kk in SET_KINDS},
    )
    hi_override: list[tuple[int, int, int]] = []
    for i in np.flatnonzero(kind).tolist():
        hi_override.extend(_inject(c, plan, rng, i, SET_KINDS[kind[i] - 1], int(fm[i]), int(other[i]), e))

    rows = np.arange(n)
    no_master = kind == SET_KINDS.index("no_master") + 1
    c.epoch = ep[rows, fm, e - 1] + no_master  # a failed election raised the epoch and left no master
    c.epoch_prev = np.where(c.change, ep[rows, fm, e - 2], c.epoch) if e >= 2 else c.epoch.copy()
    c.sss_epoch = c.sss_epoch + c.change
    # Earlier snapshots: a changed set's replicas lack the new epoch and stop where it starts (its master's log
    # end when elected); the others hold the same entries with smaller offsets.
    new_start = st[rows, fm, e - 1]
    c.k_prev = np.where(c.change[:, None], e - 1, k)
    c.hi_prev = np.where(c.change[:, None], new_start[:, None], mx)
    for i, slot, value in hi_override:
        c.hi_prev[i, slot] = value
    c.lo_prev = np.take_along_axis(st, (c.k_prev - 1)[:, :, None], axis=2)[:, :, 0] + 1
    return c


def _inject(
    c: _Chunk, plan: _Plan, rng: np.random.Generator, i: int, kind: str, m: int, v: int, e: int
) -> list[tuple[int, int, int]]:
    """Turn healthy set `i` (master slot `m`) into one showing `kind`, through slave slot `v`; record what the
    report must find. Returns (set, slot, maxOffset) overrides for the previous snapshot.

    Each kind touches only its own measures: the anomalous slave's maxOffset never exceeds the master's (no
    negative lag), confirmOffset stays at or below the start of the master's last epoch wherever a replica lacks
    that epoch (no accidental unclean election), and a changed master keeps the preferred broker balanced.
    """
    ep, st = c.ep, c.st
    item: dict[str, Any] = {"cluster": plan.cluster_names[int(c.cl[i])], "brokerName": c.names[i].as_py()}
    master_max = int(c.mx[i, m])
    a, b = (int(st[i, m, e - 2]), int(st[i, m, e - 1])) if e >= 2 else (0, int(st[i, m, 0]))
    overrides: list[tuple[int, int, int]] = []
    if kind == "no_master":
        # The master died and no replica could be elected, before either snapshot: it left the SyncStateSet.
        c.mid[i] = c.mid_prev[i] = -1
        c.alive[i, m] = False
        c.insync[i, m] = c.insync_prev[i, m] = False
        c.pref[i] = -1  # a preferred broker without a master would be an imbalance too, or not: avoid the question
    elif kind == "diverged":
        # Slave v holds the master's last epoch from an earlier start: it truncates there.
        start = a + 1 + int(rng.integers(0, b - a - 1))
        st[i, v, e - 1] = start
        c.mx[i, v] = start + 1 + int(rng.integers(0, master_max - start))
        truncation = int(c.mx[i, v]) - start
        item |= {"brokerId": v + 1, "conflictingEpochs": 1, "divergentEntries": 1}
        item |= {"predictedTruncationBytes": truncation, "divergence": 2}
    elif kind == "extra_epoch":
        # Slave v, master for a moment between the master's last two epochs, wrote epoch e' the master lacks.
        if ep[i, m, e - 1] - ep[i, m, e - 2] < 2:
            ep[i, :, e - 1] += 1
        start = a + 1 + int(rng.integers(0, b - a - 1))
        ep[i, v, e - 1] = ep[i, m, e - 2] + 1
        st[i, v, e - 1] = start
        c.mx[i, v] = start + 1 + int(rng.integers(0, b - start))  # at most b: its confirmOffset stays below b
        truncation = int(c.mx[i, v]) - start
        item |= {"brokerId": v + 1, "epoch": int(ep[i, v, e - 1]), "conflictingEpochs": 0, "divergentEntries": 1}
        item |= {"predictedTruncationBytes": truncation, "divergence": 1}
    elif kind == "no_consistent_point":
        # Slave v stopped before the master's first epoch: the master has pruned every epoch they share.
        first_epoch, first_start = int(ep[i, m, 0]), int(st[i, m, 0])
        s1 = int(rng.integers(0, first_start // 2))
        s2 = s1 + 1 + int(rng.integers(0, first_start - s1 - 2))
        ep[i, v, :2] = (first_epoch - 2, first_epoch - 1)
        st[i, v, :2] = (s1, s2)
        c.k[i, v] = 2
        c.mx[i, v] = s2 + 1 + int(rng.integers(0, first_start - s2))
        c.minoff[i, v] = s1
        item |= {"brokerId": v + 1, "lag": master_max - int(c.mx[i, v])}
    elif kind == "unreachable_replica":
        c.reach[i, v] = False
        item |= {"brokerId": v + 1}
    elif kind in CHANGE_KINDS:
        # Slave v was elected with the master's last epoch at its own log end b, the master of the previous
        # snapshot (slot m) is a slave now.
        c.mid[i] = v
        c.change[i] = True
        c.mx[i, m], c.mx[i, v] = c.mx[i, v], master_max  # the new master's log is the longest
        if c.pref[i] == m:
            c.pref[i] = v
        changes = int(ep[i, m, e - 1] - ep[i, m, e - 2])
        item |= {"masterBrokerId": v + 1, "previousMasterBrokerId": m + 1, "masterChanges": changes}
        if kind == "unclean_not_in_sss":
            c.insync_prev[i, v] = False
            item |= {"uncleanReason": REASON_NOT_IN_SSS}
        elif kind == "unclean_confirmed":
            # The old master had confirmed up to its log end, beyond b: the election lost confirmed data. Every
            # other one of these sets also keeps the old master untruncated in the latest snapshot (the evidence
            # is then in both snapshots, and it predicts a truncation of its tail); the rest show it only in the
            # previous one.
            tail = b + 1 + int(rng.integers(0, min(master_max - b, LAG_CAP)))
            overrides.append((i, m, tail))
            c.conf_own_prev[i, m] = True
            latest = plan.injected[kind] % 2 == 1
            item |= {"uncleanReason": REASON_CONFIRMED, "evidence": "latest" if latest else "previous"}
            if latest:
                c.k[i, m] = e - 1
                c.mx[i, m] = tail
                c.conf_own[i, m] = True
                item |= {"brokerId": m + 1, "predictedTruncationBytes": tail - b}
    elif kind == "preferred_imbalance":
        c.pref[i] = v
        item |= {"masterBrokerId": m + 1, "preferredBrokerId": v + 1}
    c.found[kind].append(item)
    plan.injected[kind] += 1
    return overrides


def _max_lag(c: _Chunk, keep: Bool) -> int | None:
    """The greatest lag over the latest snapshot's replicas whose master is known (always reachable here)."""
    sel = keep & (c.mid >= 0)
    if not sel.any():
        return None
    rows = np.flatnonzero(sel)
    lag = c.mx[rows, c.mid[rows]][:, None] - c.mx[rows]
    return int(np.where(c.reach[rows], lag, np.iinfo(np.int64).min).max())


def _offsets(c: _Chunk, j: int, snapshots: int) -> tuple[I64, I64, I64]:
    """(entries, maxOffset, confirmOffset) per replica in snapshot `j`."""
    if j == snapshots - 1:
        k, mx, own, reach = c.k, c.mx, c.conf_own, c.reach
    else:
        den = np.where(c.change, snapshots - 1, snapshots)[:, None]
        k, own, reach = c.k_prev, c.conf_own_prev, np.ones_like(c.reach)
        mx = c.lo_prev + (c.hi_prev - c.lo_prev) * (j + 1) // den
    big = np.iinfo(np.int64).max
    least = np.where(reach, mx, big).min(axis=1)
    floor = np.where(reach, c.minoff, big).min(axis=1)
    conf = least - (c.conf_u * np.minimum(CONF_CAP, least - floor)).astype(np.int64)
    return k, mx, np.where(own, mx, conf[:, None])


def _snapshot_tables(c: _Chunk, plan: _Plan, j: int, snapshots: int, ts: datetime) -> dict[str, pa.Table]:
    latest = j == snapshots - 1
    n, r = c.k.shape
    keep = ~plan.unreachable[c.cl] if latest else np.ones(n, dtype=np.bool_)
    k, mx, conf = _offsets(c, j, snapshots)
    mid = c.mid if latest else c.mid_prev
    insync = c.insync if latest else c.insync_prev
    reach = (c.reach if latest else np.ones_like(c.reach)) & keep[:, None]
    sets = np.flatnonzero(keep)
    ns = len(sets)
    cluster_names = pa.array(plan.cluster_names, pa.string())
    cluster = cluster_names.take(pa.array(c.cl[sets]))
    name = c.names.take(pa.array(sets))

    in_set = insync[sets]
    ids = np.broadcast_to(np.arange(1, r + 1, dtype=np.int64), in_set.shape)
    sss = pa.ListArray.from_arrays(
        pa.array(np.concatenate([[0], np.cumsum(in_set.sum(axis=1))]).astype(np.int32)), pa.array(ids[in_set])
    )
    pref = c.pref[sets]
    sync_state = pa.Table.from_arrays(
        [
            cluster,
            name,
            pa.array(mid[sets] + 1, mask=mid[sets] < 0),
            pa.array((c.epoch if latest else c.epoch_prev)[sets].astype(np.int32)),
            pa.array((c.sss_epoch if latest else c.sss_epoch_prev)[sets].astype(np.int32)),
            sss,
            pa.array(pref + 1, mask=pref < 0),
            pa.repeat(pa.scalar(ts, TS), ns),
        ],
        schema=SYNC_STATE,
    )

    rep_set = np.repeat(sets, r)  # chunk-local set of each replica row
    slot = np.tile(np.arange(r, dtype=np.int64), ns)
    rep_cluster = cluster.take(pa.array(np.repeat(np.arange(ns), r)))
    rep_name = name.take(pa.array(np.repeat(np.arange(ns), r)))
    addr = pc.binary_join_element_wise(
        rep_name, pa.array((slot + 1).astype(str)), rep_cluster, pa.scalar(f"synth:{BROKER_PORT}"), "."
    )
    flat_reach = reach[sets].ravel()
    gone = ~flat_reach
    sel = (rep_set, slot)
    replicas = pa.Table.from_arrays(
        [
            rep_cluster,
            rep_name,
            pa.array(slot + 1),
            addr,
            pa.array(["slave", "master"], pa.string()).take(pa.array((mid[rep_set] == slot).astype(np.int8))),
            pa.array(c.alive[sel]),
            pa.array(insync[sel]),
            pa.array(c.pref[rep_set] == slot),
            pa.array(flat_reach),
            pa.array([None, REPLICA_ERROR], pa.string()).take(pa.array(gone.astype(np.int8))),
            pa.array(c.minoff[sel], mask=gone),
            pa.array(mx[sel], mask=gone),
            pa.array(conf[sel], mask=gone),
            pa.repeat(pa.scalar(ts, TS), ns * r),
        ],
        schema=REPLICAS,
    )

    w = c.ep.shape[2]
    entry = (np.arange(w)[None, None, :] < k[:, :, None]) & reach[:, :, None]
    end = np.empty_like(c.st)
    end[:, :, :-1] = c.st[:, :, 1:]
    np.put_along_axis(end, (k - 1)[:, :, None], mx[:, :, None], axis=2)
    set_of, slot_of, _ = np.nonzero(entry)
    # Row index of each entry's replica in the replicas table just built (its sets are `sets`, in order).
    position = np.full(n, -1, dtype=np.int64)
    position[sets] = np.arange(ns)
    rep_row = pa.array(position[set_of] * r + slot_of)
    epoch_entries = pa.Table.from_arrays(
        [
            rep_cluster.take(rep_row),
            rep_name.take(rep_row),
            pa.array(slot_of + 1),
            addr.take(rep_row),
            pa.array(c.ep[entry].astype(np.int32)),
            pa.array(c.st[entry]),
            pa.array(end[entry]),
            pa.repeat(pa.scalar(ts, TS), len(set_of)),
        ],
        schema=EPOCH_ENTRIES,
    )
    return {"sync_state": sync_state, "replicas": replicas, "epoch_entries": epoch_entries}


def _expected(
    plan: _Plan,
    sets: int,
    replicas: int,
    snapshots: int,
    found: dict[str, list[dict[str, Any]]],
    in_sync: int,
    unreachable_replicas: int,
    max_lag: int | None,
) -> dict[str, Any]:
    """The report's fleet figures, from what was injected: each kind moves only the figures listed here."""
    for items in found.values():
        items.sort(key=lambda d: (d["cluster"], d["brokerName"]))
    reachable = int((~plan.unreachable).sum())
    changed = [d for kind in sorted(CHANGE_KINDS) for d in found[kind]]
    truncating = [
        d for kind in ("diverged", "extra_epoch", "unclean_confirmed") for d in found[kind] if "brokerId" in d
    ]
    fleet = {
        "clusters": len(plan.cluster_names),
        "unreachableClusters": len(plan.cluster_names) - reachable,
        "sets": reachable * sets,
        "setsWithoutMaster": len(found["no_master"]),
        "replicas": reachable * sets * replicas,
        "inSyncReplicas": in_sync,
        "unreachableReplicas": unreachable_replicas,
        # Null without any value to add up (no previous snapshot), as maxLag is without a known master.
        "masterChanges": sum(d["masterChanges"] for d in changed) if snapshots >= 2 and reachable * sets else None,
        "divergentSets": len(found["diverged"]) + len(found["extra_epoch"]),
        "replicasTruncating": len(truncating),
        "predictedTruncationBytes": sum(d["predictedTruncationBytes"] for d in truncating),
        "replicasWithoutConsistentPoint": len(found["no_consistent_point"]),
        "uncleanElections": len(found["unclean_confirmed"]) + len(found["unclean_not_in_sss"]),
        "preferredImbalance": len(found["preferred_imbalance"]),
        "maxLag": max_lag,
    }
    anomalies: dict[str, list[Any]] = {kind: found[kind] for kind in SET_KINDS}
    anomalies["unreachable_cluster"] = [
        {"cluster": name} for name, down in zip(plan.cluster_names, plan.unreachable.tolist(), strict=True) if down
    ]
    return {"fleet": fleet, "anomalies": anomalies}
