"""A sent message's checks: the first rule broken, with Java's code and a one-line message."""

from __future__ import annotations

from typing import Any

import pytest

from agents.access.codes import Code
from agents.access.validation import MAX_BODY_SIZE, group_problem, send_problem, topic_problem

GOOD: dict[str, Any] = {
    "topic": "Orders",
    "message_id": "01AB",
    "body_size": 10,
    "user_properties": {"color": "red"},
    "tag": "TagA",
    "keys": ["k1"],
    "message_group": None,
}


def test_a_good_message_passes() -> None:
    assert send_problem(**GOOD) is None
    assert send_problem(**{**GOOD, "tag": None, "keys": [], "message_group": "g1"}) is None
    assert send_problem(**{**GOOD, "body_size": MAX_BODY_SIZE}) is None


@pytest.mark.parametrize(
    ("change", "code", "message"),
    [
        ({"topic": " "}, Code.ILLEGAL_TOPIC, "topic name cannot be blank"),
        ({"topic": "a b"}, Code.ILLEGAL_TOPIC, "topic name 'a b' has characters other than %|a-zA-Z0-9_-"),
        ({"topic": "t" * 128}, Code.ILLEGAL_TOPIC, "topic name length 128 exceeds the max 127"),
        ({"message_id": ""}, Code.ILLEGAL_MESSAGE_ID, "message id cannot be empty"),
        ({"body_size": 0}, Code.MESSAGE_BODY_EMPTY, "message body cannot be empty"),
        ({"body_size": MAX_BODY_SIZE + 1}, Code.MESSAGE_BODY_TOO_LARGE,
         f"message body size {MAX_BODY_SIZE + 1} exceeds the max {MAX_BODY_SIZE} bytes"),
        ({"user_properties": {str(i): "" for i in range(129)}}, Code.MESSAGE_PROPERTIES_TOO_LARGE,
         "129 user properties exceed the max 128"),
        ({"user_properties": {"k": "v" * 16384}}, Code.MESSAGE_PROPERTIES_TOO_LARGE,
         "user properties size 16385 exceeds the max 16384"),
        ({"user_properties": {"TAGS": "x"}}, Code.ILLEGAL_MESSAGE_PROPERTY_KEY, "property is used by system, key=TAGS"),
        ({"user_properties": {"a\nb": "x"}}, Code.ILLEGAL_MESSAGE_PROPERTY_KEY,
         "property 'a\\nb' is blank or has control characters"),
        ({"tag": " "}, Code.ILLEGAL_MESSAGE_TAG, "tag cannot be the char sequence of whitespace"),
        ({"tag": "A|B"}, Code.ILLEGAL_MESSAGE_TAG, "tag cannot contain '|'"),
        ({"tag": "A\x01"}, Code.ILLEGAL_MESSAGE_TAG, "tag cannot contain control characters"),
        ({"keys": ["k", " "]}, Code.ILLEGAL_MESSAGE_KEY, "key cannot be the char sequence of whitespace"),
        ({"message_group": ""}, Code.ILLEGAL_MESSAGE_GROUP, "message group cannot be the char sequence of whitespace"),
        ({"message_group": "g" * 65}, Code.ILLEGAL_MESSAGE_GROUP, "message group length 65 exceeds the max 64"),
    ],
)  # fmt: skip
def test_each_rule_names_its_problem(change: dict[str, Any], code: Code, message: str) -> None:
    problem = send_problem(**{**GOOD, **change})
    assert problem is not None
    assert (problem.code, problem.message) == (code, message)


def test_names() -> None:
    assert topic_problem("%RETRY%g_1-x") is None
    assert group_problem("GID_a") is None
    problem = group_problem("")
    assert problem is not None and problem.code is Code.ILLEGAL_CONSUMER_GROUP
