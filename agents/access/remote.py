"""The agent API's client as a `BrokerApi`: a broker set's master in another agent, called over gRPC.

The requests name the set (``BrokerRef``); a call that gets no answer (a transport error, a deadline) is None, so
the access point holds the request and asks again, perhaps a new master.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import grpc

import agents.broker.convert as convert
from agents.broker.api import (
    Acked,
    AckRequest,
    Changed,
    ChangeInvisibleRequest,
    Checks,
    Ended,
    EndRequest,
    Received,
    ReceiveRequest,
    SendAnswer,
)
from agents.store.record import Message
from mqbase.proto import agent_pb2 as apb
from mqbase.proto import agent_pb2_grpc as apb_grpc

log = logging.getLogger(__name__)

Answer = TypeVar("Answer")


class RemoteBroker:
    """`BrokerApi` over one channel to the agent serving set `broker_name`'s master; calls bounded by `timeout`."""

    def __init__(self, channel: grpc.Channel, broker_name: str, address: str, timeout: float) -> None:
        self._stub = apb_grpc.AgentServiceStub(channel)  # type: ignore[no-untyped-call]
        self._ref = apb.BrokerRef(broker_name=broker_name)
        self._address = address
        self._timeout = timeout

    def _call(self, rpc: Callable[..., Answer], request: Any) -> Answer | None:
        request.broker.CopyFrom(self._ref)
        try:
            return rpc(request, timeout=self._timeout)
        except grpc.RpcError as exc:
            name = getattr(rpc, "_method", b"")
            log.info("access point: %s to %s (%s) failed: %s", name, self._ref.broker_name, self._address, exc.code())
            return None

    def send(self, messages: Sequence[Message], born_host: str | None) -> SendAnswer | None:
        """`born_host` is the agent's to learn from the call itself (the peer it sees), as for any producer."""
        request = apb.SendMessagesRequest(messages=[convert.message_to_pb(m) for m in messages])
        answer = self._call(self._stub.SendMessages, request)
        return None if answer is None else convert.send_answer_of(answer)

    def receive(self, request: ReceiveRequest) -> Received | None:
        answer = self._call(self._stub.ReceiveMessage, convert.receive_request_to_pb(request))
        return None if answer is None else convert.received_of(answer)

    def ack(self, request: AckRequest) -> Acked | None:
        answer = self._call(self._stub.AckMessage, convert.ack_request_to_pb(request))
        return None if answer is None else convert.acked_of(answer)

    def change_invisible(self, request: ChangeInvisibleRequest) -> Changed | None:
        answer = self._call(self._stub.ChangeInvisibleDuration, convert.change_request_to_pb(request))
        return None if answer is None else convert.changed_of(answer)

    def end_transaction(self, request: EndRequest) -> Ended | None:
        answer = self._call(self._stub.EndTransaction, convert.end_request_to_pb(request))
        return None if answer is None else convert.ended_of(answer)

    def take_checks(self, topics: frozenset[str]) -> Checks | None:
        answer = self._call(self._stub.TakeTransactionChecks, apb.TakeTransactionChecksRequest(topics=sorted(topics)))
        return None if answer is None else convert.checks_of(answer)
