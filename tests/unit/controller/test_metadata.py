"""Topics and subscription groups in the replicated state: compute, apply, fencing, codec, convert."""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

import pytest

from controller import convert
from controller.codec import CodecError, decode_events, decode_state, encode_events, encode_state
from controller.events import (
    ApplyBrokerId,
    DeleteSubscriptionGroup,
    DeleteTopic,
    Event,
    UpdateSubscriptionGroup,
    UpdateTopic,
)
from controller.model import ControllerState, SubscriptionGroup, TopicConfig
from controller.reads import needs_barrier
from controller.requests import (
    DeleteSubscriptionGroupRequest,
    DeleteTopicRequest,
    GetMetadataRequest,
    MetadataChangeReply,
    MetadataReply,
    Request,
    UpdateSubscriptionGroupRequest,
    UpdateTopicRequest,
)
from controller.state import apply_events, compute
from mqbase.codes import ResponseCode as C
from mqbase.proto import controller_pb2 as pb
from mqbase.retry import DEFAULT_RETRY_POLICY, CustomizedRetry, ExponentialRetry, to_message
from tests.harness.controller_state import CLUSTER, reply_of, run, two_sets_of_three

A, B = "broker-a", "broker-b"
BOTH = frozenset({A, B})
EXPONENTIAL = ExponentialRetry(1_000, 60_000, 2)


def topic(name: str = "T", sets: frozenset[str] = BOTH, **fields: Any) -> TopicConfig:
    return TopicConfig(name, CLUSTER, sets, **fields)


def group(name: str = "G", sets: frozenset[str] = BOTH, **fields: Any) -> SubscriptionGroup:
    return SubscriptionGroup(name, CLUSTER, sets, **fields)


def with_metadata(*events: Event) -> ControllerState:
    return apply_events(two_sets_of_three(), events)


EXISTING = with_metadata(
    UpdateTopic(topic(read_queue_nums=4, attributes=MappingProxyType({"message.type": "FIFO"})), 0),
    UpdateSubscriptionGroup(group(consume_orderly=True), 1),
)
"""Topic T (4 read queues, FIFO) and group G (orderly) on both sets, at metadata version 2."""


# --- compute + apply ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "request_", "code", "topic_after"),
    [
        # -c: every set of the cluster, Java's defaults 8/8/6, NORMAL
        (two_sets_of_three(), UpdateTopicRequest("T", cluster_name=CLUSTER), C.SUCCESS, topic()),
        # -b: one set
        (two_sets_of_three(), UpdateTopicRequest("T", broker_name=A), C.SUCCESS, topic(sets=frozenset({A}))),
        # options left out keep the topic's values; attributes change one by one
        (
            EXISTING,
            UpdateTopicRequest("T", broker_name=A, write_queue_nums=2, perm=4),
            C.SUCCESS,
            topic(read_queue_nums=4, write_queue_nums=2, perm=4, attributes={"message.type": "FIFO"}),
        ),
        (
            EXISTING,
            UpdateTopicRequest("T", broker_name=A, attributes={"message.type": None}),
            C.SUCCESS,
            topic(read_queue_nums=4),
        ),
        # an unknown set or an empty cluster: refused, nothing created
        (
            two_sets_of_three(),
            UpdateTopicRequest("T", broker_name="nope"),
            C.CONTROLLER_BROKER_METADATA_NOT_EXIST,
            None,
        ),
        (
            two_sets_of_three(),
            UpdateTopicRequest("T", cluster_name="Other"),
            C.CONTROLLER_BROKER_METADATA_NOT_EXIST,
            None,
        ),
        (
            ControllerState(),
            UpdateTopicRequest("T", cluster_name=CLUSTER),
            C.CONTROLLER_BROKER_METADATA_NOT_EXIST,
            None,
        ),
    ],
)
def test_update_topic(
    state: ControllerState, request_: UpdateTopicRequest, code: C, topic_after: TopicConfig | None
) -> None:
    after, result = run(state, request_, {})
    assert result.code == code, result.remark
    assert after.topics.get("T") == topic_after
    if code == C.SUCCESS:
        assert reply_of(result, MetadataChangeReply) == MetadataChangeReply(after.metadata_version, True, topic_after)
        assert after.metadata_version == state.metadata_version + 1
    else:
        assert after == state


def test_the_same_update_again_is_a_noop_success() -> None:
    request = UpdateTopicRequest("T", cluster_name=CLUSTER, read_queue_nums=4, attributes={"message.type": "FIFO"})
    after, result = run(EXISTING, request, {})
    assert (result.code, result.events, after) == (C.SUCCESS, (), EXISTING)
    assert reply_of(result, MetadataChangeReply) == MetadataChangeReply(2, False, EXISTING.topics["T"])


