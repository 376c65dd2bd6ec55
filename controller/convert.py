"""Protobuf ⇄ plain data for the controller API, with request validation.

A malformed or incomplete request becomes ``InvalidRequest`` here, which the
service answers with CONTROLLER_INVALID_REQUEST (2005) and a remark naming
the field; it never reaches the state machine.
"""

from __future__ import annotations

from typing import Any

from controller.errors import ControllerError
from controller.heartbeat import DEFAULT_HEARTBEAT_TIMEOUT_MS, Heartbeat
from controller.model import SubscriptionGroup, TopicConfig
from controller.requests import (
    AlterSyncStateSetReply,
    AlterSyncStateSetRequest,
    ApplyBrokerIdRequest,
    AssignPreferredMasterReply,
    AssignPreferredMasterRequest,
    CleanBrokerDataRequest,
    DeleteSubscriptionGroupRequest,
    DeleteTopicRequest,
    ElectMasterReply,
    ElectMasterRequest,
    GetMetadataRequest,
    GetNextBrokerIdRequest,
    GetReplicaInfoRequest,
    GetSyncStateDataRequest,
    MetadataChangeReply,
    MetadataReply,
    RegisterBrokerReply,
    RegisterBrokerRequest,
    ReplicaInfoReply,
    ReplicasInfo,
    Result,
    SetBrokerPermissionRequest,
    SyncStateDataReply,
    UpdateSubscriptionGroupRequest,
    UpdateTopicRequest,
)
from controller.transfer import Record
from mqbase import metadata, retry
from mqbase.configkeys import MAX_NAME
from mqbase.proto import common_pb2 as common
from mqbase.proto import controller_pb2 as pb

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1


class InvalidRequest(ControllerError, ValueError):
    """A request field is missing or out of range; the message names it."""


def _name(value: str, field: str) -> str:
    if not value:
        raise InvalidRequest(f"{field} is required")
    if len(value) > MAX_NAME:
        raise InvalidRequest(f"{field} is longer than {MAX_NAME} characters")
    if any(c in value for c in ";\n\r\t\0"):
        raise InvalidRequest(f"{field} must not contain ';', tabs, newlines or NUL")
    return value


def _broker_id(value: int, field: str = "brokerId") -> int:
    if not 1 <= value <= INT64_MAX:
        raise InvalidRequest(f"{field} must be a positive broker id, got {value}")
    return value


def _epoch(value: int, field: str) -> int:
    if not 0 <= value <= INT32_MAX:
        raise InvalidRequest(f"{field} must be between 0 and {INT32_MAX}, got {value}")
    return value


def _address(value: str, field: str = "brokerAddress") -> str:
    host, sep, port = value.rpartition(":")
    # ASCII digits, at most 5: str.isdigit() admits "²", which int() refuses, and int() refuses 4301+ digits.
    valid_port = port.isascii() and port.isdigit() and len(port) <= 5 and 0 < int(port) < 65536
    if not sep or not host or not valid_port or len(value) > MAX_NAME:
        raise InvalidRequest(f"{field} must be host:port, got {value!r}")
    return value


def _ha_address(value: str) -> str:
    """Empty (a client that predates it) or ``host:port``."""
    return _address(value, "haAddress") if value else ""


def get_next_broker_id(m: pb.GetNextBrokerIdRequest) -> GetNextBrokerIdRequest:
    return GetNextBrokerIdRequest(_name(m.cluster_name, "clusterName"), _name(m.broker_name, "brokerName"))


def apply_broker_id(m: pb.ApplyBrokerIdRequest) -> ApplyBrokerIdRequest:
    if not m.register_check_code:
        raise InvalidRequest("registerCheckCode is required (<brokerAddress>;<epochMillis>)")
    _address(m.register_check_code.split(";")[0], "registerCheckCode address")
    return ApplyBrokerIdRequest(
        _name(m.cluster_name, "clusterName"),
        _name(m.broker_name, "brokerName"),
        _broker_id(m.applied_broker_id, "appliedBrokerId"),
        m.register_check_code,
        _ha_address(m.ha_address),
    )


def register_broker(m: pb.RegisterBrokerRequest) -> RegisterBrokerRequest:
    return RegisterBrokerRequest(
        _name(m.cluster_name, "clusterName"),
        _name(m.broker_name, "brokerName"),
        _broker_id(m.broker_id),
        _address(m.broker_address),
        _ha_address(m.ha_address),
    )


def elect_master(m: pb.ElectMasterRequest) -> ElectMasterRequest:
    broker_id = m.broker_id if m.HasField("broker_id") and m.broker_id != -1 else None
    if broker_id is not None:
        _broker_id(broker_id)
    if m.designate_elect and broker_id is None:
        raise InvalidRequest("brokerId is required for an admin-designated election")
    cluster = m.cluster_name
    if cluster:
        _name(cluster, "clusterName")
    return ElectMasterRequest(cluster, _name(m.broker_name, "brokerName"), broker_id, m.designate_elect)


