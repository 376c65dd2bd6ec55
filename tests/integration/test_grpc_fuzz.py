"""Every controller and agent RPC against bad requests: missing, negative, huge, unicode and wrong-typed values.

The methods are enumerated from the service descriptors (controller.proto, agent.proto), and every field of each
request is filled generically by its protobuf type, so a new RPC or field is fuzzed without editing this file.
Each call must get a response with a RocketMQ ``code`` (and a ``remark`` when it is not SUCCESS), or a clean
INVALID_ARGUMENT on the heartbeat stream and for bytes that are not a protobuf of the method's type
(``mqbase.grpc_guard``). Afterwards the controller's metadata and configuration and the agent's
state must be what they were. Real processes on loopback: the module's 3-node group and one mqagent.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor as d  # type: ignore[import-untyped]
from google.protobuf.message import Message  # type: ignore[import-untyped]
from grpc_health.v1 import health_pb2

from mqadmin_py.sandbox import Sandbox
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2, common_pb2, controller_pb2
from tests.harness.agents import BROKER, AgentProcess, create_topic
from tests.harness.controllers import leader, metadata, node_config
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

CONTROLLER = controller_pb2.DESCRIPTOR.services_by_name["ControllerService"]
AGENT = agent_pb2.DESCRIPTOR.services_by_name["AgentService"]
HEALTH = health_pb2.DESCRIPTOR.services_by_name["Health"]  # grpc's own services on the same ports are covered too
KNOWN_CODES = {int(c) for c in ResponseCode}
MODES = ["missing", "negative", "huge", "unicode"]
INTS = {"negative": -1, "huge": 2**63 - 1, "unicode": 0}
INT32S = {"negative": -(2**31), "huge": 2**31 - 1, "unicode": 0}
TEXTS = {"negative": "-1 ", "huge": "x" * 100_000, "unicode": "名前🙂\u202eé\u0000"}
RAW = [b"\xff\xff\xff", b"\x0a\x05ab", b"\x08" + b"\xff" * 10 + b"\x01", b"\x12\x80\x80\x80\x80\x10", b"\x00" * 5]
"""Not a protobuf of any request: a bad tag, a truncated string, an overlong varint, a giant length, field 0."""


def fill(message: Message, mode: str, depth: int = 0) -> Message:
    """Every field of `message` set to the `mode` value of its type (nothing set for "missing")."""
    if mode == "missing":
        return message
    for field in message.DESCRIPTOR.fields:
        value: Any
        if field.type == d.FieldDescriptor.TYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry:
                key_field, value_field = field.message_type.fields
                getattr(message, field.name)[_scalar(key_field, mode)] = _scalar(value_field, mode)
            elif depth < 2:
                sub = getattr(message, field.name)
                if field.is_repeated:
                    fill(sub.add(), mode, depth + 1)
                else:
                    sub.SetInParent()
                    fill(sub, mode, depth + 1)
            continue
        value = _scalar(field, mode)
        if field.is_repeated:
            getattr(message, field.name).extend([value, value])
        else:
            setattr(message, field.name, value)
    return message


def _scalar(field: d.FieldDescriptor, mode: str) -> Any:
    if field.type == d.FieldDescriptor.TYPE_BOOL:
        return True
    if field.type == d.FieldDescriptor.TYPE_STRING:
        return TEXTS[mode]
    if field.type == d.FieldDescriptor.TYPE_BYTES:
        return TEXTS[mode].encode()
    if field.type in (d.FieldDescriptor.TYPE_INT32, d.FieldDescriptor.TYPE_SINT32, d.FieldDescriptor.TYPE_SFIXED32):
        return INT32S[mode]
    if field.type == d.FieldDescriptor.TYPE_ENUM:
        return 0
    return INTS[mode]


def requests(service: d.ServiceDescriptor, aim: str | None = None) -> Iterator[tuple[str, str, Message]]:
    """(method, mode, request) for every unary method and mode; with `aim`, broker names point at that broker."""
    for method in service.methods:
        if method.client_streaming or method.server_streaming:
            continue
        request_type = agent_pb2 if service is AGENT else controller_pb2
        for mode in MODES:
            if aim is not None and mode == "missing":
                continue  # a request naming a broker and nothing else can be valid (ElectMaster: a controller trigger)
            message = _message_class(request_type, method.input_type)()
            fill(message, mode)
            if aim is not None:
                _aim(message, aim)
            yield method.name, mode, message


def _message_class(module: Any, descriptor: d.Descriptor) -> type[Message]:
    from google.protobuf import message_factory

    cls: type[Message] = message_factory.GetMessageClass(descriptor)
    return cls


def _aim(message: Message, broker_name: str) -> None:
    """Name the real broker wherever a broker is named, so the fuzz values reach past the lookup."""
    for field in message.DESCRIPTOR.fields:
        if field.name == "broker_name" and not field.is_repeated:
            setattr(message, field.name, broker_name)
        elif field.name == "broker_id" and field.has_presence and message.DESCRIPTOR.name == "BrokerRef":
            message.ClearField("broker_id")
        elif field.type == d.FieldDescriptor.TYPE_MESSAGE and not field.is_repeated and message.HasField(field.name):
            _aim(getattr(message, field.name), broker_name)


def call(channel: grpc.Channel, service: d.ServiceDescriptor, method: str, payload: bytes) -> bytes:
    """One unary call with identity serializers: what goes on the wire is exactly `payload`."""
    stub = channel.unary_unary(f"/{service.full_name}/{method}", request_serializer=None, response_deserializer=None)
    reply: bytes = stub(payload, timeout=10)
    return reply


def check_answer(service: d.ServiceDescriptor, method: str, mode: str, reply: bytes) -> None:
    response_type = _message_class(None, service.methods_by_name[method].output_type)
    response = response_type.FromString(reply)
    code, remark = response.code, response.remark
    assert code in KNOWN_CODES, f"{method}/{mode}: unknown code {code} ({remark})"
    assert code == 0 or remark, f"{method}/{mode}: code {code} without a remark"


def check_undecodable(exc: grpc.RpcError, service: d.ServiceDescriptor, method: str) -> None:
    """The answer to bytes that do not parse: INVALID_ARGUMENT naming the method, its request type and the way out."""
    request_type = service.methods_by_name[method].input_type.full_name
    details = exc.details() or ""
    assert exc.code() is grpc.StatusCode.INVALID_ARGUMENT, (method, exc)
    assert f"/{service.full_name}/{method}: the request is not a valid {request_type} protobuf" in details, details
    assert "check that the client and the server run matching versions" in details, details


def check_raw(channel: grpc.Channel, service: d.ServiceDescriptor, skip: tuple[str, ...] = ()) -> None:
    """Bytes that are not a protobuf of the request type are refused with INVALID_ARGUMENT before any handler."""
    for method in service.methods:
        if method.client_streaming or method.server_streaming or method.name in skip:
            continue
        for payload in RAW:
            with pytest.raises(grpc.RpcError) as info:
                call(channel, service, method.name, payload)
            check_undecodable(info.value, service, method.name)


# --- controller ----------------------------------------------------------------------------------


def controller_state(sandbox: Sandbox) -> tuple[Any, ...]:
    """What a bad request must not change: every broker set, and each node's configuration."""
    for c in sandbox.controllers():  # a node may still be starting on a loaded box
        wait_until(partial(metadata, c.address), 30, f"{c.id} to answer")

    def recorded() -> bool:
        versions = {node_config(c.address).config_version for c in sandbox.controllers()}
        return len(versions) == 1 and versions.pop() > 0

    # The first leader records the group's runtime values once it serves; every node applies them soon after.
    wait_until(recorded, 20, "every node to apply the group config the first leader recorded")
    lead = leader(sandbox)
    with grpc.insecure_channel(lead.address) as channel:
        data = call(
            channel,
            CONTROLLER,
            "GetSyncStateData",
            controller_pb2.GetSyncStateDataRequest(all_broker_sets=True).SerializeToString(),
        )
    configs = []
    for node in sandbox.controllers():
        with grpc.insecure_channel(node.address) as channel:
            configs.append(call(channel, CONTROLLER, "GetControllerConfig", b""))
    return data, tuple(configs)


