"""The two clusters bench/vs_java.py compares, behind one small interface, so the workload code never asks which
side it drives.

`Ours`: a sandbox (1 controller, one broker set of 3 replicas on 3 ``mqagent`` processes, each serving the RocketMQ 5
access point); topics and groups through the ``mqadmin`` CLI, kills through the sandbox's pid files, the master moved
with ``transferMaster`` (the helpers of access_point.py). `Java`: the real Java RocketMQ 5 in controller mode,
``tests/harness/java_cluster.py`` (namesrv with the controller embedded, 2 brokers, a proxy in cluster mode).

The reference cluster has no call to restart a broker that ``kill_master`` killed, and a second kill needs one, so
`Java` replays the killed JVM's own command line, environment and working directory (read from /proc before the
kill) and puts the new process back into the cluster's ``procs``/``pids``: its ``stop()`` then stops it by pid, and
its ``brokers()`` reports it again. When the cluster grows a ``restart_broker(name)``, that is used instead.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

from _common import cpu_seconds
from access_point import cluster_view, first_access_point, master_on, new_master

from mqadmin_py.sandbox import BROKER_DEFAULTS, AgentProcess, ControllerProcess, Sandbox
from tests.harness.java_cluster import JavaCluster, remoting_call
from tests.harness.sandbox import CLUSTER, all_learnt
from tests.harness.wait import wait_until

QUEUES = 8
GET_ALL_TOPIC_CONFIG = 21
"""RocketMQ remoting request code: a broker's topic config table (a slave's is synced from its master)."""
JAVA_SETTINGS = ("brokerRole", "flushDiskType", "allAckInSyncStateSet", "inSyncReplicas", "minInSyncReplicas",
                 "controllerHeartBeatTimeoutMills", "brokerHeartbeatInterval", "enableControllerMode")  # fmt: skip
OURS_SETTINGS = ("allAckInSyncStateSet", "inSyncReplicas", "brokerHeartbeatInterval", "controllerHeartBeatTimeoutMills")


class Side(ABC):
    """One cluster as the workload sees it: endpoints, topics and groups, its server pids, and a master to kill."""

    name: str

    @abstractmethod
    def endpoints(self) -> str:
        """What the client is given for sends and receives."""

    @abstractmethod
    def kill_endpoints(self) -> str:
        """What the failover producer is given: an access point that survives the kill."""

    @abstractmethod
    def make_topic(self, name: str, message_type: str = "NORMAL") -> None:
        """A topic of `QUEUES` queues accepting `message_type` (NORMAL, FIFO, DELAY or TRANSACTION)."""

    @abstractmethod
    def make_group(self, name: str) -> None: ...

    @abstractmethod
    def server_pids(self) -> dict[str, int]:
        """Every server process of this cluster that runs now, by role."""

    @abstractmethod
    def settings(self, keys: tuple[str, ...] | None = None) -> dict[str, str]:
        """The broker settings `keys`; by default those that decide when a send returns and how fast a dead master
        is replaced."""

    @abstractmethod
    def ready_for_kill(self, timeout: float) -> None:
        """Every replica alive and in sync, the master where the kill is meant to hit."""

    @abstractmethod
    def kill_master(self) -> float:
        """SIGKILL the master's process; when (monotonic) the signal was about to be sent."""

    @abstractmethod
    def wait_elected(self, timeout: float) -> float:
        """When (monotonic) the controller first names a master other than the killed one (polled)."""

    @abstractmethod
    def restart_killed(self, timeout: float) -> None:
        """Start the killed process again and wait until every replica is in sync."""

    def cpu(self) -> dict[str, float]:
        """CPU seconds used so far by each server process (a process gone since counts nothing)."""
        used = {}
        for role, pid in self.server_pids().items():
            with contextlib.suppress(OSError):
                used[role] = cpu_seconds(pid)
        return used

    @abstractmethod
    def close(self) -> None:
        """Release what this view holds (not the cluster: its owner stops it)."""


# --- ours ---------------------------------------------------------------------------------------------------------


