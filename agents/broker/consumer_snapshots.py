"""SnapshotKeeper: one replica's consumer-state snapshot file, cut on a schedule at the confirmOffset.

Every ``flushConsumerOffsetInterval`` ms, on a master and a slave alike, a thread reads the consumer-state records
stored since the last snapshot up to the confirmOffset (which no truncation ever undoes) and writes the new
snapshot over the file with ``atomic_write``. Its covered offset is the ``retained`` floor retention obeys, so the
log below it may go and a rebuild (``log_records`` from the snapshot on) never needs what went. A snapshot is
written when records were applied, or when the covered offset would move a quarter segment, so that retention is
not held back by a log of data messages only.

A snapshot file that cannot be read is set aside: the log is read from its start instead while that start is
still offset 0; once retention has deleted some of it, consumer state is refused with the reason, since a state
rebuilt from part of the log would redeliver what was acked.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from agents.config import BrokerConfig
from agents.consumer import snapshot
from agents.consumer.errors import StateFormatError
from agents.consumer.records import SYSTEM_TOPIC, StateRecord, from_message
from agents.errors import AgentError
from agents.ha.replica import Replica
from agents.ha.role import Role
from agents.store.layout import CONSUMER_SNAPSHOT, STORE_DIR
from agents.store.message_store import MessageStore
from mqbase.files import atomic_write

log = logging.getLogger(__name__)

PAGE = 4096
"""Records read per store call while rebuilding (the store lock is held for one page)."""


class ConsumerStateUnavailable(AgentError, RuntimeError):
    """The replica cannot know its consumer state (a damaged snapshot and a log that no longer starts at 0)."""


def log_records(store: MessageStore, from_offset: int) -> Iterator[tuple[int, int, StateRecord]]:
    """(commit-log offset, size, record) of every consumer-state record stored at or after `from_offset`."""
    while True:
        page = store.records_from(SYSTEM_TOPIC, 0, from_offset, PAGE)
        for offset, size, message in page:
            record = from_message(message)
            if record is not None:
                yield offset, size, record
        if len(page) < PAGE:
            return
        from_offset = page[-1][0] + page[-1][1]


class SnapshotKeeper:
    """The snapshot of one broker's replica; `replica` and `config` are read afresh at every run."""

    def __init__(self, replica: Callable[[], Replica | None], config: Callable[[], BrokerConfig]) -> None:
        self._replica = replica
        self._config = config
        self._lock = threading.Lock()
        self._loaded_for: Replica | None = None
        self._latest: snapshot.Snapshot | None = None
        self._problem = ""
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"snapshots-{config().broker_name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def retained_floor(self) -> int:
        """Retention keeps the log from here on: the latest snapshot's covered offset (0 without one)."""
        with self._lock:
            return snapshot.retained_floor(self._latest)

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
            new = snapshot.advance(base, log_records(store, start), store.confirm_offset)
            moved = new.covered - start >= store.segment_size // 4
            if new.state.seq == (base.state.seq if base else 0) and not moved and base is not None:
                return base
            atomic_write(self._path(replica), snapshot.encode(new))
            self._latest = new
            return new

    def _path(self, replica: Replica) -> Path:
        return replica.root / STORE_DIR / CONSUMER_SNAPSHOT

    def _load(self, replica: Replica) -> None:
        """Read the file once per replica (caller holds the lock)."""
        if self._loaded_for is replica:
            return
        self._loaded_for, self._latest, self._problem = replica, None, ""
        path = self._path(replica)
        try:
            loaded = snapshot.decode(path.read_bytes())
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
            self._problem = (
                f"no usable consumer-state snapshot, and the commit log starts at {store.min_offset}, not 0: "
                "the consumer offsets and POP state cannot be rebuilt; restore the snapshot file "
                f"{path} or copy the store of an in-sync replica"
            )
            log.error("%s: %s", replica.root, self._problem)
        self._latest = loaded

    def _loop(self) -> None:
        while not self._stopped.wait(self._config().flush_consumer_offset_interval / 1000):
            try:
                self.run_once()
            except Exception:  # a failed cut (a full disk) must not end snapshots: the next run tries again
                log.exception("broker %s: consumer-state snapshot failed", self._config().broker_name)
