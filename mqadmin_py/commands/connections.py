"""The clients connected through the access points: consumerConnection, producerConnection and consumerStatus,
with Java's names and options.

RocketMQ 5 clients connect to an agent's access point (``proxyListenPort``), not to the brokers; each access point
keeps the clients that announced their settings and still heartbeat (``agents.access.connections``). These
commands ask every agent hosting a replica the controllers know (``-a``), or the one agent at ``-b brokerAddr``,
and list what their access points see: client id, address, language, version, type, and the group and
subscriptions (a consumer) or topics (a producer). Java's consumer-side figures that only the client itself holds
(its running info, thread stacks) are not available over RocketMQ 5's protocol.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

import typer

from mqadmin_py.commands.broker import OptionalControllerOpt
from mqadmin_py.commands.cluster import BrokerAddrOpt, replicas
from mqadmin_py.commands.common import agent_client, check, checked, controller_client, each_concurrently, local_time
from mqadmin_py.commands.topic import group_name, topic_name
from mqadmin_py.options import OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table
from mqbase.codes import ResponseCode
from mqbase.errors import MqError, OperationFailed, UsageError

CONSUME_TYPES = {"PUSH_CONSUMER": "CONSUME_PASSIVELY", "SIMPLE_CONSUMER": "CONSUME_ACTIVELY"}
"""A consumer's v2 ClientType → Java's ``ConsumeType`` (push consumers are pushed to; simple ones pull)."""


class ConnectionDoc(TypedDict):
    """One client as an access point sees it."""

    clientId: str
    clientAddress: str
    language: str
    version: str
    clientType: str
    group: str | None
    subscriptions: dict[str, str]
    lastSeenTimestamp: int
    accessPoint: str


class AgentAskedDoc(TypedDict):
    """An agent asked (by one of its brokers' addresses), and why it did not answer."""

    address: str
    reachable: bool
    error: str | None


def connection_doc(c: Any) -> ConnectionDoc:
    return {"clientId": c.client_id, "clientAddress": c.address, "language": c.language, "version": c.version,
            "clientType": c.client_type, "group": c.group or None,
            "subscriptions": dict(sorted(c.subscriptions.items())), "lastSeenTimestamp": c.last_seen_millis,
            "accessPoint": c.access_point}  # fmt: skip


def merged(answers: list[list[ConnectionDoc]]) -> list[ConnectionDoc]:
    """Every agent's list as one, each client once per access point (an agent answers the same on every broker
    port it serves), by client id."""
    seen: dict[tuple[str, str], ConnectionDoc] = {}
    for answer in answers:
        for c in answer:
            seen.setdefault((c["accessPoint"], c["clientId"]), c)
    return sorted(seen.values(), key=lambda c: (c["clientId"], c["accessPoint"]))


def fetch_connections(
    controller: str, broker_addr: str | None, group: str, topic: str, timeout: float
) -> tuple[list[ConnectionDoc], list[AgentAskedDoc]]:
    """The clients of `group` (consumers) or `topic` (producers) every agent's access point sees."""
    from mqbase.proto import agent_pb2 as pb

    if broker_addr is not None:
        addresses = [broker_addr]
    elif controller:
        with controller_client(controller, timeout) as client:
            addresses = sorted({r["brokerAddress"] for r in replicas(client, None) if r["alive"]})
    else:
        raise UsageError("give -b brokerAddr, or the controllers: -a host:port;... or MQADMIN_CONTROLLERS")
    request = pb.GetClientConnectionsRequest(group=group, topic=topic)

    def ask(address: str) -> tuple[AgentAskedDoc, list[ConnectionDoc]]:
        try:
            r = check(agents.call(address, "GetClientConnections", request))
        except MqError as exc:
            if broker_addr is not None:
                raise
            return {"address": address, "reachable": False, "error": str(exc)}, []
        return {"address": address, "reachable": True, "error": None}, [connection_doc(c) for c in r.connections]

    with agent_client(timeout) as agents:
        answers = each_concurrently(addresses, ask)
    return merged([found for _, found in answers]), [asked for asked, _ in answers]


def _subscriptions(connections: list[ConnectionDoc]) -> dict[str, str]:
    """The group's subscription table as Java prints it: topic → expression, the first client's for a topic."""
    table: dict[str, str] = {}
    for c in connections:
        for topic, expression in c["subscriptions"].items():
            table.setdefault(topic, expression)
    return dict(sorted(table.items()))


def same_subscription(connections: list[ConnectionDoc]) -> bool:
    """Java's ``analyzeSubscription``: every client of the group subscribes the same topics with the same
    expressions."""
    return len({tuple(sorted(c["subscriptions"].items())) for c in connections}) <= 1


def _not_online(group: str) -> OperationFailed:
    code = ResponseCode.CONSUMER_NOT_ONLINE
    return OperationFailed(code, code.name, f"Not found the consumer group connection: no client of {group} is "
                                            "connected to an access point now")  # fmt: skip


def _connections_table(title: str, connections: list[ConnectionDoc], asked: list[AgentAskedDoc]) -> None:
    rows: list[list[Any]] = [[c["clientId"], c["clientAddress"], c["language"], c["version"], c["clientType"],
             "; ".join(f"{t} {e}".strip() for t, e in c["subscriptions"].items()), local_time(c["lastSeenTimestamp"]),
             c["accessPoint"]] for c in connections]  # fmt: skip
    rows += [[None, a["address"], None, None, None, a["error"], None, None] for a in asked if not a["reachable"]]
    columns = ["Client id", "Address", "Language", "Version", "Type", "Subscriptions / topics", "Last seen",
               "Access point"]  # fmt: skip
    emit_table(title, columns, rows)


GroupArg = Annotated[
    str, typer.Option("-g", "--consumerGroup", help="The consumer group.", callback=checked(group_name))
]


# --- consumerConnection ---------------------------------------------------------------------------


class ConsumerConnectionDoc(TypedDict):
    group: str
    connections: list[ConnectionDoc]
    subscriptions: dict[str, str]
    consumeType: str | None
    messageModel: str
    agents: list[AgentAskedDoc]


def consumer_connection(
    group: GroupArg,
    controller: OptionalControllerOpt = "",
    broker_addr: BrokerAddrOpt = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """The clients of a consumer group connected through the access points: id, address, language, version, and
    the group's subscriptions. Every agent the controllers know is asked (or the one at -b).

    No client of the group connected: exit 1 CONSUMER_NOT_ONLINE (206), as Java. An agent that does not answer is
    listed (exit 0 when another has clients); with -b it is exit 5.
    """
    connections, asked = fetch_connections(controller, broker_addr, group, "", timeout)
    if not connections:
        raise _not_online(group)
    types = {CONSUME_TYPES.get(c["clientType"], c["clientType"]) for c in connections}
    doc: ConsumerConnectionDoc = {"group": group, "connections": connections,
                                  "subscriptions": _subscriptions(connections),
                                  "consumeType": types.pop() if len(types) == 1 else None,
                                  "messageModel": "CLUSTERING", "agents": asked}  # fmt: skip

    def legacy(d: ConsumerConnectionDoc) -> str:
        out = f"{'#ClientId':<36} {'#ClientAddr':<22} {'#Language':<10} #Version\n"
        out += "".join(f"{c['clientId']:<36} {c['clientAddress']:<22} {c['language']:<10} {c['version']}\n"
                       for c in d["connections"])  # fmt: skip
        out += f"\nBelow is subscription:\n{'#Topic':<20} #SubExpression\n"
        out += "".join(f"{topic:<20} {expression}\n" for topic, expression in d["subscriptions"].items())
        return out + f"\nConsumeType: {d['consumeType']}\nMessageModel: {d['messageModel']}\n"

    emit(doc, output, lambda d: _connections_table(f"Clients of {d['group']}", d["connections"], d["agents"]), legacy)


# --- producerConnection ---------------------------------------------------------------------------


class ProducerConnectionDoc(TypedDict):
    topic: str
    connections: list[ConnectionDoc]
    agents: list[AgentAskedDoc]


def producer_connection(
    topic: Annotated[str, typer.Option("-t", "--topic", help="The topic.", callback=checked(topic_name))],
    _group: Annotated[
        str | None,
        typer.Option("-g", "--producerGroup", help="Accepted for Java scripts: RocketMQ 5 producers have no group."),
    ] = None,
    controller: OptionalControllerOpt = "",
    broker_addr: BrokerAddrOpt = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """The producers that announced a topic (their settings' topics) to an access point: id, address, language,
    version. Every agent the controllers know is asked (or the one at -b). None is not an error (exit 0)."""
    connections, asked = fetch_connections(controller, broker_addr, "", topic, timeout)
    doc: ProducerConnectionDoc = {"topic": topic, "connections": connections, "agents": asked}

    def legacy(d: ProducerConnectionDoc) -> str:
        return "".join(f"{i:04d}  {c['clientId']:<32} {c['clientAddress']:<22} {c['language']:<8} {c['version']}\n"
                       for i, c in enumerate(d["connections"], 1))  # fmt: skip

    emit(doc, output, lambda d: _connections_table(f"Producers of {d['topic']}", d["connections"], d["agents"]),
         legacy)  # fmt: skip


# --- consumerStatus -------------------------------------------------------------------------------


class ConsumerStatusDoc(TypedDict):
    """The group's clients (or the one of -i) and whether they subscribe alike (Java's analyzeSubscription)."""

    group: str
    clients: list[ConnectionDoc]
    sameSubscription: bool
    agents: list[AgentAskedDoc]


def consumer_status(
    group: GroupArg,
    client_id: Annotated[str | None, typer.Option("-i", "--clientId", help="Only this client.")] = None,
    controller: OptionalControllerOpt = "",
    broker_addr: BrokerAddrOpt = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """A consumer group's clients as the access points know them, and whether they all subscribe the same topics
    with the same expressions (a group whose clients differ loses messages: Java's warning).

    No client connected (or none with id -i): exit 1 CONSUMER_NOT_ONLINE (206). The client's own running info
    (Java's -i output, -s jstack) is not available over RocketMQ 5's protocol.
    """
    connections, asked = fetch_connections(controller, broker_addr, group, "", timeout)
    clients = [c for c in connections if client_id is None or c["clientId"] == client_id]
    if not clients:
        raise _not_online(group if client_id is None else f"{group} with id {client_id}")
    doc: ConsumerStatusDoc = {"group": group, "clients": clients, "sameSubscription": same_subscription(connections),
                              "agents": asked}  # fmt: skip

    def table(d: ConsumerStatusDoc) -> None:
        _connections_table(f"Clients of {d['group']}", d["clients"], d["agents"])
        print("Same subscription in the same group of consumer" if d["sameSubscription"]
              else "WARN: Different subscription in the same group of consumer!!!")  # fmt: skip

    def legacy(d: ConsumerStatusDoc) -> str:
        out = f"{'#Index':<10} {'#ClientId':<40} {'#Version':<20} #ConsumerRunningInfoFile\n"
        out += "".join(f"{i:<10} {c['clientId']:<40} {c['version']:<20} n/a\n" for i, c in enumerate(d["clients"], 1))
        if d["sameSubscription"]:
            return out + "\n\nSame subscription in the same group of consumer\n"
        return out + "\n\nWARN: Different subscription in the same group of consumer!!!\n"

    emit(doc, output, table, legacy)
