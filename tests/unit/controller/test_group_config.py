"""The group's runtime config in the replicated state: compute, apply, codec, and the effective config."""

from __future__ import annotations

import json
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import pytest

from controller.codec import CodecError, decode_events, decode_state, encode_events, encode_state
from controller.config import ControllerConfig, runtime_properties, with_group_config
from controller.events import ElectMaster, Event, SetGroupConfig
from controller.model import ControllerState
from controller.requests import SetGroupConfigReply, SetGroupConfigRequest
from controller.state import apply_events, compute
from mqbase.codes import ResponseCode as C
from tests.harness.controller_state import BROKER, NOBODY, broker_set, run, three_replicas, with_master

UNCLEAN = "enableElectUncleanMaster"
PREFERRED = "enablePreferredMaster"


def group(version: int = 0, **config: str) -> ControllerState:
    return ControllerState(config=MappingProxyType(config), config_version=version)


# --- compute ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "values", "only_missing", "changes", "version"),
    [
        # an empty group: every key is recorded, version 0 -> 1
        (group(), {UNCLEAN: "true"}, False, {UNCLEAN: "true"}, 1),
        # the same value again: a no-op, no event
        (group(1, **{UNCLEAN: "true"}), {UNCLEAN: "true"}, False, {}, 1),
        # a new value replaces the group's
        (group(1, **{UNCLEAN: "true"}), {UNCLEAN: "false"}, False, {UNCLEAN: "false"}, 2),
        # only the keys that change are in the event
        (group(3, **{UNCLEAN: "true"}), {UNCLEAN: "true", PREFERRED: "true"}, False, {PREFERRED: "true"}, 4),
        # a new leader's file values never replace a value the group has
        (group(2, **{UNCLEAN: "true"}), {UNCLEAN: "false", PREFERRED: "false"}, True, {PREFERRED: "false"}, 3),
        (group(2, **{UNCLEAN: "true"}), {UNCLEAN: "false"}, True, {}, 2),
    ],
)
def test_set_group_config_records_only_the_keys_that_change(
    state: ControllerState, values: dict[str, str], only_missing: bool, changes: dict[str, str], version: int
) -> None:
    after, result = run(state, SetGroupConfigRequest(values, only_missing), NOBODY)
    assert result.code == C.SUCCESS
    assert result.reply == SetGroupConfigReply(version, tuple(sorted(changes)))
    expected = (SetGroupConfig(changes, state.config_version),) if changes else ()
    assert result.events == expected
    assert after.config_version == version
    assert dict(after.config) == ({**values, **state.config} if only_missing else {**state.config, **values})


def test_two_changes_in_one_batch_both_apply() -> None:
    """The proposer decides the second on the state after the first (speculative state), so neither is fenced."""
    state = group()
    for value in ("true", "false"):
        state, result = run(state, SetGroupConfigRequest({UNCLEAN: value}), NOBODY)
        assert result.events
    assert (dict(state.config), state.config_version) == ({UNCLEAN: "false"}, 2)


# --- apply --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "event", "config", "version"),
    [
        (group(), SetGroupConfig({UNCLEAN: "true"}, 0), {UNCLEAN: "true"}, 1),
        (
            group(1, **{UNCLEAN: "true"}),
            SetGroupConfig({PREFERRED: "true"}, 1),
            {UNCLEAN: "true", PREFERRED: "true"},
            2,
        ),
        # decided on version 0, committed after another change: a no-op
        (group(1, **{UNCLEAN: "true"}), SetGroupConfig({UNCLEAN: "false"}, 0), {UNCLEAN: "true"}, 1),
        # a version from the future (cannot happen in one log): a no-op too
        (group(1, **{UNCLEAN: "true"}), SetGroupConfig({UNCLEAN: "false"}, 2), {UNCLEAN: "true"}, 1),
    ],
)
def test_apply_set_group_config_is_fenced_by_the_config_version(
    state: ControllerState, event: SetGroupConfig, config: dict[str, str], version: int
) -> None:
    after = apply_events(state, [event])
    assert (dict(after.config), after.config_version) == (config, version)


