from mqbase.proto import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TransactionResolution(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRANSACTION_RESOLUTION_UNSPECIFIED: _ClassVar[TransactionResolution]
    COMMIT: _ClassVar[TransactionResolution]
    ROLLBACK: _ClassVar[TransactionResolution]
TRANSACTION_RESOLUTION_UNSPECIFIED: TransactionResolution
COMMIT: TransactionResolution
ROLLBACK: TransactionResolution

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
    __slots__ = ("code", "remark", "messages", "min_offset", "max_offset", "next_offset", "queue_nums")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    MIN_OFFSET_FIELD_NUMBER: _ClassVar[int]
    MAX_OFFSET_FIELD_NUMBER: _ClassVar[int]
    NEXT_OFFSET_FIELD_NUMBER: _ClassVar[int]
    QUEUE_NUMS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    messages: _containers.RepeatedCompositeFieldContainer[PulledMessage]
    min_offset: int
    max_offset: int
    next_offset: int
    queue_nums: int
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., messages: _Optional[_Iterable[_Union[PulledMessage, _Mapping]]] = ..., min_offset: _Optional[int] = ..., max_offset: _Optional[int] = ..., next_offset: _Optional[int] = ..., queue_nums: _Optional[int] = ...) -> None: ...

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
    __slots__ = ("cluster_name", "broker_name", "broker_id", "broker_address", "ha_address", "role", "master_epoch", "config_path", "error", "metadata_version", "topics", "subscription_groups", "acting_master", "acting_since_millis", "pre_online")
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
    ACTING_MASTER_FIELD_NUMBER: _ClassVar[int]
    ACTING_SINCE_MILLIS_FIELD_NUMBER: _ClassVar[int]
    PRE_ONLINE_FIELD_NUMBER: _ClassVar[int]
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
    acting_master: bool
    acting_since_millis: int
    pre_online: bool
    def __init__(self, cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ..., broker_address: _Optional[str] = ..., ha_address: _Optional[str] = ..., role: _Optional[str] = ..., master_epoch: _Optional[int] = ..., config_path: _Optional[str] = ..., error: _Optional[str] = ..., metadata_version: _Optional[int] = ..., topics: _Optional[_Iterable[str]] = ..., subscription_groups: _Optional[_Iterable[str]] = ..., acting_master: _Optional[bool] = ..., acting_since_millis: _Optional[int] = ..., pre_online: _Optional[bool] = ...) -> None: ...

class ListBrokersResponse(_message.Message):
    __slots__ = ("code", "remark", "brokers", "proxy_address")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    BROKERS_FIELD_NUMBER: _ClassVar[int]
    PROXY_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    brokers: _containers.RepeatedCompositeFieldContainer[HostedBroker]
    proxy_address: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., brokers: _Optional[_Iterable[_Union[HostedBroker, _Mapping]]] = ..., proxy_address: _Optional[str] = ...) -> None: ...

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

class ReceiveMessageRequest(_message.Message):
    __slots__ = ("broker", "group", "topic", "queue_id", "filter_expression", "batch_size", "invisible_millis", "long_polling_millis", "attempt_id")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    QUEUE_ID_FIELD_NUMBER: _ClassVar[int]
    FILTER_EXPRESSION_FIELD_NUMBER: _ClassVar[int]
    BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    INVISIBLE_MILLIS_FIELD_NUMBER: _ClassVar[int]
    LONG_POLLING_MILLIS_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_ID_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    group: str
    topic: str
    queue_id: int
    filter_expression: str
    batch_size: int
    invisible_millis: int
    long_polling_millis: int
    attempt_id: str
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., group: _Optional[str] = ..., topic: _Optional[str] = ..., queue_id: _Optional[int] = ..., filter_expression: _Optional[str] = ..., batch_size: _Optional[int] = ..., invisible_millis: _Optional[int] = ..., long_polling_millis: _Optional[int] = ..., attempt_id: _Optional[str] = ...) -> None: ...

