"""``mqadmin epochs collect`` without a cluster: rows from the CLI's documents, store directories read in place,
the dataset writer and checker, and the command's usage errors and unreachable clusters (no Spark here)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

pq = pytest.importorskip("pyarrow.parquet")

from typer.testing import CliRunner, Result  # noqa: E402

from agents.identity import Identity, IdentityFiles  # noqa: E402
from agents.store.commitlog import CommitLogError, read_only_bounds  # noqa: E402
from agents.store.epoch_file import EpochFile  # noqa: E402
from agents.store.epochs import EpochCache  # noqa: E402
from agents.store.message_store import MessageStore  # noqa: E402
from agents.store.record import Message  # noqa: E402
from mqadmin_py.app import app  # noqa: E402
from mqbase.errors import MqError, UsageError  # noqa: E402
from spark.collect import Snapshot, StoreError, add_cluster, add_stores, find_store_roots, read_store  # noqa: E402
from spark.dataset import DatasetError, check_dataset, now, rows_table, write_snapshot  # noqa: E402

SEG = 64 * 1024


def replica(broker_id: int, alive: bool = True) -> dict[str, Any]:
    return {"brokerId": broker_id, "brokerAddress": f"127.0.0.1:{30910 + broker_id}", "alive": alive}


SYNC_DOC = {
    "clusterName": "c1",
    "brokerName": "broker-a",
    "masterBrokerId": 1,
    "masterAddress": "127.0.0.1:30911",
    "masterEpoch": 3,
    "syncStateSetEpoch": 5,
    "preferredBrokerId": 2,
    "inSyncReplicas": [replica(1), replica(2)],
    "notInSyncReplicas": [replica(3, alive=False)],
}


def epoch_doc(broker_id: int, pairs: list[tuple[int, int]], max_offset: int) -> dict[str, Any]:
    ends = [s for _, s in pairs[1:]] + [max_offset]
    return {
        "brokerName": "broker-a",
        "brokerId": broker_id,
        "reachable": True,
        "error": None,
        "epochs": [{"epoch": e, "startOffset": s, "endOffset": end} for (e, s), end in zip(pairs, ends, strict=True)],
        "minOffset": 0,
        "maxOffset": max_offset,
        "confirmOffset": max_offset - 10,
    }


def test_rows_of_a_reachable_cluster() -> None:
    snap = Snapshot(now())
    dead = {"brokerName": "broker-a", "brokerId": 3, "reachable": False, "error": "UNAVAILABLE: connection refused"}
    epochs = [epoch_doc(1, [(1, 0), (3, 500)], 900), epoch_doc(2, [(1, 0), (3, 500)], 800), dead]
    add_cluster(snap, "c1", "127.0.0.1:9878", [SYNC_DOC], epochs)
    t = snap.tables
    assert t["clusters"] == [
        {"cluster": "c1", "controllers": "127.0.0.1:9878", "reachable": True, "error": None, "brokerSets": 1,
         "source": "controller", "snapshotTs": snap.ts}
    ]  # fmt: skip
    (s,) = t["sync_state"]
    assert (s["masterBrokerId"], s["masterEpoch"], s["syncStateSetEpoch"], s["syncStateSet"]) == (1, 3, 5, [1, 2])
    flags = [(r["brokerId"], r["role"], r["inSync"], r["alive"], r["preferred"], r["reachable"]) for r in t["replicas"]]
    assert flags == [
        (1, "master", True, True, False, True),
        (2, "slave", True, True, True, True),
        (3, "slave", False, False, False, False),
    ]  # fmt: skip
    r3 = t["replicas"][2]
    assert (r3["error"], r3["maxOffset"], r3["confirmOffset"]) == ("UNAVAILABLE: connection refused", None, None)
    assert [(e["brokerId"], e["epoch"], e["startOffset"], e["endOffset"]) for e in t["epoch_entries"]] == [
        (1, 1, 0, 500), (1, 3, 500, 900), (2, 1, 0, 500), (2, 3, 500, 800)
    ]  # fmt: skip
    assert snap.counts() == {"clusters": 1, "sync_state": 1, "replicas": 3, "epoch_entries": 4}


def test_a_snapshot_round_trips_through_parquet_and_passes_the_check(tmp_path: Path) -> None:
    snap = Snapshot(now())
    add_cluster(snap, "c1", "a:1", [SYNC_DOC], [epoch_doc(1, [(1, 0)], 100)])
    files = write_snapshot(tmp_path, {n: rows_table(n, rows) for n, rows in snap.tables.items()}, snap.ts)
    check_dataset(tmp_path)
    assert set(files) == {"clusters", "sync_state", "replicas", "epoch_entries"}
    replicas = pq.read_table(files["replicas"]).to_pylist()
    assert [r["brokerId"] for r in replicas] == [1, 2, 3]
    assert replicas[0]["snapshotTs"] == snap.ts
    assert not list(tmp_path.rglob(".*.tmp"))  # no temporary file left behind


def test_check_dataset_names_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such directory"):
        check_dataset(tmp_path / "nope")
    with pytest.raises(DatasetError, match="table clusters is missing or empty"):
        check_dataset(tmp_path)
    snap = Snapshot(now())
    add_cluster(snap, "c1", "a:1", [SYNC_DOC], [])
    files = write_snapshot(tmp_path, {n: rows_table(n, rows) for n, rows in snap.tables.items()}, snap.ts)
    pq.write_table(pq.read_table(files["replicas"]).drop_columns(["maxOffset"]), files["replicas"])
    with pytest.raises(DatasetError, match="column maxOffset of table replicas is missing"):
        check_dataset(tmp_path)
    files["replicas"].write_bytes(b"not parquet at all")
    with pytest.raises(DatasetError, match="not a readable Parquet file"):
        check_dataset(tmp_path)


# --- store directories -----------------------------------------------------------------------------------


def make_store(root: Path, broker_id: int, pairs: list[tuple[int, int]], messages: int) -> int:
    """A stopped broker's store: identity, epoch file, commit log with `messages` records; returns maxOffset."""
    IdentityFiles(root).commit(Identity("c1", "broker-a", broker_id))
    EpochFile(root / "epochFileCheckpoint").save(EpochCache.from_pairs(pairs))
    store = MessageStore(root / "store", SEG)
    try:
        if messages:
            store.put([Message("T", 0, f"m{i}".encode() * 20, {}, 1) for i in range(messages)])
            store.set_confirm_offset(store.max_offset)
        store.flush()
        return store.max_offset
    finally:
        store.close()


