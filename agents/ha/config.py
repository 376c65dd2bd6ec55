"""HA settings of one broker replica (RocketMQ MessageStoreConfig names in the comments)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HAConfig:
    """Replication and acknowledgement knobs; times in seconds."""

    batch_size: int = 32 * 1024  # haTransferBatchSize
    heartbeat_interval_s: float = 5.0  # haSendHeartbeatInterval
    housekeeping_s: float = 20.0  # haHousekeepingInterval
    max_not_catchup_s: float = 15.0  # haMaxTimeSlaveNotCatchup
    check_sync_state_set_s: float = 1.0  # checkSyncStateSetPeriod: how often the master looks for a slave to shrink
    max_bytes_per_s: int = 100 * 1024 * 1024  # maxHaTransferByteInSecond
    all_ack_in_sync_state_set: bool = False  # allAckInSyncStateSet
    in_sync_replicas: int = 1  # inSyncReplicas
    min_in_sync_replicas: int = 1  # minInSyncReplicas
    sync_flush_timeout_s: float = 5.0  # syncFlushTimeout
    async_learner: bool = False  # asyncLearner
    sync_from_last_file: bool = False  # syncFromLastFile
    reconnect_backoff_s: tuple[float, float] = (0.01, 5.0)  # first and longest wait between reconnects
