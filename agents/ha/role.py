"""The role a broker's replica plays, the one type both the data plane (``Replica``) and the controller
decisions (``agents.broker.roles``) use."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Role(Enum):
    """Fenced until the controller says otherwise: a fenced replica neither writes nor serves reads."""

    FENCED = "fenced"
    MASTER = "master"
    SLAVE = "slave"


@dataclass(frozen=True, slots=True)
class Position:
    """The role a replica was last told and the masterEpoch it was told in: the broker's one record of both.

    The epoch is 0 until the first role, a restart included (as Java: a restart accepts the controller's current
    epoch again; the epoch file still refuses an older one).
    """

    role: Role = Role.FENCED
    master_epoch: int = 0
