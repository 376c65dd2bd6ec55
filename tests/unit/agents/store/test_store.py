"""The message store: confirmOffset gating, consume queues, checkpoint, restart, truncation and retention."""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from agents.store.checkpoint import SIZE, Checkpoint, CheckpointData, CheckpointError, decode, encode
from agents.store.commitlog import INTENT_FILE, OffsetTooSmall
from agents.store.consume_queue import ENTRY, ConsumeQueue, ConsumeQueueError, kept_entries
from agents.store.message_store import MessageStore, Placed, clamp_confirm
from agents.store.record import Message, RecordError
from agents.store.record import encode as encode_record

SEG = 1024
CQ_FILE = 4  # entries per consume-queue file: small, so files roll over and retention can delete them


def msg(i: int, queue_id: int | None = None, size: int = 40) -> Message:
    return Message("Orders", i % 3 if queue_id is None else queue_id, f"m{i}".encode().ljust(size, b"."), {}, i)


def open_store(root: Path) -> MessageStore:
    return MessageStore(root, SEG, cq_entries_per_file=CQ_FILE)


def crash(store: MessageStore) -> None:
    """Drop a store as a killed process would: files closed, nothing flushed, nothing checkpointed."""
    store._log.close()
    for queue in store._queues.values():
        queue.close()
    store._closed = True


def ends(start: int, messages: list[Message]) -> list[int]:
    """The end offset of each message when put in order from `start` (a record boundary)."""
    out, pos = [], start
    for m in messages:
        size = len(encode_record(m))
        if pos % SEG + size + 12 > SEG:  # no room left for the record and a closing blank: next segment
            pos += SEG - pos % SEG
        pos += size
        out.append(pos)
    return out


def bodies(items: list[tuple[int, Message]]) -> list[tuple[int, bytes]]:
    return [(q, m.body.rstrip(b".")) for q, m in items]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def store(root: Path) -> Iterator[MessageStore]:
    s = open_store(root)
    yield s
    s.close()


# --- confirmOffset gating ----------------------------------------------------------------------------


