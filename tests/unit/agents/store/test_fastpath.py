"""The compiled fast paths (``agents/store/_fastscan.c``) against the Python code they speed up: the replication
scan (``record._scan_records``) and dispatch's grouping (``MessageStore._dispatch``). Same input: the same
entries, the same consume-queue files, the same error message."""

from __future__ import annotations

import os
import platform
import zlib
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.store import commitlog, fastpath, index, message_store, record
from agents.store.consume_queue import ConsumeQueueError
from agents.store.index import Header, Layout
from agents.store.message_store import MessageStore
from agents.store.record import (
    BLANK_SIZE,
    ENTRY,
    Entry,
    Message,
    RecordError,
    encode,
    encode_blank,
    scan_replicated,
    unpack_entries,
)
from agents.store.record import TOPICS as TOPIC_IDS

compiled_only = pytest.mark.skipif(fastpath.compiled is None, reason="agents/store/_fastscan was not built")
same_inputs = settings(
    max_examples=250,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

SEGMENT = 900
TOPICS = ("T", "Orders", "%RETRY%group-1")
specs = st.lists(
    st.tuples(st.integers(0, len(TOPICS) - 1), st.integers(0, 2), st.integers(0, 200)), min_size=1, max_size=14
)


def log_bytes(records: list[tuple[int, int, int]], skew: int | None = None, segment: int = SEGMENT) -> bytes:
    """A master's log of (topic index, queue id, body size) records, each queue numbered from 0; record `skew`
    gets a queue offset one too high (a log its consume queues cannot take)."""
    out = bytearray()
    counters: dict[tuple[str, int], int] = {}
    for i, (t, queue_id, size) in enumerate(records):
        key = (TOPICS[t], queue_id)
        counters[key] = counters.get(key, -1) + 1
        queue_offset = counters[key] + (i == skew)
        rec = encode(
            Message(TOPICS[t], queue_id, bytes([i % 251]) * size, {"k": str(i)}, 1_700_000_000 + i, queue_offset)
        )
        room = segment - len(out) % segment
        if len(rec) + BLANK_SIZE > room:
            out += encode_blank(room) + bytes(room - BLANK_SIZE)
        out += rec
    return bytes(out)


def scan_outcome(stream: bytes, cuts: list[int], segment: int = SEGMENT) -> tuple[str, object, list[Entry]]:
    """Scan `stream` as batches split at `cuts`, as the commit log does: ("ok", boundary, entries) or
    ("refused", the RecordError's message, the entries of the batches before)."""
    tail, boundary, entries, start = b"", 0, [], 0
    try:
        for end in [*sorted(set(cuts)), len(stream)]:
            scan = scan_replicated(tail, stream[start:end], boundary, segment)
            tail, boundary, start = scan.tail, scan.boundary, end
            entries += unpack_entries(scan.entries)
    except RecordError as exc:
        return "refused", str(exc), entries
    return "ok", boundary, entries


def test_the_compiled_module_is_built_where_ci_requires_it() -> None:
    if os.environ.get("MQADMIN_REQUIRE_FASTPATH") and fastpath.compiled is None:
        pytest.fail("agents/store/_fastscan was not built: `pip install -e .` needs gcc, zlib.h and Python.h")


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {flag for line in text.splitlines() if line.startswith("flags") for flag in line.split(":", 1)[1].split()}


@compiled_only
def test_body_crcs_take_the_carry_less_multiplication_where_the_cpu_has_it() -> None:
    has_clmul = {"pclmulqdq", "sse4_1"} <= cpu_flags() and platform.machine() == "x86_64"
    body_crc = fastpath.compiled.BODY_CRC  # type: ignore[union-attr]
    assert body_crc == ("pclmulqdq" if has_clmul else "callable")


@compiled_only
@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.binary(max_size=70_000), st.integers(0, 15), st.integers(0, 2**32 - 1))
def test_the_compiled_crc_is_zlibs(data: bytes, skip: int, value: int) -> None:
    view = memoryview(data)[skip:]  # unaligned starts, every length mod 16 and the 64-byte blocks
    assert fastpath.compiled.crc32(view, value) == zlib.crc32(view, value)  # type: ignore[union-attr]
    assert fastpath.compiled.crc32(view) == zlib.crc32(view)  # type: ignore[union-attr]


@compiled_only
def test_the_compiled_crc_is_zlibs_for_every_short_length() -> None:
    data = bytes(range(7, 256)) * 2  # a record's header is 16-63 bytes: one folded lane, then zlib's tail
    for skip in range(16):
        for length in range(200):
            view = memoryview(data)[skip : skip + length]
            assert fastpath.compiled.crc32(view, 0x5A5A5A5A) == zlib.crc32(view, 0x5A5A5A5A), (skip, length)  # type: ignore[union-attr]


