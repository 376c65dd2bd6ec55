"""The controller node: composition root and life cycle of ``mqcontroller``.

Builds the Raft member (in the thread that runs the node: the main thread, or
an embedding agent's controller thread, so pysyncobj's tick thread lives as
long as the node), the proposer thread, failure detection and the
gRPC server (and the Prometheus endpoint when enabled), then runs until
SIGTERM/SIGINT (or ``stop()``, for a node embedded in another process) and
shuts everything down in reverse order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import Mapping
from concurrent.futures import Future
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2

from controller.config import RUNTIME_KEYS, ConfigError, ControllerConfig, runtime_properties, with_group_config
from controller.errors import ControllerError
from controller.liveness import NEVER, Elector, Liveness, due
from controller.metrics import ControllerMetrics, NodeSample
from controller.model import Clock
from controller.proposer import Proposer
from controller.raft import RaftNode
from controller.requests import (
    ElectMasterRequest,
    MetadataChangeReply,
    RegisterBrokerRequest,
    Request,
    Result,
    SetGroupConfigRequest,
    TransferMasterRequest,
)
from controller.service import POLICY, SERVICE, SERVICE_NAME, BrokerStreams, ControllerServicer, RequestMetrics
from controller.transferer import Transferer
from mqbase import serving
from mqbase.codes import ResponseCode as C
from mqbase.proto import common_pb2 as common
from mqbase.proto import controller_pb2_grpc as pb_grpc
from mqbase.storelock import StoreLock

log = logging.getLogger(__name__)


class GrpcBindError(ControllerError, RuntimeError):
    """The gRPC port could not be bound."""


class MetricsBindError(ControllerError, RuntimeError):
    """The metrics HTTP port could not be bound."""


class ControllerNode:
    """One running controller: Raft, proposer, liveness, elections, notifications and gRPC."""

    def __init__(self, config: ControllerConfig, clock: Clock = time.monotonic) -> None:
        """StoreLockError when another process holds the node's store; RaftStartError when it cannot be opened."""
        self.file_config = config
        """The node's own configuration (config file, plus values an older release persisted per node)."""
        self._clock = clock
        self._store_lock = StoreLock.acquire(config.node_store_dir)  # before Raft opens the journal
        try:
            self.raft = RaftNode(config)
        except BaseException:
            self._store_lock.release()
            raise
        self._effective: tuple[Mapping[str, str], ControllerConfig] | None = None
        self._recording: Future[Result[Any]] | None = None
        self.streams = BrokerStreams()
        self.proposer = Proposer(
            self.raft,
            alive=lambda: self.liveness.alive_view(),
            allow_unclean=lambda: self.config.enable_elect_unclean_master,
            preferred_master=lambda: self.config.enable_preferred_master,
            clock=clock,
            master_grace=lambda: not self.liveness.warmed_up(),
        )
        self.elector = Elector(self.raft, self.proposer, max_retries=lambda: self.config.elect_master_max_retry_count)
        self.liveness = Liveness(clock, on_inactive=self.elector.on_inactive)
        self.proposer.add_listener(self._notify_role_change)
        self.proposer.add_listener(self._announce_metadata)
        self.proposer.add_listener(self._log_refused_registration)
        self.transferer = Transferer(
            lambda: self.raft.state,
            lambda: self.liveness.alive_view(),
            self.proposer.submit,
            lambda: self.config,
            clock=clock,
        )
        # As in Java, DISABLE records nothing: no interceptor, no listener, no HTTP server.
        self.metrics = ControllerMetrics(self._sample) if config.metrics_exporter_type == "PROM" else None
        if self.metrics is not None:
            self.proposer.add_listener(self.metrics.on_result)
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_requested = False

    # --- helpers used by the service -------------------------------------------------------------

    def leader_grpc_address(self) -> str | None:
        leader_id = self.raft.leader_node_id()
        for peer in self.config.controller_peers:
            if peer.node_id == leader_id:
                return peer.grpc_address
        return None

    @property
    def config(self) -> ControllerConfig:
        """The effective configuration: the file's, with the group's replicated runtime values over it.

        Recomputed only when an applied SetGroupConfig (or a snapshot) replaced the group's values.
        """
        group = self.raft.state.config
        cached = self._effective
        if cached is not None and cached[0] is group:
            return cached[1]
        try:
            effective = with_group_config(self.file_config, group)
        except ConfigError:  # the leader validated it; only a value from another release can get here
            log.exception("ignoring the group config %s", dict(group))
            effective = self.file_config
        if cached is not None:
            log.info("group config applied: %s", ", ".join(f"{k}={v}" for k, v in sorted(group.items())))
        self._effective = (group, effective)
        return effective

    def _record_file_values(self) -> None:
        """As leader, give the group a value for every runtime key it has none for: this node's file value.

        From then on every leader decides with the same values, so a leader change cannot flip them.
        """
        if self._recording is not None and not self._recording.done():
            return
        if not RUNTIME_KEYS - self.raft.state.config.keys():
            return
        request = SetGroupConfigRequest(runtime_properties(self.file_config), only_missing=True)
        self._recording = self.proposer.submit(request)

    def _notify_role_change(self, request: Request, result: Result[Any]) -> None:
        """Push a successful election (or transfer) to the set's brokers that stream heartbeats to this node."""
        elected = isinstance(request, ElectMasterRequest | TransferMasterRequest)
        if not elected or result.code != C.SUCCESS or result.reply is None:
            return
        if not self.config.notify_broker_role_changed:
            return
        r = result.reply
        note = common.RoleChangeNotification(
            cluster_name=r.cluster_name,
            broker_name=r.broker_name,
            master_broker_id=r.master_broker_id,
            master_address=r.master_address or "",
            master_ha_address=r.master_ha_address or "",
            master_epoch=r.master_epoch,
            sync_state_set_epoch=r.sync_state_set_epoch,
            sync_state_set=sorted(r.sync_state_set),
        )
        pushed = [bid for bid, _addr in r.broker_addresses if self.streams.push((r.broker_name, bid), note)]
        log.info(
            "elected %s master %s epoch %s; notified %s", r.broker_name, r.master_broker_id, r.master_epoch, pushed
        )

    def _announce_metadata(self, request: Request, result: Result[Any]) -> None:
        """Tell every broker streaming to this node that the metadata changed, so it re-reads GetMetadata.

        The note repeats the set's current role (an agent that predates ``metadata_version`` takes it as the
        role it already has); an agent that knows the field reads only the version from it.
        """
        reply = result.reply
        if not isinstance(reply, MetadataChangeReply) or not reply.changed:
            return
        state = self.raft.state
        for key in self.streams.open_keys():
            bs = state.get(key[0])
            if bs is None:
                continue
            master_address, master_ha_address = bs.addresses_of(bs.master_id)
            note = common.RoleChangeNotification(
                cluster_name=bs.cluster_name,
                broker_name=bs.broker_name,
                master_broker_id=bs.master_id or 0,
                master_address=master_address or "",
                master_ha_address=master_ha_address or "",
                master_epoch=bs.master_epoch,
                sync_state_set_epoch=bs.sync_state_set_epoch,
                sync_state_set=sorted(bs.sync_state_set),
                metadata_version=reply.metadata_version,
            )
            self.streams.push(key, note)
        log.info("metadata version %d; announced to %d broker streams", reply.metadata_version, len(self.streams))

    @staticmethod
    def _log_refused_registration(request: Request, result: Result[Any]) -> None:
        """A RegisterBroker refused for its id (``state.address_taken``) is worth an operator's look: two
        processes may be running one broker's store."""
        if isinstance(request, RegisterBrokerRequest) and result.code == C.CONTROLLER_BROKER_ID_INVALID:
            log.warning("RegisterBroker refused: %s", result.remark)

    def _sample(self) -> NodeSample:
        status = self.raft.status()
        return NodeSample(
            role=status.state,
            term=status.term,
            commit_index=status.commit_index,
            active_brokers=len(self.liveness.alive_view()),
            broker_sets=len(self.raft.state),
        )

    def _serve_metrics(self, metrics: ControllerMetrics) -> None:
        host, port = self.config.self_peer.host, self.config.metrics_prom_exporter_port
        try:
            _server, bound = metrics.serve(port, host)
        except OSError as exc:
            raise MetricsBindError(f"cannot bind metrics port {host}:{port}: {exc}") from exc
        log.info("controller %s serving metrics on http://%s:%d/metrics", self.config.controller_self_id, host, bound)

    # --- life cycle --------------------------------------------------------------------------------

    async def _detect(self, health_servicer: health.aio.HealthServicer) -> None:
        """Periodic expiry and inactive-master scans, and the leader-only health status."""
        next_expire = next_scan = next_preferred = NEVER
        serving: bool | None = None
        while True:
            now, c = self._clock(), self.config
            if self.proposer.serving:
                self._record_file_values()
            run, next_expire = due(next_expire, now, c.scan_not_active_broker_interval / 1000.0)
            if run:
                self.liveness.expire()
            run, next_scan = due(next_scan, now, c.scan_inactive_master_interval / 1000.0)
            if run and self.proposer.serving and self.liveness.warmed_up():
                self.elector.scan(self.liveness.alive_view())
            run, next_preferred = due(next_preferred, now, c.scan_preferred_master_interval / 1000.0)
            if run and self.proposer.serving and self.liveness.warmed_up():
                self.transferer.scan()
            if serving != self.proposer.serving:
                serving = self.proposer.serving
                status = (
                    health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
                )
                await health_servicer.set(SERVICE_NAME, status)
            await asyncio.sleep(0.05)

    def destroy(self) -> None:
        """Close Raft, then unlock the store (also for a node that could not bind its ports)."""
        self.raft.destroy()
        self._store_lock.release()

    def stop(self) -> None:
        """Make ``serve()`` shut down as on SIGTERM; safe from any thread, and before ``serve()`` runs."""
        self._stop_requested = True
        loop, event = self._loop, self._stop
        if loop is not None and event is not None:
            with contextlib.suppress(RuntimeError):  # the loop already closed: serve() has returned
                loop.call_soon_threadsafe(event.set)

    async def serve(self, ready: Any = None, *, handle_signals: bool = True) -> None:
        """Run until SIGTERM/SIGINT or ``stop()``; `ready(grpc_port)` is called once the port is bound.

        ``handle_signals=False`` runs off the main thread (an embedded node): only ``stop()`` ends it.
        """
        loop = asyncio.get_running_loop()
        self.streams.bind(loop)
        self._stop = asyncio.Event()
        self._loop = loop
        if self._stop_requested:
            self._stop.set()
        if handle_signals:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self._stop.set)
        interceptors: list[Any] = [RequestMetrics(self.metrics.observe_request)] if self.metrics is not None else []
        # The guards sit inside the metrics: an undecodable request counts as code="error", refusals are counted.
        security = self.config.security
        interceptors += serving.interceptors(security, SERVICE, POLICY, aio=True)
        server = grpc.aio.server(interceptors=interceptors, options=[("grpc.so_reuseport", 0)])
        pb_grpc.add_ControllerServiceServicer_to_server(ControllerServicer(self), server)
        health_servicer = health.aio.HealthServicer()
        serving.add_health_and_reflection(server, SERVICE_NAME, health_servicer)
        address = self.config.self_peer.grpc_address
        try:
            port = serving.bind(server, address, security)
        except serving.BindError as exc:
            raise GrpcBindError(f"cannot bind gRPC port {address}: {exc}") from exc
        if self.metrics is not None:
            self._serve_metrics(self.metrics)
        await server.start()
        await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
        self.proposer.start()
        detector = asyncio.ensure_future(self._detect(health_servicer))
        log.info("controller %s serving gRPC on %s (%s, %s), Raft on %s (%s)", self.config.controller_self_id,
                 address, "TLS" if security.tls_enable else "plaintext", "ACL" if security.acl_enable else "no ACL",
                 self.config.self_peer.raft_address, "encrypted" if self.config.raft_password else "plaintext",
                 )  # fmt: skip
        if ready is not None:
            ready(port)
        try:
            await self._stop.wait()
        finally:
            log.info("shutting down")
            # Order matters: closing the server ends every broker's heartbeat stream, which must
            # not read as "all brokers died" while this node can still decide (and elect).
            detector.cancel()
            self.elector.stop()
            self.transferer.stop()
            await asyncio.get_running_loop().run_in_executor(None, self.proposer.stop)
            await health_servicer.enter_graceful_shutdown()
            self.streams.end_all()
            await server.stop(grace=1.0)
            if self.metrics is not None:
                self.metrics.stop()
            self.destroy()
            self._loop = None
            log.info("stopped")