def test_every_controller_rpc_answers_bad_values_with_a_code_and_changes_nothing(
    sandbox: Sandbox, brokers: Any
) -> None:
    fb = brokers("fuzz-set")  # a registered, alive set, so that requests aimed at it reach the state machine
    before = controller_state(sandbox)
    lead = leader(sandbox)
    with grpc.insecure_channel(lead.address) as channel:
        for aim in (None, fb.broker_name):
            for method, mode, message in requests(CONTROLLER, aim):
                check_answer(CONTROLLER, method, mode, call(channel, CONTROLLER, method, message.SerializeToString()))
        check_raw(channel, CONTROLLER)
        check_raw(channel, HEALTH, skip=("List",))  # grpc.aio's List is synchronous and unimplemented: left alone
    assert controller_state(sandbox) == before


def test_heartbeat_stream_aborts_bad_beats_with_invalid_argument(sandbox: Sandbox) -> None:
    node = sandbox.controllers()[0]
    with grpc.insecure_channel(node.address) as channel:
        stream = channel.stream_stream(
            f"/{CONTROLLER.full_name}/HeartbeatStream", request_serializer=None, response_deserializer=None
        )
        for mode in MODES:
            beat = fill(controller_pb2.BrokerHeartbeatRequest(), mode).SerializeToString()
            with pytest.raises(grpc.RpcError) as info:
                list(stream(iter([beat]), timeout=10))
            assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT, mode
            assert "CONTROLLER_INVALID_REQUEST" in (info.value.details() or "")
        for payload in RAW:  # a beat that does not parse ends the stream (the broker counts as gone)
            with pytest.raises(grpc.RpcError) as info:
                list(stream(iter([payload]), timeout=10))
            check_undecodable(info.value, CONTROLLER, "HeartbeatStream")


