"""The agent process: a RIP-31 container of broker replicas, each with its own store, ports and manager.

The container port serves the whole AgentService (broker-scoped requests name their broker); each broker
also gets a gRPC server on its own ``listenPort``, the address it registers with the controller, where an
unnamed request means that broker. Brokers added at run time are remembered in ``agentStorePath/brokers``
(one config path per line, replaced atomically) and come back after a restart. One broker failing to start
is listed by ListBrokers with its error and does not stop the others; when none of them starts, the agent does
not start either (it would serve nothing), unless it has none to start or hosts a controller.

Each store is held by one process only (``mqbase.storelock``): the agent locks ``agentStorePath`` and every
broker's ``storePathRootDir`` while it uses them.

With ``enableControllerInAgent=true`` the agent also runs a controller node: the entry point composes it
(``controller.embedded``: its own thread and asyncio loop; the agent's main thread keeps SIGTERM/SIGINT) and hands
it over as a ``HostedController``, started before the brokers and stopped after them. With
``metricsExporterType=PROM`` it serves its broker metrics (``agents.broker.metrics``) on
``metricsPromExporterPort``.
"""

from __future__ import annotations

import logging
import threading
from concurrent import futures
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import grpc
from grpc_health.v1 import health, health_pb2

from agents import net
from agents.access.connections import Connection
from agents.broker.manager import ReplicasManager
from agents.broker.metrics import AgentMetrics
from agents.broker.rpc_scope import AgentStartError, BrokerNotFound
from agents.broker.service import POLICY, SERVICE, AgentServicer
from agents.config import AgentConfig, load_broker, with_overrides
from agents.store import fastpath
from mqbase import serving
from mqbase.clock import SYSTEM, Clock
from mqbase.files import atomic_write
from mqbase.ports import free_port
from mqbase.properties import update_properties_file
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import agent_pb2_grpc as pb_grpc
from mqbase.security import SecurityConfig
from mqbase.storelock import StoreLock, StoreLockError

if TYPE_CHECKING:
    from agents.access.server import AccessPoint

log = logging.getLogger(__name__)

SERVICE_NAME = "mqadmin.agent.v1.AgentService"
WORKERS = 32  # sends block until acknowledged (up to syncFlushTimeout), so the pool is generous


@dataclass
class Hosted:
    """One hosted broker: where its config came from, its manager, its own gRPC server and its store's lock."""

    config_path: str
    manager: ReplicasManager
    server: grpc.Server
    lock: StoreLock


@dataclass(frozen=True, slots=True)
class Failed:
    """A broker the agent was to start at start-up but could not: its config file and why (for ListBrokers)."""

    config_path: str
    error: str


def start_refused(failed: list[Failed], started: int, hosts_controller: bool) -> str | None:
    """Why the agent must not run after starting its brokers, or None: it would serve nothing.

    An agent with no broker to start (empty on purpose: brokers come with AddBroker) or with a controller node
    (useful alone) runs anyway. Each failure is named with its config file, unless its error names it already.
    """
    if not failed or started or hosts_controller:
        return None
    lines = (f.error if f.error.startswith(f.config_path) else f"{f.config_path}: {f.error}" for f in failed)
    return f"no broker could start: {'; '.join(lines)}"


def remembered(config: AgentConfig) -> list[str]:
    """The config files of brokers added at run time (``agentStorePath/brokers``), minus the configured ones."""
    path = Path(config.agent_store_path).expanduser() / "brokers"
    if not path.exists():
        return []
    configured = {str(p) for p in config.broker_config_paths}
    return [line for line in path.read_text().splitlines() if line and line not in configured]


def bind_failure(what: str, address: str, key: str, reason: object) -> AgentStartError:
    """The one line a port that cannot be bound ends the start with: the address, the config key that chose it,
    and how to choose another (two agents on one host need two sets of ports)."""
    return AgentStartError(f"cannot serve {what} on {address} ({key}): {reason}; set {key} to a free port (0: any)")


