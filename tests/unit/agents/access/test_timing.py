"""The hold while a set has no master, a receive's times, and receipt-handle expiry."""

from __future__ import annotations

import pytest

from agents.access.codes import Code
from agents.access.timing import (
    AUTO_RENEW_INVISIBLE_MS,
    MARGIN_S,
    POLL_S,
    gave_up,
    holds,
    invisible_ms,
    long_polling_ms,
    pause,
    receipt,
    renewal,
)
from agents.access.validation import Problem
from agents.pop.handle import ReceiptHandle
from mqbase.codes import ResponseCode as R


@pytest.mark.parametrize(
    ("code", "held"),
    [
        (R.SLAVE_NOT_AVAILABLE, True),
        (R.SERVICE_NOT_AVAILABLE, True),  # fenced, not yet master, MASTER_TRANSFERRING, metadata not learnt
        (R.SUCCESS, False),
        (R.FLUSH_SLAVE_TIMEOUT, False),
        (R.TOPIC_NOT_EXIST, False),
        (R.SYSTEM_ERROR, False),
    ],
)
def test_which_answers_are_held(code: int, held: bool) -> None:
    assert holds(code) is held


@pytest.mark.parametrize(
    ("now", "deadline", "expected"),
    [
        (0.0, 3.0, POLL_S),
        (0.0, MARGIN_S + 0.05, pytest.approx(0.05)),
        (0.0, MARGIN_S, None),
        (5.0, 3.0, None),
    ],
)
def test_a_held_request_asks_again_until_one_margin_before_its_deadline(
    now: float, deadline: float, expected: float | None
) -> None:
    assert pause(now, deadline) == expected


def test_giving_up_is_retryable_and_never_too_many_requests() -> None:
    problem = gave_up("broker-a", 2.7)
    assert problem.code is Code.PROXY_TIMEOUT
    assert problem.message.startswith("broker set broker-a had no master that answered within 2.7 s")


@pytest.mark.parametrize(
    ("requested", "left", "expected"),
    [
        (20_000, 23.0, 20_000),
        (0, 23.0, 20_000),
        (60_000, 60.0, 20_000),
        (20_000, 10.0, int((10.0 - MARGIN_S - 1.0) * 1000)),
        (5_000, 0.5, 0),
    ],
)
def test_long_polling_ends_before_the_clients_deadline(requested: int, left: float, expected: int) -> None:
    assert long_polling_ms(requested, 100.0, 100.0 + left) == expected


def test_push_consumers_get_javas_default_invisible_time() -> None:
    assert invisible_ms(True, 0) == AUTO_RENEW_INVISIBLE_MS
    assert invisible_ms(False, 15_000) == 15_000


def test_receipt_handles() -> None:
    handle = ReceiptHandle("broker-a", "G", "T", 1, 7, 10_000, 1, 3)
    assert receipt(handle.encode(), 9_999) == handle
    expired = receipt(handle.encode(), 10_500)
    assert expired == Problem(
        Code.INVALID_RECEIPT_HANDLE, "the receipt handle expired: its invisibility ended 500 ms ago"
    )
    forged = receipt("forged", 0)
    assert isinstance(forged, Problem) and forged.code is Code.INVALID_RECEIPT_HANDLE


@pytest.mark.parametrize(
    ("deadline", "received", "now", "expected"),
    [
        (60_000, 0, 49_000, "keep"),
        (60_000, 0, 50_000, "renew"),
        (60_000, 0, 70_000, "renew"),  # a renewal that came late still tries (the broker refuses it if delivered again)
        (60_000, 0, 3 * 3600 * 1000, "drop"),
    ],
)
def test_auto_renew_deliveries_are_renewed_ten_seconds_ahead_for_three_hours(
    deadline: int, received: int, now: int, expected: str
) -> None:
    assert renewal(deadline, received, now) == expected