def test_a_topic_never_moves_to_another_cluster() -> None:
    other = apply_events(EXISTING, [ApplyBrokerId("Other", "broker-x", "127.0.0.1:1", 1, "127.0.0.1:1;1")])
    after, result = run(other, UpdateTopicRequest("T", cluster_name="Other"), {})
    assert (result.code, after) == (C.CONTROLLER_INVALID_REQUEST, other)
    assert result.remark == f"topic T belongs to cluster {CLUSTER}, not Other"


@pytest.mark.parametrize(
    ("request_", "code", "changed"),
    [
        (DeleteTopicRequest(CLUSTER, "T"), C.SUCCESS, True),
        (DeleteTopicRequest(CLUSTER, "Unknown"), C.SUCCESS, False),  # Java's deleteTopic: a no-op success
        (DeleteTopicRequest("Other", "T"), C.CONTROLLER_INVALID_REQUEST, False),
        (DeleteSubscriptionGroupRequest(CLUSTER, "G"), C.SUCCESS, True),
        (DeleteSubscriptionGroupRequest(CLUSTER, "Unknown"), C.SUCCESS, False),
        (DeleteSubscriptionGroupRequest("Other", "G"), C.CONTROLLER_INVALID_REQUEST, False),
    ],
)
def test_delete(request_: Request, code: C, changed: bool) -> None:
    after, result = run(EXISTING, request_, {})
    assert result.code == code, result.remark
    assert (after.metadata_version == 3) is changed
    if changed:
        assert "T" not in after.topics if isinstance(request_, DeleteTopicRequest) else "G" not in after.groups
        assert reply_of(result, MetadataChangeReply) == MetadataChangeReply(3, True)
    else:
        assert after == EXISTING


@pytest.mark.parametrize(
    ("state", "request_", "group_after"),
    [
        # a new group: Java's defaults (not orderly, 16 retries, consume enabled, customized levels)
        (two_sets_of_three(), UpdateSubscriptionGroupRequest("G", cluster_name=CLUSTER), group()),
        (
            two_sets_of_three(),
            UpdateSubscriptionGroupRequest("G", broker_name=B, consume_orderly=True, retry_max_times=3),
            group(sets=frozenset({B}), consume_orderly=True, retry_max_times=3),
        ),
        # left-out options keep the group's values (orderly stays true)
        (
            EXISTING,
            UpdateSubscriptionGroupRequest("G", broker_name=A, consume_enable=False),
            group(consume_orderly=True, consume_enable=False),
        ),
        (
            EXISTING,
            UpdateSubscriptionGroupRequest("G", cluster_name=CLUSTER, retry_policy=EXPONENTIAL),
            group(consume_orderly=True, retry_policy=EXPONENTIAL),
        ),
        (
            two_sets_of_three(),
            UpdateSubscriptionGroupRequest("G", broker_name=A, retry_policy=CustomizedRetry((2_000,))),
            group(sets=frozenset({A}), retry_policy=CustomizedRetry((2_000,))),
        ),
    ],
)
def test_update_group(
    state: ControllerState, request_: UpdateSubscriptionGroupRequest, group_after: SubscriptionGroup
) -> None:
    after, result = run(state, request_, {})
    assert result.code == C.SUCCESS, result.remark
    assert after.groups["G"] == group_after
    assert reply_of(result, MetadataChangeReply) == MetadataChangeReply(after.metadata_version, True, group=group_after)


def test_get_metadata_reads_everything_sorted_and_writes_nothing() -> None:
    state = apply_events(EXISTING, [UpdateTopic(topic("A"), 2)])
    result = compute(state, GetMetadataRequest(), {}, allow_unclean=False)
    assert result.events == ()
    assert reply_of(result, MetadataReply) == MetadataReply(
        3, (state.topics["A"], state.topics["T"]), (state.groups["G"],)
    )


def test_metadata_reads_are_plain_reads() -> None:
    """The metadata is versioned and an agent's table never goes back a version, so a deposed leader's older
    answer is harmless: no empty Raft entry per poll."""
    assert not needs_barrier([GetMetadataRequest()], has_events=False)


# --- fencing ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "stale",
    [
        UpdateTopic(topic("X"), 1),
        DeleteTopic("T", 1),
        UpdateSubscriptionGroup(group("X"), 1),
        DeleteSubscriptionGroup("G", 3),
    ],
)
def test_an_event_decided_on_another_version_is_a_noop(stale: Event) -> None:
    assert apply_events(EXISTING, [stale]) == EXISTING


