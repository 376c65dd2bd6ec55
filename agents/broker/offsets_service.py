"""OffsetsService: a consumer group's committed offsets on its broker set's master — commits, resets by time,
consumerProgress, and what a topic or group deletion leaves behind.

Every change is a consumer-state record through the ledger's write path (``consumer_ledger``), like a receive's.
An acting replica (RIP-32) commits offsets forward only: a reset waits for a master.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable

from agents.broker.consumer_checks import Refused, group_policy, name_problem, served_topic
from agents.broker.consumer_ledger import ACTING_READ_ONLY, ConsumerLedger
from agents.consumer.offsets import clamp_offset, forgotten, offset_at_time, progress, readable_range, topic_starts
from agents.consumer.records import Change, OffsetCommitted, Queueless
from agents.consumer.state import ConsumerState, consumer_offset
from agents.metadata import MetadataTable, Topic
from agents.pop.model import GroupPolicy, QueueKey
from agents.store.commitlog import OffsetTooSmall
from agents.store.message_store import MessageStore
from mqbase.clock import wall_ms
from mqbase.codes import ResponseCode
from mqbase.metadata import GROUP_MAX_LENGTH
from mqbase.proto import agent_pb2 as pb

log = logging.getLogger(__name__)


class OffsetsService:
    """Offsets of one broker set's consumer groups, over its ledger."""

    def __init__(self, ledger: ConsumerLedger) -> None:
        self._ledger = ledger

    def _topic(self, name: str) -> Topic:
        return served_topic(self._ledger.host.metadata, self._ledger.name, name)

    def _group(self, name: str) -> GroupPolicy:
        return group_policy(self._ledger.host.metadata, name)

    def forget(self, before: MetadataTable, after: MetadataTable) -> None:
        """Drop the state of the topics and groups the metadata change deleted (on the master; a slave has none),
        and commit where each deleted topic starts if created again (``offsets.TOPIC_START``): its queues' ends."""
        ledger = self._ledger
        if before.version < 0 or after.version <= before.version or ledger.host.acting_since_ms:
            return  # an acting replica writes no deletion: the set's next master forgets at its first change
        try:
            with ledger.lock:
                replica, state = ledger.ready()
                store, gone = replica.store, sorted(frozenset(before.topics) - frozenset(after.topics))
                ends = {(t, q): store.queue_range(t, q)[1] for t in gone for q in store.queue_ids(t)}
                now, epoch = wall_ms(ledger.clock), replica.position.master_epoch
                changes: list[Change] = [
                    *forgotten(state, frozenset(before.topics), frozenset(after.topics), frozenset(before.groups),
                               frozenset(after.groups)),
                    *(OffsetCommitted(key, end, now, epoch) for key, end in topic_starts(state, ends)),
                ]  # fmt: skip
                appended = ledger.append(state, changes) if changes else None
            ledger.settle(appended)
        except Refused as exc:
            if exc.code not in (ResponseCode.SLAVE_NOT_AVAILABLE, ResponseCode.SERVICE_NOT_AVAILABLE):
                log.warning("%s: cannot forget deleted consumer state: %s", ledger.name, exc)

    def update_offset(self, req: pb.UpdateConsumerOffsetRequest) -> pb.AgentResponse:
        """Commit the group's offset of one queue (clamped into the queue), as a record like every other change."""
        ledger = self._ledger
        try:
            topic = self._topic(req.topic)
            self._group(req.group)
            if not 0 <= req.queue_id < max(topic.read_queue_nums, topic.write_queue_nums):
                raise Refused(ResponseCode.MESSAGE_ILLEGAL, f"queue {req.queue_id} is not a queue of {topic.name}")
            if req.offset < 0:
                raise Refused(ResponseCode.MESSAGE_ILLEGAL, f"offset {req.offset} is negative")
            with ledger.lock:
                replica, state = ledger.ready()
                low, high = readable_range(
                    state, req.topic, req.queue_id, *replica.store.queue_range(req.topic, req.queue_id)
                )
                offset = clamp_offset(req.offset, low, high)
                key = QueueKey(req.group, req.topic, req.queue_id)
                if ledger.acting and offset < (consumer_offset(state, key) or 0):
                    raise Refused(ResponseCode.NO_PERMISSION, ACTING_READ_ONLY.format(what="an offset reset"))
                change = OffsetCommitted(key, offset, wall_ms(ledger.clock), replica.position.master_epoch)
                appended = ledger.append(state, [change])
            ledger.settle(appended)
            return pb.AgentResponse(code=ResponseCode.SUCCESS, remark=f"offset {offset}")
        except Refused as exc:
            return pb.AgentResponse(code=exc.code, remark=str(exc))

    def reset_by_time(self, req: pb.ResetOffsetByTimeRequest) -> pb.ResetOffsetByTimeResponse:
        """Every queue of the topic to its first message stored at or after the time, in one batch of records."""
        ledger = self._ledger
        try:
            topic = self._topic(req.topic)
            self._group(req.group)
            if req.timestamp_millis < 0:
                raise Refused(ResponseCode.MESSAGE_ILLEGAL, f"timestamp {req.timestamp_millis} is negative")
            with ledger.lock:
                replica, state = ledger.ready()
                if ledger.acting:
                    raise Refused(ResponseCode.NO_PERMISSION, ACTING_READ_ONLY.format(what="resetOffsetByTime"))
                store, now, epoch = replica.store, wall_ms(ledger.clock), replica.position.master_epoch
                changes: list[Change] = []
                for queue_id in range(max(topic.read_queue_nums, topic.write_queue_nums)):
                    low, high = readable_range(state, req.topic, queue_id, *store.queue_range(req.topic, queue_id))

                    def stored_at(offset: int, queue_id: int = queue_id) -> int:
                        return store.consume(req.topic, queue_id, offset, 1)[0][1].store_timestamp

                    offset = offset_at_time(low, high, req.timestamp_millis, stored_at)
                    changes.append(OffsetCommitted(QueueKey(req.group, req.topic, queue_id), offset, now, epoch))
                appended = ledger.append(state, changes)
            ledger.settle(appended)
            response = pb.ResetOffsetByTimeResponse(code=ResponseCode.SUCCESS)
            for c in changes:
                assert isinstance(c, OffsetCommitted)
                response.offsets.add(queue_id=c.queue.queue_id, offset=c.offset)
            return response
        except (Refused, OffsetTooSmall) as exc:
            if isinstance(exc, OffsetTooSmall):  # retention moved a queue's start during the search
                exc = Refused(ResponseCode.SYSTEM_ERROR, f"{exc}; retry")
            return pb.ResetOffsetByTimeResponse(
                code=exc.code, remark=str(exc), master_address=ledger.master_address(exc)
            )

    def progress(self, req: pb.GetConsumerProgressRequest) -> pb.GetConsumerProgressResponse:
        """Per queue of the group's topics here: the broker's offsets and the group's (``consumerProgress``)."""
        ledger = self._ledger
        try:
            if problem := name_problem("group", req.group, GROUP_MAX_LENGTH):
                raise Refused(ResponseCode.MESSAGE_ILLEGAL, problem)
            with ledger.lock:
                replica, state = ledger.ready()
            topics = self._progress_topics(req, state)
            store = replica.store
            response = pb.GetConsumerProgressResponse(code=ResponseCode.SUCCESS)
            for name, queue_count in topics:
                for queue_id in range(queue_count):
                    low, high = readable_range(state, name, queue_id, *store.queue_range(name, queue_id))
                    p = progress(state, QueueKey(req.group, name, queue_id), low)
                    response.queues.add(
                        topic=name, queue_id=queue_id, broker_offset=high, min_offset=low,
                        consumer_offset=p.consumer_offset, inflight=p.inflight,
                        last_timestamp_millis=_stored_at(store, name, queue_id, p.consumer_offset - 1, low),
                    )  # fmt: skip
            for (home, topic, queue_id), count in sorted(_escaped_of(state, req.group, req.topic).items()):
                response.escaped.add(home=home, topic=topic, queue_id=queue_id, changes=count)
            return response
        except Refused as exc:
            return pb.GetConsumerProgressResponse(
                code=exc.code, remark=str(exc), master_address=ledger.master_address(exc)
            )

    def _progress_topics(self, req: pb.GetConsumerProgressRequest, state: ConsumerState) -> list[tuple[str, int]]:
        """(topic, queue count) of the request's topic, else of every topic the group has state for here."""
        if req.topic:
            topic = self._topic(req.topic)
            return [(topic.name, max(topic.read_queue_nums, topic.write_queue_nums))]
        names = sorted({k.topic for k in _keys(state) if k.group == req.group})
        table = self._ledger.host.metadata.topics
        out: list[tuple[str, int]] = []
        for name in names:
            known = table.get(name)
            seen = 1 + max(k.queue_id for k in _keys(state) if (k.group, k.topic) == (req.group, name))
            out.append((name, max(seen, known.read_queue_nums, known.write_queue_nums) if known else seen))
        return out


def _escaped_of(state: ConsumerState, group: str, topic: str) -> dict[tuple[str, str, int], int]:
    """How many of `group`'s changes (of `topic`, "" for all) this master holds for each other set, per (home,
    topic, queue id)."""
    counts: dict[tuple[str, str, int], int] = {}
    for home, held in state.escaped.items():
        for e in held.values():
            if isinstance(e.change, Queueless):
                continue
            key = e.change.queue
            if key.group == group and topic in ("", key.topic):
                at = (home, key.topic, key.queue_id)
                counts[at] = counts.get(at, 0) + 1
    return counts


def _keys(state: ConsumerState) -> Iterable[QueueKey]:
    return itertools.chain(state.offsets, state.queues)


def _stored_at(store: MessageStore, topic: str, queue_id: int, offset: int, min_offset: int) -> int:
    """The store time of the message at `offset`, 0 if there is none (before the queue's first readable one)."""
    if offset < min_offset:
        return 0
    try:
        found = store.consume(topic, queue_id, offset, 1)
    except OffsetTooSmall:
        return 0
    return found[0][1].store_timestamp if found else 0
