"""SnapshotKeeper: one replica's consumer-state snapshot file, cut on a schedule at the confirmOffset.

Every ``flushConsumerOffsetInterval`` ms, on a master and a slave alike, a thread reads the consumer-state records
stored since the last snapshot up to the confirmOffset, rounded down to a record boundary (a promoted slave cuts the
partial record a confirmOffset may end inside), and writes the new snapshot over the file with ``atomic_write``.
Should the log still be cut back below the snapshot (``MessageStore.truncations``), the snapshot is set aside and
the state rebuilt from the log as it now is: the records in the cut range's place reuse the cut ones' numbers, and
the snapshot would hide them as replays. Its covered offset is the ``retained`` floor retention obeys, so the
log below it may go and a rebuild (``log_records`` from the snapshot on) never needs what went. A snapshot is
written when records were applied, or when the covered offset would move a quarter segment, so that retention is
not held back by a log of data messages only.

A replica whose log does not start at offset 0 and has no usable snapshot (a replaced disk, a slave that synced
from the master's first file, a damaged file set aside) asks the master for its snapshot (``GetConsumerSnapshot``,
through `fetch`): the master's retention never deletes above its snapshot, so the snapshot covers an offset at or
after where the replica's log starts, and the log from there on rebuilds the rest. Until it has one (the master
unreachable, or this replica not yet caught up to the snapshot's offset; every run tries again) consumer state is
refused with the reason, since a state rebuilt from part of the log would redeliver what was acked. A replica whose
log starts at 0 rebuilds from the log alone.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from agents.broker.periodic import Periodic
from agents.config import BrokerConfig
from agents.consumer import snapshot
from agents.consumer.errors import StateFormatError
from agents.consumer.records import SYSTEM_TOPIC, StateRecord, from_message
from agents.errors import AgentError
from agents.ha.replica import Replica
from agents.ha.role import Role
from agents.store.layout import CONSUMER_SNAPSHOT, STORE_DIR
from agents.store.message_store import MessageStore
from mqbase.client import AgentClient
from mqbase.codes import ResponseCode
from mqbase.errors import MqError
from mqbase.files import atomic_write
from mqbase.proto import agent_pb2
from mqbase.security import ClientSecurity

log = logging.getLogger(__name__)

PAGE = 4096
"""Records read per store call while rebuilding (the store lock is held for one page)."""
MAX_PAGE_BYTES = 3 * 1024 * 1024
"""Largest page of snapshot bytes one GetConsumerSnapshot or GetConsumerState answers: the page and the answer's
other fields stay below gRPC's default 4 MiB message limit, which a client enforces on what it receives."""


class ConsumerStateUnavailable(AgentError, RuntimeError):
    """The replica cannot know its consumer state (a damaged snapshot and a log that no longer starts at 0)."""


def log_records(store: MessageStore, from_offset: int) -> Iterator[tuple[int, int, StateRecord]]:
    """(commit-log offset, size, record) of every consumer-state record stored at or after `from_offset`."""
    while True:
        page = store.records_from(SYSTEM_TOPIC, 0, from_offset, PAGE)
        for offset, size, message in page:
            for record in from_message(message):
                yield offset, size, record
        if len(page) < PAGE:
            return
        from_offset = page[-1][0] + page[-1][1]