def test_messages_stay_invisible_until_confirmed(store: MessageStore) -> None:
    messages = [msg(i) for i in range(9)]
    placed = store.put(messages)
    start, end = placed.start, placed.end
    assert (start, end) == (0, store.max_offset)
    assert [(p.queue_id, p.queue_offset) for p in placed.messages] == [
        (m.queue_id, i // 3) for i, m in enumerate(messages)
    ]
    assert [p.commit_log_offset for p in placed.messages] == [0, *ends(0, messages)[:-1]]
    assert store.consume("Orders", 0, 0, 10) == []
    offsets = ends(0, messages)
    store.set_confirm_offset(offsets[4])
    assert store.confirm_offset == offsets[4]
    assert bodies(store.consume("Orders", 0, 0, 10)) == [(0, b"m0"), (1, b"m3")]
    assert bodies(store.consume("Orders", 1, 0, 10)) == [(0, b"m1"), (1, b"m4")]
    store.set_confirm_offset(offsets[5] - 1)  # inside message 5: only whole messages are dispatched
    assert bodies(store.consume("Orders", 2, 0, 10)) == [(0, b"m2")]
    assert (store.confirm_offset, store.confirmed_boundary()) == (offsets[5] - 1, offsets[4])
    store.set_confirm_offset(end)
    assert bodies(store.consume("Orders", 2, 1, 2)) == [(1, b"m5"), (2, b"m8")]
    assert store.consume("Orders", 2, 3, 10) == [] and store.consume("Other", 0, 0, 10) == []
    assert store.queue_range("Orders", 2) == (0, 3) and store.queue_range("Other", 0) == (0, 0)


def test_confirm_offset_is_clamped_and_never_moves_back(store: MessageStore) -> None:
    store.put([msg(i) for i in range(5)])
    store.set_confirm_offset(10**12)
    assert store.confirm_offset == store.max_offset
    store.set_confirm_offset(3)
    assert store.confirm_offset == store.max_offset
    assert clamp_confirm(-5, 100, 200) == 100 and clamp_confirm(150, 100, 200) == 150


def test_a_replica_confirms_only_up_to_its_last_complete_message(tmp_path: Path) -> None:
    with open_store(tmp_path / "m") as master, open_store(tmp_path / "r") as replica:
        master.put([msg(i) for i in range(4)])
        half = master.max_offset - 20
        replica.append_replica(0, _raw(master, 0, half))
        assert replica.max_offset == half
        replica.set_confirm_offset(half)
        assert replica.confirm_offset == replica.last_message_boundary() < half
        assert len(replica.consume("Orders", 0, 0, 10)) == 1  # m3, the one in flight, is not there yet
        replica.append_replica(half, _raw(master, half, master.max_offset - half))
        replica.set_confirm_offset(master.max_offset)
        assert bodies(replica.consume("Orders", 0, 0, 10)) == [(0, b"m0"), (1, b"m3")]


def _raw(store: MessageStore, offset: int, size: int) -> bytes:
    out = b""
    while len(out) < size:
        fd, pos, readable = store.segment_view(offset + len(out))
        out += os.pread(fd, min(readable, size - len(out)), pos)
    return out


def test_replica_files_and_queues_match_the_master(tmp_path: Path) -> None:
    rng = random.Random(7)
    with open_store(tmp_path / "m") as master, open_store(tmp_path / "r") as replica:
        for i in range(0, 60, 6):
            master.put([msg(j, size=rng.randrange(1, 200)) for j in range(i, i + 6)])
        pos = 0
        while pos < master.max_offset:
            chunk = _raw(master, pos, min(rng.randrange(1, 900), master.max_offset - pos))
            replica.append_replica(pos, chunk)
            pos += len(chunk)
        for s in (master, replica):
            s.set_confirm_offset(s.max_offset)
        for q in range(3):
            assert replica.consume("Orders", q, 0, 100) == master.consume("Orders", q, 0, 100)
    for name in ("commitlog", "consumequeue/Orders/0", "consumequeue/Orders/1"):
        files = sorted((tmp_path / "m" / name).iterdir())
        assert [f.read_bytes() for f in files] == [(tmp_path / "r" / name / f.name).read_bytes() for f in files]


def test_start_at_begins_an_empty_replica_at_the_masters_first_segment(store: MessageStore) -> None:
    store.start_at(4 * SEG)
    assert (store.min_offset, store.max_offset, store.confirm_offset) == (4 * SEG, 4 * SEG, 4 * SEG)
    store.append_replica(4 * SEG, encode_record(msg(1)))
    store.set_confirm_offset(store.max_offset)
    assert bodies(store.consume("Orders", 1, 0, 5)) == [(0, b"m1")]


# --- queue offsets ----------------------------------------------------------------------------------


def test_put_numbers_each_queue_and_a_restart_continues_after_the_unconfirmed_tail(root: Path) -> None:
    with open_store(root) as s:
        s.put([msg(i) for i in range(6)])  # queues 0, 1, 2 get offsets 0 and 1 each
        s.set_confirm_offset(ends(0, [msg(i) for i in range(6)])[2])  # the second round stays unconfirmed
    with open_store(root) as s:
        assert s.queue_range("Orders", 0) == (0, 1)
        s.put([msg(6)])
        s.set_confirm_offset(s.max_offset)
        assert [(q, m.queue_offset, m.body.rstrip(b".")) for q, m in s.consume("Orders", 0, 0, 10)] == [
            (0, 0, b"m0"),
            (1, 1, b"m3"),
            (2, 2, b"m6"),
        ]


def test_a_replica_that_becomes_master_numbers_after_what_it_replicated(tmp_path: Path) -> None:
    with open_store(tmp_path / "m") as master, open_store(tmp_path / "r") as replica:
        master.put([msg(i, queue_id=0) for i in range(5)])
        replica.append_replica(0, _raw(master, 0, master.max_offset))
        replica.set_confirm_offset(ends(0, [msg(0, queue_id=0)])[0])  # only the first is confirmed
        replica.put([msg(5, queue_id=0)])
        replica.set_confirm_offset(replica.max_offset)
        assert [q for q, _ in replica.consume("Orders", 0, 0, 10)] == [0, 1, 2, 3, 4, 5]


def test_a_queue_starting_mid_way_keeps_its_first_offset_across_restarts(root: Path) -> None:
    with open_store(root) as s:
        s.start_at(4 * SEG)
        s.append_replica(4 * SEG, encode_record(replace(msg(1), queue_offset=9)))  # file 8..11 of CQ_FILE=4
        s.set_confirm_offset(s.max_offset)
        assert s.queue_range("Orders", 1) == (9, 10)
    with open_store(root) as s:
        assert s.queue_range("Orders", 1) == (9, 10)
        assert bodies(s.consume("Orders", 1, 9, 5)) == [(9, b"m1")]
        with pytest.raises(OffsetTooSmall):
            s.consume("Orders", 1, 8, 5)


def test_a_record_whose_queue_offset_does_not_follow_on_is_refused(store: MessageStore) -> None:
    store.put([msg(1), msg(4)])  # queue 1: offsets 0 and 1
    store.set_confirm_offset(store.max_offset)
    bad = encode_record(replace(msg(7), queue_offset=5))  # queue 1 expects 2
    store.append_replica(store.max_offset, bad)
    with pytest.raises(ConsumeQueueError, match="has queue offset 5, but the queue's next offset is 2"):
        store.set_confirm_offset(store.max_offset)
    assert store.queue_range("Orders", 1) == (0, 2)


# --- restart ----------------------------------------------------------------------------------------


def test_confirmed_messages_survive_a_clean_restart(root: Path) -> None:
    with open_store(root) as s:
        s.put([msg(i) for i in range(20)])
        s.set_confirm_offset(ends(0, [msg(i) for i in range(20)])[11])
        confirm = s.confirm_offset
        before = [s.consume("Orders", q, 0, 100) for q in range(3)]
    with open_store(root) as s:
        assert s.confirm_offset == confirm
        assert [s.consume("Orders", q, 0, 100) for q in range(3)] == before
        assert sum(len(b) for b in before) == 12


def test_after_a_crash_only_the_checkpointed_confirm_offset_counts(root: Path) -> None:
    s = open_store(root)
    messages = [msg(i) for i in range(30)]
    s.put(messages)
    offsets = ends(0, messages)
    s.set_confirm_offset(offsets[9])
    s.flush()
    s.set_confirm_offset(offsets[24])  # dispatched to the queues, never checkpointed
    seen = [s.consume("Orders", q, 0, 100) for q in range(3)]
    crash(s)
    with open_store(root) as s:
        assert s.confirm_offset == offsets[9]
        assert [s.queue_range("Orders", q)[1] for q in range(3)] == [4, 3, 3]
        s.set_confirm_offset(offsets[24])  # dispatched again: same queue offsets, same messages
        assert [s.consume("Orders", q, 0, 100) for q in range(3)] == seen


def test_a_torn_consume_queue_tail_is_rebuilt(root: Path) -> None:
    with open_store(root) as s:
        s.put([msg(i, queue_id=0) for i in range(10)])
        s.set_confirm_offset(s.max_offset)
        expected = s.consume("Orders", 0, 0, 100)
    last = sorted((root / "consumequeue" / "Orders" / "0").iterdir())[-1]
    with last.open("ab") as f:
        f.write(bytes(ENTRY.size) + b"\x00\x00\x00\x01\x02")  # a zero entry and half of another
    with open_store(root) as s:
        assert s.consume("Orders", 0, 0, 100) == expected
        assert s.queue_range("Orders", 0) == (0, 10)


def test_kept_entries_walks_back_over_untrusted_entries() -> None:
    good = [ENTRY.pack(o, 10) for o in (0, 10, 20, 30)]
    assert kept_entries(b"".join(good), keep_below=25) == 3
    assert kept_entries(b"".join(good) + bytes(12) + b"\x01", keep_below=100) == 4
    assert kept_entries(b"".join(good), keep_below=0) == 0


def test_a_cut_commit_log_tail_lowers_the_confirm_offset_for_good(root: Path) -> None:
    with open_store(root) as s:
        messages = [msg(i) for i in range(6)]
        s.put(messages)
        s.set_confirm_offset(s.max_offset)
        offsets = ends(0, messages)
    # The disk lost message 4 although it was flushed (a lying write cache), so scanning from offset 0 cuts it.
    segment = root / "commitlog" / f"{0:020d}"
    data = bytearray(segment.read_bytes())
    data[offsets[3] + 20] ^= 0xFF
    segment.write_bytes(bytes(data))
    saved = Checkpoint(root / "checkpoint").load()
    Checkpoint(root / "checkpoint").save(CheckpointData(0, saved.confirm_offset, saved.consume_queue_offset))
    s = open_store(root)
    assert s.confirm_offset == offsets[3]
    s.put([msg(100 + i) for i in range(3)])  # new, unconfirmed messages where the old confirmed ones were
    crash(s)
    with open_store(root) as s:
        assert s.confirm_offset == offsets[3]
        assert all(m.store_timestamp < 100 for q in range(3) for _, m in s.consume("Orders", q, 0, 100))


def test_a_missing_checkpoint_rebuilds_from_a_full_scan(root: Path) -> None:
    with open_store(root) as s:
        s.put([msg(i) for i in range(8)])
        s.set_confirm_offset(s.max_offset)
    (root / "checkpoint").unlink()
    with open_store(root) as s:
        assert s.max_offset == s.last_message_boundary() > 0
        assert s.confirm_offset == 0 and s.consume("Orders", 0, 0, 10) == []
        s.set_confirm_offset(s.max_offset)
        assert len(s.consume("Orders", 0, 0, 10)) == 3


def test_a_damaged_checkpoint_is_refused_with_a_clear_error(root: Path) -> None:
    with open_store(root) as s:
        s.put([msg(1)])
    path = root / "checkpoint"
    data = bytearray(path.read_bytes())
    data[10] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"CRC mismatch\. Move the file away"):
        open_store(root)


