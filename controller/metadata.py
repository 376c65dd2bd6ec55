"""Cluster metadata decisions: topics and subscription groups, pure like ``controller.state``.

``compute_metadata`` decides an update, delete or read against the state; ``apply_metadata`` applies a committed
metadata event. Every event carries the ``metadata_version`` it was decided on and is a no-op once another change
has moved the version on, so two updates can never lose each other: the leader decides them one after the other
on its speculative state, and a stale event (a leader change in between) changes nothing.

An update merges: options left out keep the topic's (or group's) current value, and the broker sets named are
added to those already serving it. No I/O, no clock.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Any, assert_never

from controller.events import (
    DeleteSubscriptionGroup,
    DeleteTopic,
    MetadataEvent,
    SetBrokerWritePerm,
    UpdateSubscriptionGroup,
    UpdateTopic,
)
from controller.model import ControllerState, SubscriptionGroup, TopicConfig
from controller.requests import (
    DeleteSubscriptionGroupRequest,
    DeleteTopicRequest,
    GetMetadataRequest,
    MetadataChangeReply,
    MetadataReply,
    MetadataRequest,
    Result,
    SetBrokerPermissionRequest,
    UpdateSubscriptionGroupRequest,
    UpdateTopicRequest,
)
from mqbase.codes import ResponseCode as C


def _serving_sets(state: ControllerState, cluster_name: str, broker_name: str) -> tuple[str, frozenset[str]] | str:
    """(cluster, broker sets) that `-c` or `-b` names, or the remark of a refusal (nothing registered)."""
    if broker_name:
        bs = state.get(broker_name)
        if bs is None:
            return f"Broker-set: {broker_name} hasn't been registered in controller"
        return bs.cluster_name, frozenset({broker_name})
    names = frozenset(bs.broker_name for bs in state if bs.cluster_name == cluster_name)
    if not names:
        return f"cluster {cluster_name} has no broker set registered in controller"
    return cluster_name, names


def _other_cluster(kind: str, name: str, owner: str, cluster: str) -> Result[Any]:
    return Result(C.CONTROLLER_INVALID_REQUEST, f"{kind} {name} belongs to cluster {owner}, not {cluster}")


def update_topic(state: ControllerState, req: UpdateTopicRequest) -> Result[MetadataChangeReply]:
    """Create a topic or change it; the same config again is a no-op success."""
    serving = _serving_sets(state, req.cluster_name, req.broker_name)
    if isinstance(serving, str):
        return Result(C.CONTROLLER_BROKER_METADATA_NOT_EXIST, serving)
    cluster, names = serving
    old = state.topics.get(req.topic_name)
    if old is not None and old.cluster_name != cluster:
        return _other_cluster("topic", req.topic_name, old.cluster_name, cluster)
    base = old or TopicConfig(req.topic_name, cluster, frozenset())
    attributes = {**base.attributes, **req.attributes}
    new = replace(
        base,
        broker_names=base.broker_names | names,
        read_queue_nums=base.read_queue_nums if req.read_queue_nums is None else req.read_queue_nums,
        write_queue_nums=base.write_queue_nums if req.write_queue_nums is None else req.write_queue_nums,
        perm=base.perm if req.perm is None else req.perm,
        attributes=MappingProxyType({k: v for k, v in sorted(attributes.items()) if v is not None}),
    )
    if new == old:
        return Result(C.SUCCESS, reply=MetadataChangeReply(state.metadata_version, False, topic=old))
    reply = MetadataChangeReply(state.metadata_version + 1, True, topic=new)
    return Result(C.SUCCESS, reply=reply, events=(UpdateTopic(new, state.metadata_version),))


def delete_topic(state: ControllerState, req: DeleteTopicRequest) -> Result[MetadataChangeReply]:
    """Remove a topic's metadata; an unknown topic is a no-op success (as Java's ``deleteTopic``)."""
    old = state.topics.get(req.topic_name)
    if old is None:
        unchanged = MetadataChangeReply(state.metadata_version, False)
        return Result(C.SUCCESS, f"topic {req.topic_name} does not exist; nothing to delete", unchanged)
    if old.cluster_name != req.cluster_name:
        return _other_cluster("topic", req.topic_name, old.cluster_name, req.cluster_name)
    reply = MetadataChangeReply(state.metadata_version + 1, True)
    return Result(C.SUCCESS, reply=reply, events=(DeleteTopic(req.topic_name, state.metadata_version),))


def update_group(state: ControllerState, req: UpdateSubscriptionGroupRequest) -> Result[MetadataChangeReply]:
    """Create a subscription group or change it; the same config again is a no-op success."""
    serving = _serving_sets(state, req.cluster_name, req.broker_name)
    if isinstance(serving, str):
        return Result(C.CONTROLLER_BROKER_METADATA_NOT_EXIST, serving)
    cluster, names = serving
    old = state.groups.get(req.group_name)
    if old is not None and old.cluster_name != cluster:
        return _other_cluster("group", req.group_name, old.cluster_name, cluster)
    base = old or SubscriptionGroup(req.group_name, cluster, frozenset())
    new = replace(
        base,
        broker_names=base.broker_names | names,
        consume_orderly=base.consume_orderly if req.consume_orderly is None else req.consume_orderly,
        retry_max_times=base.retry_max_times if req.retry_max_times is None else req.retry_max_times,
        consume_enable=base.consume_enable if req.consume_enable is None else req.consume_enable,
        retry_policy=base.retry_policy if req.retry_policy is None else req.retry_policy,
    )
    if new == old:
        return Result(C.SUCCESS, reply=MetadataChangeReply(state.metadata_version, False, group=old))
    reply = MetadataChangeReply(state.metadata_version + 1, True, group=new)
    return Result(C.SUCCESS, reply=reply, events=(UpdateSubscriptionGroup(new, state.metadata_version),))


def delete_group(state: ControllerState, req: DeleteSubscriptionGroupRequest) -> Result[MetadataChangeReply]:
    """Remove a subscription group's metadata; an unknown group is a no-op success."""
    old = state.groups.get(req.group_name)
    if old is None:
        unchanged = MetadataChangeReply(state.metadata_version, False)
        return Result(C.SUCCESS, f"group {req.group_name} does not exist; nothing to delete", unchanged)
    if old.cluster_name != req.cluster_name:
        return _other_cluster("group", req.group_name, old.cluster_name, req.cluster_name)
    reply = MetadataChangeReply(state.metadata_version + 1, True)
    return Result(C.SUCCESS, reply=reply, events=(DeleteSubscriptionGroup(req.group_name, state.metadata_version),))


