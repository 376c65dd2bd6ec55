"""The access point: ``apache.rocketmq.v2.MessagingService`` on ``proxyListenPort``, a ``grpc.aio`` server on a
thread and asyncio loop of its own in the agent process (long-polling receives and telemetry streams stay open,
which would exhaust a thread-pool server).

Every request is answered from the broker set's current master: sends and receives go to the master of the set
the access point picks, acks and changes of invisibility to the set their receipt handle names; the master is
called in-process when this agent hosts it, else over the agent API (``Forwarder``). While a set has no master
that answers (failover, graceful transfer) a request is held until one does, within its deadline
(``agents.access.timing``). Errors travel in the responses' ``status``, as Java's proxy sends them.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import zlib
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, Protocol

import grpc
from grpc_health.v1 import health, health_pb2

from agents.access import auth, routes, settings, timing
from agents.access.cluster import Cluster, Managers
from agents.access.codes import Code, consumer_code, send_code
from agents.access.connections import Connection, Connections
from agents.access.forwarder import Forwarder
from agents.access.messages import delivered, outgoing_problem, to_broker, type_problem
from agents.access.protocol import SERVICE_NAME, service, stubs, v2
from agents.access.renewals import Renewer
from agents.access.routes import BrokerSet
from agents.access.validation import Problem, group_problem, topic_problem
from agents.metadata import Topic
from agents.pop.handle import ReceiptHandle
from mqbase import serving
from mqbase.clock import Clock, wall_ms
from mqbase.grpc_guard import AioDecodeGuard
from mqbase.proto import agent_pb2 as apb
from mqbase.security import SecurityConfig, accounts
from mqbase.serving import peer_address

log = logging.getLogger(__name__)

WORKERS = 128
"""Threads for calls to the masters, which block: each push consumer keeps one long-polling receive open per
assigned set."""
START_S = 10.0
SETS_WAIT_S = 2.0
"""How long a request waits for the broker sets to be read when none serving its topic is known yet."""
NOT_IMPLEMENTED = (
    "PullMessage",
    "UpdateOffset",
    "GetOffset",
    "QueryOffset",
    "EndTransaction",
    "RecallMessage",
    "SyncLiteSubscription",
)


def status(code: Code, message: str = "") -> Any:
    return v2.Status(code=code, message=message)


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


class Host(Managers, Protocol):
    """What the access point needs of its agent."""

    @property
    def proxy_address(self) -> str: ...


class MessagingServicer(stubs.MessagingServiceServicer):  # type: ignore[misc]
    """``apache.rocketmq.v2.MessagingService`` over a ``Cluster`` and a ``Forwarder``."""

    def __init__(
        self,
        cluster: Cluster,
        forwarder: Forwarder,
        renewer: Renewer,
        secrets: dict[str, str] | None,
        own: Callable[[], str],
        clock: Clock,
        connections: Connections | None = None,
    ):
        self._cluster = cluster
        self._clock = clock
        self.connections = connections or Connections()
        self._forward = forwarder
        self._renewer = renewer
        self._secrets = secrets
        self._own = own
        self._turn = itertools.count()

    # --- helpers ------------------------------------------------------------------------------------

    @staticmethod
    def _headers(context: Any) -> dict[str, str]:
        return {k: v for k, v in context.invocation_metadata() or () if isinstance(v, str)}

    def _refused(self, context: Any) -> Problem | None:
        return auth.call_problem(self._headers(context), self._secrets)

    def _deadline(self, context: Any) -> float:
        left = context.time_remaining()
        return self._clock.monotonic() + (left if left is not None else timing.DEFAULT_TIMEOUT_S)

    async def _topic(self, name: str) -> Topic | Problem:
        """The topic as the controllers have it; one unknown to the table is looked up again (a blocking,
        rate-limited read, off the loop), as it may be newer than the table."""
        if problem := topic_problem(name):
            return problem
        topic = self._cluster.metadata().topics.get(name)
        if topic is None:
            topic = (await asyncio.to_thread(self._cluster.reread_metadata)).topics.get(name)
        if topic is None:
            return Problem(
                Code.TOPIC_NOT_FOUND,
                f"topic {name} not found; create it first: "
                f"mqadmin updateTopic -t {name} -c {self._cluster.cluster_name()}",
            )
        return topic

    async def _sets(self, topic: Topic) -> list[BrokerSet]:
        """The known broker sets serving `topic`; none known yet (the access point is starting): asks for a
        refresh and waits for it a little."""
        for _ in range(int(SETS_WAIT_S / timing.POLL_S)):
            known = [s for s in self._cluster.sets() if s.name in topic.broker_names]
            if known:
                return known
            self._cluster.nudge()
            await asyncio.sleep(timing.POLL_S)
        return [s for s in self._cluster.sets() if s.name in topic.broker_names]

    async def _route(self, topic: Topic, request: Any) -> list[Any]:
        """The route of `topic` for a QueryRoute or QueryAssignment `request` (its endpoints and namespace)."""
        listed = routes.endpoints(request.endpoints, self._own())
        return routes.message_queues(topic, await self._sets(topic), listed, request.topic.resource_namespace,
                                     self._cluster.metadata().write_wiped)  # fmt: skip

    # --- route, settings, liveness --------------------------------------------------------------------

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
        if problem := self._refused(context):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT if problem.code == Code.CLIENT_ID_REQUIRED
                                else grpc.StatusCode.UNAUTHENTICATED, problem.message)  # fmt: skip
        async for command in request_iterator:
            if not command.HasField("settings"):
                continue  # thread stacks, verify results: nothing asked them
            client = command.settings
            group = None
            if client.WhichOneof("pub_sub") == "subscription":
                group = self._cluster.metadata().groups.get(client.subscription.group.name)
            answer = settings.merged(client, group)
            if answer is None:
                await context.abort(
                    grpc.StatusCode.INVALID_ARGUMENT, "settings hold neither publishing nor subscription"
                )
            self.connections.announce(_connection(client, self._headers(context), context, self._clock))
            yield service.TelemetryCommand(status=status(Code.OK, "OK"), settings=answer)

    # --- sending ------------------------------------------------------------------------------------

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
                                        offset=r.queue_offset)
                for m, r in zip(request.messages, answer.placed, strict=True)
            ],
        )  # fmt: skip

    # --- consuming ----------------------------------------------------------------------------------

    async def ReceiveMessage(self, request: Any, context: Any) -> AsyncIterator[Any]:
        def done() -> Any:
            end = service.ReceiveMessageResponse()
            end.delivery_timestamp.GetCurrentTime()
            return end

        problem = self._refused(context) or group_problem(request.group.name)
        topic = problem or await self._topic(request.message_queue.topic.name)
        if isinstance(topic, Problem):
            yield service.ReceiveMessageResponse(status=status(topic.code, topic.message))
            yield done()
            return
        broker_name = request.message_queue.broker.name
        if broker_name not in topic.broker_names:
            yield service.ReceiveMessageResponse(
                status=status(Code.BAD_REQUEST, f"broker set {broker_name!r} does not serve topic {topic.name}")
            )
            yield done()
            return
        invisible = timing.invisible_ms(request.auto_renew, request.invisible_duration.ToMilliseconds())

        def make(deadline: float) -> Any:
            polling = timing.long_polling_ms(
                request.long_polling_timeout.ToMilliseconds(), self._clock.monotonic(), deadline
            )
            return apb.ReceiveMessageRequest(
                group=request.group.name,
                topic=topic.name,
                filter_expression=request.filter_expression.expression,
                batch_size=request.batch_size,
                invisible_millis=invisible,
                long_polling_millis=polling,
                attempt_id=request.attempt_id,
            )

        try:
            answer = await self._forward.receive(broker_name, make, self._deadline(context))
        except timing.GaveUp as exc:
            yield service.ReceiveMessageResponse(status=status(exc.problem.code, exc.problem.message))
            yield done()
            return
        code = consumer_code(answer.code, answer.pop_code)
        if code == Code.OK and not answer.messages:
            code = Code.MESSAGE_NOT_FOUND
        yield service.ReceiveMessageResponse(status=status(code, answer.remark or code.name))
        namespace = request.message_queue.topic.resource_namespace
        client_id = self._headers(context)[auth.CLIENT_ID]
        for received in answer.messages:
            if request.auto_renew:
                self._renewer.track(client_id, broker_name, request.group.name, topic.name, received.receipt_handle,
                                    received.invisible_until_millis)  # fmt: skip
            yield service.ReceiveMessageResponse(message=delivered(received, namespace))
        yield done()

    def _handle(self, text: str, group: str, topic: str) -> ReceiptHandle | Problem:
        handle = timing.receipt(text, wall_ms(self._clock))
        if isinstance(handle, ReceiptHandle) and (handle.group, handle.topic) != (group, topic):
            return Problem(Code.INVALID_RECEIPT_HANDLE, f"the receipt handle is for {handle.group}/{handle.topic}")
        return handle

    async def _one_handle(self, request: Any, context: Any) -> tuple[str, ReceiptHandle] | Problem:
        """A single-handle request's handle as the renewer holds it now (a push consumer's may have been renewed
        since the client read it), decoded and checked against the request's group and topic; or why not."""
        if problem := self._refused(context) or group_problem(request.group.name):
            return problem
        text = await self._renewer.take(request.receipt_handle)
        handle = self._handle(text, request.group.name, request.topic.name)
        return handle if isinstance(handle, Problem) else (text, handle)

    async def AckMessage(self, request: Any, context: Any) -> Any:
        if problem := self._refused(context) or group_problem(request.group.name):
            return service.AckMessageResponse(status=status(problem.code, problem.message))
        group, topic = request.group.name, request.topic.name
        results: dict[int, Any] = {}
        by_set: dict[str, list[int]] = {}
        current = [await self._renewer.take(entry.receipt_handle) for entry in request.entries]
        for i, text in enumerate(current):
            handle = self._handle(text, group, topic)
            if isinstance(handle, Problem):
                results[i] = status(handle.code, handle.message)
            else:
                by_set.setdefault(handle.broker_name, []).append(i)
        deadline = self._deadline(context)
        for broker_name, indexes in by_set.items():
            handles = [current[i] for i in indexes]
            ack = apb.AckMessageRequest(group=group, topic=topic, receipt_handles=handles)
            try:
                answer = await self._forward.ack(broker_name, ack, deadline)
            except timing.GaveUp as exc:
                results.update((i, status(exc.problem.code, exc.problem.message)) for i in indexes)
                continue
            for n, i in enumerate(indexes):
                if answer.code != 0 or n >= len(answer.results):
                    code = consumer_code(answer.code, 0)
                    results[i] = status(code, answer.remark or code.name)
                else:
                    r = answer.results[n]
                    code = consumer_code(r.code, r.pop_code)
                    results[i] = status(code, r.remark or code.name)
        entries = [
            service.AckMessageResultEntry(message_id=e.message_id, receipt_handle=e.receipt_handle, status=results[i])
            for i, e in enumerate(request.entries)
        ]
        codes = {results[i].code for i in results}
        if not codes:
            top = status(Code.BAD_REQUEST, "no receipt handle to ack")
        elif len(codes) == 1:
            top = entries[0].status
        else:
            top = status(Code.MULTIPLE_RESULTS, "the entries have different results")
        return service.AckMessageResponse(status=top, entries=entries)

    async def ChangeInvisibleDuration(self, request: Any, context: Any) -> Any:
        def refused(code: Code, message: str) -> Any:  # the client keeps the handle it gets back, refused too
            return service.ChangeInvisibleDurationResponse(
                status=status(code, message), receipt_handle=request.receipt_handle
            )

        found = await self._one_handle(request, context)
        if isinstance(found, Problem):
            return refused(found.code, found.message)
        text, handle = found
        change = apb.ChangeInvisibleDurationRequest(
            group=request.group.name,
            topic=request.topic.name,
            receipt_handle=text,
            invisible_millis=request.invisible_duration.ToMilliseconds(),
        )
        try:
            answer = await self._forward.change_invisible(handle.broker_name, change, self._deadline(context))
        except timing.GaveUp as exc:
            return refused(exc.problem.code, exc.problem.message)
        code = consumer_code(answer.code, answer.pop_code)
        return service.ChangeInvisibleDurationResponse(
            status=status(code, answer.remark or code.name),
            receipt_handle=answer.receipt_handle or request.receipt_handle,
        )

    async def ForwardMessageToDeadLetterQueue(self, request: Any, context: Any) -> Any:
        """A FIFO push consumer gives up a message: the master copies it into ``%DLQ%<group>`` and acks it."""

        def answer(code: Code, message: str) -> Any:
            return service.ForwardMessageToDeadLetterQueueResponse(status=status(code, message))

        found = await self._one_handle(request, context)
        if isinstance(found, Problem):
            return answer(found.code, found.message)
        text, handle = found
        ack = apb.AckMessageRequest(
            group=request.group.name,
            topic=request.topic.name,
            receipt_handles=[text],
            dead_letter=True,
        )
        try:
            done = await self._forward.ack(handle.broker_name, ack, self._deadline(context))
        except timing.GaveUp as exc:
            return answer(exc.problem.code, exc.problem.message)
        if done.code != 0 or not done.results:
            code = consumer_code(done.code, 0)
            return answer(code, done.remark or code.name)
        code = consumer_code(done.results[0].code, done.results[0].pop_code)
        return answer(code, done.results[0].remark or code.name)


