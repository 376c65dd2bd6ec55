"""The root of every exception `controller/` raises on purpose, so a caller can catch them all in one clause."""

from __future__ import annotations

from mqbase.errors import MqBaseError


class ControllerError(MqBaseError):
    """The controller's own failures: a request or log entry that does not decode, a port or store it cannot take."""
