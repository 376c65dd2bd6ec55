"""The agent's table of learnt topics and groups (agents/metadata.py): never goes back, re-read only when newer."""

from __future__ import annotations

import pytest

from agents.metadata import Group, MetadataTable, Topic, learn, stale

ORDERS = Topic("Orders", frozenset({"broker-a", "broker-b"}), 8, 8, 6, "FIFO")
AUDIT = Topic("Audit", frozenset({"broker-b"}), 4, 4, 4)
GROUP = Group("GID_orders", frozenset({"broker-a"}), True, 16, True)
V3 = learn(MetadataTable(), 3, [ORDERS, AUDIT], [GROUP])


@pytest.mark.parametrize(
    ("version", "expected_version", "topics"),
    [
        (4, 4, ("Orders",)),  # newer: replaces the table
        (3, 3, ("Orders",)),  # the same version again (a poll after the push): taken, equal anyway
        (2, 3, ("Audit", "Orders")),  # older (a slow poll answered after a push's read): ignored
    ],
)
def test_learn_never_goes_back(version: int, expected_version: int, topics: tuple[str, ...]) -> None:
    after = learn(V3, version, [ORDERS], [])
    assert after.version == expected_version
    assert tuple(sorted(after.topics)) == topics


@pytest.mark.parametrize(("announced", "reread"), [(4, True), (3, False), (0, False)])
def test_a_push_makes_the_broker_reread_only_when_newer(announced: int, reread: bool) -> None:
    assert stale(V3, announced) is reread


def test_nothing_learnt_yet_reads_any_version() -> None:
    assert MetadataTable().version == -1 and stale(MetadataTable(), 0)


def test_what_a_broker_set_serves() -> None:
    assert V3.served_by("broker-b") == ("Audit", "Orders")
    assert V3.served_by("broker-a") == ("Orders",)
    assert V3.groups_of("broker-a") == ("GID_orders",)
    assert V3.groups_of("broker-b") == ()