def get_metadata(state: ControllerState) -> Result[MetadataReply]:
    topics = tuple(state.topics[name] for name in sorted(state.topics))
    groups = tuple(state.groups[name] for name in sorted(state.groups))
    reply = MetadataReply(state.metadata_version, topics, groups, tuple(sorted(state.write_wiped)))
    return Result(C.SUCCESS, reply=reply)


def set_broker_permission(state: ControllerState, req: SetBrokerPermissionRequest) -> Result[MetadataChangeReply]:
    """Wipe or give back a broker set's write permission (Java's ``wipeWritePerm`` / ``addWritePerm``); the set
    must be registered, and of `cluster_name` when one is given. Asking for what holds already is a no-op."""
    bs = state.get(req.broker_name)
    if bs is None:
        return Result(C.CONTROLLER_BROKER_METADATA_NOT_EXIST,
                      f"Broker-set: {req.broker_name} hasn't been registered in controller")  # fmt: skip
    if req.cluster_name and bs.cluster_name != req.cluster_name:
        return Result(C.CONTROLLER_BROKER_METADATA_NOT_EXIST,
                      f"Broker-set: {req.broker_name} hasn't been registered in cluster {req.cluster_name}, it "
                      f"belongs to cluster {bs.cluster_name}")  # fmt: skip
    if (req.broker_name not in state.write_wiped) == req.writable:
        return Result(C.SUCCESS, reply=MetadataChangeReply(state.metadata_version, False))
    event = SetBrokerWritePerm(req.broker_name, req.writable, state.metadata_version)
    return Result(C.SUCCESS, reply=MetadataChangeReply(state.metadata_version + 1, True), events=(event,))


def compute_metadata(state: ControllerState, request: MetadataRequest) -> Result[Any]:
    """Decide a metadata request (``controller.state.compute`` hands them here)."""
    match request:
        case UpdateTopicRequest():
            return update_topic(state, request)
        case DeleteTopicRequest():
            return delete_topic(state, request)
        case UpdateSubscriptionGroupRequest():
            return update_group(state, request)
        case DeleteSubscriptionGroupRequest():
            return delete_group(state, request)
        case GetMetadataRequest():
            return get_metadata(state)
        case SetBrokerPermissionRequest():
            return set_broker_permission(state, request)
        case _:
            assert_never(request)


def apply_metadata(state: ControllerState, event: MetadataEvent) -> ControllerState:
    """Apply a committed metadata event; one decided on another version is a no-op."""
    if event.expected_metadata_version != state.metadata_version:
        return state
    topics, groups, wiped = state.topics, state.groups, state.write_wiped
    match event:
        case UpdateTopic():
            topics = MappingProxyType({**topics, event.topic.topic_name: event.topic})
        case DeleteTopic():
            topics = MappingProxyType({k: v for k, v in topics.items() if k != event.topic_name})
        case UpdateSubscriptionGroup():
            groups = MappingProxyType({**groups, event.group.group_name: event.group})
        case DeleteSubscriptionGroup():
            groups = MappingProxyType({k: v for k, v in groups.items() if k != event.group_name})
        case SetBrokerWritePerm():
            wiped = wiped - {event.broker_name} if event.writable else wiped | {event.broker_name}
        case _:
            assert_never(event)
    return replace(state, topics=topics, groups=groups, write_wiped=wiped, metadata_version=state.metadata_version + 1)
