"""The agent's gRPC API (agent.proto): sends, pulls, HA status, role pushes, config, and the RIP-31 container.

Every answer carries a RocketMQ ``code`` + ``remark``; gRPC status codes are left to transport failures. The
same servicer serves the agent's container port (broker-scoped requests name their broker) and each hosted
broker's own listen port (where an unnamed request means that broker).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar

from agents.access.connections import Connection
from agents.broker import convert, query
from agents.broker.consumer_checks import Refused as ConsumerRefused
from agents.broker.escape import decode_escaped, decode_released, encode_escaped
from agents.broker.manager import ReplicasManager
from agents.broker.queue_locks import Batch, batch_problem, keys_of
from agents.broker.stats import Figures
from agents.broker.write_gate import request_problem
from agents.consumer.errors import StateFormatError
from agents.errors import AgentError
from agents.ha.role import Role
from agents.metadata import (
    reader_queue_nums,
)
from agents.store.commitlog import OffsetTooSmall
from agents.store.epochs import MAX_OFFSET
from agents.store.message_store import MessageStore
from agents.store.record import Message, RecordError
from mqbase import __version__
from mqbase.clock import Clock
from mqbase.codes import ResponseCode
from mqbase.configkeys import address_problem
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import agent_pb2_grpc as pb_grpc
from mqbase.proto import common_pb2
from mqbase.security import Role as CallerRole
from mqbase.serving import peer_address
from mqbase.storelock import StoreLockError

log = logging.getLogger(__name__)

MAX_PULL = 1024
SERVICE = pb.DESCRIPTOR.services_by_name["AgentService"]
_ADMIN, _MEMBER = frozenset({CallerRole.ADMIN}), frozenset({CallerRole.BROKER})
POLICY: dict[str, frozenset[CallerRole]] = {
    "UpdateBrokerConfig": _ADMIN,
    "ResetMasterFlushOffset": _ADMIN,
    "AddBroker": _ADMIN,
    "RemoveBroker": _ADMIN,
    "NotifyBrokerRoleChanged": _MEMBER,  # the controller's calls: cluster members sign with the broker credential
    "PrepareTransfer": _MEMBER,
    "ResumeWrites": _MEMBER,
    "ResetOffsetByTime": _ADMIN,
    "GetConsumerSnapshot": _MEMBER,  # a replica of the set asks: the consumer state is not for everyone
    "GetConsumerState": _MEMBER,  # RIP-32: brokers of the cluster escape and take back consumer state
    "EscapeChanges": _MEMBER,
    "GetEscaped": _MEMBER,
    "ReleaseEscaped": _MEMBER,
    "LockBatchMQ": _MEMBER,  # the set's coordinator asks (RIP-32's lock quorum)
    "UnlockBatchMQ": _MEMBER,
    "DeleteExpiredCommitLog": _ADMIN,
}
"""With aclEnable=true, the calls that need a credential of these roles. Reads stay open, and so does the data
plane (SendMessage, SendMessages, PullMessage): who may connect at all is TLS client authentication's job."""


class BrokerNotFound(AgentError, LookupError):
    """A request named a broker this agent does not host."""


class AgentStartError(AgentError, RuntimeError):
    """The agent, or a broker it adds, cannot start (its port or store is taken, or none of its brokers starts).
    Defined here, beside the Host protocol, so that AddBroker can answer it rather than fail the call."""


class FailedBroker(Protocol):
    """A broker that could not start: its config file and why."""

    @property
    def config_path(self) -> str: ...
    @property
    def error(self) -> str: ...


class Host(Protocol):
    """What the servicer needs from the agent."""

    clock: Clock

    @property
    def proxy_address(self) -> str:
        """The agent's RocketMQ 5 access point (host:port), "" when it serves none."""
        ...

    def find(self, ref: pb.BrokerRef) -> ReplicasManager: ...
    def managers(self) -> Iterable[tuple[str, ReplicasManager]]: ...
    def failed(self) -> Iterable[FailedBroker]: ...
    def add_broker(self, config_path: str) -> ReplicasManager: ...
    def remove_broker(self, cluster_name: str, broker_name: str, broker_id: int) -> None: ...
    def update_broker_config(self, manager: ReplicasManager, values: dict[str, str]) -> None: ...
    def client_connections(self, group: str, topic: str) -> list[Connection]:
        """The clients connected through the agent's access point now; [] when it serves none."""
        ...