def digest(root: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_store_is_read_in_place_without_writing(tmp_path: Path) -> None:
    end = make_store(tmp_path / "b1", 1, [(1, 0), (2, 40)], 30)
    before = digest(tmp_path)
    st = read_store(tmp_path / "b1")
    assert (st.cluster, st.broker_name, st.broker_id) == ("c1", "broker-a", 1)
    assert (st.min_offset, st.max_offset, st.confirm_offset, st.epochs) == (0, end, end, ((1, 0), (2, 40)))
    assert digest(tmp_path) == before


def test_a_torn_tail_is_not_counted_and_not_cut(tmp_path: Path) -> None:
    end = make_store(tmp_path / "b1", 1, [(1, 0)], 5)
    segment = tmp_path / "b1" / "store" / "commitlog" / f"{0:020d}"
    with open(segment, "r+b") as f:  # half a record after the last one, as a crash mid-append leaves it
        f.seek(end)
        f.write(b"\x00\x00\x01\x00MQM2 torn")
    before = digest(tmp_path)
    assert read_only_bounds(tmp_path / "b1" / "store" / "commitlog") == (0, end)
    assert digest(tmp_path) == before


def test_read_only_bounds_refuses_what_is_not_a_log(tmp_path: Path) -> None:
    (tmp_path / "log").mkdir()
    with pytest.raises(CommitLogError, match="no commit-log segment files"):
        read_only_bounds(tmp_path / "log")
    (tmp_path / "log" / f"{0:020d}").write_bytes(bytes(4096))
    (tmp_path / "log" / f"{8192:020d}").write_bytes(bytes(4096))
    with pytest.raises(CommitLogError, match="do not follow on"):
        read_only_bounds(tmp_path / "log")


def test_stores_become_a_snapshot_with_the_highest_epoch_as_master(tmp_path: Path) -> None:
    make_store(tmp_path / "a1" / "b1", 1, [(1, 0), (2, 40)], 10)
    end2 = make_store(tmp_path / "a2" / "b2", 2, [(1, 0), (2, 40), (3, 900)], 12)
    roots = find_store_roots([tmp_path])
    assert roots == [tmp_path / "a1" / "b1", tmp_path / "a2" / "b2"]
    snap = Snapshot(now())
    add_stores(snap, [read_store(r) for r in roots])
    (s,) = snap.tables["sync_state"]
    assert (s["cluster"], s["brokerName"], s["masterBrokerId"], s["masterEpoch"]) == ("c1", "broker-a", 2, 3)
    assert [(r["brokerId"], r["role"], r["brokerAddr"]) for r in snap.tables["replicas"]] == [
        (1, "slave", None), (2, "master", None)
    ]  # fmt: skip
    last = [e for e in snap.tables["epoch_entries"] if e["brokerId"] == 2][-1]
    assert (last["epoch"], last["startOffset"], last["endOffset"]) == (3, 900, end2)
    assert snap.tables["clusters"][0]["source"] == "stores"


def test_find_store_roots_says_where_nothing_was_found(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no broker store below it"):
        find_store_roots([tmp_path])
    with pytest.raises(StoreError, match="no such directory"):
        find_store_roots([tmp_path / "missing"])


def test_a_damaged_epoch_file_is_a_store_error(tmp_path: Path) -> None:
    make_store(tmp_path / "b1", 1, [(1, 0)], 1)
    (tmp_path / "b1" / "epochFileCheckpoint").write_text("garbage")
    (tmp_path / "b1" / "epochFileCheckpoint.bak").unlink(missing_ok=True)
    with pytest.raises(StoreError, match="epoch file"):
        read_store(tmp_path / "b1")


# --- the command ------------------------------------------------------------------------------------------

runner = CliRunner()


def invoke(*args: str) -> Result:
    return runner.invoke(app, ["epochs", "collect", *args], env={"MQADMIN_CONTROLLERS": ""})


def exit_code(result: Result) -> int:
    """The exit code ``mqadmin`` would give (main() maps MqError to it)."""
    exc = result.exception
    return exc.exit_code if isinstance(exc, MqError) else result.exit_code


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--fleet", "f.json", "--from-stores", "x"],
        ["--fleet", "f.json", "-a", "h:1", "--cluster-name", "c"],
    ],
)
def test_collect_needs_exactly_one_source(tmp_path: Path, args: list[str]) -> None:
    result = invoke("--out", str(tmp_path / "out"), *args)
    assert exit_code(result) == 2
    assert "exactly one source" in str(result.exception)
    assert not (tmp_path / "out").exists()