@compiled_only
@pytest.mark.parametrize("size", [63, 64, 65, 1024, 4096, 65_536 + 7])
def test_a_flipped_bit_anywhere_in_a_large_body_is_refused_with_the_python_message(size: int) -> None:
    body = bytes(range(256)) * (size // 256) + bytes(size % 256)
    raw = encode(Message("T", 0, body, {}, 1, 0))
    for at in (len(raw) - size, len(raw) - size // 2, len(raw) - 1):
        damaged = bytearray(raw)
        damaged[at] ^= 0x10
        with pytest.raises(RecordError, match="fails its CRC") as compiled:
            scan_replicated(b"", bytes(damaged), 0, 1 << 20)
        with mock.patch.object(record, "_fast_scan", None), pytest.raises(RecordError) as python:
            scan_replicated(b"", bytes(damaged), 0, 1 << 20)
        assert str(compiled.value) == str(python.value)
    assert scan_replicated(b"", raw, 0, 1 << 20).boundary == len(raw)


@compiled_only
@same_inputs
@given(specs, st.data())
def test_the_compiled_scan_answers_as_the_python_checks(
    records: list[tuple[int, int, int]], data: st.DataObject
) -> None:
    stream = bytearray(log_bytes(records))
    for _ in range(data.draw(st.integers(0, 2))):
        stream[data.draw(st.integers(0, len(stream) - 1))] ^= data.draw(st.integers(1, 255))
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=4))
    compiled = scan_outcome(bytes(stream), cuts)
    with mock.patch.object(record, "_fast_scan", None):
        assert compiled == scan_outcome(bytes(stream), cuts)


@compiled_only
@pytest.mark.parametrize("damage_at", [None, 0.3, 0.97])
def test_a_long_batch_is_scanned_in_passes_without_the_gil_as_the_python_checks_do(damage_at: float | None) -> None:
    """Past 64 KiB the compiled scan checks up to 4096 records per pass without the GIL, then adds their entries;
    a new topic or damaged record in a later pass must stop it where the Python checks stop."""
    records = [(i % 7 // 3, i % 3, 20 + i % 50) for i in range(9000)]  # > 2 passes, topics change every few
    stream = bytearray(log_bytes(records, segment=1 << 20))
    if damage_at is not None:
        stream[int(len(stream) * damage_at)] ^= 0x40
    compiled = scan_outcome(bytes(stream), [], segment=1 << 20)
    with mock.patch.object(record, "_fast_scan", None):
        assert compiled == scan_outcome(bytes(stream), [], segment=1 << 20)
    assert compiled[0] == ("ok" if damage_at is None else "refused")
    assert len(compiled[2]) == (9000 if damage_at is None else 0)


@compiled_only
def test_a_crc_valid_record_the_compiled_scan_rejects_gets_the_python_message() -> None:
    raw = bytearray(encode(Message("T", 1, b"body", {}, 1, 0)))
    raw[16:20] = (-1).to_bytes(4, "big", signed=True)  # queue id -1, CRCs made to match
    raw[8:12] = record._header_crc(raw[: -len(b"body")]).to_bytes(4, "big")
    before = log_bytes([(0, 0, 10)])
    with pytest.raises(RecordError, match=f"record at offset {len(before)} has a negative queue id or queue offset"):
        scan_replicated(b"", before + bytes(raw), 0, 1 << 20)


def replicate(root: Path, stream: bytes, cuts: list[int], confirms: list[int]) -> tuple[object, ...]:
    """Replicate `stream` into a new store in batches, raising the confirmOffset after each; what a consumer can
    see afterwards, and the dispatch error if there was one."""
    problem = ""
    with MessageStore(root, SEGMENT, cq_entries_per_file=4) as store:
        start = 0
        for end, confirm in zip([*sorted(set(cuts)), len(stream)], confirms, strict=False):
            store.append_replica(start, stream[start:end])
            start = end
            try:
                store.set_confirm_offset(confirm)
            except ConsumeQueueError as exc:
                problem = str(exc).replace(str(root), "ROOT")
                break
        queues = {(t, q): store.queue_range(t, q) for t in TOPICS for q in range(3)}
        seen = {key: store.consume(*key, low, 100) for key, (low, high) in queues.items() if high > low}
        return store.confirm_offset, queues, seen, problem


@compiled_only
@same_inputs
@given(specs, st.data())
def test_the_compiled_grouping_dispatches_as_the_python_loop(
    tmp_path_factory: pytest.TempPathFactory, records: list[tuple[int, int, int]], data: st.DataObject
) -> None:
    skew = data.draw(st.none() | st.integers(0, len(records) - 1))
    stream = log_bytes(records, skew)
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=4))
    confirms = data.draw(st.lists(st.integers(0, len(stream)), min_size=len(cuts) + 1, max_size=len(cuts) + 1))
    base = tmp_path_factory.mktemp("dispatch")
    compiled = replicate(base / "compiled", stream, cuts, confirms)
    with mock.patch.object(message_store, "_group_entries", None):
        python = replicate(base / "python", stream, cuts, confirms)
    assert compiled == python
    for queue_dir in sorted((base / "python" / "consumequeue").glob("*/*")):
        twin = base / "compiled" / queue_dir.relative_to(base / "python")
        assert sorted(os.listdir(queue_dir)) == sorted(os.listdir(twin))
        for name in os.listdir(queue_dir):
            assert (queue_dir / name).read_bytes() == (twin / name).read_bytes()


