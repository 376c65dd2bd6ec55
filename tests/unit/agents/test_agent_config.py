"""mqagent configuration: broker files and agent.conf, parsed into frozen configs with precise errors."""

from __future__ import annotations

import contextlib
import logging
import re
from dataclasses import fields, replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.config import (
    AGENT_KEYS,
    BROKER_KEYS,
    MILLIS_FIELDS,
    MIN_COMMIT_LOG_FILE_SIZE,
    RUNTIME_KEYS,
    AgentConfig,
    BrokerConfig,
    load_agent,
    load_broker,
    parse_agent,
    parse_broker,
    with_overrides,
)
from agents.ha.acting import ActingPolicy
from agents.ha.config import HAConfig
from agents.ha.retention import Policy
from mqbase.configkeys import MAX_MILLIS, ConfigError, camel

REQUIRED = {"brokerName": "broker-a", "storePathRootDir": "/data/broker-a", "controllerAddr": "10.0.0.1:9876"}
PEERS = "n0-127.0.0.1:9878:9876;n1-127.0.0.1:9868:9866;n2-127.0.0.1:9858:9856"


def broker(**values: str) -> BrokerConfig:
    return parse_broker({**REQUIRED, **values})


# --- BrokerConfig ----------------------------------------------------------------------------------


def test_broker_defaults_follow_the_java_defaults() -> None:
    c = broker()
    assert (c.broker_cluster_name, c.broker_ip1, c.listen_port, c.ha_listen_port) == (
        "DefaultCluster",
        "127.0.0.1",
        10911,
        10912,
    )
    assert c.broker_election_priority == 2**31 - 1
    assert (c.in_sync_replicas, c.min_in_sync_replicas, c.total_replicas) == (1, 1, 1)
    assert not (c.async_learner or c.all_ack_in_sync_state_set or c.sync_from_last_file)
    assert c.enable_controller_mode
    assert c.mapped_file_size_commit_log == 1024**3
    assert c.mapped_file_size_consume_queue == 300_000 * 20
    assert c.cq_entries_per_file == 300_000
    assert c.controller_addr == ("10.0.0.1:9876",)
    assert (c.file_reserved_time, c.delete_when, c.clean_resource_interval) == (72, "04", 10_000)
    assert (c.disk_max_used_space_ratio, c.disk_space_warning_level_ratio, c.disk_space_clean_forcibly_ratio) == (
        75,
        90,
        85,
    )
    assert (c.clean_file_forcibly_enable, c.delete_commit_log_files_interval, c.delete_file_batch_max) == (
        True,
        100,
        10,
    )
    props = c.to_properties()
    assert props["brokerIP1"] == "127.0.0.1"
    assert props["haTransferBatchSize"] == "32768"
    assert props["maxHaTransferByteInSecond"] == "104857600"
    assert props["controllerHeartBeatTimeoutMills"] == "10000"
    assert set(props) == set(BROKER_KEYS)


def test_to_properties_reads_back_unchanged() -> None:
    c = broker(controllerAddr="h1:1;h2:2;", allAckInSyncStateSet="TRUE", brokerIP1="10.1.2.3")
    assert c.controller_addr == ("h1:1", "h2:2")
    assert parse_broker(c.to_properties()) == c


def test_addresses_and_paths_derive_from_the_config() -> None:
    c = broker(brokerIP1="10.0.0.5", listenPort="20911", haListenPort="20912")
    assert c.broker_address == "10.0.0.5:20911"
    assert c.ha_address == "10.0.0.5:20912"
    assert c.broker_identity_path == Path("/data/broker-a/brokerIdentity")
    assert c.epoch_file_path == Path("/data/broker-a/epochFileCheckpoint")


def test_ephemeral_ports_must_be_replaced_by_the_bound_ones() -> None:
    c = broker(listenPort="0", haListenPort="0")
    with pytest.raises(ValueError, match="listenPort is 0"):
        _ = c.broker_address
    with pytest.raises(ValueError, match="haListenPort is 0"):
        _ = c.ha_address
    assert replace(c, listen_port=40000).broker_address == "127.0.0.1:40000"


def test_consume_queue_size_rounds_up_to_whole_entries() -> None:
    assert broker(mappedFileSizeConsumeQueue="21").cq_entries_per_file == 2