def alter_sync_state_set(m: pb.AlterSyncStateSetRequest) -> AlterSyncStateSetRequest:
    if not m.HasField("new_sync_state_set") or not m.new_sync_state_set.broker_ids:
        raise InvalidRequest("newSyncStateSet is required and must not be empty")
    ids = frozenset(_broker_id(i, "syncStateSet member") for i in m.new_sync_state_set.broker_ids)
    return AlterSyncStateSetRequest(
        _name(m.broker_name, "brokerName"),
        _broker_id(m.master_broker_id, "masterBrokerId"),
        _epoch(m.master_epoch, "masterEpoch"),
        ids,
        _epoch(m.new_sync_state_set.sync_state_set_epoch, "syncStateSetEpoch"),
    )


def get_replica_info(m: pb.GetReplicaInfoRequest) -> GetReplicaInfoRequest:
    return GetReplicaInfoRequest(_name(m.broker_name, "brokerName"))


def get_sync_state_data(m: pb.GetSyncStateDataRequest) -> GetSyncStateDataRequest:
    names = tuple(_name(n, "brokerNames item") for n in m.broker_names)
    cluster = _name(m.cluster_name, "clusterName") if m.cluster_name else ""
    return GetSyncStateDataRequest(names, cluster, m.all_broker_sets)


def clean_broker_data(m: pb.CleanBrokerDataRequest) -> CleanBrokerDataRequest:
    return CleanBrokerDataRequest(
        m.cluster_name,
        _name(m.broker_name, "brokerName"),
        m.broker_controller_ids_to_clean,
        m.is_clean_living_broker,
        m.clean_whole_set,
    )


def assign_preferred_master(m: pb.AssignPreferredMasterRequest) -> AssignPreferredMasterRequest:
    """Exactly one of `brokerId` and `clear`: a request that does both would be ambiguous."""
    if m.clear == m.HasField("broker_id"):
        raise InvalidRequest("give either brokerId or clear=true, not both" if m.clear else "brokerId is required")
    return AssignPreferredMasterRequest(
        _name(m.cluster_name, "clusterName"),
        _name(m.broker_name, "brokerName"),
        None if m.clear else _broker_id(m.broker_id),
    )


def _checked(problem: str | None) -> None:
    if problem is not None:
        raise InvalidRequest(problem)


def _topic_name(value: str) -> str:
    _checked(metadata.topic_problem(value))
    return value


def _group_name(value: str) -> str:
    _checked(metadata.group_problem(value))
    return value


def _serving(cluster_name: str, broker_name: str) -> tuple[str, str]:
    """Exactly one of clusterName and brokerName (Java's ``-c`` / ``-b``), checked."""
    if bool(cluster_name) == bool(broker_name):
        raise InvalidRequest("give exactly one of clusterName (every broker set of a cluster) and brokerName")
    cluster = _name(cluster_name, "clusterName") if cluster_name else ""
    broker = _name(broker_name, "brokerName") if broker_name else ""
    return cluster, broker


def update_topic(m: pb.UpdateTopicRequest) -> UpdateTopicRequest:
    cluster, broker = _serving(m.cluster_name, m.broker_name)
    r, w, perm = (getattr(m, f) if m.HasField(f) else None for f in ("read_queue_nums", "write_queue_nums", "perm"))
    for value, what in ((r, "readQueueNums"), (w, "writeQueueNums")):
        _checked(None if value is None else metadata.queue_nums_problem(value, what))
    _checked(None if perm is None else metadata.perm_problem(perm))
    try:
        attributes = metadata.parse_attributes(",".join(m.attributes)) if m.attributes else {}
    except ValueError as exc:
        raise InvalidRequest(str(exc)) from exc
    return UpdateTopicRequest(_topic_name(m.topic_name), cluster, broker, r, w, perm, attributes)


def delete_topic(m: pb.DeleteTopicRequest) -> DeleteTopicRequest:
    return DeleteTopicRequest(_name(m.cluster_name, "clusterName"), _topic_name(m.topic_name))


def _retry_policy(m: pb.GroupRetryPolicy) -> retry.RetryPolicy:
    _checked(None if m.WhichOneof("kind") else "retry_policy sets neither customized nor exponential")
    policy = retry.of_message(m)
    _checked(retry.problem(policy))
    return policy


