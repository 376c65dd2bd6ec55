from mqbase.proto import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetNextBrokerIdRequest(_message.Message):
    __slots__ = ("cluster_name", "broker_name")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_name: str
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ...) -> None: ...

class GetNextBrokerIdResponse(_message.Message):
    __slots__ = ("code", "remark", "leader_address", "cluster_name", "broker_name", "next_broker_id")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    NEXT_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    leader_address: str
    cluster_name: str
    broker_name: str
    next_broker_id: int
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., leader_address: _Optional[str] = ..., cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., next_broker_id: _Optional[int] = ...) -> None: ...

class ApplyBrokerIdRequest(_message.Message):
    __slots__ = ("cluster_name", "broker_name", "applied_broker_id", "register_check_code", "ha_address")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    APPLIED_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    REGISTER_CHECK_CODE_FIELD_NUMBER: _ClassVar[int]
    HA_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_name: str
    applied_broker_id: int
    register_check_code: str
    ha_address: str
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., applied_broker_id: _Optional[int] = ..., register_check_code: _Optional[str] = ..., ha_address: _Optional[str] = ...) -> None: ...

class ApplyBrokerIdResponse(_message.Message):
    __slots__ = ("code", "remark", "leader_address", "cluster_name", "broker_name")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    leader_address: str
    cluster_name: str
    broker_name: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., leader_address: _Optional[str] = ..., cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ...) -> None: ...

class RegisterBrokerRequest(_message.Message):
    __slots__ = ("cluster_name", "broker_name", "broker_id", "broker_address", "ha_address")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    BROKER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    HA_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_name: str
    broker_id: int
    broker_address: str
    ha_address: str
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ..., broker_address: _Optional[str] = ..., ha_address: _Optional[str] = ...) -> None: ...

class RegisterBrokerResponse(_message.Message):
    __slots__ = ("code", "remark", "leader_address", "cluster_name", "broker_name", "master_broker_id", "master_address", "master_epoch", "sync_state_set_epoch", "sync_state_set", "master_ha_address")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    MASTER_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    MASTER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    SYNC_STATE_SET_EPOCH_FIELD_NUMBER: _ClassVar[int]
    SYNC_STATE_SET_FIELD_NUMBER: _ClassVar[int]
    MASTER_HA_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    leader_address: str
    cluster_name: str
    broker_name: str
    master_broker_id: int
    master_address: str
    master_epoch: int
    sync_state_set_epoch: int
    sync_state_set: _common_pb2.SyncStateSet
    master_ha_address: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., leader_address: _Optional[str] = ..., cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., master_broker_id: _Optional[int] = ..., master_address: _Optional[str] = ..., master_epoch: _Optional[int] = ..., sync_state_set_epoch: _Optional[int] = ..., sync_state_set: _Optional[_Union[_common_pb2.SyncStateSet, _Mapping]] = ..., master_ha_address: _Optional[str] = ...) -> None: ...

class ElectMasterRequest(_message.Message):
    __slots__ = ("cluster_name", "broker_name", "broker_id", "designate_elect")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    DESIGNATE_ELECT_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_name: str
    broker_id: int
    designate_elect: bool
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ..., designate_elect: _Optional[bool] = ...) -> None: ...

class ElectMasterResponse(_message.Message):
    __slots__ = ("code", "remark", "leader_address", "master_broker_id", "master_address", "master_epoch", "sync_state_set_epoch", "cluster_name", "broker_name", "broker_addresses", "sync_state_set", "master_ha_address", "warnings", "sync_state_set_info")
    class BrokerAddressesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    MASTER_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    MASTER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    SYNC_STATE_SET_EPOCH_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    SYNC_STATE_SET_FIELD_NUMBER: _ClassVar[int]
    MASTER_HA_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    SYNC_STATE_SET_INFO_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    leader_address: str
    master_broker_id: int
    master_address: str
    master_epoch: int
    sync_state_set_epoch: int
    cluster_name: str
    broker_name: str
    broker_addresses: _containers.ScalarMap[int, str]
    sync_state_set: _containers.RepeatedScalarFieldContainer[int]
    master_ha_address: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    sync_state_set_info: _common_pb2.SyncStateSet
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., leader_address: _Optional[str] = ..., master_broker_id: _Optional[int] = ..., master_address: _Optional[str] = ..., master_epoch: _Optional[int] = ..., sync_state_set_epoch: _Optional[int] = ..., cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., broker_addresses: _Optional[_Mapping[int, str]] = ..., sync_state_set: _Optional[_Iterable[int]] = ..., master_ha_address: _Optional[str] = ..., warnings: _Optional[_Iterable[str]] = ..., sync_state_set_info: _Optional[_Union[_common_pb2.SyncStateSet, _Mapping]] = ...) -> None: ...

