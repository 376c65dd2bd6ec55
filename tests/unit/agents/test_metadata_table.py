"""The agent's table of learnt topics and groups (agents/metadata.py): never goes back, re-read only when newer."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.metadata import (
    MESSAGE_GROUP,
    Group,
    MetadataTable,
    Topic,
    learn,
    queue_for_send,
    read_queue_nums,
    stale,
    write_queue_nums,
)
from mqbase.metadata import DEFAULT_QUEUE_NUMS

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


@pytest.mark.parametrize(
    ("topic", "writes", "reads"),
    [("Orders", 8, 8), ("Audit", 4, 4), ("Unknown", DEFAULT_QUEUE_NUMS, DEFAULT_QUEUE_NUMS)],
)
def test_queue_counts_come_from_the_topic_else_the_default(topic: str, writes: int, reads: int) -> None:
    assert (write_queue_nums(V3, topic), read_queue_nums(V3, topic)) == (writes, reads)


def test_read_and_write_queue_counts_may_differ() -> None:
    shrinking = learn(V3, 4, [Topic("Shrinking", frozenset({"broker-a"}), 8, 2, 6)], [])
    assert (write_queue_nums(shrinking, "Shrinking"), read_queue_nums(shrinking, "Shrinking")) == (2, 8)


@pytest.mark.parametrize(
    ("requested", "properties", "turn", "queue"),
    [
        (3, {}, 0, 3),  # the producer's queue wins
        (5, {MESSAGE_GROUP: "order-1"}, 7, 5),  # even over a message group
        (-1, {}, 0, 0),  # round robin
        (-1, {}, 9, 1),
        (-1, {MESSAGE_GROUP: ""}, 6, 2),  # an empty group is no group
    ],
)
def test_the_queue_of_a_send(requested: int, properties: dict[str, str], turn: int, queue: int) -> None:
    assert queue_for_send(requested, properties, 4, turn) == queue


@given(group=st.text(min_size=1, max_size=40), turns=st.lists(st.integers(0, 10**6), min_size=2, max_size=5))
def test_a_message_group_always_lands_in_one_queue(group: str, turns: list[int]) -> None:
    """The same group, whatever the turn: one group's messages stay in one queue, and so in order."""
    queues = {queue_for_send(-1, {MESSAGE_GROUP: group}, 8, turn) for turn in turns}
    assert len(queues) == 1 and 0 <= queues.pop() < 8


def test_message_groups_spread_over_the_queues() -> None:
    assert {queue_for_send(-1, {MESSAGE_GROUP: f"order-{i}"}, 8, 0) for i in range(200)} == set(range(8))
