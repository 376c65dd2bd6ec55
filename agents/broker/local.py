"""LocalBroker: a hosted broker's `BrokerApi`, its services called directly."""

from __future__ import annotations

from collections.abc import Sequence

from agents.broker.api import (
    Acked,
    AckRequest,
    Changed,
    ChangeInvisibleRequest,
    Checks,
    Ended,
    EndRequest,
    Received,
    ReceiveRequest,
    SendAnswer,
)
from agents.broker.pop_service import PopService
from agents.broker.sends import SendService
from agents.broker.stats import BrokerStats
from agents.broker.transactions import TransactionBook
from agents.store.record import Message
from mqbase.clock import Clock


class LocalBroker:
    """A hosted broker's `BrokerApi`: its services called directly (the agent API's servicer calls it too)."""

    def __init__(
        self, sends: SendService, pop: PopService, transactions: TransactionBook, stats: BrokerStats, clock: Clock
    ) -> None:
        self._sends = sends
        self._pop = pop
        self._transactions = transactions
        self._stats = stats
        self._clock = clock

    def send(self, messages: Sequence[Message], born_host: str | None) -> SendAnswer:
        return self._sends.send(messages, born_host)

    def receive(self, request: ReceiveRequest) -> Received:
        answer = self._pop.receive(request)
        size = sum(len(d.message.body) for d in answer.messages)
        self._stats.got(request.topic, request.group, len(answer.messages), size, self._clock.monotonic())
        return answer

    def ack(self, request: AckRequest) -> Acked:
        return self._pop.ack(request)

    def change_invisible(self, request: ChangeInvisibleRequest) -> Changed:
        return self._pop.change_invisible(request)

    def end_transaction(self, request: EndRequest) -> Ended:
        return self._transactions.end(request)

    def take_checks(self, topics: frozenset[str]) -> Checks:
        return self._transactions.take_checks(topics)
