"""What a broker does with what the controller tells it: pure decisions, no I/O (Java's
``ReplicasManager.changeBrokerRole``).

The ReplicasManager feeds every controller answer (GetReplicaInfo, RegisterBroker, ElectMaster) and every
pushed role change through ``decide`` and executes the one decision it returns. Java's rules, kept:

* a role change happens only for a masterEpoch higher than the local one (a stale push or a slow poll
  answer never undoes a newer change);
* with a higher epoch and no master, the broker asks for an election (the survivors keep asking, each
  poll, until someone is elected);
* at the same epoch a master takes a newer SyncStateSet (higher syncStateSetEpoch);
* whenever the controller knows no alive master, the broker asks for an election (the first start of a set,
  or a master the controller expired and could not yet replace); the controller decides who qualifies.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.ha.role import Role


@dataclass(frozen=True, slots=True)
class Local:
    """What the broker holds now."""

    broker_id: int
    role: Role
    master_epoch: int
    sync_state_set_epoch: int
    sync_state_set_unsettled: bool = False
    """As master: a dropped proposal's members are counted until the controller's set is known again
    (``SyncState.unsettled``), so its set is taken even at the same epoch."""


@dataclass(frozen=True, slots=True)
class View:
    """The controller's picture of the broker set (None master: no alive master)."""

    master_id: int | None
    master_address: str
    master_ha_address: str
    master_epoch: int
    sync_state_set: frozenset[int]
    sync_state_set_epoch: int


@dataclass(frozen=True, slots=True)
class BecomeMaster:
    epoch: int
    sync_state_set: frozenset[int]
    sync_state_set_epoch: int


@dataclass(frozen=True, slots=True)
class BecomeSlave:
    epoch: int
    master_id: int
    master_address: str
    master_ha_address: str


@dataclass(frozen=True, slots=True)
class TakeSyncStateSet:
    sync_state_set: frozenset[int]
    sync_state_set_epoch: int


@dataclass(frozen=True, slots=True)
class Elect:
    """Ask the controller to elect a master (ElectMaster triggered by this broker)."""


@dataclass(frozen=True, slots=True)
class Stay:
    """Nothing to do."""


Decision = BecomeMaster | BecomeSlave | TakeSyncStateSet | Elect | Stay


def decide(local: Local, view: View, *, may_elect: bool = True) -> Decision:
    """The one thing to do about `view`; pushes pass ``may_elect=False`` (the controller is electing already)."""
    if view.master_epoch > local.master_epoch:
        if view.master_id is None:
            return Elect() if may_elect else Stay()
        if view.master_id == local.broker_id:
            return BecomeMaster(view.master_epoch, view.sync_state_set, view.sync_state_set_epoch)
        return BecomeSlave(view.master_epoch, view.master_id, view.master_address, view.master_ha_address)
    if view.master_id is None:
        return Elect() if may_elect else Stay()
    if (
        local.role is Role.MASTER
        and view.master_id == local.broker_id
        and view.master_epoch == local.master_epoch
        and (
            view.sync_state_set_epoch > local.sync_state_set_epoch
            or (local.sync_state_set_unsettled and view.sync_state_set_epoch == local.sync_state_set_epoch)
        )
    ):
        return TakeSyncStateSet(view.sync_state_set, view.sync_state_set_epoch)
    return Stay()
