"""``mqadmin epochs collect|report|synth``: fleet analytics over epoch caches (docs/analytics.md).

collect needs pyarrow, report PySpark and Java 17, synth numpy and pyarrow: all come with the ``spark`` extra and
are imported inside the commands, so the rest of mqadmin starts without them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, TypedDict

import typer

from mqadmin_py.commands.common import key_values, seconds_option
from mqadmin_py.options import OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table
from mqbase.errors import Interrupted, MqError, OperationFailed, SparkUnavailable, UsageError

app = typer.Typer(help="Fleet analytics: collect epoch caches across clusters, report on them with PySpark.")

OutOpt = Annotated[Path, typer.Option("--out", help="Dataset directory to append the snapshot to (created).")]
SPARK_EXTRA = "install the analytics extra: pip install 'mqadmin-py[spark]' (pyspark, pyarrow, pandas)"


class MissingDependency(MqError):
    """The spark extra is not installed (exit 1: nothing was done)."""


class ExecutorFailed(MqError):
    """The report's Python step raised on an executor (exit 1), e.g. an interpreter there without pyarrow."""


EXECUTOR_PYTHON = (
    "executors need Python 3.11 with pyarrow and pandas: Spark runs the driver's $PYSPARK_PYTHON there, else "
    "python3 from the workers' PATH (docs/analytics.md)"
)


def _need(module: str) -> None:
    import importlib.util

    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent package is missing
        found = False
    if not found:
        raise MissingDependency(f"this command needs {module}; {SPARK_EXTRA}")


