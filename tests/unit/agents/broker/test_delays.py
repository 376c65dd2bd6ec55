"""The delivery thread's passes and sleep: until the next due time, never longer than a second, not at all when
due; refusals wait a second, and only a lasting failure is logged (once)."""

from __future__ import annotations

import pytest

from agents.broker.consumer_checks import Refused
from agents.broker.delays import MAX_WAIT_S, TimerDelivery, wait_s
from mqbase.codes import ResponseCode
from tests.harness.clock import ManualClock


@pytest.mark.parametrize(
    ("now", "next_due", "expected"),
    [
        (1000, None, MAX_WAIT_S),  # nothing waits: look again within a second (a timer message may be confirmed)
        (1000, 1250, 0.25),
        (1000, 1000, 0.0),  # more due (or more to read) now: no sleep
        (1000, 900, 0.0),
        (1000, 90_000, MAX_WAIT_S),  # far ahead: a role change is still seen within a second
    ],
)
def test_the_thread_sleeps_until_the_next_due_time_at_most_a_second(
    now: int, next_due: int | None, expected: float
) -> None:
    assert wait_s(now, next_due) == expected


class _Service:
    """A consumer service whose passes answer from a script: a due time, or a refusal."""

    def __init__(self, *answers: int | Refused | None) -> None:
        self.answers = list(answers)
        self.asked: list[int] = []

    def deliver_due(self, now_ms: int) -> int | None:
        self.asked.append(now_ms)
        answer = self.answers.pop(0)
        if isinstance(answer, Refused):
            raise answer
        return answer


def test_a_pass_asks_at_the_clocks_time_and_a_replica_that_is_not_master_waits_a_second(
    caplog: pytest.LogCaptureFixture,
) -> None:
    full = Refused(ResponseCode.SYSTEM_ERROR, "the store cannot write")
    service = _Service(2_500, Refused(ResponseCode.SLAVE_NOT_AVAILABLE, "slave"), full, full, None)
    thread = TimerDelivery(service, "b", ManualClock(wall=2.0))
    assert [thread.run_once() for _ in range(5)] == [0.5, MAX_WAIT_S, MAX_WAIT_S, MAX_WAIT_S, MAX_WAIT_S]
    assert service.asked == [2_000] * 5
    assert [r.getMessage() for r in caplog.records] == [
        "broker b: delayed messages not delivered now: the store cannot write"
    ]  # a lasting refusal is logged once; not being master is no news
