"""Pre-online merge time for a broker set with 100 k consumer offsets (RIP-32 §3), against the rebuild a new master
does anyway, measured in the same run.

A returning master's own table holds `--offsets` committed offsets (default 100 000 queue keys: groups × topics ×
queues, each an offset-committing group's queue). Two replicas answer with their tables: the same keys, a tenth of
them further on (consumers kept committing through the acting replica, whose progress a slave holds). One escape
master answers with `--escaped` escaped changes (default 10 000 forward offset commits of this set's queues, each
with its idempotency key, plus as many of another set's, which are skipped), and answers a second time with the same
changes (a retry), which change nothing.

Timed, each the median of `--repeat` runs:

* baseline: the snapshot decode of the own table (``snapshot.decode``), which every new master pays when it
  rebuilds its consumer state from its snapshot;
* ``progress_of``: the own consumer state as versioned progress (the merge's input);
* the merge: ``start``, ``take_replica`` twice, ``take_escaped`` twice, until ``online``.

The merged table is checked: every key at the larger committed offset of the three tables and the escaped changes,
and the applied keys exactly this set's escaped ones. What is not in these figures: the RPCs that fetch the tables
and escaped changes (not built yet), whose cost is that of moving the same bytes as a snapshot.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from types import MappingProxyType
from typing import TypeVar

from _common import machine_note, parse_args, print_table

from agents.consumer import pre_online, snapshot
from agents.consumer.records import OffsetCommitted
from agents.consumer.state import Committed, ConsumerState
from agents.pop.model import QueueKey

T = TypeVar("T")
HOME, OTHER = "broker-a", "broker-b"
QUEUES, TOPICS = 8, 10
BASE_MS = 1_795_000_000_000


def keys(n: int) -> list[QueueKey]:
    """`n` queue keys: groups of `TOPICS` topics of `QUEUES` queues each."""
    per_group = TOPICS * QUEUES
    return [QueueKey(f"GID_{i // per_group:05d}", f"Topic_{i // QUEUES % TOPICS:02d}", i % QUEUES) for i in range(n)]


def own_state(queue_keys: list[QueueKey]) -> ConsumerState:
    offsets = {k: Committed(1000 + i % 997, BASE_MS) for i, k in enumerate(queue_keys)}
    return ConsumerState(len(queue_keys), MappingProxyType(offsets))


def replica_table(own: pre_online.Table, queue_keys: list[QueueKey], shift: int) -> pre_online.Table:
    """`own` with every tenth key (from `shift` on) further on."""
    ahead = {k: pre_online.Progress(committed=own[k].committed + 50) for k in queue_keys[shift::10]}
    return MappingProxyType({**own, **ahead})


def escaped(queue_keys: list[QueueKey], n: int, home: str, origin: int) -> list[pre_online.Escaped]:
    """`n` forward offset commits of `home`'s queues, as an acting replica `origin` escaped them."""
    step = max(1, len(queue_keys) // n)
    return [
        pre_online.Escaped(
            home,
            pre_online.EscapeKey(origin, 2, i),
            pre_online.Version(),
            OffsetCommitted(queue_keys[(i * step) % len(queue_keys)], 1000 + 997 + i % 7, BASE_MS + i),
        )
        for i in range(n)
    ]


def timed(repeat: int, run: Callable[[], T]) -> tuple[float, T]:
    """The median seconds of `repeat` runs, and the last run's result."""
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    assert result is not None
    return statistics.median(times), result


def merge(
    own: pre_online.Table, replicas: list[pre_online.Table], changes: list[pre_online.Escaped]
) -> pre_online.PreOnline:
    sources = [f"replica-{i}" for i in range(len(replicas))] + ["escape"]
    pre = pre_online.start(HOME, own, frozenset(), sources)
    for i, table in enumerate(replicas):
        pre = pre_online.take_replica(pre, f"replica-{i}", table)
    pre = pre_online.take_escaped(pre, "escape", changes)
    pre = pre_online.take_escaped(pre, "escape", changes)  # the escape master's answer retried: nothing changes
    assert pre_online.online(pre)
    return pre


def check(pre: pre_online.PreOnline, tables: list[pre_online.Table], changes: list[pre_online.Escaped]) -> None:
    expected = {k: max(t[k].committed for t in tables) for k in tables[0]}
    for e in changes:
        if e.home == HOME:
            assert isinstance(e.change, OffsetCommitted)
            expected[e.change.queue] = max(expected[e.change.queue], e.change.offset)
    got = {k: p.committed for k, p in pre.table.items()}
    if got != expected:
        raise SystemExit("the merged table is not the largest committed offset of every source")
    if pre.applied != {e.key for e in changes if e.home == HOME}:
        raise SystemExit("the applied keys are not exactly this set's escaped changes")


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--offsets", type=int, default=100_000, help="queue keys with a committed offset")
    parser.add_argument("--escaped", type=int, default=10_000, help="escaped offset commits of this set")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (the median is shown)")


def main() -> None:
    args = parse_args(__doc__, options)
    n, m, repeat = (5_000, 500, 2) if args.quick else (args.offsets, args.escaped, args.repeat)
    queue_keys = keys(n)
    state = own_state(queue_keys)
    encoded = snapshot.encode(snapshot.Snapshot(1 << 20, state))
    decode_s, decoded = timed(repeat, lambda: snapshot.decode(encoded))
    assert decoded.state == state
    progress_s, own = timed(repeat, lambda: pre_online.progress_of(state))
    replicas = [replica_table(own, queue_keys, 0), replica_table(own, queue_keys, 5)]
    changes = escaped(queue_keys, m, HOME, origin=2) + escaped(queue_keys, m, OTHER, origin=3)
    merge_s, pre = timed(repeat, lambda: merge(own, replicas, changes))
    check(pre, [own, *replicas], changes)
    print(f"pre-online merge of {n} offsets, 2 replica tables, {m} escaped changes (+{m} of another set), "
          f"median of {repeat}; {machine_note()}")  # fmt: skip
    rows = [
        ("baseline: snapshot decode of the own table", f"{decode_s * 1000:.0f}", "1.00×"),
        ("progress_of (own state as versioned progress)", f"{progress_s * 1000:.0f}", f"{progress_s / decode_s:.2f}×"),
        ("merge: 2 replicas + escaped changes twice", f"{merge_s * 1000:.0f}", f"{merge_s / decode_s:.2f}×"),
    ]
    print_table("pre-online", ["step", "ms", "× baseline"], rows)


if __name__ == "__main__":
    main()
