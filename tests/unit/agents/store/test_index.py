"""The message index: its pure core over plain buffers, its files, and the store that builds it by dispatch."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from agents.store.index import (
    ENTRY,
    HEADER,
    Header,
    Layout,
    MessageIndex,
    add_entries,
    candidates,
    entries_below,
    index_keys,
    key_hash,
    matches,
    max_slot,
    rebuild_slots,
    record_entries,
)
from agents.store.message_store import MessageStore
from agents.store.record import Message, RecordKeys, encode, keys_at

SEG = 4096
SMALL = Layout(slots=4, entries=6)  # few slots: collisions in every chain; few entries: files roll over


# --- pure core -------------------------------------------------------------------------------------


def test_key_hash_is_31_bits_of_the_crc_of_topic_hash_key() -> None:
    assert key_hash(b"T", b"k") == zlib.crc32(b"T#k") & 0x7FFF_FFFF
    assert all(0 <= key_hash(b"T", f"k{i}".encode()) < 2**31 for i in range(1000))
    assert key_hash(b"T", b"k") != key_hash(b"U", b"k")


def test_index_keys_split_keys_on_spaces_and_add_the_unique_key_once() -> None:
    assert index_keys(b"a b  a", b"U1") == [b"a", b"b", b"U1"]
    assert index_keys(b"a", b"a") == [b"a"]
    assert index_keys(b"", b"") == []


def test_keys_at_reads_the_two_properties_from_the_raw_record() -> None:
    props = {"MYKEYS": "decoy", "KEYS": "k1 k2", "X": "y", "UNIQ_KEY": "U"}
    found = keys_at(encode(Message("T", 1, b"body", props, 42)), 0)
    assert found is not None
    assert (found.topic, found.store_timestamp, found.keys, found.unique_key) == (b"T", 42, b"k1 k2", b"U")
    plain = keys_at(encode(Message("T", 1, b"body", {"MYKEYS": "decoy"}, 42)), 0)
    assert plain is not None and (plain.keys, plain.unique_key) == (b"", b"")
    assert keys_at(b"\0" * 64, 0) is None


def _file(layout: Layout) -> bytearray:
    return bytearray(layout.size)


def test_entries_chain_per_slot_newest_first_and_collisions_are_skipped() -> None:
    buf, header = _file(SMALL), Header()
    hashes = [1, 5, 9, 1, 2]  # 1, 5 and 9 share slot 1 of 4
    for i, h in enumerate(hashes):
        header = add_entries(buf, SMALL, header, [(h, 100 * i, 10_000 + 1000 * i)])
    assert header.count == 5 and header.begin_ts == 10_000 and header.end_ts == 14_000 and header.begin_phy == 0
    assert header.used_slots == 2
    assert candidates(buf, SMALL, header, 1, 0, 2**62, 10) == [300, 0]
    assert candidates(buf, SMALL, header, 9, 0, 2**62, 10) == [200]
    assert candidates(buf, SMALL, header, 1, 0, 2**62, 1) == [300]
    assert candidates(buf, SMALL, header, 3, 0, 2**62, 10) == []


def test_entries_added_together_chain_like_entries_added_one_by_one() -> None:
    together, apart = _file(SMALL), _file(SMALL)
    entries = [(1, 0, 1_000), (5, 0, 1_000), (2, 30, 2_000)]  # a record's keys, then the next record's
    h_together = add_entries(together, SMALL, Header(), entries)
    h_apart = Header()
    for entry in entries:
        h_apart = add_entries(apart, SMALL, h_apart, [entry])
    assert together == apart and h_together == h_apart
    assert h_together == Header(begin_ts=1_000, end_ts=2_000, begin_phy=0, end_phy=0, used_slots=2, count=3)
    with pytest.raises(ValueError, match="full"):
        add_entries(together, SMALL, h_together, [(0, 40, 0)] * 4)


def test_lookup_filters_by_the_time_range_in_whole_seconds() -> None:
    buf, header = _file(SMALL), Header()
    for i, ts in enumerate([1_000, 2_500, 4_000]):
        header = add_entries(buf, SMALL, header, [(7, i, ts)])
    assert candidates(buf, SMALL, header, 7, 2_000, 3_000, 10) == [1]  # 2 500 is kept as second 2 (2 000..2 999)
    assert candidates(buf, SMALL, header, 7, 2_600, 2_700, 10) == [1]  # the caller checks the exact time
    assert candidates(buf, SMALL, header, 7, 4_001, 9_000, 10) == [2]
    assert candidates(buf, SMALL, header, 7, 5_000, 9_000, 10) == []
    assert candidates(buf, SMALL, header, 7, 0, 999, 10) == []


def test_a_slot_pointing_past_the_count_is_ignored_and_rebuilt() -> None:
    buf, header = _file(SMALL), Header()
    for i in range(4):
        header = add_entries(buf, SMALL, header, [(i, i * 10, 0)])
    durable = header
    header = add_entries(buf, SMALL, header, [(1, 40, 0)])  # entry 5, not claimed by `durable`
    assert max_slot(buf, SMALL) == 5
    assert candidates(buf, SMALL, durable, 1, 0, 2**62, 10) == []  # the walk stops at a number past the count
    assert rebuild_slots(buf, SMALL, durable.count) == 4
    assert max_slot(buf, SMALL) == 4
    assert candidates(buf, SMALL, durable, 1, 0, 2**62, 10) == [10]
    again = add_entries(buf, SMALL, durable, [(1, 40, 0)])  # numbered 5 again, chained to the rebuilt slot
    assert candidates(buf, SMALL, again, 1, 0, 2**62, 10) == [40, 10]


def test_entries_below_bisects_the_entries_in_log_order() -> None:
    buf, header = _file(SMALL), Header()
    for phy in [0, 0, 50, 90, 90]:
        header = add_entries(buf, SMALL, header, [(3, phy, 0)])
    assert [entries_below(buf, SMALL, 5, p) for p in (0, 1, 50, 90, 91)] == [0, 2, 2, 3, 5]


def test_a_damaged_chain_never_loops() -> None:
    buf, header = _file(SMALL), Header()
    header = add_entries(buf, SMALL, header, [(2, 7, 0)])
    header = add_entries(buf, SMALL, header, [(2, 8, 0)])
    ENTRY.pack_into(buf, SMALL.entry_pos(1), 2, 7, 0, 2)  # entry 1 points forward to entry 2
    assert candidates(buf, SMALL, header, 2, 0, 2**62, 10) == [8, 7]


def test_matches_drops_collisions_other_topics_times_and_the_other_key_kind() -> None:
    found = Message("T", 0, b"", {"KEYS": "a b", "UNIQ_KEY": "U"}, 5_000)
    assert matches("T", "a", False, found, 0, 9_999)
    assert matches("T", "b", False, found, 5_000, 5_000)
    assert matches("T", "U", True, found, 0, 9_999)
    assert not matches("T", "U", False, found, 0, 9_999)  # a unique key is not one of the KEYS
    assert not matches("T", "a", True, found, 0, 9_999)
    assert not matches("T", "ab", False, found, 0, 9_999)  # a collision
    assert not matches("X", "a", False, found, 0, 9_999)
    assert not matches("T", "a", False, found, 5_001, 9_999)


def test_header_codec_is_forty_bytes() -> None:
    h = Header(1, 2, 3, 4, 5, 6)
    assert HEADER.size == 40 and Header.unpack(h.pack()) == h


# --- files -----------------------------------------------------------------------------------------


def props(offset: int, key: str, ts: int = 1_000, topic: str = "T") -> tuple[int, RecordKeys]:
    return offset, RecordKeys(10, topic.encode(), ts, key.encode(), f"U{offset}".encode())


def packed(records: list[tuple[int, RecordKeys]]) -> bytes:
    """The key entries dispatch hands the index for `records`."""
    return b"".join(record_entries(offset, found, SMALL.entries) for offset, found in records)


def test_files_roll_over_keep_a_records_entries_together_and_survive_reopening(tmp_path: Path) -> None:
    index = MessageIndex(tmp_path / "index", SMALL, log_min=0, log_boundary=1_000)
    index.add(packed([props(o, "k") for o in range(0, 100, 10)]), 100)  # 2 entries a record, 3 records a file
    assert sorted(p.name for p in (tmp_path / "index").iterdir()) == [f"{o:020d}" for o in (0, 30, 60, 90)]
    assert index.lookup("T", "k", 0, 2**62, 100) == list(range(90, -1, -10))
    assert index.lookup("T", "U40", 0, 2**62, 100) == [40]
    index.flush_write(index.flush_begin())
    index.close()
    again = MessageIndex(tmp_path / "index", SMALL, log_min=0, log_boundary=1_000)
    assert again.covered_to == 100
    assert again.lookup("T", "k", 0, 2**62, 3) == [90, 80, 70]
    again.close()


def test_after_a_crash_only_what_a_flush_claimed_is_kept(tmp_path: Path) -> None:
    index = MessageIndex(tmp_path / "index", SMALL, log_min=0, log_boundary=1_000)
    index.add(packed([props(0, "k"), props(10, "k")]), 20)
    index.flush_write(index.flush_begin())
    index.add(packed([props(20, "k")]), 30)  # in the mapping (and maybe on disk), never claimed by a header
    index.close()  # a crash: the kernel may have written the mapping back
    again = MessageIndex(tmp_path / "index", SMALL, log_min=0, log_boundary=1_000)
    assert again.covered_to == 20  # the store indexes the rest again from here
    assert again.lookup("T", "k", 0, 2**62, 10) == [10, 0]
    again.add(packed([props(20, "j")]), 30)
    assert again.lookup("T", "k", 0, 2**62, 10) == [10, 0] and again.lookup("T", "j", 0, 2**62, 10) == [20]
    again.close()


def test_truncation_cuts_entries_and_files_durably_and_an_index_past_the_log_is_cut_on_open(tmp_path: Path) -> None:
    index = MessageIndex(tmp_path / "index", SMALL, log_min=0, log_boundary=1_000)
    index.add(packed([props(o, "k") for o in range(0, 70, 10)]), 70)
    index.truncate(40)
    assert index.covered_to == 40 and index.lookup("T", "k", 0, 2**62, 100) == [30, 20, 10, 0]
    assert sorted(p.name for p in (tmp_path / "index").iterdir()) == [f"{o:020d}" for o in (0, 30)]
    index.close()  # nothing flushed after the cut: it is durable already
    reopened = MessageIndex(tmp_path / "index", SMALL, log_min=0, log_boundary=25)  # the log ends sooner now
    assert reopened.covered_to == 25 and reopened.lookup("T", "k", 0, 2**62, 100) == [20, 10, 0]
    reopened.close()


def test_retention_deletes_files_whose_records_are_all_gone_never_the_last(tmp_path: Path) -> None:
    index = MessageIndex(tmp_path / "index", SMALL, log_min=0, log_boundary=1_000)
    index.add(packed([props(o, "k") for o in range(0, 70, 10)]), 70)
    index.delete_before(31)
    assert sorted(p.name for p in (tmp_path / "index").iterdir()) == [f"{o:020d}" for o in (30, 60)]
    index.delete_before(10_000)
    assert sorted(p.name for p in (tmp_path / "index").iterdir()) == [f"{60:020d}"]
    index.close()


def test_a_file_of_another_layout_is_refused_in_one_line(tmp_path: Path) -> None:
    index = MessageIndex(tmp_path / "index", SMALL, log_min=0, log_boundary=100)
    index.add(packed([props(0, "k")]), 10)
    index.flush_write(index.flush_begin())
    index.close()
    with pytest.raises(ValueError, match=r"not the .* of an index with 8 slots"):
        MessageIndex(tmp_path / "index", Layout(8, 6), log_min=0, log_boundary=100)


# --- the store -------------------------------------------------------------------------------------


def keyed(i: int, keys: str = "", topic: str = "Orders") -> Message:
    return Message(topic, i % 2, f"body{i}".encode(), {"KEYS": keys or f"k{i} all", "UNIQ_KEY": f"U{i}"}, 1_000 + i)


def open_store(root: Path) -> MessageStore:
    return MessageStore(root, SEG, index=SMALL)


def confirm_all(store: MessageStore) -> None:
    store.set_confirm_offset(store.max_offset)


def found_bodies(store: MessageStore, key: str, unique: bool = False, topic: str = "Orders") -> list[bytes]:
    hits = store.find_by_key(topic, key, unique=unique, begin_ms=0, end_ms=2**62, limit=100)
    return [m.body for _, _, m in hits]


def test_dispatch_indexes_confirmed_messages_only_and_lookups_read_them_back(tmp_path: Path) -> None:
    with open_store(tmp_path / "s") as store:
        store.put([keyed(i) for i in range(5)] + [keyed(9, topic="Other")])
        assert found_bodies(store, "all") == []  # not confirmed yet
        confirm_all(store)
        assert found_bodies(store, "all") == [b"body4", b"body3", b"body2", b"body1", b"body0"]
        assert found_bodies(store, "k3") == [b"body3"]
        assert found_bodies(store, "U2", unique=True) == [b"body2"] and found_bodies(store, "U2") == []
        assert found_bodies(store, "all", topic="Other") == [b"body9"]
        hits = store.find_by_key("Orders", "all", unique=False, begin_ms=1_001, end_ms=1_002, limit=100)
        assert [m.store_timestamp for _, _, m in hits] == [1_002, 1_001]
        offset, size, m = hits[0]
        assert store.message_at(offset) == (size, m)
        assert store.message_at(offset + 1) is None  # no record starts there
        assert store.queue_entries("Orders", 0, 0, 10) == [
            (q, o, s) for q, (o, s) in enumerate(store._queues[("Orders", 0)].read(0, 10))
        ]


def test_a_crashed_store_catches_its_index_up_from_the_log(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s")
    store.put([keyed(i) for i in range(3)])
    confirm_all(store)
    store.flush()
    store.put([keyed(i) for i in range(3, 6)])
    confirm_all(store)
    store.flush(lazy=True)  # the log is synced, the index and the checkpoint are not
    store._log.close()  # a killed process: files closed, nothing else flushed
    for queue in store._queues.values():
        queue.close()
    assert store._index is not None
    store._index.close()
    store._closed = True
    with open_store(tmp_path / "s") as again:
        assert len(found_bodies(again, "all")) == 3  # the checkpointed confirmOffset: the rest is not visible yet
        confirm_all(again)  # the master confirms them again
        assert len(found_bodies(again, "all")) == 6
        assert found_bodies(again, "k5") == [b"body5"]


def test_a_truncated_store_no_longer_finds_the_messages_cut(tmp_path: Path) -> None:
    with open_store(tmp_path / "s") as store:
        store.put([keyed(i) for i in range(3)])
        cut = store.max_offset
        store.put([keyed(i) for i in range(3, 6)])
        confirm_all(store)
        assert found_bodies(store, "k4") == [b"body4"]
        store.truncate(cut)
        assert found_bodies(store, "k4") == [] and len(found_bodies(store, "all")) == 3
        store.put([keyed(7, keys="k4")])  # a new record where the cut one was
        confirm_all(store)
        assert found_bodies(store, "k4") == [b"body7"]
    with open_store(tmp_path / "s") as again:
        assert found_bodies(again, "k4") == [b"body7"] and len(found_bodies(again, "all")) == 3


def test_retention_deletes_index_files_with_the_segments(tmp_path: Path) -> None:
    with open_store(tmp_path / "s") as store:
        for i in range(60):
            store.put([keyed(i)])
        confirm_all(store)
        files = sorted((tmp_path / "s" / "index").iterdir())
        new_min = store.delete_before(store.max_offset)
        left = sorted((tmp_path / "s" / "index").iterdir())
        assert len(left) < len(files) and new_min > 0
        assert found_bodies(store, "k59") == [b"body59"]
        assert found_bodies(store, "k0") == []


def test_a_replica_builds_its_own_index_from_the_replicated_log(tmp_path: Path) -> None:
    with open_store(tmp_path / "m") as master, open_store(tmp_path / "r") as replica:
        master.put([keyed(i) for i in range(4)])
        data = master.read(0, master.max_offset)
        replica.append_replica(0, data)
        replica.set_confirm_offset(replica.max_offset)
        assert found_bodies(replica, "all") == [b"body3", b"body2", b"body1", b"body0"]


def test_a_store_without_an_index_finds_nothing(tmp_path: Path) -> None:
    with MessageStore(tmp_path / "s", SEG, index=None) as store:
        store.put([keyed(0)])
        confirm_all(store)
        assert found_bodies(store, "k0") == []
        assert not (tmp_path / "s" / "index").exists()