def update_subscription_group(m: pb.UpdateSubscriptionGroupRequest) -> UpdateSubscriptionGroupRequest:
    cluster, broker = _serving(m.cluster_name, m.broker_name)
    retries = m.retry_max_times if m.HasField("retry_max_times") else None
    _checked(None if retries is None else metadata.retry_max_times_problem(retries))
    return UpdateSubscriptionGroupRequest(
        _group_name(m.group_name),
        cluster,
        broker,
        m.consume_orderly if m.HasField("consume_orderly") else None,
        retries,
        m.consume_enable if m.HasField("consume_enable") else None,
        _retry_policy(m.retry_policy) if m.HasField("retry_policy") else None,
    )


def delete_subscription_group(m: pb.DeleteSubscriptionGroupRequest) -> DeleteSubscriptionGroupRequest:
    return DeleteSubscriptionGroupRequest(_name(m.cluster_name, "clusterName"), _group_name(m.group_name))


def get_metadata(_m: pb.GetMetadataRequest) -> GetMetadataRequest:
    return GetMetadataRequest()


def set_broker_permission(m: pb.SetBrokerPermissionRequest) -> SetBrokerPermissionRequest:
    cluster = _name(m.cluster_name, "clusterName") if m.cluster_name else ""
    return SetBrokerPermissionRequest(cluster, _name(m.broker_name, "brokerName"), m.writable)


def heartbeat(m: pb.BrokerHeartbeatRequest) -> Heartbeat:
    if not m.HasField("broker_id"):
        raise InvalidRequest("Heart beat with empty brokerId")
    timeout = m.heartbeat_timeout_millis if m.HasField("heartbeat_timeout_millis") else DEFAULT_HEARTBEAT_TIMEOUT_MS
    if not 0 < timeout <= 3_600_000:
        raise InvalidRequest(f"heartbeatTimeoutMillis must be 1..3600000, got {timeout}")
    return Heartbeat(
        cluster_name=_name(m.cluster_name, "clusterName"),
        broker_name=_name(m.broker_name, "brokerName"),
        broker_id=_broker_id(m.broker_id),
        broker_address=_address(m.broker_address),
        epoch=m.epoch if m.HasField("epoch") else -1,
        max_offset=m.max_offset if m.HasField("max_offset") else -1,
        confirm_offset=m.confirm_offset if m.HasField("confirm_offset") else -1,
        heartbeat_timeout_ms=timeout,
        election_priority=m.election_priority if m.HasField("election_priority") else INT32_MAX,
        async_learner=m.async_learner,
    )


# --- replies --------------------------------------------------------------------------------------


def _opt(**kwargs: Any) -> dict[str, Any]:
    """Drop None values so proto3 `optional` fields stay absent."""
    return {k: v for k, v in kwargs.items() if v is not None}


def _sss(ids: frozenset[int], epoch: int) -> common.SyncStateSet:
    return common.SyncStateSet(broker_ids=sorted(ids), sync_state_set_epoch=epoch)


def register_reply(r: Result[RegisterBrokerReply]) -> dict[str, Any]:
    if r.reply is None:
        return {}
    x = r.reply
    return {
        "cluster_name": x.cluster_name,
        "broker_name": x.broker_name,
        "sync_state_set": _sss(x.sync_state_set, x.current_sync_state_set_epoch),
        **_opt(
            master_broker_id=x.master_broker_id,
            master_address=x.master_address,
            master_ha_address=x.master_ha_address,
            master_epoch=x.master_epoch,
            sync_state_set_epoch=x.sync_state_set_epoch,
        ),
    }


def elect_reply(r: Result[ElectMasterReply]) -> dict[str, Any]:
    if r.reply is None:
        return {}
    x = r.reply
    return {
        "cluster_name": x.cluster_name,
        "broker_name": x.broker_name,
        "broker_addresses": dict(x.broker_addresses),
        "sync_state_set": sorted(x.sync_state_set),  # deprecated: ids only, for clients of older releases
        **_opt(
            master_broker_id=x.master_broker_id,
            master_address=x.master_address,
            master_ha_address=x.master_ha_address,
            master_epoch=x.master_epoch,
            sync_state_set_epoch=x.sync_state_set_epoch,
            sync_state_set_info=None
            if x.sync_state_set_epoch is None
            else _sss(x.sync_state_set, x.sync_state_set_epoch),
        ),
    }


def alter_reply(r: Result[AlterSyncStateSetReply]) -> dict[str, Any]:
    if r.reply is None:
        return {}
    x = r.reply
    return {
        "new_sync_state_set_epoch": x.new_sync_state_set_epoch,
        "sync_state_set": _sss(x.sync_state_set, x.new_sync_state_set_epoch),
    }


def replica_info_reply(r: Result[ReplicaInfoReply]) -> dict[str, Any]:
    if r.reply is None:
        return {}
    x = r.reply
    return {
        "master_epoch": x.master_epoch,
        "sync_state_set": _sss(x.sync_state_set, x.sync_state_set_epoch),
        **_opt(
            master_broker_id=x.master_broker_id,
            master_address=x.master_address,
            master_ha_address=x.master_ha_address,
        ),
    }


