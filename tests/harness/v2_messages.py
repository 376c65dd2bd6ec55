"""RocketMQ 5's v2 messages as a client sends them, for the tests that call an access point raw."""

from __future__ import annotations

import uuid
from typing import Any

from agents.access.protocol import v2


def raw_message(topic: str, body: bytes) -> Any:
    """A NORMAL ``v2.Message`` to `topic` with a fresh message id."""
    m = v2.Message(topic=v2.Resource(name=topic), body=body)
    m.system_properties.message_id = uuid.uuid4().hex.upper()
    m.system_properties.message_type = v2.NORMAL
    return m
