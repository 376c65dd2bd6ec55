from mqbase.proto import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AgentResponse(_message.Message):
    __slots__ = ("code", "remark")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ...) -> None: ...

class BrokerRef(_message.Message):
    __slots__ = ("broker_name", "broker_id")
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    broker_name: str
    broker_id: int
    def __init__(self, broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ...) -> None: ...

class GetBrokerEpochCacheRequest(_message.Message):
    __slots__ = ("broker_name", "broker_id")
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    broker_name: str
    broker_id: int
    def __init__(self, broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ...) -> None: ...

class GetBrokerEpochCacheResponse(_message.Message):
    __slots__ = ("code", "remark", "cluster_name", "broker_name", "broker_id", "epoch_list", "max_offset", "confirm_offset", "min_offset")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    EPOCH_LIST_FIELD_NUMBER: _ClassVar[int]
    MAX_OFFSET_FIELD_NUMBER: _ClassVar[int]
    CONFIRM_OFFSET_FIELD_NUMBER: _ClassVar[int]
    MIN_OFFSET_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    cluster_name: str
    broker_name: str
    broker_id: int
    epoch_list: _containers.RepeatedCompositeFieldContainer[_common_pb2.EpochEntry]
    max_offset: int
    confirm_offset: int
    min_offset: int
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ..., epoch_list: _Optional[_Iterable[_Union[_common_pb2.EpochEntry, _Mapping]]] = ..., max_offset: _Optional[int] = ..., confirm_offset: _Optional[int] = ..., min_offset: _Optional[int] = ...) -> None: ...

class Message(_message.Message):
    __slots__ = ("topic", "queue_id", "body", "properties")
    class PropertiesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    QUEUE_ID_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    topic: str
    queue_id: int
    body: bytes
    properties: _containers.ScalarMap[str, str]
    def __init__(self, topic: _Optional[str] = ..., queue_id: _Optional[int] = ..., body: _Optional[bytes] = ..., properties: _Optional[_Mapping[str, str]] = ...) -> None: ...

class SendMessageRequest(_message.Message):
    __slots__ = ("broker", "message")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    message: Message
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., message: _Optional[_Union[Message, _Mapping]] = ...) -> None: ...

class SendMessagesRequest(_message.Message):
    __slots__ = ("broker", "messages")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    messages: _containers.RepeatedCompositeFieldContainer[Message]
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., messages: _Optional[_Iterable[_Union[Message, _Mapping]]] = ...) -> None: ...

class SendResult(_message.Message):
    __slots__ = ("queue_id", "queue_offset", "commit_log_offset")
    QUEUE_ID_FIELD_NUMBER: _ClassVar[int]
    QUEUE_OFFSET_FIELD_NUMBER: _ClassVar[int]
    COMMIT_LOG_OFFSET_FIELD_NUMBER: _ClassVar[int]
    queue_id: int
    queue_offset: int
    commit_log_offset: int
    def __init__(self, queue_id: _Optional[int] = ..., queue_offset: _Optional[int] = ..., commit_log_offset: _Optional[int] = ...) -> None: ...

class SendMessageResponse(_message.Message):
    __slots__ = ("code", "remark", "status", "broker_id", "master_epoch", "master_address", "results")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    MASTER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    status: str
    broker_id: int
    master_epoch: int
    master_address: str
    results: _containers.RepeatedCompositeFieldContainer[SendResult]
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., status: _Optional[str] = ..., broker_id: _Optional[int] = ..., master_epoch: _Optional[int] = ..., master_address: _Optional[str] = ..., results: _Optional[_Iterable[_Union[SendResult, _Mapping]]] = ...) -> None: ...

class PullMessageRequest(_message.Message):
    __slots__ = ("broker", "topic", "queue_id", "queue_offset", "max_messages")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    QUEUE_ID_FIELD_NUMBER: _ClassVar[int]
    QUEUE_OFFSET_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGES_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    topic: str
    queue_id: int
    queue_offset: int
    max_messages: int
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., topic: _Optional[str] = ..., queue_id: _Optional[int] = ..., queue_offset: _Optional[int] = ..., max_messages: _Optional[int] = ...) -> None: ...

