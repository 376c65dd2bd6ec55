"""Configuration of ``mqagent``: its own ``agent.conf``, and one properties file per hosted broker replica.

Keys keep RocketMQ's Java names (``BrokerConfig`` and ``MessageStoreConfig``), and durations are milliseconds,
as in Java. A file with an unknown key or a bad value is refused with a message naming the file and the key:
nothing starts on a config that is half understood. Relative paths in a file are resolved against the
directory of that file, so an agent behaves the same whatever its working directory.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import controller.config as controller_config
from agents.consumer.locks import REBALANCE_LOCK_MAX_LIVE_TIME_MS
from agents.delay.timer import DEFAULT_MAX_DELAY_SEC
from agents.ha.acting import BROKER_NOT_ACTIVE_TIMEOUT_MS, ActingPolicy
from agents.ha.config import HAConfig
from agents.ha.retention import Policy, parse_delete_when
from agents.identity import IDENTITY_FILE
from agents.store.commitlog import MAX_SEGMENT_SIZE
from agents.store.layout import EPOCH_FILE
from agents.store.record import BLANK_SIZE, MAX_RECORD_SIZE
from controller.config import METRICS_EXPORTER_TYPES, ControllerConfig
from mqbase.configkeys import (
    ConfigError,
    Parser,
    address_problem,
    camel,
    format_value,
    java_keys,
    millis_problem,
    name_problem,
    parse_bool,
    parse_fields,
    parse_int,
    parse_str,
    unknown_key,
)
from mqbase.properties import PropertiesError, read_properties
from mqbase.security import SECURITY_KEYS, SecurityConfig, parse_security, resolve_paths, security_properties
from mqbase.security import validate_security as _validate_security

log = logging.getLogger(__name__)

INT32_MAX = 2**31 - 1
CQ_UNIT_SIZE = 20
"""Java's ``ConsumeQueue.CQ_STORE_UNIT_SIZE``: mappedFileSizeConsumeQueue is a count of 20-byte entries."""
MIN_COMMIT_LOG_FILE_SIZE = MAX_RECORD_SIZE + BLANK_SIZE
"""A commit-log file must hold one maximum-size message and the blank record that closes the file."""


