"""The fleet report (mqadmin epochs report) in Spark against the same report in pandas, at 1 M, 10 M and 100 M rows.

The targets: at 10 M epoch rows the Spark report within 2× of pandas' wall time; at 100 M it completes with
the driver under 4 GiB where pandas runs out of memory or needs many times that; no row-at-a-time Python UDFs on
the hot path (the explain() of the report's plan is scanned for BatchEvalPython).

Fleets come from ``spark.synth.synthesize`` (4 clusters, 3 replicas per set, 20 epochs per replica; sets scaled
to the row count) and are cached under ``--data`` (a fleet is reused when its parameters match). Every run is a
fresh child process of this script: the Spark child builds its session with ``spark.session.build_session``
(``spark.driver.memory`` 3g), runs ``spark.report.run_report`` and its ``summary()``; the pandas child caps its
address space (``RLIMIT_AS``, ``--pandas-cap-gib``, default 12) and runs ``bench/_pandas_report.py``. Wall time
is measured in the child (report only: session ready → summary in hand; pandas: read → summary) and around the
child (process start → exit: imports, JVM and session start included). Memory: the parent polls /proc every
50 ms and keeps, per process of the child's tree, the last VmHWM seen (the kernel's own peak), so "driver" is
the JVM's VmHWM plus the Python driver's; "tree" is the greatest sum of VmRSS over the whole tree at one poll
(Spark's Python workers included). The summaries of both children are compared: the fleet section must be
identical at every size where both finish. Medians of --runs runs (default 3; 1 at 100 M).

``--connect`` runs the Spark side as clients of one Spark Connect server (``spark.connect``, what ``mqadmin epochs
serve`` runs) started for the whole benchmark with the same driver memory and JVM options: a warm JVM, as a
long-running server has. Its first report at each size is a warm-up, shown apart and left out of the medians;
"driver" is then the server JVM's VmHWM (its peak since it started) plus the client's.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
for p in (ROOT, BENCH):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from tabulate import tabulate  # noqa: E402

GIB = 1024**3
SIZES = {"100k": 100_000, "1M": 1_000_000, "10M": 10_000_000, "100M": 100_000_000}
CLUSTERS, REPLICAS, EPOCHS, SNAPSHOTS = 4, 3, 20, 2
SEED = 7
POLL_S = 0.05
DRIVER_MEMORY = "3g"
DRIVER_TARGET_GIB = 4.0
RATIO_TARGET = 2.0
QUICK_CONF = {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}
"""--quick only: a faster JVM start for tiny jobs; it slows big ones."""


def machine_note() -> str:
    """Cores, memory and the load average: the machine is shared, and other work skews every figure."""
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    mem = next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines() if "MemTotal" in line)
    return f"{os.cpu_count()} cores, {int(mem) / 1024**2:.0f} GiB (shared, noisy), load average {load}"


# --- fleets ----------------------------------------------------------------------------------------------------


def fleet_params(rows: int) -> dict[str, Any]:
    """synthesize() arguments giving about `rows` epoch rows over both snapshots: each set writes replicas ×
    epochs rows per snapshot, except in the one cluster unreachable in the latest snapshot."""
    per_set = REPLICAS * EPOCHS * (SNAPSHOTS * CLUSTERS - 1) / CLUSTERS
    return {"clusters": CLUSTERS, "sets": max(1, round(rows / (CLUSTERS * per_set))), "replicas": REPLICAS,
            "epochs": EPOCHS, "seed": SEED, "snapshots": SNAPSHOTS}  # fmt: skip


def ensure_fleet(data: Path, rows: int) -> tuple[Path, dict[str, Any]]:
    """The cached fleet of about `rows` epoch rows under `data`, synthesized first if absent or different."""
    params = fleet_params(rows)
    tag = hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()[:8]
    out = data / f"fleet-{rows}-{tag}"
    marker = out / "_bench_params.json"  # leading "_": readers skip it
    if marker.exists() and json.loads(marker.read_text()).get("params") == params:
        return out, json.loads(marker.read_text())
    shutil.rmtree(out, ignore_errors=True)
    from spark.synth import synthesize

    started = time.perf_counter()
    manifest = synthesize(out, **params)
    info = {"params": params, "seconds": round(time.perf_counter() - started, 1), "manifest": _plain(manifest)}
    info["epochRows"] = _count_rows(out / "epoch_entries")
    info["bytes"] = sum(f.stat().st_size for f in out.rglob("*.parquet"))
    marker.write_text(json.dumps(info, indent=2, default=str))
    return out, info


def _plain(value: Any) -> Any:
    """A JSON-able view of the synth manifest (a dataclass or a mapping), for the cache marker."""
    if hasattr(value, "__dataclass_fields__"):
        import dataclasses

        return dataclasses.asdict(value)
    return value if isinstance(value, dict | list | str | int | float | None) else str(value)


def _count_rows(directory: Path) -> int:
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(f).metadata.num_rows for f in directory.glob("*.parquet"))


# --- child processes --------------------------------------------------------------------------------------------


@dataclass
class Run:
    """One child run: its own timings and summary (or error), and what the parent saw of its memory."""

    engine: str
    ok: bool = False
    error: str = ""
    wall_s: float = float("nan")  # process start → exit
    report_s: float = float("nan")  # inside the child: session ready (Spark) / start (pandas) → summary in hand
    session_s: float = float("nan")  # Spark: build_session incl. JVM start
    driver_gib: float = float("nan")  # VmHWM of the JVM + the Python driver (pandas: its one process)
    tree_gib: float = float("nan")  # greatest simultaneous VmRSS sum over the child's process tree
    summary: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _children(pid: int) -> list[int]:
    try:
        found: list[int] = []
        for task in Path(f"/proc/{pid}/task").iterdir():
            text = (task / "children").read_text().split()
            found.extend(int(x) for x in text)
        return found
    except OSError:
        return []


def _status(pid: int) -> tuple[str, int, int] | None:
    """(name, VmRSS, VmHWM) in bytes, None if the process is gone."""
    try:
        fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    except (OSError, ValueError):
        return None

    def kb(key: str) -> int:
        return int(fields.get(key, "0 kB").split()[0]) * 1024

    return fields.get("Name", "?").strip(), kb("VmRSS"), kb("VmHWM")


def run_child(engine: str, dataset: Path, timeout_s: float, args: argparse.Namespace) -> Run:
    """Run one child (`engine`: spark or pandas) on `dataset`, polling its process tree's memory."""
    result_file = Path(tempfile.mkstemp(prefix=f"fleet-{engine}-", suffix=".json")[1])
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", engine, "--input", str(dataset),
           "--result", str(result_file), "--pandas-cap-gib", str(args.pandas_cap_gib),
           "--driver-memory", args.driver_memory, f"--java-options={args.java_options}"]  # fmt: skip
    if args.quick:
        cmd.append("--quick")
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
    if engine == "spark" and args.server is not None:
        env |= args.server.client_env()
    run = Run(engine)
    hwm: dict[int, tuple[str, int]] = {}
    tree_peak = 0
    rusage = None
    with tempfile.TemporaryFile() as log:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            while True:
                pid_done, status, rusage = os.wait4(proc.pid, os.WNOHANG)
                if pid_done:
                    proc.returncode = os.waitstatus_to_exitcode(status)
                    break
                tree_peak = max(tree_peak, _poll_tree(proc.pid, hwm))
                if time.perf_counter() - started > timeout_s:
                    os.killpg(proc.pid, 9)
                    proc.wait()
                    run.error = f"timed out after {timeout_s:.0f} s"
                    break
                time.sleep(POLL_S)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)  # Spark's JVM and workers, should the child have left any behind
        run.wall_s = time.perf_counter() - started
        log.seek(0)
        tail = log.read().decode(errors="replace").strip().splitlines()[-12:]
    run.tree_gib = tree_peak / GIB
    own = hwm.get(proc.pid, ("", 0))[1]
    if rusage is not None:
        own = max(own, rusage.ru_maxrss * 1024)
    jvm = sum(h for pid, (name, h) in hwm.items() if name == "java")
    if engine == "spark" and args.server is not None:
        jvm += sum(h for _name, h in _tree_hwm(args.server.pid).values() if _name == "java")
    run.driver_gib = (own + jvm) / GIB
    try:
        doc = json.loads(result_file.read_text() or "{}")
    except ValueError:
        doc = {}
    result_file.unlink(missing_ok=True)
    run.extra = {k: v for k, v in doc.items() if k not in ("summary", "error")}
    run.report_s = doc.get("report_s", float("nan"))
    run.session_s = doc.get("session_s", float("nan"))
    run.summary = doc.get("summary")
    if not run.error:
        run.error = doc.get("error", "")
    run.ok = proc.returncode == 0 and run.summary is not None and not run.error
    if not run.ok and not run.error:
        run.error = f"exit {proc.returncode}: " + " | ".join(tail)[-600:]
    return run