class PulledMessage(_message.Message):
    __slots__ = ("queue_offset", "message", "store_timestamp")
    QUEUE_OFFSET_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    STORE_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    queue_offset: int
    message: Message
    store_timestamp: int
    def __init__(self, queue_offset: _Optional[int] = ..., message: _Optional[_Union[Message, _Mapping]] = ..., store_timestamp: _Optional[int] = ...) -> None: ...

class PullMessageResponse(_message.Message):
    __slots__ = ("code", "remark", "messages", "min_offset", "max_offset", "next_offset")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    MIN_OFFSET_FIELD_NUMBER: _ClassVar[int]
    MAX_OFFSET_FIELD_NUMBER: _ClassVar[int]
    NEXT_OFFSET_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    messages: _containers.RepeatedCompositeFieldContainer[PulledMessage]
    min_offset: int
    max_offset: int
    next_offset: int
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., messages: _Optional[_Iterable[_Union[PulledMessage, _Mapping]]] = ..., min_offset: _Optional[int] = ..., max_offset: _Optional[int] = ..., next_offset: _Optional[int] = ...) -> None: ...

class HASlaveConnection(_message.Message):
    __slots__ = ("broker_id", "address", "ack_offset", "diff", "in_sync", "last_caught_up_millis_ago")
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ACK_OFFSET_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    IN_SYNC_FIELD_NUMBER: _ClassVar[int]
    LAST_CAUGHT_UP_MILLIS_AGO_FIELD_NUMBER: _ClassVar[int]
    broker_id: int
    address: str
    ack_offset: int
    diff: int
    in_sync: bool
    last_caught_up_millis_ago: int
    def __init__(self, broker_id: _Optional[int] = ..., address: _Optional[str] = ..., ack_offset: _Optional[int] = ..., diff: _Optional[int] = ..., in_sync: _Optional[bool] = ..., last_caught_up_millis_ago: _Optional[int] = ...) -> None: ...

class GetHAStatusResponse(_message.Message):
    __slots__ = ("code", "remark", "cluster_name", "broker_name", "broker_id", "role", "master_epoch", "max_offset", "confirm_offset", "sync_state_set", "sync_state_set_epoch", "slaves", "master_address", "master_ha_address", "connected", "last_error")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    MAX_OFFSET_FIELD_NUMBER: _ClassVar[int]
    CONFIRM_OFFSET_FIELD_NUMBER: _ClassVar[int]
    SYNC_STATE_SET_FIELD_NUMBER: _ClassVar[int]
    SYNC_STATE_SET_EPOCH_FIELD_NUMBER: _ClassVar[int]
    SLAVES_FIELD_NUMBER: _ClassVar[int]
    MASTER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    MASTER_HA_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    cluster_name: str
    broker_name: str
    broker_id: int
    role: str
    master_epoch: int
    max_offset: int
    confirm_offset: int
    sync_state_set: _containers.RepeatedScalarFieldContainer[int]
    sync_state_set_epoch: int
    slaves: _containers.RepeatedCompositeFieldContainer[HASlaveConnection]
    master_address: str
    master_ha_address: str
    connected: bool
    last_error: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ..., role: _Optional[str] = ..., master_epoch: _Optional[int] = ..., max_offset: _Optional[int] = ..., confirm_offset: _Optional[int] = ..., sync_state_set: _Optional[_Iterable[int]] = ..., sync_state_set_epoch: _Optional[int] = ..., slaves: _Optional[_Iterable[_Union[HASlaveConnection, _Mapping]]] = ..., master_address: _Optional[str] = ..., master_ha_address: _Optional[str] = ..., connected: _Optional[bool] = ..., last_error: _Optional[str] = ...) -> None: ...

