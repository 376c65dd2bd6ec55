"""One polling loop for every test that waits for something asynchronous."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import grpc

from mqbase.errors import MqError

T = TypeVar("T")


def wait_until(pred: Callable[[], T | None], timeout: float, what: str = "condition", interval: float = 0.1) -> T:
    """Poll `pred` until it returns something truthy and return that; fail after `timeout` seconds.

    An ``MqError`` or ``grpc.RpcError`` from `pred` (no leader right now, a process still starting or
    restarting) counts as "not yet"; the failure quotes the last value or error.
    """
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            value = pred()
        except (MqError, grpc.RpcError) as exc:
            value, last = None, exc
        else:
            last = value
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}; last: {last!r}")
        time.sleep(interval)
