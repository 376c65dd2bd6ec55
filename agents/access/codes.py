"""RocketMQ 5's gRPC codes and how the agent API's answers map onto them, as Java's proxy maps a broker's.

Pure: plain integers in, a ``Code`` out. The values are ``apache.rocketmq.v2.Code``'s (a unit test holds them
to the generated enum), kept here so the decisions need no protobuf.
"""

from __future__ import annotations

from enum import IntEnum

from mqbase.codes import ResponseCode


class Code(IntEnum):
    """The ``apache.rocketmq.v2.Code`` values the access point answers with."""

    OK = 20000
    MULTIPLE_RESULTS = 30000
    BAD_REQUEST = 40000
    ILLEGAL_TOPIC = 40002
    ILLEGAL_CONSUMER_GROUP = 40003
    ILLEGAL_MESSAGE_TAG = 40004
    ILLEGAL_MESSAGE_KEY = 40005
    ILLEGAL_MESSAGE_GROUP = 40006
    ILLEGAL_MESSAGE_PROPERTY_KEY = 40007
    INVALID_TRANSACTION_ID = 40008
    ILLEGAL_MESSAGE_ID = 40009
    ILLEGAL_FILTER_EXPRESSION = 40010
    ILLEGAL_INVISIBLE_TIME = 40011
    ILLEGAL_DELIVERY_TIME = 40012
    MESSAGE_PROPERTY_CONFLICT_WITH_TYPE = 40014
    INVALID_RECEIPT_HANDLE = 40013
    CLIENT_ID_REQUIRED = 40017
    UNAUTHORIZED = 40100
    FORBIDDEN = 40300
    MESSAGE_NOT_FOUND = 40401
    TOPIC_NOT_FOUND = 40402
    CONSUMER_GROUP_NOT_FOUND = 40403
    MESSAGE_BODY_TOO_LARGE = 41301
    MESSAGE_BODY_EMPTY = 41302
    TOO_MANY_REQUESTS = 42900
    MESSAGE_PROPERTIES_TOO_LARGE = 43101
    INTERNAL_SERVER_ERROR = 50001
    HA_NOT_AVAILABLE = 50002
    NOT_IMPLEMENTED = 50100
    PROXY_TIMEOUT = 50400
    MASTER_PERSISTENCE_TIMEOUT = 50401
    SLAVE_PERSISTENCE_TIMEOUT = 50402
    UNSUPPORTED = 50500


SEND_STATUSES = {
    "PUT_OK": Code.OK,
    "FLUSH_DISK_TIMEOUT": Code.MASTER_PERSISTENCE_TIMEOUT,
    "FLUSH_SLAVE_TIMEOUT": Code.SLAVE_PERSISTENCE_TIMEOUT,
    "SLAVE_NOT_AVAILABLE": Code.HA_NOT_AVAILABLE,
}
"""A put status (``PutStatus``'s names, RocketMQ's ``SendStatus``) as Java's ``SendMessageActivity`` maps it; every
other status is INTERNAL_SERVER_ERROR."""

REMOTING: dict[int, Code] = {
    ResponseCode.SUCCESS: Code.OK,
    ResponseCode.TOPIC_NOT_EXIST: Code.TOPIC_NOT_FOUND,
    ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST: Code.CONSUMER_GROUP_NOT_FOUND,
    ResponseCode.NO_PERMISSION: Code.FORBIDDEN,
    ResponseCode.MESSAGE_ILLEGAL: Code.BAD_REQUEST,
    ResponseCode.REQUEST_CODE_NOT_SUPPORTED: Code.NOT_IMPLEMENTED,
    ResponseCode.FLUSH_DISK_TIMEOUT: Code.MASTER_PERSISTENCE_TIMEOUT,
    ResponseCode.FLUSH_SLAVE_TIMEOUT: Code.SLAVE_PERSISTENCE_TIMEOUT,
    ResponseCode.SLAVE_NOT_AVAILABLE: Code.HA_NOT_AVAILABLE,
    ResponseCode.PULL_NOT_FOUND: Code.MESSAGE_NOT_FOUND,
}
"""A remoting code as Java's ``ResponseBuilder`` maps a broker exception's; every other code (SYSTEM_ERROR, which
carries IN_SYNC_REPLICAS_NOT_ENOUGH, SERVICE_NOT_AVAILABLE, ...) is INTERNAL_SERVER_ERROR. Nothing maps to
TOO_MANY_REQUESTS: the Python producer does not retry it, and our brokers have no SYSTEM_BUSY."""


def from_remoting(code: int) -> Code:
    """The v2 code of an agent answer's remoting `code`."""
    return REMOTING.get(code, Code.INTERNAL_SERVER_ERROR)


def send_code(code: int, status: str) -> Code:
    """The v2 code of a send: by its put `status` when the broker wrote it (or tried), else by its `code`."""
    if status:
        return SEND_STATUSES.get(status, Code.INTERNAL_SERVER_ERROR)
    return from_remoting(code)


POP_DECIDED = frozenset({ResponseCode.SUCCESS, ResponseCode.PULL_NOT_FOUND, ResponseCode.MESSAGE_ILLEGAL})
"""Remoting codes of answers POP's rules decided: their ``pop_code`` is the precise v2 code."""


def consumer_code(code: int, pop_code: int) -> Code:
    """The v2 code of a receive, ack or change: POP's own code (``pop_code``, already a v2 code) when its rules
    decided, else the remoting `code` mapped (a missing topic, a refused group, a store failure)."""
    if pop_code and code in POP_DECIDED:
        try:
            return Code(pop_code)
        except ValueError:
            return Code.INTERNAL_SERVER_ERROR
    return from_remoting(code)