class AlterSyncStateSetRequest(_message.Message):
    __slots__ = ("broker_name", "master_broker_id", "master_epoch", "new_sync_state_set")
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    MASTER_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    NEW_SYNC_STATE_SET_FIELD_NUMBER: _ClassVar[int]
    broker_name: str
    master_broker_id: int
    master_epoch: int
    new_sync_state_set: _common_pb2.SyncStateSet
    def __init__(self, broker_name: _Optional[str] = ..., master_broker_id: _Optional[int] = ..., master_epoch: _Optional[int] = ..., new_sync_state_set: _Optional[_Union[_common_pb2.SyncStateSet, _Mapping]] = ...) -> None: ...

class AlterSyncStateSetResponse(_message.Message):
    __slots__ = ("code", "remark", "leader_address", "new_sync_state_set_epoch", "sync_state_set")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    NEW_SYNC_STATE_SET_EPOCH_FIELD_NUMBER: _ClassVar[int]
    SYNC_STATE_SET_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    leader_address: str
    new_sync_state_set_epoch: int
    sync_state_set: _common_pb2.SyncStateSet
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., leader_address: _Optional[str] = ..., new_sync_state_set_epoch: _Optional[int] = ..., sync_state_set: _Optional[_Union[_common_pb2.SyncStateSet, _Mapping]] = ...) -> None: ...

class GetReplicaInfoRequest(_message.Message):
    __slots__ = ("broker_name",)
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    broker_name: str
    def __init__(self, broker_name: _Optional[str] = ...) -> None: ...

class GetReplicaInfoResponse(_message.Message):
    __slots__ = ("code", "remark", "leader_address", "master_broker_id", "master_address", "master_epoch", "sync_state_set", "master_ha_address")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    MASTER_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    MASTER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    SYNC_STATE_SET_FIELD_NUMBER: _ClassVar[int]
    MASTER_HA_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    leader_address: str
    master_broker_id: int
    master_address: str
    master_epoch: int
    sync_state_set: _common_pb2.SyncStateSet
    master_ha_address: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., leader_address: _Optional[str] = ..., master_broker_id: _Optional[int] = ..., master_address: _Optional[str] = ..., master_epoch: _Optional[int] = ..., sync_state_set: _Optional[_Union[_common_pb2.SyncStateSet, _Mapping]] = ..., master_ha_address: _Optional[str] = ...) -> None: ...

class GetSyncStateDataRequest(_message.Message):
    __slots__ = ("broker_names", "cluster_name", "all_broker_sets")
    BROKER_NAMES_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    ALL_BROKER_SETS_FIELD_NUMBER: _ClassVar[int]
    broker_names: _containers.RepeatedScalarFieldContainer[str]
    cluster_name: str
    all_broker_sets: bool
    def __init__(self, broker_names: _Optional[_Iterable[str]] = ..., cluster_name: _Optional[str] = ..., all_broker_sets: _Optional[bool] = ...) -> None: ...

class ReplicaIdentity(_message.Message):
    __slots__ = ("broker_name", "broker_id", "broker_address", "alive", "ha_address")
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    BROKER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ALIVE_FIELD_NUMBER: _ClassVar[int]
    HA_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    broker_name: str
    broker_id: int
    broker_address: str
    alive: bool
    ha_address: str
    def __init__(self, broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ..., broker_address: _Optional[str] = ..., alive: _Optional[bool] = ..., ha_address: _Optional[str] = ...) -> None: ...

