"""The agent API's scope: which hosted broker a request names, and what the servicer needs of the agent.

`scoped` turns a handler of one broker into an RPC: the broker the request names is found (on a broker's own port,
that broker; on the container port, by name and id), and a broker this servicer does not serve is answered in the
RPC's own response type, never as a gRPC error.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar

from agents.access.connections import Connection
from agents.broker.manager import ReplicasManager
from agents.errors import AgentError
from agents.store.message_store import MessageStore
from mqbase.clock import Clock
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb


class BrokerNotFound(AgentError, LookupError):
    """A request named a broker this agent does not host."""


class AgentStartError(AgentError, RuntimeError):
    """The agent, or a broker it adds, cannot start (its port or store is taken, or none of its brokers starts).
    Defined here, beside the Host protocol, so that AddBroker can answer it rather than fail the call."""


class FailedBroker(Protocol):
    """A broker that could not start: its config file and why."""

    @property
    def config_path(self) -> str: ...
    @property
    def error(self) -> str: ...


class Host(Protocol):
    """What the servicer needs from the agent."""

    clock: Clock

    @property
    def proxy_address(self) -> str:
        """The agent's RocketMQ 5 access point (host:port), "" when it serves none."""
        ...

    def find(self, ref: pb.BrokerRef) -> ReplicasManager: ...
    def managers(self) -> Iterable[tuple[str, ReplicasManager]]: ...
    def failed(self) -> Iterable[FailedBroker]: ...
    def add_broker(self, config_path: str) -> ReplicasManager: ...
    def remove_broker(self, cluster_name: str, broker_name: str, broker_id: int) -> None: ...
    def update_broker_config(self, manager: ReplicasManager, values: dict[str, str]) -> None: ...
    def client_connections(self, group: str, topic: str) -> list[Connection]:
        """The clients connected through the agent's access point now; [] when it serves none."""
        ...


Request = TypeVar("Request")
Response = TypeVar("Response")
Servicer = TypeVar("Servicer", bound="ScopedRpcs")
Handler = Callable[[Servicer, ReplicasManager, Request, Any], Response]
FENCED = "the broker is fenced until its role is known; retry"


def broker_of(request: Any) -> pb.BrokerRef:
    ref: pb.BrokerRef = request.broker
    return ref


def itself(request: pb.BrokerRef) -> pb.BrokerRef:
    return request


def epoch_cache_ref(request: pb.GetBrokerEpochCacheRequest) -> pb.BrokerRef:
    ref = pb.BrokerRef(broker_name=request.broker_name)
    if request.broker_id:
        ref.broker_id = request.broker_id
    return ref


def scoped(
    response_type: Callable[..., Response], ref: Callable[[Any], pb.BrokerRef] = broker_of
) -> Callable[[Handler[Servicer, Request, Response]], Callable[[Servicer, Request, Any], Response]]:
    """A broker-scoped RPC: the handler gets the broker the request names (``ref``, its ``broker`` field by
    default); a broker this servicer does not serve is answered with SYSTEM_ERROR and the reason, in the RPC's own
    response type."""

    def decorate(handler: Handler[Servicer, Request, Response]) -> Callable[[Servicer, Request, Any], Response]:
        @functools.wraps(handler)
        def serve(self: Servicer, request: Request, context: Any) -> Response:
            try:
                manager = self._find(ref(request))
            except BrokerNotFound as exc:
                return response_type(code=ResponseCode.SYSTEM_ERROR, remark=str(exc))
            return handler(self, manager, request, context)

        return serve

    return decorate


def readable_store(manager: ReplicasManager) -> MessageStore | None:
    """The store of a replica that may answer reads; None while it is fenced."""
    replica = manager.replica
    return replica.store if replica is not None and manager.readable() else None


class ScopedRpcs:
    """The servicer's base: the agent it serves and the broker a request names."""

    def __init__(self, host: Host, only: Callable[[], ReplicasManager | None] | None = None) -> None:
        """`only`: serve one broker (its own listen port), where a request without a broker name means it."""
        self._host = host
        self._only = only

    def _find(self, ref: pb.BrokerRef) -> ReplicasManager:
        if self._only is None:
            return self._host.find(ref)
        manager = self._only()
        if manager is None:
            raise BrokerNotFound("the broker on this port is still starting; retry")
        if ref.broker_name and ref.broker_name != manager.config.broker_name:
            raise BrokerNotFound(f"this port serves broker {manager.config.broker_name}, not {ref.broker_name}")
        return manager
