"""What a broker learnt of the cluster metadata: topics and subscription groups, as pure data.

The controller's replicated state is the truth; the agent keeps the copy it last read with GetMetadata, tagged
with the controller's ``metadata_version``. A push announces a version (``RoleChangeNotification``'s optional
``metadata_version``) and the periodic poll (``syncBrokerMetadataPeriod``) reads it anyway, so a lost push costs
one period at most. ``learn`` never goes back to an older version, whichever answer arrives last.

``send_verdict`` decides whether a send may write: the topic must be known, served by this broker set and
writable. An unknown topic is refused (TOPIC_NOT_EXIST) unless ``autoCreateTopicEnable`` asks the controller to
create it. A refusal the table may explain by being old is worth one re-read first (``reread_due`` bounds how
often), since a topic created a moment ago may not have reached the broker yet.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from mqbase.codes import ResponseCode
from mqbase.metadata import DEFAULT_QUEUE_NUMS, PERM_WRITE, SYSTEM_TOPICS, send_problem, topic_problem
from mqbase.retry import DEFAULT_RETRY_POLICY, RetryPolicy

MESSAGE_GROUP = "__SHARDINGKEY"
"""The property that carries a message's message group (RocketMQ's ``PROPERTY_SHARDING_KEY``)."""
UNIQ_KEY, TAGS, KEYS = "UNIQ_KEY", "TAGS", "KEYS"
"""RocketMQ's properties of a message's id (the producer's, kept by the broker), tag and keys."""
BORN_HOST, BORN_TIMESTAMP = "BORN_HOST", "BORN_TIMESTAMP"
"""Properties the agent stamps on a message that arrives without them: the producer's ip:port as the broker saw
it, and the receive time in ms. RocketMQ keeps bornHost and bornTimestamp in the record header; we keep them as
properties so the record format stays as it is (docs/storage.md)."""
REREAD_INTERVAL_S = 1.0
"""At most one re-read of the metadata per this many seconds for sends the table refuses: a producer sending to
a topic that does not exist must not turn every send into a controller call."""


@dataclass(frozen=True, slots=True)
class Topic:
    """A topic as the controller has it (``TopicConfig``); ``perm`` is RocketMQ's 2 = W, 4 = R, 6 = RW."""

    name: str
    broker_names: frozenset[str]
    read_queue_nums: int
    write_queue_nums: int
    perm: int
    message_type: str = "NORMAL"


@dataclass(frozen=True, slots=True)
class Group:
    """A subscription group as the controller has it (``SubscriptionGroupConfig``); a controller before retry
    policies sends none, which reads as Java's customized levels."""

    name: str
    broker_names: frozenset[str]
    consume_orderly: bool
    retry_max_times: int
    consume_enable: bool
    retry_policy: RetryPolicy = DEFAULT_RETRY_POLICY


@dataclass(frozen=True, slots=True)
class MetadataTable:
    """The topics and groups of one cluster, as of the controller's ``version`` (-1: nothing learnt yet), and the
    broker sets whose write permission is wiped (``wipeWritePerm``)."""

    version: int = -1
    topics: Mapping[str, Topic] = field(default_factory=lambda: MappingProxyType({}))
    groups: Mapping[str, Group] = field(default_factory=lambda: MappingProxyType({}))
    write_wiped: frozenset[str] = frozenset()

    def served_by(self, broker_name: str) -> tuple[str, ...]:
        """The topics that broker set serves, by name."""
        return tuple(sorted(t.name for t in self.topics.values() if broker_name in t.broker_names))

    def groups_of(self, broker_name: str) -> tuple[str, ...]:
        """The subscription groups that broker set serves, by name."""
        return tuple(sorted(g.name for g in self.groups.values() if broker_name in g.broker_names))


def stale(table: MetadataTable, announced: int) -> bool:
    """Should a push announcing metadata version `announced` make the broker re-read? Only when newer."""
    return announced > table.version


def learn(
    table: MetadataTable, version: int, topics: Iterable[Topic], groups: Iterable[Group],
    write_wiped: Iterable[str] = (),
) -> MetadataTable:  # fmt: skip
    """The table after reading `version`; an answer older than what is held (a slow poll) changes nothing."""
    if version < table.version:
        return table
    return MetadataTable(
        version,
        MappingProxyType({t.name: t for t in topics}),
        MappingProxyType({g.name: g for g in groups}),
        frozenset(write_wiped),
    )


def write_queue_nums(table: MetadataTable, topic: str) -> int:
    """How many queues a send to `topic` spreads over: its ``writeQueueNums``, or DEFAULT_QUEUE_NUMS if unknown."""
    known = table.topics.get(topic)
    return known.write_queue_nums if known is not None and known.write_queue_nums > 0 else DEFAULT_QUEUE_NUMS


def read_queue_nums(table: MetadataTable, topic: str) -> int:
    """How many queues a reader of `topic` reads: its ``readQueueNums``, or DEFAULT_QUEUE_NUMS if unknown."""
    known = table.topics.get(topic)
    return known.read_queue_nums if known is not None and known.read_queue_nums > 0 else DEFAULT_QUEUE_NUMS


def reader_queue_nums(table: MetadataTable, topic: str, stored: Iterable[int]) -> int:
    """How many queues a reader of `topic` should read on a replica that learnt `table` and stores the queues
    `stored`: the learnt ``readQueueNums``, or past it up to the highest queue stored (a table not learnt since a
    restart with every controller down is empty, and the store still holds the queues); 0 for a topic it neither
    knows nor stores."""
    known = table.topics.get(topic)
    return max([known.read_queue_nums if known is not None else 0, *(q + 1 for q in stored)])


def queue_id_problem(topic: str, requested: int, write_queues: int) -> str | None:
    """Why a send may not name queue `requested` of `topic` (None: it may, or it names none). A queue past the
    topic's `write_queues` is one no reader of the topic reads, so a message put there would be acknowledged and
    never delivered; the broker refuses it as Java's ``msgCheck`` does (SYSTEM_ERROR). Java also admits a queue
    below ``readQueueNums``; we keep to the write queues, which are the ones a send may use."""
    if requested < write_queues:
        return None
    return (
        f"request queueId[{requested}] is illegal, topic:[{topic}] topicConfig.writeQueueNums:[{write_queues}]: "
        f"send to a queue 0-{write_queues - 1}, or name none"
    )


def queue_for_send(requested: int, properties: Mapping[str, str], queues: int, turn: int) -> int:
    """The queue a message goes to: the one the producer asked for (``requested`` >= 0); else its message group's,
    a stable hash (CRC-32 of the UTF-8 name) over `queues`, so one message group stays in one queue and in order,
    as RocketMQ's proxy hashes it; else the `turn`-th queue round robin."""
    if requested >= 0:
        return requested
    group = properties.get(MESSAGE_GROUP)
    if group:
        return zlib.crc32(group.encode("utf-8")) % queues
    return turn % queues


@dataclass(frozen=True, slots=True)
class Allowed:
    """The send may write, spread over the topic's ``writeQueueNums``."""

    write_queue_nums: int


@dataclass(frozen=True, slots=True)
class Refused:
    """The send is refused with RocketMQ `code` and `remark`; `learnable`: a newer table might allow it."""

    code: int
    remark: str
    learnable: bool = True


@dataclass(frozen=True, slots=True)
class Create:
    """The topic is unknown and autoCreateTopicEnable is on: ask the controller to create it, then decide again."""


SendVerdict = Allowed | Refused | Create
CREATE = Create()


def send_verdict(
    table: MetadataTable, topic: str, broker_name: str, cluster_name: str, auto_create: bool
) -> SendVerdict:
    """May a send of `topic` to broker set `broker_name` write, by what the broker learnt (`table`)?

    The broker's own topics are refused whatever the table says, and a name no topic can have is
    MESSAGE_ILLEGAL, as the record format would refuse it; a known topic must be served by this set and
    carry the write bit (perm 2 or 6); an unknown one is TOPIC_NOT_EXIST with Java's remark and the command that
    creates it, or CREATE when `auto_create` (and the name is one an operator could create). A broker that has
    learnt nothing yet cannot tell, and asks for a retry (SERVICE_NOT_AVAILABLE) rather than deny the topic.
    """
    forbidden = send_problem(topic)
    if forbidden is not None:
        return Refused(ResponseCode.NO_PERMISSION, forbidden, learnable=False)
    invalid = topic_problem(topic)
    if invalid is not None and topic not in SYSTEM_TOPICS:  # blank, illegal characters, too long: no topic's name
        return Refused(ResponseCode.MESSAGE_ILLEGAL, invalid, learnable=False)
    known = table.topics.get(topic)
    if known is None and table.version < 0:
        return Refused(
            ResponseCode.SERVICE_NOT_AVAILABLE,
            f"broker set {broker_name} has not learnt the topics from the controller yet; retry",
        )
    if known is None:
        if invalid is not None:  # a system topic's name: no operator, and so no send, may create it
            return Refused(ResponseCode.TOPIC_NOT_EXIST, f"topic[{topic}] not exist, and cannot be created: {invalid}")
        if auto_create:
            return CREATE
        return Refused(
            ResponseCode.TOPIC_NOT_EXIST,
            f"topic[{topic}] not exist, apply first please! Create it: "
            f"mqadmin updateTopic -t {topic} -c {cluster_name}",
        )
    if broker_name not in known.broker_names:
        serving = ", ".join(sorted(known.broker_names)) or "none"
        return Refused(
            ResponseCode.NO_PERMISSION,
            f"topic[{topic}] is not served by broker set {broker_name} (served by: {serving}); send to those, or "
            f"add this set: mqadmin updateTopic -t {topic} -b {broker_name}",
        )
    if broker_name in table.write_wiped:
        return Refused(
            ResponseCode.NO_PERMISSION,
            f"the broker[{broker_name}] sending message is forbidden (its write permission is wiped); allow writes: "
            f"mqadmin addWritePerm -b {broker_name}",
        )
    if not known.perm & PERM_WRITE:
        return Refused(
            ResponseCode.NO_PERMISSION,
            f"the topic[{topic}] sending message is forbidden (perm {known.perm} has no write bit 2); allow writes: "
            f"mqadmin updateTopic -t {topic} -c {cluster_name} -p 6",
        )
    return Allowed(write_queue_nums(table, topic))


def reread_due(last_reread: float | None, now: float, interval_s: float = REREAD_INTERVAL_S) -> bool:
    """May a refused send re-read the metadata at `now` (monotonic seconds), the last re-read having started at
    `last_reread` (None: never)? At most once per `interval_s`, whatever the topics."""
    return last_reread is None or now - last_reread >= interval_s