class ReplicasInfo(_message.Message):
    __slots__ = ("cluster_name", "broker_name", "master_broker_id", "master_address", "master_epoch", "sync_state_set_epoch", "in_sync_replicas", "not_in_sync_replicas", "master_ha_address", "preferred_broker_id", "last_transfer", "preferred_master_blocked_by", "last_refusal")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    MASTER_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    MASTER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    SYNC_STATE_SET_EPOCH_FIELD_NUMBER: _ClassVar[int]
    IN_SYNC_REPLICAS_FIELD_NUMBER: _ClassVar[int]
    NOT_IN_SYNC_REPLICAS_FIELD_NUMBER: _ClassVar[int]
    MASTER_HA_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    PREFERRED_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_TRANSFER_FIELD_NUMBER: _ClassVar[int]
    PREFERRED_MASTER_BLOCKED_BY_FIELD_NUMBER: _ClassVar[int]
    LAST_REFUSAL_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_name: str
    master_broker_id: int
    master_address: str
    master_epoch: int
    sync_state_set_epoch: int
    in_sync_replicas: _containers.RepeatedCompositeFieldContainer[ReplicaIdentity]
    not_in_sync_replicas: _containers.RepeatedCompositeFieldContainer[ReplicaIdentity]
    master_ha_address: str
    preferred_broker_id: int
    last_transfer: TransferRecord
    preferred_master_blocked_by: str
    last_refusal: TransferRecord
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., master_broker_id: _Optional[int] = ..., master_address: _Optional[str] = ..., master_epoch: _Optional[int] = ..., sync_state_set_epoch: _Optional[int] = ..., in_sync_replicas: _Optional[_Iterable[_Union[ReplicaIdentity, _Mapping]]] = ..., not_in_sync_replicas: _Optional[_Iterable[_Union[ReplicaIdentity, _Mapping]]] = ..., master_ha_address: _Optional[str] = ..., preferred_broker_id: _Optional[int] = ..., last_transfer: _Optional[_Union[TransferRecord, _Mapping]] = ..., preferred_master_blocked_by: _Optional[str] = ..., last_refusal: _Optional[_Union[TransferRecord, _Mapping]] = ...) -> None: ...

class GetSyncStateDataResponse(_message.Message):
    __slots__ = ("code", "remark", "leader_address", "replicas_info")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    REPLICAS_INFO_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    leader_address: str
    replicas_info: _containers.RepeatedCompositeFieldContainer[ReplicasInfo]
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., leader_address: _Optional[str] = ..., replicas_info: _Optional[_Iterable[_Union[ReplicasInfo, _Mapping]]] = ...) -> None: ...

class CleanBrokerDataRequest(_message.Message):
    __slots__ = ("cluster_name", "broker_name", "broker_controller_ids_to_clean", "is_clean_living_broker", "clean_whole_set")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_CONTROLLER_IDS_TO_CLEAN_FIELD_NUMBER: _ClassVar[int]
    IS_CLEAN_LIVING_BROKER_FIELD_NUMBER: _ClassVar[int]
    CLEAN_WHOLE_SET_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_name: str
    broker_controller_ids_to_clean: str
    is_clean_living_broker: bool
    clean_whole_set: bool
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., broker_controller_ids_to_clean: _Optional[str] = ..., is_clean_living_broker: _Optional[bool] = ..., clean_whole_set: _Optional[bool] = ...) -> None: ...

class CleanBrokerDataResponse(_message.Message):
    __slots__ = ("code", "remark", "leader_address")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    leader_address: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., leader_address: _Optional[str] = ...) -> None: ...

class AssignPreferredMasterRequest(_message.Message):
    __slots__ = ("cluster_name", "broker_name", "broker_id", "clear")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    CLEAR_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_name: str
    broker_id: int
    clear: bool
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ..., clear: _Optional[bool] = ...) -> None: ...

class AssignPreferredMasterResponse(_message.Message):
    __slots__ = ("code", "remark", "leader_address", "cluster_name", "broker_name", "previous_preferred_broker_id", "preferred_broker_id", "master_broker_id", "master_epoch", "preferred_master_enabled")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_PREFERRED_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    PREFERRED_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    MASTER_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    PREFERRED_MASTER_ENABLED_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    leader_address: str
    cluster_name: str
    broker_name: str
    previous_preferred_broker_id: int
    preferred_broker_id: int
    master_broker_id: int
    master_epoch: int
    preferred_master_enabled: bool
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., leader_address: _Optional[str] = ..., cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., previous_preferred_broker_id: _Optional[int] = ..., preferred_broker_id: _Optional[int] = ..., master_broker_id: _Optional[int] = ..., master_epoch: _Optional[int] = ..., preferred_master_enabled: _Optional[bool] = ...) -> None: ...