def _replicas_info(x: ReplicasInfo) -> pb.ReplicasInfo:
    def ident(items: Any) -> list[pb.ReplicaIdentity]:
        return [pb.ReplicaIdentity(broker_name=i.broker_name, broker_id=i.broker_id, broker_address=i.broker_address,
                                   ha_address=i.ha_address, alive=i.alive) for i in items]  # fmt: skip

    return pb.ReplicasInfo(
        cluster_name=x.cluster_name,
        broker_name=x.broker_name,
        master_epoch=x.master_epoch,
        sync_state_set_epoch=x.sync_state_set_epoch,
        in_sync_replicas=ident(x.in_sync_replicas),
        not_in_sync_replicas=ident(x.not_in_sync_replicas),
        **_opt(
            master_broker_id=x.master_broker_id,
            master_address=x.master_address,
            master_ha_address=x.master_ha_address,
            preferred_broker_id=x.preferred_broker_id,
        ),
    )


def sync_state_data_reply(r: Result[SyncStateDataReply]) -> dict[str, Any]:
    if r.reply is None:
        return {}
    return {"replicas_info": [_replicas_info(x) for x in r.reply.replicas_info]}


def assign_preferred_reply(r: Result[AssignPreferredMasterReply]) -> dict[str, Any]:
    if r.reply is None:
        return {}
    x = r.reply
    return {
        "cluster_name": x.cluster_name,
        "broker_name": x.broker_name,
        "master_epoch": x.master_epoch,
        "preferred_master_enabled": x.preferred_master_enabled,
        **_opt(
            previous_preferred_broker_id=x.previous_preferred_id,
            preferred_broker_id=x.preferred_id,
            master_broker_id=x.master_broker_id,
        ),
    }


def topic_message(t: TopicConfig) -> pb.TopicConfig:
    return pb.TopicConfig(
        topic_name=t.topic_name,
        cluster_name=t.cluster_name,
        broker_names=sorted(t.broker_names),
        read_queue_nums=t.read_queue_nums,
        write_queue_nums=t.write_queue_nums,
        perm=t.perm,
        attributes=dict(t.attributes),
    )


def group_message(g: SubscriptionGroup) -> pb.SubscriptionGroupConfig:
    return pb.SubscriptionGroupConfig(
        group_name=g.group_name,
        cluster_name=g.cluster_name,
        broker_names=sorted(g.broker_names),
        consume_orderly=g.consume_orderly,
        retry_max_times=g.retry_max_times,
        consume_enable=g.consume_enable,
        retry_policy=retry.to_message(g.retry_policy),
    )


def metadata_change_reply(r: Result[MetadataChangeReply]) -> dict[str, Any]:
    if r.reply is None:
        return {}
    x = r.reply
    return {
        "metadata_version": x.metadata_version,
        "changed": x.changed,
        **_opt(
            topic=None if x.topic is None else topic_message(x.topic),
            group=None if x.group is None else group_message(x.group),
        ),
    }


def metadata_reply(r: Result[MetadataReply]) -> dict[str, Any]:
    if r.reply is None:
        return {}
    x = r.reply
    return {
        "metadata_version": x.metadata_version,
        "topics": [topic_message(t) for t in x.topics],
        "groups": [group_message(g) for g in x.groups],
        "write_wiped_broker_names": list(x.write_wiped),
    }


def transfer_master(m: pb.TransferMasterRequest) -> tuple[str, str, int, float | None]:
    """(clusterName, brokerName, brokerId, timeout in seconds or None for the configured one)."""
    if not 0 <= m.timeout_millis <= 60_000:
        raise InvalidRequest(f"timeoutMillis must be 0..60000 (0: transferMasterTimeoutMs), got {m.timeout_millis}")
    if 0 < m.timeout_millis < 100:
        raise InvalidRequest(f"timeoutMillis must be at least 100, got {m.timeout_millis}")
    return (
        _name(m.cluster_name, "clusterName"),
        _name(m.broker_name, "brokerName"),
        _broker_id(m.broker_id),
        m.timeout_millis / 1000 if m.timeout_millis else None,
    )


def transfer_record(r: Record) -> pb.TransferRecord:
    return pb.TransferRecord(
        state=r.state,
        trigger=r.trigger,
        from_broker_id=r.from_id if r.from_id is not None else -1,
        to_broker_id=r.to_id,
        from_master_epoch=r.from_epoch,
        to_master_epoch=r.to_epoch,
        reason=r.reason,
        started_at_millis=int(r.started_at * 1000),
        duration_millis=int(r.duration_s * 1000),
        writes_paused_millis=int(r.paused_s * 1000),
        final_offset=r.final_offset,
    )