def _poll_tree(root: int, hwm: dict[int, tuple[str, int]]) -> int:
    """Sum of VmRSS over `root` and its descendants now; records each one's VmHWM (its peak so far) in `hwm`."""
    pids, seen, total = [root], set(), 0
    while pids:
        pid = pids.pop()
        if pid in seen:
            continue
        seen.add(pid)
        st = _status(pid)
        if st is not None:
            hwm[pid] = (st[0], st[2])
            total += st[1]
        pids.extend(_children(pid))
    return total


def _tree_hwm(root: int) -> dict[int, tuple[str, int]]:
    """(name, VmHWM) of `root` and its descendants: the Connect server's peak so far."""
    hwm: dict[int, tuple[str, int]] = {}
    _poll_tree(root, hwm)
    return hwm


def report_version() -> str:
    """sha1 of spark/report.py as it is now: every run records it, so a run of a changed report stands out."""
    return hashlib.sha1((ROOT / "spark" / "report.py").read_bytes()).hexdigest()[:10]


def jvm_conf(quick: bool, driver_memory: str, java_options: str) -> dict[str, str]:
    """The driver settings of the Spark side: those of a local session, or of the Connect server."""
    conf = {"spark.driver.memory": driver_memory}
    if quick:
        conf |= QUICK_CONF
    if java_options:
        conf["spark.driver.extraJavaOptions"] = java_options
    return conf


