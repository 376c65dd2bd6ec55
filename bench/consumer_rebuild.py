"""Rebuild time of a broker set's consumer tables from 1 M consumer-state records, pure and through a MessageStore.

The records are a synthetic but valid history (every record changes the state it is applied to) of many groups on
many queues (default 100 groups, each on 2 of 10 topics of 8 queues: 1600 queue keys). A fifth of the groups commit
offsets (``OffsetCommitted`` every 1-32 messages); the rest consume by POP: a receive of 1-32 messages is one
``Popped``, each delivery is acked by its own ``Acked`` (as an AckMessage of many handles writes them), interleaved
with other queues' records; 1 % of the deliveries are not acked and come back in a later receive (attempt + 1),
0.5 % get a ``Changed`` (a new invisibility) before their ack. The mix is printed.

Pure: ``records.decode`` of every body, ``state.apply_all`` of every record, and the two streamed as a rebuild does
them; and a restart from a snapshot cut at 90 % of the records (snapshot decode, then decode + apply of the 10 %
tail). Store: the same records as messages of ``rmq_sys_CONSUMER_STATE`` (``records.to_message``) put into a real
MessageStore in a temp directory (confirmed and flushed), then the broker's own rebuild path: ``log_records`` from
offset 0 fed into ``snapshot.rebuild`` (timed together, and ``log_records`` alone), and the store's reopen. The
snapshot of the resulting state is encoded and decoded, and its size given. Every rebuilt state is checked equal
to the pure one. The benchmark's own records and bodies are frozen out of the garbage collector's way
(``gc.freeze``) before anything is timed, as a broker holds neither. One run per figure (``--repeat`` for the median
of more); ``--records`` sets the count (--quick: 20 000).
"""

from __future__ import annotations

import argparse
import gc
import random
import shutil
import statistics
import tempfile
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from _common import machine_note, parse_args, print_table
from _replicas import SEGMENT

from agents.broker.consumer_snapshots import log_records
from agents.consumer import records as rec
from agents.consumer import snapshot
from agents.consumer.state import ConsumerState, apply_all
from agents.pop.events import Acked, Changed, Delivery, Popped
from agents.pop.model import QueueKey
from agents.store.message_store import MessageStore

T = TypeVar("T")
BASE_MS = 1_795_000_000_000
INVISIBLE_MS = 60_000
PUT_BATCH = 1024


@dataclass
class _Queue:
    """What the generator tracks of one group's consumption of one queue."""

    key: QueueKey
    offsets: bool  # an offset-committing group, not POP
    scanned: int = 0
    ticket: int = 1
    pending: list[tuple[int, int, int]] = field(default_factory=list)  # (offset, ticket, attempt) to ack
    expired: list[tuple[int, int]] = field(default_factory=list)  # (offset, attempt) left unacked, to redeliver


def history(n: int, groups: int, topics: int, queues: int, seed: int = 25) -> list[rec.StateRecord]:
    """`n` records of a valid history (see the module docstring), numbered 1..n."""
    rnd = random.Random(seed)
    keys: list[_Queue] = []
    for g in range(groups):
        offsets = g % 5 == 0
        for t in rnd.sample(range(topics), min(2, topics)):
            keys += [_Queue(QueueKey(f"GID_bench_{g:03d}", f"Topic_{t:02d}", q), offsets) for q in range(queues)]
    out: list[rec.StateRecord] = []
    clock = BASE_MS

    def emit(change: rec.Change) -> None:
        out.append(rec.StateRecord(len(out) + 1, change))

    while len(out) < n:
        k = rnd.choice(keys)
        clock += rnd.randint(0, 3)
        if k.offsets:
            k.scanned += rnd.randint(1, 32)
            emit(rec.OffsetCommitted(k.key, k.scanned, clock))
        elif k.pending:
            for _ in range(min(rnd.randint(1, 8), len(k.pending))):
                offset, ticket, attempt = k.pending.pop()
                if rnd.random() < 0.005:
                    emit(Changed(k.key, offset, ticket, k.ticket, clock + INVISIBLE_MS))
                    k.pending.insert(0, (offset, k.ticket, attempt))
                    k.ticket += 1
                else:
                    emit(Acked(k.key, offset, ticket))
        else:
            batch = rnd.randint(1, 32)
            again, k.expired = k.expired[:batch], k.expired[batch:]
            fresh = list(range(k.scanned, k.scanned + batch - len(again)))
            k.scanned += len(fresh)
            deliveries = []
            for offset, attempt in [*again, *((o, 0) for o in fresh)]:
                deliveries.append(Delivery(offset, k.ticket, clock + INVISIBLE_MS, attempt + 1))
                if rnd.random() < 0.01:
                    k.expired.append((offset, attempt + 1))
                else:
                    k.pending.append((offset, k.ticket, attempt + 1))
                k.ticket += 1
            rnd.shuffle(k.pending)
            deliveries.sort(key=lambda d: d.offset)
            emit(Popped(k.key, 0, k.scanned, (), (), tuple(deliveries)))
    return out[:n]


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def median_of(repeat: int, fn: Callable[[], T]) -> tuple[float, T]:
    """The median wall time of `repeat` calls of `fn`, and the last call's value."""
    runs = [timed(fn) for _ in range(repeat)]
    return statistics.median(s for s, _ in runs), runs[-1][1]


def inflight(state: ConsumerState) -> int:
    return sum(len(q.inflight) for q in state.queues.values())


