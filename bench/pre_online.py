"""Pre-online merge time for a broker set with 100 k consumer offsets, against the rebuild a new master
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
and the applied keys exactly this set's escaped ones.
End to end on a real store (once, in a temp directory): ``Consumers`` over a real master ``Replica`` whose log
holds the same committed offsets as consumer-state records (``OffsetCommitted`` messages of
``rmq_sys_CONSUMER_STATE``, 256 records per message); timed: its first ``take_back.phase`` (the state rebuilt from
the log), ``take_back.merge`` with the two replicas' states and this set's escaped changes (the merge plus the
``QueueMerged`` records appended and settled), and ``state_page`` read page by page to the end
(``GetConsumerState``'s encoding and paging), each against the baseline above. What is not in these figures: the
RPCs that fetch the tables and escaped changes, whose cost is that of moving the same bytes as the pages.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar

from _common import machine_note, parse_args, print_table

from agents.broker import take_back
from agents.broker.consumer_checks import Refused
from agents.broker.consumer_snapshots import MAX_PAGE_BYTES, SnapshotKeeper
from agents.broker.consumers import Consumers
from agents.config import BrokerConfig
from agents.consumer import pre_online, snapshot
from agents.consumer.records import Escaped, OffsetCommitted, StateRecord, to_message
from agents.consumer.state import Committed, ConsumerState
from agents.ha.config import HAConfig
from agents.ha.master_service import Appended, PutResult
from agents.ha.replica import Replica
from agents.ha.sync_state import PutStatus
from agents.metadata import MetadataTable
from agents.pop.model import QueueKey
from agents.store.record import Message
from mqbase.clock import SYSTEM
from mqbase.codes import ResponseCode

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


RECORDS_PER_MESSAGE, MESSAGES_PER_PUT = 256, 16


class Host:
    """The service's broker: one master replica of a set of one, no escape (it is the returning master)."""

    def __init__(self, root: Path) -> None:
        config = BrokerConfig(broker_name=HOME, store_path_root_dir=str(root), enable_slave_acting_master=True)
        self.config = replace(config, controller_addr=("x:1",))
        self.replica: Replica | None = Replica(root, 1, HAConfig(), 1 << 30)
        self.replica.change_to_master(1, frozenset({1}), 1, lambda _s: None)
        self.metadata = MetadataTable()
        self.broker_id = 1
        self.acting_since_ms = 0

    def append(self, messages: Sequence[Message]) -> Appended | PutResult:
        assert self.replica is not None
        return self.replica.append(messages)

    def master_address(self) -> str:
        return ""

    def lock_queues(self, keys: Sequence[QueueKey]) -> frozenset[QueueKey]:
        return frozenset(keys)

    def dead_letters_stored(self, topics: frozenset[str]) -> None:
        raise AssertionError("this benchmark makes no dead letter")

    def escape(self, changes: Sequence[Escaped], copies: Sequence[Message], serving: Callable[[str], bool]) -> str:
        raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, "a master escapes nothing")


def write_offsets(replica: Replica, state: ConsumerState) -> None:
    """`state`'s committed offsets as the consumer-state records a master's log holds."""
    records = [
        StateRecord(i, OffsetCommitted(k, c.offset, c.timestamp_ms))
        for i, (k, c) in enumerate(state.offsets.items(), 1)
    ]
    messages = [
        to_message(records[i : i + RECORDS_PER_MESSAGE], BASE_MS) for i in range(0, len(records), RECORDS_PER_MESSAGE)
    ]
    for i in range(0, len(messages), MESSAGES_PER_PUT):
        assert replica.put(messages[i : i + MESSAGES_PER_PUT]).status is PutStatus.PUT_OK


def end_to_end(
    state: ConsumerState, replicas: list[ConsumerState], changes: list[pre_online.Escaped]
) -> dict[str, float]:
    """Seconds of the rebuild, the take-back and the paged state read on a real store, the take-back checked."""
    with tempfile.TemporaryDirectory(prefix="bench-pre-online-") as tmp:
        host = Host(Path(tmp))
        assert host.replica is not None
        try:
            write_offsets(host.replica, state)
            service = Consumers(host, SnapshotKeeper(lambda: host.replica, lambda: host.config), SYSTEM)
            started = time.perf_counter()
            phase = take_back.phase(service.ledger)
            rebuilt = time.perf_counter()
            assert phase is not None and phase[1], "a new master starts in pre-online"
            released = take_back.merge(service.ledger, phase[0], replicas, {"escape": changes})
            taken = time.perf_counter()
            assert sorted(released["escape"]) == sorted(e.key for e in changes if e.home == HOME)
            assert not service.ledger.pre_online
            position, size, pages = 0, 1, 0
            while position < size:
                _, size, page = service.ledger.state_page(position, MAX_PAGE_BYTES)
                position, pages = position + len(page), pages + 1
            paged = time.perf_counter()
            merged = service.ledger.state_now()
            for table in replicas:
                for k, c in table.offsets.items():
                    if merged.offsets[k].offset < c.offset:
                        raise SystemExit("the take-back lost a replica's committed offset")
        finally:
            host.replica.close()
    return {
        "rebuild": rebuilt - started,
        "take_back": taken - rebuilt,
        "pages": paged - taken,
        "bytes": size,
        "n": pages,
    }


def replica_state(state: ConsumerState, queue_keys: list[QueueKey], shift: int) -> ConsumerState:
    """`state` with every tenth key (from `shift` on) further on, as a replica's ``GetConsumerState`` answers."""
    ahead = {k: Committed(state.offsets[k].offset + 50, BASE_MS) for k in queue_keys[shift::10]}
    return ConsumerState(state.seq, MappingProxyType({**state.offsets, **ahead}))


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
    states = [replica_state(state, queue_keys, 0), replica_state(state, queue_keys, 5)]
    e2e = end_to_end(state, states, changes)
    print(f"end to end on a real store (once): {n} committed offsets as records, take_back.merge of 2 replica states "
          f"and {m} escaped changes; state_page: {e2e['bytes']:.0f} bytes in {e2e['n']:.0f} page(s)")  # fmt: skip
    rows = [
        ("baseline: snapshot decode of the own table", f"{decode_s * 1000:.0f}", "1.00×"),
        *(
            (what, f"{e2e[k] * 1000:.0f}", f"{e2e[k] / decode_s:.2f}×")
            for what, k in (
                ("first take_back.phase (state rebuilt from the log)", "rebuild"),
                ("take_back.merge (merge + QueueMerged records appended)", "take_back"),
                ("state_page to the end (encode + pages)", "pages"),
            )
        ),
    ]
    print_table("pre-online end to end", ["step", "ms", "× baseline"], rows)


if __name__ == "__main__":
    main()
