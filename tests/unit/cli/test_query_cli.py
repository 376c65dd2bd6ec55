"""The message query commands' pure parts: offset message ids, body formats, time bounds, the message document."""

from __future__ import annotations

import time
from typing import get_type_hints

import pytest

from mqadmin_py import message_id
from mqadmin_py.commands.query import FoundMessageDoc, body_text, flag, java_time, message_doc, time_bound
from mqbase.errors import UsageError
from mqbase.proto import agent_pb2 as pb


def test_offset_ids_are_javas_and_decode_back() -> None:
    # MessageDecoder.createMessageId(127.0.0.1:10911, 12345) in Java
    assert message_id.offset_id("127.0.0.1:10911", 12345) == "7F00000100002A9F0000000000003039"
    assert message_id.decode_offset_id("7f00000100002a9f0000000000003039") == ("127.0.0.1:10911", 12345)
    v6 = message_id.offset_id("[::1]:5", 7)
    assert v6 is not None and len(v6) == 56 and message_id.decode_offset_id(v6) == ("[::1]:5", 7)
    assert message_id.offset_id("broker-host:10911", 1) is None  # a host name has no IP to encode


@pytest.mark.parametrize("text", ["", "XYZ", "7F00000100002A9F00000000000030", "01" * 17, "G" * 32])
def test_anything_but_an_offset_id_is_refused_with_a_pointer_to_the_unique_key_query(text: str) -> None:
    with pytest.raises(ValueError, match="queryMsgByUniqueKey"):
        message_id.decode_offset_id(text)


def test_bodies_print_as_text_hex_or_base64() -> None:
    assert body_text(b"hi \xff", "text") == "hi \\xff"
    assert body_text(b"hi", "hex") == "6869"
    assert body_text(b"hi", "base64") == "aGk="
    assert body_text("é".encode("latin-1"), "text", "latin-1") == "é"


def test_time_bounds_take_ms_now_and_javas_format() -> None:
    assert time_bound(None, "-b", 5) == 5
    assert time_bound("1764000000000", "-b", 0) == 1764000000000
    assert time_bound("1970-01-01#00:00:01:500", "-e", 0) == 1500 - time.localtime(0).tm_gmtoff * 1000  # local zone
    assert abs(time_bound("now", "-e", 0) - time.time() * 1000) < 60_000
    with pytest.raises(UsageError, match="-b: timestamp 'yesterday'"):
        time_bound("yesterday", "-b", 0)


def test_java_booleans() -> None:
    assert flag("true", "-d") and not flag(" False ", "-d")
    with pytest.raises(UsageError, match="-d takes true or false"):
        flag("yes", "-d")


def test_java_time_prints_milliseconds() -> None:
    assert java_time(None) == ""
    assert java_time(1_500).endswith(",500")


def test_a_stored_message_becomes_the_documented_document() -> None:
    m = pb.StoredMessage(topic="T", queue_id=2, queue_offset=7, commit_log_offset=4096, size=230,
                         store_timestamp=1_764_000_000_000, body=b"hello",
                         properties={"KEYS": "a b", "TAGS": "TagA", "UNIQ_KEY": "U1"})  # fmt: skip
    doc = message_doc("broker-a", "127.0.0.1:10911", m, "text")
    assert set(doc) == set(get_type_hints(FoundMessageDoc))
    assert doc["offsetMsgId"] == message_id.offset_id("127.0.0.1:10911", 4096)
    assert (doc["msgId"], doc["keys"], doc["tags"], doc["body"]) == ("U1", "a b", "TagA", "hello")
    assert (doc["queueId"], doc["queueOffset"], doc["commitLogOffset"], doc["size"]) == (2, 7, 4096, 230)
    assert message_doc("broker-a", "h:1", m, "hex", with_body=False)["body"] is None
