"""The building blocks of the record and snapshot encodings: canonical varints, names and strings.

Every integer is an unsigned LEB128 varint of at most 2⁶³−1 (Java's ``long``), in its shortest form only, and every
string is its UTF-8 length as a varint then the bytes, so a value has exactly one encoding and
``encode(decode(b)) == b`` holds for whatever decodes. The reader raises `StateFormatError` naming the field.
"""

from __future__ import annotations

import functools
import re

from agents.consumer.errors import StateFormatError
from agents.pop.model import QueueKey
from mqbase.metadata import GROUP_MAX_LENGTH, TOPIC_MAX_LENGTH, VALID_PATTERN

MAX_INT = 2**63 - 1
MAX_QUEUE_ID = 2**31 - 1
MAX_TEXT = 255
"""An attempt id's bytes (the clients send a UUID)."""
_NAME = re.compile(VALID_PATTERN)


@functools.lru_cache(maxsize=4096)
def name_problem(what: str, value: str, limit: int) -> str | None:
    """Why `value` is not a topic or group name (RocketMQ's characters, 1..`limit` of them), or None."""
    if not (_NAME.fullmatch(value) and len(value) <= limit):
        return f"{what} {value!r} must be 1..{limit} characters of [%|a-zA-Z0-9_-]"
    return None


def int_problem(what: str, value: int, low: int = 0, high: int = MAX_INT) -> str | None:
    """Why `value` is outside ``low..high``, or None."""
    if not low <= value <= high:
        return f"{what} {value} is outside {low}..{high}"
    return None


class Writer:
    """Appends varints and strings to one growing buffer (the caller has checked the values)."""

    def __init__(self) -> None:
        self.out = bytearray()

    def uint(self, value: int) -> None:
        while value >= 0x80:
            self.out.append((value & 0x7F) | 0x80)
            value >>= 7
        self.out.append(value)

    def text(self, value: str) -> None:
        data = value.encode()
        self.uint(len(data))
        self.out += data

    def key(self, key: QueueKey) -> None:
        self.out += key_bytes(key)


@functools.lru_cache(maxsize=4096)
def key_bytes(key: QueueKey) -> bytes:
    """A (group, topic, queueId) key's encoding; cached, since every record of a queue repeats it."""
    w = Writer()
    w.text(key.group)
    w.text(key.topic)
    w.uint(key.queue_id)
    return bytes(w.out)


class Reader:
    """Reads varints and strings from `data`, refusing anything non-canonical, out of range or cut short."""

    def __init__(self, data: bytes, what: str) -> None:
        self.data = data
        self.pos = 0
        self.what = what

    def fail(self, problem: str) -> StateFormatError:
        return StateFormatError(f"{self.what}: {problem} (at byte {self.pos})")

    def uint(self, field: str, low: int = 0, high: int = MAX_INT) -> int:
        value = shift = 0
        start = self.pos
        while True:
            if self.pos >= len(self.data):
                raise self.fail(f"{field} is cut short")
            byte = self.data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
            if shift > 63:
                raise self.fail(f"{field} is longer than a 64-bit varint")
        if byte == 0 and self.pos - start > 1:
            raise self.fail(f"{field} is not in its shortest form")
        if problem := int_problem(field, value, low, high):
            raise self.fail(problem)
        return value

    def text(self, field: str, limit: int = MAX_TEXT) -> str:
        size = self.uint(f"{field} length", 0, limit)
        if self.pos + size > len(self.data):
            raise self.fail(f"{field} is cut short")
        raw = self.data[self.pos : self.pos + size]
        self.pos += size
        try:
            return raw.decode()
        except UnicodeDecodeError:
            raise self.fail(f"{field} is not UTF-8") from None

    def name(self, field: str, limit: int) -> str:
        value = self.text(field, limit)
        if problem := name_problem(field, value, limit):
            raise self.fail(problem)
        return value

    def key(self) -> QueueKey:
        """A (group, topic, queueId) key, each part checked."""
        return QueueKey(
            self.name("group", GROUP_MAX_LENGTH),
            self.name("topic", TOPIC_MAX_LENGTH),
            self.uint("queueId", 0, MAX_QUEUE_ID),
        )

    def count(self, field: str) -> int:
        """A list's length; each item takes at least one byte, so a count beyond the bytes left is damage."""
        return self.uint(f"{field} count", 0, len(self.data) - self.pos)

    def end(self) -> None:
        if self.pos != len(self.data):
            raise self.fail(f"{len(self.data) - self.pos} bytes follow the end")
