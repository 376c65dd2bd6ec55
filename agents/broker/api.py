"""BrokerApi: what an access point asks of a broker set's master, the same in-process and over the agent API.

The access point holds a `BrokerApi` for the master it talks to: ``local.LocalBroker`` when its own agent hosts
that master (a direct call, no protobuf in between for a send), else the agent API's client (``agents.access.remote``),
which turns the same calls into RPCs. Sends take and return domain types; consumption passes the agent API's own
request and answer messages, which the POP service reads directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from agents.store.message_store import Placement
from agents.store.record import Message
from mqbase.proto import agent_pb2 as pb


@dataclass(frozen=True, slots=True)
class SendAnswer:
    """A send's outcome: the RocketMQ code and remark, the put status, who answered in which epoch, and where each
    message went (in the order sent; none unless the put wrote them)."""

    code: int
    remark: str
    status: str = ""
    broker_id: int = -1
    master_epoch: int = 0
    master_address: str = ""
    """The master the broker knows now (a refusal's hint where to send instead; a transfer's target)."""
    placed: tuple[Placement, ...] = ()


class BrokerApi(Protocol):
    """A broker set's master as a caller sees it; None from a call: the master did not answer."""

    def send(self, messages: Sequence[Message], born_host: str | None) -> SendAnswer | None: ...
    def receive(self, request: pb.ReceiveMessageRequest) -> pb.ReceiveMessageResponse | None: ...
    def ack(self, request: pb.AckMessageRequest) -> pb.AckMessageResponse | None: ...
    def change_invisible(
        self, request: pb.ChangeInvisibleDurationRequest
    ) -> pb.ChangeInvisibleDurationResponse | None: ...
