"""The access point's route, settings and liveness RPCs: QueryRoute, QueryAssignment (the queues of the sets serving
a topic, as ``routes`` lays them out), Heartbeat, NotifyClientTermination, and Telemetry (the client's settings
merged with its group's, the connection registry, and the commands the server sends a client: ``streams``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc

from agents.access import auth, routes, settings
from agents.access.calls import Calls, status
from agents.access.codes import Code
from agents.access.connections import Connection
from agents.access.protocol import service, v2
from agents.access.validation import Problem, group_problem
from mqbase.clock import Clock, wall_ms
from mqbase.serving import peer_address


def _connection(client: Any, headers: dict[str, str], context: Any, clock: Clock) -> Connection:
    """The registry's view of a client from its Telemetry settings and call headers."""
    agent = client.user_agent
    if client.WhichOneof("pub_sub") == "subscription":
        group = client.subscription.group.name
        topics = {s.topic.name: s.expression.expression for s in client.subscription.subscriptions}
    else:
        group, topics = "", {t.name: "" for t in client.publishing.topics}
    language = v2.Language.Name(agent.language) if agent.language else headers.get("x-mq-language", "")
    return Connection(
        client_id=headers[auth.CLIENT_ID],
        address=peer_address(context.peer()) or "",
        language=language,
        version=agent.version or headers.get("x-mq-client-version", ""),
        client_type=v2.ClientType.Name(client.client_type),
        group=group,
        subscriptions=topics,
        last_seen=clock.monotonic(),
        last_seen_ms=wall_ms(clock),
    )


class RouteRpcs(Calls):
    """Routes, assignments, settings and liveness."""

    async def QueryRoute(self, request: Any, context: Any) -> Any:
        if problem := self._refused(context):
            return service.QueryRouteResponse(status=status(problem.code, problem.message))
        topic = await self._topic(request.topic.name)
        if isinstance(topic, Problem):
            return service.QueryRouteResponse(status=status(topic.code, topic.message))
        queues = await self._route(topic, request)
        if not queues:
            return service.QueryRouteResponse(
                status=status(Code.TOPIC_NOT_FOUND, f"topic {topic.name} is served by no broker set known yet; retry")
            )
        return service.QueryRouteResponse(status=status(Code.OK, "OK"), message_queues=queues)

    async def QueryAssignment(self, request: Any, context: Any) -> Any:
        if problem := self._refused(context) or group_problem(request.group.name):
            return service.QueryAssignmentResponse(status=status(problem.code, problem.message))
        topic = await self._topic(request.topic.name)
        if isinstance(topic, Problem):
            return service.QueryAssignmentResponse(status=status(topic.code, topic.message))
        group = self._cluster.metadata().groups.get(request.group.name)
        assigned = routes.assignments(await self._route(topic, request), bool(group and group.consume_orderly))
        if not assigned:
            return service.QueryAssignmentResponse(status=status(Code.FORBIDDEN, "no readable queue"))
        return service.QueryAssignmentResponse(status=status(Code.OK, "OK"), assignments=assigned)

    async def Heartbeat(self, request: Any, context: Any) -> Any:
        problem = self._refused(context)
        if problem is None:
            self.connections.heard(self._headers(context)[auth.CLIENT_ID], peer_address(context.peer()) or "",
                                   self._clock.monotonic(), wall_ms(self._clock))  # fmt: skip
        return service.HeartbeatResponse(
            status=status(problem.code, problem.message) if problem else status(Code.OK, "OK")
        )

    async def NotifyClientTermination(self, request: Any, context: Any) -> Any:
        problem = self._refused(context)
        if problem is None:
            self._renewer.forget(self._headers(context)[auth.CLIENT_ID])
            self.connections.forget(self._headers(context)[auth.CLIENT_ID])
        ok = status(Code.OK, "OK")
        return service.NotifyClientTerminationResponse(status=status(problem.code, problem.message) if problem else ok)

    async def Telemetry(self, request_iterator: Any, context: Any) -> AsyncIterator[Any]:
        """Answers each settings the client sends, and sends what the server has for it (``streams``: a
        transaction check-back) down the same stream."""
        if problem := self._refused(context):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT if problem.code == Code.CLIENT_ID_REQUIRED
                                else grpc.StatusCode.UNAUTHENTICATED, problem.message)  # fmt: skip
        headers = self._headers(context)
        client_id = headers[auth.CLIENT_ID]
        outgoing: asyncio.Queue[Any] = asyncio.Queue()

        async def read() -> None:
            try:
                async for command in request_iterator:
                    if not command.HasField("settings"):
                        continue  # thread stacks, verify results: nothing asked them
                    client = command.settings
                    group = None
                    if client.WhichOneof("pub_sub") == "subscription":
                        group = self._cluster.metadata().groups.get(client.subscription.group.name)
                    answer = settings.merged(client, group)
                    if answer is None:
                        await outgoing.put(_NEITHER)
                        return
                    self.connections.announce(_connection(client, headers, context, self._clock))
                    self.streams.opened(client_id, outgoing)
                    await outgoing.put(service.TelemetryCommand(status=status(Code.OK, "OK"), settings=answer))
            finally:
                await outgoing.put(_END)

        reader = asyncio.create_task(read())
        try:
            while (command := await outgoing.get()) is not _END:
                if command is _NEITHER:
                    await context.abort(
                        grpc.StatusCode.INVALID_ARGUMENT, "settings hold neither publishing nor subscription"
                    )
                yield command
        finally:
            reader.cancel()
            self.streams.closed(client_id, outgoing)


_END, _NEITHER = object(), object()
"""The stream's own markers in its outgoing queue: the client closed it; its settings were refused."""
