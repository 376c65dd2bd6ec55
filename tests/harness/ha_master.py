"""An HA master over a real store, driven without sockets, and a way to run its blocking calls on a thread; a
ReplicasManager made master without a controller, and the agent API over it.

Slave acknowledgements reach it through ``HAMaster._on_ack``, the method a slave connection calls for every
``SlaveAcked`` it decodes, so no slave process is needed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.broker.manager import ReplicasManager
from agents.broker.roles import BecomeMaster, View
from agents.broker.service import AgentServicer
from agents.config import BrokerConfig
from agents.ha.config import HAConfig
from agents.ha.master_service import HAMaster
from agents.ha.role import Role
from agents.ha.sync_state import SyncState
from agents.metadata import Topic, learn
from agents.store.epochs import EpochCache
from agents.store.message_store import MessageStore
from agents.store.record import Message
from mqbase.clock import SYSTEM

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


def manager_config(root: Path) -> BrokerConfig:
    """broker-a of DefaultCluster, whose controller address has no listener: a call to it fails at once."""
    return BrokerConfig(
        broker_name="broker-a",
        store_path_root_dir=str(root),
        controller_addr=("127.0.0.1:1",),
        ha_listen_port=0,
        controller_heart_beat_timeout_mills=600_000,  # the stall guard must not fence puts in a slow test run
        mapped_file_size_commit_log=SEG,
    )


def become_master(m: ReplicasManager, epoch: int = 1, members: frozenset[int] = frozenset({1, 2})) -> HAMaster:
    """Carry out the controller's "you are master" decision (the HA service listens on an ephemeral port)."""
    view = View(1, "127.0.0.1:30911", "127.0.0.1:31911", epoch, members, 2)
    m.roles._execute(BecomeMaster(epoch, members, 2), view)
    assert m.status().role is Role.MASTER
    assert m.replica is not None and m.replica.master is not None
    return m.replica.master


class FakeHost:
    """The servicer's Host with nothing but the clock; the broker is found through `only`."""

    clock = SYSTEM


def servicer_for(m: ReplicasManager) -> AgentServicer:
    return AgentServicer(FakeHost(), only=lambda: m)  # type: ignore[arg-type]


def serve_topics(m: ReplicasManager, *names: str) -> None:
    """Make `m` know the topics `names` too (served by its set, perm RW, 4 queues), as a GetMetadata would."""
    added = [Topic(name, frozenset({m.config.broker_name}), 4, 4, 6) for name in names]
    with m.topics._lock:
        table = m.topics._table
        m.topics._table = learn(table, table.version + 1, [*table.topics.values(), *added], table.groups.values())
