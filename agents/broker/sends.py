"""SendService: a send on the broker set's master, from the messages a producer gave to where they landed.

Each topic is admitted first (``metadata.send_verdict``; a refusal a newer table might lift is decided again
after one rate-limited re-read, and an unknown topic with autoCreateTopicEnable is created at the controller, so
no send writes to a topic the controller does not have), every queue id is checked before anything is stored,
the messages get their queue, born properties and, when delayed, the timer topic (a transactional one: the half
topic, ``agents.transaction.half``), and the batch is put behind
the write gate (``writes``). The answer names where each message went, as Java's SendResult does.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from agents.broker.answers import REMARKS, STATUS_CODES
from agents.broker.api import SendAnswer
from agents.broker.stats import BrokerStats
from agents.broker.writes import WriteGuard
from agents.config import BrokerConfig
from agents.delay.timer import REAL_QID, TIMER_TOPIC, Refusal, deliver_ms, to_timer
from agents.ha.sync_state import PutStatus
from agents.metadata import (
    BORN_HOST,
    BORN_TIMESTAMP,
    Allowed,
    Create,
    MetadataTable,
    Refused,
    SendVerdict,
    queue_for_send,
    queue_id_problem,
    send_verdict,
)
from agents.store.message_store import Placement
from agents.store.record import Message, RecordError
from agents.transaction.half import HALF_TOPIC, is_transactional, to_half
from mqbase.clock import Clock, wall_ms
from mqbase.codes import ResponseCode
from mqbase.errors import MqError
from mqbase.proto.controller_pb2 import MetadataChangeResponse

log = logging.getLogger(__name__)


class Broker(Protocol):
    """What a send needs of its broker (``ReplicasManager``)."""

    config: BrokerConfig
    broker_id: int

    def master_address(self) -> str: ...
    def position_epoch(self) -> int: ...
    def stored(self, messages: Sequence[Message]) -> None:
        """The put wrote these and they are acknowledged: wake what waits for new messages."""


class Topics(Protocol):
    """The broker's topics and groups (``topics_table.TopicsTable``)."""

    @property
    def table(self) -> MetadataTable: ...
    def reread(self, *, limited: bool = True) -> bool: ...
    def create_topic(self, topic: str) -> MetadataChangeResponse: ...


