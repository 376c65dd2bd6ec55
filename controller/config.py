"""Controller configuration: the RocketMQ ``ControllerConfig`` keys, parsed once into a frozen dataclass.

Keys keep their Java names (``scanNotActiveBrokerInterval``, ...). Durations
are milliseconds, as in Java. ``controllerPeers`` lists every node as
``<id>-<host>:<raftPort>:<grpcPort>`` separated by ``;``, for example
``n0-127.0.0.1:9878:9876;n1-127.0.0.1:9868:9866;n2-127.0.0.1:9858:9856``.

A config file with an unknown key or a bad value is refused with a message
naming the key; nothing starts on a config that is half understood. The TLS and
access-control keys are shared with the agent (``mqbase.security``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from mqbase.configkeys import ConfigError as ConfigError
from mqbase.configkeys import camel as _camel
from mqbase.configkeys import java_keys, millis_problem, unknown_key
from mqbase.configkeys import parse_bool as _parse_bool
from mqbase.configkeys import parse_int as _parse_int
from mqbase.properties import PropertiesError, read_properties
from mqbase.security import (
    SECURITY_KEYS,
    SecurityConfig,
    mask_secrets,
    parse_security,
    resolve_paths,
    security_properties,
    validate_security,
)


@dataclass(frozen=True, slots=True)
class Peer:
    """One controller node: its id, and the addresses of its Raft and gRPC ports."""

    node_id: str
    host: str
    raft_port: int
    grpc_port: int

    @property
    def raft_address(self) -> str:
        return f"{self.host}:{self.raft_port}"

    @property
    def grpc_address(self) -> str:
        return f"{self.host}:{self.grpc_port}"

    def __str__(self) -> str:
        return f"{self.node_id}-{self.host}:{self.raft_port}:{self.grpc_port}"


def parse_peers(text: str) -> tuple[Peer, ...]:
    """Parse ``controllerPeers``; ids and addresses must be unique."""
    peers: list[Peer] = []
    for token in (t.strip() for t in text.split(";")):
        if not token:
            continue
        node_id, sep, rest = token.partition("-")
        parts = rest.rsplit(":", 2)
        if not sep or not node_id or len(parts) != 3 or not parts[0]:
            raise ConfigError(f"controllerPeers entry {token!r} is not <id>-<host>:<raftPort>:<grpcPort>")
        try:
            raft_port, grpc_port = int(parts[1]), int(parts[2])
        except ValueError as exc:
            raise ConfigError(f"controllerPeers entry {token!r} has a non-numeric port") from exc
        for port in (raft_port, grpc_port):
            if not 0 < port < 65536:
                raise ConfigError(f"controllerPeers entry {token!r} has port {port} out of range 1-65535")
        peers.append(Peer(node_id, parts[0], raft_port, grpc_port))
    if not peers:
        raise ConfigError("controllerPeers is empty: list every controller node as <id>-<host>:<raftPort>:<grpcPort>")
    ids = [p.node_id for p in peers]
    if len(set(ids)) != len(ids):
        raise ConfigError(f"controllerPeers has duplicate ids: {';'.join(ids)}")
    addrs = [a for p in peers for a in (p.raft_address, p.grpc_address)]
    if len(set(addrs)) != len(addrs):
        raise ConfigError("controllerPeers uses the same host:port twice")
    return tuple(peers)


@dataclass(frozen=True, slots=True)
class ControllerConfig:
    """Effective configuration of one controller node (Java names in ``KEYS``)."""

    controller_group: str = "DefaultControllerGroup"
    controller_peers: tuple[Peer, ...] = ()
    controller_self_id: str = ""
    controller_store_path: str = "~/mqcontroller"
    config_store_path: str = ""
    config_black_list: str = "configBlackList;configStorePath"
    scan_not_active_broker_interval: int = 1000
    scan_inactive_master_interval: int = 5000
    elect_master_max_retry_count: int = 3
    enable_elect_unclean_master: bool = False
    enable_preferred_master: bool = False
    scan_preferred_master_interval: int = 5000
    preferred_master_transfer_interval_ms: int = 60_000
    preferred_master_transfer_max_per_scan: int = 100
    transfer_master_timeout_ms: int = 3000
    transfer_master_require_full_sync_state_set: bool = True
    notify_broker_role_changed: bool = True
    raft_min_timeout_ms: int = 300
    raft_max_timeout_ms: int = 600
    raft_append_entries_period_ms: int = 50
    raft_leader_fallback_timeout_ms: int = 1000
    raft_connection_retry_ms: int = 500
    raft_log_compaction_min_entries: int = 5000
    raft_log_compaction_min_time_ms: int = 300_000
    metrics_exporter_type: str = "DISABLE"
    metrics_prom_exporter_port: int = 5557
    raft_password: str = field(default="", repr=False)
    """Authenticates and encrypts Raft traffic between the nodes (pysyncobj ``password``); empty: plaintext."""
    security: SecurityConfig = field(default=SecurityConfig(), metadata={"key": None})
    """TLS and access control of the gRPC port (its keys are ``SECURITY_KEYS``)."""

    @property
    def self_peer(self) -> Peer:
        for peer in self.controller_peers:
            if peer.node_id == self.controller_self_id:
                return peer
        raise ConfigError(f"controllerSelfId {self.controller_self_id!r} is not one of the controllerPeers ids")

    @property
    def node_store_dir(self) -> Path:
        """Where this node keeps its Raft journal and snapshot."""
        return Path(self.controller_store_path).expanduser() / self.controller_self_id

    @property
    def effective_config_store_path(self) -> Path:
        """Where releases before group-wide runtime keys persisted UpdateControllerConfig changes (read at start)."""
        if self.config_store_path:
            return Path(self.config_store_path).expanduser()
        return self.node_store_dir / "controller.properties"

    def black_list(self) -> frozenset[str]:
        """Keys UpdateControllerConfig refuses: the configured list plus Java's fixed three."""
        listed = {k.strip() for k in self.config_black_list.split(";") if k.strip()}
        return frozenset(listed | {"configBlackList", "configStorePath", "rocketmqHome"})