Request = TypeVar("Request")
Response = TypeVar("Response")
Handler = Callable[["AgentServicer", "ReplicasManager", Request, Any], Response]
FENCED = "the broker is fenced until its role is known; retry"


def _broker_of(request: Any) -> pb.BrokerRef:
    ref: pb.BrokerRef = request.broker
    return ref


def _itself(request: pb.BrokerRef) -> pb.BrokerRef:
    return request


def _epoch_cache_ref(request: pb.GetBrokerEpochCacheRequest) -> pb.BrokerRef:
    ref = pb.BrokerRef(broker_name=request.broker_name)
    if request.broker_id:
        ref.broker_id = request.broker_id
    return ref


def scoped(
    response_type: Callable[..., Response], ref: Callable[[Any], pb.BrokerRef] = _broker_of
) -> Callable[[Handler[Request, Response]], Callable[[AgentServicer, Request, Any], Response]]:
    """A broker-scoped RPC: the handler gets the broker the request names (``ref``, its ``broker`` field by
    default); a broker this servicer does not serve is answered with SYSTEM_ERROR and the reason, in the RPC's own
    response type."""

    def decorate(handler: Handler[Request, Response]) -> Callable[[AgentServicer, Request, Any], Response]:
        @functools.wraps(handler)
        def serve(self: AgentServicer, request: Request, context: Any) -> Response:
            try:
                manager = self._find(ref(request))
            except BrokerNotFound as exc:
                return response_type(code=ResponseCode.SYSTEM_ERROR, remark=str(exc))
            return handler(self, manager, request, context)

        return serve

    return decorate


def _readable_store(manager: ReplicasManager) -> MessageStore | None:
    """The store of a replica that may answer reads; None while it is fenced."""
    replica = manager.replica
    return replica.store if replica is not None and manager.readable() else None


