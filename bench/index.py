"""The message index's cost on the put path and on a slave's apply, and its lookup latency at 1 M keys.

One process, real stores (``MessageStore``) in a temp directory, 1 KiB messages over 8 queues, each with a
``KEYS`` word and a ``UNIQ_KEY`` (two index entries a message: 1 M keys is 500 000 messages).

- Put path, as a master runs it: 32 messages a put, then the confirmOffset raised (dispatch: consume queues, then
  the index) and a lazy flush. Three stores in alternating order per round: without an index (the baseline), with
  it (the compiled path, ``_fastscan.c``), and with it in pure Python (the compiled functions switched off, the
  path a build without gcc takes). Wall and CPU per message; ratios to the baseline.
- A slave's apply: the master's log bytes in 1 MiB pieces (``append_replica``, then the confirmOffset), with and
  without the index, alternating.
- Lookups on the store holding every key, in random order: ``find_by_key`` of a KEYS word, of a UNIQ_KEY, and of
  a key no message has, against the record read every hit includes (``message_at`` of a random record); p50/p99
  per call, and the index's disk use.

``--keys`` (default 1 000 000), ``--rounds`` (3), ``--lookups`` (20 000); ``--quick``: 40 000 keys, 1 round,
2 000 lookups. Exits 1 if a lookup of a key some message has does not find exactly that message, or one of an absent
key finds any. Everything it makes is under one temp directory, removed at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

from _common import machine_note, parse_args, percentile, print_table

from agents.store import commitlog, index
from agents.store.message_store import MessageStore
from agents.store.record import Message

TOPIC = "IndexBench"
BODY = bytes(range(256)) * 4
PER_PUT = 32
SEGMENT = 64 * 1024 * 1024
PIECE = 1 << 20
SIDES = ("no index", "index", "index, pure Python")


def batch(first: int, count: int, now: int) -> list[Message]:
    """Messages first..first+count-1: KEYS ``order-<i>``, UNIQ_KEY a 32-digit hex id, queue i mod 8."""
    return [
        Message(TOPIC, i % 8, BODY, {"KEYS": f"order-{i}", "UNIQ_KEY": f"{i:032X}"}, now + i // 1000)
        for i in range(first, first + count)
    ]


@contextlib.contextmanager
def pure_python(on: bool) -> Iterator[None]:
    """The index's compiled functions switched off (``on``) for the duration."""
    if not on:
        yield
        return
    with mock.patch.object(commitlog, "fast_index_keys", None), mock.patch.object(index, "_fast_add", None):
        yield


def open_store(root: Path, side: str) -> MessageStore:
    return MessageStore(root, SEGMENT, index=None if side == "no index" else index.DEFAULT_LAYOUT)


def put_all(root: Path, side: str, count: int) -> tuple[float, float]:
    """Put `count` messages as a master does (put, confirm, lazy flush); (wall, CPU) seconds, closing flush
    included."""
    now = int(time.time() * 1000)
    with pure_python(side == "index, pure Python"), open_store(root, side) as store:
        wall, cpu = time.perf_counter(), time.process_time()
        for first in range(0, count, PER_PUT):
            store.put(batch(first, min(PER_PUT, count - first), now))
            store.set_confirm_offset(store.last_message_boundary())
            store.flush(lazy=True)
        store.flush()
        return time.perf_counter() - wall, time.process_time() - cpu


def pieces(store: MessageStore) -> Iterator[tuple[int, bytes]]:
    """The store's log as (offset, bytes) pieces of at most 1 MiB, none across a segment."""
    offset = store.min_offset
    while offset < store.max_offset:
        size = min(PIECE, SEGMENT - offset % SEGMENT, store.max_offset - offset)
        yield offset, store.read(offset, size)
        offset += size


def apply_all(root: Path, side: str, log: list[tuple[int, bytes]]) -> tuple[float, float]:
    """A slave's apply of `log`: append each piece, raise the confirmOffset, lazy flush; (wall, CPU) seconds."""
    with open_store(root, side) as store:
        wall, cpu = time.perf_counter(), time.process_time()
        for offset, data in log:
            store.append_replica(offset, data)
            store.set_confirm_offset(store.last_message_boundary())
            store.flush(lazy=True)
        store.flush()
        return time.perf_counter() - wall, time.process_time() - cpu


def timed_calls(calls: list[tuple[str, bool]], store: MessageStore) -> tuple[list[float], int]:
    """Seconds of each ``find_by_key`` (key, unique) over all time, and how many found exactly one message."""
    seconds, found = [], 0
    for key, unique in calls:
        start = time.perf_counter()
        hits = store.find_by_key(TOPIC, key, unique=unique, begin_ms=0, end_ms=2**62, limit=32)
        seconds.append(time.perf_counter() - start)
        found += len(hits) == 1
    return seconds, found