def test_to_ha_config_maps_every_field_that_has_a_java_key() -> None:
    c = broker(
        haTransferBatchSize="1000",
        haSendHeartbeatInterval="1500",
        haHousekeepingInterval="4000",
        haMaxTimeSlaveNotCatchup="2500",
        checkSyncStateSetPeriod="400",
        maxHaTransferByteInSecond="12345",
        allAckInSyncStateSet="true",
        totalReplicas="3",
        inSyncReplicas="2",
        minInSyncReplicas="3",
        syncFlushTimeout="750",
        asyncLearner="true",
        syncFromLastFile="true",
    )
    ha = c.to_ha_config()
    assert ha == replace(
        HAConfig(),
        batch_size=1000,
        heartbeat_interval_s=1.5,
        housekeeping_s=4.0,
        max_not_catchup_s=2.5,
        check_sync_state_set_s=0.4,
        max_bytes_per_s=12345,
        all_ack_in_sync_state_set=True,
        in_sync_replicas=2,
        min_in_sync_replicas=3,
        sync_flush_timeout_s=0.75,
        async_learner=True,
        sync_from_last_file=True,
    )
    # A new HAConfig field must get a broker key here, or be added to this list on purpose.
    unmapped = {f.name for f in fields(HAConfig) if getattr(ha, f.name) == getattr(HAConfig(), f.name)}
    assert unmapped == {"reconnect_backoff_s"}


@pytest.mark.parametrize("key", ["brokerName", "storePathRootDir", "controllerAddr"])
def test_required_keys(key: str) -> None:
    values = {k: v for k, v in REQUIRED.items() if k != key}
    with pytest.raises(ConfigError, match=f"^{key} is required"):
        parse_broker(values)


