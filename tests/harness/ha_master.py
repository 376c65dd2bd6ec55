"""An HA master over a real store, driven without sockets, and a way to run its blocking calls on a thread.

Slave acknowledgements reach it through ``HAMaster._on_ack``, the method a slave connection calls for every
``SlaveAcked`` it decodes, so no slave process is needed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from agents.ha.config import HAConfig
from agents.ha.master_service import HAMaster
from agents.ha.sync_state import SyncState
from agents.store.epochs import EpochCache
from agents.store.message_store import MessageStore
from agents.store.record import Message

SEG = 64 * 1024
WAIT_S = 30.0
"""Upper bound for anything a test waits on in another thread (never reached when the code is right)."""


def msg(i: int = 0) -> Message:
    return Message("Orders", 0, f"m{i}".encode(), {}, 1_700_000_000_000 + i)


def call_in_thread(fn: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    """Run `fn` on a daemon thread; its return value lands in the list."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    thread.start()
    return thread, out


def ha_master(store: MessageStore, members: frozenset[int] = frozenset({1}), **config: Any) -> HAMaster:
    """Master 1 of epoch 1 over `store`, with `members` as its confirmed SyncStateSet (not listening)."""
    cache = EpochCache.from_pairs([(1, 0)])
    return HAMaster(store, lambda: cache, SyncState(1, members, 1), HAConfig(**config), on_propose=lambda _s: None)