@dataclass(frozen=True, slots=True)
class BrokerConfig:
    """One hosted broker replica (Java names in ``BROKER_KEYS``; ms where Java uses ms)."""

    broker_cluster_name: str = "DefaultCluster"
    broker_name: str = ""
    broker_ip1: str = field(default="127.0.0.1", metadata={"key": "brokerIP1"})
    broker_ip2: str = field(default="", metadata={"key": "brokerIP2"})
    listen_port: int = 10911
    ha_listen_port: int = 10912
    store_path_root_dir: str = ""
    controller_addr: tuple[str, ...] = ()
    enable_controller_mode: bool = True
    broker_election_priority: int = INT32_MAX
    async_learner: bool = False
    all_ack_in_sync_state_set: bool = False
    in_sync_replicas: int = 1
    min_in_sync_replicas: int = 1
    total_replicas: int = 1
    sync_from_last_file: bool = False
    ha_max_time_slave_not_catchup: int = 15_000
    ha_send_heartbeat_interval: int = 5000
    ha_housekeeping_interval: int = 20_000
    ha_transfer_batch_size: int = 32 * 1024
    max_ha_transfer_byte_in_second: int = 100 * 1024 * 1024
    sync_flush_timeout: int = 5000
    sync_broker_metadata_period: int = 5000
    check_sync_state_set_period: int = 1000
    """How often the master checks whether a slave fell behind (the SyncStateSet shrink); Java's default is 5000."""
    broker_heartbeat_interval: int = 1000
    controller_heart_beat_timeout_mills: int = 10_000
    mapped_file_size_commit_log: int = 1024 * 1024 * 1024
    mapped_file_size_consume_queue: int = 300_000 * CQ_UNIT_SIZE
    file_reserved_time: int = 72
    """Hours a commit-log segment is kept after its last write."""
    delete_when: str = "04"
    """Hours of the day (local time, ``;``-separated) when expired segments are deleted."""
    disk_max_used_space_ratio: int = 75
    disk_space_warning_level_ratio: int = 90
    disk_space_clean_forcibly_ratio: int = 85
    clean_file_forcibly_enable: bool = True
    clean_resource_interval: int = 10_000
    delete_commit_log_files_interval: int = 100
    delete_file_batch_max: int = 10
    flush_consumer_offset_interval: int = 5000
    """How often the consumer-state snapshot is cut at the confirmOffset (Java persists consumer offsets this often)."""
    timer_max_delay_sec: int = DEFAULT_MAX_DELAY_SEC
    """A delayed message whose delivery time is further ahead is refused (Java's default: 3 days)."""
    transaction_time_out: int = 6000
    """An open transaction is first checked back this long (ms) after its half message was stored."""
    transaction_check_interval: int = 30_000
    """An open transaction checked back is checked again this long (ms) later."""
    transaction_check_max: int = 15
    """An open transaction checked back this often is dropped (to TRANS_CHECK_MAX_TIME_TOPIC) at its next turn."""
    auto_create_topic_enable: bool = False
    """Create an unknown topic at the controller on its first send (Java's default is true: we refuse instead,
    so a typo in a producer's topic name is an error, not a new topic; see docs/decisions.md)."""
    enable_slave_acting_master: bool = False
    """RIP-32: with no master in the set, the alive slave with the smallest id serves reads as a read-only master
    (off by default, as in Java; see docs/decisions.md)."""
    broker_not_active_timeout_millis: int = BROKER_NOT_ACTIVE_TIMEOUT_MS
    """How long a master unseen, with no controller to ask, still counts as alive before a slave acts."""
    lock_in_strict_mode: bool = False
    """RIP-32: an orderly queue's lock needs a majority of the set's replicas (Java's default: any one replica,
    which lets two consumers hold a queue when the coordinator moves; see docs/decisions.md)."""
    rebalance_lock_max_live_time: int = REBALANCE_LOCK_MAX_LIVE_TIME_MS
    """An orderly queue's lock expires this long (ms) after it was last taken or renewed."""

    @property
    def acting_policy(self) -> ActingPolicy:
        """The RIP-32 keys as ``acting.decide`` reads them."""
        return ActingPolicy(self.enable_slave_acting_master, self.broker_not_active_timeout_millis)

    @property
    def store_root(self) -> Path:
        return Path(self.store_path_root_dir)

    @property
    def broker_address(self) -> str:
        """The address registered with the controller. With listenPort=0, first replace it by the bound port."""
        return _address("listenPort", self.broker_ip1, self.listen_port)

    @property
    def ha_address(self) -> str:
        """The address slaves replicate from: brokerIP2 (else brokerIP1) and haListenPort, which is bound on
        brokerIP1. With haListenPort=0, first replace it by the bound port."""
        return _address("haListenPort", self.broker_ip2 or self.broker_ip1, self.ha_listen_port)

    @property
    def broker_identity_path(self) -> Path:
        return self.store_root / IDENTITY_FILE

    @property
    def epoch_file_path(self) -> Path:
        return self.store_root / EPOCH_FILE

    @property
    def cq_entries_per_file(self) -> int:
        """Entries per consume-queue file; Java rounds the byte size up to whole entries."""
        return math.ceil(self.mapped_file_size_consume_queue / CQ_UNIT_SIZE)

    def to_ha_config(self) -> HAConfig:
        """The data plane's view; HAConfig's reconnect back-off has no Java key and keeps its default."""
        return HAConfig(
            batch_size=self.ha_transfer_batch_size,
            heartbeat_interval_s=self.ha_send_heartbeat_interval / 1000,
            housekeeping_s=self.ha_housekeeping_interval / 1000,
            max_not_catchup_s=self.ha_max_time_slave_not_catchup / 1000,
            check_sync_state_set_s=self.check_sync_state_set_period / 1000,
            max_bytes_per_s=self.max_ha_transfer_byte_in_second,
            all_ack_in_sync_state_set=self.all_ack_in_sync_state_set,
            in_sync_replicas=self.in_sync_replicas,
            min_in_sync_replicas=self.min_in_sync_replicas,
            sync_flush_timeout_s=self.sync_flush_timeout / 1000,
            async_learner=self.async_learner,
            sync_from_last_file=self.sync_from_last_file,
        )

    def retention_policy(self) -> Policy:
        """The retention keys as the policy reads them (deleteWhen is valid: ``parse_broker`` checked it)."""
        return Policy(
            file_reserved_time_h=self.file_reserved_time,
            delete_when=parse_delete_when(self.delete_when),
            disk_max_used_space_ratio=self.disk_max_used_space_ratio,
            disk_space_warning_level_ratio=self.disk_space_warning_level_ratio,
            disk_space_clean_forcibly_ratio=self.disk_space_clean_forcibly_ratio,
            clean_file_forcibly_enable=self.clean_file_forcibly_enable,
            delete_file_batch_max=self.delete_file_batch_max,
        )

    def to_properties(self) -> dict[str, str]:
        """Java-named text of every key (for -p and GetBrokerConfig); parse_broker reads it back unchanged."""
        return {key: format_value(getattr(self, name)) for key, name in BROKER_KEYS.items()}