class ReceivedMessage(_message.Message):
    __slots__ = ("message", "queue_offset", "store_timestamp", "delivery_attempt", "receipt_handle", "invisible_until_millis", "body_digest")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    QUEUE_OFFSET_FIELD_NUMBER: _ClassVar[int]
    STORE_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    DELIVERY_ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_HANDLE_FIELD_NUMBER: _ClassVar[int]
    INVISIBLE_UNTIL_MILLIS_FIELD_NUMBER: _ClassVar[int]
    BODY_DIGEST_FIELD_NUMBER: _ClassVar[int]
    message: Message
    queue_offset: int
    store_timestamp: int
    delivery_attempt: int
    receipt_handle: str
    invisible_until_millis: int
    body_digest: str
    def __init__(self, message: _Optional[_Union[Message, _Mapping]] = ..., queue_offset: _Optional[int] = ..., store_timestamp: _Optional[int] = ..., delivery_attempt: _Optional[int] = ..., receipt_handle: _Optional[str] = ..., invisible_until_millis: _Optional[int] = ..., body_digest: _Optional[str] = ...) -> None: ...

class ReceiveMessageResponse(_message.Message):
    __slots__ = ("code", "remark", "pop_code", "messages", "master_address")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    POP_CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    MASTER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    pop_code: int
    messages: _containers.RepeatedCompositeFieldContainer[ReceivedMessage]
    master_address: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., pop_code: _Optional[int] = ..., messages: _Optional[_Iterable[_Union[ReceivedMessage, _Mapping]]] = ..., master_address: _Optional[str] = ...) -> None: ...

class AckMessageRequest(_message.Message):
    __slots__ = ("broker", "group", "topic", "receipt_handles", "dead_letter")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_HANDLES_FIELD_NUMBER: _ClassVar[int]
    DEAD_LETTER_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    group: str
    topic: str
    receipt_handles: _containers.RepeatedScalarFieldContainer[str]
    dead_letter: bool
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., group: _Optional[str] = ..., topic: _Optional[str] = ..., receipt_handles: _Optional[_Iterable[str]] = ..., dead_letter: _Optional[bool] = ...) -> None: ...

class AckResult(_message.Message):
    __slots__ = ("receipt_handle", "code", "pop_code", "remark")
    RECEIPT_HANDLE_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    POP_CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    receipt_handle: str
    code: int
    pop_code: int
    remark: str
    def __init__(self, receipt_handle: _Optional[str] = ..., code: _Optional[int] = ..., pop_code: _Optional[int] = ..., remark: _Optional[str] = ...) -> None: ...

class AckMessageResponse(_message.Message):
    __slots__ = ("code", "remark", "results", "master_address")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    MASTER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    results: _containers.RepeatedCompositeFieldContainer[AckResult]
    master_address: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., results: _Optional[_Iterable[_Union[AckResult, _Mapping]]] = ..., master_address: _Optional[str] = ...) -> None: ...

class ChangeInvisibleDurationRequest(_message.Message):
    __slots__ = ("broker", "group", "topic", "receipt_handle", "invisible_millis", "nack")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_HANDLE_FIELD_NUMBER: _ClassVar[int]
    INVISIBLE_MILLIS_FIELD_NUMBER: _ClassVar[int]
    NACK_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    group: str
    topic: str
    receipt_handle: str
    invisible_millis: int
    nack: bool
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., group: _Optional[str] = ..., topic: _Optional[str] = ..., receipt_handle: _Optional[str] = ..., invisible_millis: _Optional[int] = ..., nack: _Optional[bool] = ...) -> None: ...

class ChangeInvisibleDurationResponse(_message.Message):
    __slots__ = ("code", "remark", "pop_code", "receipt_handle", "invisible_until_millis", "master_address")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    POP_CODE_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_HANDLE_FIELD_NUMBER: _ClassVar[int]
    INVISIBLE_UNTIL_MILLIS_FIELD_NUMBER: _ClassVar[int]
    MASTER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    pop_code: int
    receipt_handle: str
    invisible_until_millis: int
    master_address: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., pop_code: _Optional[int] = ..., receipt_handle: _Optional[str] = ..., invisible_until_millis: _Optional[int] = ..., master_address: _Optional[str] = ...) -> None: ...

