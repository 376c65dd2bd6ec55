"""The slave's writing thread (``agents/ha/appender.py``) over a real store: order, checks, all-or-nothing after a
failure, and the bytes on disk."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from unittest import mock

import pytest

from agents.ha.appender import Appender
from agents.store.message_store import MessageStore
from agents.store.record import BLANK_SIZE, Message, RecordError, encode, encode_blank
from tests.harness.wait import wait_until

SEGMENT = 4096
wait_for = partial(wait_until, timeout=10.0, what="the appender thread", interval=0.005)
"""The writing thread is asynchronous: poll often."""


def log(count: int) -> bytes:
    """A master's log of `count` messages (one queue), blanks at segment ends as the master writes them."""
    with_blanks = bytearray()
    for i in range(count):
        record = encode(Message("T", 0, bytes([i % 256]) * (40 + i % 90), {}, 1_700_000_000 + i, i))
        room = SEGMENT - len(with_blanks) % SEGMENT
        if len(record) + BLANK_SIZE > room:
            with_blanks += encode_blank(room) + bytes(room - BLANK_SIZE)
        with_blanks += record
    return bytes(with_blanks)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MessageStore]:
    with MessageStore(tmp_path / "s", SEGMENT) as opened:
        yield opened


@pytest.fixture
def appender(store: MessageStore) -> Iterator[Appender]:
    made = Appender(store, "test-write")
    made.start()
    yield made
    made.close()


def cut(stream: bytes, cuts: list[int]) -> list[tuple[int, bytes]]:
    """(offset, bytes) of `stream` cut at `cuts`: the batches the receiving thread hands the appender, unchecked."""
    return [(start, stream[start:end]) for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True)]