def _not_implemented(name: str) -> Callable[..., Any]:
    response_type = getattr(service, f"{name}Response")

    async def answer(self: MessagingServicer, request: Any, context: Any) -> Any:
        return response_type(status=status(Code.NOT_IMPLEMENTED, f"{name} is not implemented by this access point"))

    return answer


for _name in NOT_IMPLEMENTED:
    setattr(MessagingServicer, _name, _not_implemented(_name))


class AccessPoint:
    """The aio server of the access point on a thread and loop of its own (like ``EmbeddedController``)."""

    def __init__(self, host: Host, listen_host: str, port: int, security: SecurityConfig, clock: Clock) -> None:
        self._host = host
        self._clock = clock
        self._address = f"{listen_host}:{port}"
        # The RocketMQ clients have no client certificate to give: TLS here never asks for one.
        self._security = replace(security, tls_client_auth=False)
        client = security.client()
        self.port = 0
        self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="access")
        self.cluster = Cluster(host, client, clock)
        self._forwarder = Forwarder(self.cluster, client, self._pool, clock)
        secrets = {ak: secret for ak, (secret, _role) in accounts(security).items()} if security.acl_enable else None
        forward = self._forwarder
        self._renewer = Renewer(forward.change_invisible, clock)
        self._servicer = MessagingServicer(
            self.cluster, forward, self._renewer, secrets, lambda: host.proxy_address, clock
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: Exception | None = None
        self._thread = threading.Thread(target=self._run, name="access-point", daemon=True)

    def connections(self, group: str = "", topic: str = "") -> list[Connection]:
        """The clients connected through this access point now (``Connections.alive``)."""
        return self._servicer.connections.alive(self._clock.monotonic(), group=group, topic=topic)

    def start(self) -> int:
        """Serve; returns the bound port (``serving.BindError`` when the address cannot be bound)."""
        self._thread.start()
        if not self._ready.wait(START_S):
            raise serving.BindError(f"access point not serving within {START_S:g} s")
        if self._error is not None:
            raise self._error
        self.cluster.start()
        return self.port

    def stop(self) -> None:
        """Stop serving (open calls get 0.5 s to end), then the refresh thread and the call pool."""
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and self._thread.is_alive():
            loop.call_soon_threadsafe(stopping.set)
            self._thread.join(START_S)
        self.cluster.stop()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._forwarder.close()

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except Exception as exc:
            self._error = exc
            self._ready.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        server = grpc.aio.server(
            interceptors=[AioDecodeGuard()],  # the RocketMQ signature is checked by the servicer (auth.py)
            # Bodies up to 4 MiB plus properties; without reuseport a second process cannot bind the same port.
            options=[("grpc.max_receive_message_length", 16 * 1024 * 1024), ("grpc.so_reuseport", 0)],
        )
        stubs.add_MessagingServiceServicer_to_server(self._servicer, server)
        checker = health.aio.HealthServicer()
        await checker.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
        serving.add_health_and_reflection(server, SERVICE_NAME, checker)
        self.port = serving.bind(server, self._address, self._security)
        await server.start()
        renewals = asyncio.create_task(self._renewer.run())
        log.info(
            "access point (RocketMQ 5 gRPC, %s) serving on %s",
            SERVICE_NAME,
            self._address.rsplit(":", 1)[0] + f":{self.port}",
        )
        self._ready.set()
        await self._stopping.wait()
        renewals.cancel()
        await server.stop(0.5)
