"""One broker set's replicas probed one by one while a slave may act as master: what an agent lists, a send and a
pull on one topic over the agent API, and how an access point routes that topic.

The slave-acting-master tests (the controller down, and the controller up with nobody electable) and the
acting-master benchmark ask these of each replica and access point.
"""

from __future__ import annotations

from typing import Any

import grpc

from agents.access.protocol import service, stubs, v2
from mqbase.client import AgentClient
from mqbase.proto import agent_pb2 as pb
from tests.harness.sandbox import Cli

TOPIC = "Acting"
"""The topic the probes send, pull and route: one queue (the tests create it)."""
CLIENT = (("x-mq-client-id", "acting-test"),)


def listed(cli: Cli, address: str) -> dict[str, Any]:
    """The broker at `address` as its agent lists it (listBrokers needs no controller)."""
    [broker] = cli.json("listBrokers", "-c", address)
    assert isinstance(broker, dict)
    return broker


def pull(address: str) -> Any:
    """Queue 0 of the topic from the replica at `address`, from its start."""
    with AgentClient(timeout=5.0) as agents:
        return agents.call(address, "PullMessage", pb.PullMessageRequest(topic=TOPIC, queue_id=0, max_messages=10))


def route(access_point: str) -> list[tuple[int, list[str]]]:
    """The topic's queues as that access point routes them: each queue's permission and its set's endpoints."""
    with grpc.insecure_channel(access_point) as channel:
        request = service.QueryRouteRequest(topic=v2.Resource(name=TOPIC))
        answer = stubs.MessagingServiceStub(channel).QueryRoute(request, metadata=CLIENT, timeout=10)
    assert answer.status.code == v2.OK, answer.status
    return [(q.permission, [f"{a.host}:{a.port}" for a in q.broker.endpoints.addresses]) for q in answer.message_queues]


def send(address: str) -> Any:
    """One message to the topic, sent to the replica at `address` over the agent API."""
    with AgentClient(timeout=5.0) as agents:
        return agents.call(address, "SendMessage", pb.SendMessageRequest(message=pb.Message(topic=TOPIC, body=b"x")))
