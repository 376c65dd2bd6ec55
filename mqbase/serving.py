"""How every gRPC server of the project is assembled: interceptor order, health, reflection, the bind.

The controller serves with ``grpc.aio`` (long-lived heartbeat streams), the agent with a thread pool; both, and
the client access point after them, take their guards, health and reflection and their bind errors from here.
"""

from __future__ import annotations

import errno
import socket
import time
import urllib.parse
from collections.abc import Mapping
from typing import Any

from grpc_health.v1 import health, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from mqbase.errors import MqBaseError
from mqbase.grpc_guard import AioDecodeGuard, DecodeGuard
from mqbase.security import AioServerGuard, Guard, Role, SecurityConfig, SecurityError, ServerGuard, add_port


class BindError(MqBaseError):
    """The server could not listen on its address; the message says why (the caller names the address)."""


def interceptors(
    security: SecurityConfig, service: Any, policy: Mapping[str, frozenset[Role]], *, aio: bool
) -> list[Any]:
    """The decode guard, then (aclEnable) the access check for `service`'s `policy`.

    A request that does not parse is refused (INVALID_ARGUMENT) before the access check: it has no body whose
    signature could be checked.
    """
    decode = AioDecodeGuard() if aio else DecodeGuard()
    if not security.acl_enable:
        return [decode]
    guard = Guard(security, service, policy, time.time)
    return [decode, AioServerGuard(guard) if aio else ServerGuard(guard)]


def add_health_and_reflection(server: Any, service_name: str, checker: Any) -> None:
    """Register the health servicer `checker` (sync or aio, as the server) and reflection for `service_name`."""
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    reflection.enable_server_reflection((service_name, health.SERVICE_NAME, reflection.SERVICE_NAME), server)


def in_use(address: str) -> bool:
    """Whether another socket listens on `address` (host:port, port > 0) now: asked before gRPC binds, whose own
    failure is a vague "Failed to bind" plus a C-core log line on stderr. SO_REUSEADDR as gRPC binds, so a port
    left in TIME_WAIT is free; an address that cannot be resolved or bound for another reason is left to gRPC."""
    host, _, port = address.rpartition(":")
    if not port.isdigit() or int(port) == 0:
        return False
    try:
        infos = socket.getaddrinfo(host.strip("[]") or None, int(port), type=socket.SOCK_STREAM)
    except OSError:
        return False
    for family, kind, proto, _, where in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(where)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    return True
    return False


def bind(server: Any, address: str, security: SecurityConfig) -> int:
    """Listen on `address` (TLS as `security` says); the bound port, BindError when it cannot."""
    if in_use(address):
        raise BindError("address already in use (another process listens on it)")
    try:
        port = add_port(server, address, security)
    except (RuntimeError, SecurityError) as exc:
        raise BindError(str(exc)) from exc
    if port == 0:
        raise BindError("address in use?")
    return port


def peer_address(peer: str) -> str | None:
    """The ip:port of a gRPC peer (``context.peer()``: ``ipv4:1.2.3.4:5``, ``ipv6:[::1]:5``, the brackets
    possibly %-encoded), or None for a peer without one (a Unix socket, or text of another form)."""
    kind, _, rest = peer.partition(":")
    address = urllib.parse.unquote(rest)
    if kind == "ipv4":
        host, sep, port = address.rpartition(":")
    elif kind == "ipv6" and address.startswith("["):
        host, sep, port = address.rpartition(":")
        sep = sep if host.endswith("]") else ""
    else:
        return None
    return address if sep and host and port.isdigit() else None