class Ours(Side):
    """The sandbox's broker set. The client's channel uses the first sorted access point (`client_agent`'s): for
    sends the master is moved onto that agent (the access point in the master's own process, as access_point.py
    measures); for kills it is moved off it, so the client's access point survives."""

    name = "ours"

    def __init__(self, sb: Sandbox, broker_config: dict[str, str]) -> None:
        self.sb = sb
        self.cluster = cluster_view(sb)
        self.client_agent = first_access_point(sb)
        self.broker_config = {**BROKER_DEFAULTS, **broker_config}
        self._killed: tuple[str, int] | None = None

    def _agent(self, agent_id: str) -> AgentProcess:
        return next(a for a in self.sb.agents() if a.id == agent_id)

    def endpoints(self) -> str:
        return self.sb.proxy_endpoints()

    def forwarded_endpoint(self) -> str:
        """A slave agent's access point while the master is on `client_agent`: every send is forwarded."""
        return str(next(a.proxyAddress for a in self.sb.agents() if a.id != self.client_agent))

    def kill_endpoints(self) -> str:
        return str(self._agent(self.client_agent).proxyAddress)

    def master_on_client_host(self) -> None:
        master_on(self.cluster, self.client_agent)

    def make_topic(self, name: str, message_type: str = "NORMAL") -> None:
        typed = () if message_type == "NORMAL" else ("--attributes", f"+message.type={message_type}")
        made = self.cluster.cli.json("updateTopic", "-c", CLUSTER, "-t", name, "-r", str(QUEUES), "-w", str(QUEUES),
                                     *typed)  # fmt: skip
        self._learnt(made["metadataVersion"], f"every agent to learn topic {name}")

    def make_group(self, name: str) -> None:
        made = self.cluster.cli.json("updateSubGroup", "-c", CLUSTER, "-g", name)
        self._learnt(made["metadataVersion"], f"every agent to learn group {name}")

    def _learnt(self, version: int, what: str) -> None:
        wait_until(lambda: all_learnt(self.cluster.cli, self.sb, version), 60, what)

    def server_pids(self) -> dict[str, int]:
        procs: list[ControllerProcess | AgentProcess] = [*self.sb.controllers(), *self.sb.agents()]
        return {p.id: p.pid for p in procs if p.pid}

    def settings(self, keys: tuple[str, ...] | None = None) -> dict[str, str]:
        return {k: self.broker_config.get(k, "(default)") for k in keys or OURS_SETTINGS}

    def ready_for_kill(self, timeout: float) -> None:
        self.cluster.healthy(timeout)
        master_on(self.cluster, self.client_agent, there=False)

    def kill_master(self) -> float:
        master = self.cluster.healthy()
        agent = self.cluster.agent_of(master.broker_id)
        if agent == self.client_agent:
            raise RuntimeError("the master is on the client's access point host")
        self._killed = (agent, master.broker_id)
        at = time.monotonic()
        self.sb.signal(agent, signal.SIGKILL)
        return at

    def wait_elected(self, timeout: float) -> float:
        assert self._killed is not None
        return new_master(self.cluster, self._killed[1], timeout)

    def restart_killed(self, timeout: float) -> None:
        assert self._killed is not None
        self.sb.start(self._killed[0])
        self._killed = None
        self.cluster.healthy(timeout)

    def close(self) -> None:
        self.cluster.close()


# --- Java ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Launch:
    """How a JVM was started, read from /proc: enough to start it again the same way."""

    name: str
    argv: list[str]
    env: dict[str, str]
    cwd: str

    @classmethod
    def of(cls, name: str, pid: int) -> Launch:
        argv = [a.decode() for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if a]
        env = dict(
            e.decode(errors="replace").split("=", 1)
            for e in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            if b"=" in e
        )
        return cls(name, argv, env, os.readlink(f"/proc/{pid}/cwd"))