def child_spark(dataset: Path, result: Path, quick: bool, driver_memory: str, java_options: str) -> int:
    """Session, report, summary; times each and scans the plan for row-at-a-time Python UDFs."""
    started = time.perf_counter()
    version = report_version()
    from spark.report import run_report
    from spark.session import build_session

    remote = os.environ.get("SPARK_REMOTE")
    spark = build_session(app_name="fleet-report-bench", conf=None if remote else jvm_conf(quick, driver_memory,
                                                                                             java_options))  # fmt: skip
    ready = time.perf_counter()
    report = run_report(spark, str(dataset))
    summary = report.summary()
    done = time.perf_counter()
    doc: dict[str, Any] = {"session_s": ready - started, "report_s": done - ready, "summary": summary}
    doc["report_version"] = version
    if not remote:  # a Connect client has no JVM of its own
        jvm = spark.sparkContext._jvm
        assert jvm is not None, "a classic session runs a JVM"
        doc["jvm_max_heap_gib"] = round(jvm.java.lang.Runtime.getRuntime().maxMemory() / GIB, 2)
    doc["python_udf_nodes"] = _udf_nodes(report)
    report.unpersist()
    result.write_text(json.dumps(doc, default=str))
    spark.stop()
    return 0


def _udf_nodes(report: Any) -> dict[str, int]:
    """Per kind of Python-evaluation node, in how many of the report's DataFrames' physical plans it appears
    (BatchEvalPython = a row-at-a-time UDF; ArrowEvalPython, FlatMapGroupsIn*, MapIn* = batched Arrow)."""
    import io
    from contextlib import redirect_stdout

    from pyspark.sql import DataFrame

    nodes = ("BatchEvalPython", "ArrowEvalPython", "FlatMapGroupsIn", "FlatMapCoGroupsIn", "MapInPandas", "MapInArrow")
    frames = [v for v in vars(report).values() if isinstance(v, DataFrame)]
    counts = dict.fromkeys(nodes, 0)
    for frame in frames:
        buf = io.StringIO()
        with redirect_stdout(buf):
            frame.explain()
        for node in nodes:
            counts[node] += node in buf.getvalue()
    return {"plans": len(frames), **{k: v for k, v in counts.items() if v or k == "BatchEvalPython"}}


