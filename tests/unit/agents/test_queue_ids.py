"""Which queue ids a send may name, and how many queues a reader of one replica reads."""

from __future__ import annotations

import pytest

from agents.metadata import (
    MetadataTable,
    Topic,
    learn,
    queue_id_problem,
    read_queue_nums,
    reader_queue_nums,
    write_queue_nums,
)
from controller.model import TopicConfig
from mqbase.metadata import DEFAULT_QUEUE_NUMS

ORDERS = Topic("Orders", frozenset({"broker-a"}), 8, 8, 6)
TABLE = learn(MetadataTable(), 3, [ORDERS], [])


@pytest.mark.parametrize("queue_id", [-1, 0, 7])
def test_a_write_queue_or_none_is_allowed(queue_id: int) -> None:
    assert queue_id_problem("Orders", queue_id, 8) is None


@pytest.mark.parametrize("queue_id", [8, 99])
def test_a_queue_past_the_write_queues_is_refused_with_javas_words(queue_id: int) -> None:
    problem = queue_id_problem("Orders", queue_id, 8)
    assert problem is not None
    assert problem.startswith(f"request queueId[{queue_id}] is illegal, topic:[Orders] topicConfig.writeQueueNums:[8]")


@pytest.mark.parametrize(
    ("table", "topic", "stored", "expected"),
    [
        pytest.param(TABLE, "Orders", [], 8, id="learnt_read_queue_nums"),
        pytest.param(TABLE, "Orders", [0, 3], 8, id="stored_queues_below_the_learnt_count"),
        pytest.param(MetadataTable(), "Orders", [0, 5, 7], 8, id="nothing_learnt_the_store_tells"),
        pytest.param(TABLE, "Orders", [11], 12, id="a_queue_stored_past_the_learnt_count_is_read_too"),
        pytest.param(TABLE, "Unknown", [], 0, id="neither_known_nor_stored"),
    ],
)
def test_reader_queue_nums(table: MetadataTable, topic: str, stored: list[int], expected: int) -> None:
    assert reader_queue_nums(table, topic, stored) == expected


def test_one_default_queue_count_for_controller_and_agents() -> None:
    """The controller's new topic and the agents' unknown topic have the same queue count (was 8 and 4)."""
    config = TopicConfig("T", "DefaultCluster", frozenset({"broker-a"}))
    unknown = (write_queue_nums(MetadataTable(), "T"), read_queue_nums(MetadataTable(), "T"))
    assert unknown == (config.write_queue_nums, config.read_queue_nums) == (DEFAULT_QUEUE_NUMS, DEFAULT_QUEUE_NUMS)