def check(state: ConsumerState, expected: ConsumerState, what: str) -> None:
    if (state.seq, dict(state.offsets), dict(state.queues)) != (expected.seq, dict(expected.offsets),
                                                                dict(expected.queues)):  # fmt: skip
        raise RuntimeError(f"{what}: the rebuilt state differs from the pure one")


def store_records(store: MessageStore) -> Iterator[rec.StateRecord]:
    return (record for _, _, record in log_records(store, 0))


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--records", type=int, help="records in the history (default 1 000 000; --quick: 20 000)")
    parser.add_argument("--groups", type=int, default=100, help="consumer groups (default 100, each on 2 topics)")
    parser.add_argument("--topics", type=int, default=10, help="topics (default 10)")
    parser.add_argument("--queues", type=int, default=8, help="queues per topic (default 8)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per timed figure, median (default 1)")


def main() -> None:
    args = parse_args(__doc__, options)
    n = args.records or (20_000 if args.quick else 1_000_000)
    print(f"machine: {machine_note()}")
    gen_s, records = timed(lambda: history(n, args.groups, args.topics, args.queues))
    mix = Counter(type(r.change).__name__ for r in records)
    queued = rec.OffsetCommitted | Popped | Acked | Changed
    keys = len({r.change.queue for r in records if isinstance(r.change, queued)})
    print(f"history: {n} records over {keys} queue keys generated in {gen_s:.1f} s; mix: "
          + ", ".join(f"{kind} {count} ({count / n:.1%})" for kind, count in mix.most_common()))  # fmt: skip
    rows: list[list[str]] = []

    def row(what: str, seconds: float, count: int | None = n) -> None:
        rate = f"{count / seconds / 1000:.0f}" if count and seconds > 0 else "–"
        rows.append([what, f"{seconds:.2f}", rate])

    encode_s, bodies = median_of(args.repeat, lambda: [rec.encode(r) for r in records])
    row("records.encode (the write path's cost, for scale)", encode_s)
    gc.collect()
    gc.freeze()  # the benchmark's own 2 M records and bodies are no work for the collector (a broker holds neither)
    decode_s, _ = median_of(args.repeat, lambda: deque((rec.decode(b) for b in bodies), maxlen=0))
    row("pure: records.decode alone", decode_s)
    apply_s, expected = median_of(args.repeat, lambda: apply_all(None, records))
    row("pure: state.apply_all alone (of the generated records)", apply_s)
    pure_s, state = median_of(args.repeat, lambda: apply_all(None, (rec.decode(b) for b in bodies)))
    row("pure: decode + apply_all, streamed (the rebuild without I/O)", pure_s)
    check(state, expected, "decode + apply")

    cut = n * 9 // 10
    snap90 = snapshot.encode(snapshot.Snapshot(0, apply_all(None, records[:cut])))
    tail = bodies[cut:]

    def restart() -> ConsumerState:
        return snapshot.rebuild(snapshot.decode(snap90), (rec.decode(b) for b in tail))

    restart_s, restarted = median_of(args.repeat, restart)
    row(f"pure: snapshot at 90 % ({len(snap90) / 1e6:.2f} MB) + {n - cut} tail records", restart_s, n - cut)
    check(restarted, state, "snapshot + tail")

    final = snapshot.Snapshot(0, state)
    snap_encode_s, data = median_of(args.repeat, lambda: snapshot.encode(final))
    snap_decode_s, loaded = median_of(args.repeat, lambda: snapshot.decode(data))
    check(loaded.state, state, "snapshot decode")
    row(f"snapshot.encode of the final state ({len(state.offsets) + len(state.queues)} keys)", snap_encode_s, None)
    row("snapshot.decode of the final state", snap_decode_s, None)

    directory = Path(tempfile.mkdtemp(prefix="mqbench-rebuild-"))
    try:
        store = MessageStore(directory / "store", SEGMENT)

        def load() -> None:
            for i in range(0, n, PUT_BATCH):
                end = store.put([rec.to_message([r], BASE_MS) for r in records[i : i + PUT_BATCH]]).end
                store.set_confirm_offset(end)
            store.flush()

        put_s, _ = timed(load)
        row(f"store: put {n} records as {rec.SYSTEM_TOPIC} messages ({PUT_BATCH}/put) + flush", put_s)
        log_s, listed = median_of(args.repeat, lambda: sum(1 for _ in log_records(store, 0)))
        if listed != n:
            raise RuntimeError(f"log_records found {listed} records, not {n}")
        row("store: log_records alone (read + decode)", log_s)
        store_s, rebuilt = median_of(args.repeat, lambda: snapshot.rebuild(None, store_records(store)))
        check(rebuilt, state, "store rebuild")
        row("store: log_records + rebuild (the broker's path, no snapshot)", store_s)
        log_bytes = store.max_offset
        store.close()
        reopen_s, store = timed(lambda: MessageStore(directory / "store", SEGMENT))
        row("store: reopen (recovery before a rebuild)", reopen_s, None)
        store.close()
    finally:
        shutil.rmtree(directory, ignore_errors=True)

    print_table(f"Consumer tables from {n} records ({keys} queue keys)", ["step", "seconds", "k records/s"], rows)
    print(f"\ncommit log of the records: {log_bytes / 1e6:.1f} MB ({log_bytes / n:.0f} B/record)")
    print(f"snapshot of the final state: {len(data) / 1e6:.2f} MB ({len(data)} B), {len(state.offsets)} offsets, "
          f"{len(state.queues)} POP queues, {inflight(state)} messages in flight")  # fmt: skip
    print(f"machine after: {machine_note()}")


if __name__ == "__main__":
    main()
