"""The agent API's operations side: figures, retention now, client connections, message query, replication state,
role pushes, the graceful transfer's calls, configuration and the RIP-31 container (add, remove, list brokers)."""

from __future__ import annotations

import logging
from typing import Any

from agents.access.connections import Connection
from agents.broker import query
from agents.broker.manager import ReplicasManager
from agents.broker.rpc_scope import (
    FENCED,
    AgentStartError,
    BrokerNotFound,
    ScopedRpcs,
    epoch_cache_ref,
    itself,
    readable_store,
    scoped,
)
from agents.broker.stats import Figures
from agents.broker.write_gate import request_problem
from agents.ha.role import Role
from agents.store.epochs import MAX_OFFSET
from mqbase import __version__
from mqbase.codes import ResponseCode
from mqbase.configkeys import address_problem
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import common_pb2
from mqbase.storelock import StoreLockError

log = logging.getLogger(__name__)


class AdminRpcs(ScopedRpcs):
    """See the module docstring."""

    # --- figures, retention now, client connections ------------------------------------------------

    @scoped(pb.GetBrokerStatsResponse, ref=itself)
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

    @scoped(pb.DeleteExpiredCommitLogResponse, ref=itself)
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
        store = readable_store(manager)
        return (
            query.query_message(store, request)
            if store
            else pb.QueryMessageResponse(code=ResponseCode.SERVICE_NOT_AVAILABLE, remark=FENCED)
        )

    @scoped(pb.QueryMessageResponse)
    def ViewMessage(
        self, manager: ReplicasManager, request: pb.ViewMessageRequest, context: Any
    ) -> pb.QueryMessageResponse:
        store = readable_store(manager)
        return (
            query.view_message(store, request)
            if store
            else pb.QueryMessageResponse(code=ResponseCode.SERVICE_NOT_AVAILABLE, remark=FENCED)
        )

    @scoped(pb.QueryConsumeQueueResponse)
    def QueryConsumeQueue(
        self, manager: ReplicasManager, request: pb.QueryConsumeQueueRequest, context: Any
    ) -> pb.QueryConsumeQueueResponse:
        store = readable_store(manager)
        return (
            query.query_consume_queue(store, request)
            if store
            else pb.QueryConsumeQueueResponse(code=ResponseCode.SERVICE_NOT_AVAILABLE, remark=FENCED)
        )

    # --- replication state -----------------------------------------------------------------------

    @scoped(pb.GetBrokerEpochCacheResponse, ref=epoch_cache_ref)
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

    @scoped(pb.GetHAStatusResponse, ref=itself)
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

    @scoped(pb.GetBrokerConfigResponse, ref=itself)
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