class AgentServicer(pb_grpc.AgentServiceServicer):
    """AgentService over a Host."""

    def __init__(self, host: Host, only: Callable[[], ReplicasManager | None] | None = None) -> None:
        """`only`: serve one broker (its own listen port), where a request without a broker name means it."""
        self._host = host
        self._only = only

    def _find(self, ref: pb.BrokerRef) -> ReplicasManager:
        if self._only is None:
            return self._host.find(ref)
        manager = self._only()
        if manager is None:
            raise BrokerNotFound("the broker on this port is still starting; retry")
        if ref.broker_name and ref.broker_name != manager.config.broker_name:
            raise BrokerNotFound(f"this port serves broker {manager.config.broker_name}, not {ref.broker_name}")
        return manager

    # --- messages --------------------------------------------------------------------------------

    @scoped(pb.SendMessageResponse)
    def SendMessage(
        self, manager: ReplicasManager, request: pb.SendMessageRequest, context: Any
    ) -> pb.SendMessageResponse:
        return _send(manager, [request.message], context)

    @scoped(pb.SendMessageResponse)
    def SendMessages(
        self, manager: ReplicasManager, request: pb.SendMessagesRequest, context: Any
    ) -> pb.SendMessageResponse:
        return _send(manager, request.messages, context)

    @scoped(pb.PullMessageResponse)
    def PullMessage(
        self, manager: ReplicasManager, request: pb.PullMessageRequest, context: Any
    ) -> pb.PullMessageResponse:
        replica = manager.replica
        if replica is None or not manager.readable():
            return pb.PullMessageResponse(code=ResponseCode.SERVICE_NOT_AVAILABLE, remark=FENCED)
        store = replica.store
        first, end = store.queue_range(request.topic, request.queue_id)
        queue_nums = reader_queue_nums(manager.metadata, request.topic, store.queue_ids(request.topic))
        wanted = max(0, min(request.max_messages or 32, MAX_PULL))
        try:
            found = store.consume(request.topic, request.queue_id, request.queue_offset, wanted)
        except OffsetTooSmall as exc:
            return pb.PullMessageResponse(
                code=ResponseCode.PULL_OFFSET_MOVED,
                remark=f"{exc}; resume at {exc.min_offset}",
                min_offset=first,
                max_offset=end,
                next_offset=exc.min_offset,
                queue_nums=queue_nums,
            )
        except ValueError as exc:
            return pb.PullMessageResponse(code=ResponseCode.SYSTEM_ERROR, remark=str(exc))
        response = pb.PullMessageResponse(
            code=ResponseCode.SUCCESS,
            min_offset=first,
            max_offset=end,
            next_offset=found[-1][0] + 1 if found else max(request.queue_offset, first),
            queue_nums=queue_nums,
        )
        manager.stats.got(
            request.topic, "", len(found), sum(len(m.body) for _, m in found), self._host.clock.monotonic()
        )
        for queue_offset, m in found:
            response.messages.add(
                queue_offset=queue_offset,
                store_timestamp=m.store_timestamp,
                message=pb.Message(topic=m.topic, queue_id=m.queue_id, body=m.body, properties=dict(m.properties)),
            )
        return response

    # --- consumer groups ----------------------------------------------------------------------------

    @scoped(pb.ReceiveMessageResponse)
    def ReceiveMessage(
        self, manager: ReplicasManager, request: pb.ReceiveMessageRequest, context: Any
    ) -> pb.ReceiveMessageResponse:
        return manager.api.receive(request)

    @scoped(pb.AckMessageResponse)
    def AckMessage(
        self, manager: ReplicasManager, request: pb.AckMessageRequest, context: Any
    ) -> pb.AckMessageResponse:
        return manager.api.ack(request)

    @scoped(pb.ChangeInvisibleDurationResponse)
    def ChangeInvisibleDuration(
        self, manager: ReplicasManager, request: pb.ChangeInvisibleDurationRequest, context: Any
    ) -> pb.ChangeInvisibleDurationResponse:
        return manager.api.change_invisible(request)

    @scoped(pb.AgentResponse)
    def UpdateConsumerOffset(
        self, manager: ReplicasManager, request: pb.UpdateConsumerOffsetRequest, context: Any
    ) -> pb.AgentResponse:
        return manager.consumers.offsets.update_offset(request)

    @scoped(pb.ResetOffsetByTimeResponse)
    def ResetOffsetByTime(
        self, manager: ReplicasManager, request: pb.ResetOffsetByTimeRequest, context: Any
    ) -> pb.ResetOffsetByTimeResponse:
        return manager.consumers.offsets.reset_by_time(request)

    @scoped(pb.GetConsumerProgressResponse)
    def GetConsumerProgress(
        self, manager: ReplicasManager, request: pb.GetConsumerProgressRequest, context: Any
    ) -> pb.GetConsumerProgressResponse:
        return manager.consumers.offsets.progress(request)

    @scoped(pb.GetConsumerSnapshotResponse)
    def GetConsumerSnapshot(
        self, manager: ReplicasManager, request: pb.GetConsumerSnapshotRequest, context: Any
    ) -> pb.GetConsumerSnapshotResponse:
        page = manager.snapshots.page(request.position, request.max_bytes)
        if page is None:
            remark = "this replica has no consumer-state snapshot yet; retry after flushConsumerOffsetInterval"
            return pb.GetConsumerSnapshotResponse(code=ResponseCode.SYSTEM_ERROR, remark=remark)
        covered, total, data = page
        return pb.GetConsumerSnapshotResponse(code=ResponseCode.SUCCESS, covered=covered, total_bytes=total, data=data)

    # --- RIP-32: escape and pre-online --------------------------------------------------------------

    @staticmethod
    def _escape_side(what: str, act: Callable[[], None]) -> pb.AgentResponse:
        """Run `act` on the escape master's side of an escape; malformed input is MESSAGE_ILLEGAL naming `what`."""
        try:
            act()
        except (StateFormatError, ValueError, RecordError) as exc:
            return pb.AgentResponse(code=ResponseCode.MESSAGE_ILLEGAL, remark=f"malformed {what}: {exc}")
        except ConsumerRefused as exc:
            return pb.AgentResponse(code=exc.code, remark=str(exc))
        return pb.AgentResponse(code=ResponseCode.SUCCESS)

    @scoped(pb.AgentResponse)
    def EscapeChanges(
        self, manager: ReplicasManager, request: pb.EscapeChangesRequest, context: Any
    ) -> pb.AgentResponse:
        def take() -> None:
            changes = decode_escaped(request.records)
            copies = [Message(m.topic, m.queue_id, m.body, dict(m.properties), 0) for m in request.copies]
            manager.consumers.intake.take_escaped(request.home, changes, copies)

        return self._escape_side("escaped changes", take)

    @scoped(pb.GetEscapedResponse)
    def GetEscaped(
        self, manager: ReplicasManager, request: pb.GetEscapedRequest, context: Any
    ) -> pb.GetEscapedResponse:
        try:
            own = request.home == manager.config.broker_name  # its own set's: the replica's escape journal
            held = manager.escapes.journal.held() if own else manager.consumers.intake.escaped_for(request.home)
        except ConsumerRefused as exc:
            return pb.GetEscapedResponse(code=exc.code, remark=str(exc))
        return pb.GetEscapedResponse(code=ResponseCode.SUCCESS, records=encode_escaped(held))

    @scoped(pb.AgentResponse)
    def ReleaseEscaped(
        self, manager: ReplicasManager, request: pb.ReleaseEscapedRequest, context: Any
    ) -> pb.AgentResponse:
        def release() -> None:
            released = decode_released(request.records)
            if released.home != request.home:
                raise ValueError(f"the record releases changes of {released.home}, the request names {request.home}")
            if released.home == manager.config.broker_name:
                manager.escapes.journal.release(released.keys)
            else:
                manager.consumers.intake.release_escaped(released)

        return self._escape_side("release", release)

    @scoped(pb.GetConsumerStateResponse)
    def GetConsumerState(
        self, manager: ReplicasManager, request: pb.GetConsumerStateRequest, context: Any
    ) -> pb.GetConsumerStateResponse:
        if request.position < 0 or request.max_bytes <= 0:
            remark = f"position {request.position} and max_bytes {request.max_bytes}: need position >= 0, max_bytes > 0"
            return pb.GetConsumerStateResponse(code=ResponseCode.MESSAGE_ILLEGAL, remark=remark)
        try:
            seq, total, page = manager.consumers.ledger.state_page(request.position, request.max_bytes)
        except ConsumerRefused as exc:
            return pb.GetConsumerStateResponse(code=exc.code, remark=str(exc))
        return pb.GetConsumerStateResponse(code=ResponseCode.SUCCESS, snapshot=page, total_bytes=total, seq=seq)

    @scoped(pb.LockBatchMQResponse)
    def LockBatchMQ(
        self, manager: ReplicasManager, request: pb.LockBatchMQRequest, context: Any
    ) -> pb.LockBatchMQResponse:
        """This replica's own table grants or renews what it can (RIP-32's lock quorum, ``queue_locks``)."""
        return _lock_batch(manager, request, request.life_millis, unlock=False)

    @scoped(pb.LockBatchMQResponse)
    def UnlockBatchMQ(
        self, manager: ReplicasManager, request: pb.UnlockBatchMQRequest, context: Any
    ) -> pb.LockBatchMQResponse:
        """This replica's own table releases what the owner holds; another owner's locks stay."""
        return _lock_batch(manager, request, 0, unlock=True)

    # --- figures, retention now, client connections ------------------------------------------------

    @scoped(pb.GetBrokerStatsResponse, ref=_itself)
    def GetBrokerStats(
        self, manager: ReplicasManager, request: pb.BrokerRef, context: Any
    ) -> pb.GetBrokerStatsResponse:
        total, rows = manager.stats.figures(self._host.clock.monotonic())
        status, replica, c = manager.status(), manager.replica, manager.config
        store = replica.store if replica is not None else None
        return pb.GetBrokerStatsResponse(
            code=ResponseCode.SUCCESS, version=__version__, boot_timestamp_millis=manager.started_ms,
            total=_traffic(total), rows=[_traffic(f) for f in rows], cluster_name=c.broker_cluster_name,
            broker_name=c.broker_name, broker_id=status.broker_id, role=status.role.value,
            master_epoch=status.master_epoch, min_offset=store.min_offset if store else 0,
            max_offset=store.max_offset if store else 0, confirm_offset=store.confirm_offset if store else 0,
            acting_master=status.acting_since_ms > 0,
        )  # fmt: skip

    @scoped(pb.DeleteExpiredCommitLogResponse, ref=_itself)
    def DeleteExpiredCommitLog(
        self, manager: ReplicasManager, request: pb.BrokerRef, context: Any
    ) -> pb.DeleteExpiredCommitLogResponse:
        if manager.replica is None or not manager.readable():
            return pb.DeleteExpiredCommitLogResponse(code=ResponseCode.SERVICE_NOT_AVAILABLE, remark=FENCED)
        done = manager.cleaner.run_now()
        replica = manager.replica
        return pb.DeleteExpiredCommitLogResponse(
            code=ResponseCode.SUCCESS, deleted_segments=done.segments, deleted_bytes=done.bytes,
            min_offset=replica.store.min_offset if replica is not None else 0, held_by=done.held_by or "",
        )  # fmt: skip

    def GetClientConnections(
        self, request: pb.GetClientConnectionsRequest, context: Any
    ) -> pb.GetClientConnectionsResponse:
        access_point = self._host.proxy_address
        connections = [_client(c, access_point) for c in self._host.client_connections(request.group, request.topic)]
        return pb.GetClientConnectionsResponse(code=ResponseCode.SUCCESS, connections=connections)

    # --- message query (agents/broker/query.py) ---------------------------------------------

    @scoped(pb.QueryMessageResponse)
    def QueryMessage(
        self, manager: ReplicasManager, request: pb.QueryMessageRequest, context: Any
    ) -> pb.QueryMessageResponse:
        store = _readable_store(manager)
        return (
            query.query_message(store, request)
            if store
            else pb.QueryMessageResponse(code=ResponseCode.SERVICE_NOT_AVAILABLE, remark=FENCED)
        )

    @scoped(pb.QueryMessageResponse)
    def ViewMessage(
        self, manager: ReplicasManager, request: pb.ViewMessageRequest, context: Any
    ) -> pb.QueryMessageResponse:
        store = _readable_store(manager)
        return (
            query.view_message(store, request)
            if store
            else pb.QueryMessageResponse(code=ResponseCode.SERVICE_NOT_AVAILABLE, remark=FENCED)
        )

    @scoped(pb.QueryConsumeQueueResponse)
    def QueryConsumeQueue(
        self, manager: ReplicasManager, request: pb.QueryConsumeQueueRequest, context: Any
    ) -> pb.QueryConsumeQueueResponse:
        store = _readable_store(manager)
        return (
            query.query_consume_queue(store, request)
            if store
            else pb.QueryConsumeQueueResponse(code=ResponseCode.SERVICE_NOT_AVAILABLE, remark=FENCED)
        )

    # --- replication state -----------------------------------------------------------------------

    @scoped(pb.GetBrokerEpochCacheResponse, ref=_epoch_cache_ref)
    def GetBrokerEpochCache(
        self, manager: ReplicasManager, request: pb.GetBrokerEpochCacheRequest, context: Any
    ) -> pb.GetBrokerEpochCacheResponse:
        replica = manager.replica
        if replica is None:
            return pb.GetBrokerEpochCacheResponse(code=ResponseCode.SYSTEM_ERROR, remark="the broker is not registered")
        store, c = replica.store, manager.config
        max_offset = store.max_offset
        return pb.GetBrokerEpochCacheResponse(
            code=ResponseCode.SUCCESS,
            cluster_name=c.broker_cluster_name,
            broker_name=c.broker_name,
            broker_id=manager.broker_id,
            epoch_list=[
                common_pb2.EpochEntry(
                    epoch=e.epoch,
                    start_offset=e.start_offset,
                    end_offset=max_offset if e.end_offset == MAX_OFFSET else e.end_offset,
                )
                for e in replica.epochs.cache.entries
            ],
            max_offset=max_offset,
            confirm_offset=store.confirm_offset,
            min_offset=store.min_offset,
        )

    @scoped(pb.GetHAStatusResponse, ref=_itself)
    def GetHAStatus(self, manager: ReplicasManager, request: pb.BrokerRef, context: Any) -> pb.GetHAStatusResponse:
        status, c, replica = manager.status(), manager.config, manager.replica
        response = pb.GetHAStatusResponse(
            code=ResponseCode.SUCCESS,
            cluster_name=c.broker_cluster_name,
            broker_name=c.broker_name,
            broker_id=status.broker_id,
            role=status.role.value,
            master_epoch=status.master_epoch,
            master_address=status.master_address,
            master_ha_address=status.master_ha_address,
            last_error=status.error,
        )
        if replica is None:
            return response
        store = replica.store
        response.max_offset, response.confirm_offset = store.max_offset, store.confirm_offset
        master = replica.master  # read once: a role change may clear it meanwhile
        if master is not None:
            sync = master.sync_state
            response.sync_state_set.extend(sorted(sync.local))
            response.sync_state_set_epoch = sync.sync_state_set_epoch
            now = self._host.clock.monotonic()
            for broker_id, progress in sorted(master.slaves().items()):
                response.slaves.add(
                    broker_id=broker_id,
                    ack_offset=progress.ack_offset,
                    diff=max(0, response.max_offset - max(progress.ack_offset, 0)),
                    in_sync=broker_id in sync.local,
                    last_caught_up_millis_ago=int((now - progress.last_caught_up) * 1000)
                    if progress.last_caught_up
                    else -1,
                )
        slave = replica.slave
        if slave is not None:
            response.connected = slave.connected
            response.last_error = response.last_error or slave.last_error
        return response

    @scoped(pb.AgentResponse, ref=lambda note: pb.BrokerRef(broker_name=note.broker_name))
    def NotifyBrokerRoleChanged(
        self, manager: ReplicasManager, request: common_pb2.RoleChangeNotification, context: Any
    ) -> pb.AgentResponse:
        problem = notification_problem(request, manager.config.broker_cluster_name)
        if problem is not None:
            return pb.AgentResponse(
                code=ResponseCode.CONTROLLER_INVALID_REQUEST, remark=f"role change refused: {problem}"
            )
        manager.notify(request)
        return pb.AgentResponse(code=ResponseCode.SUCCESS)

    @scoped(pb.AgentResponse)
    def ResetMasterFlushOffset(
        self, manager: ReplicasManager, request: pb.ResetMasterFlushOffsetRequest, context: Any
    ) -> pb.AgentResponse:
        replica = manager.replica
        if replica is None or manager.status().role is not Role.MASTER:
            return pb.AgentResponse(code=ResponseCode.SYSTEM_ERROR, remark="only a master's flush offset can be reset")
        store = replica.store
        before, end = store.confirm_offset, store.last_message_boundary()
        if request.offset > end:  # clamped, it would answer success having changed nothing
            return pb.AgentResponse(
                code=ResponseCode.CONTROLLER_INVALID_REQUEST,
                remark=f"offset {request.offset} is past the end of the log (its last message ends at {end}); "
                f"confirmOffset stays at {before}",
            )
        try:
            store.set_confirm_offset(request.offset)
        except ValueError as exc:
            return pb.AgentResponse(code=ResponseCode.SYSTEM_ERROR, remark=str(exc))
        after = store.confirm_offset
        remark = (f"confirmOffset raised from {before} to {after}" if after > before
                  else f"confirmOffset stays at {after}: it never moves back")  # fmt: skip
        return pb.AgentResponse(code=ResponseCode.SUCCESS, remark=remark)

    # --- graceful transfer -----------------------------------------------------------------------

    @scoped(pb.PrepareTransferResponse)
    def PrepareTransfer(
        self, manager: ReplicasManager, request: pb.PrepareTransferRequest, context: Any
    ) -> pb.PrepareTransferResponse:
        problem = request_problem(request.token, request.target_broker_id, request.timeout_millis, request.lease_millis)
        if problem is not None:
            return pb.PrepareTransferResponse(code=ResponseCode.CONTROLLER_INVALID_REQUEST, remark=problem)
        ready = manager.writes.prepare_transfer(
            request.target_broker_id,
            request.target_address,
            request.master_epoch,
            request.timeout_millis / 1000,
            request.lease_millis / 1000,
            request.token,
        )
        return pb.PrepareTransferResponse(
            code=ready.code,
            remark=ready.remark,
            final_offset=ready.final_offset,
            target_ack_offset=ready.target_ack_offset,
            waited_millis=int(ready.waited_s * 1000),
        )

    @scoped(pb.AgentResponse)
    def ResumeWrites(self, manager: ReplicasManager, request: pb.ResumeWritesRequest, context: Any) -> pb.AgentResponse:
        resumed = manager.writes.resume_writes(request.token, request.reason or "aborted by the controller")
        return pb.AgentResponse(code=ResponseCode.SUCCESS, remark="" if resumed else "no write pause with this token")

    # --- configuration and the container ---------------------------------------------------------

    @scoped(pb.GetBrokerConfigResponse, ref=_itself)
    def GetBrokerConfig(
        self, manager: ReplicasManager, request: pb.BrokerRef, context: Any
    ) -> pb.GetBrokerConfigResponse:
        return pb.GetBrokerConfigResponse(code=ResponseCode.SUCCESS, config=manager.config.to_properties())

    @scoped(pb.AgentResponse)
    def UpdateBrokerConfig(
        self, manager: ReplicasManager, request: pb.UpdateBrokerConfigRequest, context: Any
    ) -> pb.AgentResponse:
        try:
            self._host.update_broker_config(manager, dict(request.values))
        except ValueError as exc:
            return pb.AgentResponse(code=ResponseCode.NO_PERMISSION, remark=str(exc))
        except (OSError, BrokerNotFound) as exc:  # the config file cannot be written: nothing was changed
            return pb.AgentResponse(code=ResponseCode.SYSTEM_ERROR, remark=f"not changed: {exc}")
        return pb.AgentResponse(code=ResponseCode.SUCCESS)

    def AddBroker(self, request: pb.AddBrokerRequest, context: Any) -> pb.AgentResponse:
        try:
            manager = self._host.add_broker(request.broker_config_path)
        except (ValueError, OSError, StoreLockError, AgentStartError) as exc:
            return pb.AgentResponse(code=ResponseCode.SYSTEM_ERROR, remark=f"cannot add the broker: {exc}")
        c = manager.config
        return pb.AgentResponse(code=ResponseCode.SUCCESS, remark=f"added {c.broker_cluster_name}/{c.broker_name}")

    def RemoveBroker(self, request: pb.RemoveBrokerRequest, context: Any) -> pb.AgentResponse:
        try:
            self._host.remove_broker(request.cluster_name, request.broker_name, request.broker_id)
        except BrokerNotFound as exc:
            return pb.AgentResponse(code=ResponseCode.SYSTEM_ERROR, remark=str(exc))
        return pb.AgentResponse(code=ResponseCode.SUCCESS)

    def ListBrokers(self, request: pb.ListBrokersRequest, context: Any) -> pb.ListBrokersResponse:
        response = pb.ListBrokersResponse(code=ResponseCode.SUCCESS, proxy_address=self._host.proxy_address)
        for path, manager in self._host.managers():
            status, c, learnt = manager.status(), manager.config, manager.metadata
            response.brokers.add(
                cluster_name=c.broker_cluster_name,
                broker_name=c.broker_name,
                broker_id=status.broker_id,
                broker_address=c.broker_address,
                ha_address=c.ha_address,
                role=status.role.value,
                master_epoch=status.master_epoch,
                config_path=path,
                error=status.error,
                metadata_version=learnt.version,
                topics=learnt.served_by(c.broker_name),
                subscription_groups=learnt.groups_of(c.broker_name),
                acting_master=status.acting_since_ms > 0,
                acting_since_millis=status.acting_since_ms,
                pre_online=manager.consumers.ledger.pre_online,
            )
        for failed in self._host.failed():  # not running: no id, address or role beyond "fenced"
            error = f"cannot start: {failed.error}"
            response.brokers.add(
                broker_id=-1, role=Role.FENCED.value, config_path=failed.config_path, error=error, metadata_version=-1
            )
        return response


