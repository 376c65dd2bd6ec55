"""Message query over one replica's store: what AgentService's QueryMessage, ViewMessage and
QueryConsumeQueue answer, from the messages this replica has dispatched.

Every replica dispatches the replicated log into its own consume queues and message index, so any of them answers,
master or not; a message confirmed before a failover is found on the new master at the same commit-log offset.
"""

from __future__ import annotations

from agents.consumer.offsets import offset_at_time
from agents.store.message_store import MessageStore
from agents.store.record import Message
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb

MAX_QUERY = 1000
"""Messages or entries per answer (Java's queryMsgByKey asks for 64 by default); a client pages for more."""
NO_END = 2**63 - 1


def stored(offset: int, size: int, m: Message) -> pb.StoredMessage:
    return pb.StoredMessage(
        topic=m.topic,
        queue_id=m.queue_id,
        queue_offset=m.queue_offset,
        commit_log_offset=offset,
        size=size,
        store_timestamp=m.store_timestamp,
        body=m.body,
        properties=dict(m.properties),
    )


def query_message(store: MessageStore, request: pb.QueryMessageRequest) -> pb.QueryMessageResponse:
    """By key (KEYS) or unique key (UNIQ_KEY) through the index, newest first."""
    if not request.topic or not request.key:
        return pb.QueryMessageResponse(code=ResponseCode.MESSAGE_ILLEGAL, remark="give a topic and a key")
    found = store.find_by_key(
        request.topic,
        request.key,
        unique=request.unique,
        begin_ms=request.begin_timestamp,
        end_ms=request.end_timestamp or NO_END,
        limit=max(1, min(request.max_num or 64, MAX_QUERY)),
    )
    return pb.QueryMessageResponse(code=ResponseCode.SUCCESS, messages=[stored(*f) for f in found])


def view_message(store: MessageStore, request: pb.ViewMessageRequest) -> pb.QueryMessageResponse:
    """The message at a commit-log offset (an offset message id's)."""
    found = store.message_at(request.commit_log_offset)
    if found is None:
        remark = (f"no confirmed message starts at commit-log offset {request.commit_log_offset} here "
                  f"(the log holds {store.min_offset}..{store.confirm_offset})")  # fmt: skip
        return pb.QueryMessageResponse(code=ResponseCode.SUCCESS, remark=remark)
    return pb.QueryMessageResponse(code=ResponseCode.SUCCESS, messages=[stored(request.commit_log_offset, *found)])


def query_consume_queue(store: MessageStore, request: pb.QueryConsumeQueueRequest) -> pb.QueryConsumeQueueResponse:
    """A queue's entries from an offset, or from a store time; with a time bound, or with_messages, their messages."""
    topic, queue_id = request.topic, request.queue_id
    low, high = store.queue_range(topic, queue_id)
    response = pb.QueryConsumeQueueResponse(
        code=ResponseCode.SUCCESS, min_offset=low, max_offset=high, queue_ids=store.queue_ids(topic)
    )
    start = request.index
    if request.begin_timestamp > 0:

        def stored_at(offset: int) -> int:
            return store.consume(topic, queue_id, offset, 1)[0][1].store_timestamp

        start = offset_at_time(low, high, request.begin_timestamp, stored_at)
    end_ms = request.end_timestamp if request.end_timestamp > 0 else NO_END
    with_messages = request.with_messages or request.begin_timestamp > 0 or request.end_timestamp > 0
    for queue_offset, offset, size in store.queue_entries(
        topic, queue_id, start, max(1, min(request.count, MAX_QUERY))
    ):
        entry = pb.ConsumeQueueEntry(queue_offset=queue_offset, commit_log_offset=offset, size=size)
        if with_messages:
            found = store.message_at(offset)
            if found is None:
                break  # retention deleted it meanwhile
            if found[1].store_timestamp > end_ms:
                break
            entry.message.CopyFrom(stored(offset, *found))
        response.entries.append(entry)
    return response
