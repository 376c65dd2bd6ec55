"""Controller requests and replies as plain data (Java's controller request and response headers).

The gRPC adapter (``controller.service``) converts protobuf messages to these
after validating them; the functional core (``controller.state``) never sees
protobuf.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Generic, TypeVar

from controller.events import Event
from controller.model import SubscriptionGroup, TopicConfig
from mqbase.codes import ResponseCode
from mqbase.retry import RetryPolicy


@dataclass(frozen=True, slots=True)
class GetNextBrokerIdRequest:
    cluster_name: str
    broker_name: str


@dataclass(frozen=True, slots=True)
class ApplyBrokerIdRequest:
    cluster_name: str
    broker_name: str
    broker_id: int
    register_check_code: str
    ha_address: str = ""


@dataclass(frozen=True, slots=True)
class RegisterBrokerRequest:
    cluster_name: str
    broker_name: str
    broker_id: int
    broker_address: str
    ha_address: str = ""


@dataclass(frozen=True, slots=True)
class ElectMasterRequest:
    """``broker_id`` None (Java: -1) with ``designate_elect`` False is a controller trigger."""

    cluster_name: str
    broker_name: str
    broker_id: int | None = None
    designate_elect: bool = False

    @property
    def is_controller_trigger(self) -> bool:
        return self.broker_id is None and not self.designate_elect


@dataclass(frozen=True, slots=True)
class AlterSyncStateSetRequest:
    broker_name: str
    master_broker_id: int
    master_epoch: int
    new_sync_state_set: frozenset[int]
    sync_state_set_epoch: int


@dataclass(frozen=True, slots=True)
class GetReplicaInfoRequest:
    broker_name: str


@dataclass(frozen=True, slots=True)
class GetSyncStateDataRequest:
    """Select sets by name, by cluster, or all of them."""

    broker_names: tuple[str, ...] = ()
    cluster_name: str = ""
    all_broker_sets: bool = False


@dataclass(frozen=True, slots=True)
class CleanBrokerDataRequest:
    """``broker_ids_to_clean`` is the raw ``"1;2;3"`` option, parsed by the handler as Java does.

    ``whole_set`` (ours): the only way to remove the whole set; Java takes an empty id list for it.
    """

    cluster_name: str
    broker_name: str
    broker_ids_to_clean: str = ""
    clean_living_broker: bool = False
    whole_set: bool = False


@dataclass(frozen=True, slots=True)
class AssignPreferredMasterRequest:
    """Ours: ``broker_id`` None clears the set's preferred master."""

    cluster_name: str
    broker_name: str
    broker_id: int | None


@dataclass(frozen=True, slots=True)
class TransferMasterRequest:
    """Ours: elect `broker_id` after the master paused writes and it acknowledged the final offset.

    Decided only if the set still has `expected_master_id` as master in `expected_master_epoch`.
    `not_after` (the leader's monotonic clock) is checked by the proposer (``transfer.too_late``), not by
    ``compute``: an election decided later could overlap the moment the paused master resumes writes.
    """

    cluster_name: str
    broker_name: str
    broker_id: int
    expected_master_id: int
    expected_master_epoch: int
    not_after: float = float("inf")


@dataclass(frozen=True, slots=True)
class SetGroupConfigRequest:
    """Ours: set runtime keys for the whole group (UpdateControllerConfig).

    `values` are runtime keys in canonical text, already parsed and validated at the edge.
    `only_missing` (a new leader recording its file values) sets only keys the group has no value for yet.
    """

    values: Mapping[str, str]
    only_missing: bool = False


@dataclass(frozen=True, slots=True)
class UpdateTopicRequest:
    """Ours: create or change a topic (``updateTopic``); fields already validated at the edge.

    `cluster_name` adds every broker set of that cluster to the sets serving the topic, `broker_name` adds one
    (exactly one of them is given). A None field keeps the topic's value (a new topic takes the default).
    `attributes` are changes: a value sets the key, None removes it (Java's ``+key=value`` and ``-key``).
    """

    topic_name: str
    cluster_name: str = ""
    broker_name: str = ""
    read_queue_nums: int | None = None
    write_queue_nums: int | None = None
    perm: int | None = None
    attributes: Mapping[str, str | None] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class DeleteTopicRequest:
    """Ours: remove a topic of `cluster_name` (``deleteTopic``); an unknown topic is a no-op."""

    cluster_name: str
    topic_name: str


@dataclass(frozen=True, slots=True)
class UpdateSubscriptionGroupRequest:
    """Ours: create or change a subscription group (``updateSubGroup``); None keeps the value."""

    group_name: str
    cluster_name: str = ""
    broker_name: str = ""
    consume_orderly: bool | None = None
    retry_max_times: int | None = None
    consume_enable: bool | None = None
    retry_policy: RetryPolicy | None = None


@dataclass(frozen=True, slots=True)
class DeleteSubscriptionGroupRequest:
    """Ours: remove a subscription group of `cluster_name`; an unknown group is a no-op."""

    cluster_name: str
    group_name: str


