"""The project's exception tree: one root, and the exit code each operation failure maps to.

MqBaseError: the root of every exception the project raises on purpose
├── ConfigError, PropertiesError, SecurityError   unusable configuration (mqbase.configkeys/properties/security)
├── StoreLockError, BindError                      a store directory or an address another process holds
├── ControllerError, AgentError, SparkError        one root per package (its errors.py); their classes keep
│                                                  their builtin base too (ValueError, RuntimeError, ...)
└── MqError (exit 1)           the operation failed: what a client call or a CLI command reports
    ├── OperationFailed            a RocketMQ response code other than SUCCESS (code + remark)
    │   ├── OperationRefused (4)   ... that declines the request (NO_PERMISSION, an ineligible electMaster, ...)
    │   └── RequestInvalid (2)     ... CONTROLLER_INVALID_REQUEST: the server found an argument invalid
    ├── UsageError (2)             bad options
    │   └── WrongPeer (2)          an address serves another API (an agent's given as a controller's)
    ├── TimedOut (3)               an RPC or a wait ran out of time
    ├── Refused (4)                refused as unsafe, or a precondition is not met
    ├── ControllerUnavailable (5)  no controller answered, or no leader could be found
    ├── BrokerUnavailable (5)      a broker agent did not answer
    ├── SparkUnavailable (5)       the Spark Connect server did not answer, or did not start
    └── Interrupted (130)          Ctrl-C: the command stopped what it started and says what it had done

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
    """The server declined the request, on principle (NO_PERMISSION: a blacklisted key) or as unsafe in the
    cluster's state (an ineligible master, an alive broker to clean): nothing changed, and a retry cannot help
    until the state or the permission does."""

    exit_code = 4


class RequestInvalid(OperationFailed):
    """CONTROLLER_INVALID_REQUEST (2005): an argument the server checked (a config value, an offset past the end
    of the log) is invalid; nothing changed. A usage error, like the ones the CLI catches before sending."""

    exit_code = 2


class UsageError(MqError):
    exit_code = 2


class WrongPeer(UsageError):
    """An address answered, but with another of the project's APIs: a wrong option value, not an outage."""


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


class Interrupted(MqError):
    """Ctrl-C (SIGINT) ended a long command: it printed what it had done and stopped what it had started. Exit 130,
    as a shell reports a command SIGINT ended. Raised only after the work stopped, so no retry loop catches it."""

    exit_code = 130
