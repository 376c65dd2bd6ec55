"""The two ways consumer state cannot be read: damaged bytes, and a log with records missing."""

from __future__ import annotations

from agents.errors import AgentError


class StateFormatError(AgentError, ValueError):
    """A consumer-state record or snapshot that breaks its format; the message names the first rule broken."""


class SequenceGap(AgentError, ValueError):
    """A record whose sequence number skips some: rebuilding past it would silently lose changes."""