def check_ha_port(host: str, port: int, key: str) -> None:
    """Fail the start now if the HA port cannot be bound: it opens only when the broker becomes master, and a port
    another process holds would otherwise fail the set's failover, the worst time to learn it (Java binds it at
    start). A probe: bound and closed again, as nothing listens on it before the broker is master."""
    try:
        net.close(net.listen(host, port))
    except net.ConnectionLost as exc:
        cause = exc.__cause__
        reason = cause.strerror.lower() if isinstance(cause, OSError) and cause.strerror else exc
        raise bind_failure("HA", f"{host}:{port}", key, reason) from exc


def serve(
    servicer: AgentServicer, address: str, security: SecurityConfig, what: str, key: str
) -> tuple[grpc.Server, int]:
    """A started AgentService server (with health and reflection) on `address`; returns it and its port.

    TLS and the access check as `security` says (aclEnable: ``POLICY``'s calls need a credential). Without
    reuseport, as every server here: gRPC's default let a second agent share a port that the first serves.
    """
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="agent-rpc"),
        interceptors=serving.interceptors(security, SERVICE, POLICY, aio=False),
        options=[("grpc.so_reuseport", 0)],
    )
    pb_grpc.add_AgentServiceServicer_to_server(servicer, server)
    checker = health.HealthServicer()
    checker.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    serving.add_health_and_reflection(server, SERVICE_NAME, checker)
    try:
        port = serving.bind(server, address, security)
    except serving.BindError as exc:
        raise bind_failure(what, address, key, exc) from exc
    server.start()
    return server, port


class HostedController(Protocol):
    """A controller node the agent runs beside its brokers (``enableControllerInAgent=true``).

    The entry point composes it (``controller.embedded.EmbeddedController``) and hands it to the agent, which
    starts it before its brokers and stops it after them; so this package imports no controller code.
    """

    def start(self) -> None:
        """Return once the node serves; raise RuntimeError, whose message ends the agent's start, if it cannot."""

    def stop(self) -> None:
        """Shut the node down and wait for it (also after a failed or no start)."""


