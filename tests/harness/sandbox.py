"""A sandbox driven the way a user drives it: the ``mqadmin`` CLI as a real process, and a ``Cluster`` view of
one broker set (its master from the controller, process signals through the sandbox's own pid files, direct
RPCs to the brokers), for the modules that share one sandbox across their tests."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from mqadmin_py.sandbox import Sandbox
from mqbase.client import AgentClient, ControllerClient
from mqbase.codes import ResponseCode as C
from mqbase.proto import agent_pb2 as apb
from mqbase.proto import controller_pb2 as pb
from tests.harness.controllers import metadata
from tests.harness.processes import ROOT
from tests.harness.wait import wait_until

BROKER = "broker-a"
CLUSTER = "DefaultCluster"


@contextlib.contextmanager
def serving_sandbox(
    directory: Path,
    *,
    controllers: int,
    replicas: int,
    broker_sets: int = 1,
    broker_config: Mapping[str, str] | None = None,
    extra_config: Mapping[str, str] | None = None,
    secure: bool = False,
) -> Iterator[Sandbox]:
    """A sandbox whose every broker replica is registered, torn down (by pid) however the block ends."""
    sandbox = Sandbox(directory)
    try:
        sandbox.up(controllers=controllers, broker_sets=broker_sets, replicas=replicas, broker_config=broker_config,
                   extra_config=extra_config, timeout=120.0, secure=secure)  # fmt: skip
        sandbox.wait_for_brokers(timeout=60.0)
        yield sandbox
    finally:
        sandbox.down()


class Cli:
    """Runs ``python -m mqadmin_py`` against the sandbox in `directory`; no call may print a traceback."""

    def __init__(self, directory: Path, controllers: str | None = None) -> None:
        """`controllers`: the addresses every call uses (``MQADMIN_CONTROLLERS``) instead of the sandbox file's."""
        self.dir = directory
        self.env = {
            **os.environ,
            "MQADMIN_SANDBOX_DIR": str(directory),
            "PYTHONPATH": str(ROOT),
            "GRPC_VERBOSITY": "ERROR",
        }
        if controllers is not None:
            self.env["MQADMIN_CONTROLLERS"] = controllers

    def command(self, *args: str) -> list[str]:
        """The command line of ``mqadmin <args>``, for Popen."""
        return [sys.executable, "-m", "mqadmin_py", *args]

    def __call__(self, *args: str, ok: bool = True, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            self.command(*args),
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=self.env,
            timeout=timeout,
        )
        assert "Traceback" not in result.stderr, result.stderr
        if ok:
            assert result.returncode == 0, f"{args}: exit {result.returncode}\n{result.stdout}\n{result.stderr}"
        return result

    def json(self, *args: str) -> Any:
        return json.loads(self(*args, "-o", "json").stdout)


def learnt(cli: Cli, box: Sandbox, version: int) -> dict[str, Any] | None:
    """The first agent's listBrokers entry once its broker has learnt metadata `version` (or a later one)."""
    [broker] = cli.json("listBrokers", "-c", box.agents()[0].address)
    return broker if (broker["metadataVersion"] or -1) >= version else None


def all_learnt(cli: Cli, box: Sandbox, version: int) -> bool:
    """Whether every broker of every agent has learnt metadata `version` (or a later one)."""
    brokers = [b for a in box.agents() for b in cli.json("listBrokers", "-c", a.address)]
    return all((b["metadataVersion"] or -1) >= version for b in brokers)


@dataclass(frozen=True)
class Master:
    broker_id: int
    address: str
    epoch: int
    ids: tuple[int, ...]
    """Every registered broker id of the set."""

    def slaves(self) -> list[int]:
        return [i for i in self.ids if i != self.broker_id]


