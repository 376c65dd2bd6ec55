"""Real mqagent processes for end-to-end tests: config files, start/stop by pid, and a gRPC client per agent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import grpc

from agents.broker.agent import free_port
from controller.codes import ResponseCode
from mqadmin_py.proto import agent_pb2 as pb
from mqadmin_py.proto import agent_pb2_grpc as pb_grpc

ROOT = Path(__file__).resolve().parents[2]

BROKER = "broker-a"
FAST = {  # broker keys that make failures show up in seconds, not tens of seconds
    "allAckInSyncStateSet": "true",
    "brokerHeartbeatInterval": "200",
    "controllerHeartBeatTimeoutMills": "2000",
    "syncBrokerMetadataPeriod": "1000",
    "checkSyncStateSetPeriod": "1000",
    "haMaxTimeSlaveNotCatchup": "3000",
    "haSendHeartbeatInterval": "500",
    "haHousekeepingInterval": "3000",
    "syncFlushTimeout": "3000",
    "totalReplicas": "3",
}
CONTROLLER_CONFIG = {"scanNotActiveBrokerInterval": "200", "scanInactiveMasterInterval": "500"}


_handed_out: set[int] = set()


def unused_port() -> int:
    """A free loopback port never handed out before in this process.

    Ports are chosen before the processes bind them, so the OS may offer a just-released port twice (it did: an
    embedded controller's Raft port and another agent's listen port once collided); remembering them prevents it.
    """
    while (port := free_port("127.0.0.1")) in _handed_out:
        pass
    _handed_out.add(port)
    return port


def wait_for(pred: Callable[[], Any], timeout: float, what: str, interval: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = pred()
        except grpc.RpcError:
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    """SIGCONT (it may be stopped), SIGTERM, then SIGKILL if it does not exit within 15 s."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGCONT)
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


class AgentProcess:
    """One mqagent with one broker replica per entry of `brokers` (broker name → extra broker keys)."""

    def __init__(self, directory: Path, name: str, controllers: str, brokers: dict[str, dict[str, str]]) -> None:
        self.dir = directory / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.port = unused_port()
        self.broker_ports: dict[str, int] = {}
        paths = []
        for broker_name, extra in brokers.items():
            self.broker_ports[broker_name] = unused_port()
            keys = {
                "brokerClusterName": "E2ECluster",
                "brokerName": broker_name,
                "listenPort": str(self.broker_ports[broker_name]),
                "haListenPort": str(unused_port()),
                "storePathRootDir": str(self.dir / broker_name),
                "controllerAddr": controllers,
                "mappedFileSizeCommitLog": str(8 * 1024 * 1024),
                **extra,
            }
            path = self.dir / f"{broker_name}.conf"
            path.write_text("".join(f"{k}={v}\n" for k, v in keys.items()))
            paths.append(str(path))
        self.conf = self.dir / "agent.conf"
        self.conf.write_text(
            f"listenPort={self.port}\nbrokerConfigPaths={';'.join(paths)}\nagentStorePath={self.dir / 'agent'}\n"
        )
        self.proc: subprocess.Popen[bytes] | None = None
        self._channels: dict[int, grpc.Channel] = {}

    def start(self, env: Mapping[str, str] | None = None) -> AgentProcess:
        """Start the process; `env` adds environment variables (the chaos tests' fault-injection knobs)."""
        log = open(self.dir / "agent.log", "ab")  # noqa: SIM115 - the child owns it
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agents", "-c", str(self.conf), "--log-level", "INFO"],
            stdout=log,
            stderr=log,
            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
            cwd=ROOT,
        )
        log.close()
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, sig)

    def kill(self) -> None:
        """SIGKILL and reap (a crash)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it does not exit."""
        if self.proc is not None:
            stop_process(self.proc)

    def close(self) -> None:
        self.stop()
        for channel in self._channels.values():
            channel.close()

    def stub(self, broker_name: str | None = None) -> pb_grpc.AgentServiceStub:
        port = self.port if broker_name is None else self.broker_ports[broker_name]
        if port not in self._channels:
            self._channels[port] = grpc.insecure_channel(f"127.0.0.1:{port}")
        return pb_grpc.AgentServiceStub(self._channels[port])

    def ha_status(self, broker_name: str) -> pb.GetHAStatusResponse:
        response: pb.GetHAStatusResponse = self.stub().GetHAStatus(pb.BrokerRef(broker_name=broker_name), timeout=2)
        return response

    def role(self, broker_name: str) -> str:
        try:
            status = self.ha_status(broker_name)
        except grpc.RpcError:
            return "down"
        return status.role if status.code == ResponseCode.SUCCESS else "unknown"

    def log_text(self) -> str:
        return (self.dir / "agent.log").read_text(errors="replace")