def test_a_port_made_of_unicode_digits_is_an_invalid_request(sandbox: Sandbox) -> None:
    """Regression: "²" passes str.isdigit() but not int(), and 5000 digits exceed int()'s limit: both crashed."""
    lead = leader(sandbox)
    with grpc.insecure_channel(lead.address) as channel:
        for port in ("²", "9" * 5000):
            request = controller_pb2.RegisterBrokerRequest(
                cluster_name="c", broker_name="b", broker_id=1, broker_address=f"127.0.0.1:{port}"
            )
            reply = controller_pb2.RegisterBrokerResponse.FromString(
                call(channel, CONTROLLER, "RegisterBroker", request.SerializeToString())
            )
            assert reply.code == ResponseCode.CONTROLLER_INVALID_REQUEST and "brokerAddress" in reply.remark


def test_a_config_value_beyond_a_java_long_is_refused(sandbox: Sandbox) -> None:
    """Regression: 10**400 was accepted and persisted, and the detection loop died dividing it by 1000.0."""
    node = sandbox.controllers()[0]
    with grpc.insecure_channel(node.address) as channel:
        request = controller_pb2.UpdateControllerConfigRequest(
            properties={"scanNotActiveBrokerInterval": "1" + "0" * 400}
        )
        reply = controller_pb2.UpdateControllerConfigResponse.FromString(
            call(channel, CONTROLLER, "UpdateControllerConfig", request.SerializeToString())
        )
    assert reply.code == ResponseCode.CONTROLLER_INVALID_REQUEST and "at most" in reply.remark


