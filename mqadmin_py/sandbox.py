"""A real local cluster on loopback, for trying things, demos and tests.

``Sandbox(dir).up()`` writes one config file per process, starts each
``mqcontroller`` and ``mqagent`` as a detached process (its own session, log
and pid file under ``dir``), and waits until a controller leader serves and
every broker set has an alive master and a full SyncStateSet. Agent ``aK``
hosts replica K of every broker set (a RIP-31 container). ``down()`` stops
exactly the processes whose pid files it wrote, checking that each pid still
runs our command line before signalling it (a recycled pid is never killed).
Ports are ephemeral ones the OS hands out. ``up(secure=True)`` also makes TLS certificates, credentials and
a Raft password (``mqadmin_py.sandbox_secure``) and turns every security switch on; the sandbox's own calls
then use its credentials file.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import string
import subprocess
import sys
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from mqadmin_py.sandbox_state import DamagedState, pid_file_configs, read_state
from mqbase.client import ControllerClient
from mqbase.errors import ControllerUnavailable, Interrupted, MqError, TimedOut, UsageError
from mqbase.files import directory_problem
from mqbase.ports import free_ports
from mqbase.properties import write_properties_atomic
from mqbase.security import PLAINTEXT, ClientSecurity, client_security

STATE_FILE = "sandbox.json"
DEFAULT_CLUSTER = "DefaultCluster"
# Failures show up in seconds rather than the production defaults' tens of seconds, and a preferred master gets
# the role back within seconds (the README's runbook waits 30 s: more than one transfer interval plus a scan).
CONTROLLER_DEFAULTS = {
    "scanNotActiveBrokerInterval": "500",
    "scanInactiveMasterInterval": "1000",
    "scanPreferredMasterInterval": "1000",
    "preferredMasterTransferIntervalMs": "5000",
}
BROKER_DEFAULTS = {
    "allAckInSyncStateSet": "true",
    "brokerHeartbeatInterval": "500",
    "controllerHeartBeatTimeoutMills": "3000",
    "syncBrokerMetadataPeriod": "1000",
    "haMaxTimeSlaveNotCatchup": "5000",
    "haSendHeartbeatInterval": "1000",
    "haHousekeepingInterval": "5000",
    "syncFlushTimeout": "3000",
    "mappedFileSizeCommitLog": str(64 * 1024 * 1024),
}
Progress = Callable[[str], None]
LOG_TAIL_LINES = 5
"""Lines of a dead process's log that ``up`` quotes."""


@dataclass(frozen=True, slots=True)
class ControllerProcess:
    """One sandbox controller node."""

    id: str
    address: str
    raftAddress: str
    configFile: str
    logFile: str
    pid: int | None = None


@dataclass(frozen=True, slots=True)
class BrokerReplica:
    """One broker replica hosted by a sandbox agent."""

    clusterName: str
    brokerName: str
    brokerAddress: str
    haAddress: str
    configFile: str


@dataclass(frozen=True, slots=True)
class AgentProcess:
    """One sandbox mqagent (container port `address`) and the replicas it hosts."""

    id: str
    address: str
    configFile: str
    logFile: str
    brokers: tuple[BrokerReplica, ...] = field(default=())
    proxyAddress: str = ""
    """Its RocketMQ 5 gRPC access point ("" in a sandbox made before there was one)."""
    pid: int | None = None


Process = ControllerProcess | AgentProcess


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


def exit_report(exits: list[tuple[str, int, str, str]]) -> str:
    """The error for processes that ended while ``up`` waited: (id, exit code, log file, log text) each, with the
    last lines of its log, so the cause (a port in use, a bad store) shows without opening a file."""
    parts = []
    for node_id, code, log_file, text in exits:
        tail = [line for line in text.splitlines() if line.strip()][-LOG_TAIL_LINES:] or ["(empty log)"]
        parts.append(f"{node_id} exited with code {code} at start; last lines of {log_file}:\n" +
                     "\n".join(f"  {line}" for line in tail))  # fmt: skip
    return "\n".join(parts) + "\nstop the rest with 'mqadmin sandbox down'"


