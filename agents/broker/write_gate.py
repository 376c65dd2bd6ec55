"""The master's write gate: when a hosted broker refuses writes on its own account. Pure; the clock is passed in.

Two things close the gate besides the role (``ReplicasManager`` reads the clock, holds the lock, applies the
``Step`` results and does the I/O):

* a stall: a process that did not run for half its heartbeat timeout (SIGSTOP, a VM freeze) may have been
  replaced by a master of a newer epoch meanwhile, so it refuses writes until the controller has been asked
  again — only an answer to a question asked at or after the moment the stall was noticed reopens the gate;
* a graceful transfer's write pause (``WritePause``): it ends with the role change, ``resume`` with its token,
  or its lease; a lease that runs out closes the gate the same way as a stall (an election the controller
  decided but did not get to tell us about must win over resuming).

PrepareTransfer's validation ladder (``request_problem``, ``refusal``) and its outcome (``outcome``) live here
too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agents.ha.role import Role
from mqbase.codes import ResponseCode

MAX_TRANSFER_WAIT_MS = 60_000
"""The longest PrepareTransfer wait (the controller's transferMasterTimeoutMs allows 100..60000 ms)."""
MAX_TRANSFER_LEASE_MS = 600_000
"""The longest write pause a PrepareTransfer may ask for (the controller asks for the wait plus 2 s)."""
STALL = "this process did not run for a while"


@dataclass(frozen=True, slots=True)
class WritePause:
    """Writes paused for a graceful transfer to `target_id` (producers are sent to `target_address`)."""

    token: str
    target_id: int
    target_address: str
    master_epoch: int
    until: float
    """The clock value when the lease runs out."""


@dataclass(frozen=True, slots=True)
class TransferReady:
    """The answer to PrepareTransfer: SUCCESS (code 0) with the final offset, or why not."""

    code: int
    remark: str
    final_offset: int = -1
    target_ack_offset: int = -1
    waited_s: float = 0.0


@dataclass(frozen=True, slots=True)
class Gate:
    """The gate's state: the last watchdog tick, since when writes wait for the controller, the transfer pause."""

    last_tick: float
    waits_since: float | None = None
    """Writes wait for a controller answer asked at or after this clock value (None: they do not)."""
    pause: WritePause | None = None

    @property
    def waits_for_controller(self) -> bool:
        return self.waits_since is not None


@dataclass(frozen=True, slots=True)
class Step:
    """What an observation of the clock changed: the new gate and what the shell must do about it."""

    gate: Gate
    closed: str = ""
    """Why writes now wait for the controller ("" when they did already, or do not): log it and poll at once."""
    lease_ended: WritePause | None = None
    """The pause whose lease ran out: the HA master stops pausing (puts still wait for the controller)."""


def pause_limit_s(heartbeat_timeout_ms: int) -> float:
    """How long the process may not run before writes wait for the controller: half the heartbeat timeout."""
    return max(0.3, heartbeat_timeout_ms / 2000)


def observe(gate: Gate, now: float, limit_s: float, *, tick: bool) -> Step:
    """The gate at `now`: a stall longer than `limit_s` since the last tick, or an expired lease, closes it.

    ``tick=True`` is the watchdog's observation (it moves ``last_tick``); a put only looks.
    """
    waits_since, closed = gate.waits_since, ""
    if now - gate.last_tick > limit_s and waits_since is None:
        waits_since, closed = now, STALL
    pause, ended = gate.pause, None
    if pause is not None and now > pause.until:
        if waits_since is None:
            waits_since, closed = now, f"the write pause of the transfer to broker {pause.target_id} ran out"
        pause, ended = None, pause
    return Step(Gate(now if tick else gate.last_tick, waits_since, pause), closed, ended)


def answered(gate: Gate, asked_at: float) -> Gate:
    """The controller answered a question asked at `asked_at`: only an answer asked after the gate closed
    reopens it (an earlier question says nothing about what happened since)."""
    if gate.waits_since is not None and asked_at >= gate.waits_since:
        return replace(gate, waits_since=None)
    return gate


def resume(gate: Gate, token: str) -> Gate | None:
    """The gate without the transfer pause named `token`; None when there is no such pause."""
    if gate.pause is None or gate.pause.token != token:
        return None
    return replace(gate, pause=None)


def request_problem(token: str, target_id: int, timeout_ms: int, lease_ms: int) -> str | None:
    """Why a PrepareTransfer request is malformed (checked before anything pauses), or None."""
    if (
        token
        and target_id >= 1
        and 0 < timeout_ms <= MAX_TRANSFER_WAIT_MS
        and timeout_ms < lease_ms <= MAX_TRANSFER_LEASE_MS
    ):
        return None
    return (
        f"token, target_broker_id >= 1, timeout_millis 1..{MAX_TRANSFER_WAIT_MS} and lease_millis "
        f"above timeout_millis, at most {MAX_TRANSFER_LEASE_MS}, are required"
    )


def refusal(
    broker_id: int, role: Role, epoch: int, has_master: bool, target_id: int, master_epoch: int
) -> TransferReady | None:
    """Why this broker cannot prepare a transfer to `target_id` in `master_epoch`, or None when it can.

    `has_master`: the replica runs an HA master (the role alone may be ahead of it during a change).
    """
    if not has_master or role is not Role.MASTER:
        return TransferReady(ResponseCode.CONTROLLER_INVALID_MASTER, f"broker {broker_id} is not a master")
    if epoch != master_epoch:
        return TransferReady(
            ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH,
            f"broker {broker_id} is master in epoch {epoch}, not {master_epoch}",
        )
    if target_id == broker_id:
        return TransferReady(ResponseCode.CONTROLLER_INVALID_REQUEST, f"broker {target_id} is this master")
    return None


def outcome(
    target_id: int, final: int, ack: int, timeout_s: float, waited_s: float, *, same_role: bool
) -> TransferReady:
    """The answer once the wait for the target's ack of `final` ended; CONTROLLER_ELECT_MASTER_FAILED means the
    pause must end (writes resume), any other refusal leaves it to the role change that caused it."""
    if not same_role:
        return TransferReady(
            ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH, "the role changed while waiting", final, ack, waited_s
        )
    if ack < final:
        seen = "is not connected" if ack < 0 else f"acknowledged {ack}"
        reason = f"broker {target_id} {seen}, not the final offset {final}, within {timeout_s * 1000:.0f} ms"
        return TransferReady(ResponseCode.CONTROLLER_ELECT_MASTER_FAILED, reason, final, ack, waited_s)
    return TransferReady(ResponseCode.SUCCESS, "", final, ack, waited_s)
