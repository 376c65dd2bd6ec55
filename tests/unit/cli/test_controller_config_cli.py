"""getControllerConfig and updateControllerConfig: which nodes disagree, the exit when one lacks a change."""

from __future__ import annotations

import pytest

from mqadmin_py.commands.controller import (
    ConfigNodeDoc,
    UnreachableNodeDoc,
    UpdateNodeDoc,
    config_differences,
    not_held_error,
)
from mqbase.errors import ControllerUnavailable, TimedOut

UNCLEAN = "enableElectUncleanMaster"


def shown(address: str, **config: str) -> ConfigNodeDoc:
    return {"address": address, "reachable": True, "id": address, "configVersion": 1, "groupConfig": {},
            "config": {"controllerSelfId": address, **config}}  # fmt: skip


DOWN: UnreachableNodeDoc = {"address": "c", "reachable": False, "error": "controller c unreachable (UNAVAILABLE)"}


@pytest.mark.parametrize(
    ("docs", "expected"),
    [
        ([shown("a", **{UNCLEAN: "true"}), shown("b", **{UNCLEAN: "true"})], {}),
        # node-local keys (controllerSelfId) always differ and are not reported
        ([shown("a", **{UNCLEAN: "true"}), shown("b", **{UNCLEAN: "false"})], {UNCLEAN: {"a": "true", "b": "false"}}),
        # an unreachable node is not compared
        ([shown("a", **{UNCLEAN: "true"}), DOWN], {}),
        ([DOWN], {}),
    ],
)
def test_config_differences_lists_runtime_keys_not_equal_on_every_reachable_node(
    docs: list[ConfigNodeDoc | UnreachableNodeDoc], expected: dict[str, dict[str, str]]
) -> None:
    assert config_differences(docs) == expected


def held(address: str, version: int, applied: bool) -> UpdateNodeDoc:
    return {"address": address, "reachable": True, "id": None, "value": "true", "configVersion": version,
            "applied": applied}  # fmt: skip


@pytest.mark.parametrize(
    ("nodes", "error", "says"),
    [
        ([held("a", 4, True), held("b", 4, True)], None, ""),
        ([held("a", 4, True), DOWN], ControllerUnavailable, "c: unreachable (controller c unreachable"),
        ([held("a", 4, True), held("b", 3, False)], TimedOut, "b: still at config version 3"),
        ([held("b", 3, False), DOWN], ControllerUnavailable, "b: still at config version 3; c: unreachable"),
    ],
)
def test_a_change_not_held_by_every_node_exits_non_zero_and_says_it_is_committed(
    nodes: list[UpdateNodeDoc | UnreachableNodeDoc], error: type[Exception] | None, says: str
) -> None:
    found = not_held_error(UNCLEAN, "true", 4, nodes)
    if error is None:
        assert found is None
        return
    assert type(found) is error
    assert f"{UNCLEAN}=true is committed for the group (config version 4)" in str(found) and says in str(found)