def test_two_updates_decided_one_after_the_other_both_land() -> None:
    """The leader decides a batch on its speculative state, so the second sees the first's version."""
    state = two_sets_of_three()
    first = compute(state, UpdateTopicRequest("T", cluster_name=CLUSTER, read_queue_nums=2), {}, allow_unclean=False)
    speculative = apply_events(state, first.events)
    second = compute(speculative, UpdateTopicRequest("T", broker_name=A, perm=4), {}, allow_unclean=False)
    after = apply_events(state, [*first.events, *second.events])
    assert after.topics["T"] == topic(read_queue_nums=2, perm=4)
    assert after.metadata_version == 2


# --- codec --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "event",
    [
        UpdateTopic(topic(attributes=MappingProxyType({"message.type": "DELAY"})), 7),
        DeleteTopic("T", 0),
        UpdateSubscriptionGroup(group(consume_enable=False, retry_max_times=0), 3),
        UpdateSubscriptionGroup(group(retry_policy=EXPONENTIAL), 3),
        UpdateSubscriptionGroup(group(retry_policy=CustomizedRetry((5, 7))), 3),
        DeleteSubscriptionGroup("G", 2),
    ],
)
def test_metadata_events_round_trip_through_the_log(event: Event) -> None:
    assert decode_events(encode_events([event])) == [event]


def test_the_snapshot_keeps_the_metadata() -> None:
    assert decode_state(encode_state(EXISTING)) == EXISTING
    exponential = apply_events(EXISTING, [UpdateSubscriptionGroup(group(retry_policy=EXPONENTIAL), 2)])
    assert decode_state(encode_state(exponential)).groups["G"].retry_policy == EXPONENTIAL


def test_a_snapshot_and_a_log_entry_written_before_retry_policies_load_with_javas_levels() -> None:
    snapshot = json.loads(encode_state(EXISTING))
    del snapshot["subscriptionGroups"][0]["groupRetryPolicy"]
    assert decode_state(json.dumps(snapshot).encode()).groups["G"].retry_policy == DEFAULT_RETRY_POLICY
    event = json.loads(encode_events([UpdateSubscriptionGroup(group(retry_policy=EXPONENTIAL), 3)])[5:])
    del event["events"][0]["group"]["groupRetryPolicy"]
    assert decode_events(json.dumps(event).encode()) == [UpdateSubscriptionGroup(group(), 3)]


def test_a_snapshot_written_before_topics_loads_with_none() -> None:
    doc = json.loads(encode_state(two_sets_of_three()))
    for key in ("topics", "subscriptionGroups", "metadataVersion"):
        del doc[key]
    state = decode_state(json.dumps(doc).encode())
    assert (dict(state.topics), dict(state.groups), state.metadata_version) == ({}, {}, 0)
    assert state == two_sets_of_three()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["topics"][0].pop("perm"), "a topic lacks field 'perm'"),
        (lambda d: d["topics"][0].update(readQueueNums="8"), "topic 'T' field 'readQueueNums' must be int"),
        (lambda d: d["topics"][0].update(brokerNames=[1]), "topic 'T' field 'brokerNames' must be a list of str"),
        (lambda d: d["subscriptionGroups"][0].update(consumeOrderly=1), "group 'G' field 'consumeOrderly' must be"),
        (lambda d: d.update(metadataVersion=-1), "snapshot field 'metadataVersion' must be a non-negative integer"),
        (
            lambda d: d["subscriptionGroups"][0].update(groupRetryPolicy={"type": "LINEAR"}),
            "group 'G' field 'groupRetryPolicy': group retry policy 'type' must be CUSTOMIZED or EXPONENTIAL",
        ),
    ],
)
def test_a_malformed_snapshot_names_its_field(change: Any, message: str) -> None:
    doc = json.loads(encode_state(EXISTING))
    change(doc)
    with pytest.raises(CodecError, match=message.replace("(", r"\(")):
        decode_state(json.dumps(doc).encode())


