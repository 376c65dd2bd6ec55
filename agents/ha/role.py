"""The role a broker's replica plays, the one type both the data plane (``Replica``) and the controller
decisions (``agents.broker.roles``) use."""

from __future__ import annotations

from enum import Enum


class Role(Enum):
    """Fenced until the controller says otherwise: a fenced replica neither writes nor serves reads."""

    FENCED = "fenced"
    MASTER = "master"
    SLAVE = "slave"