BAD_BROKER_VALUES = [
    (
        {"enableControllerMode": "false"},
        "enableControllerMode=false is not supported: mqagent runs brokers in controller mode only",
    ),
    ({"enableControllerMode": "no"}, "enableControllerMode must be true or false, got 'no'"),
    ({"listenPort": "x"}, "listenPort must be an integer, got 'x'"),
    ({"listenPort": "-1"}, "listenPort must not be negative, got -1"),
    ({"listenPort": "65536"}, "listenPort must be a port number 0-65535 (0 = ephemeral), got 65536"),
    ({"haListenPort": "70000"}, "haListenPort must be a port number 0-65535"),
    ({"listenPort": "7000", "haListenPort": "7000"}, "haListenPort must differ from listenPort (both 7000)"),
    ({"brokerName": "a#b"}, "brokerName must not contain '#', ';', whitespace or control characters, got 'a#b'"),
    ({"brokerClusterName": "c;d"}, "brokerClusterName must not contain '#'"),
    ({"brokerClusterName": ""}, "brokerClusterName is empty"),
    ({"brokerName": "x" * 256}, "brokerName is longer than 255 characters"),
    ({"brokerIP1": "10.0 .1"}, "brokerIP1 must not contain"),
    ({"storePathRootDir": "data"}, "storePathRootDir must be an absolute path, got 'data'"),
    ({"controllerAddr": ";"}, "controllerAddr is required"),
    ({"controllerAddr": "h"}, "controllerAddr entry is not host:port, got 'h'"),
    ({"controllerAddr": "h:x"}, "controllerAddr entry is not host:port, got 'h:x'"),
    ({"controllerAddr": ":1"}, "controllerAddr entry is not host:port"),
    ({"controllerAddr": "h:0"}, "controllerAddr entry has port 0 out of range 1-65535, got 'h:0'"),
    ({"controllerAddr": "h:1;h:1"}, "controllerAddr lists the same address twice"),
    ({"brokerElectionPriority": str(2**31)}, "brokerElectionPriority must be at most 2147483647, got 2147483648"),
    ({"inSyncReplicas": "0"}, "inSyncReplicas must be positive"),
    ({"minInSyncReplicas": "0"}, "minInSyncReplicas must be positive"),
    ({"totalReplicas": "0"}, "totalReplicas must be positive"),
    ({"inSyncReplicas": "2"}, "inSyncReplicas (2) must not exceed totalReplicas (1)"),
    ({"minInSyncReplicas": "3", "totalReplicas": "2"}, "minInSyncReplicas (3) must not exceed totalReplicas (2)"),
    ({"syncFlushTimeout": "0"}, "syncFlushTimeout must be positive"),
    ({"haTransferBatchSize": "0"}, "haTransferBatchSize must be positive"),
    ({"maxHaTransferByteInSecond": "0"}, "maxHaTransferByteInSecond must be positive"),
    ({"haMaxTimeSlaveNotCatchup": "0"}, "haMaxTimeSlaveNotCatchup must be positive"),
    ({"haSendHeartbeatInterval": "0"}, "haSendHeartbeatInterval must be positive"),
    ({"haHousekeepingInterval": "0"}, "haHousekeepingInterval must be positive"),
    ({"controllerHeartBeatTimeoutMills": "0"}, "controllerHeartBeatTimeoutMills must be positive"),
    ({"syncBrokerMetadataPeriod": "0"}, "syncBrokerMetadataPeriod must be positive"),
    ({"checkSyncStateSetPeriod": "0"}, "checkSyncStateSetPeriod must be positive"),
    ({"brokerHeartbeatInterval": "0"}, "brokerHeartbeatInterval must be positive"),
    ({"mappedFileSizeConsumeQueue": "0"}, "mappedFileSizeConsumeQueue must be positive"),
    (
        {"haHousekeepingInterval": "5000"},
        "haHousekeepingInterval (5000) must be more than haSendHeartbeatInterval (5000), or idle HA connections",
    ),
    (
        {"controllerHeartBeatTimeoutMills": "1000"},
        "controllerHeartBeatTimeoutMills (1000) must be more than brokerHeartbeatInterval (1000), or the controller",
    ),
    (
        {"mappedFileSizeCommitLog": str(MIN_COMMIT_LOG_FILE_SIZE - 1)},
        f"mappedFileSizeCommitLog must be {MIN_COMMIT_LOG_FILE_SIZE}-2147483647 bytes (a file holds at least one",
    ),
    ({"mappedFileSizeCommitLog": str(2**31)}, "got 2147483648"),
    ({"deleteWhen": "25"}, "deleteWhen must list hours of the day 0-23 separated by ';', got '25'"),
    ({"deleteWhen": ""}, "deleteWhen must list hours of the day 0-23"),
    ({"diskMaxUsedSpaceRatio": "96"}, "diskMaxUsedSpaceRatio must be 10-95 (percent of the disk), got 96"),
    ({"diskMaxUsedSpaceRatio": "9"}, "diskMaxUsedSpaceRatio must be 10-95"),
    ({"diskSpaceWarningLevelRatio": "91"}, "diskSpaceWarningLevelRatio must be 35-90"),
    ({"diskSpaceCleanForciblyRatio": "29"}, "diskSpaceCleanForciblyRatio must be 30-85"),
    ({"fileReservedTime": "-1"}, "fileReservedTime must not be negative"),
    ({"cleanResourceInterval": "0"}, "cleanResourceInterval must be positive"),
    ({"deleteFileBatchMax": "0"}, "deleteFileBatchMax must be positive"),
    ({"brokerNotActiveTimeoutMillis": "0"}, "brokerNotActiveTimeoutMillis must be positive"),
    ({"enableSlaveActingMaster": "yes"}, "enableSlaveActingMaster must be true or false, got 'yes'"),
]


@pytest.mark.parametrize(("values", "message"), BAD_BROKER_VALUES)
def test_bad_values_are_refused_naming_the_key(values: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        broker(**values)


def test_values_are_stripped() -> None:
    assert broker(brokerIP1=" 10.0.0.1 ", listenPort=" 1 ").broker_address == "10.0.0.1:1"


def test_smallest_commit_log_file_is_accepted() -> None:
    assert (
        broker(mappedFileSizeCommitLog=str(MIN_COMMIT_LOG_FILE_SIZE)).mapped_file_size_commit_log
        == MIN_COMMIT_LOG_FILE_SIZE
    )


def test_unknown_broker_key_suggests_the_closest_one() -> None:
    with pytest.raises(
        ConfigError, match=re.escape("unknown config key 'inSyncReplica' (did you mean 'inSyncReplicas'?)")
    ):
        broker(inSyncReplica="2")
    with pytest.raises(ConfigError, match=r"^unknown config key 'zzz'$"):
        broker(zzz="1")


def test_broker_id_and_role_are_ignored_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="agents.config"):
        c = broker(brokerId="0", brokerRole="ASYNC_MASTER")
    assert c == broker()
    assert "brokerId=0 ignored" in caplog.text
    assert "brokerRole=ASYNC_MASTER ignored" in caplog.text
    assert "#6813" in caplog.text


