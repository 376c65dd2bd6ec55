"""Child process for tests/integration/test_store_crash.py; the test SIGKILLs it.

python -m tests.harness.store_child append ROOT SEGMENT_SIZE
    put + flush forever, printing "<first> <count> <end>" per flush
python -m tests.harness.store_child truncate ROOT SEGMENT_SIZE TARGET K
    truncate to TARGET, SIGKILLing itself just before the K-th file-system call of the truncation ("done" if it
    ends)
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.store.message_store import MessageStore
from agents.store.record import Message

TOPIC = "Crash"
QUEUES = 4
# Every call that changes files or makes them durable, so each step of a truncation is a crash point.
FS_CALLS = ("open", "write", "pwrite", "fsync", "fdatasync", "ftruncate", "replace", "unlink")


def message(n: int) -> Message:
    """Message number `n`; the test regenerates it to check what it reads back."""
    return Message(TOPIC, n % QUEUES, f"{n}:".encode() + bytes([n % 251]) * (n * 37 % 300), {"n": str(n)}, n)


def stored_count(store: MessageStore) -> int:
    store.set_confirm_offset(store.max_offset)
    return sum(store.queue_range(TOPIC, q)[1] for q in range(QUEUES))


def append_forever(store: MessageStore) -> None:
    n = stored_count(store)
    while True:
        count = 1 + n % 3
        end = store.put([message(i) for i in range(n, n + count)]).end
        store.flush()
        print(n, count, end, flush=True)
        n += count


def kill_before_call(k: int) -> None:
    """Wrap the os functions in FS_CALLS so that the k-th call (counting all of them) kills this process first."""
    calls = 0

    def wrap(real: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal calls
            calls += 1
            if calls == k:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)

        return counted

    for name in FS_CALLS:
        setattr(os, name, wrap(getattr(os, name)))


def main() -> None:
    mode, root, segment_size = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    store = MessageStore(root, segment_size)
    if mode == "append":
        append_forever(store)
    elif mode == "truncate":
        kill_before_call(int(sys.argv[5]))
        store.truncate(int(sys.argv[4]))
        print("done", flush=True)
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