class UpdateConsumerOffsetRequest(_message.Message):
    __slots__ = ("broker", "group", "topic", "queue_id", "offset")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    QUEUE_ID_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    group: str
    topic: str
    queue_id: int
    offset: int
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., group: _Optional[str] = ..., topic: _Optional[str] = ..., queue_id: _Optional[int] = ..., offset: _Optional[int] = ...) -> None: ...

class ResetOffsetByTimeRequest(_message.Message):
    __slots__ = ("broker", "group", "topic", "timestamp_millis")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_MILLIS_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    group: str
    topic: str
    timestamp_millis: int
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., group: _Optional[str] = ..., topic: _Optional[str] = ..., timestamp_millis: _Optional[int] = ...) -> None: ...

class QueueOffset(_message.Message):
    __slots__ = ("queue_id", "offset")
    QUEUE_ID_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    queue_id: int
    offset: int
    def __init__(self, queue_id: _Optional[int] = ..., offset: _Optional[int] = ...) -> None: ...

class ResetOffsetByTimeResponse(_message.Message):
    __slots__ = ("code", "remark", "offsets", "master_address")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    OFFSETS_FIELD_NUMBER: _ClassVar[int]
    MASTER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    offsets: _containers.RepeatedCompositeFieldContainer[QueueOffset]
    master_address: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., offsets: _Optional[_Iterable[_Union[QueueOffset, _Mapping]]] = ..., master_address: _Optional[str] = ...) -> None: ...

class GetConsumerProgressRequest(_message.Message):
    __slots__ = ("broker", "group", "topic")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    group: str
    topic: str
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., group: _Optional[str] = ..., topic: _Optional[str] = ...) -> None: ...

class QueueProgress(_message.Message):
    __slots__ = ("topic", "queue_id", "broker_offset", "min_offset", "consumer_offset", "inflight", "last_timestamp_millis")
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    QUEUE_ID_FIELD_NUMBER: _ClassVar[int]
    BROKER_OFFSET_FIELD_NUMBER: _ClassVar[int]
    MIN_OFFSET_FIELD_NUMBER: _ClassVar[int]
    CONSUMER_OFFSET_FIELD_NUMBER: _ClassVar[int]
    INFLIGHT_FIELD_NUMBER: _ClassVar[int]
    LAST_TIMESTAMP_MILLIS_FIELD_NUMBER: _ClassVar[int]
    topic: str
    queue_id: int
    broker_offset: int
    min_offset: int
    consumer_offset: int
    inflight: int
    last_timestamp_millis: int
    def __init__(self, topic: _Optional[str] = ..., queue_id: _Optional[int] = ..., broker_offset: _Optional[int] = ..., min_offset: _Optional[int] = ..., consumer_offset: _Optional[int] = ..., inflight: _Optional[int] = ..., last_timestamp_millis: _Optional[int] = ...) -> None: ...

class GetConsumerProgressResponse(_message.Message):
    __slots__ = ("code", "remark", "queues", "master_address", "escaped")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    QUEUES_FIELD_NUMBER: _ClassVar[int]
    MASTER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ESCAPED_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    queues: _containers.RepeatedCompositeFieldContainer[QueueProgress]
    master_address: str
    escaped: _containers.RepeatedCompositeFieldContainer[EscapedProgress]
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., queues: _Optional[_Iterable[_Union[QueueProgress, _Mapping]]] = ..., master_address: _Optional[str] = ..., escaped: _Optional[_Iterable[_Union[EscapedProgress, _Mapping]]] = ...) -> None: ...

class EscapedProgress(_message.Message):
    __slots__ = ("home", "topic", "queue_id", "changes")
    HOME_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    QUEUE_ID_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    home: str
    topic: str
    queue_id: int
    changes: int
    def __init__(self, home: _Optional[str] = ..., topic: _Optional[str] = ..., queue_id: _Optional[int] = ..., changes: _Optional[int] = ...) -> None: ...

