"""The controller's gRPC adapter: protobuf in, proposer or local state, protobuf out.

Served with ``grpc.aio`` so that each broker's long-lived heartbeat stream is
a coroutine rather than a thread. Raft-backed requests are handed to the
proposer (a thread) and awaited; everything else is answered locally.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import grpc

from controller import convert
from controller.config import RUNTIME_KEYS, ConfigError, ControllerConfig, to_properties, validate, with_overrides
from controller.heartbeat import BrokerKey, Heartbeat
from controller.liveness import Liveness
from controller.proposer import Proposer, not_leader
from controller.raft import RaftNode
from controller.requests import Request, Result, SetGroupConfigRequest
from controller.state import id_taken
from controller.transfer import not_registered, scan_warning
from controller.transferer import Transferer
from mqbase.codes import ResponseCode as C
from mqbase.proto import common_pb2 as common
from mqbase.proto import controller_pb2 as pb
from mqbase.proto import controller_pb2_grpc as pb_grpc
from mqbase.security import Role

log = logging.getLogger(__name__)

SERVICE = pb.DESCRIPTOR.services_by_name["ControllerService"]
SERVICE_NAME = SERVICE.full_name
_BROKER, _ADMIN = frozenset({Role.BROKER}), frozenset({Role.ADMIN})
POLICY: dict[str, frozenset[Role]] = {
    "ApplyBrokerId": _BROKER,
    "RegisterBroker": _BROKER,
    "AlterSyncStateSet": _BROKER,
    "BrokerHeartbeat": _BROKER,
    "HeartbeatStream": _BROKER,  # a forged beat would keep a dead master "alive" and block its failover
    "ElectMaster": _BROKER | _ADMIN,  # brokers ask for an election; admins designate a master
    "CleanBrokerData": _ADMIN,
    "AssignPreferredMaster": _ADMIN,
    "TransferMaster": _ADMIN,
    "UpdateControllerConfig": _ADMIN,
    "UpdateTopic": _ADMIN,
    "DeleteTopic": _ADMIN,
    "SetBrokerPermission": _ADMIN,
    "UpdateSubscriptionGroup": _ADMIN,
    "DeleteSubscriptionGroup": _ADMIN,
}
"""With aclEnable=true, the calls that need a credential of these roles. The reads stay open (GetNextBrokerId,
GetReplicaInfo, GetSyncStateData, GetControllerMetadata, GetControllerConfig, whose secrets are masked, and
GetMetadata: topic and group configs, as Java's topicList and topicRoute are open)."""

M = TypeVar("M")
Outbox = asyncio.Queue[common.RoleChangeNotification | None]
"""A stream's pending pushes; ``None`` asks the stream to end (shutdown)."""


def _stolen(hb: Heartbeat, live_address: str) -> str:
    """Log and word a heartbeat refused because its id beats from another address (``address_conflict``)."""
    remark = id_taken(hb.broker_name, hb.broker_id, live_address, hb.broker_address)
    log.warning("heartbeat refused: %s", remark)
    return remark


class BrokerStreams:
    """Open heartbeat streams on this node, for pushing role changes to brokers."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._streams: dict[BrokerKey, tuple[int, Outbox]] = {}
        self._tokens = itertools.count(1)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def open(self, key: BrokerKey, q: Outbox) -> int:
        token = next(self._tokens)
        self._streams[key] = (token, q)
        return token

    def close(self, key: BrokerKey, token: int) -> bool:
        """Forget the stream; True when it was the broker's current one (not replaced by a reconnect)."""
        current = self._streams.get(key)
        if current is not None and current[0] == token:
            del self._streams[key]
            return True
        return False

    def push(self, key: BrokerKey, note: common.RoleChangeNotification) -> bool:
        """Queue a notification for the broker's stream; thread-safe. False if it has no stream here."""
        entry = self._streams.get(key)
        if entry is None or self._loop is None:
            return False
        self._loop.call_soon_threadsafe(entry[1].put_nowait, note)
        return True

    def open_keys(self) -> list[BrokerKey]:
        """The brokers with an open stream here: a copy taken in one step (streams change on the event loop)."""
        return list(self._streams)

    def end_all(self) -> None:
        """Ask every open stream to finish (call on the event loop): brokers see an orderly end of stream."""
        for _token, outbox in self._streams.values():
            outbox.put_nowait(None)

    def __len__(self) -> int:
        return len(self._streams)


class RequestMetrics(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Times every unary ControllerService RPC and reports it with the RocketMQ code of its reply.

    One interceptor instead of a wrapper per handler; health, reflection and the
    long-lived heartbeat stream pass through untouched.
    """

    def __init__(self, observe: Callable[[str, str, float], None]) -> None:
        self._observe = observe

    async def intercept_service(self, continuation: Callable[[Any], Any], details: Any) -> Any:
        handler = await continuation(details)
        service, _, method = details.method.lstrip("/").rpartition("/")
        if handler is None or handler.unary_unary is None or service != SERVICE_NAME:
            return handler
        inner = handler.unary_unary
        observe = self._observe

        async def timed(request: Any, context: Any) -> Any:
            start = time.perf_counter()
            code = "error"  # the handler raised (a bug, an abort, or the caller cancelled)
            try:
                response = await inner(request, context)
                code = str(response.code)
                return response
            finally:
                observe(method, code, time.perf_counter() - start)

        return grpc.unary_unary_rpc_method_handler(
            timed, request_deserializer=handler.request_deserializer, response_serializer=handler.response_serializer
        )


class Node(Protocol):
    """What the servicer needs of the running node (``controller.daemon.ControllerNode``), which builds it."""

    @property
    def config(self) -> ControllerConfig: ...
    @property
    def file_config(self) -> ControllerConfig: ...
    @property
    def raft(self) -> RaftNode: ...
    @property
    def proposer(self) -> Proposer: ...
    @property
    def liveness(self) -> Liveness: ...
    @property
    def transferer(self) -> Transferer: ...
    @property
    def streams(self) -> BrokerStreams: ...
    def leader_grpc_address(self) -> str | None: ...


class ControllerServicer(pb_grpc.ControllerServiceServicer):
    """Implements ControllerService on top of a ``ControllerNode``."""

    def __init__(self, node: Node) -> None:
        self._node = node

    # --- Raft-backed requests --------------------------------------------------------------------

    async def _decide(
        self,
        message: Any,
        parse: Callable[[Any], Request],
        reply: Callable[[Result[Any]], dict[str, Any]],
        response_type: Callable[..., M],
    ) -> M:
        try:
            request = parse(message)
        except convert.InvalidRequest as exc:
            return response_type(code=C.CONTROLLER_INVALID_REQUEST, remark=str(exc))
        if not self._node.proposer.serving:
            result: Result[Any] = not_leader()
        else:
            result = await asyncio.wrap_future(self._node.proposer.submit(request))
        fields: dict[str, Any] = {"code": int(result.code), "remark": result.remark}
        if result.code == C.CONTROLLER_NOT_LEADER:
            fields["leader_address"] = self._node.leader_grpc_address() or ""
        fields.update(reply(result))
        return response_type(**fields)

    async def GetNextBrokerId(self, request: pb.GetNextBrokerIdRequest, context: Any) -> pb.GetNextBrokerIdResponse:
        def reply(r: Result[Any]) -> dict[str, Any]:
            x = r.reply
            return {} if x is None else {"cluster_name": x.cluster_name, "broker_name": x.broker_name,
                                         "next_broker_id": x.next_broker_id}  # fmt: skip

        return await self._decide(request, convert.get_next_broker_id, reply, pb.GetNextBrokerIdResponse)

    async def ApplyBrokerId(self, request: pb.ApplyBrokerIdRequest, context: Any) -> pb.ApplyBrokerIdResponse:
        def reply(r: Result[Any]) -> dict[str, Any]:
            return {"cluster_name": request.cluster_name, "broker_name": request.broker_name} if r.ok else {}

        return await self._decide(request, convert.apply_broker_id, reply, pb.ApplyBrokerIdResponse)

    async def RegisterBroker(self, request: pb.RegisterBrokerRequest, context: Any) -> pb.RegisterBrokerResponse:
        return await self._decide(request, convert.register_broker, convert.register_reply, pb.RegisterBrokerResponse)

    async def ElectMaster(self, request: pb.ElectMasterRequest, context: Any) -> pb.ElectMasterResponse:
        response = await self._decide(request, convert.elect_master, convert.elect_reply, pb.ElectMasterResponse)
        config = self._node.config
        if request.designate_elect and response.HasField("master_broker_id") and config.enable_preferred_master:
            bs = self._node.raft.state.get(request.broker_name)
            interval_ms = config.preferred_master_transfer_interval_ms
            warning = bs and scan_warning(bs, response.master_broker_id, self._node.liveness.alive_view(), interval_ms)
            response.warnings.extend([warning] if warning else [])
        return response

    async def AlterSyncStateSet(
        self, request: pb.AlterSyncStateSetRequest, context: Any
    ) -> pb.AlterSyncStateSetResponse:
        return await self._decide(
            request, convert.alter_sync_state_set, convert.alter_reply, pb.AlterSyncStateSetResponse
        )

    async def GetReplicaInfo(self, request: pb.GetReplicaInfoRequest, context: Any) -> pb.GetReplicaInfoResponse:
        return await self._decide(
            request, convert.get_replica_info, convert.replica_info_reply, pb.GetReplicaInfoResponse
        )

    async def GetSyncStateData(self, request: pb.GetSyncStateDataRequest, context: Any) -> pb.GetSyncStateDataResponse:
        response = await self._decide(
            request, convert.get_sync_state_data, convert.sync_state_data_reply, pb.GetSyncStateDataResponse
        )
        transferer = self._node.transferer
        blocked = transferer.blocked() if response.replicas_info else {}
        for info in response.replicas_info:
            record, refusal = transferer.record_of(info.broker_name), transferer.refusal_of(info.broker_name)
            if record is not None:
                info.last_transfer.CopyFrom(convert.transfer_record(record))
            if refusal is not None:
                info.last_refusal.CopyFrom(convert.transfer_record(refusal))
            info.preferred_master_blocked_by = blocked.get(info.broker_name, "")
        return response

    async def CleanBrokerData(self, request: pb.CleanBrokerDataRequest, context: Any) -> pb.CleanBrokerDataResponse:
        return await self._decide(request, convert.clean_broker_data, lambda _r: {}, pb.CleanBrokerDataResponse)

    async def AssignPreferredMaster(
        self, request: pb.AssignPreferredMasterRequest, context: Any
    ) -> pb.AssignPreferredMasterResponse:
        return await self._decide(
            request, convert.assign_preferred_master, convert.assign_preferred_reply, pb.AssignPreferredMasterResponse
        )

    async def TransferMaster(self, request: pb.TransferMasterRequest, context: Any) -> pb.TransferMasterResponse:
        """Run (or, with dry_run, describe) a graceful transfer; answered when it is done or aborted."""
        try:
            cluster_name, broker_name, target, timeout_s = convert.transfer_master(request)
        except convert.InvalidRequest as exc:
            return pb.TransferMasterResponse(code=C.CONTROLLER_INVALID_REQUEST, remark=str(exc))
        node = self._node
        if not node.proposer.serving:
            r = not_leader()
            return pb.TransferMasterResponse(
                code=r.code, remark=r.remark, leader_address=node.leader_grpc_address() or ""
            )
        bs = node.raft.state.get(broker_name)
        if bs is None or bs.cluster_name != cluster_name:
            remark = not_registered(cluster_name, broker_name, bs)
            return pb.TransferMasterResponse(code=C.CONTROLLER_BROKER_METADATA_NOT_EXIST, remark=remark)
        if bs.master_id == target:  # a no-op, as for electMaster: runbooks under set -e can run it again
            response = pb.TransferMasterResponse(
                code=C.SUCCESS, cluster_name=cluster_name, broker_name=broker_name, dry_run=request.dry_run,
                allowed=True, remark=f"broker {target} is already the master of {broker_name} (masterEpoch "
                f"{bs.master_epoch}); nothing to do",
            )  # fmt: skip
            self._describe_set(response, broker_name, target)
            return response
        timeout_s = timeout_s or node.config.transfer_master_timeout_ms / 1000
        reason, warnings = node.transferer.dry_run(bs, target)
        response = pb.TransferMasterResponse(
            code=C.SUCCESS,
            cluster_name=cluster_name,
            broker_name=broker_name,
            dry_run=request.dry_run,
            allowed=reason is None,
            warnings=warnings,
        )
        if request.dry_run:
            response.remark = reason or ""
        else:
            loop = asyncio.get_running_loop()
            outcome = await loop.run_in_executor(
                None, node.transferer.run, cluster_name, broker_name, target, timeout_s, "admin"
            )
            response.code, response.remark = outcome.code, outcome.remark
            if outcome.record is not None:
                response.transfer.CopyFrom(convert.transfer_record(outcome.record))
        self._describe_set(response, broker_name, target)
        return response

    async def UpdateTopic(self, request: pb.UpdateTopicRequest, context: Any) -> pb.MetadataChangeResponse:
        return await self._decide(request, convert.update_topic, convert.metadata_change_reply,
                                  pb.MetadataChangeResponse)  # fmt: skip

    async def DeleteTopic(self, request: pb.DeleteTopicRequest, context: Any) -> pb.MetadataChangeResponse:
        return await self._decide(request, convert.delete_topic, convert.metadata_change_reply,
                                  pb.MetadataChangeResponse)  # fmt: skip

    async def UpdateSubscriptionGroup(
        self, request: pb.UpdateSubscriptionGroupRequest, context: Any
    ) -> pb.MetadataChangeResponse:
        return await self._decide(
            request, convert.update_subscription_group, convert.metadata_change_reply, pb.MetadataChangeResponse
        )

    async def DeleteSubscriptionGroup(
        self, request: pb.DeleteSubscriptionGroupRequest, context: Any
    ) -> pb.MetadataChangeResponse:
        return await self._decide(
            request, convert.delete_subscription_group, convert.metadata_change_reply, pb.MetadataChangeResponse
        )

    async def SetBrokerPermission(
        self, request: pb.SetBrokerPermissionRequest, context: Any
    ) -> pb.MetadataChangeResponse:
        return await self._decide(request, convert.set_broker_permission, convert.metadata_change_reply,
                                  pb.MetadataChangeResponse)  # fmt: skip

    async def GetMetadata(self, request: pb.GetMetadataRequest, context: Any) -> pb.GetMetadataResponse:
        return await self._decide(request, convert.get_metadata, convert.metadata_reply, pb.GetMetadataResponse)

    def _describe_set(self, response: pb.TransferMasterResponse, broker_name: str, target: int) -> None:
        """The set as the leader sees it now: master, epoch, preference, the two brokers' heartbeat offsets."""
        bs = self._node.raft.state.get(broker_name)
        if bs is None:
            return
        alive = self._node.liveness.alive_view()
        if bs.master_id is not None:
            response.master_broker_id = bs.master_id
        if bs.preferred_id is not None:
            response.preferred_broker_id = bs.preferred_id
        response.master_epoch = bs.master_epoch
        master_info, target_info = alive.get((broker_name, bs.master_id or -1)), alive.get((broker_name, target))
        response.master_max_offset = master_info.max_offset if master_info else -1
        response.target_max_offset = target_info.max_offset if target_info else -1

    # --- heartbeats (any node) ---------------------------------------------------------------------

    async def BrokerHeartbeat(self, request: pb.BrokerHeartbeatRequest, context: Any) -> pb.BrokerHeartbeatResponse:
        try:
            hb = convert.heartbeat(request)
        except convert.InvalidRequest as exc:
            return pb.BrokerHeartbeatResponse(code=C.CONTROLLER_INVALID_REQUEST, remark=str(exc))
        taken = self._node.liveness.beat(hb)
        if taken is not None:
            return pb.BrokerHeartbeatResponse(code=C.CONTROLLER_BROKER_ID_INVALID, remark=_stolen(hb, taken))
        return pb.BrokerHeartbeatResponse(code=C.SUCCESS, remark="Heart beat success")

    async def HeartbeatStream(self, request_iterator: Any, context: Any) -> None:
        """Beats in, role changes out; the stream's end marks the broker inactive at once."""
        outbox: Outbox = asyncio.Queue()
        streams = self._node.streams
        opened: tuple[BrokerKey, int] | None = None
        address = ""  # of the stream's last accepted beat: its close marks inactive only the row it wrote

        async def read_beats() -> None:
            nonlocal opened, address
            while True:
                message = await context.read()
                if message is grpc.aio.EOF:
                    return
                try:
                    hb = convert.heartbeat(message)
                except convert.InvalidRequest as exc:
                    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"CONTROLLER_INVALID_REQUEST: {exc}")
                taken = self._node.liveness.beat(hb)
                if taken is not None:  # before the stream is opened: the id's role changes stay the holder's
                    await context.abort(grpc.StatusCode.FAILED_PRECONDITION, f"CONTROLLER_BROKER_ID_INVALID: "
                                        f"{_stolen(hb, taken)}")  # fmt: skip
                key, address = (hb.broker_name, hb.broker_id), hb.broker_address
                if opened is None or opened[0] != key:
                    if opened is not None:
                        streams.close(*opened)
                    opened = (key, streams.open(key, outbox))

        reader = asyncio.ensure_future(read_beats())
        getter: asyncio.Future[common.RoleChangeNotification | None] | None = None
        try:
            while not reader.done():
                getter = asyncio.ensure_future(outbox.get())
                done, _ = await asyncio.wait({reader, getter}, return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    continue
                note = getter.result()
                if note is None:
                    break
                await context.write(note)
        except grpc.aio.AioRpcError:
            pass
        finally:
            reader.cancel()
            if getter is not None:
                getter.cancel()
            if opened is not None and streams.close(*opened):
                self._node.liveness.stream_closed(opened[0], address)

    # --- local requests ----------------------------------------------------------------------------

    async def GetControllerMetadata(
        self, request: pb.GetControllerMetadataRequest, context: Any
    ) -> pb.GetControllerMetadataResponse:
        node = self._node
        status = node.raft.status()
        leader_id = node.raft.leader_node_id() or ""
        peers = node.config.controller_peers
        return pb.GetControllerMetadataResponse(
            code=C.SUCCESS,
            group=node.config.controller_group,
            controller_leader_id=leader_id,
            controller_leader_address=node.leader_grpc_address() or "",
            is_leader=status.state == "leader",
            peers="".join(f"{p.node_id}:{p.grpc_address};" for p in peers),
            peer_list=[
                pb.ControllerPeer(id=p.node_id, raft_address=p.raft_address, grpc_address=p.grpc_address) for p in peers
            ],
            self_id=node.config.controller_self_id,
            raft=pb.RaftStatus(
                state=status.state,
                term=status.term,
                commit_index=status.commit_index,
                last_applied=status.last_applied,
                has_quorum=status.has_quorum,
                log_length=status.log_length,
                ready=node.proposer.serving
                if status.state == "leader"
                else status.leader_raft_address is not None and status.last_applied >= status.commit_index,
                connected_peers=status.connected_peers,
            ),
        )

    async def GetControllerConfig(
        self, request: pb.GetControllerConfigRequest, context: Any
    ) -> pb.GetControllerConfigResponse:
        node = self._node
        state = node.raft.state
        return pb.GetControllerConfigResponse(
            code=C.SUCCESS,
            config=to_properties(node.config),
            self_id=node.file_config.controller_self_id,
            group_config=dict(state.config),
            config_version=state.config_version,
        )

    async def UpdateControllerConfig(
        self, request: pb.UpdateControllerConfigRequest, context: Any
    ) -> pb.UpdateControllerConfigResponse:
        """Set runtime keys for the group: checked here, then decided by the leader and committed through Raft."""
        props = dict(request.properties)
        black = self._node.config.black_list()
        if any(k in black for k in props):
            remark = "Can not update config in black list."
            return pb.UpdateControllerConfigResponse(code=C.NO_PERMISSION, remark=remark)

        def reply(r: Result[Any]) -> dict[str, Any]:
            x = r.reply
            return {} if x is None else {"config_version": x.config_version, "changed": list(x.changed)}

        return await self._decide(request, self._group_config_request, reply, pb.UpdateControllerConfigResponse)

    def _group_config_request(self, message: pb.UpdateControllerConfigRequest) -> Request:
        """Parse and validate the keys against this node's effective config; their canonical text goes to Raft."""
        props = dict(message.properties)
        if not props:
            raise convert.InvalidRequest("no properties given")
        fixed = sorted(k for k in props if k not in RUNTIME_KEYS)
        try:
            if fixed:
                # Raises for unknown keys (with a did-you-mean hint) before the restart remark.
                with_overrides(self._node.config, {k: props[k] for k in fixed})
                raise ConfigError(f"{', '.join(fixed)} cannot change at run time: edit the config file and restart")
            canonical = to_properties(validate(with_overrides(self._node.config, props)))
        except ConfigError as exc:
            raise convert.InvalidRequest(str(exc)) from exc
        return SetGroupConfigRequest({k: canonical[k] for k in props})
