"""A producer and a consumer of one broker set that follow its master through failovers, recording in a `Ledger`.

Both find the master through a callable (the controller's view: ``GetSyncStateData``), call it over the agents'
gRPC API and, when it does not answer or answers that it is not (or no longer) the master, or that a put failed
(SLAVE_NOT_AVAILABLE, SERVICE_NOT_AVAILABLE, FLUSH_SLAVE_TIMEOUT, SYSTEM_ERROR), ask again where the master is
and retry, as RocketMQ clients do. Receipt handles name the broker set, not an address, so a handle received from
one master is acked on the next one unchanged.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from agents.metadata import MESSAGE_GROUP
from mqbase.client import AgentClient
from mqbase.codes import ResponseCode as C
from mqbase.errors import MqError
from mqbase.proto import agent_pb2 as pb
from tests.harness.consumer_ledger import Acked, Delivered, Hidden, Ledger, Sent

RETRY_CODES = frozenset({C.SLAVE_NOT_AVAILABLE, C.SERVICE_NOT_AVAILABLE, C.FLUSH_SLAVE_TIMEOUT, C.SYSTEM_ERROR})
"""Not the master, not yet master, or the put of the request's records did not complete: ask the master again
(consumer requests are safe to repeat: an ack is idempotent, a lost receive's messages come back)."""
SEND_RETRY_CODES = frozenset({C.SLAVE_NOT_AVAILABLE, C.SERVICE_NOT_AVAILABLE})
"""The send refusals that stored nothing; any other failure may have stored the message, so it is not re-sent."""
RETRY_PAUSE_S = 0.1
OK = 20000
"""apache.rocketmq.v2.Code.OK, an ack's or a change's pop code when it was done."""

FindMaster = Callable[[], str | None]


class Refused(Exception):
    """The master answered a consumer request with a code no retry can change (a bug, or a missing topic)."""

    def __init__(self, request: str, code: int, remark: str) -> None:
        super().__init__(f"{request} answered {code}: {remark}")
        self.request = request
        self.code = code


def now_ms() -> int:
    return int(time.time() * 1000)


class _Follower:
    """Calls that go to the set's current master, retried there until `budget_s` runs out."""

    def __init__(self, find_master: FindMaster, broker: str, timeout: float) -> None:
        self.find_master = find_master
        self.broker = broker
        self.timeout = timeout
        self._agents = AgentClient(timeout=timeout)
        self._address: str | None = None

    def close(self) -> None:
        self._agents.close()

    def call(self, method: str, request: Any, budget_s: float, retry: frozenset[int] = RETRY_CODES,
             once: bool = False) -> Any:  # fmt: skip
        """The master's answer (any code but `retry`'s); MqError if no master served it within `budget_s`.
        `once`: a request that reached a broker and got no answer is not repeated (MqError)."""
        deadline = time.monotonic() + budget_s
        while True:
            answer = self._try(method, request, once)
            if answer is not None and answer.code not in retry:
                return answer
            if time.monotonic() > deadline:
                last = f" (last answer {answer.code}: {answer.remark})" if answer is not None else ""
                raise MqError(f"{method}: no master of {self.broker} served it within {budget_s:g} s{last}")
            if answer is not None and answer.master_address not in ("", self._address):
                self._address = answer.master_address
                continue
            self._address = None
            time.sleep(RETRY_PAUSE_S)

    def _try(self, method: str, request: Any, once: bool) -> Any:
        try:
            self._address = self._address or self.find_master()
        except MqError:
            return None
        if self._address is None:
            return None
        try:
            return self._agents.call(self._address, method, request)
        except MqError:
            self._agents.close()  # fresh channels reconnect at once to a restarted broker
            self._agents = AgentClient(timeout=self.timeout)
            self._address = None
            if once:
                raise
            return None


class GroupConsumer:
    """One consumer of `group` on `topic`: receive, ack and change invisibility on the current master."""

    def __init__(
        self, find_master: FindMaster, broker: str, group: str, topic: str, ledger: Ledger, timeout: float = 10.0
    ) -> None:
        self.group = group
        self.topic = topic
        self.ledger = ledger
        self.refused_acks: list[tuple[str, int]] = []
        """(payload, pop code) of every ack answered with a code other than OK, for diagnostics."""
        self._master = _Follower(find_master, broker, timeout)

    def close(self) -> None:
        self._master.close()

    def receive(
        self, batch: int, invisible_ms: int, wait_ms: int = 0, budget_s: float = 60.0
    ) -> list[pb.ReceivedMessage]:
        request = pb.ReceiveMessageRequest(
            group=self.group, topic=self.topic, filter_expression="*", batch_size=batch,
            invisible_millis=invisible_ms, long_polling_millis=wait_ms,
        )  # fmt: skip
        asked = now_ms()
        r = self._master.call("ReceiveMessage", request, budget_s)
        if r.code not in (C.SUCCESS, C.PULL_NOT_FOUND):
            raise Refused("receive", r.code, r.remark)
        answered = now_ms()
        self.ledger.record(
            *(
                Delivered(
                    payload(m),
                    m.message.properties.get(MESSAGE_GROUP, ""),
                    m.delivery_attempt,
                    m.receipt_handle,
                    asked,
                    answered,
                    m.invisible_until_millis,
                )
                for m in r.messages
            )
        )
        return list(r.messages)

    def ack(self, messages: Iterable[pb.ReceivedMessage], budget_s: float = 60.0) -> dict[str, int]:
        """Ack the deliveries (by their handles); payload → pop code of each (20000 OK)."""
        by_handle = {m.receipt_handle: payload(m) for m in messages}
        if not by_handle:
            return {}
        request = pb.AckMessageRequest(group=self.group, topic=self.topic, receipt_handles=list(by_handle))
        asked = now_ms()
        r = self._master.call("AckMessage", request, budget_s)
        if r.code != C.SUCCESS:
            raise Refused("ack", r.code, r.remark)
        answered = now_ms()
        self.ledger.record(
            *(
                Acked(by_handle[a.receipt_handle], a.receipt_handle, asked, answered)
                for a in r.results
                if a.pop_code == OK
            )
        )
        self.refused_acks += [(by_handle[a.receipt_handle], a.pop_code) for a in r.results if a.pop_code != OK]
        return {by_handle[a.receipt_handle]: a.pop_code for a in r.results}

    def change_invisible(self, message: pb.ReceivedMessage, invisible_ms: int, budget_s: float = 60.0) -> str | None:
        """Make the delivery invisible for `invisible_ms` from now; its new handle, None if refused (stale)."""
        request = pb.ChangeInvisibleDurationRequest(
            group=self.group, topic=self.topic, receipt_handle=message.receipt_handle, invisible_millis=invisible_ms
        )
        r = self._master.call("ChangeInvisibleDuration", request, budget_s)
        if r.pop_code != OK:
            return None
        self.ledger.record(Hidden(payload(message), r.receipt_handle, now_ms(), r.invisible_until_millis))
        return str(r.receipt_handle)

    def progress(self, budget_s: float = 60.0) -> list[pb.QueueProgress]:
        request = pb.GetConsumerProgressRequest(group=self.group, topic=self.topic)
        r = self._master.call("GetConsumerProgress", request, budget_s)
        if r.code != C.SUCCESS:
            raise Refused("progress", r.code, r.remark)
        return sorted(r.queues, key=lambda q: q.queue_id)

    def drain(self, invisible_ms: int, budget_s: float) -> None:
        """Receive and ack until every PUT_OK message of the ledger is acked (`budget_s` at most)."""
        deadline = time.monotonic() + budget_s
        while self.ledger.unacked() and time.monotonic() < deadline:
            self.ack(self.receive(32, invisible_ms, wait_ms=1000, budget_s=max(deadline - time.monotonic(), 1)))


def payload(m: pb.ReceivedMessage) -> str:
    return m.message.body.decode(errors="replace")


class GroupProducer:
    """Sends unique payloads to `topic` on the current master from a thread, until stopped; `message_groups` are
    used in turn (none: plain messages). A send with no clear answer is recorded as ambiguous, never re-sent."""

    def __init__(
        self,
        find_master: FindMaster,
        broker: str,
        topic: str,
        ledger: Ledger,
        prefix: str,
        message_groups: tuple[str, ...] = (),
        pace_s: float = 0.02,
    ) -> None:
        self.broker = broker
        self.topic = topic
        self.ledger = ledger
        self.prefix = prefix
        self.message_groups = message_groups
        self.pace_s = pace_s
        self.failure: BaseException | None = None
        self._master = _Follower(find_master, broker, 5.0)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"producer-{topic}", daemon=True)

    def __enter__(self) -> GroupProducer:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=60)
        self._master.close()
        assert not self._thread.is_alive(), "the producer did not stop"
        assert self.failure is None, f"the producer failed: {self.failure!r}"

    def count(self) -> int:
        return len(self.ledger.sent)

    def _run(self) -> None:
        try:
            n = 0
            while not self._stopped.is_set():
                group = self.message_groups[n % len(self.message_groups)] if self.message_groups else ""
                body = f"{self.prefix}{n:06d}"
                n += 1
                message = pb.Message(
                    topic=self.topic,
                    queue_id=-1,
                    body=body.encode(),
                    properties={MESSAGE_GROUP: group} if group else {},
                )
                try:
                    request = pb.SendMessageRequest(broker=pb.BrokerRef(broker_name=self.broker), message=message)
                    r = self._master.call("SendMessage", request, 30.0, SEND_RETRY_CODES, once=True)
                except MqError:
                    r = None
                if r is not None and r.code == C.SUCCESS:
                    self.ledger.record(Sent(body, group))
                else:
                    self.ledger.maybe_sent(body)
                self._stopped.wait(self.pace_s)
        except BaseException as exc:  # reported by stop()
            self.failure = exc
