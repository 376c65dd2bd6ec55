"""Controller configuration and properties files: parsing, validation, precise errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.config import (
    MILLIS_FIELDS,
    ConfigError,
    ControllerConfig,
    check_value,
    load,
    parse_peers,
    to_properties,
    validate,
    with_overrides,
)
from mqbase.configkeys import MAX_MILLIS, camel
from mqbase.properties import PropertiesError, parse_properties, read_properties, write_properties_atomic

PEERS = "n0-127.0.0.1:9878:9876;n1-127.0.0.1:9868:9866;n2-127.0.0.1:9858:9856"


def test_properties_accept_equals_colon_comments_and_blank_lines() -> None:
    text = "# comment\n! also\n\na=1\nb : two words \n c=x=y\n"
    assert parse_properties(text) == {"a": "1", "b": "two words", "c": "x=y"}


def test_properties_line_without_separator_names_the_line() -> None:
    with pytest.raises(PropertiesError, match=r"f.conf:2: expected 'key=value'"):
        parse_properties("a=1\njunk\n", "f.conf")


def test_properties_round_trip_atomically(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "x.properties"
    write_properties_atomic(path, {"b": "2", "a": "1"}, "hdr")
    assert read_properties(path) == {"a": "1", "b": "2"}
    assert not path.with_name("x.properties.tmp").exists()


def test_peers_parse_into_raft_and_grpc_addresses() -> None:
    peers = parse_peers(PEERS)
    assert [p.node_id for p in peers] == ["n0", "n1", "n2"]
    assert peers[1].raft_address == "127.0.0.1:9868"
    assert peers[1].grpc_address == "127.0.0.1:9866"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "controllerPeers is empty"),
        ("n0-127.0.0.1:9878", "is not <id>-<host>:<raftPort>:<grpcPort>"),
        ("n0-127.0.0.1:x:1", "non-numeric port"),
        ("n0-127.0.0.1:70000:1", "out of range"),
        ("n0-h:1:2;n0-h:3:4", "duplicate ids"),
        ("n0-h:1:2;n1-h:2:3", "same host:port twice"),
    ],
)
def test_bad_peers_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_peers(text)


def test_unknown_key_suggests_the_closest_one() -> None:
    with pytest.raises(ConfigError, match="did you mean 'enableElectUncleanMaster'"):
        with_overrides(ControllerConfig(), {"enableElectUncleanMastr": "true"})


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("enableElectUncleanMaster", "yes", "must be true or false"),
        ("scanNotActiveBrokerInterval", "5s", "must be an integer"),
        ("electMasterMaxRetryCount", "-1", "must not be negative"),
    ],
)
def test_bad_values_name_the_key(key: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=f"{key} {message}"):
        with_overrides(ControllerConfig(), {key: value})


def test_validate_requires_self_id_among_peers() -> None:
    config = with_overrides(ControllerConfig(), {"controllerPeers": PEERS, "controllerSelfId": "n9"})
    with pytest.raises(ConfigError, match="controllerSelfId 'n9' is not one of"):
        validate(config)


def test_validate_rejects_raft_timings_pysyncobj_would_assert_on() -> None:
    base = {"controllerPeers": PEERS, "controllerSelfId": "n0"}
    with pytest.raises(ConfigError, match="raftMinTimeoutMs must be more than 3 x"):
        validate(with_overrides(ControllerConfig(), {**base, "raftMinTimeoutMs": "100"}))
    with pytest.raises(ConfigError, match="raftMaxTimeoutMs must be more than raftMinTimeoutMs"):
        validate(with_overrides(ControllerConfig(), {**base, "raftMaxTimeoutMs": "300"}))


@pytest.mark.parametrize("field", MILLIS_FIELDS)
def test_a_period_beyond_java_int_millis_is_refused_in_the_file_and_before_an_update(field: str) -> None:
    key = camel(field)
    message = f"{key} must be at most {MAX_MILLIS} ms (24.8 days), got {MAX_MILLIS + 1}"
    too_long = {"controllerPeers": PEERS, "controllerSelfId": "n0", key: str(MAX_MILLIS + 1)}
    with pytest.raises(ConfigError, match=re.escape(message)):
        validate(with_overrides(ControllerConfig(), too_long))
    with pytest.raises(ConfigError, match=re.escape(message)):
        check_value(key, str(MAX_MILLIS + 1))


def test_blacklist_always_holds_the_java_fixed_keys() -> None:
    config = with_overrides(ControllerConfig(), {"configBlackList": "scanInactiveMasterInterval"})
    assert config.black_list() == {"scanInactiveMasterInterval", "configBlackList", "configStorePath", "rocketmqHome"}


def test_load_overlays_persisted_runtime_keys_only(tmp_path: Path) -> None:
    conf = tmp_path / "c.conf"
    conf.write_text(f"controllerPeers={PEERS}\ncontrollerSelfId=n1\ncontrollerStorePath={tmp_path}/store\n")
    persisted = tmp_path / "store" / "n1" / "controller.properties"
    write_properties_atomic(persisted, {"enableElectUncleanMaster": "true", "controllerSelfId": "n2"})
    config = load(conf)
    assert config.enable_elect_unclean_master is True
    assert config.controller_self_id == "n1"


def test_effective_config_prints_every_key_with_java_names() -> None:
    props = to_properties(with_overrides(ControllerConfig(), {"controllerPeers": PEERS}))
    assert props["controllerPeers"] == PEERS
    assert props["notifyBrokerRoleChanged"] == "true"
    assert props["scanNotActiveBrokerInterval"] == "1000"


def test_missing_config_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file"):
        load(tmp_path / "absent.conf")
