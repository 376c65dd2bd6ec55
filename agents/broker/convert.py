"""The edge between a broker and its peers' protobufs: controller answers and pushes into the domain's views and
tables (``roles.View``, ``metadata.Topic`` and ``Group``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.broker.roles import View
from agents.metadata import Group, Topic
from mqbase import retry
from mqbase.proto import common_pb2
from mqbase.proto import controller_pb2 as cpb


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
