"""The access point's SendMessage: checks the messages against their topic, picks the broker set (a message
group's by hash, else round robin), and sends through the ``Forwarder``, which holds the send through a failover."""

from __future__ import annotations

import zlib
from typing import Any

from agents.access import timing
from agents.access.calls import Calls, status
from agents.access.codes import Code, send_code
from agents.access.messages import outgoing_problem, to_broker, type_problem
from agents.access.protocol import service, v2
from agents.access.validation import Problem
from agents.metadata import Topic
from agents.store.message_store import Placement
from agents.transaction.half import TransactionRef
from mqbase.clock import wall_ms


class SendRpcs(Calls):
    """Sends."""

    async def _pick_set(self, topic: Topic, message_group: str | None) -> str | None:
        """The broker set a send goes to: its message group's (a stable hash, so a group stays in one set and
        in order) or the next in turn, among the sets serving the topic."""
        names = sorted(s.name for s in await self._sets(topic))
        if not names:
            return None
        wiped = self._cluster.metadata().write_wiped  # draining sets (wipeWritePerm): only if no other set is left
        names = [n for n in names if n not in wiped] or names
        turn = zlib.crc32(message_group.encode()) if message_group else next(self._turn)
        return names[turn % len(names)]

    async def SendMessage(self, request: Any, context: Any) -> Any:
        def refused(code: Code, message: str) -> Any:
            return service.SendMessageResponse(
                status=status(code, message),
                entries=[
                    service.SendResultEntry(status=status(code, message), message_id=m.system_properties.message_id)
                    for m in request.messages
                ],
            )  # fmt: skip

        if problem := self._refused(context):
            return refused(problem.code, problem.message)
        if not request.messages:
            return refused(Code.BAD_REQUEST, "no message to send")
        if len({m.topic.name for m in request.messages}) > 1:
            return refused(Code.BAD_REQUEST, "the messages of one request must have one topic")
        for m in request.messages:
            if problem := outgoing_problem(m, wall_ms(self._clock)):
                return refused(problem.code, problem.message)
        topic = await self._topic(request.messages[0].topic.name)
        if isinstance(topic, Problem):
            return refused(topic.code, topic.message)
        for m in request.messages:
            if problem := type_problem(m, topic):
                return refused(problem.code, problem.message)
        first = request.messages[0].system_properties
        broker_name = await self._pick_set(topic, first.message_group if first.HasField("message_group") else None)
        if broker_name is None:
            return refused(Code.TOPIC_NOT_FOUND, f"topic {topic.name} is served by no broker set known yet; retry")
        batch = [to_broker(m) for m in request.messages]
        try:
            answer = await self._forward.send(broker_name, batch, self._deadline(context))
        except timing.GaveUp as exc:
            return refused(exc.problem.code, exc.problem.message)
        code = send_code(answer.code, answer.status)
        if code != Code.OK or len(answer.placed) != len(request.messages):
            return refused(code if code != Code.OK else Code.INTERNAL_SERVER_ERROR, answer.remark or "send failed")
        return service.SendMessageResponse(
            status=status(Code.OK, "OK"),
            entries=[
                service.SendResultEntry(status=status(Code.OK, "OK"), message_id=m.system_properties.message_id,
                                        offset=r.queue_offset, transaction_id=_transaction_id(broker_name, m, r))
                for m, r in zip(request.messages, answer.placed, strict=True)
            ],
        )  # fmt: skip


def _transaction_id(broker_name: str, message: Any, placed: Placement) -> str:
    """A transactional message's id for its end: where its half message is (``agents.transaction.half``)."""
    if message.system_properties.message_type != v2.TRANSACTION:
        return ""
    return TransactionRef(broker_name, placed.queue_offset, placed.commit_log_offset).encode()
