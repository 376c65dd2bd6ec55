"""The access point: ``apache.rocketmq.v2.MessagingService`` on ``proxyListenPort``, a ``grpc.aio`` server on a
thread and asyncio loop of its own in the agent process (long-polling receives and telemetry streams stay open,
which would exhaust a thread-pool server).

Every request is answered from the broker set's current master: sends and receives go to the master of the set
the access point picks, acks and changes of invisibility to the set their receipt handle names; the master is
called in-process when this agent hosts it, else over the agent API (``Forwarder``). While a set has no master
that answers (failover, graceful transfer) a request is held until one does, within its deadline
(``agents.access.timing``). Errors travel in the responses' ``status``, as Java's proxy sends them.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, Protocol

import grpc
from grpc_health.v1 import health, health_pb2

from agents.access.calls import status
from agents.access.cluster import Cluster, Managers
from agents.access.codes import Code
from agents.access.connections import Connection
from agents.access.consume_rpcs import ConsumeRpcs
from agents.access.forwarder import Forwarder
from agents.access.protocol import SERVICE_NAME, service, stubs
from agents.access.renewals import Renewer
from agents.access.route_rpcs import RouteRpcs
from agents.access.send_rpcs import SendRpcs
from agents.access.transaction_rpcs import CheckRelay, TransactionRpcs
from mqbase import serving
from mqbase.clock import Clock
from mqbase.grpc_guard import AioDecodeGuard
from mqbase.security import SecurityConfig, accounts

log = logging.getLogger(__name__)

WORKERS = 128
"""Threads for calls to the masters, which block: each push consumer keeps one long-polling receive open per
assigned set."""
START_S = 10.0
NOT_IMPLEMENTED = (
    "PullMessage",
    "UpdateOffset",
    "GetOffset",
    "QueryOffset",
    "RecallMessage",
    "SyncLiteSubscription",
)


class Host(Managers, Protocol):
    """What the access point needs of its agent."""

    @property
    def proxy_address(self) -> str: ...


class MessagingServicer(RouteRpcs, SendRpcs, ConsumeRpcs, TransactionRpcs, stubs.MessagingServiceServicer):  # type: ignore[misc]
    """``apache.rocketmq.v2.MessagingService``: its RPC groups over one ``Calls`` (a ``Cluster``, a ``Forwarder``,
    the ``Renewer`` and the connection registry); what is not served answers NOT_IMPLEMENTED."""


def _not_implemented(name: str) -> Callable[..., Any]:
    response_type = getattr(service, f"{name}Response")

    async def answer(self: MessagingServicer, request: Any, context: Any) -> Any:
        return response_type(status=status(Code.NOT_IMPLEMENTED, f"{name} is not implemented by this access point"))

    return answer


for _name in NOT_IMPLEMENTED:
    setattr(MessagingServicer, _name, _not_implemented(_name))


class AccessPoint:
    """The aio server of the access point on a thread and loop of its own (like ``EmbeddedController``)."""

    def __init__(self, host: Host, listen_host: str, port: int, security: SecurityConfig, clock: Clock) -> None:
        self._host = host
        self._clock = clock
        self._address = f"{listen_host}:{port}"
        # The RocketMQ clients have no client certificate to give: TLS here never asks for one.
        self._security = replace(security, tls_client_auth=False)
        client = security.client()
        self.port = 0
        self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="access")
        self.cluster = Cluster(host, client, clock)
        self._forwarder = Forwarder(self.cluster, client, self._pool, clock)
        secrets = {ak: secret for ak, (secret, _role) in accounts(security).items()} if security.acl_enable else None
        forward = self._forwarder
        self._renewer = Renewer(forward.change_invisible, clock)
        self._servicer = MessagingServicer(
            self.cluster, forward, self._renewer, secrets, lambda: host.proxy_address, clock
        )
        servicer = self._servicer
        self._checks = CheckRelay(self.cluster, forward, servicer.connections, servicer.streams, clock)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: Exception | None = None
        self._thread = threading.Thread(target=self._run, name="access-point", daemon=True)

    def connections(self, group: str = "", topic: str = "") -> list[Connection]:
        """The clients connected through this access point now (``Connections.alive``)."""
        return self._servicer.connections.alive(self._clock.monotonic(), group=group, topic=topic)

    def start(self) -> int:
        """Serve; returns the bound port (``serving.BindError`` when the address cannot be bound)."""
        self._thread.start()
        if not self._ready.wait(START_S):
            raise serving.BindError(f"access point not serving within {START_S:g} s")
        if self._error is not None:
            raise self._error
        self.cluster.start()
        return self.port

    def stop(self) -> None:
        """Stop serving (open calls get 0.5 s to end), then the refresh thread and the call pool."""
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and self._thread.is_alive():
            loop.call_soon_threadsafe(stopping.set)
            self._thread.join(START_S)
        self.cluster.stop()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._forwarder.close()

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except Exception as exc:
            self._error = exc
            self._ready.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        server = grpc.aio.server(
            interceptors=[AioDecodeGuard()],  # the RocketMQ signature is checked by the servicer (auth.py)
            # Bodies up to 4 MiB plus properties; without reuseport a second process cannot bind the same port.
            options=[("grpc.max_receive_message_length", 16 * 1024 * 1024), ("grpc.so_reuseport", 0)],
        )
        stubs.add_MessagingServiceServicer_to_server(self._servicer, server)
        checker = health.aio.HealthServicer()
        await checker.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
        serving.add_health_and_reflection(server, SERVICE_NAME, checker)
        self.port = serving.bind(server, self._address, self._security)
        await server.start()
        renewals = asyncio.create_task(self._renewer.run())
        checks = asyncio.create_task(self._checks.run())
        log.info(
            "access point (RocketMQ 5 gRPC, %s) serving on %s",
            SERVICE_NAME,
            self._address.rsplit(":", 1)[0] + f":{self.port}",
        )
        self._ready.set()
        await self._stopping.wait()
        renewals.cancel()
        checks.cancel()
        await server.stop(0.5)
