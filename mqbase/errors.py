"""The project's exception tree: one root, and the exit code each operation failure maps to.

MqBaseError: the root of every exception the project raises on purpose
├── ConfigError, PropertiesError, SecurityError   unusable configuration (mqbase.configkeys/properties/security)
├── StoreLockError, BindError                      a store directory or an address another process holds
├── ControllerError, AgentError, SparkError        one root per package (its errors.py); their classes keep
│                                                  their builtin base too (ValueError, RuntimeError, ...)
└── MqError (exit 1)           the operation failed: what a client call or a CLI command reports
    ├── OperationFailed            a RocketMQ response code other than SUCCESS (code + remark)
    │   └── OperationRefused (4)   ... NO_PERMISSION: e.g. a blacklisted config key
    ├── UsageError (2)             bad options
    ├── TimedOut (3)               an RPC or a wait ran out of time
    ├── Refused (4)                refused as unsafe, or a precondition is not met
    ├── ControllerUnavailable (5)  no controller answered, or no leader could be found
    ├── BrokerUnavailable (5)      a broker agent did not answer
    └── SparkUnavailable (5)       the Spark Connect server did not answer, or did not start

Only MqError carries an exit code: the CLI's entry point is the one place that maps it to a code and one line.
Code that waits for a controller or an agent catches MqError, so a damaged file or a bad config (not an
MqError) still stops what it was doing instead of being retried as an unreachable peer.
"""

from __future__ import annotations


class MqBaseError(Exception):
    """The root: ``except MqBaseError`` catches every failure the project raises on purpose, and nothing else."""


class MqError(MqBaseError):
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
