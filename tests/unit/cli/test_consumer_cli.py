"""The consumer-group commands' pure parts: resetOffsetByTime's -s, consumerProgress's rows and totals,
and how consumeMessage -g reads an AckMessage answer; then the wiring of their usage errors (exit 2, one line,
before any controller is asked)."""

from __future__ import annotations

from collections import deque
from datetime import UTC, timedelta, timezone
from typing import Any

import pytest

from mqadmin_py.commands.messages import (
    AckResult,
    PopSetDoc,
    ReceiveAsk,
    ack_outcomes,
    consume_sets,
    pop_error_text,
)
from mqadmin_py.commands.offsets import EscapedDoc, ProgressSetDoc, progress_doc, queue_progress, reset_time
from mqbase.errors import Interrupted, OperationFailed, Refused
from mqbase.proto import agent_pb2 as pb
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


def test_progress_doc_lists_the_escaped_changes_by_queue() -> None:
    held: list[EscapedDoc] = [
        {"brokerName": "broker-a", "heldBy": "broker-c", "topic": "T", "queueId": 1, "changes": 2},
        {"brokerName": "broker-a", "heldBy": "broker-b", "topic": "T", "queueId": 1, "changes": 3},
        {"brokerName": "broker-a", "heldBy": "broker-b", "topic": "A", "queueId": 0, "changes": 1},
    ]
    doc = progress_doc("G", None, [], [], held)
    assert [(e["topic"], e["queueId"], e["heldBy"]) for e in doc["escaped"]] == [
        ("A", 0, "broker-b"), ("T", 1, "broker-b"), ("T", 1, "broker-c")]  # fmt: skip
    assert progress_doc("G", None, [], [])["escaped"] == []


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


# --- consumeMessage -g's loop against scripted masters ---------------------------------------------------


class ScriptedSets:
    """Stands in for AgentClient: per (address, method) a queue of answers (the last repeats); records each call."""

    def __init__(self, script: dict[tuple[str, str], list[Any]]) -> None:
        self.script = {key: deque(answers) for key, answers in script.items()}
        self.calls: list[tuple[str, str, Any]] = []

    def call(self, address: str, method: str, request: Any) -> Any:
        self.calls.append((address, method, request))
        answers = self.script[(address, method)]
        return answers.popleft() if len(answers) > 1 else answers[0]


ASK: ReceiveAsk = {"group": "G", "topic": "T", "queue_id": None, "filter_expression": "*",
                   "invisible_millis": 30_000, "long_polling_millis": 0}  # fmt: skip
NOTHING = pb.ReceiveMessageResponse(code=19, pop_code=40401)
RECEIVE, ACK = "ReceiveMessage", "AckMessage"


def received(broker: str, *offsets: int) -> pb.ReceiveMessageResponse:
    r = pb.ReceiveMessageResponse(code=0, pop_code=20000)
    for offset in offsets:
        message = pb.Message(topic="T", queue_id=0, body=b"x", properties={"UNIQ_KEY": f"{broker}-{offset}"})
        r.messages.add(message=message, queue_offset=offset, delivery_attempt=1, receipt_handle=f"{broker} {offset}")
    return r


def acked(*handles: str, refused: str = "") -> pb.AckMessageResponse:
    r = pb.AckMessageResponse(code=0)
    for handle in handles:
        failed = handle == refused
        r.results.add(receipt_handle=handle, code=13 if failed else 0, pop_code=40013 if failed else 20000,
                      remark="stale" if failed else "")  # fmt: skip
    return r


def sets(*addresses: str | None) -> list[PopSetDoc]:
    return [{"brokerName": f"b{i}", "brokerAddress": a, "received": 0, "acked": 0, "error": None}
            for i, a in enumerate(addresses)]  # fmt: skip


def test_sets_are_asked_round_robin_until_a_round_gives_nothing_and_each_batch_is_acked_once() -> None:
    agents = ScriptedSets({("h:1", RECEIVE): [received("b0", 0, 1), NOTHING],
                           ("h:2", RECEIVE): [received("b1", 5), NOTHING],
                           ("h:1", ACK): [acked("b0 0", "b0 1")], ("h:2", ACK): [acked("b1 5")]})  # fmt: skip
    targets = sets("h:1", "h:2")
    messages, errors = consume_sets(agents, targets, ASK, 100, True, 3.0)
    assert errors == [] and [m["msgId"] for m in messages] == ["b0-0", "b0-1", "b1-5"]
    assert all(m["acked"] and m["ackError"] is None for m in messages)
    assert [(a, m) for a, m, _ in agents.calls] == [
        ("h:1", RECEIVE), ("h:1", ACK), ("h:2", RECEIVE), ("h:2", ACK),
        ("h:1", RECEIVE), ("h:2", RECEIVE)]  # fmt: skip
    assert list(agents.calls[1][2].receipt_handles) == ["b0 0", "b0 1"]
    assert [(s["received"], s["acked"]) for s in targets] == [(2, 2), (1, 1)]


