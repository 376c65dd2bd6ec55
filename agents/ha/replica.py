"""One broker replica's data plane: its store, its epoch file, and the HA role it currently plays.

Role changes follow Java's ``ReplicasManager``, with these rules: a replica
refuses writes until told its role; ``change_to_master(epoch)``
truncates to the last complete message, records (epoch, maxOffset) in the
epoch file and starts serving slaves; ``change_to_slave(master, epoch)``
fences writes and replicates. A stale epoch (older than the last one in the
epoch file) is refused.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from agents.errors import AgentError
from agents.ha.config import HAConfig
from agents.ha.master_service import Appended, HAMaster, PutResult
from agents.ha.role import Position, Role
from agents.ha.slave_client import HASlave
from agents.ha.sync_state import PutStatus, SyncState
from agents.store.epoch_file import EpochFile
from agents.store.epochs import EpochCache
from agents.store.layout import EPOCH_FILE, STORE_DIR
from agents.store.message_store import MessageStore
from agents.store.record import Message

log = logging.getLogger(__name__)


class StaleEpoch(AgentError, ValueError):
    """A role change carried an epoch older than the replica's last one."""


class EpochFileBook:
    """The epoch cache in memory, written through to the epoch file on every change."""

    def __init__(self, path: Path) -> None:
        self._file = EpochFile(path)
        self._cache = self._file.load()
        self._lock = threading.Lock()

    @property
    def cache(self) -> EpochCache:
        return self._cache

    def replace(self, cache: EpochCache) -> None:
        with self._lock:
            self._file.save(cache)
            self._cache = cache


class Replica:
    """Store + epochs + HA for one broker id."""

    def __init__(self, root: Path, broker_id: int, config: HAConfig, segment_size: int, ha_host: str = "127.0.0.1"):
        self.root = Path(root)
        self.broker_id = broker_id
        self.config = config
        self.ha_host = ha_host
        # The epoch file first: when no copy of it is usable, the store is not opened (nothing written, nothing leaked).
        self.epochs = EpochFileBook(self.root / EPOCH_FILE)
        self.store = MessageStore(self.root / STORE_DIR, segment_size)
        self._trim_epochs_to_log()
        self.position = Position()
        """Replaced whole, once a role change is complete (readers on other threads see both fields agree)."""
        self._changing = False  # a role change is under way, or the replica is closed: writes are refused
        self._master: HAMaster | None = None
        self._slave: HASlave | None = None
        self._lock = threading.RLock()

    def _trim_epochs_to_log(self) -> None:
        """Recovery may have cut the log below where the epoch file says an epoch starts: drop those epochs."""
        cache = self.epochs.cache
        trimmed = cache.truncate_suffix_by_offset(self.store.max_offset + 1)
        if trimmed != cache:
            log.warning("epoch file ran past the recovered log (%d): %s -> %s",
                        self.store.max_offset, cache.pairs(), trimmed.pairs())  # fmt: skip
            self.epochs.replace(trimmed)

    # --- role changes ----------------------------------------------------------------------------

    def _check_epoch(self, epoch: int) -> None:
        last = self.epochs.cache.last_epoch()
        told = self.position.master_epoch
        if epoch < last or epoch < told:
            raise StaleEpoch(f"epoch {epoch} is older than this replica's epoch {max(last, told)}")

    def change_to_master(
        self,
        epoch: int,
        sync_state_set: frozenset[int],
        sync_state_set_epoch: int,
        on_propose: Callable[[frozenset[int]], None],
        ha_port: int = 0,
        admit: Callable[[int], str | None] | None = None,
    ) -> int:
        """Become master in `epoch`; returns the HA port slaves connect to. `admit`: see ``HAMaster``."""
        with self._lock:
            self._check_epoch(epoch)
            if self.position == Position(Role.MASTER, epoch) and self._master is not None:
                return self._master.port
            self._changing = True
            self._stop_ha()
            boundary = self.store.last_message_boundary()
            if boundary < self.store.max_offset:
                log.warning("new master: cutting a partial message %d..%d", boundary, self.store.max_offset)
                self.store.truncate(boundary)
                self.epochs.replace(self.epochs.cache.truncate_suffix_by_offset(boundary))
            cache = self.epochs.cache
            if cache.last_epoch() != epoch:
                self.epochs.replace(cache.append(epoch, self.store.max_offset))
            state = SyncState(self.broker_id, frozenset(sync_state_set | {self.broker_id}), sync_state_set_epoch)
            self._master = HAMaster(self.store, lambda: self.epochs.cache, state, self.config, on_propose, admit=admit)
            port = self._master.start(self.ha_host, ha_port)
            self.position = Position(Role.MASTER, epoch)
            self._changing = False
            log.info("broker %d is master in epoch %d from offset %d", self.broker_id, epoch, self.store.max_offset)
            return port

    def change_to_slave(self, master_ha_address: str, epoch: int) -> None:
        """Follow the master of `epoch` at `master_ha_address`; writes are fenced from now on."""
        with self._lock:
            self._check_epoch(epoch)
            self._changing = True
            if self._master is not None:
                self._master.stop()
                self._master = None
            if self._slave is None:
                self._slave = HASlave(self.store, self.epochs, self.broker_id, self.config)
                self._slave.start(master_ha_address)
            else:
                self._slave.set_master(master_ha_address)
            self.position = Position(Role.SLAVE, epoch)
            self._changing = False

    # --- data ------------------------------------------------------------------------------------

    @property
    def master(self) -> HAMaster | None:
        return self._master

    @property
    def slave(self) -> HASlave | None:
        return self._slave

    def put(self, messages: Sequence[Message]) -> PutResult:
        """Write on the master; a slave or fenced replica (or one changing its role) refuses without writing."""
        return self.append(messages).settle()

    def append(self, messages: Sequence[Message]) -> Appended | PutResult:
        """``put``'s append alone (``HAMaster.append``): the `Appended` is settled by the caller."""
        master, role, changing = self._master, self.position.role, self._changing
        if changing or role is not Role.MASTER or master is None:
            return PutResult(
                PutStatus.SLAVE_NOT_AVAILABLE
                if role is Role.SLAVE and not changing
                else PutStatus.SERVICE_NOT_AVAILABLE
            )
        return master.append(messages)

    def delete_before(self, offset: int) -> int:
        """Retention: drop whole segments below `offset` and the epochs that now cover nothing; the new minimum."""
        with self._lock:
            new_min = self.store.delete_before(offset)
            cache = self.epochs.cache
            trimmed = cache.truncate_prefix_by_offset(new_min)
            if trimmed != cache:
                self.epochs.replace(trimmed)
            return new_min

    def _stop_ha(self) -> None:
        if self._master is not None:
            self._master.stop()
            self._master = None
        if self._slave is not None:
            self._slave.stop()
            self._slave = None

    def close(self) -> None:
        with self._lock:
            self._changing = True
            self._stop_ha()
            self.store.close()
