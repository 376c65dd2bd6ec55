"""The access point of a secure sandbox (``up(secure=True)``: TLS with client certificates on every agent port, the
ACL on): TLS without a client certificate (the RocketMQ clients have none), and the RocketMQ 5 signature checked
against the agent's credentials. Raw gRPC with the official client's protos and its own signing function: the Python
client trusts the system's roots only, which the sandbox's CA is not among.
"""

from __future__ import annotations

import datetime
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from rocketmq.grpc_protocol import definition_pb2 as v2
from rocketmq.grpc_protocol import service_pb2 as svc
from rocketmq.grpc_protocol import service_pb2_grpc as svc_grpc
from rocketmq.v5.util.signature import Signature

from mqadmin_py.sandbox import Sandbox
from mqbase.security import Credential
from tests.harness.sandbox import Cli, learnt, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TOPIC = "SecureOrders"
GROUP = "GID_secure"


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    path = Path(tmp_path_factory.mktemp("access-secure"))
    with serving_sandbox(path, controllers=1, replicas=1, secure=True) as sandbox:
        cli = Cli(sandbox.dir, sandbox.addresses())
        cli.env["MQADMIN_CREDENTIALS_FILE"] = str(sandbox.credentials_file)
        made = cli.json("updateTopic", "-c", "DefaultCluster", "-t", TOPIC, "-r", "1", "-w", "1")
        wait_until(lambda: learnt(cli, sandbox, made["metadataVersion"]), 60, "the broker to learn the topic")
        yield sandbox


@pytest.fixture(scope="module")
def stub(box: Sandbox) -> Iterator[Any]:
    ca = Path(box.security().ca_file).read_bytes()
    credentials = grpc.ssl_channel_credentials(root_certificates=ca)  # no client certificate
    with grpc.secure_channel(box.proxy_endpoints(), credentials) as channel:
        yield svc_grpc.MessagingServiceStub(channel)


def signed(credential: Credential | None, secret: str | None = None) -> list[tuple[str, str]]:
    """The headers the official client sends (``Signature.metadata``), signed with `credential` (or `secret`)."""
    now = datetime.datetime.now().strftime("%Y%m%dT%H%M%SZ")
    headers = [("x-mq-client-id", f"secure-test@{os.getpid()}"), ("x-mq-date-time", now)]
    if credential is not None:
        signature = Signature.sign(secret if secret is not None else credential.secret_key, now)
        headers.append(
            ("authorization", f"MQv2-HMAC-SHA1 Credential={credential.access_key}, "
                              f"SignedHeaders=x-mq-date-time, Signature={signature}")
        )  # fmt: skip
    return headers


def test_tls_without_a_client_certificate_and_the_signature_are_what_a_client_needs(box: Sandbox, stub: Any) -> None:
    credential = box.security().credential
    assert credential is not None
    route = svc.QueryRouteRequest(topic=v2.Resource(name=TOPIC))
    answer = stub.QueryRoute(route, metadata=signed(credential), timeout=10)
    assert answer.status.code == v2.OK and len(answer.message_queues) == 1

    for headers, text in [
        (signed(None), "no valid MQv2-HMAC-SHA1 authorization header"),
        (signed(credential, secret="not-the-secret"), "the signature of access key"),
    ]:
        refused = stub.QueryRoute(route, metadata=headers, timeout=10)
        assert refused.status.code == v2.UNAUTHORIZED and refused.status.message.startswith(text)
        assert not refused.message_queues

    m = v2.Message(topic=v2.Resource(name=TOPIC), body=b"secret")
    m.system_properties.message_id = uuid.uuid4().hex.upper()
    m.system_properties.message_type = v2.NORMAL
    sent = stub.SendMessage(svc.SendMessageRequest(messages=[m]), metadata=signed(credential), timeout=10)
    assert sent.status.code == v2.OK, sent.status

    queue = answer.message_queues[0]
    receive = svc.ReceiveMessageRequest(
        group=v2.Resource(name=GROUP), message_queue=queue, batch_size=8,
        filter_expression=v2.FilterExpression(type=v2.TAG, expression="*"),
    )  # fmt: skip
    receive.invisible_duration.FromSeconds(30)
    receive.long_polling_timeout.FromSeconds(5)
    got = [r.message for r in stub.ReceiveMessage(receive, metadata=signed(credential), timeout=15)
           if r.HasField("message")]  # fmt: skip
    assert [x.body for x in got] == [b"secret"]
    ack = svc.AckMessageRequest(group=v2.Resource(name=GROUP), topic=v2.Resource(name=TOPIC))
    ack.entries.add(
        message_id=got[0].system_properties.message_id, receipt_handle=got[0].system_properties.receipt_handle
    )
    assert stub.AckMessage(ack, metadata=signed(credential), timeout=10).status.code == v2.OK


def test_plaintext_is_not_served_when_the_agent_has_tls(box: Sandbox) -> None:
    with grpc.insecure_channel(box.proxy_endpoints()) as channel:
        stub = svc_grpc.MessagingServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            stub.QueryRoute(svc.QueryRouteRequest(topic=v2.Resource(name=TOPIC)), timeout=5)
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