class ResetMasterFlushOffsetRequest(_message.Message):
    __slots__ = ("broker", "offset")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    offset: int
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., offset: _Optional[int] = ...) -> None: ...

class GetBrokerConfigResponse(_message.Message):
    __slots__ = ("code", "remark", "config")
    class ConfigEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    config: _containers.ScalarMap[str, str]
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., config: _Optional[_Mapping[str, str]] = ...) -> None: ...

class UpdateBrokerConfigRequest(_message.Message):
    __slots__ = ("broker", "values")
    class ValuesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    BROKER_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    values: _containers.ScalarMap[str, str]
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., values: _Optional[_Mapping[str, str]] = ...) -> None: ...

class AddBrokerRequest(_message.Message):
    __slots__ = ("broker_config_path",)
    BROKER_CONFIG_PATH_FIELD_NUMBER: _ClassVar[int]
    broker_config_path: str
    def __init__(self, broker_config_path: _Optional[str] = ...) -> None: ...

class RemoveBrokerRequest(_message.Message):
    __slots__ = ("cluster_name", "broker_name", "broker_id")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_name: str
    broker_id: int
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ...) -> None: ...

class ListBrokersRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class HostedBroker(_message.Message):
    __slots__ = ("cluster_name", "broker_name", "broker_id", "broker_address", "ha_address", "role", "master_epoch", "config_path", "error", "metadata_version", "topics", "subscription_groups")
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    BROKER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    HA_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    CONFIG_PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    METADATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    TOPICS_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_GROUPS_FIELD_NUMBER: _ClassVar[int]
    cluster_name: str
    broker_name: str
    broker_id: int
    broker_address: str
    ha_address: str
    role: str
    master_epoch: int
    config_path: str
    error: str
    metadata_version: int
    topics: _containers.RepeatedScalarFieldContainer[str]
    subscription_groups: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ..., broker_address: _Optional[str] = ..., ha_address: _Optional[str] = ..., role: _Optional[str] = ..., master_epoch: _Optional[int] = ..., config_path: _Optional[str] = ..., error: _Optional[str] = ..., metadata_version: _Optional[int] = ..., topics: _Optional[_Iterable[str]] = ..., subscription_groups: _Optional[_Iterable[str]] = ...) -> None: ...

class ListBrokersResponse(_message.Message):
    __slots__ = ("code", "remark", "brokers")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    BROKERS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    brokers: _containers.RepeatedCompositeFieldContainer[HostedBroker]
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., brokers: _Optional[_Iterable[_Union[HostedBroker, _Mapping]]] = ...) -> None: ...

class PrepareTransferRequest(_message.Message):
    __slots__ = ("broker", "target_broker_id", "target_address", "master_epoch", "timeout_millis", "lease_millis", "token")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    TARGET_BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MILLIS_FIELD_NUMBER: _ClassVar[int]
    LEASE_MILLIS_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    target_broker_id: int
    target_address: str
    master_epoch: int
    timeout_millis: int
    lease_millis: int
    token: str
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., target_broker_id: _Optional[int] = ..., target_address: _Optional[str] = ..., master_epoch: _Optional[int] = ..., timeout_millis: _Optional[int] = ..., lease_millis: _Optional[int] = ..., token: _Optional[str] = ...) -> None: ...

class PrepareTransferResponse(_message.Message):
    __slots__ = ("code", "remark", "final_offset", "target_ack_offset", "waited_millis")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    FINAL_OFFSET_FIELD_NUMBER: _ClassVar[int]
    TARGET_ACK_OFFSET_FIELD_NUMBER: _ClassVar[int]
    WAITED_MILLIS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    final_offset: int
    target_ack_offset: int
    waited_millis: int
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., final_offset: _Optional[int] = ..., target_ack_offset: _Optional[int] = ..., waited_millis: _Optional[int] = ...) -> None: ...

class ResumeWritesRequest(_message.Message):
    __slots__ = ("broker", "token", "reason")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    token: str
    reason: str
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., token: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...