def test_checkpoint_codec() -> None:
    data = CheckpointData(4096, 4000, 3900)
    blob = encode(data)
    assert len(blob) == SIZE and blob[:4] == b"MQCK" and decode(blob) == data
    for bad in (blob[:-1], b"XXXX" + blob[4:], blob[:8] + b"\x80" + blob[9:]):
        with pytest.raises(CheckpointError):
            decode(bad)


def test_checkpoint_save_is_atomic_and_leaves_no_temp_file(tmp_path: Path) -> None:
    cp = Checkpoint(tmp_path / "checkpoint")
    assert cp.load() == CheckpointData()
    cp.save(CheckpointData(1, 2, 3))
    cp.save(CheckpointData(4, 5, 6))
    assert cp.load() == CheckpointData(4, 5, 6)
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint"]


# --- truncation -------------------------------------------------------------------------------------


def test_truncate_drops_queue_entries_and_confirm_past_the_cut(root: Path) -> None:
    messages = [msg(i) for i in range(30)]
    with open_store(root) as s:
        s.put(messages)
        s.set_confirm_offset(s.max_offset)
        offsets = ends(0, messages)
        s.truncate(offsets[13])
        assert s.max_offset == s.confirm_offset == offsets[13]
        assert [s.queue_range("Orders", q)[1] for q in range(3)] == [5, 5, 4]
        s.put([msg(100, queue_id=2)])
        s.set_confirm_offset(s.max_offset)
        assert bodies(s.consume("Orders", 2, 3, 10)) == [(3, b"m11"), (4, b"m100")]
    with open_store(root) as s:
        assert bodies(s.consume("Orders", 2, 3, 10)) == [(3, b"m11"), (4, b"m100")]
        assert s.consume("Orders", 0, 5, 10) == []


