"""The consumer-group commands' pure parts (issue 25): resetOffsetByTime's -s, consumerProgress's rows and totals,
and how consumeMessage -g reads an AckMessage answer; then the wiring of their usage errors (exit 2, one line,
before any controller is asked)."""

from __future__ import annotations

from datetime import UTC, timedelta, timezone

import pytest

from mqadmin_py.commands.messages import AckResult, ack_outcomes, pop_error_text
from mqadmin_py.commands.offsets import ProgressSetDoc, progress_doc, queue_progress, reset_time
from tests.harness.processes import run_mqadmin

CET = timezone(timedelta(hours=1))


@pytest.mark.parametrize(
    ("text", "tz", "millis"),
    [
        ("now", UTC, None),
        (" now ", UTC, None),
        ("0", UTC, 0),
        ("1764081234567", UTC, 1764081234567),
        ("9223372036854775807", UTC, 2**63 - 1),
        ("1970-01-01#00:00:00:000", UTC, 0),
        ("2025-11-25#14:33:54:567", UTC, 1764081234567),
        ("2025-11-25#15:33:54:567", CET, 1764081234567),  # Java reads the date in the host's zone
        ("2024-02-29#23:59:59:999", UTC, 1709251199999),
    ],
)
def test_reset_time_takes_javas_three_forms(text: str, tz: timezone, millis: int | None) -> None:
    assert reset_time(text, tz) == millis


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "is none of: epoch milliseconds, 'now', yyyy-MM-dd#HH:mm:ss:SSS"),
        ("-1", "is none of"),
        ("1.5", "is none of"),
        ("NOW", "is none of"),
        ("٣", "is none of"),  # a digit, but not an ASCII one
        ("9223372036854775808", "is beyond the largest epoch millisecond"),
        ("2025-11-25 14:33:54", "is none of"),
        ("2025-11-25#14:33:54:5", "is none of"),  # Java's SSS: three digits
        ("2025-11-25#14:33:54", "is none of"),
        ("2025-13-01#00:00:00:000", "is not a date"),
        ("2025-02-30#00:00:00:000", "is not a date"),
        ("1969-12-31#23:59:59:999", "is before 1970-01-01"),
    ],
)
def test_reset_time_names_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(ValueError, match="timestamp") as caught:
        reset_time(text, UTC)
    assert why in str(caught.value)


@pytest.mark.parametrize(
    ("broker", "minimum", "consumer", "diff", "below", "skipped"),
    [
        (10, 0, 10, 0, False, 0),  # caught up
        (10, 0, 4, 6, False, 0),  # lagging
        (10, 4, 4, 6, False, 0),  # at the first readable offset: nothing lost
        (10, 6, 4, 6, True, 2),  # retention deleted offsets 4 and 5 before the group got them
        (10, 10, 0, 10, True, 10),  # everything it never consumed is gone
        (0, 0, 0, 0, False, 0),  # an empty queue
    ],
)
def test_queue_progress_flags_an_offset_below_the_first_readable_one(
    broker: int, minimum: int, consumer: int, diff: int, below: bool, skipped: int
) -> None:
    row = queue_progress("T", "broker-a", 1, broker, minimum, consumer, 2, 1764081234567)
    assert (row["diff"], row["belowMinOffset"], row["skippedByRetention"]) == (diff, below, skipped)
    assert (row["brokerOffset"], row["minOffset"], row["consumerOffset"], row["inflight"]) == (
        broker, minimum, consumer, 2)  # fmt: skip


def test_queue_progress_has_no_last_time_before_the_first_consumed_message() -> None:
    assert queue_progress("T", "b", 0, 3, 0, 0, 0, 0)["lastTimestamp"] is None
    assert queue_progress("T", "b", 0, 3, 0, 1, 0, 17)["lastTimestamp"] == 17


def test_progress_doc_sorts_as_java_and_sums_diff_and_inflight() -> None:
    rows = [
        queue_progress("T", "broker-b", 0, 5, 0, 1, 1, 0),
        queue_progress("T", "broker-a", 1, 3, 0, 3, 0, 0),
        queue_progress("A", "broker-b", 0, 2, 0, 0, 2, 0),
        queue_progress("T", "broker-a", 0, 7, 0, 5, 1, 0),
    ]
    sets: list[ProgressSetDoc] = [{"brokerName": "broker-a", "masterAddress": "h:1", "reachable": True, "error": None}]
    doc = progress_doc("G", None, rows, sets)
    assert [(q["topic"], q["brokerName"], q["queueId"]) for q in doc["queues"]] == [
        ("A", "broker-b", 0), ("T", "broker-a", 0), ("T", "broker-a", 1), ("T", "broker-b", 0)]  # fmt: skip
    assert (doc["diffTotal"], doc["inflightTotal"]) == (2 + 2 + 0 + 4, 4)
    assert progress_doc("G", "T", [], [])["diffTotal"] == 0


OK = (0, 20000, "")


