"""RocketMQ's topic and group rules shared by the controller and the CLI (mqbase/metadata.py)."""

from __future__ import annotations

import pytest

from mqbase.metadata import group_problem, parse_attributes, send_problem, topic_problem


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("TopicTest", None),
        ("%RETRY%group|a-b_c", None),
        ("x" * 127, None),
        ("", "The specified topic is blank."),
        ("   ", "The specified topic is blank."),
        ("a.b", "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"),
        ("é", "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"),
        ("x" * 128, "The specified topic is longer than topic max length."),
        ("SCHEDULE_TOPIC_XXXX", "The topic[SCHEDULE_TOPIC_XXXX] is conflict with system topic."),
        ("rmq_sys_REVIVE_LOG_c", "The topic[rmq_sys_REVIVE_LOG_c] is conflict with system topic."),
    ],
)
def test_topic_names(name: str, problem: str | None) -> None:
    assert topic_problem(name) == problem


@pytest.mark.parametrize(
    ("topic", "forbidden"),
    [
        ("TopicTest", False),
        ("TBW102", False),  # Java lets producers send to these system topics
        ("RMQ_SYS_TRACE_TOPIC", False),
        ("SCHEDULE_TOPIC_XXXX", True),
        ("RMQ_SYS_TRANS_HALF_TOPIC", True),
        ("OFFSET_MOVED_EVENT", True),
        ("rmq_sys_CONSUMER_STATE", True),  # where the broker keeps offsets and POP state
        ("rmq_sys_anything", True),
    ],
)
def test_topics_producers_may_not_send_to(topic: str, forbidden: bool) -> None:
    assert send_problem(topic) == (f"Sending message to topic[{topic}] is forbidden." if forbidden else None)


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("GID_orders", None),
        ("g" * 255, None),
        ("", "the specified group is blank"),
        ("g" * 256, "the specified group is longer than group max length 255."),
        ("g g", "the specified group[g g] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"),
    ],
)
def test_group_names(name: str, problem: str | None) -> None:
    assert group_problem(name) == problem


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("+message.type=FIFO", {"message.type": "FIFO"}),
        (" -message.type ", {"message.type": None}),
        ("+message.type=TRANSACTION", {"message.type": "TRANSACTION"}),
    ],
)
def test_attributes(text: str, parsed: dict[str, str | None]) -> None:
    assert parse_attributes(text) == parsed


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("message.type=FIFO", "attribute 'message.type=FIFO' must be +key=value (set) or -key (remove)"),
        ("-message.type=FIFO", "must be +key=value (set) or -key (remove)"),
        ("+message.type=fifo", "attribute message.type must be one of NORMAL, FIFO, DELAY, TRANSACTION, got 'fifo'"),
        ("+message.type=FIFO,-message.type", "attribute message.type is given twice"),
        ("+cleanup.policy=COMPACTION", "unknown topic attribute 'cleanup.policy' (known: message.type)"),
        ("", "attribute '' must be +key=value"),
    ],
)
def test_bad_attributes(text: str, error: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_attributes(text)
    assert error in str(caught.value)