_PARSERS: dict[type | str, Callable[[str, str], Any]] = {
    "bool": _parse_bool,
    "int": _parse_int,
    "str": lambda _k, t: t.strip(),
    "tuple[Peer, ...]": lambda _k, t: parse_peers(t),
}

KEYS: dict[str, str] = java_keys(ControllerConfig)
"""Java key name → dataclass field name; the security keys are ``SECURITY_KEYS`` (a nested SecurityConfig)."""

RUNTIME_KEYS = frozenset(
    {
        "scanNotActiveBrokerInterval",
        "scanInactiveMasterInterval",
        "electMasterMaxRetryCount",
        "enableElectUncleanMaster",
        "enablePreferredMaster",
        "scanPreferredMasterInterval",
        "preferredMasterTransferIntervalMs",
        "preferredMasterTransferMaxPerScan",
        "transferMasterTimeoutMs",
        "transferMasterRequireFullSyncStateSet",
        "notifyBrokerRoleChanged",
    }
)
"""Keys UpdateControllerConfig may change at run time, for the whole group (replicated); the others need a restart."""

METRICS_EXPORTER_TYPES = ("DISABLE", "PROM")
"""The supported values of Java's ``MetricsExporterType``; OTLP_GRPC and LOG are not implemented."""


def _field_type(field_name: str) -> str:
    return next(str(f.type) for f in fields(ControllerConfig) if f.name == field_name)


def with_overrides(config: ControllerConfig, values: Mapping[str, str]) -> ControllerConfig:
    """A copy of `config` with Java-named `values` parsed and applied."""
    changes: dict[str, Any] = {}
    for key, text in values.items():
        if key in SECURITY_KEYS:
            continue
        if key not in KEYS:
            raise unknown_key(key, [*KEYS, *SECURITY_KEYS])
        name = KEYS[key]
        changes[name] = _PARSERS[_field_type(name)](key, text)
    security = {k: v for k, v in values.items() if k in SECURITY_KEYS}
    if security:
        changes["security"] = parse_security(config.security, security)
    return replace(config, **changes)


_POSITIVE = (
    "scan_not_active_broker_interval",
    "scan_inactive_master_interval",
    "scan_preferred_master_interval",
    "raft_log_compaction_min_time_ms",
    "preferred_master_transfer_max_per_scan",
)

MILLIS_FIELDS = (
    "scan_not_active_broker_interval",
    "scan_inactive_master_interval",
    "scan_preferred_master_interval",
    "preferred_master_transfer_interval_ms",
    "raft_min_timeout_ms",
    "raft_max_timeout_ms",
    "raft_append_entries_period_ms",
    "raft_leader_fallback_timeout_ms",
    "raft_connection_retry_ms",
    "raft_log_compaction_min_time_ms",
)
"""The periods and timeouts in ms: each at most ``MAX_MILLIS``."""