# --- agent ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def agent(sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentProcess]:
    """One mqagent whose single broker is master of its own set."""
    proc = AgentProcess(tmp_path_factory.mktemp("fuzz-agent"), "a0", sandbox.addresses(), {BROKER: {}})
    try:
        proc.start()
        wait_until(lambda: proc.role(BROKER) == "master", 60, "the broker to become master")
        create_topic(sandbox.addresses(), "Fuzz")
        yield proc
    finally:
        proc.close()


def send(proc: AgentProcess, body: bytes) -> agent_pb2.SendMessageResponse:
    request = agent_pb2.SendMessageRequest(
        broker=agent_pb2.BrokerRef(broker_name=BROKER), message=agent_pb2.Message(topic="Fuzz", queue_id=0, body=body)
    )
    response: agent_pb2.SendMessageResponse = proc.stub().SendMessage(request, timeout=10)
    return response


def agent_state(proc: AgentProcess) -> tuple[Any, ...]:
    stub = proc.stub()
    status = stub.GetHAStatus(agent_pb2.BrokerRef(broker_name=BROKER), timeout=5)
    brokers = stub.ListBrokers(agent_pb2.ListBrokersRequest(), timeout=5)
    config = stub.GetBrokerConfig(agent_pb2.BrokerRef(broker_name=BROKER), timeout=5)
    epochs = stub.GetBrokerEpochCache(agent_pb2.GetBrokerEpochCacheRequest(broker_name=BROKER), timeout=5)
    return status, brokers, config, epochs


def test_every_agent_rpc_answers_bad_values_with_a_code_and_changes_nothing(agent: AgentProcess) -> None:
    assert send(agent, b"x").code == ResponseCode.SUCCESS
    before = agent_state(agent)
    for port in (agent.port, agent.broker_ports[BROKER]):
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            for aim in (None, BROKER):
                for method, mode, message in requests(AGENT, aim):
                    check_answer(AGENT, method, mode, call(channel, AGENT, method, message.SerializeToString()))
            check_raw(channel, AGENT)
            check_raw(channel, HEALTH)
    assert agent_state(agent) == before
    assert agent.proc is not None and agent.proc.poll() is None


def test_a_transfer_pause_with_a_huge_wait_or_an_impossible_target_is_refused(agent: AgentProcess) -> None:
    """Regression: in the master's own epoch, timeout_millis=2**63-1 reached Condition.wait (OverflowError, an
    UNKNOWN status) with writes already paused, and a lease as long: writes paused for good."""
    epoch = agent.ha_status(BROKER).master_epoch
    for target, timeout, lease in ((2, 2**63 - 1, 2**63 - 1), (-5, 100, 2000), (2, 100, 2**62)):
        request = agent_pb2.PrepareTransferRequest(
            broker=agent_pb2.BrokerRef(broker_name=BROKER),
            target_broker_id=target,
            target_address="127.0.0.1:1",
            master_epoch=epoch,
            timeout_millis=timeout,
            lease_millis=lease,
            token="fuzz",
        )
        reply = agent.stub().PrepareTransfer(request, timeout=10)
        assert reply.code == ResponseCode.CONTROLLER_INVALID_REQUEST, reply
    sent = send(agent, b"y")
    assert sent.code == ResponseCode.SUCCESS, sent.remark


def test_a_malformed_role_change_push_is_refused(agent: AgentProcess) -> None:
    """Regression: a push naming an address that cannot exist, in epoch 2**31-1, made the master a slave of it
    for good (a role changes only for a higher epoch)."""
    note = common_pb2.RoleChangeNotification(
        broker_name=BROKER,
        master_broker_id=99,
        master_address="x" * 300,
        master_ha_address="nowhere",
        master_epoch=2**31 - 1,
        sync_state_set=[99],
    )
    reply = agent.stub().NotifyBrokerRoleChanged(note, timeout=10)
    assert reply.code == ResponseCode.CONTROLLER_INVALID_REQUEST and "masterAddress" in reply.remark
    assert agent.role(BROKER) == "master"