def test_config_and_broker_events_in_one_entry_leave_each_other_alone() -> None:
    state = with_master(1)
    bs = broker_set(state)
    events: list[Event] = [SetGroupConfig({UNCLEAN: "true"}, 0), ElectMaster(BROKER, 2, bs.master_epoch)]
    after = apply_events(state, events)
    assert (dict(after.config), after.config_version) == ({UNCLEAN: "true"}, 1)
    assert broker_set(after).master_id == 2
    broker_only = apply_events(after, [ElectMaster(BROKER, 1, bs.master_epoch + 1)])
    assert (broker_only.config, broker_only.config_version) == (after.config, 1)


def test_the_group_config_steers_the_leaders_election_switch() -> None:
    """What compute reads as allow_unclean comes from the effective config, i.e. the group's value."""
    file = ControllerConfig()
    state = apply_events(ControllerState(), [SetGroupConfig({UNCLEAN: "true"}, 0)])
    assert with_group_config(file, state.config).enable_elect_unclean_master is True
    assert with_group_config(file, ControllerState().config).enable_elect_unclean_master is False


# --- effective config ---------------------------------------------------------------------------


def test_group_values_override_the_file_and_unknown_keys_are_ignored() -> None:
    file = ControllerConfig(enable_preferred_master=True, scan_inactive_master_interval=7000)
    effective = with_group_config(file, {UNCLEAN: "true", "someKeyOfANewerRelease": "1", "controllerGroup": "x"})
    assert effective == replace(file, enable_elect_unclean_master=True)


def test_runtime_properties_lists_every_runtime_key_in_canonical_text() -> None:
    props = runtime_properties(ControllerConfig(enable_elect_unclean_master=True))
    assert props[UNCLEAN] == "true" and props["scanNotActiveBrokerInterval"] == "1000"
    assert "controllerGroup" not in props


# --- codec --------------------------------------------------------------------------------------


def test_set_group_config_round_trips_through_a_log_entry() -> None:
    events: list[Event] = [SetGroupConfig({UNCLEAN: "true", PREFERRED: "false"}, 4)]
    assert decode_events(encode_events(events)) == events


@pytest.mark.parametrize(
    "values", [["enableElectUncleanMaster", "true"], {"enableElectUncleanMaster": True}, {"k": None}, "x"]
)
def test_a_log_entry_with_a_malformed_config_map_is_refused(values: Any) -> None:
    blob = json.dumps({"v": 1, "events": [{"type": "SetGroupConfig", "values": values, "expected_config_version": 0}]})
    with pytest.raises(CodecError, match="must map strings to strings"):
        decode_events(blob.encode())


def test_the_group_config_round_trips_through_a_snapshot() -> None:
    state = apply_events(three_replicas(), [SetGroupConfig({UNCLEAN: "true"}, 0)])
    assert decode_state(encode_state(state)) == state


def test_a_snapshot_written_before_the_group_config_decodes_with_none_set() -> None:
    doc = json.loads(encode_state(three_replicas()))
    del doc["config"], doc["configVersion"]
    old = decode_state(json.dumps(doc).encode())
    assert (dict(old.config), old.config_version) == ({}, 0)
    assert old.broker_sets == three_replicas().broker_sets


@pytest.mark.parametrize(("field", "value"), [("config", []), ("config", {"k": 1}), ("configVersion", -1),
                                               ("configVersion", "1"), ("configVersion", True)])  # fmt: skip
def test_a_snapshot_with_a_malformed_group_config_is_refused(field: str, value: Any) -> None:
    doc = json.loads(encode_state(ControllerState()))
    doc[field] = value
    with pytest.raises(CodecError, match=field):
        decode_state(json.dumps(doc).encode())


def test_compute_leaves_the_state_alone() -> None:
    state = group()
    result = compute(state, SetGroupConfigRequest({UNCLEAN: "true"}), NOBODY, allow_unclean=False)
    assert result.events and state == group()