@contextmanager
def _progress(total: int, what: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr when it is a terminal (stdout stays clean for -o json); yields advance(n)."""
    if not sys.stderr.isatty():
        yield lambda _n: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=total)
        yield lambda n: bar.advance(task, n)


# --- collect ---------------------------------------------------------------------------------------------


def _read_fleet(path: Path) -> dict[str, str]:
    """The fleet file: a JSON object, cluster name → controller addresses (';'-separated string or a list)."""
    try:
        doc = json.loads(path.read_text())
    except OSError as exc:
        raise UsageError(f"--fleet {path}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise UsageError(f"--fleet {path}: not JSON ({exc})") from exc
    if not isinstance(doc, dict) or not doc:
        raise UsageError(f'--fleet {path}: expected a JSON object {{"cluster": "host:port;host:port", ...}}')
    fleet: dict[str, str] = {}
    for name, addresses in doc.items():
        if isinstance(addresses, list) and addresses and all(isinstance(a, str) for a in addresses):
            addresses = ";".join(addresses)
        if not isinstance(addresses, str) or not addresses.strip():
            raise UsageError(f"--fleet {path}: cluster {name!r} needs controller addresses ('h:p;h:p' or a list)")
        fleet[name] = addresses
    return fleet


def _collect_cluster(snap: Any, cluster: str, controllers: str, timeout: float, advance: Callable[[int], None]) -> None:
    from mqadmin_py.commands.broker import fetch_broker_epochs
    from mqadmin_py.commands.common import agent_client, controller_client
    from mqadmin_py.commands.controller import fetch_sync_state
    from spark.collect import add_cluster, add_unreachable_cluster

    try:
        with controller_client(controllers, timeout) as client, agent_client(timeout) as agents:
            try:
                sets = fetch_sync_state(client, None, cluster)
            except OperationFailed as exc:
                if exc.code != 2008:  # CONTROLLER_BROKER_METADATA_NOT_EXIST: a cluster with no set yet
                    raise
                sets = []
            epochs = fetch_broker_epochs(client, agents, [s["brokerName"] for s in sets], None) if sets else []
    except MqError as exc:
        add_unreachable_cluster(snap, cluster, controllers, str(exc))
    else:
        add_cluster(snap, cluster, controllers, sets, epochs)
    advance(1)


def collect(
    out: OutOpt,
    fleet: Annotated[
        Path | None, typer.Option("--fleet", help="JSON file: cluster name → controller addresses.", show_default=False)
    ] = None,
    controllers: Annotated[
        str | None,
        typer.Option(
            "-a", "--controllerAddress", help="Controllers of one cluster (with --cluster-name).", show_default=False
        ),
    ] = None,
    cluster_name: Annotated[
        str | None, typer.Option("-c", "--cluster-name", "--clusterName", help="The cluster -a serves.")
    ] = None,
    from_stores: Annotated[
        list[Path] | None,
        typer.Option(
            "--from-stores", help="Read stopped brokers' store directories instead (repeatable).", show_default=False
        ),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 if any cluster or replica was unreachable.")] = False,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """Append one snapshot of every cluster's SyncStateSet data and every replica's epoch cache to a dataset.

    Clusters are asked concurrently (replicas too); an unreachable cluster or replica is recorded as such, not
    skipped. With --from-stores, epoch files and offsets are read from broker store directories in place (nothing
    is written to them), for post-mortems when a cluster is down.
    """
    sources = sum(x is not None for x in (fleet, cluster_name, from_stores or None))
    if sources != 1:
        raise UsageError("give exactly one source: --fleet FILE, -a CONTROLLERS --cluster-name NAME, or --from-stores")
    if cluster_name is not None and not controllers:
        raise UsageError("--cluster-name needs -a/--controllerAddress (the cluster's controllers)")
    _need("pyarrow")
    from concurrent.futures import ThreadPoolExecutor

    from spark.collect import Snapshot, StoreError, add_stores, find_store_roots, read_store
    from spark.dataset import now, rows_table, write_snapshot

    snap = Snapshot(now())
    if from_stores:
        try:
            stores = [read_store(root) for root in find_store_roots(from_stores)]
        except StoreError as exc:
            raise UsageError(str(exc)) from exc
        add_stores(snap, stores)
    else:
        clusters = _read_fleet(fleet) if fleet is not None else {str(cluster_name): str(controllers)}
        try:
            with _progress(len(clusters), "collecting") as advance, ThreadPoolExecutor(min(8, len(clusters))) as pool:
                for f in [pool.submit(_collect_cluster, snap, c, a, timeout, advance) for c, a in clusters.items()]:
                    f.result()
        except KeyboardInterrupt:  # the pool has let its calls end (each within --timeout)
            raise Interrupted(f"interrupted while collecting: nothing was written to {out}") from None
    files = write_snapshot(out, {name: rows_table(name, rows) for name, rows in snap.tables.items()}, snap.ts)
    doc = _collect_doc(out, snap, files)
    emit(doc, output, _collect_table)
    if strict and (doc["unreachableClusters"] or doc["unreachableReplicas"]):
        raise MqError(
            f"{doc['unreachableClusters']} cluster(s) and {doc['unreachableReplicas']} replica(s) unreachable "
            "(recorded in the snapshot)"
        )


class CollectClusterDoc(TypedDict):
    cluster: str
    reachable: bool
    error: str | None
    brokerSets: int
    replicas: int
    unreachableReplicas: int


class CollectDoc(TypedDict):
    """``epochs collect``: ``rows`` and ``files`` are keyed by the snapshot's table names."""

    out: str
    snapshotTs: str
    clusters: list[CollectClusterDoc]
    unreachableClusters: int
    unreachableReplicas: int
    rows: dict[str, int]
    files: dict[str, str]


def _collect_doc(out: Path, snap: Any, files: dict[str, Path]) -> CollectDoc:
    replicas = snap.tables["replicas"]
    clusters: list[CollectClusterDoc] = [
        {
            "cluster": c["cluster"],
            "reachable": c["reachable"],
            "error": c["error"],
            "brokerSets": c["brokerSets"],
            "replicas": sum(r["cluster"] == c["cluster"] for r in replicas),
            "unreachableReplicas": sum(r["cluster"] == c["cluster"] and not r["reachable"] for r in replicas),
        }
        for c in sorted(snap.tables["clusters"], key=lambda c: c["cluster"])
    ]
    return {
        "out": str(out),
        "snapshotTs": snap.ts.isoformat(),
        "clusters": clusters,
        "unreachableClusters": sum(not c["reachable"] for c in clusters),
        "unreachableReplicas": sum(not r["reachable"] for r in replicas),
        "rows": snap.counts(),
        "files": {name: str(path) for name, path in files.items()},
    }


def _collect_table(doc: CollectDoc) -> None:
    rows = [
        [c["cluster"], "yes" if c["reachable"] else f"NO: {c['error']}", c["brokerSets"], c["replicas"],
         c["unreachableReplicas"]]
        for c in doc["clusters"]
    ]  # fmt: skip
    emit_table(f"Snapshot {doc['snapshotTs']} → {doc['out']}", ["Cluster", "Reachable", "Sets", "Replicas",
               "Unreachable replicas"], rows)  # fmt: skip
    print("rows: " + ", ".join(f"{name} {n}" for name, n in doc["rows"].items()))


# --- report ----------------------------------------------------------------------------------------------


def _parse_since(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        value = datetime.fromtimestamp(int(text) / 1000, UTC) if text.isdigit() else datetime.fromisoformat(text)
    except (ValueError, OverflowError) as exc:
        hint = "give an ISO-8601 time (2026-11-22T10:00:00Z) or epoch milliseconds"
        raise UsageError(f"--since {text!r}: {hint}") from exc
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def report(
    input_dir: Annotated[Path, typer.Option("--input", help="Dataset directory written by collect or synth.")],
    master: Annotated[
        str | None, typer.Option("--master", help="Spark master URL (default local[*]: this machine, all cores).")
    ] = None,
    remote: Annotated[
        str | None,
        typer.Option(
            "--remote",
            envvar="SPARK_REMOTE",
            help="Spark Connect server to run on instead, sc://host:port (e.g. one 'mqadmin epochs serve' keeps warm; "
            "its token from $SPARK_CONNECT_AUTHENTICATE_TOKEN).",
            show_default=False,
        ),
    ] = None,
    since: Annotated[
        str | None, typer.Option("--since", help="Ignore snapshots before this time (ISO-8601 or epoch ms).")
    ] = None,
    top: Annotated[int, typer.Option("--top", help="Broker sets in each worst-N list.", min=1)] = 10,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write the report tables as Parquet here.", show_default=False)
    ] = None,
    details: Annotated[bool, typer.Option("--details", help="Include every set and replica in the output.")] = False,
    conf: Annotated[
        list[str] | None,
        typer.Option(
            "--conf",
            help="Spark setting KEY=VALUE, repeatable, as spark-submit --conf (e.g. spark.driver.memory=3g: the "
            "default 1g is too small for ~100 M epoch rows in local mode).",
            show_default=False,
        ),
    ] = None,
    output: OutputOpt = Output.table,
) -> None:
    """Aggregate the dataset with PySpark: masters, lag, master changes, divergence, predicted truncation (the
    agents' own truncation code), unclean elections, preferred-master imbalance; per set, cluster and fleet.

    Runs locally on all cores by default; --master spark://… (or yarn, k8s://…) runs the same job on a cluster,
    as does spark-submit spark/report.py; --remote runs it on a Spark Connect server, which stays warm between
    reports. Definitions: docs/analytics.md.
    """
    when = _parse_since(since)
    settings = key_values(conf, "--conf")
    if master is not None and remote is not None:
        raise UsageError("--master and --remote (or $SPARK_REMOTE) both given: choose one")
    server_side = sorted(key for key in settings if remote is not None and not key.startswith("spark.sql."))
    if server_side:
        raise UsageError(f"--conf {', '.join(server_side)}: a Spark Connect session takes only spark.sql.* settings; "
                         "give the others to the server ('mqadmin epochs serve --conf ...')")  # fmt: skip
    _need("pyspark")
    from spark.dataset import DatasetError, check_dataset

    try:
        check_dataset(input_dir)  # before paying for a JVM
    except DatasetError as exc:
        raise UsageError(str(exc)) from exc
    if remote is None:
        _need_java(master or "local[*]")
    else:
        _need_connect()
    with _jvm_log(remote is None) as log:
        doc = _run_report(input_dir, master, remote, settings, when, top, details, out, log)
    emit(doc, output, _report_table)


def _run_report(
    input_dir: Path, master: str | None, remote: str | None, settings: dict[str, str], when: datetime | None,
    top: int, details: bool, out: Path | None, log: Path | None,
) -> dict[str, Any]:  # fmt: skip
    """The report's document, built on a session of its own (stopped after), with stage progress on a terminal
    and Ctrl-C cancelling its jobs (Interrupted, once they have stopped)."""
    from pyspark.errors import PythonException

    from spark.dataset import DatasetError
    from spark.progress import SparkWatch
    from spark.report import run_report
    from spark.session import build_session

    session = _connected(lambda: build_session(master, conf=settings, remote=remote, jvm_log=log), remote)
    try:
        with _stage_progress() as show, SparkWatch(session, show, _stopping) as watch:
            try:
                result = run_report(session, input_dir, since=when, top=top)
                try:
                    doc = result.summary(details=details)
                    if out is not None:
                        result.write(out)
                finally:
                    result.unpersist()  # a Connect server outlives this client: leave nothing cached on it
            except Exception:
                if not watch.interrupted.is_set():
                    raise
            if watch.interrupted.is_set():  # the job failed as cancelled, or finished before the cancel reached it
                written = f"; {out} may hold part of the tables" if out is not None else ""
                kept = f"; Spark's output is in {log}" if log is not None else ""
                raise Interrupted(
                    f"interrupted: the report's Spark jobs were cancelled, nothing printed{written}{kept}"
                )
    except DatasetError as exc:
        raise UsageError(str(exc)) from exc
    except PythonException as exc:  # its message is the worker's whole traceback: its last line says what
        why = _last_line(exc)
        raise ExecutorFailed(f"the report's Python step failed on an executor: {why}; {EXECUTOR_PYTHON}") from exc
    finally:
        session.stop()
    return doc


@contextmanager
def _jvm_log(local: bool) -> Iterator[Path | None]:
    """The file a JVM this process starts writes its output to (Spark's log4j lines, Python workers' tracebacks):
    kept, and named on stderr, when the report fails or is interrupted; removed when it succeeds. None (nothing
    to keep) for a report on a Spark Connect server, whose JVM is the server's."""
    if not local:
        yield None
        return
    import logging
    import tempfile

    fd, name = tempfile.mkstemp(prefix="mqadmin-epochs-report-", suffix=".log")
    os.close(fd)
    log = Path(name)
    handler = logging.FileHandler(log)  # py4j logs its connection errors on the root logger: to the log too
    logging.getLogger().addHandler(handler)
    try:
        yield log
    except BaseException as exc:
        if not isinstance(exc, Interrupted):  # that one names the log itself
            print(f"mqadmin: Spark's output (JVM, log4j, Python workers) is in {log}", file=sys.stderr)
        raise
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()
    log.unlink(missing_ok=True)


def _stopping() -> None:
    print("mqadmin: stopping the report: cancelling its Spark jobs (Ctrl-C again to quit at once)", file=sys.stderr,
          flush=True)  # fmt: skip


@contextmanager
def _stage_progress() -> Iterator[Callable[[int, int], None]]:
    """A progress bar of the report's Spark stages (done / known so far: later jobs add stages) on stderr when it
    is a terminal; yields show(done, known)."""
    if not sys.stderr.isatty():
        yield lambda _done, _known: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("Spark stages", total=None)
        yield lambda done, known: bar.update(task, completed=done, total=known,
                                             description=f"Spark stages {done}/{known}")  # fmt: skip


def _last_line(exc: BaseException) -> str:
    """The last line of `exc`'s message: the exception a Python worker's traceback ends with."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


def _need_java(master: str) -> None:
    if master.startswith("local") and shutil.which("java") is None:
        raise MissingDependency("the report runs on Spark, which needs Java 17 (java on PATH or JAVA_HOME)")


def _need_connect() -> None:
    for module in ("grpc_status", "google.rpc", "zstandard"):
        _need(module)


def _connected(build: Callable[[], Any], remote: str | None) -> Any:
    """`build()`, with a Connect server that cannot be reached turned into an error that says what to check."""
    if remote is None:
        return build()
    import grpc
    from pyspark.errors import PySparkException

    from spark.connect import ConnectServerError, check_reachable

    hint = "Is it running ('mqadmin epochs serve'), and is $SPARK_CONNECT_AUTHENTICATE_TOKEN its token?"
    try:
        check_reachable(remote)
        return build()
    except (ConnectServerError, PySparkException, ValueError, grpc.RpcError) as exc:
        raise SparkUnavailable(f"cannot use the Spark Connect server at {remote}: {_why(exc)}. {hint}") from exc


def _why(exc: BaseException) -> str:
    """The gRPC status behind `exc` if there is one (PySpark wraps it: a wrong token is UNAUTHENTICATED), else
    the first line of its message."""
    import grpc

    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, grpc.Call):
            return f"{cause.code().name}: {cause.details()}"
        cause = cause.__cause__ or cause.__context__
    return (str(exc).strip() or type(exc).__name__).splitlines()[0]


_ROLLUP = [
    ("sets", "Sets"),
    ("setsWithoutMaster", "No master"),
    ("replicas", "Replicas"),
    ("inSyncReplicas", "In sync"),
    ("unreachableReplicas", "Unreachable"),
    ("masterChanges", "Master changes"),
    ("divergentSets", "Divergent sets"),
    ("replicasTruncating", "Truncating"),
    ("predictedTruncationBytes", "Truncation bytes"),
    ("replicasWithoutConsistentPoint", "No consistent point"),
    ("uncleanElections", "Unclean"),
    ("preferredImbalance", "Not preferred"),
    ("maxLag", "Max lag"),
]


def _report_table(doc: dict[str, Any]) -> None:  # spark.report.Report.summary(): built in spark/, not here
    fleet = doc["fleet"]
    print(f"Fleet report over {doc['snapshots']} snapshot(s), latest {doc['latestSnapshotTs']}: "
          f"{fleet['clusters']} cluster(s), {fleet['unreachableClusters']} unreachable")  # fmt: skip
    rows = [[c["cluster"] + ("" if c["reachable"] else " (unreachable)"), *(c[k] for k, _ in _ROLLUP)]
            for c in doc["clusters"]]  # fmt: skip
    rows.append(["FLEET", *(fleet[k] for k, _ in _ROLLUP)])
    emit_table("Per cluster", ["Cluster", *(title for _, title in _ROLLUP)], rows)
    for measure, items in doc["worst"].items():
        if items:
            emit_table(f"Worst by {measure}", ["Cluster", "Broker set", measure],
                       [[i["cluster"], i["brokerName"], i["value"]] for i in items])  # fmt: skip


# --- serve -----------------------------------------------------------------------------------------------


def serve(
    port: Annotated[int, typer.Option("--port", help="Port on 127.0.0.1 (0: any free one).", min=0, max=65535)] = 15002,
    master: Annotated[
        str, typer.Option("--master", help="Spark master the server runs its jobs on (default: this machine).")
    ] = "local[*]",
    conf: Annotated[
        list[str] | None,
        typer.Option(
            "--conf",
            help="Server Spark setting KEY=VALUE, repeatable (e.g. spark.driver.memory=3g for ~100 M epoch rows).",
            show_default=False,
        ),
    ] = None,
    start_timeout: Annotated[
        float, seconds_option("--start-timeout", help="Seconds to wait for the server to listen.", minimum=1)
    ] = 180.0,
    output: OutputOpt = Output.table,
) -> None:
    """Run a Spark Connect server for 'epochs report --remote' until Ctrl-C or SIGTERM.

    A one-shot report starts a JVM and warms it up (the JIT) every time; this server does that once, so repeated
    reports (dashboards, runbooks) run on a warm JVM. It listens on 127.0.0.1 only and requires a token: the one in
    $SPARK_CONNECT_AUTHENTICATE_TOKEN, else a new one, printed. The server's output goes to stderr.
    """
    settings = key_values(conf, "--conf")
    _need("pyspark")
    _need_java(master)
    from spark.connect import TOKEN_ENV, ConnectServerError, start_server

    generated = not os.environ.get(TOKEN_ENV)
    previous = signal.signal(signal.SIGTERM, _interrupt)  # from here on, SIGTERM stops the server with us
    try:
        try:
            server = start_server(port, master, settings, ready_timeout=start_timeout)
        except ValueError as exc:  # a reserved --conf
            raise UsageError(f"--conf {exc}") from exc
        except ConnectServerError as exc:
            raise SparkUnavailable(str(exc)) from exc
        try:
            doc: ServeDoc = {
                "url": server.url,
                "port": server.port,
                "pid": server.pid,
                "master": master,
                "tokenEnv": TOKEN_ENV,
                "token": server.token if generated else None,  # never echo a token the operator chose
            }
            emit(doc, output, _serve_table)
            sys.stdout.flush()
            status = server.process.wait()
        finally:
            server.stop()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM, while starting (start_server stopped it) or serving
        return
    finally:
        signal.signal(signal.SIGTERM, previous)
    raise SparkUnavailable(f"the Spark Connect server (pid {server.pid}) exited on its own with status {status}")


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


class ServeDoc(TypedDict):
    url: str
    port: int
    pid: int
    master: str
    tokenEnv: str
    token: str | None


def _serve_table(doc: ServeDoc) -> None:
    token = doc["token"] if doc["token"] is not None else f"${doc['tokenEnv']} (yours)"
    print(f"Spark Connect server ready at {doc['url']} (pid {doc['pid']}, master {doc['master']}); token: {token}")
    print("Reports from other shells:")
    print(f"  export SPARK_REMOTE={doc['url']}")
    if doc["token"] is not None:
        print(f"  export {doc['tokenEnv']}={doc['token']}")
    print("  mqadmin epochs report --input DIR")
    print("Ctrl-C stops it.")


# --- synth -----------------------------------------------------------------------------------------------


def synth(
    out: OutOpt,
    clusters: Annotated[int, typer.Option("--clusters", help="Clusters in the fleet.", min=1)] = 4,
    sets: Annotated[int, typer.Option("--sets", help="Broker sets per cluster.", min=1)] = 50,
    replicas: Annotated[int, typer.Option("--replicas", help="Replicas per broker set.", min=1)] = 3,
    epochs: Annotated[int, typer.Option("--epochs", help="Epoch entries per replica.", min=1)] = 20,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same fleet.")] = 1,
    snapshots: Annotated[int, typer.Option("--snapshots", help="Snapshots to write (one minute apart).", min=1)] = 2,
    output: OutputOpt = Output.table,
) -> None:
    """Write a synthetic fleet with injected anomalies of every kind in known numbers (for tests and benchmarks).

    The manifest (out/manifest.json, also printed) lists the parameters, the rows written, where each anomaly
    was injected and the exact fleet figures the report must find.
    """
    _need("pyarrow")
    from spark.synth import synthesize

    with _progress(clusters * sets, "generating") as advance:
        shown = 0

        def progress(done: int, _total: int) -> None:  # synthesize reports the sets done so far
            nonlocal shown
            advance(done - shown)
            shown = done

        try:
            manifest = synthesize(out, clusters, sets, replicas, epochs, seed, snapshots=snapshots, progress=progress)
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
    emit(manifest.to_dict(), output, _synth_table)


def _synth_table(doc: dict[str, Any]) -> None:  # spark.synth.Manifest.to_dict(): built in spark/, not here
    rows = ", ".join(f"{name} {n}" for name, n in doc["rows"].items())
    print(f"{doc['params']['clusters']} cluster(s) written; rows: {rows}")
    emit_table("Expected fleet figures", ["Measure", "Value"], [[k, v] for k, v in doc["expected"]["fleet"].items()])


app.command("collect")(collect)
app.command("report")(report)
app.command("serve")(serve)
app.command("synth")(synth)
