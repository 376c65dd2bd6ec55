"""WriteGuard: the put path of one broker behind its write gate, and the graceful transfer's write pause.

The data plane does not depend on the controller: a master keeps serving while the controller group is down. The
exceptions — a paused process (SIGSTOP, a VM freeze) and a graceful transfer's write pause with its lease — are the
write gate, decided in ``write_gate`` (pure); this module reads the clock, holds the gate's lock and carries out
what the gate's steps say.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol

from agents.broker import write_gate
from agents.broker.write_gate import Gate, Step, TransferReady, WritePause
from agents.config import BrokerConfig
from agents.ha.master_service import Appended, PutResult
from agents.ha.replica import Replica
from agents.ha.role import Position, Role
from agents.ha.sync_state import PutStatus
from agents.store.record import Message
from mqbase.clock import Clock
from mqbase.codes import ResponseCode

log = logging.getLogger(__name__)


class Member(Protocol):
    """What the guard needs of its broker (``ReplicasManager``)."""

    config: BrokerConfig
    replica: Replica | None
    broker_id: int

    def position(self) -> Position: ...


class WriteGuard:
    """See the module docstring; `ask_controller` has the broker ask the controller now (a closed gate)."""

    def __init__(self, member: Member, clock: Clock, ask_controller: Callable[[], None]) -> None:
        self._member = member
        self._clock = clock
        self._ask_controller = ask_controller
        self._lock = threading.Lock()  # guards _gate: puts, the watchdog, the worker and transfer RPCs
        self._gate = Gate(clock.monotonic())

    def _name(self) -> str:
        c = self._member.config
        return f"{c.broker_cluster_name}/{c.broker_name}"

    # --- puts ------------------------------------------------------------------------------------

    def put(self, messages: Sequence[Message]) -> PutResult:
        """Write on the master; refused while fenced, as a slave, or after a pause until the controller answers."""
        return self.append(messages).settle()

    def append(self, messages: Sequence[Message]) -> Appended | PutResult:
        """``put``'s append alone, behind the same gate; the caller settles the `Appended`."""
        replica = self._member.replica
        if replica is None or self.observe(tick=False).waits_for_controller:
            return PutResult(PutStatus.SERVICE_NOT_AVAILABLE)
        return replica.append(messages)

    # --- the gate --------------------------------------------------------------------------------

    def observe(self, *, tick: bool, now: float | None = None) -> Gate:
        """Look at the write gate now (``write_gate.observe``) and carry out its step; the gate after it.

        `now` defaults to the clock read under the gate's lock (tests pass a moment past a lease).
        """
        with self._lock:
            limit_s = write_gate.pause_limit_s(self._member.config.controller_heart_beat_timeout_mills)
            step = write_gate.observe(self._gate, self._clock.monotonic() if now is None else now, limit_s, tick=tick)
            self._gate = step.gate
            self._carry_out(step)
        return step.gate

    def _carry_out(self, step: Step) -> None:
        """Do what a gate step asks (caller holds the gate's lock)."""
        if step.closed:
            log.warning("%s: %s; writes wait for the controller", self._name(), step.closed)
            self._ask_controller()
        if step.lease_ended is not None:
            replica = self._member.replica
            master = replica.master if replica is not None else None
            if master is not None:
                master.resume_writes()  # puts still wait for the controller (the gate closed above)

    def answered(self, asked_at: float) -> None:
        """The controller answered a question asked at `asked_at` (monotonic): a gate waiting for it reopens."""
        with self._lock:
            before, self._gate = self._gate, write_gate.answered(self._gate, asked_at)
            reopened = before.waits_for_controller and not self._gate.waits_for_controller
        if reopened:
            log.info("%s: the controller answered; writes resume", self._name())

    def new_role(self) -> None:
        """The replica took a new role: any transfer pause ends (a new master starts unpaused)."""
        with self._lock:
            self._gate = replace(self._gate, pause=None)

    # --- graceful transfer -----------------------------------------------------------------------

    @property
    def pause(self) -> WritePause | None:
        return self._gate.pause

    def prepare_transfer(
        self, target_id: int, target_address: str, master_epoch: int, timeout_s: float, lease_s: float, token: str
    ) -> TransferReady:
        """Pause writes, let the puts in flight get their answers, and wait until `target_id` acknowledged the final
        offset, all within `timeout_s`; on failure writes resume.

        A second request while paused (a new controller leader retrying) takes over the pause with its token.
        """
        replica = self._member.replica
        master = replica.master if replica is not None else None
        position = self._member.position()
        refused = write_gate.refusal(
            self._member.broker_id, position.role, position.master_epoch, master is not None, target_id, master_epoch
        )
        if refused is not None:
            return refused
        assert replica is not None and master is not None  # write_gate.refusal checked the master
        with self._lock:
            started = self._clock.monotonic()
            pause = WritePause(token, target_id, target_address, master_epoch, started + lease_s)
            self._gate = replace(self._gate, pause=pause)
        final = master.pause_writes()
        log.info("%s: writes paused at offset %d for a transfer to broker %d (token %s)",
                 self._name(), final, target_id, token)  # fmt: skip
        master.wait_settled(timeout_s)  # the puts below `final` get their answer before the role can change
        ack = master.wait_acked(target_id, final, max(0.0, started + timeout_s - self._clock.monotonic()))
        waited = self._clock.monotonic() - started
        same_role = replica.position == Position(Role.MASTER, master_epoch) and replica.master is master
        ready = write_gate.outcome(target_id, final, ack, timeout_s, waited, same_role=same_role)
        if ready.code == ResponseCode.CONTROLLER_ELECT_MASTER_FAILED:
            self.resume_writes(token, ready.remark)
        return ready

    def resume_writes(self, token: str, reason: str) -> bool:
        """End the transfer pause named `token` (the controller aborted it); False when there is none."""
        with self._lock:
            pause, resumed = self._gate.pause, write_gate.resume(self._gate, token)
            if resumed is None or pause is None:
                return False
            self._gate = resumed
            replica = self._member.replica
            master = replica.master if replica is not None else None
            if master is not None:
                master.resume_writes()
        log.warning("%s: transfer to broker %d aborted (%s); writes resume", self._name(), pause.target_id, reason)
        return True
