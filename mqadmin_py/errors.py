"""Errors of the admin toolkit and the exit code each one maps to.

MqError (exit 1: the operation failed)
├── OperationFailed        a RocketMQ response code other than SUCCESS (code + remark)
│   └── OperationRefused (4)   ... NO_PERMISSION: e.g. a blacklisted config key
├── UsageError (2)         bad options
├── TimedOut (3)           an RPC or a wait ran out of time
├── Refused (4)            refused as unsafe, or a precondition is not met
├── ControllerUnavailable (5)  no controller answered, or no leader could be found
├── BrokerUnavailable (5)      a broker agent did not answer
└── SparkUnavailable (5)       the Spark Connect server did not answer, or did not start
"""

from __future__ import annotations


class MqError(Exception):
    """Base of every expected failure; carries the process exit code."""

    exit_code = 1


class OperationFailed(MqError):
    """The controller answered with a RocketMQ response code other than SUCCESS."""

    def __init__(self, code: int, code_name: str, remark: str) -> None:
        super().__init__(f"{code_name} ({code}): {remark}")
        self.code = code
        self.code_name = code_name
        self.remark = remark


class OperationRefused(OperationFailed):
    """NO_PERMISSION (16): the server refuses on principle (blacklisted key), not a transient failure."""

    exit_code = 4


class UsageError(MqError):
    exit_code = 2


class TimedOut(MqError):
    exit_code = 3


class Refused(MqError):
    exit_code = 4


class ControllerUnavailable(MqError):
    exit_code = 5


class BrokerUnavailable(MqError):
    exit_code = 5


class SparkUnavailable(MqError):
    exit_code = 5
