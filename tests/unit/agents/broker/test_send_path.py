"""The send path of the agent API over a real store: it obeys the learnt topic metadata, and stamps the born host
and timestamp. The manager's controller address has no listener, so every re-read or creation it tries fails at
once, as with a controller group that is down."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from agents.broker.manager import ReplicasManager
from agents.metadata import BORN_HOST, BORN_TIMESTAMP
from mqbase.clock import SYSTEM
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from tests.harness.ha_master import become_master, manager_config, serve_topics, servicer_for


class Context:
    """What the servicer reads of a gRPC call's context: the peer."""

    def __init__(self, peer: str) -> None:
        self._peer = peer

    def peer(self) -> str:
        return self._peer


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[ReplicasManager]:
    """broker-a, master of epoch 1, knowing topic Orders only."""
    m = ReplicasManager(manager_config(tmp_path / "broker"), clock=SYSTEM)
    m.open_replica(1)
    become_master(m, members=frozenset({1}))
    serve_topics(m, "Orders")
    yield m
    if m.replica is not None:
        m.replica.close()


def send(topic: str, **properties: str) -> pb.SendMessageRequest:
    return pb.SendMessageRequest(message=pb.Message(topic=topic, queue_id=-1, body=b"x", properties=properties))


def stored_end(m: ReplicasManager) -> int:
    assert m.replica is not None
    return m.replica.store.max_offset


def pulled(m: ReplicasManager, topic: str, queue_id: int) -> pb.PullMessageResponse:
    request = pb.PullMessageRequest(topic=topic, queue_id=queue_id, queue_offset=0, max_messages=10)
    return servicer_for(m).PullMessage(request, None)


def test_a_known_topic_is_written_with_its_born_host_and_timestamp(manager: ReplicasManager) -> None:
    r = servicer_for(manager).SendMessage(send("Orders"), Context("ipv4:10.1.2.3:4567"))
    assert r.code == ResponseCode.SUCCESS
    [placed] = r.results
    [got] = pulled(manager, "Orders", placed.queue_id).messages
    properties = dict(got.message.properties)
    assert properties[BORN_HOST] == "10.1.2.3:4567"
    assert int(properties[BORN_TIMESTAMP]) == got.store_timestamp  # both the receive time


def test_the_producers_born_values_are_kept(manager: ReplicasManager) -> None:
    mine = {BORN_HOST: "192.168.7.7:1234", BORN_TIMESTAMP: "1700000000000"}
    r = servicer_for(manager).SendMessage(send("Orders", **mine), Context("ipv4:10.1.2.3:4567"))
    [got] = pulled(manager, "Orders", r.results[0].queue_id).messages
    assert {k: got.message.properties[k] for k in mine} == mine


def test_an_unknown_topic_is_refused_with_17_and_nothing_is_written(manager: ReplicasManager) -> None:
    before = stored_end(manager)
    r = servicer_for(manager).SendMessage(send("Payments"), None)
    assert (r.code, r.remark) == (
        ResponseCode.TOPIC_NOT_EXIST,
        "topic[Payments] not exist, apply first please! Create it: mqadmin updateTopic -t Payments -c DefaultCluster",
    )
    assert stored_end(manager) == before


def test_a_batch_with_one_unknown_topic_writes_none_of_it(manager: ReplicasManager) -> None:
    before = stored_end(manager)
    batch = pb.SendMessagesRequest(messages=[send("Orders").message, send("Payments").message])
    assert servicer_for(manager).SendMessages(batch, None).code == ResponseCode.TOPIC_NOT_EXIST
    assert stored_end(manager) == before


def test_auto_create_without_a_controller_refuses_with_14_and_writes_nothing(manager: ReplicasManager) -> None:
    """autoCreateTopicEnable never writes to a topic the controller has not created: no controller, retry."""
    manager.update_config(replace(manager.config, auto_create_topic_enable=True))
    before = stored_end(manager)
    r = servicer_for(manager).SendMessage(send("Payments"), None)
    assert r.code == ResponseCode.SERVICE_NOT_AVAILABLE
    assert r.remark.startswith("topic[Payments] not exist and cannot be created now (autoCreateTopicEnable): no "
                               "controller answered") and r.remark.endswith("; retry")  # fmt: skip
    assert stored_end(manager) == before