def test_a_damaged_batch_is_refused_on_the_writing_thread_and_nothing_after_it_is_written(
    store: MessageStore,
) -> None:
    """The writing thread checks each batch before it writes it: a damaged one is not written, nor any after it;
    until the failure is taken, the log as written ends where the damaged batch starts (so an ack never claims
    it)."""
    woken = threading.Event()
    appender = Appender(store, "checking", wake=woken.set)
    stream = log(100)
    batches = cut(stream, [1500, 3000])
    damaged = bytearray(batches[1][1])
    damaged[len(damaged) // 2] ^= 0x08
    appender.submit(*batches[0])
    appender.submit(1500, bytes(damaged))
    appender.submit(*batches[2])
    appender.start()
    assert woken.wait(10), "the writing thread stopped at the damaged batch and said so"
    assert appender.written_to() == 1500, "not None: the batch after the damaged one is not written either"
    with pytest.raises(RecordError, match="fails its CRC"):
        appender.drain()
    assert store.read(0, 1500) == stream[:1500] and store.max_offset == 1500
    assert appender.written_to() is None, "taken"
    appender.submit(*batches[1])  # the master sends it again, intact
    appender.submit(*batches[2])
    appender.drain()
    assert store.read(0, len(stream)) == stream
    appender.close()


def test_a_batch_checked_before_it_is_submitted_is_written_as_checked(store: MessageStore, appender: Appender) -> None:
    """A frame that changes the epoch is checked on the receiving thread first; its scan comes with the batch."""
    stream = log(80)
    (o1, d1), (o2, d2) = cut(stream, [2500])
    appender.submit(o1, d1, store.scan_replica(o1, d1))
    appender.drain()
    appender.submit(o2, d2, store.scan_replica(o2, d2))
    appender.drain()
    assert store.read(0, len(stream)) == stream
    store.set_confirm_offset(len(stream))
    assert store.queue_range("T", 0) == (0, 80)


def test_batches_are_written_in_order_and_drain_waits_for_all_of_them(store: MessageStore, appender: Appender) -> None:
    stream = log(300)
    for offset, data in cut(stream, list(range(997, len(stream), 997))):
        appender.submit(offset, data)
    appender.drain()
    assert store.max_offset == len(stream)
    assert store.read(0, len(stream)) == stream
    store.set_confirm_offset(len(stream))
    assert store.queue_range("T", 0) == (0, 300)


def test_after_a_failed_batch_nothing_more_is_written_until_drain_reports_it(
    store: MessageStore, appender: Appender
) -> None:
    stream = log(100)
    (o1, d1), (o2, d2), (o3, d3) = cut(stream, [1500, 3000])
    appender.submit(o1, d1)
    appender.submit(o2 + 1, d2)  # not where the log ends: append_replica refuses it
    appender.submit(o3, d3)  # would follow on from the refused one: must not be written
    with pytest.raises(ValueError, match="replicated bytes start at 1501, but the log ends at 1500"):
        appender.drain()
    assert store.max_offset == 1500
    assert store.read(0, 1500) == stream[:1500]
    appender.drain()  # the failure was reported once
    appender.submit(o2, d2)  # the appender takes batches again
    appender.submit(o3, d3)
    appender.drain()
    assert store.read(0, len(stream)) == stream


def test_drain_with_nothing_submitted_returns_and_a_closed_appender_takes_nothing(
    store: MessageStore, appender: Appender
) -> None:
    appender.drain()
    appender.close()
    with pytest.raises(RuntimeError, match="closed"):
        appender.submit(0, log(3))
    assert store.max_offset == 0


def test_drain_writes_the_batches_the_thread_has_not_taken(store: MessageStore) -> None:
    """With every core busy the writing thread may not run for a while: drain then writes what is queued itself,
    in order (here the thread never starts)."""
    idle = Appender(store, "never-started")
    stream = log(120)
    for offset, data in cut(stream, [700, 1400, 5000]):
        idle.submit(offset, data)
    assert store.max_offset == 0
    idle.drain()
    assert store.read(0, len(stream)) == stream
    idle.close()


def test_close_writes_what_was_submitted_before_the_thread_stops(store: MessageStore) -> None:
    started = Appender(store, "closing")
    started.start()
    stream = log(200)
    for offset, data in cut(stream, list(range(500, len(stream), 500))):
        started.submit(offset, data)
    started.close()
    assert store.read(0, len(stream)) == stream
    assert not [t for t in threading.enumerate() if t.name == "closing"]


def test_the_confirm_offset_is_applied_after_the_writes_before_it_and_follows_later_ones(
    store: MessageStore, appender: Appender
) -> None:
    """A target past the log as written is applied as far as the log goes, and again as later batches land."""
    stream = log(300)
    batches = cut(stream, [2000, 5000])
    first_boundary = store.scan_replica(*batches[0]).boundary  # where the first batch's last whole record ends
    appender.submit(*batches[0])
    appender.confirm(len(stream))  # the master confirmed it all; only the first batch is submitted
    wait_for(lambda: store.confirm_offset == first_boundary)
    for batch in batches[1:]:
        appender.submit(*batch)
    wait_for(lambda: store.confirm_offset == len(stream))
    assert store.queue_range("T", 0) == (0, 300)
    appender.confirm(5)  # lower: ignored
    appender.drain()
    assert store.confirm_offset == len(stream)


def test_a_forgotten_confirm_offset_is_never_applied(store: MessageStore) -> None:
    idle = Appender(store, "never-started")  # nothing applies the target until the thread starts
    stream = log(50)
    idle.submit(0, stream)
    idle.drain()
    idle.confirm(len(stream))
    idle.forget_confirm()  # as before a truncation
    idle.start()
    idle.confirm(100)  # a new target counts again
    idle.close()
    assert store.confirm_offset == 100
    assert store.queue_range("T", 0) == (0, 1), "only the first message ends by offset 100"


def test_written_to_is_where_the_log_as_written_ends_and_wake_says_when_the_writes_caught_up(
    store: MessageStore,
) -> None:
    woken = threading.Event()
    idle = Appender(store, "never-started", wake=woken.set)
    batches = cut(log(40), [700, 1400])
    assert idle.written_to() is None  # nothing to write
    for batch in batches:
        idle.submit(*batch)
    assert idle.written_to() == 0, "nothing written yet: the oldest batch starts where the log ends"
    assert not woken.is_set()
    idle.start()
    idle.drain()
    assert idle.written_to() is None
    assert woken.wait(5)
    idle.close()


def test_release_returns_once_no_batch_still_to_write_is_a_view_of_the_buffer(store: MessageStore) -> None:
    """The receiving thread reuses a receive buffer only after the batches that are views of it are written;
    batches of the other buffer may stay queued (here the thread never starts, so release writes them itself)."""
    idle = Appender(store, "never-started")
    stream = log(60)
    first, second = bytearray(stream[:1500]), bytearray(stream[1500:])
    idle.submit(0, memoryview(first))
    idle.submit(1500, memoryview(second))
    idle.release(second)  # the batch of `second` follows the one of `first`: both are written, in order
    assert store.read(0, len(stream)) == stream
    other = bytearray(10)
    idle.release(other)  # nothing views it: returns at once
    idle.close()


def test_a_failed_dispatch_is_reported_once_and_stops_further_confirm_offsets(
    store: MessageStore, appender: Appender
) -> None:
    stream = log(30)
    appender.submit(0, stream)
    appender.drain()
    with mock.patch.object(store, "set_confirm_offset", side_effect=OSError("disk gone")):
        appender.confirm(len(stream))
        failure = wait_for(appender.take_failure)
    assert isinstance(failure, OSError)
    assert appender.take_failure() is None
    appender.confirm(len(stream) + 1)  # taken: the appender applies targets again
    wait_for(lambda: store.confirm_offset == len(stream))