def _address(key: str, host: str, port: int) -> str:
    if port == 0:
        raise ValueError(f"{key} is 0 (ephemeral): use dataclasses.replace with the port actually bound")
    return f"{host}:{port}"


def _parse_addresses(key: str, text: str) -> tuple[str, ...]:
    addresses = tuple(t.strip() for t in text.split(";") if t.strip())
    for address in addresses:
        if problem := address_problem(address):
            raise ConfigError(f"{key} entry {problem}")
    if len(set(addresses)) != len(addresses):
        raise ConfigError(f"{key} lists the same address twice: {text.strip()!r}")
    return addresses


_BROKER_PARSERS: dict[str, Parser] = {
    "bool": parse_bool,
    "int": parse_int,
    "str": parse_str,
    "tuple[str, ...]": _parse_addresses,
}

BROKER_KEYS: dict[str, str] = java_keys(BrokerConfig)
"""Java key → BrokerConfig field name."""

_ASSIGNED = "in controller mode the controller assigns it (RocketMQ #6813)"
IGNORED_KEYS: dict[str, str] = {
    "brokerId": _ASSIGNED,
    "brokerRole": _ASSIGNED,
    "syncControllerMetadataPeriod": "the broker's controller client follows the leader on every call, so there is "
    "no leader address to refresh",
    "sendHeartbeatTimeoutMillis": "heartbeats go over a stream to every controller node, so there is no send to "
    "time out",
}
"""Java keys accepted in files so that a Java ``broker.conf`` loads, but ignored, with why (decisions.md, "Java
broker keys that mean nothing here")."""

RETENTION_KEYS = (
    "fileReservedTime",
    "deleteWhen",
    "diskMaxUsedSpaceRatio",
    "diskSpaceWarningLevelRatio",
    "diskSpaceCleanForciblyRatio",
    "cleanFileForciblyEnable",
    "cleanResourceInterval",
    "deleteCommitLogFilesInterval",
    "deleteFileBatchMax",
)
"""The commit-log cleaner reads them at every run, so all may change at run time."""

_RATIO_RANGES = {
    "disk_max_used_space_ratio": (10, 95),
    "disk_space_warning_level_ratio": (35, 90),
    "disk_space_clean_forcibly_ratio": (30, 85),
}
"""Percentages; Java silently clamps to these ranges, we refuse a value outside them."""

RUNTIME_KEYS = frozenset(
    {
        "allAckInSyncStateSet",
        "inSyncReplicas",
        "minInSyncReplicas",
        "totalReplicas",
        "syncFlushTimeout",
        "maxHaTransferByteInSecond",
        "haMaxTimeSlaveNotCatchup",
        "brokerElectionPriority",
        "brokerHeartbeatInterval",
        "syncBrokerMetadataPeriod",
        "checkSyncStateSetPeriod",
        "controllerHeartBeatTimeoutMills",
        "flushConsumerOffsetInterval",
        "timerMaxDelaySec",
        "transactionTimeOut",
        "transactionCheckInterval",
        "transactionCheckMax",
        "autoCreateTopicEnable",
        "enableSlaveActingMaster",
        "brokerNotActiveTimeoutMillis",
        "lockInStrictMode",
        "rebalanceLockMaxLiveTime",
        *RETENTION_KEYS,
    }
)
"""Keys UpdateBrokerConfig may change on a running broker; the others need a restart."""

_POSITIVE = (
    "in_sync_replicas",
    "min_in_sync_replicas",
    "total_replicas",
    "ha_max_time_slave_not_catchup",
    "ha_send_heartbeat_interval",
    "ha_housekeeping_interval",
    "ha_transfer_batch_size",
    "max_ha_transfer_byte_in_second",
    "sync_flush_timeout",
    "sync_broker_metadata_period",
    "check_sync_state_set_period",
    "broker_heartbeat_interval",
    "controller_heart_beat_timeout_mills",
    "mapped_file_size_consume_queue",
    "clean_resource_interval",
    "delete_file_batch_max",
    "flush_consumer_offset_interval",
    "broker_not_active_timeout_millis",
    "timer_max_delay_sec",
    "rebalance_lock_max_live_time",
    "transaction_time_out",
    "transaction_check_interval",
    "transaction_check_max",
)

