"""Agent answers → RocketMQ 5 codes, as Java's proxy maps a broker's; the values are the generated enum's."""

from __future__ import annotations

import pytest

from agents.access.codes import Code, consumer_code, from_remoting, send_code
from agents.access.protocol import v2
from agents.pop.errors import PopCode
from mqbase.codes import ResponseCode as R


def test_every_code_has_the_value_of_the_generated_enum() -> None:
    for code in Code:
        assert v2.Code.Value(code.name) == code.value


def test_pop_codes_are_v2_codes() -> None:
    for code in PopCode:
        assert Code(code.value).name == code.name


@pytest.mark.parametrize(
    ("code", "status", "expected"),
    [
        (R.SUCCESS, "PUT_OK", Code.OK),
        (R.FLUSH_DISK_TIMEOUT, "FLUSH_DISK_TIMEOUT", Code.MASTER_PERSISTENCE_TIMEOUT),
        (R.FLUSH_SLAVE_TIMEOUT, "FLUSH_SLAVE_TIMEOUT", Code.SLAVE_PERSISTENCE_TIMEOUT),
        (R.SLAVE_NOT_AVAILABLE, "SLAVE_NOT_AVAILABLE", Code.HA_NOT_AVAILABLE),
        (R.SYSTEM_ERROR, "IN_SYNC_REPLICAS_NOT_ENOUGH", Code.INTERNAL_SERVER_ERROR),
        (R.SERVICE_NOT_AVAILABLE, "MASTER_TRANSFERRING", Code.INTERNAL_SERVER_ERROR),
        (R.TOPIC_NOT_EXIST, "", Code.TOPIC_NOT_FOUND),
        (R.NO_PERMISSION, "", Code.FORBIDDEN),
        (R.MESSAGE_ILLEGAL, "", Code.BAD_REQUEST),
        (R.SYSTEM_ERROR, "", Code.INTERNAL_SERVER_ERROR),
        (R.SERVICE_NOT_AVAILABLE, "", Code.INTERNAL_SERVER_ERROR),
    ],
)
def test_sends_map_as_javas_send_message_activity(code: int, status: str, expected: Code) -> None:
    assert send_code(code, status) is expected


def test_nothing_maps_to_too_many_requests() -> None:
    """The Python producer stops retrying at TOO_MANY_REQUESTS: no broker answer may become it."""
    statuses = ["PUT_OK", "FLUSH_DISK_TIMEOUT", "FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE", "SERVICE_NOT_AVAILABLE",
                "MASTER_TRANSFERRING", "IN_SYNC_REPLICAS_NOT_ENOUGH", ""]  # fmt: skip
    for code in R:
        assert from_remoting(code) is not Code.TOO_MANY_REQUESTS
        assert all(send_code(code, s) is not Code.TOO_MANY_REQUESTS for s in statuses)


@pytest.mark.parametrize(
    ("code", "pop_code", "expected"),
    [
        (R.SUCCESS, 20000, Code.OK),
        (R.PULL_NOT_FOUND, 40401, Code.MESSAGE_NOT_FOUND),
        (R.MESSAGE_ILLEGAL, 40013, Code.INVALID_RECEIPT_HANDLE),
        (R.MESSAGE_ILLEGAL, 40011, Code.ILLEGAL_INVISIBLE_TIME),
        (R.MESSAGE_ILLEGAL, 40010, Code.ILLEGAL_FILTER_EXPRESSION),
        (R.TOPIC_NOT_EXIST, 40000, Code.TOPIC_NOT_FOUND),  # a refusal before POP decided: the remoting code counts
        (R.NO_PERMISSION, 40000, Code.FORBIDDEN),
        (R.SYSTEM_ERROR, 0, Code.INTERNAL_SERVER_ERROR),
        (R.SUCCESS, 12345, Code.INTERNAL_SERVER_ERROR),
    ],
)
def test_consumer_answers_keep_pops_code_when_pop_decided(code: int, pop_code: int, expected: Code) -> None:
    assert consumer_code(code, pop_code) is expected
