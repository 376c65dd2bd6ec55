"""The failover invariant as a checker: what consumers were told against the state a new master rebuilt.

The broker answers a receive, an ack or an offset commit only once its record is confirmed (every in-sync replica
holds it), and a new master is elected from those replicas, so the state it rebuilds from its own log must agree
with every answer consumers got before the failover:

- a message acked to a consumer is done (below the committed offset, or acked): never delivered again;
- a message delivered to a consumer is known (below ``scanned``) under the ticket it was handed out with or a later
  one: it is delivered again only after its invisibility ends, and its handle still acks;
- a committed offset is the last one told for its queue, or one sent after it whose answer was lost; a commit
  (a reset) starts the queue over, so acks and deliveries told before it no longer bind.

`violations` returns one line per breach (empty when the invariant holds), for the unit tests and the chaos suite.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agents.consumer.state import ConsumerState, queue_state
from agents.pop.model import QueueKey
from agents.pop.rules import EMPTY


@dataclass(frozen=True, slots=True)
class ToldAck:
    """An ack of the message at `offset` answered OK."""

    queue: QueueKey
    offset: int


@dataclass(frozen=True, slots=True)
class ToldDelivery:
    """A receive (or change of invisibility) that answered a handle with `ticket` for the message at `offset`."""

    queue: QueueKey
    offset: int
    ticket: int


@dataclass(frozen=True, slots=True)
class ToldCommit:
    """An offset commit answered OK (or, among the unanswered, sent without an answer)."""

    queue: QueueKey
    offset: int


Told = ToldAck | ToldDelivery | ToldCommit


def _name(q: QueueKey) -> str:
    return f"{q.group} on {q.topic}/{q.queue_id}"


def violations(told: Iterable[Told], rebuilt: ConsumerState, unanswered: Iterable[ToldCommit] = ()) -> tuple[str, ...]:
    """Each breach of the invariant by `rebuilt`, given the answers `told` in the order consumers got them.

    `unanswered` are commits whose answer never came (the failover cut it): the new master may hold any of them.
    """
    found: list[str] = []
    told = list(told)
    last_commit: dict[QueueKey, int] = {}
    reset_at = {t.queue: i for i, t in enumerate(told) if isinstance(t, ToldCommit)}
    for i, t in enumerate(told):
        if isinstance(t, ToldCommit):
            last_commit[t.queue] = t.offset
            continue
        if i < reset_at.get(t.queue, -1):
            continue  # a later commit (a reset) started the queue over: this answer no longer binds
        q = queue_state(rebuilt, t.queue) or EMPTY
        where = f"{_name(t.queue)} offset {t.offset}"
        if isinstance(t, ToldAck):
            if not (t.offset < q.committed or t.offset in q.done):
                state = "in flight" if t.offset in q.inflight else "not yet delivered"
                found.append(f"{where} was acked to a consumer but is {state} again (it would be redelivered)")
        elif t.offset >= q.scanned:
            found.append(f"{where} was delivered but is unknown to the new master (it would be delivered at once)")
        elif (f := q.inflight.get(t.offset)) is not None and f.ticket < t.ticket:
            found.append(f"{where} was handed out with ticket {t.ticket} but the new master has ticket {f.ticket}")
    maybe: dict[QueueKey, set[int]] = {}
    for u in unanswered:
        maybe.setdefault(u.queue, set()).add(u.offset)
    for queue, offset in last_commit.items():
        have = rebuilt.offsets.get(queue)
        if have is None:
            found.append(f"{_name(queue)}: committed offset {offset} was told but the new master has none")
        elif have.offset != offset and have.offset not in maybe.get(queue, set()):
            found.append(f"{_name(queue)}: committed offset {offset} was told but the new master has {have.offset}")
    for queue, offsets in maybe.items():
        have = rebuilt.offsets.get(queue)
        if queue not in last_commit and have is not None and have.offset not in offsets:
            found.append(f"{_name(queue)}: the new master has offset {have.offset}, which no consumer committed")
    return tuple(found)
