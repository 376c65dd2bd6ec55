"""Coroutines run to completion on a loop of their own, leaving the thread's current event loop alone.

``asyncio.run`` ends with ``set_event_loop(None)``; after it, ``asyncio.get_event_loop()`` in the main thread
raises instead of making a loop. The official RocketMQ Python client opens its telemetry stream from the caller's
thread, so an official-client test run after such a unit test in the same process (as pytest-xdist's workers may
order them) could fail with "There is no current event loop in thread 'MainThread'".
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``'s result and clean-up (tasks left are cancelled, async generators closed), on a loop
    that never becomes the thread's current one."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