def test_the_count_bounds_each_batch_and_ends_the_run() -> None:
    agents = ScriptedSets({("h:1", RECEIVE): [received("b0", 0, 1)], ("h:1", ACK): [acked("b0 0", "b0 1")]})
    messages, errors = consume_sets(agents, sets("h:1"), ASK, 2, True, 3.0)
    assert (len(messages), errors) == (2, [])
    [receive] = [r for _, m, r in agents.calls if m == RECEIVE]
    assert (receive.batch_size, receive.group, receive.topic, receive.HasField("queue_id")) == (2, "G", "T", False)


def test_no_ack_sends_no_ack() -> None:
    agents = ScriptedSets({("h:1", RECEIVE): [received("b0", 0), NOTHING]})
    messages, errors = consume_sets(agents, sets("h:1"), ASK, 100, False, 3.0)
    assert (len(messages), errors, messages[0]["acked"], messages[0]["ackError"]) == (1, [], False, None)
    assert {m for _, m, _ in agents.calls} == {RECEIVE}


def test_a_failed_set_is_dropped_and_the_others_go_on() -> None:
    refused = pb.ReceiveMessageResponse(code=17, pop_code=40000, remark="topic[T] not exist")
    agents = ScriptedSets({("h:1", RECEIVE): [refused], ("h:2", RECEIVE): [received("b1", 0), NOTHING],
                           ("h:2", ACK): [acked("b1 0")]})  # fmt: skip
    targets = sets(None, "h:1", "h:2")
    messages, errors = consume_sets(agents, targets, ASK, 100, True, 3.0)
    assert [m["msgId"] for m in messages] == ["b1-0"]
    assert [type(e) for e in errors] == [Refused, OperationFailed] and errors[0].exit_code == 4
    assert str(errors[1]) == "TOPIC_NOT_EXIST (17): BAD_REQUEST (40000): topic[T] not exist"
    assert [s["error"] is not None for s in targets] == [True, True, False]
    assert [a for a, m, _ in agents.calls if m == RECEIVE].count("h:1") == 1


def test_a_refused_ack_is_reported_per_message_and_is_an_error() -> None:
    agents = ScriptedSets({("h:1", RECEIVE): [received("b0", 0, 1), NOTHING],
                           ("h:1", ACK): [acked("b0 0", "b0 1", refused="b0 1")]})  # fmt: skip
    targets = sets("h:1")
    messages, errors = consume_sets(agents, targets, ASK, 100, True, 3.0)
    assert [(m["acked"], m["ackError"]) for m in messages] == [
        (True, None), (False, "INVALID_RECEIPT_HANDLE (40013): stale")]  # fmt: skip
    assert [str(e) for e in errors] == ["1 of 2 ack(s) on b0 failed; first: INVALID_RECEIPT_HANDLE (40013): stale"]
    assert errors[0].exit_code == 1 and targets[0]["acked"] == 1


def test_a_redirect_is_followed_and_the_new_master_gets_the_ack() -> None:
    moved = pb.ReceiveMessageResponse(code=11, remark="not master", master_address="h:2")
    agents = ScriptedSets({("h:1", RECEIVE): [moved], ("h:2", RECEIVE): [received("b0", 3), NOTHING],
                           ("h:2", ACK): [acked("b0 3")]})  # fmt: skip
    targets = sets("h:1")
    messages, errors = consume_sets(agents, targets, ASK, 100, True, 3.0)
    assert (len(messages), errors, targets[0]["brokerAddress"]) == (1, [], "h:2")
    assert [(a, m) for a, m, _ in agents.calls] == [
        ("h:1", RECEIVE), ("h:2", RECEIVE), ("h:2", ACK), ("h:2", RECEIVE)]  # fmt: skip
    assert agents.calls[0][2].attempt_id == agents.calls[1][2].attempt_id  # the same receive, retried


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


class CtrlC(ScriptedSets):
    """ScriptedSets whose `at`-th call is interrupted by Ctrl-C (the user's SIGINT lands in a blocking call)."""

    def __init__(self, script: dict[tuple[str, str], list[Any]], at: int) -> None:
        super().__init__(script)
        self.at = at

    def call(self, address: str, method: str, request: Any) -> Any:
        if len(self.calls) + 1 == self.at:
            self.calls.append((address, method, request))
            raise KeyboardInterrupt
        return super().call(address, method, request)


def test_ctrl_c_keeps_what_was_received_and_acked_and_ends_with_interrupted() -> None:
    """Fixed: Ctrl-C ended consumeMessage -g with exit 130 and no word of the messages it had acked."""
    agents = CtrlC({("h:1", RECEIVE): [received("b0", 0, 1)], ("h:1", ACK): [acked("b0 0", "b0 1")]}, at=3)
    targets = sets("h:1")
    messages, errors = consume_sets(agents, targets, ASK, 100, True, 3.0)
    assert [m["msgId"] for m in messages] == ["b0-0", "b0-1"] and all(m["acked"] for m in messages)
    assert isinstance(errors[0], Interrupted) and errors[0].exit_code == 130
    assert "interrupted after 2 message(s) received, 2 acked" in str(errors[0])