def _send(manager: ReplicasManager, messages: Iterable[pb.Message], context: Any) -> pb.SendMessageResponse:
    born_host = peer_address(context.peer()) if context is not None else None
    return convert.send_response(manager.api.send([convert.message_of(m) for m in messages], born_host))


def _lock_batch(
    manager: ReplicasManager, request: pb.LockBatchMQRequest | pb.UnlockBatchMQRequest, life_ms: int, *, unlock: bool
) -> pb.LockBatchMQResponse:
    ids = list(request.queue_ids)
    if problem := batch_problem(request.owner, request.group, request.topic, ids, life_ms):
        return pb.LockBatchMQResponse(code=ResponseCode.MESSAGE_ILLEGAL, remark=problem)
    batch = Batch(request.owner, keys_of(request.group, request.topic, ids), life_ms)
    table = manager.queue_locks
    done = table.unlock_batch(batch) if unlock else table.lock_batch(batch)
    return pb.LockBatchMQResponse(code=ResponseCode.SUCCESS, locked_queue_ids=sorted(k.queue_id for k in done))


def _client(c: Connection, access_point: str) -> pb.ClientConnection:
    return pb.ClientConnection(client_id=c.client_id, address=c.address, language=c.language, version=c.version,
                               client_type=c.client_type, group=c.group, subscriptions=dict(c.subscriptions),
                               last_seen_millis=c.last_seen_ms, access_point=access_point)  # fmt: skip