class BrokerHeartbeatRequest(_message.Message):
    __slots__ = ("cluster_name", "broker_address", "broker_name", "broker_id", "epoch", "max_offset", "confirm_offset", "heartbeat_timeout_millis", "election_priority", "async_learner")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    MAX_OFFSET_FIELD_NUMBER: _ClassVar[int]
    CONFIRM_OFFSET_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_TIMEOUT_MILLIS_FIELD_NUMBER: _ClassVar[int]
    ELECTION_PRIORITY_FIELD_NUMBER: _ClassVar[int]
    ASYNC_LEARNER_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_address: str
    broker_name: str
    broker_id: int
    epoch: int
    max_offset: int
    confirm_offset: int
    heartbeat_timeout_millis: int
    election_priority: int
    async_learner: bool
    def __init__(self, cluster_name: _Optional[str] = ..., broker_address: _Optional[str] = ..., broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ..., epoch: _Optional[int] = ..., max_offset: _Optional[int] = ..., confirm_offset: _Optional[int] = ..., heartbeat_timeout_millis: _Optional[int] = ..., election_priority: _Optional[int] = ..., async_learner: _Optional[bool] = ...) -> None: ...

class BrokerHeartbeatResponse(_message.Message):
    __slots__ = ("code", "remark")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ...) -> None: ...

class GetControllerMetadataRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ControllerPeer(_message.Message):
    __slots__ = ("id", "raft_address", "grpc_address")
    ID_FIELD_NUMBER: _ClassVar[int]
    RAFT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    GRPC_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    id: str
    raft_address: str
    grpc_address: str
    def __init__(self, id: _Optional[str] = ..., raft_address: _Optional[str] = ..., grpc_address: _Optional[str] = ...) -> None: ...

class RaftStatus(_message.Message):
    __slots__ = ("state", "term", "commit_index", "last_applied", "has_quorum", "log_length", "ready", "connected_peers")
    STATE_FIELD_NUMBER: _ClassVar[int]
    TERM_FIELD_NUMBER: _ClassVar[int]
    COMMIT_INDEX_FIELD_NUMBER: _ClassVar[int]
    LAST_APPLIED_FIELD_NUMBER: _ClassVar[int]
    HAS_QUORUM_FIELD_NUMBER: _ClassVar[int]
    LOG_LENGTH_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_PEERS_FIELD_NUMBER: _ClassVar[int]
    state: str
    term: int
    commit_index: int
    last_applied: int
    has_quorum: bool
    log_length: int
    ready: bool
    connected_peers: int
    def __init__(self, state: _Optional[str] = ..., term: _Optional[int] = ..., commit_index: _Optional[int] = ..., last_applied: _Optional[int] = ..., has_quorum: _Optional[bool] = ..., log_length: _Optional[int] = ..., ready: _Optional[bool] = ..., connected_peers: _Optional[int] = ...) -> None: ...

class GetControllerMetadataResponse(_message.Message):
    __slots__ = ("code", "remark", "group", "controller_leader_id", "controller_leader_address", "is_leader", "peers", "peer_list", "self_id", "raft")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    CONTROLLER_LEADER_ID_FIELD_NUMBER: _ClassVar[int]
    CONTROLLER_LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    IS_LEADER_FIELD_NUMBER: _ClassVar[int]
    PEERS_FIELD_NUMBER: _ClassVar[int]
    PEER_LIST_FIELD_NUMBER: _ClassVar[int]
    SELF_ID_FIELD_NUMBER: _ClassVar[int]
    RAFT_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    group: str
    controller_leader_id: str
    controller_leader_address: str
    is_leader: bool
    peers: str
    peer_list: _containers.RepeatedCompositeFieldContainer[ControllerPeer]
    self_id: str
    raft: RaftStatus
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., group: _Optional[str] = ..., controller_leader_id: _Optional[str] = ..., controller_leader_address: _Optional[str] = ..., is_leader: _Optional[bool] = ..., peers: _Optional[str] = ..., peer_list: _Optional[_Iterable[_Union[ControllerPeer, _Mapping]]] = ..., self_id: _Optional[str] = ..., raft: _Optional[_Union[RaftStatus, _Mapping]] = ...) -> None: ...

class GetControllerConfigRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetControllerConfigResponse(_message.Message):
    __slots__ = ("code", "remark", "config", "self_id", "group_config", "config_version")
    class ConfigEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class GroupConfigEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SELF_ID_FIELD_NUMBER: _ClassVar[int]
    GROUP_CONFIG_FIELD_NUMBER: _ClassVar[int]
    CONFIG_VERSION_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    config: _containers.ScalarMap[str, str]
    self_id: str
    group_config: _containers.ScalarMap[str, str]
    config_version: int
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., config: _Optional[_Mapping[str, str]] = ..., self_id: _Optional[str] = ..., group_config: _Optional[_Mapping[str, str]] = ..., config_version: _Optional[int] = ...) -> None: ...

class UpdateControllerConfigRequest(_message.Message):
    __slots__ = ("properties",)
    class PropertiesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    properties: _containers.ScalarMap[str, str]
    def __init__(self, properties: _Optional[_Mapping[str, str]] = ...) -> None: ...

class UpdateControllerConfigResponse(_message.Message):
    __slots__ = ("code", "remark", "leader_address", "config_version", "changed")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    CONFIG_VERSION_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    leader_address: str
    config_version: int
    changed: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., leader_address: _Optional[str] = ..., config_version: _Optional[int] = ..., changed: _Optional[_Iterable[str]] = ...) -> None: ...

class TransferMasterRequest(_message.Message):
    __slots__ = ("cluster_name", "broker_name", "broker_id", "timeout_millis", "dry_run")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MILLIS_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_name: str
    broker_id: int
    timeout_millis: int
    dry_run: bool
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ..., timeout_millis: _Optional[int] = ..., dry_run: _Optional[bool] = ...) -> None: ...

class TransferRecord(_message.Message):
    __slots__ = ("state", "trigger", "from_broker_id", "to_broker_id", "from_master_epoch", "to_master_epoch", "reason", "started_at_millis", "duration_millis", "writes_paused_millis", "final_offset")
    STATE_FIELD_NUMBER: _ClassVar[int]
    TRIGGER_FIELD_NUMBER: _ClassVar[int]
    FROM_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    TO_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    TO_MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_MILLIS_FIELD_NUMBER: _ClassVar[int]
    DURATION_MILLIS_FIELD_NUMBER: _ClassVar[int]
    WRITES_PAUSED_MILLIS_FIELD_NUMBER: _ClassVar[int]
    FINAL_OFFSET_FIELD_NUMBER: _ClassVar[int]
    state: str
    trigger: str
    from_broker_id: int
    to_broker_id: int
    from_master_epoch: int
    to_master_epoch: int
    reason: str
    started_at_millis: int
    duration_millis: int
    writes_paused_millis: int
    final_offset: int
    def __init__(self, state: _Optional[str] = ..., trigger: _Optional[str] = ..., from_broker_id: _Optional[int] = ..., to_broker_id: _Optional[int] = ..., from_master_epoch: _Optional[int] = ..., to_master_epoch: _Optional[int] = ..., reason: _Optional[str] = ..., started_at_millis: _Optional[int] = ..., duration_millis: _Optional[int] = ..., writes_paused_millis: _Optional[int] = ..., final_offset: _Optional[int] = ...) -> None: ...

class TransferMasterResponse(_message.Message):
    __slots__ = ("code", "remark", "leader_address", "cluster_name", "broker_name", "dry_run", "allowed", "transfer", "warnings", "master_broker_id", "master_epoch", "preferred_broker_id", "master_max_offset", "target_max_offset")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    TRANSFER_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    MASTER_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    PREFERRED_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    MASTER_MAX_OFFSET_FIELD_NUMBER: _ClassVar[int]
    TARGET_MAX_OFFSET_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    leader_address: str
    cluster_name: str
    broker_name: str
    dry_run: bool
    allowed: bool
    transfer: TransferRecord
    warnings: _containers.RepeatedScalarFieldContainer[str]
    master_broker_id: int
    master_epoch: int
    preferred_broker_id: int
    master_max_offset: int
    target_max_offset: int
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., leader_address: _Optional[str] = ..., cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., dry_run: _Optional[bool] = ..., allowed: _Optional[bool] = ..., transfer: _Optional[_Union[TransferRecord, _Mapping]] = ..., warnings: _Optional[_Iterable[str]] = ..., master_broker_id: _Optional[int] = ..., master_epoch: _Optional[int] = ..., preferred_broker_id: _Optional[int] = ..., master_max_offset: _Optional[int] = ..., target_max_offset: _Optional[int] = ...) -> None: ...

