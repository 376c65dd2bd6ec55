"""gRPC clients: the controller group (tries each address, follows NOT_LEADER redirects) and broker agents.

Transport errors become ``MqError`` subclasses in ``channels.py``
(ControllerUnavailable / BrokerUnavailable, TimedOut).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Self

from mqbase.channels import Channels
from mqbase.codes import ResponseCode
from mqbase.errors import BrokerUnavailable, ControllerUnavailable, MqError, TimedOut, WrongPeer
from mqbase.proto import controller_pb2 as pb
from mqbase.proto import controller_pb2_grpc as pb_grpc
from mqbase.security import PLAINTEXT, ClientSecurity, transport_hint

MAX_REDIRECTS = 3


def parse_addresses(text: str | Iterable[str]) -> list[str]:
    """``"h1:p1;h2:p2"`` (or a list of such strings) → unique addresses in order."""
    items = [text] if isinstance(text, str) else list(text)
    out: list[str] = []
    for item in items:
        for token in item.replace(",", ";").split(";"):
            token = token.strip()
            if token and token not in out:
                out.append(token)
    return out


class ControllerClient:
    """Calls controller RPCs on the leader, wherever it is."""

    def __init__(
        self, addresses: str | Iterable[str], timeout: float = 3.0, security: ClientSecurity = PLAINTEXT
    ) -> None:
        self.addresses = parse_addresses(addresses)
        if not self.addresses:
            raise ControllerUnavailable("no controller address given (use -a host:port;host:port)")
        self._channels = Channels(timeout, ControllerUnavailable, "controller", security, hint=False)
        self._security = security
        self._leader: str | None = None

    @property
    def timeout(self) -> float:
        """Seconds allowed for each RPC; settable between calls (``wait`` shrinks it near its deadline)."""
        return self._channels.timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self._channels.timeout = seconds

    def close(self) -> None:
        self._channels.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def call_at(self, address: str, method: str, request: Any) -> Any:
        """One RPC to one node; transport errors become MqError."""
        return self._channels.invoke(address, pb_grpc.ControllerServiceStub, method, request)

    def call(self, method: str, request: Any) -> Any:
        """Call `method` on the leader: try the last known leader, then each address; follow redirects.

        A node that times out (hung, SIGSTOPped, partitioned) is skipped like an unreachable one: the request
        goes on to the next node, whose answer or redirect finds the healthy leader. Every write is safe to
        retry (epoch-fenced, or a no-op when already done). TimedOut only when every node timed out, WrongPeer
        when every address serves another API; the failures are summed up in one line, with the TLS hint once.
        """
        order = ([self._leader] if self._leader else []) + [a for a in self.addresses if a != self._leader]
        errors: list[MqError] = []
        for address in order:
            target: str | None = address
            for _ in range(MAX_REDIRECTS + 1):
                if target is None:
                    break
                try:
                    response = self.call_at(target, method, request)
                except (ControllerUnavailable, TimedOut, WrongPeer) as exc:
                    errors.append(exc)
                    break
                if getattr(response, "code", 0) != ResponseCode.CONTROLLER_NOT_LEADER:
                    self._leader = target
                    return response
                redirect = response.leader_address or None
                errors.append(
                    ControllerUnavailable(
                        f"{target} is not the leader" + (f" (leader: {redirect})" if redirect else "")
                    )
                )
                target = redirect if redirect != target else None
        text = _summary([str(e) for e in errors])
        if all(isinstance(e, TimedOut) for e in errors):
            raise TimedOut(f"no controller answered in time: {text}")
        if all(isinstance(e, WrongPeer) for e in errors):
            raise WrongPeer(text)
        hint = f"; {transport_hint(self._security)}" if "(UNAVAILABLE)" in text else ""
        raise ControllerUnavailable(f"no controller leader reachable: {text}{hint}")

    def metadata(self, address: str) -> pb.GetControllerMetadataResponse:
        response: pb.GetControllerMetadataResponse = self.call_at(
            address, "GetControllerMetadata", pb.GetControllerMetadataRequest()
        )
        return response


def _summary(errors: list[str]) -> str:
    """The nodes' failures in one line, each reason once with the addresses it applies to: ``controller A
    unreachable (UNAVAILABLE)`` and ``... to controller B timed out after 3 s`` → ``A, B unreachable (...)``."""
    reasons: dict[str, list[str]] = {}
    for error in errors:
        short = error.partition(" to controller ")[2] or error.removeprefix("controller ")
        address, _, reason = short.partition(" ")
        reasons.setdefault(reason, []).append(address)
    return "; ".join(f"{', '.join(dict.fromkeys(addresses))} {reason}" for reason, addresses in reasons.items())


class AgentClient:
    """Calls AgentService RPCs on broker agents (a broker's own listen port, or an agent's container port)."""

    def __init__(self, timeout: float = 3.0, security: ClientSecurity = PLAINTEXT) -> None:
        self._channels = Channels(timeout, BrokerUnavailable, "broker", security)

    def call(self, address: str, method: str, request: Any) -> Any:
        from mqbase.proto import agent_pb2_grpc  # only agent commands pay for these stubs

        return self._channels.invoke(address, agent_pb2_grpc.AgentServiceStub, method, request)

    def close(self) -> None:
        self._channels.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