def child_pandas(dataset: Path, result: Path, cap_gib: float) -> int:
    """The pandas report under an address-space cap; a MemoryError is reported as "out of memory at the cap"."""
    cap = int(cap_gib * GIB)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    started = time.perf_counter()
    try:
        from _pandas_report import run_report

        summary = run_report(dataset).summary()
    except MemoryError as exc:
        elapsed = time.perf_counter() - started
        result.write_text(json.dumps({"error": f"out of memory at the {cap_gib:g} GiB cap after {elapsed:.0f} s "
                                               f"({type(exc).__name__})", "report_s": elapsed}))  # fmt: skip
        return 3
    result.write_text(json.dumps({"report_s": time.perf_counter() - started, "summary": summary}, default=str))
    return 0


# --- the benchmark ----------------------------------------------------------------------------------------------


def med(runs: list[Run], attr: str) -> float:
    values = [getattr(r, attr) for r in runs if r.ok]
    return statistics.median(values) if values else float("nan")


def fmt(value: float, digits: int = 1) -> str:
    return "-" if value != value else f"{value:.{digits}f}"


def compare(spark: list[Run], pandas: list[Run]) -> str:
    """Whether every finished Spark and pandas summary agree: the fleet section, and the whole document."""
    docs = [r.summary for r in spark + pandas if r.ok and r.summary is not None]
    if not any(r.ok for r in spark) or not any(r.ok for r in pandas):
        return "not compared (one side did not finish)"
    fleet = all(json.dumps(d.get("fleet"), sort_keys=True) == json.dumps(docs[0].get("fleet"), sort_keys=True)
                for d in docs)  # fmt: skip
    whole = all(json.dumps(d, sort_keys=True) == json.dumps(docs[0], sort_keys=True) for d in docs)
    if fleet and whole:
        return "identical (fleet and the whole summary)"
    if fleet:
        return "fleet identical; clusters/worst differ: " + _first_difference(docs[0], docs[-1])
    return "FLEET DIFFERS: " + _first_difference(docs[0].get("fleet"), docs[-1].get("fleet"))


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path or '.'}: spark {json.dumps(a, default=str)[:200]} / pandas {json.dumps(b, default=str)[:200]}"


