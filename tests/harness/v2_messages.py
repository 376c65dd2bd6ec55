"""RocketMQ 5's v2 messages and receives as a client sends them, for the tests (and benchmarks) that call an access
point raw."""

from __future__ import annotations

import uuid
from typing import Any

from agents.access.protocol import service, v2


def raw_message(topic: str, body: bytes) -> Any:
    """A NORMAL ``v2.Message`` to `topic` with a fresh message id."""
    m = v2.Message(topic=v2.Resource(name=topic), body=body)
    m.system_properties.message_id = uuid.uuid4().hex.upper()
    m.system_properties.message_type = v2.NORMAL
    return m


def raw_receive_from(
    stub: Any, topic: str, broker_name: str, group: str, headers: Any, invisible_s: int = 10
) -> tuple[int, list[Any]]:
    """One ReceiveMessage of `group` from set `broker_name` (up to 32, 1 s of long polling): the status code and the
    messages it streamed."""
    queue = v2.MessageQueue(topic=v2.Resource(name=topic), broker=v2.Broker(name=broker_name))
    request = service.ReceiveMessageRequest(
        group=v2.Resource(name=group), message_queue=queue, batch_size=32,
        filter_expression=v2.FilterExpression(type=v2.TAG, expression="*"),
    )  # fmt: skip
    request.invisible_duration.FromSeconds(invisible_s)
    request.long_polling_timeout.FromSeconds(1)
    code, messages = 0, []
    for response in stub.ReceiveMessage(request, metadata=headers, timeout=10):
        if response.HasField("status"):
            code = response.status.code
        if response.HasField("message"):
            messages.append(response.message)
    return code, messages