MILLIS_FIELDS = (
    "ha_max_time_slave_not_catchup",
    "ha_send_heartbeat_interval",
    "ha_housekeeping_interval",
    "sync_flush_timeout",
    "sync_broker_metadata_period",
    "check_sync_state_set_period",
    "broker_heartbeat_interval",
    "controller_heart_beat_timeout_mills",
    "clean_resource_interval",
    "delete_commit_log_files_interval",
    "flush_consumer_offset_interval",
    "broker_not_active_timeout_millis",
    "rebalance_lock_max_live_time",
    "transaction_time_out",
    "transaction_check_interval",
)
"""The periods and timeouts in ms: each at most ``MAX_MILLIS``."""


def _check_port(key: str, port: int) -> None:
    if port > 65535:
        raise ConfigError(f"{key} must be a port number 0-65535 (0 = ephemeral), got {port}")


def _validate_broker(c: BrokerConfig) -> BrokerConfig:
    if not c.enable_controller_mode:
        raise ConfigError("enableControllerMode=false is not supported: mqagent runs brokers in controller mode only")
    if not c.broker_name:
        raise ConfigError("brokerName is required")
    if not c.store_path_root_dir:
        raise ConfigError("storePathRootDir is required")
    if not c.controller_addr:
        raise ConfigError("controllerAddr is required: the controllers' gRPC addresses, host:port;host:port")
    for key, value in (("brokerClusterName", c.broker_cluster_name), ("brokerName", c.broker_name)):
        if problem := name_problem(value):
            raise ConfigError(f"{key} {problem}")
    if problem := name_problem(c.broker_ip1):
        raise ConfigError(f"brokerIP1 {problem}")
    if c.broker_ip2 and (problem := name_problem(c.broker_ip2)):
        raise ConfigError(f"brokerIP2 {problem}")
    if not c.store_root.is_absolute():
        raise ConfigError(f"storePathRootDir must be an absolute path, got {c.store_path_root_dir!r}")
    _check_port("listenPort", c.listen_port)
    _check_port("haListenPort", c.ha_listen_port)
    if c.listen_port and c.listen_port == c.ha_listen_port:
        raise ConfigError(f"haListenPort must differ from listenPort (both {c.listen_port})")
    for name in (*_POSITIVE, *MILLIS_FIELDS, *_RATIO_RANGES, "broker_election_priority"):
        if problem := _value_problem(name, getattr(c, name)):
            raise ConfigError(problem)
    for key, count in (("inSyncReplicas", c.in_sync_replicas), ("minInSyncReplicas", c.min_in_sync_replicas)):
        if count > c.total_replicas:
            raise ConfigError(f"{key} ({count}) must not exceed totalReplicas ({c.total_replicas})")
    if c.ha_housekeeping_interval <= c.ha_send_heartbeat_interval:
        raise ConfigError(
            f"haHousekeepingInterval ({c.ha_housekeeping_interval}) must be more than haSendHeartbeatInterval "
            f"({c.ha_send_heartbeat_interval}), or idle HA connections are closed between heartbeats"
        )
    if c.controller_heart_beat_timeout_mills <= c.broker_heartbeat_interval:
        raise ConfigError(
            f"controllerHeartBeatTimeoutMills ({c.controller_heart_beat_timeout_mills}) must be more than "
            f"brokerHeartbeatInterval ({c.broker_heartbeat_interval}), or the controller expires the broker "
            "between heartbeats"
        )
    if not MIN_COMMIT_LOG_FILE_SIZE <= c.mapped_file_size_commit_log <= MAX_SEGMENT_SIZE:
        raise ConfigError(
            f"mappedFileSizeCommitLog must be {MIN_COMMIT_LOG_FILE_SIZE}-{MAX_SEGMENT_SIZE} bytes (a file holds at "
            f"least one maximum-size message), got {c.mapped_file_size_commit_log}"
        )
    try:
        parse_delete_when(c.delete_when)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    return c


