"""What every RPC of the access point shares: the call's headers, signature check and deadline, and the topic and
broker sets a request names, read from the controllers' metadata (``Cluster``)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

from agents.access import auth, routes, timing
from agents.access.cluster import Cluster
from agents.access.codes import Code
from agents.access.connections import Connections
from agents.access.forwarder import Forwarder
from agents.access.protocol import v2
from agents.access.renewals import Renewer
from agents.access.routes import BrokerSet
from agents.access.streams import Streams
from agents.access.validation import Problem, topic_problem
from agents.metadata import Topic
from mqbase.clock import Clock

SETS_WAIT_S = 2.0
"""How long a request waits for the broker sets to be read when none serving its topic is known yet."""


def status(code: Code, message: str = "") -> Any:
    return v2.Status(code=code, message=message)


class Calls:
    """The parts the RPC groups (``route_rpcs``, ``send_rpcs``, ``consume_rpcs``, ``transaction_rpcs``) share, and
    their helpers."""

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
        self.streams = Streams()
        self._forward = forwarder
        self._renewer = renewer
        self._secrets = secrets
        self._own = own
        self._turn = itertools.count()

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