def test_java_keys_that_mean_nothing_here_load_with_a_warning_that_says_why(caplog: pytest.LogCaptureFixture) -> None:
    """A Java broker.conf carries them; our heartbeats are streams and our client follows the leader per call."""
    with caplog.at_level(logging.WARNING, logger="agents.config"):
        c = broker(syncControllerMetadataPeriod="10000", sendHeartbeatTimeoutMillis="1000")
    assert c == broker()
    assert (
        "syncControllerMetadataPeriod=10000 ignored: the broker's controller client follows the leader" in caplog.text
    )
    assert "sendHeartbeatTimeoutMillis=1000 ignored: heartbeats go over a stream" in caplog.text
    with pytest.raises(ConfigError, match="sendHeartbeatTimeoutMillis cannot be set: heartbeats go over a stream"):
        with_overrides(broker(), {"sendHeartbeatTimeoutMillis": "500"})


# --- runtime changes (UpdateBrokerConfig) ----------------------------------------------------------


@pytest.mark.parametrize("field", MILLIS_FIELDS)
def test_a_period_beyond_java_int_millis_is_refused_at_load_and_at_run_time(field: str) -> None:
    key = camel(field)
    message = f"{key} must be at most {MAX_MILLIS} ms (24.8 days), got {MAX_MILLIS + 1}"
    with pytest.raises(ConfigError, match=re.escape(message)):
        broker(**{key: str(MAX_MILLIS + 1)})
    if key in RUNTIME_KEYS:
        with pytest.raises(ConfigError, match=re.escape(message)):
            with_overrides(broker(), {key: str(MAX_MILLIS + 1)})


def test_runtime_keys_change_and_are_validated() -> None:
    c = broker()
    new = with_overrides(c, {"totalReplicas": "3", "inSyncReplicas": "2", "allAckInSyncStateSet": "true"})
    assert (new.total_replicas, new.in_sync_replicas, new.all_ack_in_sync_state_set) == (3, 2, True)
    assert new.broker_name == c.broker_name
    with pytest.raises(ConfigError, match=r"inSyncReplicas \(2\) must not exceed totalReplicas \(1\)"):
        with_overrides(c, {"inSyncReplicas": "2"})
    with pytest.raises(ConfigError, match="syncFlushTimeout must be an integer"):
        with_overrides(c, {"syncFlushTimeout": "5s"})


def test_retention_keys_make_the_policy_and_change_at_run_time() -> None:
    c = with_overrides(broker(), {"fileReservedTime": "0", "deleteWhen": "01;13", "cleanFileForciblyEnable": "false"})
    assert c.retention_policy() == Policy(file_reserved_time_h=0, delete_when=frozenset({1, 13}),
                                          clean_file_forcibly_enable=False)  # fmt: skip
    assert broker().retention_policy() == Policy()  # the defaults agree


def test_auto_create_topic_is_off_by_default_and_changes_at_run_time() -> None:
    """Java's key, default false here (docs/decisions.md): an unknown topic is refused, not created."""
    c = broker()
    assert c.auto_create_topic_enable is False and c.to_properties()["autoCreateTopicEnable"] == "false"
    assert with_overrides(c, {"autoCreateTopicEnable": "true"}).auto_create_topic_enable is True
    assert broker(autoCreateTopicEnable="true").auto_create_topic_enable is True


def test_slave_acting_master_is_off_by_default_and_makes_the_policy() -> None:
    """RIP-32's keys, Java's names and defaults; both change at run time (the next poll decides with them)."""
    c = broker()
    assert c.acting_policy == ActingPolicy() and c.to_properties()["enableSlaveActingMaster"] == "false"
    on = with_overrides(c, {"enableSlaveActingMaster": "true", "brokerNotActiveTimeoutMillis": "3000"})
    assert on.acting_policy == ActingPolicy(enable_slave_acting_master=True, broker_not_active_timeout_ms=3000)


def test_every_runtime_key_is_a_broker_key() -> None:
    assert set(BROKER_KEYS) >= RUNTIME_KEYS
    c = broker(totalReplicas="2")
    for key in RUNTIME_KEYS:
        with_overrides(c, {key: c.to_properties()[key]})