def _value_problem(name: str, value: Any) -> str | None:
    """Why field `name` cannot hold `value` whatever the other keys say, or None."""
    if name in _POSITIVE and value == 0:
        return f"{camel(name)} must be positive"
    if name in MILLIS_FIELDS:
        return millis_problem(name, value)
    if name in _RATIO_RANGES and not _RATIO_RANGES[name][0] <= value <= _RATIO_RANGES[name][1]:
        low, high = _RATIO_RANGES[name]
        return f"{camel(name)} must be {low}-{high} (percent of the disk), got {value}"
    if name == "broker_election_priority" and value > INT32_MAX:
        return f"brokerElectionPriority must be at most {INT32_MAX}, got {value}"
    return None


def check_value(key: str, text: str) -> None:
    """ConfigError when `text` can never be broker key `key`'s value (an unknown key, a value of the wrong type,
    out of its range): what ``mqadmin updateBrokerConfig`` checks before it sends anything. Whether the key may
    change at run time, and the rules between keys, are each broker's to check against its own config."""
    if key in IGNORED_KEYS:
        return  # the broker refuses it: the controller assigns it
    if key not in BROKER_KEYS:
        raise unknown_key(key, BROKER_KEYS)
    [(name, value)] = parse_fields(BrokerConfig, {key: text}, _BROKER_PARSERS).items()
    if problem := _value_problem(name, value):
        raise ConfigError(problem)


def parse_broker(values: Mapping[str, str], base_dir: Path | None = None) -> BrokerConfig:
    """A validated broker config from Java-named `values` (a file's, or a broker added at run time).

    A relative storePathRootDir is resolved against `base_dir`; without one it must be absolute.
    """
    for key in sorted(IGNORED_KEYS.keys() & values.keys()):
        log.warning("%s=%s ignored: %s", key, values[key], IGNORED_KEYS[key])
    own = {k: v for k, v in values.items() if k not in IGNORED_KEYS}
    config = replace(BrokerConfig(), **parse_fields(BrokerConfig, own, _BROKER_PARSERS))
    if config.store_path_root_dir:
        root = Path(config.store_path_root_dir).expanduser()
        config = replace(config, store_path_root_dir=str(base_dir / root if base_dir else root))
    return _validate_broker(config)


def with_overrides(config: BrokerConfig, values: Mapping[str, str]) -> BrokerConfig:
    """`config` with UpdateBrokerConfig's Java-named `values` applied and validated; only RUNTIME_KEYS may change."""
    ignored = sorted(IGNORED_KEYS.keys() & values.keys())
    if ignored:
        raise ConfigError(f"{ignored[0]} cannot be set: {IGNORED_KEYS[ignored[0]]}")
    for key in values:
        if key not in BROKER_KEYS:
            raise unknown_key(key, BROKER_KEYS)
    fixed = sorted(values.keys() - RUNTIME_KEYS)
    if fixed:
        raise ConfigError(f"{', '.join(fixed)} cannot change at run time: edit the broker config file and restart")
    return _validate_broker(replace(config, **parse_fields(BrokerConfig, values, _BROKER_PARSERS)))


def load_broker(path: str | Path) -> BrokerConfig:
    """Read and validate one broker's properties file."""
    p = Path(path).expanduser().absolute()
    try:
        return parse_broker(read_properties(p), p.parent)
    except PropertiesError as exc:
        raise ConfigError(str(exc)) from exc
    except ConfigError as exc:
        raise ConfigError(f"{p}: {exc}") from exc


# --- agent.conf ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """The agent process (Java-style names in ``AGENT_KEYS``); paths are absolute once loaded."""

    listen_host: str = "127.0.0.1"
    listen_port: int = 10920
    enable_proxy: bool = True
    """Serve the RocketMQ 5 gRPC access point (``agents.access``), as Java's ``mqbroker --enable-proxy``."""
    proxy_listen_port: int = 8081
    """The access point's port (Java's proxy ``grpcServerPort``); 0 = an ephemeral one."""
    broker_config_paths: tuple[Path, ...] = ()
    agent_store_path: Path = Path("~/mqagent")
    metrics_exporter_type: str = "DISABLE"
    metrics_prom_exporter_port: int = 5558
    enable_controller_in_agent: bool = False
    controller_config: ControllerConfig | None = field(default=None, metadata={"key": None})
    """The embedded controller's config when enableControllerInAgent=true (its keys sit in agent.conf)."""
    security: SecurityConfig = field(default=SecurityConfig(), metadata={"key": None})
    """TLS and access control of every port of the agent and of its calls (``SECURITY_KEYS``); an embedded
    controller shares it."""

    def to_properties(self) -> dict[str, str]:
        """Java-named text of every key, the embedded controller's included, secrets masked (for -p)."""
        own = {key: format_value(getattr(self, name)) for key, name in AGENT_KEYS.items()}
        embedded = controller_config.to_properties(self.controller_config) if self.controller_config else {}
        return embedded | own | security_properties(self.security)