class Java(Side):
    """The reference cluster: the client is given the proxy, for sends and for kills alike."""

    name = "java"

    def __init__(self, cluster: JavaCluster) -> None:
        self.cluster = cluster
        self._topics: list[str] = []
        self._killed: tuple[Launch, int] | None = None

    def endpoints(self) -> str:
        return self.cluster.proxy_endpoint

    def close(self) -> None:
        """Nothing to release: the remoting calls open a socket each."""

    def kill_endpoints(self) -> str:
        return self.cluster.proxy_endpoint

    def make_topic(self, name: str, message_type: str = "NORMAL") -> None:
        self.cluster.create_topic(name, message_type, QUEUES)
        self._topics.append(name)

    def make_group(self, name: str) -> None:
        self.cluster.create_group(name)

    def server_pids(self) -> dict[str, int]:
        return {n: p for n, p in self.cluster.pids.items() if n != "admin" and n not in self.cluster.killed}

    def settings(self, keys: tuple[str, ...] | None = None) -> dict[str, str]:
        """What the master broker itself reports (``mqadmin getBrokerConfig``)."""
        keys = keys or JAVA_SETTINGS
        master = self.cluster.master()
        if master is None:
            return {}
        printed = self.cluster.mqadmin("getBrokerConfig", "-b", master.address)
        found: dict[str, str] = {}
        for line in printed.splitlines():
            key, sep, value = line.partition("=")
            if sep and key.strip() in keys:
                found[key.strip()] = value.strip()
        return {k: found.get(k, "?") for k in keys}

    def configure(self, values: dict[str, str]) -> None:
        """``mqadmin updateBrokerConfig`` of each key on every broker (the running broker takes it at once; a key
        a service reads once per loop applies from its next turn)."""
        for broker in self.cluster.brokers():
            for key, value in values.items():
                printed = self.cluster.mqadmin("updateBrokerConfig", "-b", broker.address, "-k", key, "-v", value)
                if "success" not in printed or "Exception" in printed:
                    raise RuntimeError(f"updateBrokerConfig {key}={value} on {broker.address}:\n{printed[-2000:]}")

    def _in_sync(self) -> bool:
        """Master alive, every broker alive in the SyncStateSet and listed by the namesrv, and every broker holds
        every topic made (a slave syncs them from its master; a new master without them would refuse sends)."""
        state = self.cluster.sync_state()
        alive = [r for r in state.get("inSyncReplicas") or [] if r.get("alive")]
        brokers = self.cluster.brokers()
        if len(alive) != len(brokers) or sum(b.role == "master" for b in brokers) != 1:
            return False
        if not all(b.alive and b.namesrv_id is not None for b in brokers):
            return False
        for b in brokers:
            code, _, body = remoting_call(b.address, GET_ALL_TOPIC_CONFIG)
            if code != 0 or not all(f'"{t}"'.encode() in body for t in self._topics):
                return False
        return True

    def ready_for_kill(self, timeout: float) -> None:
        wait_until(self._in_sync, timeout, "every Java broker alive, in sync and holding every topic", interval=0.5)

    def kill_master(self) -> float:
        master = self.cluster.master()
        if master is None:
            raise RuntimeError("the Java cluster has no master")
        name = next(n for n, p in self.cluster.pids.items() if p == master.pid)
        launch = Launch.of(name, master.pid)
        at = time.monotonic()
        killed = self.cluster.kill_master()
        if killed.pid != master.pid:
            raise RuntimeError(f"kill_master killed pid {killed.pid}, not the master seen just before ({master.pid})")
        self._killed = (launch, master.pid)
        return at

    def wait_elected(self, timeout: float) -> float:
        assert self._killed is not None
        old = self._killed[1]

        def other() -> float | None:
            with contextlib.suppress(OSError, ValueError):
                m = self.cluster.master()
                if m is not None and m.pid != old:
                    return time.monotonic()
            return None

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = other()
            if found is not None:
                return found
            time.sleep(0.05)
        raise RuntimeError(f"no new Java master within {timeout:g} s")

    def restart_killed(self, timeout: float) -> None:
        assert self._killed is not None
        launch, _ = self._killed
        restart = getattr(self.cluster, "restart_broker", None)
        if callable(restart):
            restart(launch.name)
        else:
            log = Path(self.cluster.dir) / "logs" / f"{launch.name}.out"
            with log.open("ab") as out:
                proc = subprocess.Popen(launch.argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        env=launch.env, cwd=launch.cwd, start_new_session=True)  # fmt: skip
            self.cluster.procs[launch.name] = proc
            self.cluster.pids[launch.name] = proc.pid
            self.cluster.killed.discard(launch.name)
        self._killed = None
        self.ready_for_kill(timeout)