class GetConsumerSnapshotRequest(_message.Message):
    __slots__ = ("broker", "position", "max_bytes")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    position: int
    max_bytes: int
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., position: _Optional[int] = ..., max_bytes: _Optional[int] = ...) -> None: ...

class GetConsumerSnapshotResponse(_message.Message):
    __slots__ = ("code", "remark", "covered", "total_bytes", "data")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    COVERED_FIELD_NUMBER: _ClassVar[int]
    TOTAL_BYTES_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    covered: int
    total_bytes: int
    data: bytes
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., covered: _Optional[int] = ..., total_bytes: _Optional[int] = ..., data: _Optional[bytes] = ...) -> None: ...

class EscapeChangesRequest(_message.Message):
    __slots__ = ("broker", "home", "records", "copies")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    HOME_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    COPIES_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    home: str
    records: bytes
    copies: _containers.RepeatedCompositeFieldContainer[Message]
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., home: _Optional[str] = ..., records: _Optional[bytes] = ..., copies: _Optional[_Iterable[_Union[Message, _Mapping]]] = ...) -> None: ...

class GetEscapedRequest(_message.Message):
    __slots__ = ("broker", "home")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    HOME_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    home: str
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., home: _Optional[str] = ...) -> None: ...

class GetEscapedResponse(_message.Message):
    __slots__ = ("code", "remark", "records")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    records: bytes
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., records: _Optional[bytes] = ...) -> None: ...

class ReleaseEscapedRequest(_message.Message):
    __slots__ = ("broker", "home", "records")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    HOME_FIELD_NUMBER: _ClassVar[int]
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    home: str
    records: bytes
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., home: _Optional[str] = ..., records: _Optional[bytes] = ...) -> None: ...

class GetConsumerStateRequest(_message.Message):
    __slots__ = ("broker", "position", "max_bytes")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    position: int
    max_bytes: int
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., position: _Optional[int] = ..., max_bytes: _Optional[int] = ...) -> None: ...

class GetConsumerStateResponse(_message.Message):
    __slots__ = ("code", "remark", "snapshot", "total_bytes", "seq")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_BYTES_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    snapshot: bytes
    total_bytes: int
    seq: int
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., snapshot: _Optional[bytes] = ..., total_bytes: _Optional[int] = ..., seq: _Optional[int] = ...) -> None: ...

class LockBatchMQRequest(_message.Message):
    __slots__ = ("broker", "owner", "group", "topic", "queue_ids", "life_millis")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    QUEUE_IDS_FIELD_NUMBER: _ClassVar[int]
    LIFE_MILLIS_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    owner: str
    group: str
    topic: str
    queue_ids: _containers.RepeatedScalarFieldContainer[int]
    life_millis: int
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., owner: _Optional[str] = ..., group: _Optional[str] = ..., topic: _Optional[str] = ..., queue_ids: _Optional[_Iterable[int]] = ..., life_millis: _Optional[int] = ...) -> None: ...

class UnlockBatchMQRequest(_message.Message):
    __slots__ = ("broker", "owner", "group", "topic", "queue_ids")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    QUEUE_IDS_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    owner: str
    group: str
    topic: str
    queue_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., owner: _Optional[str] = ..., group: _Optional[str] = ..., topic: _Optional[str] = ..., queue_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class LockBatchMQResponse(_message.Message):
    __slots__ = ("code", "remark", "locked_queue_ids")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    LOCKED_QUEUE_IDS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    locked_queue_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., locked_queue_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class TrafficStats(_message.Message):
    __slots__ = ("topic", "group", "put_messages", "put_bytes", "get_messages", "get_bytes", "put_tps", "get_tps")
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    PUT_MESSAGES_FIELD_NUMBER: _ClassVar[int]
    PUT_BYTES_FIELD_NUMBER: _ClassVar[int]
    GET_MESSAGES_FIELD_NUMBER: _ClassVar[int]
    GET_BYTES_FIELD_NUMBER: _ClassVar[int]
    PUT_TPS_FIELD_NUMBER: _ClassVar[int]
    GET_TPS_FIELD_NUMBER: _ClassVar[int]
    topic: str
    group: str
    put_messages: int
    put_bytes: int
    get_messages: int
    get_bytes: int
    put_tps: float
    get_tps: float
    def __init__(self, topic: _Optional[str] = ..., group: _Optional[str] = ..., put_messages: _Optional[int] = ..., put_bytes: _Optional[int] = ..., get_messages: _Optional[int] = ..., get_bytes: _Optional[int] = ..., put_tps: _Optional[float] = ..., get_tps: _Optional[float] = ...) -> None: ...