def test_a_truncation_interrupted_after_its_intent_never_shows_the_tail(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = open_store(root)
    messages = [msg(i) for i in range(30)]
    s.put(messages)
    s.set_confirm_offset(s.max_offset)
    s.flush()
    offsets = ends(0, messages)

    def crash_now(fd: int, length: int) -> None:
        raise OSError("simulated crash")

    with monkeypatch.context() as patch:
        patch.setattr(os, "ftruncate", crash_now)
        with pytest.raises(OSError, match="simulated crash"):
            s.truncate(offsets[4])
    assert (root / "commitlog" / INTENT_FILE).exists()
    crash(s)
    with open_store(root) as s:
        assert s.max_offset == s.confirm_offset == offsets[4]
        assert sum(len(s.consume("Orders", q, 0, 100)) for q in range(3)) == 5


# --- retention --------------------------------------------------------------------------------------


def test_retention_deletes_old_data_and_answers_reads_below_with_offset_too_small(root: Path) -> None:
    messages = [msg(i, queue_id=0) for i in range(60)]
    with open_store(root) as s:
        s.put(messages)
        offsets = ends(0, messages)
        assert s.delete_before(3 * SEG) == 0  # nothing is dispatched yet, so nothing may go
        s.set_confirm_offset(s.max_offset)
        assert s.delete_before(3 * SEG + 10) == 3 * SEG
        first = next(i for i, e in enumerate(offsets) if e > 3 * SEG)
        low, high = s.queue_range("Orders", 0)
        assert (low, high) == (first, 60)
        with pytest.raises(OffsetTooSmall, match=f"queue offset of Orders/0 0 is below the minimum {first}") as info:
            s.consume("Orders", 0, 0, 10)
        assert info.value.min_offset == first
        assert bodies(s.consume("Orders", 0, first, 1)) == [(first, f"m{first}".encode())]
        assert sorted(p.name for p in (root / "consumequeue" / "Orders" / "0").iterdir())[0] == f"{first // 4 * 4:020d}"
    with open_store(root) as s:
        assert s.min_offset == 3 * SEG and s.queue_range("Orders", 0) == (first, 60)


def test_put_refuses_an_invalid_batch_without_writing(store: MessageStore) -> None:
    with pytest.raises(RecordError, match="topic"):
        store.put([msg(1), Message("bad topic", 0, b"", {}, 0)])
    assert store.max_offset == 0
    assert store.put([]) == Placed(0, 0, ())


# --- random operations against a model --------------------------------------------------------------


def next_queue_offset(log: list[tuple[int, Message]], m: Message, before: list[Message]) -> int:
    """The model's numbering: messages of a queue count up from 0 in log order (truncation frees the numbers)."""
    return sum(x.queue_id == m.queue_id for x in [*(x for _, x in log), *before])


@pytest.mark.parametrize("seed", range(6))
def test_random_operations_keep_the_store_consistent_across_crashes(root: Path, seed: int) -> None:
    rng = random.Random(seed)
    log: list[tuple[int, Message]] = []  # (end offset, message) in log order
    saved_confirm = confirm = 0
    s = open_store(root)
    for step in range(60):
        op = rng.choice(["put", "put", "confirm", "flush", "lazy", "crash", "truncate"])
        if op == "put":
            batch = [msg(1000 * seed + step * 10 + k, size=rng.randrange(1, 120)) for k in range(rng.randint(1, 4))]
            s.put(batch)
            batch = [replace(m, queue_offset=next_queue_offset(log, m, batch[:i])) for i, m in enumerate(batch)]
            log += zip(ends(log[-1][0] if log else 0, batch), batch, strict=True)
            assert log[-1][0] == s.max_offset
        elif op == "confirm":
            confirm = rng.randrange(confirm, s.max_offset + 1)  # at most the end: the clamp leaves it alone
            s.set_confirm_offset(confirm)
        elif op == "flush":
            s.flush()
            saved_confirm = confirm
        elif op == "lazy":  # a put's flush between checkpoints: the log only, the checkpoint keeps its confirm
            s._checkpointed_at = time.monotonic()
            s.flush(lazy=True)
        elif op == "crash":
            crash(s)
            s = open_store(root)
            confirm = saved_confirm
        elif log:
            end, _ = log[rng.randrange(len(log))]
            s.truncate(end)
            log = [(e, m) for e, m in log if e <= end]
            confirm, saved_confirm = min(confirm, end), min(saved_confirm, end)
        assert s.confirm_offset == confirm
        assert [m for _, m, _ in s._log.iter_messages(0)] == [m for _, m in log]
        for q in range(3):
            visible = [m for e, m in log if e <= confirm and m.queue_id == q]
            consumed = s.consume("Orders", q, 0, 1000)
            assert [m for _, m in consumed] == visible
            assert all(queue_offset == m.queue_offset for queue_offset, m in consumed)
    s.close()


# --- flush without the store lock ----------------------------------------------------------------------


class BlockingSync:
    """Stands in for os.fdatasync: the first call waits until released (the disk is slow), or fails."""

    def __init__(self, fail: OSError | None = None) -> None:
        self.entered, self.release = threading.Event(), threading.Event()
        self.fail = fail
        self.synced: list[int] = []
        self.real = os.fdatasync

    def __call__(self, fd: int) -> None:
        if not self.entered.is_set():
            self.entered.set()
            assert self.release.wait(10)
        if self.fail is not None:
            raise self.fail
        self.synced.append(fd)
        self.real(fd)


def in_thread(target: Callable[[], object]) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            target()
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, errors


def test_writes_and_reads_go_on_while_a_flush_waits_for_the_disk(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = open_store(root)
    first = [msg(i) for i in range(10)]
    s.put(first)
    s.set_confirm_offset(s.max_offset)
    flushed_end = s.last_message_boundary()
    sync = BlockingSync()
    monkeypatch.setattr(os, "fdatasync", sync)
    flusher, errors = in_thread(s.flush)
    assert sync.entered.wait(10)

    # The flush is inside fdatasync: the store lock is free, so a put, dispatch and a read do not wait for it.
    def put_and_confirm() -> None:
        s.put([msg(i) for i in range(10, 20)])
        s.set_confirm_offset(s.max_offset)

    later, errors_later = in_thread(put_and_confirm)
    later.join(10)
    assert not later.is_alive() and not errors_later, "a put waited for the flush's fsync"
    assert len(s.consume("Orders", 0, 0, 100)) == 7
    sync.release.set()
    flusher.join(10)
    assert not errors
    saved = Checkpoint(root / "checkpoint").load()
    assert saved.flushed_offset == flushed_end, "the checkpoint claims only what the flush synced"
    assert saved.consume_queue_offset == flushed_end
    s.flush()  # the next flush covers the put that ran meanwhile
    assert Checkpoint(root / "checkpoint").load().flushed_offset == s.max_offset
    s.close()


def test_a_truncate_waits_for_a_flush_in_progress(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = open_store(root)
    messages = [msg(i) for i in range(10)]
    s.put(messages)
    s.set_confirm_offset(s.max_offset)
    cut = ends(0, messages)[3]
    sync = BlockingSync()
    monkeypatch.setattr(os, "fdatasync", sync)
    flusher, errors = in_thread(s.flush)
    assert sync.entered.wait(10)
    truncation, truncation_errors = in_thread(lambda: s.truncate(cut))
    truncation.join(0.2)
    assert truncation.is_alive(), "truncate must not close files or rewrite the checkpoint under a flush"
    sync.release.set()
    flusher.join(10)
    truncation.join(10)
    assert not errors and not truncation_errors
    saved = Checkpoint(root / "checkpoint").load()
    assert (s.max_offset, saved.flushed_offset, saved.confirm_offset) == (cut, cut, cut)
    s.close()
    with open_store(root) as again:
        assert again.max_offset == cut


def test_a_failed_flush_writes_no_checkpoint_and_the_next_one_syncs_again(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = open_store(root)
    s.put([msg(i) for i in range(10)])
    s.set_confirm_offset(s.max_offset)
    before = Checkpoint(root / "checkpoint").load()
    sync = BlockingSync(fail=OSError(5, "Input/output error"))
    sync.release.set()
    monkeypatch.setattr(os, "fdatasync", sync)
    with pytest.raises(OSError, match="Input/output"):
        s.flush()
    assert Checkpoint(root / "checkpoint").load() == before
    assert s._log.flushed_offset == 0
    sync.fail = None
    s.flush()
    # The commit log and every consume-queue file written before the failure are synced by the retry.
    assert len(sync.synced) == 1 + 3
    saved = Checkpoint(root / "checkpoint").load()
    assert (saved.flushed_offset, saved.consume_queue_offset) == (s.max_offset, s.max_offset)
    s.close()


def test_flush_syncs_duplicates_so_a_segment_closed_meanwhile_is_harmless(root: Path) -> None:
    s = open_store(root)
    s.put([msg(i) for i in range(60)])  # several segments
    pending = s._log.flush_begin()
    assert len(pending.fds) > 1 and not set(pending.fds) & set(s._log._fds.values())
    s._log.close()  # what retention or truncation may do to the store's own descriptors
    pending.sync()
    pending.close()
    s._log.flush_end(pending)
    assert s._log.flushed_offset == s.max_offset
    s.close()


class FsyncLog:
    """os.fsync that records the path of each descriptor it syncs and can fail for the paths in `failing`."""

    def __init__(self, real: Callable[[int], None]) -> None:
        self.real = real
        self.paths: list[Path] = []
        self.failing: set[Path] = set()

    def __call__(self, fd: int) -> None:
        path = Path(os.readlink(f"/proc/self/fd/{fd}"))
        if path in self.failing:
            raise OSError(5, "Input/output error")
        self.paths.append(path)
        self.real(fd)


def test_new_queue_directories_are_synced_by_the_flush_before_the_checkpoint(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dispatch creates queues without waiting for directory fsyncs; the next flush makes the directory entries
    durable (each shared parent once) before the checkpoint claims the entries, and a failed directory fsync
    leaves the checkpoint as it was and is retried."""
    s = open_store(root)
    s.flush()
    fsyncs = FsyncLog(os.fsync)
    monkeypatch.setattr(os, "fsync", fsyncs)
    s.put([msg(i) for i in range(9)])  # queues 0, 1 and 2 of a new topic
    before = Checkpoint(root / "checkpoint").load()
    s.set_confirm_offset(s.max_offset)
    assert len(s.consume("Orders", 1, 0, 10)) == 3
    assert fsyncs.paths == [], "dispatch waited for a directory fsync"
    cq = root.resolve() / "consumequeue"
    queue_dirs = {cq / "Orders" / str(q) for q in range(3)}
    fsyncs.failing = {cq / "Orders" / "2"}
    with pytest.raises(OSError, match="Input/output"):
        s.flush()
    assert Checkpoint(root / "checkpoint").load() == before
    fsyncs.failing, fsyncs.paths = set(), []
    s.flush()
    synced = fsyncs.paths
    checkpoint_sync = next(i for i, p in enumerate(synced) if p.name.startswith("checkpoint"))
    directories = synced[:checkpoint_sync]
    assert queue_dirs | {cq / "Orders", cq} <= set(directories), "the retry syncs every directory again"
    assert len(directories) == len(set(directories)), "a shared parent is synced once per flush"
    saved = Checkpoint(root / "checkpoint").load()
    assert saved.consume_queue_offset == s.max_offset
    s.close()


class QueueWrites:
    """os.pwrite that records the consume-queue files written and can fail the `fail_at`-th such write, either
    with ENOSPC or (``short``) by writing half and returning the short count, as a full disk may."""

    def __init__(self, real: Callable[[int, bytes, int], int], fail_at: int | None = None, short: bool = False):
        self.real, self.fail_at, self.short = real, fail_at, short
        self.files: list[Path] = []

    def __call__(self, fd: int, data: bytes, offset: int) -> int:
        path = Path(os.readlink(f"/proc/self/fd/{fd}"))
        if "consumequeue" not in path.parts:
            return self.real(fd, data, offset)
        if len(self.files) == self.fail_at:
            self.fail_at = None
            if not self.short:
                raise OSError(28, "No space left on device")
            return self.real(fd, bytes(data)[: len(data) // 2], offset)
        self.files.append(path)
        return self.real(fd, data, offset)


def test_dispatch_buffers_queue_entries_and_the_flush_writes_them(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Dispatch touches no queue file (a catching-up replica dispatches to thousands of queues per batch): reads
    answer from memory until the flush writes the entries, one write per file, syncs and checkpoints them."""
    s = open_store(root)
    writes = QueueWrites(os.pwrite)
    monkeypatch.setattr(os, "pwrite", writes)
    s.put([msg(i) for i in range(9)])
    s.set_confirm_offset(s.max_offset)
    assert bodies(s.consume("Orders", 1, 0, 10)) == [(0, b"m1"), (1, b"m4"), (2, b"m7")]
    assert writes.files == [] and not (root / "consumequeue" / "Orders").exists()
    s.flush()
    assert sorted(p.parent.name for p in writes.files) == ["0", "1", "2"]
    assert Checkpoint(root / "checkpoint").load().consume_queue_offset == s.max_offset
    offsets = [0, *ends(0, [msg(i) for i in range(9)])]
    stored = (root / "consumequeue" / "Orders" / "1" / f"{0:020d}").read_bytes()
    assert [o for o, _ in ENTRY.iter_unpack(stored)] == [offsets[1], offsets[4], offsets[7]]
    assert bodies(s.consume("Orders", 1, 1, 10)) == [(1, b"m4"), (2, b"m7")]  # now from the file
    s.close()


@pytest.mark.parametrize("short", [False, True], ids=["enospc", "short-write"])
def test_a_failed_queue_write_keeps_the_entries_and_the_next_flush_writes_them(
    root: Path, monkeypatch: pytest.MonkeyPatch, short: bool
) -> None:
    s = open_store(root)
    s.put([msg(i, queue_id=0) for i in range(6)])  # two files of CQ_FILE = 4 entries
    s.set_confirm_offset(s.max_offset)
    before = Checkpoint(root / "checkpoint").load()
    monkeypatch.setattr(os, "pwrite", QueueWrites(os.pwrite, fail_at=1, short=short))  # the second file's write
    with pytest.raises(OSError, match=rf"short write to .*/Orders/0/{4:020d}" if short else "No space left"):
        s.flush()
    assert Checkpoint(root / "checkpoint").load() == before
    expected = [(i, f"m{i}".encode()) for i in range(8)]
    assert bodies(s.consume("Orders", 0, 0, 10)) == expected[:6]
    s.put([msg(i, queue_id=0) for i in range(6, 8)])
    s.set_confirm_offset(s.max_offset)
    s.flush()
    assert Checkpoint(root / "checkpoint").load().consume_queue_offset == s.max_offset
    queue_dir = root / "consumequeue" / "Orders" / "0"
    assert [len(p.read_bytes()) // ENTRY.size for p in sorted(queue_dir.iterdir())] == [4, 4]
    crash(s)
    with open_store(root) as again:
        assert bodies(again.consume("Orders", 0, 0, 10)) == expected


def test_truncation_cuts_buffered_and_written_queue_entries(root: Path) -> None:
    messages = [msg(i, queue_id=0) for i in range(10)]
    offsets = ends(0, messages)
    queue_dir = root / "consumequeue" / "Orders" / "0"
    with open_store(root) as s:
        s.put(messages[:6])
        s.set_confirm_offset(s.max_offset)
        s.flush()  # entries 0-5 in two files
        s.put(messages[6:])
        s.set_confirm_offset(s.max_offset)  # entries 6-9 buffered
        s.truncate(offsets[7])  # within the buffer
        assert s.queue_range("Orders", 0) == (0, 8)
        s.truncate(offsets[2])  # below what the files hold: the second file goes, the first is cut
        assert s.queue_range("Orders", 0) == (0, 3)
        assert [len(p.read_bytes()) // ENTRY.size for p in sorted(queue_dir.iterdir())] == [3]
        s.put([msg(20, queue_id=0)])
        s.set_confirm_offset(s.max_offset)
    with open_store(root) as s:
        assert bodies(s.consume("Orders", 0, 0, 10)) == [(0, b"m0"), (1, b"m1"), (2, b"m2"), (3, b"m20")]


def test_a_queue_that_continues_further_on_syncs_the_deletion_of_its_old_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A queue left with no readable entry (retention took them all) deletes its files to continue at a later file;
    the deletion is synced at once, so a crash cannot bring the old files back next to the one the flush creates
    (the queue would no longer open: "does not follow on")."""
    directory = tmp_path / "cq" / "Orders" / "0"
    queue = ConsumeQueue(directory, CQ_FILE, keep_below=0, commit_log_min=0)
    queue.append_many([(100 * i, 10, i) for i in range(6)])  # two files
    queue.flush()
    queue.delete_before(10_000)  # keeps the last file, whose entries are no longer readable
    assert queue.min_offset == queue.max_offset == 6
    fsyncs = FsyncLog(os.fsync)
    monkeypatch.setattr(os, "fsync", fsyncs)
    queue.append_packed(20_000, 13, ENTRY.pack(20_000, 10))  # a replica's log starting mid-queue, file 12
    assert fsyncs.paths == [directory.resolve()] and list(directory.iterdir()) == []
    queue.flush()
    assert sorted(p.name for p in directory.iterdir()) == [f"{12:020d}"]
    queue.close()
    reopened = ConsumeQueue(directory, CQ_FILE, keep_below=30_000, commit_log_min=0)
    assert (reopened.min_offset, reopened.max_offset) == (13, 14) and reopened.read(13, 5) == [(20_000, 10)]
    reopened.close()


@pytest.mark.parametrize("confirmed", [0, 3, 6, 9])
@pytest.mark.parametrize(("from_index", "limit"), [(0, 100), (2, 100), (0, 2), (5, 1), (9, 5)])
def test_records_from_reads_one_queue_across_the_dispatch_point(
    root: Path, confirmed: int, from_index: int, limit: int
) -> None:
    """The consume queue below the confirmOffset, a scan of the log past it: the same records either way."""
    messages = [msg(i) for i in range(9)]
    offsets = [0, *ends(0, messages)]
    with open_store(root) as store:
        store.put(messages)
        store.set_confirm_offset(offsets[confirmed])
        got = store.records_from("Orders", 1, offsets[from_index], limit)
        expected = [(offsets[i], offsets[i + 1] - offsets[i], i) for i in range(from_index, 9) if i % 3 == 1]
        assert [(o, size, int(m.body[1:].rstrip(b"."))) for o, size, m in got] == expected[:limit]


def test_a_lazy_flush_syncs_the_log_and_leaves_the_rest_to_recovery(root: Path) -> None:
    """Between checkpoints a put's flush syncs the commit log only; after a crash the checkpoint is older than the
    log, never newer, and recovery gets every message and queue entry back."""
    messages = [msg(i) for i in range(6)]
    offsets = [0, *ends(0, messages)]
    store = open_store(root)
    store.put(messages[:3])
    store.set_confirm_offset(offsets[3])
    store.flush()
    checkpoint = (root / "checkpoint").read_bytes()
    store.put(messages[3:])
    store.set_confirm_offset(offsets[6])
    store.flush(lazy=True)  # right after a full flush: within CHECKPOINT_INTERVAL_S
    assert (root / "checkpoint").read_bytes() == checkpoint
    crash(store)
    with open_store(root) as again:
        assert again.max_offset == offsets[6]  # the log's sync kept every message
        again.set_confirm_offset(offsets[6])  # the checkpoint's confirmOffset was the older one
        assert bodies(again.consume("Orders", 0, 0, 10)) == [(0, b"m0"), (1, b"m3")]


def test_truncations_are_listed_by_the_boundary_they_cut_back_to(store: MessageStore) -> None:
    messages = [msg(i) for i in range(4)]
    store.put(messages)
    offsets = ends(0, messages)
    store.set_confirm_offset(store.max_offset)
    assert store.truncations() == []
    store.truncate(offsets[2] + 3)  # inside message 3: listed as the boundary before it
    store.truncate(offsets[0])
    assert store.truncations() == [offsets[2], offsets[0]] and store.confirm_offset == offsets[0]
