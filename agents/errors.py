"""The root of every exception `agents/` raises on purpose, so a caller can catch them all in one clause."""

from __future__ import annotations

from mqbase.errors import MqBaseError


class AgentError(MqBaseError):
    """The agent's own failures: damaged store files, frames that do not parse, a broker that cannot start."""