class GetBrokerStatsResponse(_message.Message):
    __slots__ = ("code", "remark", "version", "boot_timestamp_millis", "total", "rows", "cluster_name", "broker_name", "broker_id", "role", "master_epoch", "min_offset", "max_offset", "confirm_offset", "acting_master")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    BOOT_TIMESTAMP_MILLIS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_NAME_FIELD_NUMBER: _ClassVar[int]
    BROKER_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    MASTER_EPOCH_FIELD_NUMBER: _ClassVar[int]
    MIN_OFFSET_FIELD_NUMBER: _ClassVar[int]
    MAX_OFFSET_FIELD_NUMBER: _ClassVar[int]
    CONFIRM_OFFSET_FIELD_NUMBER: _ClassVar[int]
    ACTING_MASTER_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    version: str
    boot_timestamp_millis: int
    total: TrafficStats
    rows: _containers.RepeatedCompositeFieldContainer[TrafficStats]
    cluster_name: str
    broker_name: str
    broker_id: int
    role: str
    master_epoch: int
    min_offset: int
    max_offset: int
    confirm_offset: int
    acting_master: bool
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., version: _Optional[str] = ..., boot_timestamp_millis: _Optional[int] = ..., total: _Optional[_Union[TrafficStats, _Mapping]] = ..., rows: _Optional[_Iterable[_Union[TrafficStats, _Mapping]]] = ..., cluster_name: _Optional[str] = ..., broker_name: _Optional[str] = ..., broker_id: _Optional[int] = ..., role: _Optional[str] = ..., master_epoch: _Optional[int] = ..., min_offset: _Optional[int] = ..., max_offset: _Optional[int] = ..., confirm_offset: _Optional[int] = ..., acting_master: _Optional[bool] = ...) -> None: ...

class DeleteExpiredCommitLogResponse(_message.Message):
    __slots__ = ("code", "remark", "deleted_segments", "deleted_bytes", "min_offset", "held_by")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    DELETED_SEGMENTS_FIELD_NUMBER: _ClassVar[int]
    DELETED_BYTES_FIELD_NUMBER: _ClassVar[int]
    MIN_OFFSET_FIELD_NUMBER: _ClassVar[int]
    HELD_BY_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    deleted_segments: int
    deleted_bytes: int
    min_offset: int
    held_by: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., deleted_segments: _Optional[int] = ..., deleted_bytes: _Optional[int] = ..., min_offset: _Optional[int] = ..., held_by: _Optional[str] = ...) -> None: ...

class GetClientConnectionsRequest(_message.Message):
    __slots__ = ("group", "topic")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    group: str
    topic: str
    def __init__(self, group: _Optional[str] = ..., topic: _Optional[str] = ...) -> None: ...

class ClientConnection(_message.Message):
    __slots__ = ("client_id", "address", "language", "version", "client_type", "group", "subscriptions", "last_seen_millis", "access_point")
    class SubscriptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CLIENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTIONS_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_MILLIS_FIELD_NUMBER: _ClassVar[int]
    ACCESS_POINT_FIELD_NUMBER: _ClassVar[int]
    client_id: str
    address: str
    language: str
    version: str
    client_type: str
    group: str
    subscriptions: _containers.ScalarMap[str, str]
    last_seen_millis: int
    access_point: str
    def __init__(self, client_id: _Optional[str] = ..., address: _Optional[str] = ..., language: _Optional[str] = ..., version: _Optional[str] = ..., client_type: _Optional[str] = ..., group: _Optional[str] = ..., subscriptions: _Optional[_Mapping[str, str]] = ..., last_seen_millis: _Optional[int] = ..., access_point: _Optional[str] = ...) -> None: ...

