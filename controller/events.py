"""Events: the only thing the Raft log carries (Java's ``EventMessage`` types).

The leader computes events from a request and its liveness facts; every node
applies them. Each event carries the preconditions it was computed under
(``expected_*`` epochs), and ``apply_event`` re-checks them, so an event that
went stale between compute and commit (a leader change in between) is a
no-op instead of a corruption. Fields added after release have defaults, so
log entries written before them still decode.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from controller.model import SubscriptionGroup, TopicConfig


@dataclass(frozen=True, slots=True)
class ApplyBrokerId:
    """APPLY_BROKER_ID_EVENT (2): register a broker id; creates the set on first use."""

    cluster_name: str
    broker_name: str
    broker_address: str
    broker_id: int
    register_check_code: str
    ha_address: str = ""


@dataclass(frozen=True, slots=True)
class UpdateBrokerAddress:
    """UPDATE_BROKER_ADDRESS (6): a registered broker came back on another address or HA address."""

    cluster_name: str
    broker_name: str
    broker_address: str
    broker_id: int
    ha_address: str = ""


@dataclass(frozen=True, slots=True)
class ElectMaster:
    """ELECT_MASTER_EVENT (3): ``new_master_id`` None means "no master could be elected".

    Elected: master = new, masterEpoch + 1, SyncStateSet = {new}, its epoch + 1.
    Not elected: master cleared, masterEpoch + 1, SyncStateSet kept.
    ``sync_state_set`` (ours, a graceful transfer): the SyncStateSet to keep instead of {new}, since every member
    was in sync with the old master and the new one has everything the old one had. A node of an older release
    ignores the field and takes {new}; the next AlterSyncStateSet, fenced by the same epoch, evens them out.
    """

    broker_name: str
    new_master_id: int | None
    expected_master_epoch: int
    sync_state_set: frozenset[int] | None = None


@dataclass(frozen=True, slots=True)
class AlterSyncStateSet:
    """ALTER_SYNC_STATE_SET_EVENT (1): replace the SyncStateSet, syncStateSetEpoch + 1."""

    broker_name: str
    new_sync_state_set: frozenset[int]
    expected_master_epoch: int
    expected_sync_state_set_epoch: int


@dataclass(frozen=True, slots=True)
class CleanBrokerData:
    """CLEAN_BROKER_DATA_EVENT (5): ``broker_ids`` None removes the whole set; a cleaned preferred id is unassigned."""

    broker_name: str
    broker_ids: frozenset[int] | None


@dataclass(frozen=True, slots=True)
class AssignPreferredMaster:
    """Ours: record the set's preferred master; ``broker_id`` None clears it.

    No-op when the set is gone or the id is no longer registered (a clean won the race).
    """

    broker_name: str
    broker_id: int | None


@dataclass(frozen=True, slots=True)
class SetGroupConfig:
    """Ours: set group-wide runtime config keys (Java names, canonical text) for every node.

    Fenced by ``expected_config_version``: a change decided on a config that another change has since replaced
    is a no-op, and every applied change bumps the version by one.
    """

    values: Mapping[str, str]
    expected_config_version: int


@dataclass(frozen=True, slots=True)
class UpdateTopic:
    """Ours: create or replace a topic's config with ``topic`` (the whole resulting config).

    Fenced by ``expected_metadata_version`` like ``SetGroupConfig``: decided on metadata that another change has
    since replaced, it is a no-op; every applied metadata event bumps the version by one.
    """

    topic: TopicConfig
    expected_metadata_version: int


@dataclass(frozen=True, slots=True)
class DeleteTopic:
    """Ours: remove a topic's metadata (its messages age out by retention)."""

    topic_name: str
    expected_metadata_version: int


@dataclass(frozen=True, slots=True)
class UpdateSubscriptionGroup:
    """Ours: create or replace a subscription group's config; fenced as ``UpdateTopic``."""

    group: SubscriptionGroup
    expected_metadata_version: int


@dataclass(frozen=True, slots=True)
class DeleteSubscriptionGroup:
    """Ours: remove a subscription group's metadata."""

    group_name: str
    expected_metadata_version: int


@dataclass(frozen=True, slots=True)
class SetBrokerWritePerm:
    """Ours: wipe (`writable` false) or give back a broker set's write permission; fenced as
    ``UpdateTopic``."""

    broker_name: str
    writable: bool
    expected_metadata_version: int


MetadataEvent = UpdateTopic | DeleteTopic | UpdateSubscriptionGroup | DeleteSubscriptionGroup | SetBrokerWritePerm
"""The events that change the cluster metadata (topics, subscription groups, broker sets' write permission)."""
BrokerSetEvent = (
    ApplyBrokerId | UpdateBrokerAddress | ElectMaster | AlterSyncStateSet | CleanBrokerData | AssignPreferredMaster
)
"""The events that change one broker set (``broker_name``)."""
Event = BrokerSetEvent | SetGroupConfig | MetadataEvent
