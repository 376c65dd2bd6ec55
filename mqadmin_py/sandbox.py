"""A real local controller group on loopback, for trying things, demos and tests.

``Sandbox(dir).up(controllers=3)`` writes one config file per node, starts
each ``mqcontroller`` as a detached process (its own session, logs and pid
file under ``dir``), and waits until a leader serves. ``down()`` stops
exactly the processes whose pid files it wrote, checking each pid still runs
our command line before signalling it (a recycled pid is never killed).
Ports are ephemeral ones the OS hands out.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from mqadmin_py.client import ControllerClient
from mqadmin_py.errors import ControllerUnavailable, MqError, TimedOut, UsageError
from mqadmin_py.properties import write_properties_atomic

STATE_FILE = "sandbox.json"


def free_ports(count: int) -> list[int]:
    """Ports the OS considers free on 127.0.0.1 now (all held open together so they differ)."""
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@dataclass(frozen=True, slots=True)
class ControllerProcess:
    """One sandbox controller node."""

    id: str
    address: str
    raftAddress: str
    configFile: str
    logFile: str
    pid: int | None = None


def _pid_alive(pid: int, marker: str) -> bool:
    """True when `pid` runs and its command line contains `marker` (our config path)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return False
    if marker not in cmdline:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


class Sandbox:
    """A controller group whose files all live under one directory."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory).expanduser().resolve()
        self._children: dict[int, subprocess.Popen[bytes]] = {}

    def _reap(self) -> None:
        """Collect the exit status of children this object started that have ended."""
        for pid, proc in list(self._children.items()):
            if proc.poll() is not None:
                del self._children[pid]

    # --- state ---------------------------------------------------------------------------------

    def _state_path(self) -> Path:
        return self.dir / STATE_FILE

    def controllers(self) -> list[ControllerProcess]:
        """The nodes this sandbox defines, with the pid of each one that runs now."""
        path = self._state_path()
        if not path.exists():
            return []
        doc = json.loads(path.read_text())
        nodes = []
        for item in doc["controllers"]:
            proc = ControllerProcess(**{**item, "pid": None})
            pid = self._read_pid(proc.id)
            nodes.append(ControllerProcess(**{**asdict(proc), "pid": pid}))
        return nodes

    def addresses(self) -> str:
        return ";".join(c.address for c in self.controllers())

    def _pid_file(self, node_id: str) -> Path:
        return self.dir / "run" / f"{node_id}.pid"

    def _read_pid(self, node_id: str) -> int | None:
        try:
            pid = int(self._pid_file(node_id).read_text().strip())
        except (OSError, ValueError):
            return None
        return pid if _pid_alive(pid, str(self.dir / "conf" / f"{node_id}.conf")) else None

    # --- life cycle ----------------------------------------------------------------------------

    def up(self, controllers: int = 3, extra_config: dict[str, str] | None = None, timeout: float = 20.0) -> None:
        """Create (or restart) the group and wait until a leader serves."""
        if controllers not in (1, 3, 5):
            raise UsageError("a controller group has 1, 3 or 5 nodes")
        if any(c.pid for c in self.controllers()):
            raise UsageError(f"a sandbox already runs in {self.dir}; run 'mqadmin sandbox down --dir {self.dir}' first")
        if not self._state_path().exists():
            self._create(controllers, extra_config or {})
        for node in self.controllers():
            self.start(node.id)
        self.wait_for_leader(timeout)

    def _create(self, count: int, extra: dict[str, str]) -> None:
        ports = free_ports(2 * count)
        ids = [f"n{i}" for i in range(count)]
        peers = ";".join(f"{i}-127.0.0.1:{ports[2 * k]}:{ports[2 * k + 1]}" for k, i in enumerate(ids))
        nodes = []
        for k, node_id in enumerate(ids):
            conf = self.dir / "conf" / f"{node_id}.conf"
            values = {
                "controllerGroup": "sandbox",
                "controllerPeers": peers,
                "controllerSelfId": node_id,
                "controllerStorePath": str(self.dir / "store"),
                **extra,
            }
            write_properties_atomic(conf, values, "mqadmin sandbox controller")
            nodes.append(
                ControllerProcess(
                    id=node_id,
                    address=f"127.0.0.1:{ports[2 * k + 1]}",
                    raftAddress=f"127.0.0.1:{ports[2 * k]}",
                    configFile=str(conf),
                    logFile=str(self.dir / "logs" / f"{node_id}.log"),
                )
            )
        (self.dir / "logs").mkdir(parents=True, exist_ok=True)
        (self.dir / "run").mkdir(parents=True, exist_ok=True)
        doc = {"controllers": [{k: v for k, v in asdict(n).items() if k != "pid"} for n in nodes]}
        self._state_path().write_text(json.dumps(doc, indent=2) + "\n")

    def _node(self, node_id: str) -> ControllerProcess:
        for node in self.controllers():
            if node.id == node_id:
                return node
        raise UsageError(f"no controller {node_id!r} in the sandbox at {self.dir}")

    def start(self, node_id: str) -> int:
        """Start one node (no-op if it runs); returns its pid."""
        node = self._node(node_id)
        if node.pid:
            return node.pid
        env = {**os.environ, "GRPC_VERBOSITY": "ERROR", "PYTHONUNBUFFERED": "1"}
        root = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        with open(node.logFile, "ab") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "controller", "-c", node.configFile],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
            )
        self._children[proc.pid] = proc
        self._pid_file(node_id).write_text(f"{proc.pid}\n")
        self._reap()
        return proc.pid

    def signal(self, node_id: str, sig: int) -> int:
        """Send a signal to one running node (SIGKILL, SIGSTOP, ...); returns its pid."""
        node = self._node(node_id)
        if not node.pid:
            raise UsageError(f"controller {node_id} is not running")
        os.kill(node.pid, sig)
        return node.pid

    def stop(self, node_id: str, timeout: float = 10.0) -> None:
        """SIGTERM one node and wait; SIGKILL if it does not exit in time."""
        node = self._node(node_id)
        if node.pid:
            _terminate(node.pid, node.configFile, timeout)
        self._pid_file(node_id).unlink(missing_ok=True)
        self._reap()

    def down(self, timeout: float = 10.0) -> list[ControllerProcess]:
        """Stop every node this sandbox started; returns the ones that were running."""
        stopped = [n for n in self.controllers() if n.pid]
        for node in stopped:
            assert node.pid is not None
            os.kill(node.pid, signal.SIGCONT)  # a SIGSTOPped node cannot handle SIGTERM
            os.kill(node.pid, signal.SIGTERM)
        for node in stopped:
            assert node.pid is not None
            _terminate(node.pid, node.configFile, timeout)
        for node in self.controllers():
            self._pid_file(node.id).unlink(missing_ok=True)
        for proc in self._children.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout)
        self._reap()
        return stopped

    def wait_for_leader(self, timeout: float = 20.0) -> str:
        """Block until some node serves as leader; returns its id."""
        deadline = time.monotonic() + timeout
        last = "no node answered"
        with ControllerClient(self.addresses(), timeout=1.0) as client:
            while time.monotonic() < deadline:
                for node in self.controllers():
                    try:
                        meta = client.metadata(node.address)
                    except MqError as exc:
                        last = str(exc)
                        continue
                    if meta.is_leader and meta.raft.ready:
                        return meta.self_id
                    last = f"{node.id}: leader={meta.controller_leader_id or 'none'}"
                time.sleep(0.05)
        if not any(n.pid for n in self.controllers()):
            raise ControllerUnavailable(f"no sandbox controller is running; see the logs in {self.dir / 'logs'}")
        raise TimedOut(f"no controller leader within {timeout:g} s ({last}); see {self.dir / 'logs'}")


def _terminate(pid: int, marker: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    if _pid_alive(pid, marker):
        os.kill(pid, signal.SIGTERM)
    while _pid_alive(pid, marker):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            time.sleep(0.05)
            break
        time.sleep(0.02)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reap if it was our child