class GetClientConnectionsResponse(_message.Message):
    __slots__ = ("code", "remark", "connections")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    CONNECTIONS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    connections: _containers.RepeatedCompositeFieldContainer[ClientConnection]
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., connections: _Optional[_Iterable[_Union[ClientConnection, _Mapping]]] = ...) -> None: ...

class StoredMessage(_message.Message):
    __slots__ = ("topic", "queue_id", "queue_offset", "commit_log_offset", "size", "store_timestamp", "body", "properties")
    class PropertiesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    QUEUE_ID_FIELD_NUMBER: _ClassVar[int]
    QUEUE_OFFSET_FIELD_NUMBER: _ClassVar[int]
    COMMIT_LOG_OFFSET_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    STORE_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    topic: str
    queue_id: int
    queue_offset: int
    commit_log_offset: int
    size: int
    store_timestamp: int
    body: bytes
    properties: _containers.ScalarMap[str, str]
    def __init__(self, topic: _Optional[str] = ..., queue_id: _Optional[int] = ..., queue_offset: _Optional[int] = ..., commit_log_offset: _Optional[int] = ..., size: _Optional[int] = ..., store_timestamp: _Optional[int] = ..., body: _Optional[bytes] = ..., properties: _Optional[_Mapping[str, str]] = ...) -> None: ...

class QueryMessageRequest(_message.Message):
    __slots__ = ("broker", "topic", "key", "unique", "begin_timestamp", "end_timestamp", "max_num")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    UNIQUE_FIELD_NUMBER: _ClassVar[int]
    BEGIN_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    END_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    MAX_NUM_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    topic: str
    key: str
    unique: bool
    begin_timestamp: int
    end_timestamp: int
    max_num: int
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., topic: _Optional[str] = ..., key: _Optional[str] = ..., unique: _Optional[bool] = ..., begin_timestamp: _Optional[int] = ..., end_timestamp: _Optional[int] = ..., max_num: _Optional[int] = ...) -> None: ...

class ViewMessageRequest(_message.Message):
    __slots__ = ("broker", "commit_log_offset")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    COMMIT_LOG_OFFSET_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    commit_log_offset: int
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., commit_log_offset: _Optional[int] = ...) -> None: ...

class QueryMessageResponse(_message.Message):
    __slots__ = ("code", "remark", "messages")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    messages: _containers.RepeatedCompositeFieldContainer[StoredMessage]
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., messages: _Optional[_Iterable[_Union[StoredMessage, _Mapping]]] = ...) -> None: ...

class QueryConsumeQueueRequest(_message.Message):
    __slots__ = ("broker", "topic", "queue_id", "index", "count", "with_messages", "begin_timestamp", "end_timestamp")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    QUEUE_ID_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    WITH_MESSAGES_FIELD_NUMBER: _ClassVar[int]
    BEGIN_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    END_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    topic: str
    queue_id: int
    index: int
    count: int
    with_messages: bool
    begin_timestamp: int
    end_timestamp: int
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., topic: _Optional[str] = ..., queue_id: _Optional[int] = ..., index: _Optional[int] = ..., count: _Optional[int] = ..., with_messages: _Optional[bool] = ..., begin_timestamp: _Optional[int] = ..., end_timestamp: _Optional[int] = ...) -> None: ...

class ConsumeQueueEntry(_message.Message):
    __slots__ = ("queue_offset", "commit_log_offset", "size", "message")
    QUEUE_OFFSET_FIELD_NUMBER: _ClassVar[int]
    COMMIT_LOG_OFFSET_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    queue_offset: int
    commit_log_offset: int
    size: int
    message: StoredMessage
    def __init__(self, queue_offset: _Optional[int] = ..., commit_log_offset: _Optional[int] = ..., size: _Optional[int] = ..., message: _Optional[_Union[StoredMessage, _Mapping]] = ...) -> None: ...

