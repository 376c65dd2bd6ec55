"""The replicated controller state: frozen, plain data (Java's ``ReplicasInfoManager`` tables).

Invariants (kept by ``controller.state.apply_event``):

* a broker set exists once a broker id has been applied to it, and is removed
  when its last broker id is cleaned;
* ``master_epoch`` and ``sync_state_set_epoch`` never decrease;
* the master, when set, is a registered broker id and a member of the
  SyncStateSet at the moment it is elected;
* ``next_broker_id`` is always greater than every registered id;
* ``preferred_id``, when set, is a registered broker id;
* ``config_version`` never decreases, and counts the applied ``SetGroupConfig`` events;
* ``metadata_version`` never decreases, and counts the applied topic and subscription-group events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from mqbase.metadata import DEFAULT_QUEUE_NUMS, MESSAGE_TYPE, PERM_READ, PERM_WRITE
from mqbase.retry import DEFAULT_RETRY_POLICY, RetryPolicy

FIRST_BROKER_ID = 1
"""The first controller-assigned broker id (``MixAll.FIRST_BROKER_CONTROLLER_ID``)."""


@dataclass(frozen=True, slots=True)
class Replica:
    """A registered broker id of a broker set.

    ``ha_address`` (``host:haListenPort``) is where slaves replicate from while
    this broker is master; empty when the broker registered none (old clients).
    """

    broker_id: int
    address: str
    register_check_code: str
    ha_address: str = ""


@dataclass(frozen=True, slots=True)
class BrokerSet:
    """Everything the controller knows about one ``brokerName``.

    Java keeps this in two maps (``replicaInfoTable`` and
    ``syncStateSetInfoTable``); one record per set removes the states where
    only one of them exists. ``preferred_id`` is the operator-assigned
    preferred master (``assign-preferred-master``); elections honour it only
    while ``enablePreferredMaster`` is on.
    """

    cluster_name: str
    broker_name: str
    replicas: tuple[Replica, ...] = ()
    next_broker_id: int = FIRST_BROKER_ID
    master_id: int | None = None
    master_epoch: int = 0
    sync_state_set: frozenset[int] = frozenset()
    sync_state_set_epoch: int = 0
    preferred_id: int | None = None

    def replica(self, broker_id: int) -> Replica | None:
        """The replica with this id, or None."""
        for r in self.replicas:
            if r.broker_id == broker_id:
                return r
        return None

    def addresses_of(self, broker_id: int | None) -> tuple[str | None, str | None]:
        """The registered (address, HA address) of a broker id, or (None, None)."""
        r = None if broker_id is None else self.replica(broker_id)
        return (r.address, r.ha_address) if r else (None, None)

    @property
    def broker_ids(self) -> tuple[int, ...]:
        """Registered broker ids in ascending order."""
        return tuple(r.broker_id for r in self.replicas)

    @property
    def is_first_election(self) -> bool:
        """True until the first election event has been applied (``masterEpoch == 0``)."""
        return self.master_epoch == 0

    def with_replica(self, replica: Replica) -> BrokerSet:
        """A copy with `replica` added or replaced, ids kept sorted."""
        others = [r for r in self.replicas if r.broker_id != replica.broker_id]
        replicas = tuple(sorted([*others, replica], key=lambda r: r.broker_id))
        return replace(self, replicas=replicas)


DEFAULT_RETRY_MAX_TIMES = 16
"""A subscription group's ``retryMaxTimes`` unless set (Java's ``SubscriptionGroupConfig`` default)."""


@dataclass(frozen=True, slots=True)
class TopicConfig:
    """A topic as cluster metadata: its queues, permission and attributes, and the broker sets that serve it.

    One config for every broker set of the topic (Java keeps one per broker, usually equal). ``attributes``
    holds RocketMQ 5's topic attributes; ``message.type`` is the only one today, NORMAL when absent.
    """

    topic_name: str
    cluster_name: str
    broker_names: frozenset[str]
    read_queue_nums: int = DEFAULT_QUEUE_NUMS
    write_queue_nums: int = DEFAULT_QUEUE_NUMS
    perm: int = PERM_READ | PERM_WRITE
    attributes: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def message_type(self) -> str:
        return self.attributes.get(MESSAGE_TYPE, "NORMAL")


@dataclass(frozen=True, slots=True)
class SubscriptionGroup:
    """A consumer (subscription) group as cluster metadata (Java's ``SubscriptionGroupConfig``, in part).

    ``consume_orderly`` makes it a FIFO group; ``retry_max_times`` bounds redeliveries before the dead-letter
    topic, and ``retry_policy`` is the backoff between them; ``consume_enable`` false stops its consumption without
    deleting it.
    """

    group_name: str
    cluster_name: str
    broker_names: frozenset[str]
    consume_orderly: bool = False
    retry_max_times: int = DEFAULT_RETRY_MAX_TIMES
    consume_enable: bool = True
    retry_policy: RetryPolicy = DEFAULT_RETRY_POLICY


@dataclass(frozen=True, slots=True)
class ControllerState:
    """All broker sets, keyed by broker name, the group's runtime config, and the cluster metadata. Immutable.

    ``config`` holds the runtime keys set for the whole group (Java names, canonical text); on every node they
    override the node's config file. A key absent here takes each node's file value.
    ``topics`` and ``groups`` (subscription groups) are keyed by name; ``metadata_version`` fences their changes
    and tells agents whether what they learnt is current.
    """

    broker_sets: Mapping[str, BrokerSet] = field(default_factory=lambda: MappingProxyType({}))
    config: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    config_version: int = 0
    topics: Mapping[str, TopicConfig] = field(default_factory=lambda: MappingProxyType({}))
    groups: Mapping[str, SubscriptionGroup] = field(default_factory=lambda: MappingProxyType({}))
    metadata_version: int = 0
    write_wiped: frozenset[str] = frozenset()
    """Broker sets whose write permission is wiped (Java's ``wipeWritePerm``): part of the metadata."""

    def get(self, broker_name: str) -> BrokerSet | None:
        """The broker set with this name, or None."""
        return self.broker_sets.get(broker_name)

    def __iter__(self) -> Iterator[BrokerSet]:
        return iter(self.broker_sets.values())

    def __len__(self) -> int:
        return len(self.broker_sets)


@dataclass(frozen=True, slots=True)
class LiveInfo:
    """What the leader's heartbeat table says about one alive broker (Java's ``BrokerLiveInfo``)."""

    broker_address: str = ""
    epoch: int = -1
    max_offset: int = -1
    confirm_offset: int = -1
    election_priority: int = 2**31 - 1
    async_learner: bool = False


AliveView = Mapping[tuple[str, int], LiveInfo]
"""Alive brokers only, keyed by ``(brokerName, brokerId)``: the liveness facts a decision reads."""


def alive_in_set(alive: AliveView, bs: BrokerSet) -> dict[int, LiveInfo]:
    """The set's registered brokers that are alive, by id (an alive id that is not registered does not count)."""
    return {i: alive[(bs.broker_name, i)] for i in bs.broker_ids if (bs.broker_name, i) in alive}


Clock = Callable[[], float]
"""A monotonic clock in seconds, injected wherever a decision reads the time, so tests can set it."""
