"""A broker set's write permission in the replicated metadata (``wipeWritePerm`` / ``addWritePerm``):
compute, apply, fencing, codec, convert."""

from __future__ import annotations

import json

import pytest

from controller import convert
from controller.codec import CodecError, decode_events, decode_state, encode_events, encode_state
from controller.convert import InvalidRequest
from controller.events import SetBrokerWritePerm
from controller.requests import GetMetadataRequest, MetadataChangeReply, MetadataReply, SetBrokerPermissionRequest
from controller.state import apply_events, compute
from mqbase.codes import ResponseCode as C
from mqbase.proto import controller_pb2 as pb
from tests.harness.controller_state import CLUSTER, reply_of, run, two_sets_of_three

A, B = "broker-a", "broker-b"


def test_wiping_and_adding_back_change_the_set_and_the_metadata_version() -> None:
    state = two_sets_of_three()
    wiped, result = run(state, SetBrokerPermissionRequest(CLUSTER, A, writable=False), {})
    assert result.code == C.SUCCESS
    assert wiped.write_wiped == frozenset({A}) and wiped.metadata_version == state.metadata_version + 1
    assert reply_of(result, MetadataChangeReply) == MetadataChangeReply(wiped.metadata_version, True)
    back, result = run(wiped, SetBrokerPermissionRequest("", A, writable=True), {})  # no cluster: not checked
    assert result.code == C.SUCCESS and back.write_wiped == frozenset()
    assert back.metadata_version == wiped.metadata_version + 1


def test_asking_for_what_holds_already_is_a_noop_success() -> None:
    state = two_sets_of_three()
    after, result = run(state, SetBrokerPermissionRequest(CLUSTER, A, writable=True), {})
    assert (result.code, result.events, after) == (C.SUCCESS, (), state)
    assert reply_of(result, MetadataChangeReply) == MetadataChangeReply(state.metadata_version, False)


@pytest.mark.parametrize(
    ("request_", "remark"),
    [
        (SetBrokerPermissionRequest(CLUSTER, "nope", False), "Broker-set: nope hasn't been registered in controller"),
        (SetBrokerPermissionRequest("Other", A, False), "hasn't been registered in cluster Other, it belongs to"),
    ],
)
def test_a_wrong_set_or_cluster_is_refused_with_2008_and_changes_nothing(
    request_: SetBrokerPermissionRequest, remark: str
) -> None:
    state = two_sets_of_three()
    after, result = run(state, request_, {})
    assert result.code == C.CONTROLLER_BROKER_METADATA_NOT_EXIST and remark in result.remark
    assert after == state


def test_get_metadata_lists_the_wiped_sets() -> None:
    state = apply_events(two_sets_of_three(), [SetBrokerWritePerm(B, False, 0), SetBrokerWritePerm(A, False, 1)])
    result = compute(state, GetMetadataRequest(), {}, allow_unclean=False)
    assert reply_of(result, MetadataReply) == MetadataReply(2, (), (), (A, B))
    assert convert.metadata_reply(result)["write_wiped_broker_names"] == [A, B]


def test_an_event_decided_on_another_version_is_a_noop() -> None:
    state = two_sets_of_three()
    assert apply_events(state, [SetBrokerWritePerm(A, False, 5)]) == state


def test_the_event_and_the_snapshot_keep_it() -> None:
    event = SetBrokerWritePerm(A, False, 3)
    assert decode_events(encode_events([event])) == [event]
    state = apply_events(two_sets_of_three(), [SetBrokerWritePerm(A, False, 0)])
    assert decode_state(encode_state(state)) == state


def test_a_snapshot_written_before_it_loads_with_none_wiped_and_a_bad_one_is_named() -> None:
    doc = json.loads(encode_state(two_sets_of_three()))
    del doc["writeWipedSets"]
    assert decode_state(json.dumps(doc).encode()).write_wiped == frozenset()
    doc["writeWipedSets"] = "broker-a"
    with pytest.raises(CodecError, match="writeWipedSets"):
        decode_state(json.dumps(doc).encode())


def test_convert_checks_the_names() -> None:
    assert convert.set_broker_permission(pb.SetBrokerPermissionRequest(broker_name=A, writable=True)) == (
        SetBrokerPermissionRequest("", A, True)
    )
    with pytest.raises(InvalidRequest):
        convert.set_broker_permission(pb.SetBrokerPermissionRequest(cluster_name=CLUSTER))
