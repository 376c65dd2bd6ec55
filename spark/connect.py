"""A Spark Connect server for the report: one JVM that stays warm across reports (``mqadmin epochs serve``).

A one-shot report pays for a JVM start and, on a cold JVM, for the JIT compiling Spark's planner and operators:
at 10 M epoch rows on two cores the C2 compiler alone burns as much CPU as the report's tasks (benchmarks.md,
"Fleet report"). A long-running Connect server pays that once; each ``mqadmin epochs report --remote URL`` is then
a thin client.

The server listens on loopback only and requires a bearer token (``SPARK_CONNECT_AUTHENTICATE_TOKEN``): anyone who
can reach it can run Python on it. Clients on ``localhost`` send the token without TLS, as PySpark's own local
Connect mode does. The token travels in the environment, never on a command line that ``ps`` shows.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from mqbase.ports import free_port
from spark.errors import SparkError
from spark.session import default_conf

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
DEFAULT_PORT = 15002
TOKEN_ENV = "SPARK_CONNECT_AUTHENTICATE_TOKEN"
LOOPBACK = "127.0.0.1"
APP_NAME = "mqadmin-epochs-connect"


RESERVED = {
    "spark.connect.grpc.binding.address": "the server binds 127.0.0.1 only",
    "spark.connect.grpc.binding.port": "the port is the port argument (--port)",
    "spark.connect.authenticate.token": f"a token goes in ${TOKEN_ENV}, not on a command line that ps shows",
}
"""Settings `conf` may not hold, and why."""


class ConnectServerError(SparkError, RuntimeError):
    """The server did not come up (its own output says why), or could not be started at all."""


def server_command(spark_home: Path, port: int, master: str, conf: Mapping[str, str] | None = None) -> list[str]:
    """The spark-submit command line of a Connect server on ``127.0.0.1:port``; `conf` wins over the defaults
    (those of a local report session when `master` is local, see ``spark.session``). ValueError for a port out
    of range or a RESERVED setting in `conf`."""
    if not 0 < port < 65536:
        raise ValueError(f"port must be 1-65535, not {port}")
    for key in conf or {}:
        if key in RESERVED:
            raise ValueError(f"{key} cannot be set: {RESERVED[key]}")
    settings = default_conf(master) | dict(conf or {})
    settings |= {"spark.connect.grpc.binding.address": LOOPBACK, "spark.connect.grpc.binding.port": str(port)}
    command = [str(spark_home / "bin" / "spark-submit"), "--class", SERVER_CLASS, "--master", master]
    command += ["--name", APP_NAME]
    for key, value in settings.items():
        command += ["--conf", f"{key}={value}"]
    return command


@dataclass
class ConnectServer:
    """A running server (a child process group: spark-submit and its JVM)."""

    process: subprocess.Popen[bytes]
    port: int
    token: str

    @property
    def url(self) -> str:
        """The client URL (``localhost``: the name PySpark sends a token on without TLS)."""
        return f"sc://localhost:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def client_env(self) -> dict[str, str]:
        """What a client process needs in its environment to reach this server."""
        return {"SPARK_REMOTE": self.url, TOKEN_ENV: self.token}

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM to the whole group (the JVM shuts Spark down cleanly), SIGKILL after `timeout`; returns the exit
        code once no process of the group is left (PySpark's worker daemon outlives the JVM by a moment)."""
        if self.process.poll() is None:
            _signal_group(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                _signal_group(self.process.pid, signal.SIGKILL)
                self.process.wait()
        deadline = time.monotonic() + 5.0
        while _signal_group(self.process.pid, 0):
            if time.monotonic() > deadline:
                _signal_group(self.process.pid, signal.SIGKILL)
            time.sleep(0.05)
        return self.process.returncode


def start_server(
    port: int = DEFAULT_PORT,
    master: str = "local[*]",
    conf: Mapping[str, str] | None = None,
    token: str | None = None,
    log: IO[bytes] | int | None = None,
    ready_timeout: float = 180.0,
) -> ConnectServer:
    """Start a Connect server and return once it accepts connections on ``127.0.0.1:port``.

    `port` 0 picks a free port. `token` defaults to ``$SPARK_CONNECT_AUTHENTICATE_TOKEN``, else a new random one.
    `log` receives the server's output (default: this process's stderr). ConnectServerError if the server exits
    or is not listening within `ready_timeout` seconds (nothing is left running then), or the port is taken;
    ValueError for what ``server_command`` refuses.
    """
    import pyspark

    token = token or os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(24)
    chosen = port or free_port(LOOPBACK)
    spark_home = Path(os.environ.get("SPARK_HOME") or Path(pyspark.__file__).parent)
    command = server_command(spark_home, chosen, master, conf)
    if _listening(chosen):
        raise ConnectServerError(f"port {chosen} on {LOOPBACK} is taken (another server?): choose another --port")
    env = os.environ | {
        TOKEN_ENV: token,
        "SPARK_HOME": str(spark_home),
        "PYSPARK_PYTHON": os.environ.get("PYSPARK_PYTHON", sys.executable),  # workers with pyarrow and agents
        "SPARK_LOCAL_IP": LOOPBACK,
    }
    env.pop("SPARK_REMOTE", None)  # the server's own session is a classic one
    try:
        process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT if log is not None else None,
            start_new_session=True,  # one group: stop() reaches the JVM that spark-submit starts
        )
    except OSError as exc:
        raise ConnectServerError(f"cannot run spark-submit from {spark_home}: {exc}") from exc
    server = ConnectServer(process, chosen, token)
    try:
        _wait_listening(server, ready_timeout)
    except BaseException:  # not up in time, exited, or Ctrl-C while waiting: its own session hears no SIGINT
        server.stop()
        raise
    return server


def _wait_listening(server: ConnectServer, ready_timeout: float) -> None:
    process, chosen = server.process, server.port
    deadline = time.monotonic() + ready_timeout
    while not _listening(chosen):
        if process.poll() is not None:
            raise ConnectServerError(
                f"the Spark Connect server exited with status {process.returncode} before listening on port "
                f"{chosen} (port taken? Java 17 on PATH? its output says more)"
            )
        if time.monotonic() > deadline:
            raise ConnectServerError(f"the Spark Connect server was not listening on port {chosen} after "
                                     f"{ready_timeout:.0f} s; stopped it")  # fmt: skip
        time.sleep(0.25)


def check_reachable(url: str, timeout: float = 5.0) -> None:
    """ConnectServerError unless something accepts TCP connections where `url` (``sc://host:port/;…``) points.

    PySpark's client retries an unreachable server for minutes before it gives up; an operator wants to know at once.
    """
    from pyspark.errors import PySparkException
    from pyspark.sql.connect.client.core import DefaultChannelBuilder

    try:
        target = DefaultChannelBuilder(url)
    except (PySparkException, ValueError) as exc:
        raise ConnectServerError(f"{url!r} is not a Spark Connect URL (sc://host:port): {exc}") from exc
    host = target.host.strip("[]")
    try:
        with socket.create_connection((host, target._port), timeout=timeout):
            pass
    except OSError as exc:
        raise ConnectServerError(f"nothing answers at {host}:{target._port} ({exc.strerror or exc})") from exc


def _listening(port: int) -> bool:
    try:
        with socket.create_connection((LOOPBACK, port), timeout=1.0):
            return True
    except OSError:
        return False


def _signal_group(pid: int, sig: signal.Signals | int) -> bool:
    """Signal process group `pid` (0: only check it exists); False once no process of it is left."""
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        return False
    return True
