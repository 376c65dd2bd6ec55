"""The reference: the real Java RocketMQ 5 in controller mode, on loopback, started from the jars Maven resolved.

``JavaCluster(directory, classpath)`` runs one namesrv with the controller embedded (DLedger, one peer), one broker
set ``broker-a`` of two brokers in controller mode, and one proxy in CLUSTER mode (the gRPC access point of the
official RocketMQ 5 clients). Every JVM's configuration, stores, logs and temp files are under `directory`; every
port is chosen free at start; every server listens on loopback only (the settings that exist say so, and
``java/loopback_bind.c``, preloaded, turns the wildcard binds that no setting reaches, the proxy's gRPC server and
the broker's HA acceptor, into loopback binds; start() checks every listening socket of every JVM). ``stop()``
stops every JVM it started, by pid.

``classpath()`` runs ``java/fetch.sh`` (the pinned version, from Maven Central into ~/.m2). By hand::

    python -m tests.harness.java_cluster up --dir D      # prints the proxy endpoint, leaves the JVMs running
    python -m tests.harness.java_cluster down --dir D    # stops them (by the pids in D/cluster.json)
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import itertools
import json
import os
import random
import re
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from mqadmin_py.sandbox import BROKER_DEFAULTS, CONTROLLER_DEFAULTS

JAVA_DIR = Path(__file__).resolve().parents[1] / "reference" / "java"
CLUSTER = "DefaultCluster"
BROKER = "broker-a"
MESSAGE_TYPES = ("NORMAL", "FIFO", "DELAY", "TRANSACTION")
STATE = "cluster.json"
OPENS = ["--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
         "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
         "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
         "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED"]  # fmt: skip
"""What RocketMQ's reflection (hessian in the controller, netty, mmap cleaning) reaches into on Java 17."""
T = TypeVar("T")


def cache_dir() -> Path:
    """Where fetch.sh writes the classpath: ``$XDG_CACHE_HOME/mqadmin-py/reference`` (outside the clone)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mqadmin-py" / "reference"


def classpath(out: Path | None = None, timeout: float = 900) -> str:
    """The runtime classpath of the pinned Java RocketMQ (``java/fetch.sh OUT``; quick when cached)."""
    out = out or cache_dir()
    subprocess.run(["bash", str(JAVA_DIR / "fetch.sh"), str(out)], check=True, timeout=timeout,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    return (out / "classpath.txt").read_text().strip()


def version(out: Path | None = None) -> str:
    return ((out or cache_dir()) / "version.txt").read_text().strip()


@dataclass(frozen=True)
class BrokerProc:
    name: str
    """The broker set's name (``broker-a``)."""
    broker_id: int
    """The id the controller gave this broker (-1 while it has none)."""
    pid: int
    role: str
    """``master`` or ``slave`` as the controller reports it (``down`` for a broker it does not list as alive)."""
    address: str
    """host:port of its remoting server."""
    namesrv_id: int | None
    """The id under which the namesrv lists the address (0 is the master), None when it does not list it."""
    alive: bool
    """Whether the JVM is still running."""


class ReferenceError(RuntimeError):
    """The Java cluster did not do what was asked (it did not start, a command failed, ...)."""


# --- RocketMQ remoting, just enough to ask the namesrv and the controller ---------------------------------------

_opaque = itertools.count(1)


def remoting_call(address: str, code: int, ext: dict[str, str] | None = None, body: bytes = b"",
                  timeout: float = 3.0) -> tuple[int, str, bytes]:  # fmt: skip
    """One RocketMQ remoting request (JSON header): (response code, remark, body)."""
    header = json.dumps({
        "code": code, "flag": 0, "language": "JAVA", "opaque": next(_opaque), "serializeTypeCurrentRPC": "JSON",
        "version": 0, "extFields": ext or {},
    }).encode()  # fmt: skip
    frame = struct.pack(">ii", 4 + len(header) + len(body), len(header)) + header + body
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(frame)
        length = struct.unpack(">i", _read(sock, 4))[0]
        rest = _read(sock, length)
    header_length = struct.unpack(">i", rest[:4])[0] & 0xFFFFFF
    answer = json.loads(rest[4 : 4 + header_length])
    return int(answer["code"]), str(answer.get("remark") or ""), rest[4 + header_length :]


