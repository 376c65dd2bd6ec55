"""The access point's transactions: EndTransaction (a producer's commit or rollback, or its answer to a check-back)
goes to the master of the set its transaction id names, held through a failover like a send; `CheckRelay` takes
the check-backs due for the topics this access point's producers publish and sends each down one producer's
Telemetry stream (``RecoverOrphanedTransactionCommand``), as Java's proxy relays its broker's checks."""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import Any

from agents.access import timing
from agents.access.calls import Calls, status
from agents.access.cluster import Cluster
from agents.access.codes import Code, from_remoting
from agents.access.connections import Connections
from agents.access.forwarder import Forwarder
from agents.access.messages import stored_message
from agents.access.protocol import service, v2
from agents.access.streams import Streams
from agents.access.validation import Problem
from agents.broker.api import EndRequest
from agents.transaction.half import Resolution, decode_id
from mqbase.clock import Clock
from mqbase.codes import ResponseCode

log = logging.getLogger(__name__)

RESOLUTIONS = {v2.COMMIT: Resolution.COMMIT, v2.ROLLBACK: Resolution.ROLLBACK}
"""UNSPECIFIED (Go, Python and Rust send it when their checker answers UNKNOWN) ends nothing: the transaction is
checked back again."""
RELAY_PERIOD_S = 1.0
RELAY_DEADLINE_S = 2.0


class TransactionRpcs(Calls):
    """EndTransaction."""

    async def EndTransaction(self, request: Any, context: Any) -> Any:
        def answer(code: Code, message: str) -> Any:
            return service.EndTransactionResponse(status=status(code, message))

        if problem := self._refused(context):
            return answer(problem.code, problem.message)
        text = request.transaction_id
        ref = decode_id(text)
        if ref is None or not self._cluster.known(ref.broker_name):
            why = "is blank" if not text else "was not handed out by this cluster"
            return answer(Code.INVALID_TRANSACTION_ID, f"transaction id {text!r} {why}: give the one the send returned")
        if not request.message_id:
            return answer(Code.ILLEGAL_MESSAGE_ID, "message id is blank: give the one the send returned")
        topic = await self._topic(request.topic.name)
        if isinstance(topic, Problem):
            return answer(topic.code, topic.message)
        end = EndRequest(topic.name, request.message_id, text, RESOLUTIONS.get(request.resolution),
                         request.source == v2.SOURCE_SERVER_CHECK)  # fmt: skip
        try:
            ended = await self._forward.end_transaction(ref.broker_name, end, self._deadline(context))
        except timing.GaveUp as exc:
            return answer(exc.problem.code, exc.problem.message)
        if ended.code == ResponseCode.SUCCESS:
            return answer(Code.OK, "OK")
        if ended.code == ResponseCode.MESSAGE_ILLEGAL:
            return answer(Code.INVALID_TRANSACTION_ID, ended.remark)
        return answer(from_remoting(ended.code), ended.remark or "the transaction's end failed; retry")


class CheckRelay:
    """Relays check-backs from the masters to this access point's producers (see the module docstring)."""

    def __init__(
        self, cluster: Cluster, forwarder: Forwarder, connections: Connections, streams: Streams, clock: Clock
    ) -> None:
        self._cluster = cluster
        self._forward = forwarder
        self._connections = connections
        self._streams = streams
        self._clock = clock
        self._turn = itertools.count()

    async def run(self) -> None:
        while True:
            try:
                await self.relay_once()
            except Exception:  # the next round tries again
                log.exception("access point: relaying transaction check-backs failed")
            await asyncio.sleep(RELAY_PERIOD_S)

    async def relay_once(self) -> int:
        """One round: the check-backs sent to a producer."""
        metadata = self._cluster.metadata()
        producers: dict[str, list[str]] = {}  # transactional topic -> producers with a stream open
        for c in self._connections.alive(self._clock.monotonic()):
            if c.consumer or not self._streams.has(c.client_id):
                continue
            for name in c.subscriptions:
                topic = metadata.topics.get(name)
                if topic is not None and topic.message_type == "TRANSACTION":
                    producers.setdefault(name, []).append(c.client_id)
        by_set: dict[str, set[str]] = {}
        for name in producers:
            for broker_name in metadata.topics[name].broker_names:
                by_set.setdefault(broker_name, set()).add(name)
        sent = 0
        for broker_name, topics in sorted(by_set.items()):
            try:
                found = await self._forward.take_checks(
                    broker_name, frozenset(topics), self._clock.monotonic() + RELAY_DEADLINE_S
                )
            except timing.GaveUp:
                continue  # no master now: its checks wait there
            for check in found.checks:
                clients = producers.get(check.message.topic, [])
                if not clients:
                    continue
                command = service.TelemetryCommand(
                    recover_orphaned_transaction_command=service.RecoverOrphanedTransactionCommand(
                        message=stored_message(check.message, check.body_digest),
                        transaction_id=check.transaction_id,
                    )
                )
                sent += self._streams.push(clients[next(self._turn) % len(clients)], command)
        return sent
