"""The SparkSession the fleet report runs in.

Local mode (the default, ``mqadmin epochs report``) stays on loopback, quiet and small: no UI, no progress bars, a
few shuffle partitions, and Python workers on this very interpreter (otherwise they take ``python3`` from PATH,
which lacks pyarrow). A standalone master on loopback (``spark://127.0.0.1:PORT``) gets the same interpreter and
address: its executors run on this machine too. On a cluster the report's one Python step imports
``agents.store.epochs`` on the executors, so the ``agents`` and ``spark`` packages are shipped with the job as a
zip; so they are to a Spark Connect server (``remote``, a warm JVM kept by ``spark.connect``). Timestamps are UTC
everywhere.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import os
import re
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from pyspark import SparkConf, SparkContext
from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"
DEFAULT_APP_NAME = "mqadmin-epochs-report"
SHIPPED_PACKAGES = ("agents", "spark")
"""What executors need to import for the consistent-point step (``agents.store.epochs`` and this package)."""

_LOCAL = re.compile(r"local(?:\[(\d+|\*)(?:,\s*\d+)?\])?")
_LOOPBACK_STANDALONE = re.compile(r"spark://(?:127\.0\.0\.1|localhost)(?::\d+)?")


def is_local(master: str) -> bool:
    """``local``, ``local[N]``, ``local[*]``, ``local[N,F]``: driver and executors in this process."""
    return _LOCAL.fullmatch(master) is not None


def on_this_machine(master: str) -> bool:
    """A local master, or one standalone master on loopback: either way the executors run on this machine."""
    return is_local(master) or _LOOPBACK_STANDALONE.fullmatch(master) is not None


def local_cores(master: str) -> int:
    """Worker threads of a local master (1 for plain ``local``, all cores for ``local[*]``)."""
    match = _LOCAL.fullmatch(master)
    if match is None:
        raise ValueError(f"{master!r} is not a local master")
    threads = match.group(1)
    if threads is None:
        return 1
    return (os.cpu_count() or 1) if threads == "*" else int(threads)


def build_session(
    master: str | None = None,
    app_name: str = DEFAULT_APP_NAME,
    conf: Mapping[str, str] | None = None,
    remote: str | None = None,
    jvm_log: Path | None = None,
) -> SparkSession:
    """A SparkSession for the report; `conf` entries win over the defaults chosen here.

    `jvm_log`: when this process starts the JVM, the JVM's stdout and stderr (log4j, its warnings, the Python
    workers' tracebacks) go to this file for good instead of the terminal (``jvm_output_to``).

    `master` defaults to the one spark-submit was given, else ``local[*]``. Static settings (driver host, JVM
    options) only take effect if no session is running yet in this process.

    `remote` (``sc://host:port``; ``$SPARK_REMOTE``, PySpark's own variable, when neither is given) makes this a
    Spark Connect client of a running server (``spark.connect``): the server's settings are its own, `conf` may only
    hold runtime SQL settings, and the process stays a Connect client for good (PySpark: no classic session after a
    remote one). ValueError for both a master and a URL.
    """
    remote = remote or os.environ.get("SPARK_REMOTE")
    if remote:
        if master is not None:
            raise ValueError("give a Spark master or a Spark Connect URL (--remote, $SPARK_REMOTE), not both")
        return _remote_session(remote, app_name, conf or {})
    master = master or _submitted_master() or DEFAULT_MASTER
    local = is_local(master)
    if on_this_machine(master):
        # Remote executors have their own interpreter and address: these only make sense on this machine.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    settings = default_conf(master) | dict(conf or {})
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    launches = jvm_log is not None and SparkContext._gateway is None and "PYSPARK_GATEWAY_PORT" not in os.environ
    with jvm_output_to(jvm_log) if launches and jvm_log is not None else contextlib.nullcontext():
        session: SparkSession = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    if not local:
        ship_packages(session)
    return session


@contextlib.contextmanager
def jvm_output_to(log: Path) -> Iterator[None]:
    """Point file descriptors 1 and 2 at `log` while the block starts the JVM, which inherits them and keeps
    writing there; this process's own stdout and stderr are back once the block ends."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    try:
        with open(log, "ab") as out:
            os.dup2(out.fileno(), 1)
            os.dup2(out.fileno(), 2)
        yield
    finally:
        for fd, copy in zip((1, 2), saved, strict=True):
            os.dup2(copy, fd)
            os.close(copy)


def _remote_session(url: str, app_name: str, conf: Mapping[str, str]) -> SparkSession:
    builder = SparkSession.builder.remote(url).appName(app_name)
    for key, value in ({"spark.sql.session.timeZone": "UTC"} | dict(conf)).items():
        builder = builder.config(key, value)
    session: SparkSession = builder.getOrCreate()
    ship_packages(session)  # the server's Python workers may not have this project installed
    return session


def default_conf(master: str) -> dict[str, str]:
    """The settings a session on `master` starts with (more of them for a local master, whose driver is here)."""
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.log.level": "ERROR",  # from the context's start (setLogLevel below comes after its INFO lines)
    }
    if is_local(master):
        partitions = str(2 * local_cores(master))  # 200 by default: mostly empty tasks on a laptop
        settings |= {
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            "spark.sql.shuffle.partitions": partitions,
            "spark.default.parallelism": partitions,
            # The throughput collector, not G1: in local mode the executors live in the driver's JVM, and G1's own
            # native structures pushed a 3g driver past 4 GiB at 100 M rows (4.05 GiB; 3.68 with this, and 12 %
            # faster: docs/benchmarks.md, "Fleet report"). --conf spark.driver.extraJavaOptions=... replaces it.
            "spark.driver.extraJavaOptions": "-XX:+UseParallelGC",
        }
    return settings


def _submitted_master() -> str | None:
    """The --master spark-submit passed (its default: ``local[*]``); None when this process starts the JVM itself.

    spark-submit hands it to its JVM as a system property: a SparkConf sees it only once this process is attached
    to that JVM's gateway (before, it is an empty dict, and the report ran in local mode whatever --master said).
    """
    if "PYSPARK_GATEWAY_PORT" not in os.environ:
        return None
    SparkContext._ensure_initialized()  # attach to spark-submit's JVM
    master: str | None = SparkConf().get("spark.master", None)
    return master


def ship_packages(session: SparkSession) -> Path:
    """Zip the installed ``agents`` and ``spark`` packages and add the zip to the job's Python path.

    Executors on other hosts (or spark-submit without the project installed, or a Spark Connect server) cannot
    import them otherwise. The zip lives until this process exits: Spark serves it to executors on demand (a
    Connect client uploads it to the server, which keeps it for this session only).
    """
    directory = Path(tempfile.mkdtemp(prefix="mqadmin-pyfiles-"))
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    archive = directory / "mqadmin_spark_job.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in SHIPPED_PACKAGES:
            package_dir = Path(_package_file(name)).parent
            for path in sorted(package_dir.rglob("*.py")):
                if "__pycache__" not in path.parts:
                    zf.write(path, path.relative_to(package_dir.parent).as_posix())
    if is_connect(session):
        session.addArtifacts(str(archive), pyfile=True)
    else:
        session.sparkContext.addPyFile(str(archive))
    return archive


def is_connect(session: SparkSession) -> bool:
    """A Spark Connect client session (``build_session(remote=...)`` has shipped the packages already)."""
    return type(session).__module__.startswith("pyspark.sql.connect")


def _package_file(name: str) -> str:
    module = importlib.import_module(name)
    if module.__file__ is None:
        raise RuntimeError(f"package {name} has no __init__.py to locate it by")
    return module.__file__