def bench_size(label: str, rows: int, runs: int, args: argparse.Namespace) -> dict[str, Any]:
    dataset, info = ensure_fleet(args.data, rows)
    print(f"\n== {label}: {info['epochRows']:,} epoch rows, {info['params']['sets']:,} sets per cluster × "
          f"{CLUSTERS} clusters; {info['bytes'] / 1024**2:.0f} MiB of Parquet (synthesized in {info['seconds']} s)"
          f"; {machine_note()}", flush=True)  # fmt: skip
    spark_runs: list[Run] = []
    pandas_runs: list[Run] = []
    warmup: Run | None = None
    if args.server is not None and "spark" not in args.skip:
        warmup = run_child("spark", dataset, args.timeout, args)
        print(f"  warm-up spark (the server's first report at this size, not in the medians): wall "
              f"{fmt(warmup.wall_s)} s, report {fmt(warmup.report_s)} s: {'ok' if warmup.ok else warmup.error}",
              flush=True)  # fmt: skip
    for i in range(runs):
        for engine, into in (("spark", spark_runs), ("pandas", pandas_runs)):
            if engine in args.skip:
                continue
            if engine == "pandas" and any(not r.ok and "out of memory" in r.error for r in into):
                continue  # once out of memory at the cap, always
            r = run_child(engine, dataset, args.timeout, args)
            into.append(r)
            state = "ok" if r.ok else r.error
            print(f"  run {i + 1} {engine}: wall {fmt(r.wall_s)} s, report {fmt(r.report_s)} s, driver "
                  f"{fmt(r.driver_gib, 2)} GiB, tree {fmt(r.tree_gib, 2)} GiB: {state}", flush=True)  # fmt: skip
    s_report, p_report = med(spark_runs, "report_s"), med(pandas_runs, "report_s")
    s_wall, p_wall = med(spark_runs, "wall_s"), med(pandas_runs, "wall_s")
    where = " on the warm Connect server" if args.server is not None else ""
    rows_out = [
        [f"Spark{where} (report only: session ready → summary)", fmt(s_report), fmt(med(spark_runs, "driver_gib"), 2),
         fmt(med(spark_runs, "tree_gib"), 2), fmt(s_report / p_report, 2)],
        [f"Spark{where} (process: {'client' if where else 'JVM'} + session start included)", fmt(s_wall), "", "",
         fmt(s_wall / p_wall, 2)],
        ["  of which build_session", fmt(med(spark_runs, "session_s")), "", "", ""],
        ["pandas (report: read → summary)", fmt(p_report), fmt(med(pandas_runs, "driver_gib"), 2),
         fmt(med(pandas_runs, "tree_gib"), 2), "1"],
        ["pandas (process)", fmt(p_wall), "", "", "1"],
    ]  # fmt: skip
    for name, rs in (("Spark", spark_runs), ("pandas", pandas_runs)):
        failed = [r.error for r in rs if not r.ok]
        if failed:
            rows_out.append([f"{name}: {len(failed)} of {len(rs)} runs failed: {failed[0][:150]}", "", "", "", ""])
    n_ok = f"{sum(r.ok for r in spark_runs)}/{len(spark_runs)} Spark, {sum(r.ok for r in pandas_runs)}/" \
           f"{len(pandas_runs)} pandas runs ok"  # fmt: skip
    print("\n" + tabulate(rows_out, headers=[f"{label} ({n_ok}; medians)", "wall s", "driver peak GiB",
                                             "tree peak GiB", "ratio Spark/pandas"],
                          tablefmt="github", disable_numparse=True))  # fmt: skip
    verdict = compare(spark_runs, pandas_runs)
    udfs = next((r.extra.get("python_udf_nodes") for r in spark_runs if r.ok), None)
    versions = sorted({r.extra.get("report_version", "?") for r in spark_runs})
    print(f"summaries: {verdict}\nPython nodes in the report's plans: {udfs}\nspark/report.py sha1: "
          f"{', '.join(versions)}{' (CHANGED between runs)' if len(versions) > 1 else ''}", flush=True)  # fmt: skip
    if warmup is not None and warmup.ok:
        print(f"warm-up (the server's first report at this size) / pandas report = "
              f"{fmt(warmup.report_s / p_report, 2)}", flush=True)  # fmt: skip
    return {"label": label, "rows": info["epochRows"], "spark": spark_runs, "pandas": pandas_runs,
            "ratio": s_report / p_report, "verdict": verdict, "udfs": udfs}  # fmt: skip


