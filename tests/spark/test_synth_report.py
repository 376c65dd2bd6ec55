"""A synthetic fleet through the real Spark report: the report must give exactly the figures the
generator's manifest states, and the same per-set measures and worst lists as the pure-Python oracle of
``tests/harness/synth_oracle.py``. One small fleet (about 600 epoch entries) with every anomaly kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from spark.report import run_report
from spark.synth import SET_KINDS, Manifest, synthesize
from tests.harness.synth_oracle import ALL_KINDS, Oracle, SetFigures, oracle

TOP = 10


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Manifest]:
    out = tmp_path_factory.mktemp("synth-report") / "fleet"
    return out, synthesize(out, clusters=3, sets=8, replicas=3, epochs=4, seed=23, anomalies=ALL_KINDS)


@pytest.fixture(scope="module")
def summary(spark: SparkSession, fleet: tuple[Path, Manifest]) -> dict[str, Any]:
    report = run_report(spark, fleet[0], top=TOP)
    try:
        return report.summary(details=True)
    finally:
        report.unpersist()


def worst(got: Oracle, top: int) -> dict[str, list[dict[str, Any]]]:
    """docs/analytics.md's worst lists from the oracle: value descending, then cluster and broker name."""
    measures: dict[str, Any] = {
        "maxLag": lambda f: f.max_lag,
        "predictedTruncationBytes": lambda f: f.truncation_bytes,
        "masterChanges": lambda f: f.master_changes,
        "divergence": lambda f: f.divergence,
    }
    lists = {}
    for name, value in measures.items():
        ranked = sorted(
            ((value(f), f.cluster, f.broker) for f in got.sets.values() if value(f)), key=lambda t: (-t[0], t[1], t[2])
        )
        lists[name] = [{"cluster": c, "brokerName": b, "value": v} for v, c, b in ranked[:top]]
    return lists


def test_fleet_figures_are_the_manifests(summary: dict[str, Any], fleet: tuple[Path, Manifest]) -> None:
    assert summary["fleet"] == fleet[1].expected["fleet"]


def test_worst_lists_match_the_oracle(summary: dict[str, Any], fleet: tuple[Path, Manifest]) -> None:
    expected = worst(oracle(fleet[0]), TOP)
    assert summary["worst"] == expected
    assert len(expected["maxLag"]) == TOP  # the cut is exercised
    assert {(d["cluster"], d["brokerName"]) for d in expected["divergence"]} == {
        (d["cluster"], d["brokerName"])
        for kind in ("diverged", "extra_epoch")
        for d in fleet[1].expected["anomalies"][kind]
    }


def _figures(f: SetFigures) -> dict[str, Any]:
    return {
        "noMaster": f.no_master,
        "replicas": f.replicas,
        "inSyncReplicas": f.in_sync,
        "unreachableReplicas": f.unreachable,
        "maxLag": f.max_lag,
        "masterChanges": f.master_changes,
        "conflictingEpochs": f.conflicting,
        "divergent": f.divergent,
        "replicasTruncating": f.truncating,
        "predictedTruncationBytes": f.truncation_bytes or 0,
        "replicasWithoutConsistentPoint": f.no_consistent_point,
        "uncleanElection": f.unclean_reason is not None,
        "uncleanReason": f.unclean_reason,
        "preferredImbalance": f.preferred_imbalance,
    }


def test_every_set_matches_the_oracle(summary: dict[str, Any], fleet: tuple[Path, Manifest]) -> None:
    got = oracle(fleet[0])
    rows = {(s["cluster"], s["brokerName"]): s for s in summary["sets"]}
    assert rows.keys() == got.sets.keys()
    for key, f in got.sets.items():
        expected = _figures(f)
        assert {k: rows[key][k] for k in expected} == expected, key


def test_anomalies_are_where_the_manifest_says(summary: dict[str, Any], fleet: tuple[Path, Manifest]) -> None:
    listed = fleet[1].expected["anomalies"]
    sets = summary["sets"]

    def where(column: str, value: Any = True) -> set[tuple[str, str]]:
        return {(s["cluster"], s["brokerName"]) for s in sets if s[column] == value}

    def kinds(*names: str) -> set[tuple[str, str]]:
        return {(d["cluster"], d["brokerName"]) for name in names for d in listed[name]}

    assert all(listed[kind] for kind in SET_KINDS)
    assert where("noMaster") == kinds("no_master")
    assert where("divergent") == kinds("diverged", "extra_epoch")
    assert {k for k in where("replicasWithoutConsistentPoint", 1)} == kinds("no_consistent_point")
    assert where("unreachableReplicas", 1) == kinds("unreachable_replica")
    assert where("uncleanReason", "confirmed data lost") == kinds("unclean_confirmed")
    assert where("uncleanReason", "not in previous SyncStateSet") == kinds("unclean_not_in_sss")
    assert where("preferredImbalance") == kinds("preferred_imbalance")
    changed = {(s["cluster"], s["brokerName"]) for s in sets if s["masterChanges"]}
    assert changed == kinds("master_change", "unclean_confirmed", "unclean_not_in_sss")
    down = {c["cluster"] for c in summary["clusters"] if not c["reachable"]}
    assert down == {d["cluster"] for d in listed["unreachable_cluster"]}

    replicas = {(r["cluster"], r["brokerName"], r["brokerId"]): r for r in summary["replicas"]}
    for kind in ("diverged", "extra_epoch", "unclean_confirmed"):
        for d in listed[kind]:
            if "predictedTruncationBytes" in d:
                r = replicas[(d["cluster"], d["brokerName"], d["brokerId"])]
                assert r["predictedTruncationBytes"] == d["predictedTruncationBytes"] > 0
    for d in listed["no_consistent_point"]:
        r = replicas[(d["cluster"], d["brokerName"], d["brokerId"])]
        assert (r["noConsistentPoint"], r["consistentPoint"], r["lag"]) == (True, None, d["lag"])
