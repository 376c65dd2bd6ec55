"""The master's put path: the local flush runs outside the HA lock (group commit), replication is not held back
by it, and confirmOffset never passes what a flush on the master made durable.

The store is real; its flush is held at a gate so the test can act while it "runs". Slave acknowledgements go
through ``HAMaster._on_ack`` as in test_write_pause. No test asserts on durations.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.ha.actions import SlaveAcked
from agents.ha.sync_state import PutStatus
from agents.store.message_store import MessageStore
from tests.harness.ha_master import SEG, WAIT_S, call_in_thread, ha_master, msg
from tests.harness.wait import wait_until


class GatedStore(MessageStore):
    """A MessageStore whose flushes wait for `gate` once `hold` is set, and count themselves."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, SEG)
        self.hold = threading.Event()
        self.gate = threading.Event()
        self.flushing = threading.Event()
        self.flushes = 0

    def flush(self, *, lazy: bool = False) -> None:
        if self.hold.is_set():
            self.flushing.set()
            assert self.gate.wait(WAIT_S), "gate never opened"
        super().flush(lazy=lazy)
        self.flushes += 1


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GatedStore]:
    s = GatedStore(tmp_path / "store")
    yield s
    s.gate.set()
    s.close()


def test_a_put_appends_while_another_put_flushes(store: GatedStore) -> None:
    master = ha_master(store)
    try:
        store.hold.set()
        first, first_out = call_in_thread(lambda: master.put([msg(1)]))
        assert store.flushing.wait(WAIT_S)
        end_of_first = store.max_offset
        second, second_out = call_in_thread(lambda: master.put([msg(2)]))
        # appended although the first flush has not returned:
        wait_until(lambda: store.max_offset > end_of_first, WAIT_S, "the second put's append", interval=0.005)
        assert not first_out and not second_out
        store.hold.clear()
        store.gate.set()
        first.join(WAIT_S)
        second.join(WAIT_S)
        assert [r.status for r in first_out + second_out] == [PutStatus.PUT_OK, PutStatus.PUT_OK]
        assert store.confirm_offset == store.max_offset
    finally:
        master.stop()


def test_confirm_offset_waits_for_the_local_flush(store: GatedStore) -> None:
    master = ha_master(store, frozenset({1, 2}), all_ack_in_sync_state_set=True)
    try:
        master._on_ack(SlaveAcked(2, store.max_offset, caught_up=True), False)
        before = store.confirm_offset
        store.hold.set()
        put, out = call_in_thread(lambda: master.put([msg(1)]))
        assert store.flushing.wait(WAIT_S)
        end = store.max_offset
        master._on_ack(SlaveAcked(2, end, caught_up=True), False)  # the slave has it before the master's fsync
        assert store.confirm_offset == before
        assert not out
        store.gate.set()
        put.join(WAIT_S)
        assert out[0].status is PutStatus.PUT_OK and out[0].end_offset == end
        assert store.confirm_offset == end
    finally:
        master.stop()


def test_a_lone_master_confirms_only_flushed_puts(store: GatedStore) -> None:
    master = ha_master(store)
    try:
        before = store.confirm_offset
        store.hold.set()
        put, out = call_in_thread(lambda: master.put([msg(1)]))
        assert store.flushing.wait(WAIT_S)
        assert store.confirm_offset == before < store.max_offset
        store.gate.set()
        put.join(WAIT_S)
        assert out[0].status is PutStatus.PUT_OK
        assert store.confirm_offset == store.max_offset
    finally:
        master.stop()