def targets(results: list[dict[str, Any]]) -> None:
    lines = []
    for res in results:
        spark_ok = [r for r in res["spark"] if r.ok]
        pandas_runs = res["pandas"]
        if res["label"] == "10M":
            met = res["ratio"] <= RATIO_TARGET
            lines.append(f"10 M: Spark report / pandas report = {fmt(res['ratio'], 2)} (target ≤ {RATIO_TARGET:g}): "
                         f"{'met' if met else 'NOT met'}")  # fmt: skip
        if res["label"] == "100M":
            driver = max((r.driver_gib for r in spark_ok), default=float("nan"))
            p_ok = [r for r in pandas_runs if r.ok]
            p_text = (f"pandas finished, peak {fmt(max(r.driver_gib for r in p_ok), 2)} GiB" if p_ok else
                      f"pandas: {pandas_runs[0].error if pandas_runs else 'not run'}")  # fmt: skip
            met = bool(spark_ok) and driver < DRIVER_TARGET_GIB
            lines.append(f"100 M: Spark {'completed' if spark_ok else 'did not complete'}, driver peak "
                         f"{fmt(driver, 2)} GiB (target < {DRIVER_TARGET_GIB:g}); {p_text}: "
                         f"{'met' if met else 'NOT met'}")  # fmt: skip
        if res["udfs"] is not None:
            lines.append(f"{res['label']}: row-at-a-time Python UDF nodes (BatchEvalPython) in the plans: "
                         f"{res['udfs'].get('BatchEvalPython', 0)}")  # fmt: skip
    print("\ntargets:\n  " + "\n  ".join(lines or ["(no 10 M or 100 M size in this run)"]))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: ~100 k rows, 1 run each (< 60 s)")
    parser.add_argument("--sizes", default="1M,10M,100M", help=f"comma-separated, of {', '.join(SIZES)}")
    parser.add_argument("--runs", type=int, default=3, help="runs per engine at 1 M and 10 M (100 M: 1)")
    parser.add_argument("--data", type=Path, help="where fleets are cached (default: a temp dir, removed)")
    parser.add_argument("--pandas-cap-gib", type=float, default=12.0, help="RLIMIT_AS of the pandas child")
    parser.add_argument("--timeout", type=float, default=3600.0, help="per child run, seconds")
    parser.add_argument("--skip", default="", help="engines not to run: spark, pandas")
    parser.add_argument("--driver-memory", default=DRIVER_MEMORY, help=f"spark.driver.memory (default {DRIVER_MEMORY})")
    parser.add_argument("--java-options", default="", help="spark.driver.extraJavaOptions, as --java-options=-XX:...")
    parser.add_argument(
        "--connect",
        action="store_true",
        help="Spark reports as clients of one warm Spark Connect server (see the module doc)",
    )
    parser.add_argument("--child", choices=["spark", "pandas"], help=argparse.SUPPRESS)
    parser.add_argument("--input", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args()


def start_connect_server(args: argparse.Namespace, log: Any) -> Any:
    """The benchmark's Connect server (a free port, the Spark side's driver settings); its log's tail on failure."""
    from spark.connect import ConnectServerError, start_server

    try:
        server = start_server(0, conf=jvm_conf(args.quick, args.driver_memory, args.java_options), log=log)
    except ConnectServerError as exc:
        log.seek(0)
        raise SystemExit(f"{exc}\n" + log.read().decode(errors="replace")[-2000:]) from exc
    print(f"Spark Connect server: pid {server.pid}, {server.url}", flush=True)
    return server


def main() -> int:
    args = parse_args()
    if args.child == "spark":
        return child_spark(args.input, args.result, args.quick, args.driver_memory, args.java_options)
    if args.child == "pandas":
        return child_pandas(args.input, args.result, args.pandas_cap_gib)
    labels = ["100k"] if args.quick else [s.strip() for s in args.sizes.split(",") if s.strip()]
    unknown = [s for s in labels if s not in SIZES]
    if unknown:
        raise SystemExit(f"unknown size {', '.join(unknown)}; choose from {', '.join(SIZES)}")
    temp = args.data is None
    args.data = Path(tempfile.mkdtemp(prefix="mqbench-fleet-")) if temp else args.data
    args.data.mkdir(parents=True, exist_ok=True)
    java = args.java_options or (QUICK_CONF["spark.driver.extraJavaOptions"] if args.quick else "")
    java = f", JVM options {java}" if java else ""
    print(f"machine at the start: {machine_note()}; Spark driver memory {args.driver_memory}{java}, pandas capped at "
          f"{args.pandas_cap_gib:g} GiB (RLIMIT_AS); spark/report.py sha1 {report_version()}", flush=True)  # fmt: skip
    results = []
    args.server = None
    try:
        with contextlib.ExitStack() as stack:
            if args.connect:
                args.server = start_connect_server(args, stack.enter_context(tempfile.TemporaryFile()))
                stack.callback(args.server.stop)
            for label in labels:
                runs = 1 if args.quick or SIZES[label] >= 100_000_000 else args.runs
                results.append(bench_size(label, SIZES[label], runs, args))
    finally:
        if temp:
            shutil.rmtree(args.data, ignore_errors=True)
    targets(results)
    print(f"machine at the end: {machine_note()}")
    mismatch = any(res["verdict"].startswith("FLEET DIFFERS") for res in results)
    return 1 if mismatch else 0


if __name__ == "__main__":
    raise SystemExit(main())