def broker_set_names(count: int) -> list[str]:
    """broker-a, broker-b, ..., broker-z, broker-aa, ..."""
    letters = string.ascii_lowercase
    names = []
    for i in range(count):
        suffix = letters[i % 26] * (i // 26 + 1)
        names.append(f"broker-{suffix}")
    return names


class Sandbox:
    """A controller group and broker agents whose files all live under one directory."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory).expanduser().resolve()
        self._children: dict[int, subprocess.Popen[bytes]] = {}
        self._node_of: dict[int, str] = {}
        """The node id each child was started for."""
        self._started: dict[str, subprocess.Popen[bytes]] = {}
        """The last process this object started for each node id."""

    def _check_started(self, watch: Collection[str]) -> None:
        """Raise at once, naming them, when processes `up` started (node ids) have exited (a port in use, ...)."""
        exits = []
        for node_id in watch:
            code = self._started[node_id].poll()
            if code is not None:
                log_file = self._process(node_id).logFile
                try:
                    text = Path(log_file).read_text(errors="replace")
                except OSError as exc:
                    text = f"(log unreadable: {exc})"
                exits.append((node_id, code, log_file, text))
        if exits:
            raise MqError(exit_report(exits))

    def _reap(self) -> None:
        """Collect the exit status of children this object started that have ended."""
        for pid, proc in list(self._children.items()):
            if proc.poll() is not None:
                del self._children[pid]
                self._node_of.pop(pid, None)

    # --- state ---------------------------------------------------------------------------------

    def _state_path(self) -> Path:
        return self.dir / STATE_FILE

    def _state(self) -> dict[str, Any]:
        """The state file as ``up`` wrote it, checked (``sandbox_state``): not a CLI document, its items go straight
        into the process dataclasses. DamagedState (one line) when it cannot be used."""
        shapes = {"controllers": ControllerProcess, "agents": AgentProcess}
        return read_state(self._state_path(), shapes, {"brokers": BrokerReplica})

    def controllers(self) -> list[ControllerProcess]:
        """The controller nodes this sandbox defines, with the pid of each one that runs now."""
        nodes = [ControllerProcess(**{**item, "pid": None}) for item in self._state()["controllers"]]
        return [replace(n, pid=self._read_pid(n)) for n in nodes]

    def agents(self) -> list[AgentProcess]:
        """The agents this sandbox defines, with the pid of each one that runs now."""
        agents = []
        for item in self._state()["agents"]:
            brokers = tuple(BrokerReplica(**b) for b in item["brokers"])
            agent = AgentProcess(**{**item, "brokers": brokers, "pid": None})
            agents.append(replace(agent, pid=self._read_pid(agent)))
        return agents

    def processes(self) -> list[Process]:
        return [*self.controllers(), *self.agents()]

    def addresses(self) -> str:
        return ";".join(c.address for c in self.controllers())

    def proxy_endpoints(self) -> str:
        """Every agent's RocketMQ 5 access point, ``host:port;host:port;...`` (the clients' endpoints)."""
        return ";".join(a.proxyAddress for a in self.agents() if a.proxyAddress)

    @property
    def credentials_file(self) -> Path | None:
        """The mqadmin credentials file of a secure sandbox (None: security is off)."""
        from mqadmin_py.sandbox_secure import CREDENTIALS_FILE

        path = self.dir / CREDENTIALS_FILE
        return path if path.exists() else None

    def security(self) -> ClientSecurity:
        """How to call this sandbox's processes: its credentials file's TLS and admin key, or plaintext."""
        path = self.credentials_file
        return PLAINTEXT if path is None else client_security({}, False, path)

    def broker_sets(self) -> list[str]:
        return sorted({b.brokerName for a in self.agents() for b in a.brokers})

    def pid_file_processes(self) -> list[Process]:
        """The processes ``run/*.pid`` names that still run with their node's config (``pid_file_configs``), for
        when the state file cannot say: only ids, pids and config paths are known of them."""
        found: list[Process] = []
        for path in sorted((self.dir / "run").glob("*.pid")):
            try:
                pid = int(path.read_text().strip())
            except (OSError, ValueError):
                continue
            controller_conf, agent_conf = pid_file_configs(self.dir, path.stem)
            if _pid_alive(pid, str(controller_conf)):
                found.append(ControllerProcess(path.stem, "", "", str(controller_conf), "", pid))
            elif _pid_alive(pid, str(agent_conf)):
                found.append(AgentProcess(path.stem, "", str(agent_conf), "", pid=pid))
        return found

    def _pid_file(self, node_id: str) -> Path:
        return self.dir / "run" / f"{node_id}.pid"

    def _read_pid(self, proc: Process) -> int | None:
        """The pid `proc` runs as: a running child this object started for its config (whatever the pid file
        says, so that a start that failed later cannot hide it), else the pid file's if that process runs."""
        for pid, child in self._children.items():
            if self._node_of.get(pid) == proc.id and child.poll() is None:
                return pid
        try:
            pid = int(self._pid_file(proc.id).read_text().strip())
        except (OSError, ValueError):
            return None
        return pid if _pid_alive(pid, proc.configFile) else None

    def _process(self, node_id: str) -> Process:
        for proc in self.processes():
            if proc.id == node_id:
                return proc
        known = ", ".join(p.id for p in self.processes()) or "none"
        raise UsageError(f"no process {node_id!r} in the sandbox at {self.dir} (known: {known})")

    # --- life cycle ----------------------------------------------------------------------------

    def up(
        self,
        controllers: int = 3,
        extra_config: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        *,
        broker_sets: int = 0,
        replicas: int = 3,
        cluster_name: str = DEFAULT_CLUSTER,
        broker_config: Mapping[str, str] | None = None,
        progress: Progress | None = None,
        secure: bool = False,
    ) -> None:
        """Create the sandbox (or start what is stopped of an existing one) and wait until it serves.

        The shape arguments apply only when the sandbox is created; an existing one restarts as it was.
        `broker_sets=0` makes a controller-only sandbox. `secure`: TLS (client certificates required), the ACL
        and an encrypted Raft, with material made under the directory.
        """
        say = progress or (lambda _text: None)
        creating = not self._state_path().exists()
        if creating and controllers not in (1, 3, 5):  # checked before anything is written: nothing left behind
            raise UsageError("a controller group has 1, 3 or 5 nodes")
        if creating and (broker_sets < 0 or not 1 <= replicas <= 9):
            raise UsageError("broker sets must be 0 or more, and replicas per set 1 to 9")
        if problem := directory_problem(self.dir):
            raise UsageError(f"sandbox directory: {problem}")
        if creating:
            self._create(controllers, dict(extra_config or {}), broker_sets, replicas, cluster_name,
                         dict(broker_config or {}), secure)  # fmt: skip
        say(f"starting {len(self.controllers())} controller(s) in {self.dir}")
        watch = [node.id for node in self.controllers() if not node.pid]
        try:
            for node_id in watch:
                self.start(node_id)
            say("waiting for a controller leader")
            self.wait_for_leader(timeout, watch)
            agents = self.agents()
            if agents:
                say(f"starting {len(agents)} agent(s)")
                watch += [agent.id for agent in agents if not agent.pid]
                for agent in agents:
                    self.start(agent.id)
                self.wait_for_brokers(timeout, say, watch)
        except KeyboardInterrupt:
            raise self._undo_start(watch) from None

    def _undo_start(self, watch: list[str]) -> Interrupted:
        """Ctrl-C during ``up``: stop the processes it started (`watch`; the others ran before it, and go on), with
        a second Ctrl-C ignored until they are gone. Returns the error saying so."""
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            started = [node_id for node_id in watch if node_id in self._started]
            for node_id in reversed(started):  # agents first: they leave while the controllers can hear them
                self.stop(node_id, timeout=5.0)
        finally:
            signal.signal(signal.SIGINT, previous)
        what = f"stopped {', '.join(started)}, which it had started" if started else "nothing was started yet"
        return Interrupted(f"interrupted 'sandbox up' in {self.dir}: {what}; its files stay ('sandbox up' starts it "
                           "again, 'sandbox down --purge' removes it)")  # fmt: skip

    def _create(self, count: int, extra: dict[str, str], sets: int, replicas: int, cluster: str,
                broker_extra: dict[str, str], secure: bool) -> None:  # fmt: skip
        agents = replicas if sets else 0
        security: dict[str, str] = {}
        raft: dict[str, str] = {}
        if secure:
            from mqadmin_py.sandbox_secure import create

            (self.dir / "conf").mkdir(parents=True, exist_ok=True)
            (self.dir / "conf").chmod(0o700)  # the configs hold secrets
            material = create(self.dir)
            security, raft = material.process_keys(), {"raftPassword": material.raft_password}
        ports = iter(free_ports(2 * count + agents * (2 + 2 * sets)))
        ids = [f"n{i}" for i in range(count)]
        raft_addr = {i: f"127.0.0.1:{next(ports)}" for i in ids}
        grpc_addr = {i: f"127.0.0.1:{next(ports)}" for i in ids}
        peers = ";".join(f"{i}-{raft_addr[i]}:{grpc_addr[i].rsplit(':', 1)[1]}" for i in ids)
        nodes = []
        for node_id in ids:
            conf = self.dir / "conf" / f"{node_id}.conf"
            values = {
                "controllerGroup": "sandbox",
                "controllerPeers": peers,
                "controllerSelfId": node_id,
                "controllerStorePath": str(self.dir / "store"),
                **CONTROLLER_DEFAULTS,
                **security,
                **raft,
                **extra,
            }
            write_properties_atomic(conf, values, "mqadmin sandbox controller")
            nodes.append(ControllerProcess(node_id, grpc_addr[node_id], raft_addr[node_id], str(conf),
                                           str(self.dir / "logs" / f"{node_id}.log")))  # fmt: skip
        controller_addr = ";".join(grpc_addr.values())
        agent_docs = []
        for k in range(agents):
            agent_id = f"a{k}"
            conf_dir = self.dir / "conf" / agent_id
            port, proxy_port = next(ports), next(ports)
            brokers = []
            for name in broker_set_names(sets):
                listen, ha = next(ports), next(ports)
                broker_conf = conf_dir / f"{name}.conf"
                values = {
                    "brokerClusterName": cluster,
                    "brokerName": name,
                    "listenPort": str(listen),
                    "haListenPort": str(ha),
                    "storePathRootDir": str(self.dir / "store" / agent_id / name),
                    "controllerAddr": controller_addr,
                    "totalReplicas": str(replicas),
                    **BROKER_DEFAULTS,
                    **broker_extra,
                }
                write_properties_atomic(broker_conf, values, f"mqadmin sandbox broker {name} on {agent_id}")
                brokers.append(BrokerReplica(cluster, name, f"127.0.0.1:{listen}", f"127.0.0.1:{ha}",
                                             str(broker_conf)))  # fmt: skip
            agent_conf = conf_dir / "agent.conf"
            values = {
                "listenPort": str(port),
                "proxyListenPort": str(proxy_port),
                "brokerConfigPaths": ";".join(b.configFile for b in brokers),
                "agentStorePath": str(self.dir / "store" / agent_id / "agent"),
                **security,
            }
            write_properties_atomic(agent_conf, values, f"mqadmin sandbox agent {agent_id}")
            agent = AgentProcess(agent_id, f"127.0.0.1:{port}", str(agent_conf),
                                 str(self.dir / "logs" / f"{agent_id}.log"), tuple(brokers),
                                 f"127.0.0.1:{proxy_port}")  # fmt: skip
            agent_docs.append({**asdict(agent), "brokers": [asdict(b) for b in brokers]})
        if secure:
            for path in (self.dir / "conf").rglob("*.conf"):
                path.chmod(0o600)
        (self.dir / "logs").mkdir(parents=True, exist_ok=True)
        (self.dir / "run").mkdir(parents=True, exist_ok=True)
        for doc in agent_docs:
            del doc["pid"]
        doc = {
            "controllers": [{k: v for k, v in asdict(n).items() if k != "pid"} for n in nodes],
            "agents": agent_docs,
        }
        self._state_path().write_text(json.dumps(doc, indent=2) + "\n")

    def start(self, node_id: str) -> int:
        """Start one controller or agent (no-op if it runs); returns its pid."""
        proc = self._process(node_id)
        if proc.pid:
            return proc.pid
        module = "mqadmin_py.mqcontroller" if isinstance(proc, ControllerProcess) else "mqadmin_py.mqagent"
        env = {**os.environ, "GRPC_VERBOSITY": "ERROR", "PYTHONUNBUFFERED": "1"}
        root = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        with open(proc.logFile, "ab") as log:
            child = subprocess.Popen(
                [sys.executable, "-m", module, "-c", proc.configFile],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
            )
        self._children[child.pid] = child
        self._node_of[child.pid] = node_id
        self._started[node_id] = child
        self._pid_file(node_id).write_text(f"{child.pid}\n")
        self._reap()
        return child.pid

    def signal(self, node_id: str, sig: int) -> int:
        """Send a signal to one running process (SIGKILL, SIGSTOP, ...); returns its pid."""
        proc = self._process(node_id)
        if not proc.pid:
            raise UsageError(f"{node_id} is not running; start it with 'mqadmin sandbox start {node_id}'")
        os.kill(proc.pid, sig)
        return proc.pid

    def stop(self, node_id: str, timeout: float = 10.0) -> None:
        """SIGTERM one process and wait; SIGKILL if it does not exit in time."""
        proc = self._process(node_id)
        child = self._children.get(proc.pid) if proc.pid else None
        if child is not None:  # ours: stopped through its Popen, which also sees it before its exec completes
            child.terminate()
            try:
                child.wait(timeout)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()  # gone, so its store lock is free for the next start
        elif proc.pid:
            _terminate(proc.pid, proc.configFile, timeout)
        self._pid_file(node_id).unlink(missing_ok=True)
        self._reap()

    def down(self, timeout: float = 15.0, purge: bool = False) -> list[Process]:
        """Stop every process this sandbox started (agents first); returns the ones that were running.

        With a damaged state file, the processes its pid files name (``pid_file_processes``). `purge` then deletes
        the sandbox directory (only one that holds a sandbox state file).
        """
        try:
            known: list[Process] = self.processes()
        except DamagedState:
            known = self.pid_file_processes()
        agents = [a for a in known if isinstance(a, AgentProcess) and a.pid]
        controllers = [c for c in known if isinstance(c, ControllerProcess) and c.pid]
        for group in (agents, controllers):  # brokers leave while the controllers can still hear them
            for proc in group:
                assert proc.pid is not None
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGCONT)  # a SIGSTOPped process cannot handle SIGTERM
                    os.kill(proc.pid, signal.SIGTERM)
            for proc in group:
                assert proc.pid is not None
                _terminate(proc.pid, proc.configFile, timeout)
        for proc in known:
            self._pid_file(proc.id).unlink(missing_ok=True)
        for child in self._children.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout)
        self._reap()
        if purge and self._state_path().exists():
            shutil.rmtree(self.dir)
        return [*agents, *controllers]

    # --- waiting and finding -------------------------------------------------------------------

    def wait_for_leader(self, timeout: float = 20.0, watch: Collection[str] = ()) -> str:
        """Block until some node serves as leader; returns its id. Ends at once when a `watch` process exits."""
        deadline = time.monotonic() + timeout
        last = "no node answered"
        with ControllerClient(self.addresses(), timeout=1.0, security=self.security()) as client:
            while time.monotonic() < deadline:
                self._check_started(watch)
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

    def wait_for_brokers(
        self, timeout: float = 60.0, progress: Progress | None = None, watch: Collection[str] = ()
    ) -> None:
        """Block until every broker set has an alive master and all its replicas alive in the SyncStateSet.

        Ends at once when a process of `watch` (node ids this object started) exits.
        """
        from mqbase.proto import controller_pb2 as pb

        wanted = {name: sum(1 for a in self.agents() for b in a.brokers if b.brokerName == name)
                  for name in self.broker_sets()}  # fmt: skip
        deadline = time.monotonic() + timeout
        last = "no answer yet"
        with ControllerClient(self.addresses(), timeout=1.0, security=self.security()) as client:
            while time.monotonic() < deadline:
                self._check_started(watch)
                try:
                    reply = client.call("GetSyncStateData", pb.GetSyncStateDataRequest(broker_names=list(wanted)))
                except MqError as exc:
                    last = str(exc)
                else:
                    ready, seen = set(), []
                    for info in reply.replicas_info:
                        alive = {r.broker_id for r in info.in_sync_replicas if r.alive}
                        master = info.master_broker_id if info.HasField("master_broker_id") else None
                        if master in alive and len(alive) >= wanted[info.broker_name]:
                            ready.add(info.broker_name)
                        seen.append(
                            f"{info.broker_name}: master {master}, {len(alive)}/{wanted[info.broker_name]} in sync"
                        )
                    if ready == set(wanted):
                        return
                    last = "; ".join(seen) or "no broker registered yet"
                if progress:
                    progress(f"waiting for masters and full SyncStateSets ({last})")
                time.sleep(0.2)
        errors = "".join(f"; {line}" for line in self._agent_errors())
        raise TimedOut(
            f"broker sets not ready within {timeout:g} s ({last}){errors}; see the logs in {self.dir / 'logs'}"
        )

    def _agent_errors(self) -> list[str]:
        """The last ERROR line of each agent's log, named by agent: a broker its agent could not start (its port
        taken, a bad config) keeps a set from filling while the agent itself runs on."""
        errors = []
        for agent in self.agents():
            try:
                lines = Path(agent.logFile).read_text(errors="replace").splitlines()
            except OSError:
                continue
            last = next((line for line in reversed(lines) if " ERROR " in line), None)
            if last is not None:
                errors.append(f"{agent.id}: {last.split(' ERROR ', 1)[1]}")
        return errors

    def broker_ids(self) -> dict[str, int]:
        """brokerAddress -> the broker id the controllers assigned it (ids are theirs, not the sandbox's); empty
        when no controller answers, so that status still shows the processes during an outage."""
        from mqbase.proto import controller_pb2 as pb

        if not self.broker_sets() or not any(c.pid for c in self.controllers()):
            return {}
        try:
            with ControllerClient(self.addresses(), timeout=1.0, security=self.security()) as client:
                reply = client.call("GetSyncStateData", pb.GetSyncStateDataRequest(broker_names=self.broker_sets()))
        except MqError:
            return {}
        return {r.broker_address: r.broker_id for i in reply.replicas_info
                for r in (*i.in_sync_replicas, *i.not_in_sync_replicas)}  # fmt: skip

    def master_agent(self, broker_name: str | None = None) -> tuple[AgentProcess, BrokerReplica]:
        """The agent hosting the current master of `broker_name` (default: the first set)."""
        from mqbase.proto import controller_pb2 as pb

        sets = self.broker_sets()
        if not sets:
            raise UsageError("this sandbox has no broker agents (create it with 'up --broker-sets N')")
        name = broker_name or sets[0]
        if name not in sets:
            raise UsageError(f"the sandbox has no broker set {name!r} (it has {', '.join(sets)})")
        with ControllerClient(self.addresses(), timeout=2.0, security=self.security()) as client:
            reply = client.call("GetSyncStateData", pb.GetSyncStateDataRequest(broker_names=[name]))
        master = next((i.master_address for i in reply.replicas_info if i.HasField("master_address")), None)
        for agent in self.agents():
            for broker in agent.brokers:
                if broker.brokerName == name and broker.brokerAddress == master:
                    return agent, broker
        raise UsageError(f"broker set {name} has no master now (see 'mqadmin getSyncStateSet -b {name}')")


def _terminate(pid: int, marker: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    if _pid_alive(pid, marker):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    while _pid_alive(pid, marker):
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            time.sleep(0.05)
            break
        time.sleep(0.02)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reap if it was our child