def _value_problem(name: str, value: Any) -> str | None:
    """Why field `name` cannot hold `value` whatever the other keys say, or None."""
    if name in _POSITIVE and value == 0:
        return f"{_camel(name)} must be positive"
    if name == "transfer_master_timeout_ms" and not 100 <= value <= 60_000:
        return f"transferMasterTimeoutMs must be 100..60000 (writes pause up to this long), got {value}"
    if name in MILLIS_FIELDS:
        return millis_problem(name, value)
    return None


def check_value(key: str, text: str) -> None:
    """ConfigError when `text` can never be key `key`'s value (an unknown key, a value of the wrong type, out of
    its range): what ``mqadmin updateControllerConfig`` checks before it sends anything. Whether the key may change
    at run time, and the rules between keys, are the controllers' to check."""
    if key in SECURITY_KEYS:
        return  # the controllers refuse them at run time
    changed = with_overrides(ControllerConfig(), {key: text})
    if problem := _value_problem(KEYS[key], getattr(changed, KEYS[key])):
        raise ConfigError(problem)


def validate(config: ControllerConfig) -> ControllerConfig:
    """Check cross-field rules (the ones pysyncobj would only assert on); return `config`."""
    if not config.controller_peers:
        raise ConfigError("controllerPeers is required")
    _ = config.self_peer
    c = config
    for name in (*_POSITIVE, *MILLIS_FIELDS, "transfer_master_timeout_ms"):
        if problem := _value_problem(name, getattr(c, name)):
            raise ConfigError(problem)
    if c.raft_min_timeout_ms <= 3 * c.raft_append_entries_period_ms:
        raise ConfigError("raftMinTimeoutMs must be more than 3 x raftAppendEntriesPeriodMs")
    if c.raft_max_timeout_ms <= c.raft_min_timeout_ms:
        raise ConfigError("raftMaxTimeoutMs must be more than raftMinTimeoutMs")
    if c.raft_leader_fallback_timeout_ms <= c.raft_append_entries_period_ms:
        raise ConfigError("raftLeaderFallbackTimeoutMs must be more than raftAppendEntriesPeriodMs")
    if c.raft_append_entries_period_ms == 0 or c.raft_log_compaction_min_entries < 2:
        raise ConfigError("raftAppendEntriesPeriodMs must be positive and raftLogCompactionMinEntries at least 2")
    if c.metrics_exporter_type not in METRICS_EXPORTER_TYPES:
        raise ConfigError(
            f"metricsExporterType must be one of {', '.join(METRICS_EXPORTER_TYPES)}, got {c.metrics_exporter_type!r}"
        )
    if c.metrics_prom_exporter_port > 65535:
        raise ConfigError(f"metricsPromExporterPort {c.metrics_prom_exporter_port} is out of range 0-65535")
    validate_security(c.security)
    return config


def to_properties(config: ControllerConfig) -> dict[str, str]:
    """Java-named string values of every key, secrets masked (for -p and GetControllerConfig)."""
    out: dict[str, str] = {}
    for key, name in KEYS.items():
        value = getattr(config, name)
        if isinstance(value, bool):
            out[key] = str(value).lower()
        elif isinstance(value, tuple):
            out[key] = ";".join(str(p) for p in value)
        else:
            out[key] = str(value)
    return mask_secrets(out) | security_properties(config.security)


def runtime_properties(config: ControllerConfig) -> dict[str, str]:
    """The canonical text of every runtime key of `config`."""
    return {k: v for k, v in to_properties(config).items() if k in RUNTIME_KEYS}


def with_group_config(config: ControllerConfig, group: Mapping[str, str]) -> ControllerConfig:
    """A node's effective config: its file config with the group's replicated runtime values over it.

    Keys this release does not know as runtime keys (set by a newer release) are ignored.
    """
    return with_overrides(config, {k: v for k, v in group.items() if k in RUNTIME_KEYS})


def load(path: str | Path) -> ControllerConfig:
    """Read a config file, overlay the runtime changes an older release persisted per node, and validate."""
    try:
        config = with_overrides(ControllerConfig(), read_properties(path))
        config = replace(config, security=resolve_paths(config.security, Path(path).expanduser().absolute().parent))
        persisted = config.effective_config_store_path
        if persisted.exists():
            saved = read_properties(persisted)
            config = with_overrides(config, {k: v for k, v in saved.items() if k in RUNTIME_KEYS})
    except PropertiesError as exc:
        raise ConfigError(str(exc)) from exc
    return validate(config)