@compiled_only
def test_group_entries_stops_at_the_first_entry_that_does_not_follow_on() -> None:
    t = TOPIC_IDS.id_of(b"T", 0)
    tuples = [(0, 50, t, 0, 0), (50, 60, t, 1, 7), (110, 50, t, 0, 1), (160, 70, t, 0, 3), (230, 5, t, 1, 8)]
    packed = b"".join(ENTRY.pack(pos, qoff, size, qid, topic) for pos, size, topic, qid, qoff in tuples)
    runs, reached = fastpath.compiled.group_entries(packed, TOPIC_IDS.names)  # type: ignore[union-attr]
    assert reached == 3
    assert runs == [
        (
            "T",
            0,
            0,
            0,
            2,
            110,
            (0).to_bytes(8, "big") + (50).to_bytes(4, "big") + (110).to_bytes(8, "big") + (50).to_bytes(4, "big"),
        ),
        ("T", 1, 50, 7, 1, 50, (50).to_bytes(8, "big") + (60).to_bytes(4, "big")),
    ]


# --- the message index: key reading and filing (index.py) ------------------------------------------------------

WORDS = ("a", "b", "", "k1", "dé", "UNIQ", "x" * 40)
keyed = st.lists(
    st.tuples(
        st.integers(0, len(TOPICS) - 1),
        st.lists(st.sampled_from(WORDS), max_size=5) | st.just([f"w{i}" for i in range(70)]),  # 70: past the C cap
        st.sampled_from(("", "UNIQ", "a", "U-1")),
        st.booleans(),  # a decoy property whose name ends in KEYS
    ),
    min_size=1,
    max_size=12,
)


def index_outcome(root: Path, layout: Layout, records: list[tuple[int, list[str], str, bool]]) -> tuple[object, ...]:
    """Put `records`, dispatch and flush them into a store with an index of `layout`: its files' bytes and every
    key's lookup."""
    messages = []
    for i, (t, words, unique, decoy) in enumerate(records):
        props = {"KEYS": " ".join(words)} if words else {}
        props |= {"UNIQ_KEY": unique} if unique else {}
        props |= {"MYKEYS": "a b"} if decoy else {}
        messages.append(Message(TOPICS[t], 0, b"body", props, 1_700_000_000_000 + 700 * i))
    with MessageStore(root, 4096, index=layout) as store:
        store.put(messages[: len(messages) // 2])
        store.put(messages[len(messages) // 2 :])
        store.set_confirm_offset(store.last_message_boundary())
        store.flush()
        found = {
            (t, w, unique): [
                hit[0] for hit in store.find_by_key(t, w, unique=unique, begin_ms=0, end_ms=2**62, limit=99)
            ]
            for t in TOPICS
            for w in (*WORDS, "w3", "U-1")
            for unique in (False, True)
        }
    return {p.name: p.read_bytes() for p in sorted((root / "index").iterdir())}, found


@compiled_only
@same_inputs
@given(keyed, st.sampled_from([Layout(slots=3, entries=5), Layout(slots=7, entries=200)]))
def test_the_compiled_index_reads_and_files_keys_as_the_python_code(
    tmp_path_factory: pytest.TempPathFactory, records: list[tuple[int, list[str], str, bool]], layout: Layout
) -> None:
    base = tmp_path_factory.mktemp("index")
    compiled = index_outcome(base / "compiled", layout, records)
    with mock.patch.object(commitlog, "fast_index_keys", None), mock.patch.object(index, "_fast_add", None):
        assert compiled == index_outcome(base / "python", layout, records)


@compiled_only
@same_inputs
@given(
    st.lists(st.tuples(st.integers(0, 2**31 - 1), st.integers(0, 2**40), st.integers(0, 2**45)), max_size=9),
    st.lists(st.integers(-2, 14), min_size=4, max_size=4),
    st.integers(0, 3),
)
def test_the_compiled_filing_writes_what_add_entries_writes_over_stale_slots(
    entries: list[tuple[int, int, int]], stale: list[int], count: int
) -> None:
    """Slots left by a crash (pointing before, at or past the count) and a file partly filled: the same bytes."""
    layout = Layout(slots=4, entries=12)
    start = bytearray(layout.size)
    start[index.HEADER.size : layout.entry_pos(1)] = b"".join(n.to_bytes(4, "big", signed=True) for n in stale)
    header = Header(5_000, 5_000, 3, 9, used_slots=1, count=count) if count else Header()
    packed = b"".join(index.KEY_ENTRY.pack(phy, ts, h) for h, phy, ts in entries)
    compiled_buf, python_buf = bytearray(start), bytearray(start)
    compiled = index.add_packed(compiled_buf, layout, header, packed)
    with mock.patch.object(index, "_fast_add", None):
        python = index.add_packed(python_buf, layout, header, packed)
    assert (compiled, compiled_buf) == (python, python_buf)
