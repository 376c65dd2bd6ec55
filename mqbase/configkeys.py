"""Java-named config keys for frozen config dataclasses: one set of parsers and error messages for every process.

A field ``scan_not_active_broker_interval`` is the key ``scanNotActiveBrokerInterval``; a field whose Java
name is not plain camelCase (``brokerIP1``) says so with ``metadata={"key": ...}``. The parsers take the key
so that every error message names it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from typing import Any

from mqbase.errors import MqBaseError

MAX_NAME = 255
"""Longest cluster or broker name; the controller refuses longer ones (controller/convert.py)."""

MAX_MILLIS = 2**31 - 1
"""A period or timeout in ms is at most Java's int milliseconds (24.8 days), far inside what the platform's timers
take: a larger one made a wait overflow (OverflowError) instead of being refused."""

Parser = Callable[[str, str], Any]
"""(Java key, raw text) → parsed value, or ConfigError naming the key."""


class ConfigError(MqBaseError, ValueError):
    """A configuration that cannot be used; the message says which key and why."""


def camel(name: str) -> str:
    """Java key of a snake_case field name."""
    head, *rest = name.split("_")
    return head + "".join(w.capitalize() for w in rest)


def millis_problem(field: str, value: int) -> str | None:
    """Why a period or timeout field (ms) cannot be `value`, or None."""
    if value > MAX_MILLIS:
        return f"{camel(field)} must be at most {MAX_MILLIS} ms (24.8 days), got {value}"
    return None


def java_keys(cls: type) -> dict[str, str]:
    """Java key → field name of config dataclass `cls`; a field with ``metadata={"key": None}`` is not a key."""
    keys = {f.name: f.metadata.get("key", camel(f.name)) for f in fields(cls)}
    return {key: name for name, key in keys.items() if key is not None}


def parse_bool(key: str, text: str) -> bool:
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    raise ConfigError(f"{key} must be true or false, got {text!r}")


INT64_MAX = 2**63 - 1
"""The largest value of any integer key: Java keeps them in a long, and larger ones overflow float arithmetic."""


def parse_int(key: str, text: str) -> int:
    """A non-negative integer that fits a Java long: no key of ours has a meaning for negative values."""
    try:
        value = int(text.strip())
    except ValueError as exc:
        raise ConfigError(f"{key} must be an integer, got {text!r}") from exc
    if value < 0:
        raise ConfigError(f"{key} must not be negative, got {value}")
    if value > INT64_MAX:
        raise ConfigError(f"{key} must be at most {INT64_MAX}, got {text.strip()[:40]!r}")
    return value


def parse_str(_key: str, text: str) -> str:
    return text.strip()


def unknown_key(key: str, known: Iterable[str]) -> ConfigError:
    """The error for a key nobody reads, with the closest known key as a hint (typos are the usual cause)."""
    hint = difflib.get_close_matches(key, list(known), n=1)
    return ConfigError(f"unknown config key {key!r}" + (f" (did you mean {hint[0]!r}?)" if hint else ""))


def parse_fields(cls: type, values: Mapping[str, str], parsers: Mapping[str, Parser]) -> dict[str, Any]:
    """Field name → parsed value for the Java-named `values`, each parsed by the parser of its field's type.

    `parsers` is keyed by the annotation text (``"int"``, ``"tuple[str, ...]"``): the config modules use
    ``from __future__ import annotations``.
    """
    keys = java_keys(cls)
    types = {f.name: str(f.type) for f in fields(cls)}
    changes: dict[str, Any] = {}
    for key, text in values.items():
        if key not in keys:
            raise unknown_key(key, keys)
        changes[keys[key]] = parsers[types[keys[key]]](key, text)
    return changes


def format_value(value: object) -> str:
    """The properties-file text of a parsed value (the inverse of the parsers)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return ";".join(str(v) for v in value)
    return str(value)


def name_problem(value: str) -> str | None:
    """Why `value` cannot be a cluster or broker name, or None.

    ``#`` separates the fields of the broker identity files and ``;`` the lists of the controller API.
    """
    if not value:
        return "is empty"
    if len(value) > MAX_NAME:
        return f"is longer than {MAX_NAME} characters"
    if any(c in "#;" or c.isspace() or not c.isprintable() for c in value):
        return f"must not contain '#', ';', whitespace or control characters, got {value!r}"
    return None


def address_problem(value: str) -> str | None:
    """Why `value` is not a ``host:port`` address with a port in 1-65535, or None."""
    host, sep, port = value.rpartition(":")
    bad_host = not host or any(c.isspace() or c in "#;/" for c in host)  # "/": a URL (http://h:p) is no address
    if not sep or bad_host or not (port.isascii() and port.isdigit() and len(port) <= 5):
        return f"is not host:port, got {value!r}"
    if not 0 < int(port) < 65536:
        return f"has port {int(port)} out of range 1-65535, got {value!r}"
    return None
