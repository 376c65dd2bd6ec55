"""The agent API's data plane: sends, pulls, consumer groups (POP, offsets, progress), RIP-32's escapes and
take-backs, and the lock quorum's tables. Each RPC converts at the edge and calls the broker's services."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from agents.broker import convert
from agents.broker.consumer_checks import Refused as ConsumerRefused
from agents.broker.escape import decode_escaped, decode_released, encode_escaped
from agents.broker.manager import ReplicasManager
from agents.broker.queue_locks import Batch, batch_problem, keys_of
from agents.broker.rpc_scope import FENCED, ScopedRpcs, scoped
from agents.consumer.errors import StateFormatError
from agents.metadata import reader_queue_nums
from agents.store.commitlog import OffsetTooSmall
from agents.store.record import Message, RecordError
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from mqbase.serving import peer_address

log = logging.getLogger(__name__)

MAX_PULL = 1024


class DataRpcs(ScopedRpcs):
    """See the module docstring."""

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
        return convert.received_to_pb(manager.api.receive(convert.receive_request_of(request)))

    @scoped(pb.AckMessageResponse)
    def AckMessage(
        self, manager: ReplicasManager, request: pb.AckMessageRequest, context: Any
    ) -> pb.AckMessageResponse:
        return convert.acked_to_pb(manager.api.ack(convert.ack_request_of(request)))

    @scoped(pb.ChangeInvisibleDurationResponse)
    def ChangeInvisibleDuration(
        self, manager: ReplicasManager, request: pb.ChangeInvisibleDurationRequest, context: Any
    ) -> pb.ChangeInvisibleDurationResponse:
        return convert.changed_to_pb(manager.api.change_invisible(convert.change_request_of(request)))

    # --- transactions ----------------------------------------------------------------------------

    @scoped(pb.EndTransactionResponse)
    def EndTransaction(
        self, manager: ReplicasManager, request: pb.EndTransactionRequest, context: Any
    ) -> pb.EndTransactionResponse:
        return convert.ended_to_pb(manager.api.end_transaction(convert.end_request_of(request)))

    @scoped(pb.TakeTransactionChecksResponse)
    def TakeTransactionChecks(
        self, manager: ReplicasManager, request: pb.TakeTransactionChecksRequest, context: Any
    ) -> pb.TakeTransactionChecksResponse:
        return convert.checks_to_pb(manager.api.take_checks(frozenset(request.topics)))

    @scoped(pb.GetOpenTransactionsResponse)
    def GetOpenTransactions(
        self, manager: ReplicasManager, request: pb.GetOpenTransactionsRequest, context: Any
    ) -> pb.GetOpenTransactionsResponse:
        try:
            found = manager.consumers.transactions.open_transactions(request.topic)
        except ConsumerRefused as exc:
            return pb.GetOpenTransactionsResponse(code=exc.code, remark=str(exc))
        return pb.GetOpenTransactionsResponse(
            code=ResponseCode.SUCCESS,
            transactions=[pb.OpenTransaction(transaction_id=t.transaction_id, message_id=t.message_id,
                                             store_timestamp=t.stored_ms, checks=t.checks) for t in found],
        )  # fmt: skip

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
