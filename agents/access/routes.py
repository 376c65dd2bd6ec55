"""Routes and assignments: which broker sets serve a topic, their queues, and where clients send for each set.

Every queue entry has ``broker.id`` 0 (clients use no other) and, as its endpoints, the endpoints the client asked
on, as Java's proxy answers in cluster mode: every official client handles its own configuration back, while a
list it was not given can break it (the Node.js client joins a list into one gRPC target and fails to resolve
it). Whichever access point the client reaches forwards to the set's current master, so a failover changes no
route. A set with no master whose replica acts as master (RIP-32) has read-only queues, so producers route
around it; its consumer calls are forwarded to the acting replica. Pure.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agents.access.protocol import v2
from agents.metadata import Topic
from mqbase.metadata import PERM_READ, PERM_WRITE

ACCEPTED_TYPES = {"NORMAL": v2.NORMAL, "FIFO": v2.FIFO, "DELAY": v2.DELAY, "TRANSACTION": v2.TRANSACTION}
"""A topic's ``message.type`` attribute → the one message type its queues accept (Java's ``TopicMessageType``)."""


@dataclass(frozen=True, slots=True)
class BrokerSet:
    """One broker set as the access point sees it: its current master's agent API address ("" while it has
    none)."""

    name: str
    master_address: str
    acting_address: str = ""
    """RIP-32: the agent API address of the replica acting as the set's read-only master ("" when none acts),
    where consumer calls go while it acts."""


@dataclass(frozen=True, slots=True)
class ReplicaReport:
    """What one replica's agent says of it (ListBrokers): where it is, its role, whether it acts as master."""

    broker_address: str
    role: str
    acting: bool


def from_reports(s: BrokerSet, reports: Sequence[ReplicaReport], controller_answered: bool) -> BrokerSet:
    """`s` with what its replicas' agents report: the acting replica (only while the set has no master), and,
    when the controllers did not answer, the master an agent reports (the last one known is dead or cut off
    otherwise; none reported: none)."""
    master = s.master_address
    if not controller_answered:
        master = next((r.broker_address for r in reports if r.role == "master"), "")
    actor = None if master else next((r for r in reports if r.acting), None)
    return BrokerSet(s.name, master, actor.broker_address if actor else "")


def split_address(address: str) -> tuple[str, int]:
    """``host:port`` or ``[v6]:port`` → (host, port)."""
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


def endpoints(asked: Any, own: str) -> Any:
    """The endpoints a route lists: `asked` (the request's ``v2.Endpoints``) as the client gave them, or this
    access point's address `own` when the request names none."""
    if asked.addresses:
        return asked
    host, port = split_address(own)
    try:
        scheme = v2.IPv4 if ipaddress.ip_address(host).version == 4 else v2.IPv6
    except ValueError:
        scheme = v2.DOMAIN_NAME
    return v2.Endpoints(scheme=scheme, addresses=[v2.Address(host=host, port=port)])


def permissions(read_queue_nums: int, write_queue_nums: int, perm: int) -> list[int]:
    """The ``v2.Permission`` of each queue id, as Java's ``RouteActivity`` splits them: read-only, then
    write-only, then read-write queues; a topic without the read or write bit has only the other kind."""
    readable, writable = bool(perm & PERM_READ), bool(perm & PERM_WRITE)
    if readable and writable:
        both = min(read_queue_nums, write_queue_nums)
        r, w = read_queue_nums - both, write_queue_nums - both
    else:
        both, r, w = 0, read_queue_nums if readable else 0, write_queue_nums if writable else 0
    return [v2.READ] * r + [v2.WRITE] * w + [v2.READ_WRITE] * both


def message_queues(
    topic: Topic, sets: Sequence[BrokerSet], listed: Any, namespace: str = "", read_only: frozenset[str] = frozenset()
) -> list[Any]:
    """The route of `topic`: every queue of every broker set serving it that the access point knows, in set
    order, each listing the ``v2.Endpoints`` `listed` (see `endpoints`). The sets in `read_only` (their write
    permission wiped: ``wipeWritePerm``) get read-only queues, so producers move to the other sets."""
    accepted = ACCEPTED_TYPES.get(topic.message_type, v2.NORMAL)
    out = []
    for s in sets:
        if s.name not in topic.broker_names:
            continue
        acting = not s.master_address and s.acting_address
        # Java's acting master, and a set whose write permission is wiped: read-only
        perm = topic.perm & ~PERM_WRITE if acting or s.name in read_only else topic.perm
        broker = v2.Broker(name=s.name, id=0, endpoints=listed)
        for queue_id, permission in enumerate(permissions(topic.read_queue_nums, topic.write_queue_nums, perm)):
            out.append(
                v2.MessageQueue(
                    topic=v2.Resource(name=topic.name, resource_namespace=namespace),
                    id=queue_id,
                    permission=permission,
                    broker=broker,
                    accept_message_types=[accepted],
                )
            )
    return out


def assignments(route: Sequence[Any], fifo: bool) -> list[Any]:
    """What a push consumer receives from, as Java's proxy assigns: every consumer gets every readable broker
    set; one assignment per set (queue id -1) for a concurrent group, one per readable queue for an orderly one.
    Exclusive delivery comes from POP on the master, not from the assignment."""
    readable = [q for q in route if q.permission in (v2.READ, v2.READ_WRITE)]
    if fifo:
        return [v2.Assignment(message_queue=q) for q in readable]
    seen: dict[str, Any] = {}
    for q in readable:
        if q.broker.name not in seen:
            whole = v2.MessageQueue()
            whole.CopyFrom(q)
            whole.id = -1
            seen[q.broker.name] = v2.Assignment(message_queue=whole)
    return list(seen.values())