class SendService:
    """See the module docstring. `observe(seconds, status)`: the agent's put metrics, if any."""

    def __init__(
        self,
        broker: Broker,
        topics: Topics,
        writes: WriteGuard,
        stats: BrokerStats,
        clock: Clock,
        observe: Callable[[float, str], None] | None = None,
    ) -> None:
        self._broker = broker
        self._topics = topics
        self._writes = writes
        self._stats = stats
        self._clock = clock
        self._observe = observe
        self._round_robin = itertools.count()

    def send(self, messages: Sequence[Message], born_host: str | None) -> SendAnswer:
        """Store `messages` (their ``queue_id`` -1: the broker picks) on this broker set; `born_host`: the producer's
        address when known."""
        c = self._broker.config
        queues: dict[str, int] = {}
        for topic in dict.fromkeys(m.topic for m in messages):  # each topic once, in the order sent
            admitted = self._admit(topic)
            if isinstance(admitted, Refused):
                return SendAnswer(admitted.code, admitted.remark)
            queues[topic] = admitted.write_queue_nums
        for m in messages:  # before anything is stored: one bad queue id refuses the whole batch
            if (illegal := queue_id_problem(m.topic, m.queue_id, queues[m.topic])) is not None:
                return SendAnswer(ResponseCode.SYSTEM_ERROR, illegal)
        now = wall_ms(self._clock)
        batch: list[Message] = []
        try:
            for m in messages:
                queue_id = queue_for_send(m.queue_id, m.properties, queues[m.topic], next(self._round_robin))
                sent = Message(m.topic, queue_id, m.body, born_properties(m.properties, born_host, now), now)
                if is_transactional(sent.properties):
                    if deliver_ms(sent.properties) is not None:
                        return SendAnswer(ResponseCode.MESSAGE_ILLEGAL, "a transactional message cannot be delayed")
                    batch.append(to_half(sent))
                    continue
                stored = to_timer(sent, now, c.timer_max_delay_sec)
                if isinstance(stored, Refusal):
                    return SendAnswer(stored.code, stored.remark)
                batch.append(stored)
        except (RecordError, ValueError) as exc:
            return SendAnswer(ResponseCode.MESSAGE_ILLEGAL, str(exc))
        if not batch:
            return SendAnswer(ResponseCode.MESSAGE_ILLEGAL, "no message to send")
        started = self._clock.monotonic()
        try:
            result = self._writes.put(batch)
        except RecordError as exc:
            return SendAnswer(ResponseCode.MESSAGE_ILLEGAL, str(exc))
        except OSError as exc:  # a full disk (ENOSPC, EFBIG): a failed append writes nothing, a failed flush may
            log.error("%s: put failed: %s", c.broker_name, exc)
            remark = f"the store cannot write ({exc.strerror or exc}); the message may not be stored: retry later"
            return SendAnswer(ResponseCode.SYSTEM_ERROR, remark)
        if self._observe is not None:
            self._observe(self._clock.monotonic() - started, result.status.value)
        if result.status is PutStatus.PUT_OK:
            self._stats.put(((m.topic, len(m.body)) for m in messages), self._clock.monotonic())
            self._broker.stored(batch)
        master_address = self._broker.master_address()  # after the put: a refusal names the master known now
        pause = self._writes.pause
        if result.status is PutStatus.MASTER_TRANSFERRING and pause is not None:
            master_address = pause.target_address
        placed = tuple(
            # as Java's SendResult, a delayed or half message is placed in its own queue, not the system queue 0
            Placement(int(m.properties[REAL_QID]), p.queue_offset, p.commit_log_offset)
            if m.topic in (TIMER_TOPIC, HALF_TOPIC)
            else p
            for p, m in zip(result.placed, batch, strict=bool(result.placed))  # a refusal placed nothing
        )
        epoch = result.epoch if result.epoch >= 0 else self._broker.position_epoch()  # the epoch of the write
        return SendAnswer(
            STATUS_CODES[result.status], REMARKS[result.status], result.status.value, self._broker.broker_id, epoch,
            master_address, placed,
        )  # fmt: skip

    def _admit(self, topic: str) -> Allowed | Refused:
        """May a send of `topic` write on this broker set (see the module docstring)?"""
        c = self._broker.config

        def verdict_now() -> SendVerdict:
            return send_verdict(self._topics.table, topic, c.broker_name, c.broker_cluster_name,
                                c.auto_create_topic_enable)  # fmt: skip

        verdict = verdict_now()
        if isinstance(verdict, Allowed) or (isinstance(verdict, Refused) and not verdict.learnable):
            return verdict
        try:
            if self._topics.reread(limited=not isinstance(verdict, Create)):
                verdict = verdict_now()
            if isinstance(verdict, Create):
                created = self._topics.create_topic(topic)
                if created.code != ResponseCode.SUCCESS:
                    return Refused(
                        ResponseCode.TOPIC_NOT_EXIST,
                        f"topic[{topic}] not exist, and the controller did not create it (autoCreateTopicEnable): "
                        f"code {created.code}, {created.remark}",
                    )
                verdict = verdict_now()
        except MqError as exc:
            if isinstance(verdict, Refused):
                return verdict  # the table's answer stands; a later re-read may tell more
            return Refused(
                ResponseCode.SERVICE_NOT_AVAILABLE,
                f"topic[{topic}] not exist and cannot be created now (autoCreateTopicEnable): no controller "
                f"answered ({exc}); retry",
            )
        if isinstance(verdict, Create):  # created, but the read after it did not answer
            return Refused(
                ResponseCode.SERVICE_NOT_AVAILABLE, f"topic[{topic}] was created but is not learnt yet; retry"
            )
        return verdict


def born_properties(properties: Mapping[str, str], host: str | None, now_ms: int) -> dict[str, str]:
    """A message's properties with BORN_HOST (`host`, when known) and BORN_TIMESTAMP (`now_ms`, the receive time)
    added where the producer did not set them; the producer's own values are kept."""
    born = {BORN_TIMESTAMP: str(now_ms)}
    if host is not None:
        born[BORN_HOST] = host
    return {**born, **properties}
