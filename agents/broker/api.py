"""BrokerApi: what an access point asks of a broker set's master, the same in-process and over the agent API.

The access point holds a `BrokerApi` for the master it talks to: ``local.LocalBroker`` when its own agent hosts
that master (a direct call, no protobuf in between for a send), else the agent API's client (``agents.access.remote``),
which turns the same calls into RPCs. Every call takes and returns the domain types below; the protobufs stay at
the agent API's edge (``convert``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from agents.store.message_store import Placement
from agents.store.record import Message
from agents.transaction.half import Resolution


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


@dataclass(frozen=True, slots=True)
class ReceiveRequest:
    """A POP receive: up to `batch_size` messages visible to `group`, invisible to it for `invisible_ms` once
    delivered; nothing visible: wait up to `long_polling_ms` for one. `queue_id` None: every readable queue."""

    group: str
    topic: str
    batch_size: int
    invisible_ms: int
    filter_expression: str = ""
    long_polling_ms: int = 0
    attempt_id: str = ""
    """The client's id of this receive, the same when it retries it (FIFO groups hand the lost batch out again)."""
    queue_id: int | None = None


@dataclass(frozen=True, slots=True)
class Delivery:
    """One delivered message and the receipt handle that brings it back in an ack or a change of invisibility."""

    message: Message
    queue_offset: int
    attempt: int
    """1 for the first delivery."""
    receipt_handle: str
    invisible_until_ms: int
    body_digest: str
    """MD5 of the body in upper-case hex, as Java's proxy sends it and clients check."""


@dataclass(frozen=True, slots=True)
class Received:
    """A receive's answer: the remoting `code` and the v2 `pop_code` of the outcome (MESSAGE_NOT_FOUND when
    nothing was visible), the deliveries, and the master's address when this broker is not it."""

    code: int
    pop_code: int
    remark: str = ""
    messages: tuple[Delivery, ...] = ()
    master_address: str = ""


@dataclass(frozen=True, slots=True)
class AckRequest:
    """Acks of deliveries of one group and topic, decided and stored together; `dead_letter`: copy each message
    into the group's dead-letter topic in the same put, before its ack."""

    group: str
    topic: str
    receipt_handles: tuple[str, ...]
    dead_letter: bool = False


@dataclass(frozen=True, slots=True)
class AckOutcome:
    receipt_handle: str
    code: int
    pop_code: int
    remark: str = ""


@dataclass(frozen=True, slots=True)
class Acked:
    """An ack's answer: `code` SUCCESS when the batch was decided and stored; each handle's outcome in `results`."""

    code: int
    remark: str = ""
    results: tuple[AckOutcome, ...] = ()
    master_address: str = ""


@dataclass(frozen=True, slots=True)
class ChangeInvisibleRequest:
    """A delivery made invisible for `invisible_ms` from now; `nack`: for the group's retry backoff instead."""

    group: str
    topic: str
    receipt_handle: str
    invisible_ms: int
    nack: bool = False


@dataclass(frozen=True, slots=True)
class Changed:
    """A change of invisibility's answer: the new handle (the old one is stale from now on; on a refusal, the
    request's)."""

    code: int
    pop_code: int
    receipt_handle: str
    remark: str = ""
    invisible_until_ms: int = 0
    master_address: str = ""


@dataclass(frozen=True, slots=True)
class EndRequest:
    """A transaction's end: `resolution` COMMIT or ROLLBACK (None: the producer does not know yet, nothing
    changes); `from_check`: the producer answers a check-back."""

    topic: str
    message_id: str
    transaction_id: str
    resolution: Resolution | None
    from_check: bool = False


@dataclass(frozen=True, slots=True)
class Ended:
    """An end's answer: SUCCESS once the decision is stored (or was before: an end is idempotent)."""

    code: int
    remark: str = ""
    master_address: str = ""


@dataclass(frozen=True, slots=True)
class CheckBack:
    """An open transaction to ask a producer about: its id and the message as it would be committed."""

    transaction_id: str
    message: Message
    body_digest: str
    """As a `Delivery`'s."""


@dataclass(frozen=True, slots=True)
class Checks:
    """The check-backs due for the topics an access point's producers publish, handed out once each."""

    code: int
    remark: str = ""
    checks: tuple[CheckBack, ...] = ()


class BrokerApi(Protocol):
    """A broker set's master as a caller sees it; None from a call: the master did not answer."""

    def send(self, messages: Sequence[Message], born_host: str | None) -> SendAnswer | None: ...
    def receive(self, request: ReceiveRequest) -> Received | None: ...
    def ack(self, request: AckRequest) -> Acked | None: ...
    def change_invisible(self, request: ChangeInvisibleRequest) -> Changed | None: ...
    def end_transaction(self, request: EndRequest) -> Ended | None: ...
    def take_checks(self, topics: frozenset[str]) -> Checks | None: ...