class TopicConfig(_message.Message):
    __slots__ = ("topic_name", "cluster_name", "broker_names", "read_queue_nums", "write_queue_nums", "perm", "attributes")
    class AttributesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TOPIC_NAME_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAMES_FIELD_NUMBER: _ClassVar[int]
    READ_QUEUE_NUMS_FIELD_NUMBER: _ClassVar[int]
    WRITE_QUEUE_NUMS_FIELD_NUMBER: _ClassVar[int]
    PERM_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    topic_name: str
    cluster_name: str
    broker_names: _containers.RepeatedScalarFieldContainer[str]
    read_queue_nums: int
    write_queue_nums: int
    perm: int
    attributes: _containers.ScalarMap[str, str]
    def __init__(self, topic_name: _Optional[str] = ..., cluster_name: _Optional[str] = ..., broker_names: _Optional[_Iterable[str]] = ..., read_queue_nums: _Optional[int] = ..., write_queue_nums: _Optional[int] = ..., perm: _Optional[int] = ..., attributes: _Optional[_Mapping[str, str]] = ...) -> None: ...

class SubscriptionGroupConfig(_message.Message):
    __slots__ = ("group_name", "cluster_name", "broker_names", "consume_orderly", "retry_max_times", "consume_enable", "retry_policy")
    GROUP_NAME_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAMES_FIELD_NUMBER: _ClassVar[int]
    CONSUME_ORDERLY_FIELD_NUMBER: _ClassVar[int]
    RETRY_MAX_TIMES_FIELD_NUMBER: _ClassVar[int]
    CONSUME_ENABLE_FIELD_NUMBER: _ClassVar[int]
    RETRY_POLICY_FIELD_NUMBER: _ClassVar[int]
    group_name: str
    cluster_name: str
    broker_names: _containers.RepeatedScalarFieldContainer[str]
    consume_orderly: bool
    retry_max_times: int
    consume_enable: bool
    retry_policy: GroupRetryPolicy
    def __init__(self, group_name: _Optional[str] = ..., cluster_name: _Optional[str] = ..., broker_names: _Optional[_Iterable[str]] = ..., consume_orderly: _Optional[bool] = ..., retry_max_times: _Optional[int] = ..., consume_enable: _Optional[bool] = ..., retry_policy: _Optional[_Union[GroupRetryPolicy, _Mapping]] = ...) -> None: ...

class GroupRetryPolicy(_message.Message):
    __slots__ = ("customized", "exponential")
    CUSTOMIZED_FIELD_NUMBER: _ClassVar[int]
    EXPONENTIAL_FIELD_NUMBER: _ClassVar[int]
    customized: CustomizedRetryPolicy
    exponential: ExponentialRetryPolicy
    def __init__(self, customized: _Optional[_Union[CustomizedRetryPolicy, _Mapping]] = ..., exponential: _Optional[_Union[ExponentialRetryPolicy, _Mapping]] = ...) -> None: ...

class CustomizedRetryPolicy(_message.Message):
    __slots__ = ("next_ms",)
    NEXT_MS_FIELD_NUMBER: _ClassVar[int]
    next_ms: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, next_ms: _Optional[_Iterable[int]] = ...) -> None: ...

class ExponentialRetryPolicy(_message.Message):
    __slots__ = ("initial_ms", "max_ms", "multiplier")
    INITIAL_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_MS_FIELD_NUMBER: _ClassVar[int]
    MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    initial_ms: int
    max_ms: int
    multiplier: int
    def __init__(self, initial_ms: _Optional[int] = ..., max_ms: _Optional[int] = ..., multiplier: _Optional[int] = ...) -> None: ...