class Cluster:
    """The module's sandbox: CLI, process control (pids from the sandbox's own files), direct RPCs."""

    def __init__(self, cli: Cli, controllers: str) -> None:
        self.cli = cli
        self.box = Sandbox(cli.dir)  # read-only use and signals; processes start through the CLI
        self.controllers = controllers
        self.client = ControllerClient(controllers, timeout=3.0)

    def close(self) -> None:
        self.client.close()

    def create_topic(self, topic: str, queues: int = 4) -> None:
        """``mqadmin updateTopic`` over the cluster, `queues` read and write queues: brokers refuse a send to a
        topic the controller does not have."""
        count = str(queues)
        self.cli.json("updateTopic", "-c", CLUSTER, "-t", topic, "-r", count, "-w", count)

    # --- controller view --------------------------------------------------------------------------

    def info(self) -> Any:
        """The leader's ReplicasInfo of the set."""
        reply = self.client.call("GetSyncStateData", pb.GetSyncStateDataRequest(broker_names=[BROKER]))
        assert reply.code == C.SUCCESS, reply
        (info,) = reply.replicas_info
        return info

    def master(self, info: Any = None) -> Master | None:
        info = info if info is not None else self.info()
        if not info.HasField("master_broker_id"):
            return None
        ids = tuple(sorted(r.broker_id for r in replicas(info)))
        return Master(info.master_broker_id, info.master_address, info.master_epoch, ids)

    def address_of(self, broker_id: int) -> str:
        return str(next(r.broker_address for r in replicas(self.info()) if r.broker_id == broker_id))

    def healthy(self, timeout: float = 60) -> Master:
        """Wait until the master and every replica are alive and in the SyncStateSet; the master then."""

        def full() -> Master | None:
            info = self.info()
            alive_in_sync = {r.broker_id for r in info.in_sync_replicas if r.alive}
            master = self.master(info)
            if master is None or len(master.ids) != 3 or alive_in_sync != set(master.ids):
                return None
            return master

        return wait_until(full, timeout, "an alive master and a full SyncStateSet")

    def wait_master(self, pred: Callable[[Master], bool], timeout: float, what: str) -> Master:
        def check() -> Master | None:
            m = self.master()
            return m if m is not None and pred(m) else None

        return wait_until(check, timeout, what)

    def sync_state_doc(self) -> dict[str, Any]:
        (doc,) = self.cli.json("getSyncStateSet", "-b", BROKER)
        assert isinstance(doc, dict)
        return doc

    def last_transfer(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 30) -> dict[str, Any]:
        """getSyncStateSet's lastTransfer once `pred` holds (a record ends just after the election commits)."""

        def check() -> dict[str, Any] | None:
            last = self.sync_state_doc()["lastTransfer"]
            return last if last is not None and pred(last) else None

        return wait_until(check, timeout, "the last transfer record", interval=0.3)

    def leader_id(self) -> str:
        return self.box.wait_for_leader(30)

    # --- processes --------------------------------------------------------------------------------

    def agent_of(self, broker_id: int) -> str:
        address = self.address_of(broker_id)
        return next(a.id for a in self.box.agents() for b in a.brokers if b.brokerAddress == address)

    def signal(self, node_id: str, sig: int) -> None:
        self.box.signal(node_id, sig)

    def set_preferred_master(self, enabled: bool) -> None:
        value = str(enabled).lower()

        def update() -> bool:
            r = self.cli("updateControllerConfig", "-k", "enablePreferredMaster", "-v", value, "-o", "json", ok=False)
            return r.returncode == 0

        wait_until(update, 30, f"enablePreferredMaster={value} on every controller", interval=0.5)

    def restore(self) -> None:
        """SIGCONT everything, start what is down, preferred master off and cleared, full SyncStateSet."""
        for proc in self.box.processes():
            if proc.pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGCONT)
        self.cli("sandbox", "up", "--timeout", "120", "-o", "json")
        for node in self.box.controllers():  # a restarted node must answer the config update below
            wait_until(partial(leader_known, node.address), 30, f"{node.id} to know the leader")
        self.set_preferred_master(False)
        self.cli("assign-preferred-master", "-c", CLUSTER, "-bn", BROKER, "--clear")
        self.healthy()


def all_up(box: Sandbox, cluster: Cluster) -> Master:
    """Restart the agents an earlier test killed; the master once every replica is back in sync."""
    for agent in box.agents():
        if not agent.pid:
            box.start(agent.id)
    return cluster.healthy()


def replicas(info: Any) -> list[Any]:
    """Every registered replica of a ReplicasInfo, in sync or not."""
    return [*info.in_sync_replicas, *info.not_in_sync_replicas]


def leader_known(address: str) -> bool:
    return bool(metadata(address).controller_leader_id)


def ha_status(address: str) -> Any:
    with AgentClient(timeout=3.0) as agents:
        r = agents.call(address, "GetHAStatus", apb.BrokerRef(broker_name=BROKER))
    assert r.code == C.SUCCESS, r
    return r


def send(address: str, topic: str, body: str, timeout: float = 10.0) -> Any:
    request = apb.SendMessageRequest(
        broker=apb.BrokerRef(broker_name=BROKER), message=apb.Message(topic=topic, queue_id=-1, body=body.encode())
    )
    with AgentClient(timeout=timeout) as agents:
        return agents.call(address, "SendMessage", request)