def by_unique_key(store: MessageStore, unique_key: str) -> list[tuple[int, int, Message]]:
    return store.find_by_key(TOPIC, unique_key, unique=True, begin_ms=0, end_ms=2**62, limit=1)


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f}"


def main() -> None:
    def extra(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--keys", type=int, default=1_000_000, help="index entries (two a message)")
        parser.add_argument("--rounds", type=int, default=3, help="put and apply rounds per side")
        parser.add_argument("--lookups", type=int, default=20_000, help="lookups of each kind")

    args = parse_args(__doc__, extra)
    keys, rounds, lookups = (40_000, 1, 2_000) if args.quick else (args.keys, args.rounds, args.lookups)
    count = keys // 2
    if index.fast_index_keys is None:
        print("agents/store/_fastscan is not built: the 'index' side runs in pure Python too")
    print(f"{count} messages of {len(BODY)} B, {PER_PUT} a put, 2 keys each; {machine_note()}", flush=True)
    base = Path(tempfile.mkdtemp(prefix="mq-index-bench-"))
    try:
        put: dict[str, list[tuple[float, float]]] = {side: [] for side in SIDES}
        for r in range(rounds):
            for side in SIDES if r % 2 == 0 else reversed(SIDES):
                put[side].append(put_all(base / f"put-{r}-{side}", side, count))
                if (r, side) != (0, "index"):
                    shutil.rmtree(base / f"put-{r}-{side}")
                print(f"round {r + 1}: put, {side}: {put[side][-1][0]:.2f} s", flush=True)
        keep = base / "put-0-index"  # the store every lookup runs on
        with open_store(keep, "index") as store:
            log = list(pieces(store))
        apply: dict[str, list[tuple[float, float]]] = {side: [] for side in SIDES[:2]}
        for r in range(rounds):
            for side in SIDES[:2] if r % 2 == 0 else reversed(SIDES[:2]):
                apply[side].append(apply_all(base / f"apply-{r}-{side}", side, log))
                shutil.rmtree(base / f"apply-{r}-{side}")
        del log

        def rows(results: dict[str, list[tuple[float, float]]]) -> list[list[str]]:
            baseline = min(w for w, _ in results["no index"])
            out = []
            for side, runs in results.items():
                wall, cpu = min(w for w, _ in runs), min(c for _, c in runs)
                out.append([side, us(wall / count), us(cpu / count), f"{wall / baseline:.2f}", f"{count / wall:,.0f}"])
            return out

        headers = ["side", "wall µs/msg", "CPU µs/msg", "wall / no index", "msgs/s"]
        print_table(f"Put path (best of {rounds})", headers, rows(put))
        print_table(f"A slave's apply of the same log (best of {rounds})", headers, rows(apply))

        rng = random.Random(7)
        picks = [rng.randrange(count) for _ in range(lookups)]
        kinds = {
            "KEYS word": [(f"order-{i}", False) for i in picks],
            "UNIQ_KEY": [(f"{i:032X}", True) for i in picks],
            "absent key": [(f"order-{count + i}", False) for i in picks],
        }
        with open_store(keep, "index") as store:
            records = [o for i in picks[:2000] for o, _, _ in by_unique_key(store, f"{i:032X}")]
            reads = []
            for offset in (rng.choice(records) for _ in range(lookups)):
                start = time.perf_counter()
                store.message_at(offset)
                reads.append(time.perf_counter() - start)
            read_p50 = percentile(reads, 50)
            table = [["record read (message_at)", us(read_p50), us(percentile(reads, 99)), "1.00", "-"]]
            wrong = []
            for kind, calls in kinds.items():
                seconds, found = timed_calls(calls, store)
                if found != (0 if kind == "absent key" else len(calls)):
                    wrong.append(f"{kind}: {found} of {len(calls)} lookups found exactly one message")
                table.append([f"find_by_key, {kind}", us(percentile(seconds, 50)), us(percentile(seconds, 99)),
                              f"{percentile(seconds, 50) / read_p50:.2f}", f"{found}/{len(calls)}"])  # fmt: skip
        print_table(f"Lookups at {keys:,} keys ({lookups} each, random order)",
                    ["call", "p50 µs", "p99 µs", "p50 / record read", "found one"], table)  # fmt: skip
        files = sorted((keep / "index").iterdir())
        used = sum(p.stat().st_blocks * 512 for p in files)
        apparent = sum(p.stat().st_size for p in files)
        print(f"\nindex: {len(files)} file(s), {used / 1e6:.1f} MB on disk ({apparent / 1e6:.0f} MB apparent, sparse)")
        if wrong:
            raise SystemExit("lookups went wrong: " + "; ".join(wrong))
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