def test_other_keys_need_a_restart() -> None:
    with pytest.raises(
        ConfigError, match="haListenPort, listenPort cannot change at run time: edit the broker config file and restart"
    ):
        with_overrides(broker(), {"listenPort": "1", "haListenPort": "2", "inSyncReplicas": "1"})


def test_overrides_refuse_unknown_and_controller_assigned_keys() -> None:
    with pytest.raises(ConfigError, match="did you mean 'syncFlushTimeout'"):
        with_overrides(broker(), {"syncFlushTimeut": "1"})
    with pytest.raises(ConfigError, match="brokerId cannot be set: in controller mode the controller assigns it"):
        with_overrides(broker(), {"brokerId": "1"})


# --- files -----------------------------------------------------------------------------------------


def test_load_broker_resolves_a_relative_store_against_the_file(tmp_path: Path) -> None:
    conf = tmp_path / "conf" / "broker-a.conf"
    conf.parent.mkdir()
    conf.write_text("brokerName=broker-a\nstorePathRootDir=store/a\ncontrollerAddr=127.0.0.1:9876\n")
    assert load_broker(conf).store_root == tmp_path / "conf" / "store" / "a"


def test_store_path_expands_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert broker(storePathRootDir="~/store").store_root == tmp_path / "store"


def test_load_errors_name_the_file(tmp_path: Path) -> None:
    conf = tmp_path / "b.conf"
    conf.write_text("brokerName=b\n")
    with pytest.raises(ConfigError, match=f"^{conf}: storePathRootDir is required$"):
        load_broker(conf)
    conf.write_text("junk\n")
    with pytest.raises(ConfigError, match=f"{conf}:1: expected 'key=value'"):
        load_broker(conf)
    with pytest.raises(ConfigError, match=r"cannot read config file .*absent\.conf"):
        load_broker(tmp_path / "absent.conf")


# --- agent.conf ------------------------------------------------------------------------------------


def test_agent_defaults_and_relative_paths(tmp_path: Path) -> None:
    conf = tmp_path / "agent.conf"
    conf.write_text("brokerConfigPaths=brokers/a.conf; /etc/mq/b.conf ;\nagentStorePath=state\n")
    c = load_agent(conf)
    assert (c.listen_host, c.listen_port) == ("127.0.0.1", 10920)
    assert (c.metrics_exporter_type, c.metrics_prom_exporter_port) == ("DISABLE", 5558)
    assert (c.enable_proxy, c.proxy_listen_port) == (True, 8081)  # Java's mqbroker --enable-proxy, grpcServerPort
    assert c.broker_config_paths == (tmp_path / "brokers" / "a.conf", Path("/etc/mq/b.conf"))
    assert c.agent_store_path == tmp_path / "state"
    assert c.controller_config is None
    assert parse_agent(c.to_properties(), Path("/elsewhere")) == c


def test_agent_store_defaults_to_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    c = parse_agent({}, Path("/base"))
    assert c.agent_store_path == tmp_path / "mqagent"
    assert c.broker_config_paths == ()


BAD_AGENT_VALUES = [
    ({"listenPort": "65536"}, "listenPort must be a port number 0-65535"),
    ({"listenHost": ""}, "listenHost must not be empty"),
    ({"agentStorePath": " "}, "agentStorePath must not be empty"),
    ({"metricsExporterType": "OTLP_GRPC"}, "metricsExporterType must be one of DISABLE, PROM, got 'OTLP_GRPC'"),
    ({"metricsPromExporterPort": "99999"}, "metricsPromExporterPort must be a port number 0-65535"),
    ({"proxyListenPort": "70000"}, "proxyListenPort must be a port number 0-65535"),
    ({"proxyListenPort": "-1"}, "proxyListenPort must not be negative, got -1"),
    ({"listenPort": "9000", "proxyListenPort": "9000"}, "proxyListenPort must differ from listenPort (both 9000)"),
    ({"enableProxy": "yes"}, "enableProxy must be true or false, got 'yes'"),
    (
        {"metricsExporterType": "PROM", "listenPort": "7000", "metricsPromExporterPort": "7000"},
        "metricsPromExporterPort must differ from listenPort (both 7000)",
    ),
    ({"brokerConfigPaths": "a.conf;a.conf"}, "brokerConfigPaths lists the same file twice"),
    ({"enableControllerInAgent": "1"}, "enableControllerInAgent must be true or false, got '1'"),
    ({"listenPrt": "1"}, "unknown config key 'listenPrt' (did you mean 'listenPort'?)"),
    ({"controllerPeer": "x"}, "unknown config key 'controllerPeer' (did you mean 'controllerPeers'?)"),
    (
        {"controllerPeers": PEERS, "controllerSelfId": "n0"},
        "controllerPeers, controllerSelfId: controller keys need enableControllerInAgent=true",
    ),
]


