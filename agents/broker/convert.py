"""The edge between a broker and the protobufs: controller answers and pushes into the domain's views and tables
(``roles.View``, ``metadata.Topic`` and ``Group``, `SetReplica`), and the agent API's sends and POP calls into the
`BrokerApi`'s domain types and back (the servicer turns requests in and answers out; ``RemoteBroker`` the other
way)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agents.broker.api import (
    Acked,
    AckOutcome,
    AckRequest,
    Changed,
    ChangeInvisibleRequest,
    CheckBack,
    Checks,
    Delivery,
    Ended,
    EndRequest,
    Received,
    ReceiveRequest,
    SendAnswer,
)
from agents.broker.roles import View
from agents.config import BrokerConfig
from agents.ha.replica import Replica
from agents.metadata import Group, Topic
from agents.store.message_store import Placement
from agents.store.record import Message
from agents.transaction.half import Resolution
from mqbase import retry
from mqbase.proto import agent_pb2 as apb
from mqbase.proto import common_pb2
from mqbase.proto import controller_pb2 as cpb


@dataclass(frozen=True, slots=True)
class SetReplica:
    """One registered replica of a broker set as the controller records it."""

    broker_id: int
    address: str
    """Its agent API address (the broker's own listen port)."""
    alive: bool


def replicas_of(info: cpb.ReplicasInfo) -> tuple[SetReplica, ...]:
    """Every registered replica of a GetSyncStateData entry, in sync or not."""
    return tuple(
        SetReplica(r.broker_id, r.broker_address, r.alive) for r in (*info.in_sync_replicas, *info.not_in_sync_replicas)
    )


def metadata_of(response: cpb.GetMetadataResponse, cluster_name: str) -> tuple[list[Topic], list[Group]]:
    """The topics and groups of `cluster_name` in a GetMetadata answer."""
    topics = [
        Topic(t.topic_name, frozenset(t.broker_names), t.read_queue_nums, t.write_queue_nums, t.perm,
              t.attributes.get("message.type", "NORMAL"))
        for t in response.topics
        if t.cluster_name == cluster_name
    ]  # fmt: skip
    groups = [
        Group(g.group_name, frozenset(g.broker_names), g.consume_orderly, g.retry_max_times, g.consume_enable,
              retry.of_message(g.retry_policy))
        for g in response.groups
        if g.cluster_name == cluster_name
    ]  # fmt: skip
    return topics, groups


def view_of(response: Any) -> View:
    """The controller's picture from a RegisterBroker / GetReplicaInfo / ElectMaster answer."""
    has_master = response.HasField("master_broker_id") and response.master_address
    members: Sequence[int]
    sync_state_set = response.sync_state_set
    if hasattr(response, "sync_state_set_info") and response.HasField("sync_state_set_info"):
        sync_state_set = response.sync_state_set_info  # ElectMasterResponse's SyncStateSet message (field 14)
    if isinstance(sync_state_set, common_pb2.SyncStateSet):
        members, sss_epoch = sync_state_set.broker_ids, sync_state_set.sync_state_set_epoch
    else:  # an older controller's ElectMasterResponse: the ids, and the epoch beside them
        members, sss_epoch = sync_state_set, response.sync_state_set_epoch
    return View(
        response.master_broker_id if has_master else None,
        response.master_address if has_master else "",
        response.master_ha_address if has_master else "",
        response.master_epoch,
        frozenset(members),
        sss_epoch,
    )


def view_of_push(note: common_pb2.RoleChangeNotification) -> View:
    return View(
        note.master_broker_id if note.master_address else None,
        note.master_address,
        note.master_ha_address,
        note.master_epoch,
        frozenset(note.sync_state_set),
        note.sync_state_set_epoch,
    )


def heartbeat(c: BrokerConfig, broker_id: int, replica: Replica) -> cpb.BrokerHeartbeatRequest:
    """One beat of the broker's heartbeat streams: who it is, its log's epoch and offsets, its election keys."""
    return cpb.BrokerHeartbeatRequest(
        cluster_name=c.broker_cluster_name,
        broker_address=c.broker_address,
        broker_name=c.broker_name,
        broker_id=broker_id,
        epoch=replica.epochs.cache.last_epoch(),
        max_offset=replica.store.max_offset,
        confirm_offset=replica.store.confirm_offset,
        heartbeat_timeout_millis=c.controller_heart_beat_timeout_mills,
        election_priority=c.broker_election_priority,
        async_learner=c.async_learner,
    )


def message_of(m: apb.Message) -> Message:
    """A message a producer sent over the agent API (not stored yet: no store time)."""
    return Message(m.topic, m.queue_id, m.body, dict(m.properties), 0)


def message_to_pb(m: Message) -> apb.Message:
    return apb.Message(topic=m.topic, queue_id=m.queue_id, body=m.body, properties=m.properties)


def send_response(a: SendAnswer) -> apb.SendMessageResponse:
    response = apb.SendMessageResponse(
        code=a.code, remark=a.remark, status=a.status, broker_id=a.broker_id, master_epoch=a.master_epoch,
        master_address=a.master_address,
    )  # fmt: skip
    for p in a.placed:
        response.results.add(queue_id=p.queue_id, queue_offset=p.queue_offset, commit_log_offset=p.commit_log_offset)
    return response


def send_answer_of(r: apb.SendMessageResponse) -> SendAnswer:
    placed = tuple(Placement(p.queue_id, p.queue_offset, p.commit_log_offset) for p in r.results)
    return SendAnswer(r.code, r.remark, r.status, r.broker_id, r.master_epoch, r.master_address, placed)


def receive_request_of(r: apb.ReceiveMessageRequest) -> ReceiveRequest:
    return ReceiveRequest(
        r.group, r.topic, r.batch_size, r.invisible_millis, r.filter_expression, r.long_polling_millis, r.attempt_id,
        r.queue_id if r.HasField("queue_id") else None,
    )  # fmt: skip


def receive_request_to_pb(r: ReceiveRequest) -> apb.ReceiveMessageRequest:
    return apb.ReceiveMessageRequest(
        group=r.group, topic=r.topic, batch_size=r.batch_size, invisible_millis=r.invisible_ms,
        filter_expression=r.filter_expression, long_polling_millis=r.long_polling_ms, attempt_id=r.attempt_id,
        queue_id=r.queue_id,
    )  # fmt: skip


def received_to_pb(a: Received) -> apb.ReceiveMessageResponse:
    response = apb.ReceiveMessageResponse(
        code=a.code, remark=a.remark, pop_code=a.pop_code, master_address=a.master_address
    )
    for d in a.messages:
        response.messages.add(
            message=message_to_pb(d.message), queue_offset=d.queue_offset, store_timestamp=d.message.store_timestamp,
            delivery_attempt=d.attempt, receipt_handle=d.receipt_handle, invisible_until_millis=d.invisible_until_ms,
            body_digest=d.body_digest,
        )  # fmt: skip
    return response


def received_of(r: apb.ReceiveMessageResponse) -> Received:
    deliveries = tuple(_delivery_of(d) for d in r.messages)
    return Received(r.code, r.pop_code, r.remark, deliveries, r.master_address)


def _delivery_of(d: apb.ReceivedMessage) -> Delivery:
    m = d.message
    message = Message(m.topic, m.queue_id, m.body, dict(m.properties), d.store_timestamp, d.queue_offset)
    return Delivery(message, d.queue_offset, d.delivery_attempt, d.receipt_handle, d.invisible_until_millis,
                    d.body_digest)  # fmt: skip


def ack_request_of(r: apb.AckMessageRequest) -> AckRequest:
    return AckRequest(r.group, r.topic, tuple(r.receipt_handles), r.dead_letter)


def ack_request_to_pb(r: AckRequest) -> apb.AckMessageRequest:
    return apb.AckMessageRequest(
        group=r.group, topic=r.topic, receipt_handles=r.receipt_handles, dead_letter=r.dead_letter
    )


def acked_to_pb(a: Acked) -> apb.AckMessageResponse:
    return apb.AckMessageResponse(
        code=a.code, remark=a.remark, master_address=a.master_address,
        results=[apb.AckResult(receipt_handle=o.receipt_handle, code=o.code, pop_code=o.pop_code, remark=o.remark)
                 for o in a.results],
    )  # fmt: skip


def acked_of(r: apb.AckMessageResponse) -> Acked:
    results = tuple(AckOutcome(o.receipt_handle, o.code, o.pop_code, o.remark) for o in r.results)
    return Acked(r.code, r.remark, results, r.master_address)


def change_request_of(r: apb.ChangeInvisibleDurationRequest) -> ChangeInvisibleRequest:
    return ChangeInvisibleRequest(r.group, r.topic, r.receipt_handle, r.invisible_millis, r.nack)


def change_request_to_pb(r: ChangeInvisibleRequest) -> apb.ChangeInvisibleDurationRequest:
    return apb.ChangeInvisibleDurationRequest(
        group=r.group, topic=r.topic, receipt_handle=r.receipt_handle, invisible_millis=r.invisible_ms, nack=r.nack
    )


def changed_to_pb(a: Changed) -> apb.ChangeInvisibleDurationResponse:
    return apb.ChangeInvisibleDurationResponse(
        code=a.code, remark=a.remark, pop_code=a.pop_code, receipt_handle=a.receipt_handle,
        invisible_until_millis=a.invisible_until_ms, master_address=a.master_address,
    )  # fmt: skip


def changed_of(r: apb.ChangeInvisibleDurationResponse) -> Changed:
    return Changed(r.code, r.pop_code, r.receipt_handle, r.remark, r.invisible_until_millis, r.master_address)


_RESOLUTIONS = {apb.COMMIT: Resolution.COMMIT, apb.ROLLBACK: Resolution.ROLLBACK}
_PB_RESOLUTIONS = {Resolution.COMMIT: apb.COMMIT, Resolution.ROLLBACK: apb.ROLLBACK}


def end_request_of(r: apb.EndTransactionRequest) -> EndRequest:
    return EndRequest(r.topic, r.message_id, r.transaction_id, _RESOLUTIONS.get(r.resolution), r.from_check)


def end_request_to_pb(r: EndRequest) -> apb.EndTransactionRequest:
    unknown = apb.TRANSACTION_RESOLUTION_UNSPECIFIED
    resolution = unknown if r.resolution is None else _PB_RESOLUTIONS.get(r.resolution, unknown)
    return apb.EndTransactionRequest(
        topic=r.topic, message_id=r.message_id, transaction_id=r.transaction_id, resolution=resolution,
        from_check=r.from_check,
    )  # fmt: skip


def ended_to_pb(a: Ended) -> apb.EndTransactionResponse:
    return apb.EndTransactionResponse(code=a.code, remark=a.remark, master_address=a.master_address)


def ended_of(r: apb.EndTransactionResponse) -> Ended:
    return Ended(r.code, r.remark, r.master_address)


def checks_to_pb(a: Checks) -> apb.TakeTransactionChecksResponse:
    return apb.TakeTransactionChecksResponse(
        code=a.code, remark=a.remark,
        checks=[apb.TransactionCheck(transaction_id=c.transaction_id, message=message_to_pb(c.message),
                                     store_timestamp=c.message.store_timestamp, body_digest=c.body_digest)
                for c in a.checks],
    )  # fmt: skip


def checks_of(r: apb.TakeTransactionChecksResponse) -> Checks:
    found = tuple(
        CheckBack(c.transaction_id, Message(c.message.topic, c.message.queue_id, c.message.body,
                                            dict(c.message.properties), c.store_timestamp), c.body_digest)
        for c in r.checks
    )  # fmt: skip
    return Checks(r.code, r.remark, found)