@dataclass(frozen=True, slots=True)
class GetMetadataRequest:
    """Ours: every topic and subscription group with the metadata version (agents act on it)."""


@dataclass(frozen=True, slots=True)
class SetBrokerPermissionRequest:
    """Ours: ``wipeWritePerm`` (`writable` false) / ``addWritePerm`` of a broker set, which must belong
    to `cluster_name` when one is given."""

    cluster_name: str
    broker_name: str
    writable: bool


MetadataRequest = (
    UpdateTopicRequest
    | DeleteTopicRequest
    | UpdateSubscriptionGroupRequest
    | DeleteSubscriptionGroupRequest
    | GetMetadataRequest
    | SetBrokerPermissionRequest
)

Request = (
    GetNextBrokerIdRequest
    | ApplyBrokerIdRequest
    | RegisterBrokerRequest
    | ElectMasterRequest
    | AlterSyncStateSetRequest
    | GetReplicaInfoRequest
    | GetSyncStateDataRequest
    | CleanBrokerDataRequest
    | AssignPreferredMasterRequest
    | TransferMasterRequest
    | SetGroupConfigRequest
    | MetadataRequest
)


@dataclass(frozen=True, slots=True)
class NextBrokerIdReply:
    cluster_name: str
    broker_name: str
    next_broker_id: int


@dataclass(frozen=True, slots=True)
class ApplyBrokerIdReply:
    cluster_name: str
    broker_name: str


@dataclass(frozen=True, slots=True)
class RegisterBrokerReply:
    """The master fields are None when the set has no alive master."""

    cluster_name: str
    broker_name: str
    master_broker_id: int | None
    master_address: str | None
    master_ha_address: str | None
    master_epoch: int | None
    sync_state_set_epoch: int | None
    sync_state_set: frozenset[int]
    current_sync_state_set_epoch: int


@dataclass(frozen=True, slots=True)
class ElectMasterReply:
    """On SUCCESS ``broker_addresses`` is the member group; on MASTER_STILL_EXIST it is empty."""

    cluster_name: str
    broker_name: str
    master_broker_id: int | None
    master_address: str | None
    master_ha_address: str | None
    master_epoch: int | None
    sync_state_set_epoch: int | None
    broker_addresses: tuple[tuple[int, str], ...]
    sync_state_set: frozenset[int]


@dataclass(frozen=True, slots=True)
class AlterSyncStateSetReply:
    new_sync_state_set_epoch: int
    sync_state_set: frozenset[int]


@dataclass(frozen=True, slots=True)
class ReplicaInfoReply:
    master_broker_id: int | None
    master_address: str | None
    master_ha_address: str | None
    master_epoch: int
    sync_state_set: frozenset[int]
    sync_state_set_epoch: int


@dataclass(frozen=True, slots=True)
class ReplicaIdentity:
    broker_name: str
    broker_id: int
    broker_address: str
    ha_address: str
    alive: bool


@dataclass(frozen=True, slots=True)
class ReplicasInfo:
    cluster_name: str
    broker_name: str
    master_broker_id: int | None
    master_address: str | None
    master_ha_address: str | None
    master_epoch: int
    sync_state_set_epoch: int
    in_sync_replicas: tuple[ReplicaIdentity, ...]
    not_in_sync_replicas: tuple[ReplicaIdentity, ...]
    preferred_broker_id: int | None = None


@dataclass(frozen=True, slots=True)
class SyncStateDataReply:
    replicas_info: tuple[ReplicasInfo, ...]


@dataclass(frozen=True, slots=True)
class AssignPreferredMasterReply:
    """Before and after, plus what the operator needs to judge it: the master and whether elections use it."""

    cluster_name: str
    broker_name: str
    previous_preferred_id: int | None
    preferred_id: int | None
    master_broker_id: int | None
    master_epoch: int
    preferred_master_enabled: bool


@dataclass(frozen=True, slots=True)
class SetGroupConfigReply:
    """The group's config version once the change is applied, and the keys it changed (none: a no-op)."""

    config_version: int
    changed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MetadataChangeReply:
    """The metadata version once a change is applied (unchanged for a no-op) and the resulting config (None
    once deleted)."""

    metadata_version: int
    changed: bool
    topic: TopicConfig | None = None
    group: SubscriptionGroup | None = None


@dataclass(frozen=True, slots=True)
class MetadataReply:
    """Every topic and subscription group, sorted by name, as of `metadata_version`."""

    metadata_version: int
    topics: tuple[TopicConfig, ...]
    groups: tuple[SubscriptionGroup, ...]
    write_wiped: tuple[str, ...] = ()


R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Result(Generic[R]):
    """What a handler decided: a response code and remark, a reply, and the events to commit."""

    code: ResponseCode
    remark: str = ""
    reply: R | None = None
    events: tuple[Event, ...] = ()

    @property
    def ok(self) -> bool:
        return self.code == ResponseCode.SUCCESS