@pytest.mark.parametrize(("values", "message"), BAD_AGENT_VALUES)
def test_bad_agent_values_are_refused_naming_the_key(values: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_agent(values, Path("/base"))


def test_embedded_controller_keys_are_validated_by_the_controller() -> None:
    on = {"enableControllerInAgent": "true"}
    with pytest.raises(ConfigError, match="controllerPeers is required"):
        parse_agent(on, Path("/base"))
    with pytest.raises(ConfigError, match="controllerSelfId 'n9' is not one of"):
        parse_agent({**on, "controllerPeers": PEERS, "controllerSelfId": "n9"}, Path("/base"))
    with pytest.raises(ConfigError, match="raftMaxTimeoutMs must be more than raftMinTimeoutMs"):
        parse_agent({**on, "controllerPeers": PEERS, "controllerSelfId": "n0", "raftMaxTimeoutMs": "1"}, Path("/base"))


def test_embedded_controller_config_is_exposed_and_agent_keys_win() -> None:
    values = {
        "enableControllerInAgent": "true",
        "controllerPeers": PEERS,
        "controllerSelfId": "n1",
        "enableElectUncleanMaster": "true",
        "metricsExporterType": "PROM",
        "metricsPromExporterPort": "6000",
    }
    c = parse_agent(values, Path("/base"))
    assert c.controller_config is not None
    assert c.controller_config.controller_self_id == "n1"
    assert c.controller_config.enable_elect_unclean_master is True
    # One process, one exporter: the metrics keys configure the agent's, not a second one in the controller.
    assert (c.metrics_exporter_type, c.metrics_prom_exporter_port) == ("PROM", 6000)
    assert c.controller_config.metrics_exporter_type == "DISABLE"
    props = c.to_properties()
    assert props["controllerSelfId"] == "n1"
    assert props["metricsPromExporterPort"] == "6000"
    assert parse_agent(props, Path("/base")) == c


def test_controller_config_is_not_a_key() -> None:
    assert "controllerConfig" not in AGENT_KEYS
    # security is a nested SecurityConfig: its keys are mqbase.security.SECURITY_KEYS
    assert set(AGENT_KEYS.values()) == {f.name for f in fields(AgentConfig)} - {"controller_config", "security"}


def test_load_agent_errors_name_the_file(tmp_path: Path) -> None:
    conf = tmp_path / "agent.conf"
    conf.write_text("listenPort=x\n")
    with pytest.raises(ConfigError, match=f"^{conf}: listenPort must be an integer"):
        load_agent(conf)


# --- fuzz ------------------------------------------------------------------------------------------

_text = st.text(st.characters(codec="utf-8"), max_size=30)
_numbers = st.integers(-5, 2**32).map(str)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from([*BROKER_KEYS, "brokerId", "brokerRole", "brokerNam"]) | _text,
        _numbers | _text | st.sampled_from(["true", "false", "h:1", "/abs", "a;b"]),
        max_size=8,
    )
)
def test_fuzz_broker_values_give_a_config_or_a_config_error(values: dict[str, str]) -> None:
    try:
        config = parse_broker({**REQUIRED, **values})
    except ConfigError:
        return
    assert parse_broker(config.to_properties()) == config


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from([*AGENT_KEYS, "controllerPeers", "controllerSelfId"]) | _text,
        _numbers | _text | st.sampled_from(["true", PEERS, "n0", "PROM"]),
        max_size=6,
    )
)
def test_fuzz_agent_values_give_a_config_or_a_config_error(values: dict[str, str]) -> None:
    with contextlib.suppress(ConfigError):
        parse_agent(values, Path("/base"))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(codec="utf-8"), max_size=200))
def test_fuzz_broker_file_text_gives_a_config_or_a_config_error(tmp_path: Path, text: str) -> None:
    conf = tmp_path / "fuzz.conf"
    conf.write_text(text, encoding="utf-8")
    with contextlib.suppress(ConfigError):
        load_broker(conf)