@pytest.mark.parametrize(
    ("code", "results", "outcomes"),
    [
        (0, [("h1", *OK), ("h2", *OK)], [None, None]),
        (0, [("h2", *OK), ("h1", *OK)], [None, None]),  # matched by handle, not by position
        (0, [("h1", 0, 0, "")], [None, "the broker gave no result for this receipt handle"]),
        (0, [("h1", *OK), ("h2", 13, 40013, "stale handle")], [None, "INVALID_RECEIPT_HANDLE (40013): stale handle"]),
        (0, [("h1", 19, 40401, "gone"), ("h2", *OK)], ["MESSAGE_NOT_FOUND (40401): gone", None]),
        (0, [("h1", 1, 0, "disk full"), ("h2", *OK)], ["SYSTEM_ERROR (1): disk full", None]),
        (14, [], ["SERVICE_NOT_AVAILABLE (14): fenced"] * 2),  # the batch refused: every handle failed
    ],
)
def test_ack_outcomes_match_results_to_handles(code: int, results: list[AckResult], outcomes: list[str | None]) -> None:
    assert ack_outcomes(["h1", "h2"], code, "fenced", results) == outcomes


def test_pop_error_text_names_the_pop_code_first() -> None:
    assert pop_error_text(13, 40011, "too short") == "ILLEGAL_INVISIBLE_TIME (40011): too short"
    assert pop_error_text(26, 0, "no group") == "SUBSCRIPTION_GROUP_NOT_EXIST (26): no group"
    assert pop_error_text(26, 20000, "no group") == "SUBSCRIPTION_GROUP_NOT_EXIST (26): no group"
    assert pop_error_text(1, 49999, "odd") == "POP code 49999: odd"


# --- the wiring: exit 2 with one error line before any connection (127.0.0.1:1 would be exit 5) -------------

A = ("-a", "127.0.0.1:1")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("resetOffsetByTime", *A, "-g", "G", "-t", "T", "-s", "yesterday"), "is none of"),
        (("resetOffsetByTime", *A, "-g", "G", "-t", "T", "-s", "-5"), "is none of"),
        (("resetOffsetByTime", *A, "-g", "G", "-t", "T", "-s", "2025-02-30#00:00:00:000"), "is not a date"),
        (("resetOffsetByTime", *A, "-t", "T", "-s", "now"), "Missing option '-g'"),  # never "every group"
        (("resetOffsetByTime", *A, "-g", "G", "-s", "now"), "Missing option '-t'"),
        (("resetOffsetByTime", *A, "-g", "G", "-t", "T"), "Missing option '-s'"),
        (("resetOffsetByTime", *A, "-g", "G", "-t", "T", "-s", "now", "-f", "false"), "-f false"),
        (("resetOffsetByTime", *A, "-g", "G", "-t", "T", "-s", "now", "-f", "maybe"), "want true or false"),
        (("resetOffsetByTime", *A, "-g", "bad group", "-t", "T", "-s", "now"), "--groupName"),
        (("resetOffsetByTime", *A, "-g", "G", "-t", "T", "-s", "now", "-b", ""), "cannot be empty"),
        (("resetOffsetByOffset", *A, "-g", "G", "-t", "T", "-b", "b", "-i", "0"), "Missing option '--offset'"),
        (("resetOffsetByOffset", *A, "-g", "G", "-t", "T", "-b", "b", "-i", "0", "--offset", "-1"), "--offset"),
        (("resetOffsetByOffset", *A, "-g", "G", "-t", "T", "-i", "0", "--offset", "1"), "Missing option '-b'"),
        (("consumerProgress", *A), "Missing option '-g'"),
        (("consumerProgress", *A, "-g", "G", "-t", "TBW102"), "conflict with system topic"),
        (("consumeMessage", *A, "-t", "T", "-g", "G", "--filter", "||"), "names no tag"),
        (("consumeMessage", *A, "-t", "T", "-g", "G", "--filter", "A || *"), "'*' must stand alone"),
        (("consumeMessage", *A, "-t", "T", "-g", "bad group"), "--consumerGroup"),
        (("consumeMessage", *A, "-t", "T", "-g", "G", "--invisible-time", "9999"), "--invisible-time"),
        (("consumeMessage", *A, "-t", "T", "-g", "G", "--wait", "20001"), "--wait"),
        (("consumeMessage", *A, "-t", "T", "-g", "G", "--offset", "1"), "--offset: only without -g"),
        (("consumeMessage", *A, "-t", "T", "-g", "G", "--brokerAddr", "h:1"), "--brokerAddr: only without -g"),
        (("consumeMessage", *A, "-t", "T", "-b", "b", "--no-ack"), "--no-ack: only with -g"),
        (("consumeMessage", *A, "-t", "T", "-b", "b", "--filter", "*", "--wait", "0"), "--filter, --wait: only"),
        (("consumeMessage", *A, "-t", "T"), "give -b BROKER_NAME"),
    ],
)  # fmt: skip
def test_bad_consumer_options_are_usage_errors_before_any_connection(args: tuple[str, ...], says: str) -> None:
    result = run_mqadmin(*args)
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith(("Error:", "mqadmin:"))]
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr
    assert says in result.stderr, result.stderr