class QueryConsumeQueueResponse(_message.Message):
    __slots__ = ("code", "remark", "min_offset", "max_offset", "entries", "queue_ids")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    MIN_OFFSET_FIELD_NUMBER: _ClassVar[int]
    MAX_OFFSET_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    QUEUE_IDS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    min_offset: int
    max_offset: int
    entries: _containers.RepeatedCompositeFieldContainer[ConsumeQueueEntry]
    queue_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., min_offset: _Optional[int] = ..., max_offset: _Optional[int] = ..., entries: _Optional[_Iterable[_Union[ConsumeQueueEntry, _Mapping]]] = ..., queue_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class EndTransactionRequest(_message.Message):
    __slots__ = ("broker", "topic", "message_id", "transaction_id", "resolution", "from_check")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    FROM_CHECK_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    topic: str
    message_id: str
    transaction_id: str
    resolution: TransactionResolution
    from_check: bool
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., topic: _Optional[str] = ..., message_id: _Optional[str] = ..., transaction_id: _Optional[str] = ..., resolution: _Optional[_Union[TransactionResolution, str]] = ..., from_check: _Optional[bool] = ...) -> None: ...

class EndTransactionResponse(_message.Message):
    __slots__ = ("code", "remark", "master_address")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    MASTER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    master_address: str
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., master_address: _Optional[str] = ...) -> None: ...

class TakeTransactionChecksRequest(_message.Message):
    __slots__ = ("broker", "topics")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    TOPICS_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    topics: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., topics: _Optional[_Iterable[str]] = ...) -> None: ...

class TransactionCheck(_message.Message):
    __slots__ = ("transaction_id", "message", "store_timestamp", "body_digest")
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    STORE_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    BODY_DIGEST_FIELD_NUMBER: _ClassVar[int]
    transaction_id: str
    message: Message
    store_timestamp: int
    body_digest: str
    def __init__(self, transaction_id: _Optional[str] = ..., message: _Optional[_Union[Message, _Mapping]] = ..., store_timestamp: _Optional[int] = ..., body_digest: _Optional[str] = ...) -> None: ...

class TakeTransactionChecksResponse(_message.Message):
    __slots__ = ("code", "remark", "checks")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    CHECKS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    checks: _containers.RepeatedCompositeFieldContainer[TransactionCheck]
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., checks: _Optional[_Iterable[_Union[TransactionCheck, _Mapping]]] = ...) -> None: ...

class GetOpenTransactionsRequest(_message.Message):
    __slots__ = ("broker", "topic")
    BROKER_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    broker: BrokerRef
    topic: str
    def __init__(self, broker: _Optional[_Union[BrokerRef, _Mapping]] = ..., topic: _Optional[str] = ...) -> None: ...

class OpenTransaction(_message.Message):
    __slots__ = ("transaction_id", "message_id", "store_timestamp", "checks")
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    STORE_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    CHECKS_FIELD_NUMBER: _ClassVar[int]
    transaction_id: str
    message_id: str
    store_timestamp: int
    checks: int
    def __init__(self, transaction_id: _Optional[str] = ..., message_id: _Optional[str] = ..., store_timestamp: _Optional[int] = ..., checks: _Optional[int] = ...) -> None: ...

class GetOpenTransactionsResponse(_message.Message):
    __slots__ = ("code", "remark", "transactions")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REMARK_FIELD_NUMBER: _ClassVar[int]
    TRANSACTIONS_FIELD_NUMBER: _ClassVar[int]
    code: int
    remark: str
    transactions: _containers.RepeatedCompositeFieldContainer[OpenTransaction]
    def __init__(self, code: _Optional[int] = ..., remark: _Optional[str] = ..., transactions: _Optional[_Iterable[_Union[OpenTransaction, _Mapping]]] = ...) -> None: ...