class Agent:
    """Hosts brokers; see the module docstring."""

    def __init__(self, config: AgentConfig, controller: HostedController | None = None, clock: Clock = SYSTEM) -> None:
        """`controller`: the embedded node the entry point composed, if any; `clock`: read by every part of every
        hosted broker (tests pass one they move by hand)."""
        self.config = config
        self.clock = clock
        self.port = 0
        self._lock = threading.Lock()
        self._config_lock = threading.Lock()
        self._hosted: list[Hosted] = []
        self._failed: list[Failed] = []
        self._store_lock: StoreLock | None = None
        self._server: grpc.Server | None = None
        self._store = Path(config.agent_store_path).expanduser()
        prom = config.metrics_exporter_type == "PROM"
        self.metrics = AgentMetrics(lambda: [m for _, m in self.managers()]) if prom else None
        self._controller = controller
        self._access: AccessPoint | None = None
        self._proxy_port = 0

    @property
    def address(self) -> str:
        return f"{self.config.listen_host}:{self.port}"

    @property
    def proxy_address(self) -> str:
        """The RocketMQ 5 gRPC access point's address, "" when the agent serves none (``enableProxy=false``)."""
        return f"{self.config.listen_host}:{self._proxy_port}" if self._proxy_port else ""

    def start(self) -> None:
        """Lock the agent's store, start the embedded controller and the metrics endpoint if configured, serve
        the container port, then start every configured and remembered broker.

        AgentStartError when brokers were to start and none did, unless a controller runs here (see the module
        docstring).
        """
        try:
            self._store_lock = StoreLock.acquire(self._store)
        except StoreLockError as exc:
            raise AgentStartError(str(exc)) from exc
        if self._controller is not None:
            try:
                self._controller.start()
            except RuntimeError as exc:
                raise AgentStartError(str(exc)) from exc
        if self.metrics is not None:
            self._serve_metrics(self.metrics)
        address = f"{self.config.listen_host}:{self.config.listen_port}"
        self._server, self.port = serve(
            AgentServicer(self), address, self.config.security, "the agent API", "listenPort"
        )
        log.info("agent serving on %s", self.address)
        if self.config.enable_proxy:
            self._serve_access_point()
        fastpath.report(log)
        for path in [*map(str, self.config.broker_config_paths), *remembered(self.config)]:
            try:
                self._start_broker(path)
            except (ValueError, OSError, AgentStartError, StoreLockError) as exc:
                log.error("broker %s not started: %s", path, exc)
                with self._lock:
                    self._failed.append(Failed(path, str(exc)))
        refused = start_refused(self.failed(), len(self.managers()), self._controller is not None)
        if refused is not None:
            raise AgentStartError(refused)

    def stop(self) -> None:
        """Stop every broker (its heartbeat streams end, so the controller notices at once), then the servers."""
        if self._access is not None:
            self._access.stop()
        with self._lock:
            hosted, self._hosted = self._hosted, []
        for h in hosted:
            h.manager.stop()
            h.server.stop(grace=0.5)
            h.lock.release()
        if self._server is not None:
            self._server.stop(grace=0.5).wait()
        if self._controller is not None:
            self._controller.stop()
        if self.metrics is not None:
            self.metrics.stop()
        if self._store_lock is not None:
            self._store_lock.release()

    # --- Host ------------------------------------------------------------------------------------

    def find(self, ref: pb.BrokerRef) -> ReplicasManager:
        with self._lock:
            matches = [h.manager for h in self._hosted if h.manager.config.broker_name == ref.broker_name]
        if ref.HasField("broker_id"):
            matches = [m for m in matches if m.broker_id == ref.broker_id]
        if len(matches) == 1:
            return matches[0]
        if not matches and not ref.broker_name:  # the container's port was given where a broker's is wanted
            hosted = ", ".join(f"{m.config.broker_name} id {m.broker_id} at {m.config.broker_address}"
                               for _, m in self.managers()) or "none"  # fmt: skip
            raise BrokerNotFound(
                f"this is an agent's container address, not a broker's: give a broker's own address (hosted here: "
                f"{hosted}; mqadmin listBrokers -c <this address> lists them)"
            )
        if not matches:
            raise BrokerNotFound(f"this agent hosts no broker {ref.broker_name!r}" + _id_part(ref))
        raise BrokerNotFound(f"this agent hosts {len(matches)} replicas of {ref.broker_name!r}: name a broker_id")

    def managers(self) -> list[tuple[str, ReplicasManager]]:
        with self._lock:
            return [(h.config_path, h.manager) for h in self._hosted]

    def failed(self) -> list[Failed]:
        with self._lock:
            return list(self._failed)

    def add_broker(self, config_path: str) -> ReplicasManager:
        manager = self._start_broker(config_path)
        with self._lock:
            self._failed = [f for f in self._failed if f.config_path != config_path]
        self._remember()
        return manager

    def remove_broker(self, cluster_name: str, broker_name: str, broker_id: int) -> None:
        with self._lock:
            found = [
                h
                for h in self._hosted
                if (h.manager.config.broker_cluster_name, h.manager.config.broker_name, h.manager.broker_id)
                == (cluster_name, broker_name, broker_id)
            ]
            if not found:
                raise BrokerNotFound(f"this agent hosts no broker {cluster_name}:{broker_name}:{broker_id}")
            self._hosted.remove(found[0])
        found[0].manager.stop()
        found[0].server.stop(grace=0.5)
        found[0].lock.release()
        self._remember()
        log.info("removed broker %s:%s:%d", cluster_name, broker_name, broker_id)

    def update_broker_config(self, manager: ReplicasManager, values: dict[str, str]) -> None:
        """Validate, write the keys into the broker's config file (as Java's broker rewrites its own), then apply
        them: a restarted or re-added replica reads what its set runs with. A file that cannot be written raises
        OSError and changes nothing."""
        with self._lock:
            path = next((h.config_path for h in self._hosted if h.manager is manager), None)
        if path is None:
            raise BrokerNotFound(f"broker {manager.config.broker_name} was removed meanwhile")
        with self._config_lock:  # one read-modify-write of a file at a time; not the lock every request takes
            config = with_overrides(manager.config, values)
            update_properties_file(path, values)
            manager.update_config(config)

    def client_connections(self, group: str, topic: str) -> list[Connection]:
        return self._access.connections(group, topic) if self._access is not None else []

    # --- internals -------------------------------------------------------------------------------

    def _serve_access_point(self) -> None:
        from agents.access.server import AccessPoint  # the RocketMQ client's protos: only agents serving it

        self._access = AccessPoint(
            self, self.config.listen_host, self.config.proxy_listen_port, self.config.security, self.clock
        )
        try:
            self._proxy_port = self._access.start()
        except serving.BindError as exc:
            address = f"{self.config.listen_host}:{self.config.proxy_listen_port}"
            raise bind_failure("the access point", address, "proxyListenPort", exc) from exc
        log.info("agent serving the RocketMQ 5 access point on %s", self.proxy_address)

    def _serve_metrics(self, metrics: AgentMetrics) -> None:
        host, port = self.config.listen_host, self.config.metrics_prom_exporter_port
        try:
            _, bound = metrics.serve(port, host)
        except OSError as exc:
            raise bind_failure("metrics", f"{host}:{port}", "metricsPromExporterPort", exc.strerror or exc) from exc
        log.info("agent serving metrics on http://%s:%d/metrics", host, bound)

    def _start_broker(self, config_path: str) -> ReplicasManager:
        config = load_broker(config_path)
        with self._lock:
            for h in self._hosted:
                if Path(h.manager.config.store_path_root_dir) == Path(config.store_path_root_dir):
                    raise ValueError(f"storePathRootDir {config.store_path_root_dir} is used by {h.config_path}")
                if config.ha_listen_port and h.manager.config.ha_listen_port == config.ha_listen_port:
                    raise ValueError(f"haListenPort {config.ha_listen_port} is used by {h.config_path}")
        lock = StoreLock.acquire(config.store_root)
        try:
            if config.ha_listen_port == 0:
                config = replace(config, ha_listen_port=free_port(config.broker_ip1))
            else:
                check_ha_port(config.broker_ip1, config.ha_listen_port, f"haListenPort of {config_path}")
            own: list[ReplicasManager] = []  # filled once the port is bound and the manager exists
            server, port = serve(
                AgentServicer(self, only=lambda: own[0] if own else None),
                f"{config.broker_ip1}:{config.listen_port}",
                self.config.security,
                f"broker {config.broker_name}",
                f"listenPort of {config_path}",
            )
        except BaseException:
            lock.release()
            raise

        def neighbours() -> list[ReplicasManager]:
            return [m for _, m in self.managers()]

        own.append(
            ReplicasManager(
                replace(config, listen_port=port),
                security=self.config.security,
                neighbours=neighbours,
                clock=self.clock,
                put_metrics=self.metrics.observe_put if self.metrics is not None else None,
            )
        )
        hosted = Hosted(config_path, own[0], server, lock)
        with self._lock:
            self._hosted.append(hosted)
        hosted.manager.start()
        c = hosted.manager.config
        log.info("broker %s/%s serving on %s, HA on %s", c.broker_cluster_name, c.broker_name, c.broker_address,
                 c.ha_address)  # fmt: skip
        return hosted.manager

    def _remember(self) -> None:
        configured = {str(p) for p in self.config.broker_config_paths}
        added = [path for path, _ in self.managers() if path not in configured]
        self._store.mkdir(parents=True, exist_ok=True)
        atomic_write(self._store / "brokers", "".join(f"{p}\n" for p in added).encode())


def _id_part(ref: pb.BrokerRef) -> str:
    return f" with broker id {ref.broker_id}" if ref.HasField("broker_id") else ""