def _parse_paths(_key: str, text: str) -> tuple[Path, ...]:
    return tuple(Path(t.strip()) for t in text.split(";") if t.strip())


def _parse_path(key: str, text: str) -> Path:
    if not text.strip():
        raise ConfigError(f"{key} must not be empty")
    return Path(text.strip())


_AGENT_PARSERS: dict[str, Parser] = {
    "bool": parse_bool,
    "int": parse_int,
    "str": parse_str,
    "Path": _parse_path,
    "tuple[Path, ...]": _parse_paths,
}

AGENT_KEYS: dict[str, str] = java_keys(AgentConfig)
"""Java-style key → AgentConfig field name. They win over a controller key of the same name (metrics*)."""


def _embedded_keys() -> frozenset[str]:
    return frozenset(controller_config.KEYS) - AGENT_KEYS.keys() - SECURITY_KEYS.keys()


def _validate_agent(c: AgentConfig) -> AgentConfig:
    if not c.listen_host:
        raise ConfigError("listenHost must not be empty")
    _check_port("listenPort", c.listen_port)
    _check_port("proxyListenPort", c.proxy_listen_port)
    if c.enable_proxy and c.proxy_listen_port and c.proxy_listen_port == c.listen_port:
        raise ConfigError(f"proxyListenPort must differ from listenPort (both {c.listen_port})")
    _check_port("metricsPromExporterPort", c.metrics_prom_exporter_port)
    if c.metrics_exporter_type not in METRICS_EXPORTER_TYPES:
        raise ConfigError(
            f"metricsExporterType must be one of {', '.join(METRICS_EXPORTER_TYPES)}, got {c.metrics_exporter_type!r}"
        )
    if c.metrics_exporter_type == "PROM" and c.listen_port and c.listen_port == c.metrics_prom_exporter_port:
        raise ConfigError(f"metricsPromExporterPort must differ from listenPort (both {c.listen_port})")
    if len(set(c.broker_config_paths)) != len(c.broker_config_paths):
        raise ConfigError("brokerConfigPaths lists the same file twice")
    _validate_security(c.security)
    return c


def parse_agent(values: Mapping[str, str], base_dir: Path) -> AgentConfig:
    """A validated agent config; relative paths are resolved against `base_dir` (the agent.conf directory)."""
    embedded_keys = _embedded_keys()
    for key in values:
        if key not in AGENT_KEYS and key not in embedded_keys and key not in SECURITY_KEYS:
            raise unknown_key(key, [*AGENT_KEYS, *embedded_keys, *SECURITY_KEYS])
    own = {k: v for k, v in values.items() if k in AGENT_KEYS}
    config = replace(AgentConfig(), **parse_fields(AgentConfig, own, _AGENT_PARSERS))
    security = parse_security(SecurityConfig(), {k: v for k, v in values.items() if k in SECURITY_KEYS})
    config = replace(
        config,
        broker_config_paths=tuple(base_dir / p.expanduser() for p in config.broker_config_paths),
        agent_store_path=base_dir / config.agent_store_path.expanduser(),
        security=resolve_paths(security, base_dir),
    )
    embedded = {k: v for k, v in values.items() if k in embedded_keys}
    if config.enable_controller_in_agent:
        controller = controller_config.with_overrides(ControllerConfig(), embedded)
        controller = replace(controller, security=config.security)
        config = replace(config, controller_config=controller_config.validate(controller))
    elif embedded:
        raise ConfigError(f"{', '.join(sorted(embedded))}: controller keys need enableControllerInAgent=true")
    return _validate_agent(config)


def load_agent(path: str | Path) -> AgentConfig:
    """Read and validate ``agent.conf``."""
    p = Path(path).expanduser().absolute()
    try:
        return parse_agent(read_properties(p), p.parent)
    except PropertiesError as exc:
        raise ConfigError(str(exc)) from exc
    except ConfigError as exc:
        raise ConfigError(f"{p}: {exc}") from exc
