"""What a broker's worker thread handles, in order: a closed union, dispatched with ``match`` and ``assert_never``
(``ReplicasManager._handle``), as the controller's ``state.apply_events`` does."""

from __future__ import annotations

from dataclasses import dataclass

from agents.broker.roles import View


@dataclass(frozen=True, slots=True)
class RoleChanged:
    """The controller pushed a role change (over the heartbeat stream or NotifyBrokerRoleChanged)."""

    view: View


@dataclass(frozen=True, slots=True)
class MetadataChanged:
    """The controller pushed a new version of the topics and groups."""

    version: int


@dataclass(frozen=True, slots=True)
class Proposed:
    """The HA master proposes a new SyncStateSet (reported with AlterSyncStateSet)."""

    sync_state_set: frozenset[int]


@dataclass(frozen=True, slots=True)
class Poll:
    """The periodic GetReplicaInfo and GetMetadata (also asked for at once by a closed write gate)."""


@dataclass(frozen=True, slots=True)
class Check:
    """RIP-32's acting check between polls (no election, no metadata read)."""


@dataclass(frozen=True, slots=True)
class LearnMembers:
    """Learn the set's registered ids again (aclEnable: an HA connection was refused)."""


@dataclass(frozen=True, slots=True)
class ReadMetadata:
    """Read the topics and groups now (start-up)."""


@dataclass(frozen=True, slots=True)
class DeadLetters:
    """The set stored dead letters in these topics: create the ones it does not serve yet."""

    topics: frozenset[str]


@dataclass(frozen=True, slots=True)
class Stop:
    """The broker stops: the worker ends."""


WorkerEvent = RoleChanged | MetadataChanged | Proposed | Poll | Check | LearnMembers | ReadMetadata | DeadLetters | Stop
