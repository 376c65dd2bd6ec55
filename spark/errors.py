"""The root of every exception `spark/` raises on purpose, so a caller can catch them all in one clause."""

from __future__ import annotations

from mqbase.errors import MqBaseError


class SparkError(MqBaseError):
    """The fleet analytics' failures: an unreadable store or dataset, a Spark Connect server that cannot start."""