def test_a_bad_fleet_file_is_a_usage_error(tmp_path: Path) -> None:
    fleet = tmp_path / "fleet.json"
    fleet.write_text('{"c1": ""}')
    result = invoke("--out", str(tmp_path / "out"), "--fleet", str(fleet))
    assert exit_code(result) == 2 and "needs controller addresses" in str(result.exception)
    fleet.write_text("[1, 2]")
    result = invoke("--out", str(tmp_path / "out"), "--fleet", str(fleet))
    assert exit_code(result) == 2 and "expected a JSON object" in str(result.exception)


def test_an_unreachable_cluster_is_recorded_and_strict_fails(tmp_path: Path) -> None:
    from mqbase.ports import free_ports

    (port,) = free_ports(1)
    fleet = tmp_path / "fleet.json"
    fleet.write_text(json.dumps({"gone": [f"127.0.0.1:{port}"]}))
    out = tmp_path / "out"
    result = invoke("--out", str(out), "--fleet", str(fleet), "--timeout", "0.5", "-o", "json")
    assert exit_code(result) == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["unreachableClusters"] == 1 and doc["clusters"][0]["reachable"] is False
    (row,) = pq.read_table(out / "clusters").to_pylist()
    assert (row["cluster"], row["reachable"], row["brokerSets"]) == ("gone", False, 0)
    assert row["error"]
    strict = invoke("--out", str(out), "--fleet", str(fleet), "--timeout", "0.5", "--strict", "-o", "json")
    assert exit_code(strict) == 1
    assert len(pq.read_table(out / "clusters")) == 2  # the strict run still recorded its snapshot


# --- epochs report: options checked before a JVM starts --------------------------------------------------------


def report_dataset(root: Path) -> Path:
    snap = Snapshot(now())
    add_cluster(snap, "c1", "a:1", [SYNC_DOC], [epoch_doc(1, [(1, 0)], 100)])
    write_snapshot(root, {n: rows_table(n, rows) for n, rows in snap.tables.items()}, snap.ts)
    return root


def test_report_conf_must_be_key_value(tmp_path: Path) -> None:
    dataset = report_dataset(tmp_path / "fleet")
    result = runner.invoke(app, ["epochs", "report", "--input", str(dataset), "--conf", "spark.driver.memory"])
    assert isinstance(result.exception, UsageError) and result.exception.exit_code == 2
    assert "--conf takes key=value, got 'spark.driver.memory'" in str(result.exception)


def test_report_conf_reaches_the_spark_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The settings go to ``build_session`` (which applies them over its defaults: tests/spark), the last of a
    repeated key winning, as with spark-submit."""
    pytest.importorskip("pyspark")
    import spark.session

    seen: dict[str, Any] = {}

    class Stop(Exception):
        pass

    def build_session(master: str | None = None, **kwargs: Any) -> None:
        seen.update(master=master, **kwargs)
        raise Stop

    monkeypatch.setattr(spark.session, "build_session", build_session)
    dataset = report_dataset(tmp_path / "fleet")
    args = ["--conf", "spark.driver.memory=1g", "--conf", " spark.driver.memory = 3g ", "--conf", "spark.x=a=b"]
    result = runner.invoke(app, ["epochs", "report", "--input", str(dataset), *args])
    assert isinstance(result.exception, Stop)
    log = seen.pop("jvm_log")  # a local session's JVM output goes to a log file of its own
    assert isinstance(log, Path) and log.name.startswith("mqadmin-epochs-report-")
    assert seen == {"master": None, "conf": {"spark.driver.memory": "3g", "spark.x": "a=b"}, "remote": None}