def _read(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            raise ConnectionError("the remoting peer closed the connection")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def fastjson(body: bytes) -> Any:
    """fastjson writes maps with number keys unquoted (``{0:"127.0.0.1:1"}``): quote them, then parse."""
    return json.loads(re.sub(rb"([{,])(-?\d+):", rb'\1"\2":', body))


GET_BROKER_CLUSTER_INFO = 106
CONTROLLER_GET_SYNC_STATE_DATA = 1006


# --- processes ---------------------------------------------------------------------------------------------------


def _pid_alive(pid: int, marker: str) -> bool:
    """Whether `pid` is running and is ours (its command line holds `marker`): a recycled pid is not."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return marker.encode() in cmdline and stat.rsplit(")", 1)[1].split()[0] != "Z"


def terminate(pids: dict[str, int], marker: str, timeout: float = 20.0,
              children: dict[int, subprocess.Popen[bytes]] | None = None) -> None:  # fmt: skip
    """SIGTERM every pid that is still ours, wait up to `timeout` for all, then SIGKILL what is left."""
    children = children or {}
    live = {name: pid for name, pid in pids.items() if _pid_alive(pid, marker)}
    for pid in live.values():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while live and time.monotonic() < deadline:
        for pid in live.values():
            if pid in children:
                children[pid].poll()
        live = {n: p for n, p in live.items() if _pid_alive(p, marker)}
        time.sleep(0.1)
    for pid in live.values():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for pid in pids.values():
        if pid in children:
            with contextlib.suppress(subprocess.TimeoutExpired):
                children[pid].wait(timeout=10)


def listening_sockets(pids: list[int]) -> list[tuple[int, str, int]]:
    """(pid, local address, port) of every TCP socket in LISTEN that these processes hold."""
    inodes: dict[str, int] = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if target.startswith("socket:["):
                        inodes[target[8:-1]] = pid
    found = []
    for table, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] != "0A" or fields[9] not in inodes:
                    continue
                hex_address, hex_port = fields[1].split(":")
                found.append((inodes[fields[9]], _address(hex_address, v6), int(hex_port, 16)))
    return found


def _address(hex_address: str, v6: bool) -> str:
    raw = bytes.fromhex(hex_address)
    if not v6:
        return socket.inet_ntop(socket.AF_INET, raw[::-1])
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
    return socket.inet_ntop(socket.AF_INET6, words)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time the process used so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def is_loopback(address: str) -> bool:
    return address.startswith("127.") or address in ("::1", "::ffff:127.0.0.1") or address.startswith("::ffff:127.")


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _wait(check: Callable[[], T | None], timeout: float, what: str, interval: float = 0.25) -> T:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while True:
        try:
            value = check()
            last = None
            if value is not None and value is not False:
                return value
        except (OSError, ValueError, KeyError) as e:
            last = e
        if time.monotonic() > deadline:
            raise ReferenceError(f"timed out after {timeout:.0f}s waiting for {what}" + (f" ({last})" if last else ""))
        time.sleep(interval)


# --- the admin tool, one JVM for every command --------------------------------------------------------------------


class AdminTool:
    """``mqadmin`` (MQAdminStartup) in one long-lived JVM (java/AdminServer.java): a command costs a call."""

    def __init__(self, command: list[str], env: dict[str, str], log: Path) -> None:
        self.lock = threading.Lock()
        self.log = log
        self.pending = b""
        with log.open("ab") as err:
            self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env,
                                         start_new_session=True)  # fmt: skip
        try:
            self._read_until("\0READY", 120)
        except BaseException:
            self.close()
            raise

    def close(self, timeout: float = 10) -> None:
        """End the JVM: its stdin closes (it exits), then SIGTERM and SIGKILL by pid if it lingers."""
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            terminate({"admin": self.proc.pid}, "AdminServer", timeout, {self.proc.pid: self.proc})
        assert self.proc.stdout is not None
        self.proc.stdout.close()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read_until(self, sentinel: str, timeout: float) -> str:
        """What the JVM printed up to the line `sentinel` (read from the pipe's fd: no buffer hides a line)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        end = ("\n" + sentinel + "\n").encode()
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while end not in b"\n" + self.pending:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    so_far = self.pending.decode("utf-8", "replace")[-2000:]
                    raise ReferenceError(f"mqadmin: no answer in {timeout:.0f}s; so far: {so_far}")
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise ReferenceError(f"the mqadmin JVM exited ({self.proc.poll()}); see {self.log}")
                self.pending += chunk
        text = b"\n" + self.pending
        at = text.index(end)
        self.pending = text[at + len(end) :]
        return text[1 : at + 1].decode("utf-8", "replace")

    def __call__(self, *args: str, timeout: float = 60) -> str:
        """Run ``mqadmin <args>``; what it printed."""
        assert self.proc.stdin is not None
        with self.lock:
            self.proc.stdin.write(("\t".join(args) + "\n").encode())
            self.proc.stdin.flush()
            printed = self._read_until("\0END", timeout)
        with self.log.open("a") as f:
            f.write(f"$ mqadmin {' '.join(args)}\n{printed}")
        return printed


# --- the cluster ---------------------------------------------------------------------------------------------------


class JavaCluster:
    """One namesrv (controller embedded), broker set ``broker-a`` of `replicas` brokers, one proxy (CLUSTER mode)."""

    def __init__(self, directory: Path, classpath: str, *, replicas: int = 2, quick_jit: bool = False,
                 java: str = "java") -> None:  # fmt: skip
        """`quick_jit`: C1 only (-XX:TieredStopAtLevel=1): the JVMs start faster, run slower (not for benchmarks)."""
        self.dir = Path(directory).resolve()
        self.classpath = classpath
        self.replicas = replicas
        self.quick_jit = quick_jit
        self.java = java
        self.marker = f"-Dmqadmin.reference.dir={self.dir}"
        """On every JVM's command line: how a pid is known to be one of ours."""
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.pids: dict[str, int] = {}
        self.ports: dict[str, int] = {}
        self.admin: AdminTool | None = None
        self.killed: set[str] = set()
        """Brokers kill_master() killed."""
        self.start_seconds: float | None = None
        self.timings: dict[str, float] = {}
        """Seconds from start() to each of its steps."""
        self._began = 0.0
        self.proxy_starts = 1
        self.cpu_seconds: dict[str, float] = {}
        """CPU seconds each JVM used by the end of start()."""

    # --- addresses ---

    @property
    def namesrv_address(self) -> str:
        return f"127.0.0.1:{self.ports['namesrv']}"

    @property
    def controller_address(self) -> str:
        return f"127.0.0.1:{self.ports['controller']}"

    @property
    def proxy_endpoint(self) -> str:
        """host:port of the proxy's gRPC server (the RocketMQ 5 clients' endpoints)."""
        return f"127.0.0.1:{self.ports['proxy-grpc']}"

    def broker_names(self) -> list[str]:
        return [f"broker-{i}" for i in range(self.replicas)]

    def broker_address(self, proc_name: str) -> str:
        return f"127.0.0.1:{self.ports[proc_name]}"

    # --- start / stop ---

    def __enter__(self) -> JavaCluster:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:  # fmt: skip
        self.stop()

    def start(self, timeout: float = 120) -> None:
        """Start every JVM and wait until the controller has a master, every broker is registered with the
        controller and the namesrv, and the proxy's gRPC port is open. A failed start stops what it started."""
        began = self._began = time.monotonic()
        deadline = began + timeout
        try:
            self._start(deadline)
        except BaseException:
            self.stop()
            raise
        self.start_seconds = time.monotonic() - began

    def _left(self, deadline: float) -> float:
        return max(1.0, deadline - time.monotonic())

    def _start(self, deadline: float) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        for sub in ("conf", "logs", "rocketmq-home/conf"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        self.shim = self._build_shim()
        self._choose_ports()
        self._write_configs()
        self._save()
        # Everything but the proxy at once (the brokers retry the controller until it answers): on 2 cores the
        # JVMs' start is CPU-bound, and one at a time would leave a core idle while a JVM waits.
        self._spawn("namesrv", "org.apache.rocketmq.namesrv.NamesrvStartup",
                    ["-c", str(self.dir / "conf/namesrv.conf")], heap=("128m", "256m"), logback="namesrv")  # fmt: skip
        for name in self.broker_names():
            self._spawn(name, "org.apache.rocketmq.broker.BrokerStartup", ["-c", str(self.dir / f"conf/{name}.conf")],
                        heap=("256m", "512m"), direct="256m", logback="broker")  # fmt: skip
        self._save()
        self._wait_port("namesrv", deadline)
        self._mark("namesrv up")
        _wait(self._master_listed, self._left(deadline), "the namesrv to list a master", interval=0.5)
        self._mark("master listed")
        self._spawn_proxy()
        _wait(self._registered, self._left(deadline), "a master and every broker registered", interval=0.5)
        self._mark("brokers registered")
        self._wait_port("proxy-grpc", deadline)
        self._mark("proxy up")
        self.cpu_seconds = {n: round(_cpu_seconds(p), 1) for n, p in self.pids.items()}
        self._check_loopback()

    def _build_shim(self) -> Path:
        out = self.dir / "libloopback_bind.so"
        source = JAVA_DIR / "loopback_bind.c"
        if not out.exists() or out.stat().st_mtime < source.stat().st_mtime:
            subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-Wall", "-o", str(out), str(source), "-ldl"],
                           check=True, capture_output=True, timeout=120)  # fmt: skip
        return out

    def _choose_ports(self) -> None:
        taken: set[int] = set()

        def block(n: int) -> int:
            for _ in range(500):
                base = random.randrange(20000, 30000)
                ports = range(base, base + n)
                if not taken.intersection(ports) and all(_port_free(p) for p in ports):
                    taken.update(ports)
                    return base
            raise ReferenceError("no free block of ports on loopback")

        self.ports = {"namesrv": block(1), "controller": block(1), "proxy-grpc": block(1), "proxy-remoting": block(1)}
        for name in self.broker_names():
            base = block(4)  # listenPort - 2 is the broker's "fast" remoting server, listenPort + 1 its HA port
            self.ports[name] = base + 2
            self.ports[f"{name}-ha"] = base + 3

    def _write_configs(self) -> None:
        conf = self.dir / "conf"
        home = str(self.dir / "rocketmq-home")
        namesrv = {
            "listenPort": self.ports["namesrv"], "bindAddress": "127.0.0.1", "rocketmqHome": home,
            "kvConfigPath": self.dir / "namesrv/kvConfig.json",
            "enableControllerInNamesrv": "true",
            "controllerType": "DLedger",
            "controllerDLegerGroup": "group1",
            "controllerDLegerPeers": f"n0-127.0.0.1:{self.ports['controller']}",
            "controllerDLegerSelfId": "n0",
            "controllerStorePath": self.dir / "namesrv/controller",
            "mappedFileSize": 16 * 1024 * 1024,  # the controller's DLedger log (1 GiB by default)
            "configStorePath": self.dir / "namesrv/controller.properties",
            **CONTROLLER_DEFAULTS,
        }  # fmt: skip
        _properties(conf / "namesrv.conf", namesrv)
        for name in self.broker_names():
            store = self.dir / name / "store"
            broker = {
                "brokerClusterName": CLUSTER, "brokerName": BROKER, "brokerId": -1,
                "enableControllerMode": "true", "controllerAddr": self.controller_address,
                "namesrvAddr": self.namesrv_address, "rocketmqHome": home,
                "brokerIP1": "127.0.0.1", "brokerIP2": "127.0.0.1", "bindAddress": "127.0.0.1",
                "listenPort": self.ports[name], "haListenPort": self.ports[f"{name}-ha"],
                "storePathRootDir": store, "storePathCommitLog": store / "commitlog",
                "mappedFileSizeCommitLog": 64 * 1024 * 1024,
                "mappedFileSizeConsumeQueue": 30000 * 20,
                "mappedFileSizeTimerLog": 16 * 1024 * 1024,
                "maxHashSlotNum": 50000, "maxIndexNum": 200000,
                "transientStorePoolEnable": "false", "warmMapedFileEnable": "false",
                # Topics exist once an admin made them, as ours; a group the broker does not know is served
                # with the defaults (Java's default autoCreateSubscriptionGroup=true), as ours.
                "autoCreateTopicEnable": "false", "autoCreateSubscriptionGroup": "true",
                # Our sandbox's quick failure detection (its names are Java's), so that failovers compare.
                **{k: v for k, v in BROKER_DEFAULTS.items() if k != "mappedFileSizeCommitLog"},
            }  # fmt: skip
            _properties(conf / f"{name}.conf", broker)
        proxy = {
            "rocketMQClusterName": CLUSTER, "proxyClusterName": CLUSTER, "proxyName": "reference-proxy",
            "namesrvAddr": self.namesrv_address, "proxyMode": "cluster",
            "grpcServerPort": self.ports["proxy-grpc"], "remotingListenPort": self.ports["proxy-remoting"],
            "localServeAddr": "127.0.0.1", "grpcShutdownTimeSeconds": 1, "enablePrintJstack": False,
        }  # fmt: skip
        # The gRPC server builds its TLS context whatever tls.server.mode says; in test mode it generates a
        # self-signed certificate first (20 s on a loaded machine): give it one that openssl made instead.
        tls = self._certificate()
        if tls is not None:
            proxy.update(tlsTestModeEnable=False, tlsKeyPath=str(tls[0]), tlsCertPath=str(tls[1]))
        (conf / "rmq-proxy.json").write_text(json.dumps(proxy, indent=2) + "\n")

    def _certificate(self) -> tuple[Path, Path] | None:
        key, cert = self.dir / "conf/tls/proxy.key", self.dir / "conf/tls/proxy.crt"
        key.parent.mkdir(parents=True, exist_ok=True)
        try:
            command = [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                str(key),
                "-out",
                str(cert),
                "-days",
                "3650",
                "-subj",
                "/CN=localhost",
            ]
            subprocess.run(command, check=True, capture_output=True, timeout=60)  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            return None
        return key, cert

    def _jvm(self, name: str, heap: tuple[str, str], direct: str | None = None, logback: str = "") -> list[str]:
        base = self.dir / name
        for sub in ("home", "tmp"):
            (base / sub).mkdir(parents=True, exist_ok=True)
        opts = [self.java, "-server", f"-Xms{heap[0]}", f"-Xmx{heap[1]}", "-XX:+UseSerialGC",
                "-XX:-OmitStackTraceInFastThrow", "-Djava.net.preferIPv4Stack=true",
                f"-Duser.home={base / 'home'}", f"-Djava.io.tmpdir={base / 'tmp'}",
                f"-Drocketmq.home.dir={self.dir / 'rocketmq-home'}", "-Dfile.encoding=UTF-8", self.marker,
                "-Dtls.server.mode=disabled",  # plaintext, as our access point in the test; and TLS's start is slow
                *OPENS]  # fmt: skip
        if logback:  # the jars hold every role's logback file: without this, each JVM would take the broker's
            opts.append(f"-Drmq.logback.configurationFile=rmq.{logback}.logback.xml")
        if direct:
            opts.append(f"-XX:MaxDirectMemorySize={direct}")
        if self.quick_jit:
            opts.append("-XX:TieredStopAtLevel=1")
        return [*opts, "-cp", self.classpath]

    def _env(self) -> dict[str, str]:
        env = {
            k: v for k, v in os.environ.items() if k not in ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS")
        }
        env["ROCKETMQ_HOME"] = str(self.dir / "rocketmq-home")
        env["RMQ_PROXY_HOME"] = str(self.dir / "rocketmq-home")
        env["LD_PRELOAD"] = str(self.shim)
        env.pop("NAMESRV_ADDR", None)
        return env

    def _spawn(self, name: str, main: str, args: list[str], heap: tuple[str, str], direct: str | None = None,
               logback: str = "") -> None:  # fmt: skip
        log = self.dir / "logs" / f"{name}.out"
        with log.open("ab") as out:
            proc = subprocess.Popen([*self._jvm(name, heap, direct, logback), main, *args], stdout=out,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=self._env(),
                                    cwd=self.dir / name, start_new_session=True)  # fmt: skip
        self.procs[name] = proc
        self.pids[name] = proc.pid

    def _spawn_proxy(self) -> None:
        # The proxy creates its system topic on the cluster as it starts: it needs the master.
        self._spawn("proxy", "org.apache.rocketmq.proxy.ProxyStartup",
                    ["-pc", str(self.dir / "conf/rmq-proxy.json"), "-pm", "cluster"], heap=("128m", "384m"),
                    direct="128m", logback="proxy")  # fmt: skip
        self._save()

    def _check_running(self) -> None:
        for name, proc in list(self.procs.items()):
            if name in self.killed:
                continue
            code = proc.poll()
            if code is not None and name == "proxy" and self.proxy_starts < 3:
                # It exits when a namesrv call at its start times out (3 s, fixed: a loaded machine): again.
                self.proxy_starts += 1
                self._spawn_proxy()
                continue
            if code is not None:
                tail = (self.dir / "logs" / f"{name}.out").read_text(errors="replace")[-3000:]
                raise ReferenceError(f"the {name} JVM exited with {code}:\n{tail}")

    def _wait_port(self, name: str, deadline: float) -> None:
        def open_() -> bool:
            self._check_running()
            with socket.create_connection(("127.0.0.1", self.ports[name]), timeout=1):
                return True

        _wait(open_, self._left(deadline), f"port {name} ({self.ports[name]}) to open", interval=0.2)

    def _master_listed(self) -> bool:
        self._check_running()
        return 0 in self.cluster_info()

    def _mark(self, what: str) -> None:
        self.timings[what] = round(time.monotonic() - self._began, 1)

    def _registered(self) -> bool:
        self._check_running()
        brokers = self.brokers()
        return sum(b.role == "master" for b in brokers) == 1 and all(
            b.broker_id > 0 and b.namesrv_id is not None for b in brokers
        )

    def _check_loopback(self) -> None:
        pids = [p for n, p in self.pids.items() if n not in self.killed]
        wild = [s for s in listening_sockets(pids) if not is_loopback(s[1])]
        if wild:
            raise ReferenceError(f"a reference JVM listens beyond loopback: {wild}")

    def listening(self) -> list[tuple[int, str, int]]:
        return listening_sockets(list(self.pids.values()))

    def _save(self) -> None:
        state = {"marker": self.marker, "pids": self.pids, "ports": self.ports}
        (self.dir / STATE).write_text(json.dumps(state, indent=2) + "\n")

    def stop(self, timeout: float = 20.0) -> None:
        """SIGTERM every JVM this cluster started (by pid), SIGKILL what is still running after `timeout`."""
        if self.admin is not None:
            self.admin.close()
            self.admin = None
        order = ["proxy", *self.broker_names(), "namesrv"]
        pids = {n: self.pids[n] for n in order if n in self.pids}
        terminate(pids, self.marker, timeout, {p.pid: p for p in self.procs.values()})

    @classmethod
    def stop_directory(cls, directory: Path, timeout: float = 20.0) -> list[str]:
        """Stop the JVMs a cluster started in `directory` (by another process, e.g. ``up``): their names."""
        state = json.loads((Path(directory) / STATE).read_text())
        live = {n: p for n, p in state["pids"].items() if _pid_alive(p, state["marker"])}
        terminate(live, state["marker"], timeout)
        return sorted(live)

    # --- what the namesrv and the controller say ---

    def sync_state(self) -> dict[str, Any]:
        """The controller's BrokerReplicasInfo entry of ``broker-a`` (master, in-sync and other replicas)."""
        code, remark, body = remoting_call(self.controller_address, CONTROLLER_GET_SYNC_STATE_DATA,
                                           body=json.dumps([BROKER]).encode())  # fmt: skip
        if code != 0:
            raise ValueError(f"GetSyncStateData: code {code} {remark}")
        table = fastjson(body).get("replicasInfoTable") or {}
        return dict(table.get(BROKER) or {})

    def cluster_info(self) -> dict[int, str]:
        """The namesrv's broker address table of ``broker-a``: {namesrv broker id: address}."""
        code, remark, body = remoting_call(self.namesrv_address, GET_BROKER_CLUSTER_INFO)
        if code != 0:
            raise ValueError(f"GetBrokerClusterInfo: code {code} {remark}")
        entry = (fastjson(body).get("brokerAddrTable") or {}).get(BROKER) or {}
        return {int(k): str(v) for k, v in (entry.get("brokerAddrs") or {}).items()}

    def brokers(self) -> list[BrokerProc]:
        """Every broker JVM this cluster started, with its id and role as the controller and namesrv report them."""
        state = self.sync_state()
        in_sync = state.get("inSyncReplicas") or []
        replicas = {r["brokerAddress"]: r for r in [*in_sync, *(state.get("notInSyncReplicas") or [])]}
        master = state.get("masterAddress") if state.get("masterBrokerId") is not None else None
        listed = {address: nid for nid, address in self.cluster_info().items()}
        out = []
        for name in self.broker_names():
            address = self.broker_address(name)
            replica = replicas.get(address)
            alive_in_controller = bool(replica and replica.get("alive"))
            role = "master" if address == master and alive_in_controller else "slave" if alive_in_controller else "down"
            out.append(BrokerProc(
                name=BROKER, broker_id=int(replica["brokerId"]) if replica else -1, pid=self.pids[name], role=role,
                address=address, namesrv_id=listed.get(address),
                alive=self._alive(name),
            ))  # fmt: skip
        return out

    def _alive(self, name: str) -> bool:
        if name in self.killed:
            return False
        if name in self.procs:
            return self.procs[name].poll() is None
        return _pid_alive(self.pids[name], self.marker)

    @classmethod
    def attach(cls, directory: Path, classpath: str) -> JavaCluster:
        """The cluster another process started in `directory` (``up``), from its cluster.json: to ask it, admin
        it, or stop it (its JVMs are not this process's children)."""
        cluster = cls(directory, classpath)
        state = json.loads((cluster.dir / STATE).read_text())
        cluster.pids = {k: int(v) for k, v in state["pids"].items() if k != "admin"}
        cluster.ports = {k: int(v) for k, v in state["ports"].items()}
        cluster.marker = state["marker"]
        cluster.shim = cluster.dir / "libloopback_bind.so"
        return cluster

    def master(self) -> BrokerProc | None:
        return next((b for b in self.brokers() if b.role == "master"), None)

    def kill_master(self) -> BrokerProc:
        """SIGKILL the master broker's JVM; the broker it was."""
        master = self.master()
        if master is None:
            raise ReferenceError("no master to kill")
        name = next(n for n, p in self.pids.items() if p == master.pid)
        os.kill(master.pid, signal.SIGKILL)
        if name in self.procs:
            self.procs[name].wait(timeout=10)
        self.killed.add(name)
        return master

    def wait_master(self, other_than_pid: int, timeout: float) -> BrokerProc:
        """Wait until the controller names an alive master that is not `other_than_pid`, and the namesrv lists it
        as the master (id 0); that broker."""

        def elected() -> BrokerProc | None:
            found = self.master()
            if found is None or found.pid == other_than_pid or not found.alive or found.namesrv_id != 0:
                return None
            return found

        return _wait(elected, timeout, f"a master other than pid {other_than_pid}", interval=0.5)

    # --- admin ---

    def mqadmin(self, *args: str, timeout: float = 60) -> str:
        """``mqadmin <args>`` against this cluster (``-n`` is added); what it printed."""
        if self.admin is None:
            jvm = self._jvm("admin", ("64m", "192m"), logback="tools")
            jvm[-1] = f"{admin_classes(self.classpath)}:{self.classpath}"
            command = [*jvm, "-XX:TieredStopAtLevel=1", "AdminServer"]
            self.admin = AdminTool(command, self._env(), self.dir / "logs" / "admin.out")
            self.pids["admin"] = self.admin.pid
            self._save()
        return self.admin(*args, "-n", self.namesrv_address, timeout=timeout)

    def create_topic(self, name: str, message_type: str = "NORMAL", queues: int = 8) -> None:
        """``mqadmin updateTopic`` on the cluster: `queues` read and write queues, ``+message.type=<message_type>``
        (and ``-o true`` for FIFO, as RocketMQ's docs create a FIFO topic)."""
        if message_type not in MESSAGE_TYPES:
            raise ValueError(f"message type {message_type!r}: one of {MESSAGE_TYPES}")
        args = ["updateTopic", "-c", CLUSTER, "-t", name, "-r", str(queues), "-w", str(queues),
                "-a", f"+message.type={message_type}"]  # fmt: skip
        if message_type == "FIFO":
            args += ["-o", "true"]
        self._admin_until_done(args, "create topic to")

    def create_group(self, name: str, orderly: bool = False, retry_max_times: int = 16) -> None:
        """``mqadmin updateSubGroup`` on the cluster."""
        args = ["updateSubGroup", "-c", CLUSTER, "-g", name, "-o", str(orderly).lower(), "-r", str(retry_max_times)]
        self._admin_until_done(args, "create subscription group to")

    def _admin_until_done(self, args: list[str], success: str, attempts: int = 4) -> None:
        """An idempotent mqadmin command, again while it fails: its calls have a 5 s budget in all, that a
        loaded machine overruns."""
        for attempt in range(attempts):
            try:
                _check_admin(self.mqadmin(*args), success)
                return
            except ReferenceError:
                if attempt == attempts - 1:
                    raise
                time.sleep(1)


def admin_classes(classpath: str) -> Path:
    """java/AdminServer.java compiled (once per source, in the cache directory): the folder of its class."""
    source = JAVA_DIR / "AdminServer.java"
    out = cache_dir() / "admin" / hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    if not (out / "AdminServer.class").exists():
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run(["javac", "-nowarn", "-cp", classpath, "-d", str(out), str(source)], check=True,
                       capture_output=True, timeout=300)  # fmt: skip
    return out


def _check_admin(printed: str, success: str) -> None:
    """mqadmin prints its failures (exit code 0 regardless): it succeeded if it said so and raised nothing."""
    if f"{success} " not in printed or "success" not in printed or "Exception" in printed:
        raise ReferenceError(f"mqadmin failed:\n{printed[-3000:]}")


def _properties(path: Path, values: dict[str, Any]) -> None:
    path.write_text("".join(f"{k}={v}\n" for k, v in values.items()))


# --- by hand -------------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.harness.java_cluster",
        description="Start or stop the Java RocketMQ 5 reference cluster on loopback.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="start it and leave it running; prints the proxy endpoint")
    up.add_argument("--dir", required=True, type=Path)
    up.add_argument("--timeout", type=float, default=120)
    up.add_argument("--quick-jit", action="store_true", help="C1 only: faster start, slower run")
    up.add_argument("--topic", action="append", default=[], metavar="NAME[:TYPE]",
                    help="create a topic (TYPE NORMAL, FIFO, DELAY or TRANSACTION), repeatable")  # fmt: skip
    up.add_argument("--group", action="append", default=[], metavar="NAME", help="create a consumer group")
    down = sub.add_parser("down", help="stop what `up` started in --dir")
    down.add_argument("--dir", required=True, type=Path)
    args = parser.parse_args(argv)
    if args.command == "down":
        stopped = JavaCluster.stop_directory(args.dir)
        print(json.dumps({"stopped": stopped}))
        return 0
    cluster = JavaCluster(args.dir, classpath(), quick_jit=args.quick_jit)
    cluster.start(args.timeout)
    try:
        for spec in args.topic:
            name, _, kind = spec.partition(":")
            cluster.create_topic(name, kind or "NORMAL")
        for group in args.group:
            cluster.create_group(group)
    except BaseException:
        cluster.stop()
        raise
    if cluster.admin is not None:  # the admin JVM is not left running
        cluster.admin.close()
        cluster.admin = None
        cluster.pids.pop("admin", None)
        cluster._save()
    print(json.dumps({
        "proxyEndpoint": cluster.proxy_endpoint, "namesrvAddress": cluster.namesrv_address,
        "controllerAddress": cluster.controller_address, "version": version(),
        "startSeconds": round(cluster.start_seconds or 0, 1), "steps": cluster.timings,
        "cpuSeconds": cluster.cpu_seconds, "pids": cluster.pids,
        "brokers": [asdict(b) for b in cluster.brokers()],
    }, indent=2))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