def _traffic(f: Figures) -> pb.TrafficStats:
    return pb.TrafficStats(topic=f.topic, group=f.group, put_messages=f.put_messages, put_bytes=f.put_bytes,
                           get_messages=f.get_messages, get_bytes=f.get_bytes, put_tps=f.put_tps,
                           get_tps=f.get_tps)  # fmt: skip


def notification_problem(note: common_pb2.RoleChangeNotification, cluster_name: str) -> str | None:
    """Why a pushed role change is malformed, or None. Acting on one would make the broker follow an address
    that cannot exist, in an epoch no real election can ever exceed (a role changes only for a higher epoch)."""
    if note.cluster_name and note.cluster_name != cluster_name:
        return f"clusterName {note.cluster_name!r} is not this broker's cluster {cluster_name!r}"
    if note.master_epoch < 1 or note.sync_state_set_epoch < 0:  # a push follows an election: epoch 1 or later
        return f"masterEpoch {note.master_epoch} (must be 1 or more), syncStateSetEpoch {note.sync_state_set_epoch}"
    if any(broker_id < 1 for broker_id in note.sync_state_set):
        return f"syncStateSet {list(note.sync_state_set)} holds an id below 1"
    if not note.master_address:
        return None  # no alive master: nothing to follow
    if note.master_broker_id < 1:
        return f"masterBrokerId {note.master_broker_id} is below 1"
    for field, value in (("masterAddress", note.master_address), ("masterHaAddress", note.master_ha_address)):
        if value and (problem := address_problem(value)):
            return f"{field} {problem}"
    return None
