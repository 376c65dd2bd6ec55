"""The codes of POP's refusals and `PopError`, raised for input that does not parse (a filter, a handle)."""

from __future__ import annotations

from enum import IntEnum

from agents.errors import AgentError


class PopCode(IntEnum):
    """RocketMQ 5's `apache.rocketmq.v2.Code` values POP answers with, so the gRPC front passes them through."""

    OK = 20000
    BAD_REQUEST = 40000
    ILLEGAL_FILTER_EXPRESSION = 40010
    ILLEGAL_INVISIBLE_TIME = 40011
    INVALID_RECEIPT_HANDLE = 40013
    MESSAGE_NOT_FOUND = 40401


class PopError(AgentError, ValueError):
    """A filter expression or receipt handle that does not parse; `code` is the answer's code."""

    def __init__(self, code: PopCode, message: str) -> None:
        super().__init__(message)
        self.code = code
