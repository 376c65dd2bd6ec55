"""TopicsTable: a broker's topics and subscription groups as last read from the controller, and the calls that
change them from the broker's side (auto-created topics, dead-letter topics).

The table only moves forward (``metadata.learn``): a push names a newer version and is read at once, the worker
polls it every ``syncBrokerMetadataPeriod``, and a send the table refuses may re-read it once (rate-limited), as the
topic may be newer than the table.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from agents.broker import convert
from agents.broker.controller_link import ControllerLink
from agents.config import BrokerConfig
from agents.metadata import MetadataTable, learn, reread_due
from mqbase.clock import Clock
from mqbase.codes import ResponseCode
from mqbase.metadata import DEFAULT_QUEUE_NUMS, MESSAGE_TYPE, PERM_READ, PERM_WRITE
from mqbase.proto import controller_pb2 as pb

log = logging.getLogger(__name__)


class TopicsTable:
    """See the module docstring; `on_learnt(before, after)` runs after each newer table is kept."""

    def __init__(
        self,
        config: Callable[[], BrokerConfig],
        link: ControllerLink,
        clock: Clock,
        on_learnt: Callable[[MetadataTable, MetadataTable], None],
    ) -> None:
        self._config = config
        self._link = link
        self._clock = clock
        self._on_learnt = on_learnt
        self._lock = threading.Lock()
        self._table = MetadataTable()
        self._last_reread: float | None = None  # when a refused send last re-read the table (monotonic)

    def _name(self) -> str:
        c = self._config()
        return f"{c.broker_cluster_name}/{c.broker_name}"

    @property
    def table(self) -> MetadataTable:
        with self._lock:
            return self._table

    def read(self) -> None:
        """Read the topics and groups (GetMetadata, on the leader) and keep them if not older than the table's."""
        response = self._link.call("GetMetadata", pb.GetMetadataRequest())
        if response.code != ResponseCode.SUCCESS:
            log.info("%s: GetMetadata answered %d: %s", self._name(), response.code, response.remark)
            return
        topics, groups = convert.metadata_of(response, self._config().broker_cluster_name)
        with self._lock:
            before = self._table
            wiped = response.write_wiped_broker_names
            self._table = after = learn(before, response.metadata_version, topics, groups, wiped)
            learnt = after is not before and after.version != before.version
        if learnt:
            log.info("%s: learnt metadata version %d", self._name(), response.metadata_version)
            self._on_learnt(before, after)

    def reread(self, *, limited: bool = True) -> bool:
        """Re-read for a send the table refuses: the topic may be newer than the table (its push not yet here).
        `limited`: not if a re-read started within ``REREAD_INTERVAL_S`` (False then). Raises MqError when no
        controller answers; bounded by the link's call timeout."""
        now = self._clock.monotonic()
        with self._lock:
            if limited and not reread_due(self._last_reread, now):
                return False
            self._last_reread = now
        self.read()
        return True

    def create_topic(
        self, topic: str, queues: int = DEFAULT_QUEUE_NUMS, why: str = "autoCreateTopicEnable"
    ) -> pb.MetadataChangeResponse:
        """Ask the controller to create `topic` served by this broker set (or to add this set to it): `queues`
        read and write queues (Java's default), perm RW, NORMAL; then learn the table it answers. Raises MqError
        when unreachable."""
        request = pb.UpdateTopicRequest(
            broker_name=self._config().broker_name,
            topic_name=topic,
            read_queue_nums=queues,
            write_queue_nums=queues,
            perm=PERM_READ | PERM_WRITE,
            attributes=[f"+{MESSAGE_TYPE}=NORMAL"],
        )
        response: pb.MetadataChangeResponse = self._link.call("UpdateTopic", request)
        if response.code == ResponseCode.SUCCESS:
            log.info("%s: created topic %s (%s)", self._name(), topic, why)
            self.read()
        else:
            log.warning("%s: creating topic %s (%s) failed: %d %s", self._name(), topic, why, response.code,
                        response.remark)  # fmt: skip
        return response
