"""Retention on a schedule against real processes: one controller, a master and a slave in two mqagents.

Time is made to pass the way the product allows: ``fileReservedTime=0`` (every finished segment has expired) and
``deleteWhen`` listing every hour, with the smallest segment size and a 200 ms ``cleanResourceInterval``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.config import MIN_COMMIT_LOG_FILE_SIZE
from agents.store.layout import STORE_DIR
from mqadmin_py.sandbox import Sandbox
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from tests.harness.agents import BROKER, FAST, AgentProcess, create_topic
from tests.harness.controllers import CONTROLLER_CONFIG
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

SEG = MIN_COMMIT_LOG_FILE_SIZE
BODY = 1024 * 1024
KEYS = FAST | {
    "totalReplicas": "2",
    "mappedFileSizeCommitLog": str(SEG),
    "fileReservedTime": "0",
    "deleteWhen": ";".join(str(h) for h in range(24)),
    "cleanResourceInterval": "200",
}


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[list[AgentProcess]]:
    box = Sandbox(tmp_path / "controllers")
    agents: list[AgentProcess] = []
    try:
        box.up(controllers=1, extra_config=dict(CONTROLLER_CONFIG), timeout=30.0)
        agents = [AgentProcess(tmp_path, f"agent{i}", box.addresses(), {BROKER: KEYS}) for i in range(2)]
        agents[0].start()
        wait_until(lambda: agents[0].role(BROKER) == "master", 20, "the first replica to become master")
        create_topic(box.addresses())
        agents[1].start()
        wait_until(lambda: len(agents[0].ha_status(BROKER).sync_state_set) == 2, 30, "the slave in sync")
        yield agents
    finally:
        for agent in agents:
            agent.close()
        box.down()


def segments(agent: AgentProcess) -> list[int]:
    directory = agent.dir / BROKER / STORE_DIR / "commitlog"
    return sorted(int(p.name) for p in directory.iterdir() if p.name.isdigit())


def pull(agent: AgentProcess, queue_offset: int) -> pb.PullMessageResponse:
    request = pb.PullMessageRequest(
        broker=pb.BrokerRef(broker_name=BROKER), topic="Orders", queue_id=0, queue_offset=queue_offset, max_messages=1
    )
    response: pb.PullMessageResponse = agent.stub(BROKER).PullMessage(request, timeout=5)
    return response


def test_expired_segments_are_deleted_on_the_master_and_on_the_slave(pair: list[AgentProcess]) -> None:
    master, slave = pair
    for i in range(16):  # about four segments of 1 MiB messages
        message = pb.Message(topic="Orders", queue_id=0, body=bytes([i]) * BODY)
        response = master.stub(BROKER).SendMessage(
            pb.SendMessageRequest(broker=pb.BrokerRef(broker_name=BROKER), message=message), timeout=10
        )
        assert response.code == ResponseCode.SUCCESS, response
    last = segments(master)[-1]
    assert last >= 3 * SEG
    for agent in (master, slave):
        # Every segment but the one being written goes; the last one, and its messages, stay.
        wait_until(lambda a=agent: segments(a) == [last], 30, f"{agent.name} to delete its expired segments")  # type: ignore[misc]
        moved = pull(agent, 0)
        assert moved.code == ResponseCode.PULL_OFFSET_MOVED and moved.next_offset > 0, moved
        kept = pull(agent, moved.next_offset)
        assert kept.code == ResponseCode.SUCCESS and kept.messages[0].message.body == bytes([moved.next_offset]) * BODY
    assert "retention (expired) deleted commit-log segment 0-" in (master.dir / "agent.log").read_text()
    assert "retention (expired) deleted commit-log segment 0-" in (slave.dir / "agent.log").read_text()