# --- convert (the gRPC edge) --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "error"),
    [
        (pb.UpdateTopicRequest(cluster_name=CLUSTER, topic_name=""), "The specified topic is blank."),
        (pb.UpdateTopicRequest(cluster_name=CLUSTER, topic_name="a b"), "contains illegal characters"),
        (pb.UpdateTopicRequest(cluster_name=CLUSTER, topic_name="x" * 128), "longer than topic max length"),
        (pb.UpdateTopicRequest(cluster_name=CLUSTER, topic_name="TBW102"), "is conflict with system topic"),
        (pb.UpdateTopicRequest(cluster_name=CLUSTER, topic_name="rmq_sys_x"), "is conflict with system topic"),
        (pb.UpdateTopicRequest(topic_name="T"), "give exactly one of clusterName"),
        (pb.UpdateTopicRequest(cluster_name=CLUSTER, broker_name=A, topic_name="T"), "give exactly one"),
        (pb.UpdateTopicRequest(cluster_name=CLUSTER, topic_name="T", perm=7), "perm must be 2 (W), 4 (R) or 6"),
        (pb.UpdateTopicRequest(cluster_name=CLUSTER, topic_name="T", read_queue_nums=0), "readQueueNums must be"),
        (
            pb.UpdateTopicRequest(cluster_name=CLUSTER, topic_name="T", attributes=["+message.type=X"]),
            "attribute message.type must be one of NORMAL, FIFO, DELAY, TRANSACTION",
        ),
        (
            pb.UpdateTopicRequest(cluster_name=CLUSTER, topic_name="T", attributes=["+queue.type=X"]),
            "unknown topic attribute 'queue.type'",
        ),
        (pb.UpdateSubscriptionGroupRequest(cluster_name=CLUSTER, group_name="g/1"), "contains illegal characters"),
        (
            pb.UpdateSubscriptionGroupRequest(cluster_name=CLUSTER, group_name="G", retry_max_times=-1),
            "retryMaxTimes must be between 0",
        ),
        (
            pb.UpdateSubscriptionGroupRequest(cluster_name=CLUSTER, group_name="G", retry_policy=pb.GroupRetryPolicy()),
            "retry_policy sets neither customized nor exponential",
        ),
        (
            pb.UpdateSubscriptionGroupRequest(
                cluster_name=CLUSTER, group_name="G", retry_policy=to_message(ExponentialRetry(5, 1, 2))
            ),
            "exponential retry max must be 5..7200000 ms, got 1",
        ),
        (
            pb.UpdateSubscriptionGroupRequest(
                cluster_name=CLUSTER, group_name="G", retry_policy=to_message(CustomizedRetry(()))
            ),
            "customized retry policy needs 1 to 64 levels, got 0",
        ),
        (pb.DeleteTopicRequest(topic_name="T"), "clusterName is required"),
    ],
)
def test_bad_requests_are_refused_at_the_edge(message: Any, error: str) -> None:
    parse = {
        pb.UpdateTopicRequest: convert.update_topic,
        pb.UpdateSubscriptionGroupRequest: convert.update_subscription_group,
        pb.DeleteTopicRequest: convert.delete_topic,
    }[type(message)]
    with pytest.raises(convert.InvalidRequest) as caught:
        parse(message)
    assert error in str(caught.value)


def test_convert_keeps_absent_fields_absent() -> None:
    m = pb.UpdateTopicRequest(broker_name=A, topic_name="T", write_queue_nums=3, attributes=["+message.type=FIFO"])
    assert convert.update_topic(m) == UpdateTopicRequest("T", "", A, None, 3, None, {"message.type": "FIFO"})
    g = pb.UpdateSubscriptionGroupRequest(cluster_name=CLUSTER, group_name="%RETRY%G|x", consume_orderly=False)
    assert convert.update_subscription_group(g) == UpdateSubscriptionGroupRequest("%RETRY%G|x", CLUSTER, "", False)
    g.retry_policy.CopyFrom(to_message(EXPONENTIAL))
    assert convert.update_subscription_group(g).retry_policy == EXPONENTIAL


def test_replies_carry_the_config() -> None:
    result = compute(EXISTING, GetMetadataRequest(), {}, allow_unclean=False)
    response = pb.GetMetadataResponse(code=0, **convert.metadata_reply(result))
    assert response.metadata_version == 2
    assert [(t.topic_name, list(t.broker_names), dict(t.attributes)) for t in response.topics] == [
        ("T", [A, B], {"message.type": "FIFO"})
    ]
    assert [(g.group_name, g.consume_orderly, g.retry_max_times) for g in response.groups] == [("G", True, 16)]
    assert response.groups[0].retry_policy == to_message(DEFAULT_RETRY_POLICY)
    change = compute(EXISTING, DeleteTopicRequest(CLUSTER, "T"), {}, allow_unclean=False)
    deleted = pb.MetadataChangeResponse(**convert.metadata_change_reply(change))
    assert (deleted.metadata_version, deleted.changed, deleted.HasField("topic")) == (3, True, False)
