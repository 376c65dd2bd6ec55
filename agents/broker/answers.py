"""What a put's status tells the client: the RocketMQ code and a remark saying what to do (sends and the consumer
records written for receives, acks and offset commits answer alike)."""

from __future__ import annotations

from agents.ha.sync_state import PutStatus
from mqbase.codes import ResponseCode

STATUS_CODES = {
    PutStatus.PUT_OK: ResponseCode.SUCCESS,
    PutStatus.FLUSH_SLAVE_TIMEOUT: ResponseCode.FLUSH_SLAVE_TIMEOUT,
    PutStatus.SLAVE_NOT_AVAILABLE: ResponseCode.SLAVE_NOT_AVAILABLE,
    PutStatus.SERVICE_NOT_AVAILABLE: ResponseCode.SERVICE_NOT_AVAILABLE,
    PutStatus.IN_SYNC_REPLICAS_NOT_ENOUGH: ResponseCode.SYSTEM_ERROR,  # as Java's SendMessageProcessor
    PutStatus.MASTER_TRANSFERRING: ResponseCode.SERVICE_NOT_AVAILABLE,  # a code Java producers retry
}
REMARKS = {
    PutStatus.PUT_OK: "",
    PutStatus.FLUSH_SLAVE_TIMEOUT: "the SyncStateSet did not acknowledge within syncFlushTimeout; retry",
    PutStatus.SLAVE_NOT_AVAILABLE: "this broker is a slave; send to the master",
    PutStatus.SERVICE_NOT_AVAILABLE: "this broker does not accept writes now (fenced or not yet master); retry",
    PutStatus.IN_SYNC_REPLICAS_NOT_ENOUGH: "in-sync replicas not enough (the SyncStateSet is below minInSyncReplicas)",
    PutStatus.MASTER_TRANSFERRING: "writes are paused while the master role moves to the broker at master_address; "
    "retry there",
}