class SnapshotKeeper(Periodic):
    """The snapshot of one broker's replica; `replica` and `config` are read afresh at every run."""

    def __init__(
        self,
        replica: Callable[[], Replica | None],
        config: Callable[[], BrokerConfig],
        fetch: Callable[[], bytes | None] = lambda: None,
    ) -> None:
        """`fetch`: the set's master's latest snapshot bytes, or None when it cannot be had now."""
        name = config().broker_name
        super().__init__(
            f"snapshots-{name}",
            lambda: config().flush_consumer_offset_interval / 1000,
            f"broker {name}: consumer-state snapshot",
        )
        self._replica = replica
        self._config = config
        self._fetch = fetch
        self._lock = threading.Lock()
        self._loaded_for: Replica | None = None
        self._truncations_seen = 0
        self._latest: snapshot.Snapshot | None = None
        self._encoded = b""
        self._problem = ""

    def retained_floor(self) -> int:
        """Retention keeps the log from here on: the latest snapshot's covered offset (0 without one)."""
        with self._lock:
            return snapshot.retained_floor(self._latest)

    def last(self) -> snapshot.Snapshot | None:
        """The snapshot last read or cut (None before the first), without touching the file (for metrics)."""
        with self._lock:
            return self._latest

    def page(self, position: int, max_bytes: int) -> tuple[int, int, bytes] | None:
        """(covered, total size, bytes from `position`) of the latest snapshot, for a replica that asks; None
        without one."""
        with self._lock:
            if self._latest is None:
                return None
            size = max(0, min(max_bytes, MAX_PAGE_BYTES))
            return self._latest.covered, len(self._encoded), self._encoded[max(0, position) : max(0, position) + size]

    def latest(self, replica: Replica) -> snapshot.Snapshot | None:
        """The latest durable snapshot of `replica` (None: none yet, read the log from its start);
        `ConsumerStateUnavailable` when neither a snapshot nor the whole log is there."""
        with self._lock:
            self._load(replica)
            if self._problem:
                raise ConsumerStateUnavailable(self._problem)
            return self._latest

    def run_once(self) -> snapshot.Snapshot | None:
        """Cut a snapshot now if one is due; the latest one after it."""
        replica = self._replica()
        if replica is None or replica.position.role is Role.FENCED:
            return None
        with self._lock:
            self._load(replica)
            if self._problem:
                return None
            base, store = self._latest, replica.store
            start = base.covered if base else 0
            new = snapshot.advance(base, log_records(store, start), store.confirmed_boundary())
            moved = new.covered - start >= store.segment_size // 4
            if new.state.seq == (base.state.seq if base else 0) and not moved and base is not None:
                return base
            self._save(replica, new, snapshot.encode(new))
            return new

    def _save(self, replica: Replica, new: snapshot.Snapshot, encoded: bytes) -> None:
        atomic_write(self._path(replica), encoded)
        self._latest, self._encoded = new, encoded

    def _path(self, replica: Replica) -> Path:
        return replica.root / STORE_DIR / CONSUMER_SNAPSHOT

    def _load(self, replica: Replica) -> None:
        """Read the file once per replica, again while a problem is unsolved, and again once the log was cut below
        the snapshot (caller holds the lock). Truncations are counted per replica: the first look at a replica's
        file weighs every cut since its store opened, later looks only the cuts since the one before."""
        if self._loaded_for is not replica:
            self._loaded_for, self._truncations_seen = replica, 0
            self._read(replica)
        elif self._problem:
            self._read(replica)
        if self._cut_below(replica):
            self._read(replica)

    def _read(self, replica: Replica) -> None:
        """The replica's snapshot file, else (a log that does not start at 0) the master's (caller holds the lock)."""
        self._latest, self._encoded, self._problem = None, b"", ""
        path = self._path(replica)
        try:
            encoded = path.read_bytes()
            loaded = snapshot.decode(encoded)
        except FileNotFoundError:
            loaded = None
        except (OSError, StateFormatError) as exc:
            log.error("%s: consumer-state snapshot %s is unusable (%s); it is set aside", replica.root, path, exc)
            path.rename(path.with_name(path.name + ".damaged"))
            loaded = None
        store = replica.store
        if loaded is not None and loaded.covered > store.last_message_boundary():
            log.error("%s: consumer-state snapshot covers offset %d, past the log's end %d; it is set aside",
                      replica.root, loaded.covered, store.last_message_boundary())  # fmt: skip
            path.rename(path.with_name(path.name + ".damaged"))
            loaded = None
        if loaded is None and store.min_offset > 0:
            self._problem = self._from_master(replica) or ""
            return
        if loaded is not None:
            self._latest, self._encoded = loaded, encoded

    def _cut_below(self, replica: Replica) -> bool:
        """Whether a truncation since the last look cut the log below the latest snapshot's covered offset; such a
        snapshot holds records of a history the log no longer has (a confirmOffset that a deposed master or its
        slave reached alone), and the records now in their place would be skipped as replays of its numbers. It is
        set aside, so the state is rebuilt from the log as it now is (caller holds the lock)."""
        cuts = replica.store.truncations()
        new, self._truncations_seen = cuts[self._truncations_seen :], len(cuts)
        latest = self._latest
        if latest is None or not (below := [c for c in new if c < latest.covered]):
            return False
        path = self._path(replica)
        log.error("%s: the log was cut back to %d, below the consumer-state snapshot at %d; it is set aside",
                  replica.root, min(below), latest.covered)  # fmt: skip
        if path.exists():
            path.rename(path.with_name(path.name + ".truncated"))
        self._latest, self._encoded = None, b""
        return True

    def _from_master(self, replica: Replica) -> str | None:
        """Take the master's snapshot as this replica's; why not, or None once it did."""
        store, path = replica.store, self._path(replica)
        why = (
            f"no usable consumer-state snapshot, and the commit log starts at {store.min_offset}, not 0: the consumer "
            "offsets and POP state cannot be rebuilt from it"
        )
        encoded = self._fetch()
        try:
            fetched = snapshot.decode(encoded) if encoded is not None else None
        except StateFormatError as exc:
            fetched, why = None, f"{why}; the master's snapshot is unusable ({exc})"
        if fetched is not None and store.min_offset <= fetched.covered <= store.last_message_boundary():
            assert encoded is not None
            self._save(replica, fetched, encoded)
            self._truncations_seen = len(store.truncations())  # the master's snapshot is of the log as it is now
            log.info("%s: took the master's consumer-state snapshot at offset %d", replica.root, fetched.covered)
            return None
        if fetched is not None:
            span = f"{store.min_offset}..{store.last_message_boundary()}"
            why = f"{why}; the master's snapshot covers offset {fetched.covered}, outside this log's {span}"
        log.warning("%s: %s", replica.root, why)
        return (
            f"{why}; it is taken from the set's master once it can be (restore the file {path}, or copy the store "
            "of an in-sync replica)"
        )


def fetch_snapshot(address: str, broker_name: str, security: ClientSecurity) -> bytes | None:
    """The consumer-state snapshot of set `broker_name`'s master at `address`, page by page (GetConsumerSnapshot);
    None when it cannot be had now (the master has none, changed it while read, or is unreachable)."""
    ref = agent_pb2.BrokerRef(broker_name=broker_name)
    pages: list[bytes] = []
    covered: int | None = None
    try:
        with AgentClient(timeout=10.0, security=security) as client:
            while True:
                request = agent_pb2.GetConsumerSnapshotRequest(
                    broker=ref, position=sum(map(len, pages)), max_bytes=MAX_PAGE_BYTES
                )
                r = client.call(address, "GetConsumerSnapshot", request)
                if r.code != ResponseCode.SUCCESS or (covered is not None and r.covered != covered):
                    log.info("%s: no consumer-state snapshot from the master %s: %s",
                             broker_name, address, r.remark or "it changed while read; next run")  # fmt: skip
                    return None
                covered = r.covered
                pages.append(r.data)
                if sum(map(len, pages)) >= r.total_bytes or not r.data:
                    return b"".join(pages)
    except MqError as exc:
        log.info("%s: no consumer-state snapshot from the master %s: %s", broker_name, address, exc)
        return None