class UpdateTopicRequest(_message.Message):
    __slots__ = ("cluster_name", "broker_name", "topic_name", "read_queue_nums", "write_queue_nums", "perm", "attributes")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    TOPIC_NAME_FIELD_NUMBER: _ClassVar[int]
    READ_QUEUE_NUMS_FIELD_NUMBER: _ClassVar[int]
    WRITE_QUEUE_NUMS_FIELD_NUMBER: _ClassVar[int]
    PERM_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_name: str
    topic_name: str
    read_queue_nums: int
    write_queue_nums: int
    perm: int
    attributes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., topic_name: _Optional[str] = ..., read_queue_nums: _Optional[int] = ..., write_queue_nums: _Optional[int] = ..., perm: _Optional[int] = ..., attributes: _Optional[_Iterable[str]] = ...) -> None: ...

class DeleteTopicRequest(_message.Message):
    __slots__ = ("cluster_name", "topic_name")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    TOPIC_NAME_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    topic_name: str
    def __init__(self, cluster_name: _Optional[str] = ..., topic_name: _Optional[str] = ...) -> None: ...

class UpdateSubscriptionGroupRequest(_message.Message):
    __slots__ = ("cluster_name", "broker_name", "group_name", "consume_orderly", "retry_max_times", "consume_enable", "retry_policy")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    GROUP_NAME_FIELD_NUMBER: _ClassVar[int]
    CONSUME_ORDERLY_FIELD_NUMBER: _ClassVar[int]
    RETRY_MAX_TIMES_FIELD_NUMBER: _ClassVar[int]
    CONSUME_ENABLE_FIELD_NUMBER: _ClassVar[int]
    RETRY_POLICY_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_name: str
    group_name: str
    consume_orderly: bool
    retry_max_times: int
    consume_enable: bool
    retry_policy: GroupRetryPolicy
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., group_name: _Optional[str] = ..., consume_orderly: _Optional[bool] = ..., retry_max_times: _Optional[int] = ..., consume_enable: _Optional[bool] = ..., retry_policy: _Optional[_Union[GroupRetryPolicy, _Mapping]] = ...) -> None: ...

class DeleteSubscriptionGroupRequest(_message.Message):
    __slots__ = ("cluster_name", "group_name")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    GROUP_NAME_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    group_name: str
    def __init__(self, cluster_name: _Optional[str] = ..., group_name: _Optional[str] = ...) -> None: ...

class MetadataChangeResponse(_message.Message):
    __slots__ = ("code", "remark", "leader_address", "metadata_version", "changed", "topic", "group")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    METADATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    leader_address: str
    metadata_version: int
    changed: bool
    topic: TopicConfig
    group: SubscriptionGroupConfig
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., leader_address: _Optional[str] = ..., metadata_version: _Optional[int] = ..., changed: _Optional[bool] = ..., topic: _Optional[_Union[TopicConfig, _Mapping]] = ..., group: _Optional[_Union[SubscriptionGroupConfig, _Mapping]] = ...) -> None: ...

class GetMetadataRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetMetadataResponse(_message.Message):
    __slots__ = ("code", "remark", "leader_address", "metadata_version", "topics", "groups", "write_wiped_broker_names")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    METADATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    TOPICS_FIELD_NUMBER: _ClassVar[int]
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    WRITE_WIPED_BROKER_NAMES_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    leader_address: str
    metadata_version: int
    topics: _containers.RepeatedCompositeFieldContainer[TopicConfig]
    groups: _containers.RepeatedCompositeFieldContainer[SubscriptionGroupConfig]
    write_wiped_broker_names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., leader_address: _Optional[str] = ..., metadata_version: _Optional[int] = ..., topics: _Optional[_Iterable[_Union[TopicConfig, _Mapping]]] = ..., groups: _Optional[_Iterable[_Union[SubscriptionGroupConfig, _Mapping]]] = ..., write_wiped_broker_names: _Optional[_Iterable[str]] = ...) -> None: ...

class SetBrokerPermissionRequest(_message.Message):
    __slots__ = ("cluster_name", "broker_name", "writable")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    WRITABLE_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_name: str
    writable: bool
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., writable: _Optional[bool] = ...) -> None: ...
