"""Controller states without a process, for the controller core tests: builders, and an in-memory Raft member.

`run` mirrors RocketMQ's ReplicasInfoManagerTest: compute a request against the
state and the liveness facts, then apply the events the result carries. `InMemoryRaft` stands in for the Raft
member behind the proposer (the seam it talks to) and applies committed events with the real ``apply_events``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from controller.events import ApplyBrokerId, Event
from controller.model import AliveView, BrokerSet, ControllerState, LiveInfo
from controller.requests import (
    AlterSyncStateSetRequest,
    ApplyBrokerIdRequest,
    ElectMasterRequest,
    Request,
    Result,
)
from controller.state import apply_events, compute

ReplyT = TypeVar("ReplyT")
BrokerKey = tuple[str, int]
CLUSTER = "DefaultCluster"
BROKER = "broker-a"


def addr(broker_id: int) -> str:
    """The address broker `broker_id` registers with."""
    return f"127.0.0.1:{30910 + broker_id}"


def ha_addr(broker_id: int) -> str:
    """The HA (replication) address broker `broker_id` registers with."""
    return f"127.0.0.1:{31910 + broker_id}"


def check_code(broker_id: int, millis: int = 1_700_000_000_000) -> str:
    """A registerCheckCode as brokers send it: "<brokerAddr>;<epochMillis>"."""
    return f"{addr(broker_id)};{millis}"


def live(
    epoch: int = 1,
    max_offset: int = 0,
    priority: int = 2**31 - 1,
    *,
    async_learner: bool = False,
    broker_address: str = "",
) -> LiveInfo:
    """A LiveInfo with concrete election data."""
    return LiveInfo(
        broker_address=broker_address,
        epoch=epoch,
        max_offset=max_offset,
        confirm_offset=max_offset,
        election_priority=priority,
        async_learner=async_learner,
    )


def alive_of(*broker_ids: int, broker_name: str = BROKER, info: LiveInfo | None = None) -> dict[BrokerKey, LiveInfo]:
    """An alive view where the given ids of one set are alive with the same info."""
    return {(broker_name, i): info or live() for i in broker_ids}


NOBODY: AliveView = {}
"""No broker is alive."""


def run(
    state: ControllerState,
    request: Request,
    alive: AliveView,
    allow_unclean: bool = False,
    preferred_master: bool = False,
    master_grace: bool = False,
) -> tuple[ControllerState, Result[Any]]:
    """Compute `request`, then apply the events of the result; return the new state and the result."""
    result = compute(state, request, alive, allow_unclean=allow_unclean, preferred_master=preferred_master,
                     master_grace=master_grace)  # fmt: skip
    return apply_events(state, result.events), result


def reply_of(result: Result[Any], kind: type[ReplyT]) -> ReplyT:
    """The reply `result` carries, which must be a `kind` (``compute`` returns ``Result[Any]``)."""
    assert isinstance(result.reply, kind), f"{result.code.name} {result.remark!r}: {result.reply!r}"
    return result.reply


def apply_ids(
    state: ControllerState,
    broker_ids: Iterable[int],
    broker_name: str = BROKER,
    cluster_name: str = CLUSTER,
) -> ControllerState:
    """Register broker ids (ApplyBrokerId, with their HA address) one after the other; every apply must succeed."""
    for broker_id in broker_ids:
        request = ApplyBrokerIdRequest(cluster_name, broker_name, broker_id, check_code(broker_id), ha_addr(broker_id))
        state, result = run(state, request, NOBODY)
        assert result.ok, result.remark
    return state


def three_replicas(broker_name: str = BROKER, cluster_name: str = CLUSTER) -> ControllerState:
    """A set with ids 1, 2 and 3 registered and no master yet (masterEpoch 0)."""
    return apply_ids(ControllerState(), [1, 2, 3], broker_name, cluster_name)


def elect_first(state: ControllerState, broker_id: int = 1, broker_name: str = BROKER) -> ControllerState:
    """The first election of a set, triggered by `broker_id` (which becomes master)."""
    state, result = run(state, ElectMasterRequest(CLUSTER, broker_name, broker_id), alive_of(broker_id))
    assert result.ok, result.remark
    return state


def with_master(broker_id: int = 1, sync_state_set: Iterable[int] = (1,)) -> ControllerState:
    """Three replicas, `broker_id` master (masterEpoch 1), then the SSS expanded to `sync_state_set`.

    After the expansion syncStateSetEpoch is 2 (1 without expansion).
    """
    state = elect_first(three_replicas(), broker_id)
    wanted = frozenset(sync_state_set)
    if wanted != frozenset({broker_id}):
        bs = broker_set(state)
        request = AlterSyncStateSetRequest(BROKER, broker_id, bs.master_epoch, wanted, bs.sync_state_set_epoch)
        state, result = run(state, request, alive_of(*wanted))
        assert result.ok, result.remark
    return state


def broker_set(state: ControllerState, broker_name: str = BROKER) -> BrokerSet:
    """The named set, which must exist."""
    bs = state.get(broker_name)
    assert bs is not None, f"{broker_name} is not registered"
    return bs


def master_view(state: ControllerState, broker_name: str = BROKER) -> tuple[int | None, int, frozenset[int], int]:
    """(master id, masterEpoch, SyncStateSet, syncStateSetEpoch) of the named set."""
    bs = broker_set(state, broker_name)
    return bs.master_id, bs.master_epoch, bs.sync_state_set, bs.sync_state_set_epoch


def two_sets_of_three() -> ControllerState:
    """broker-a and broker-b, each with ids 1, 2 and 3 and no master yet."""
    events = [
        ApplyBrokerId(CLUSTER, name, addr(i), i, check_code(i), ha_addr(i))
        for name in ("broker-a", "broker-b")
        for i in (1, 2, 3)
    ]
    return apply_events(ControllerState(), events)


class InMemoryRaft:
    """Commits synchronously; can be told to fail commits or to stop being leader."""

    def __init__(self) -> None:
        self.state = ControllerState()
        self.leader = True
        self.fail_commits = False
        self.commits_allowed: int | None = None
        """Fail every commit once this many entries are committed."""
        self.current_term = 1
        self.new_term_on_commit = False
        """Start a new term while each entry commits (leadership lost and won again meanwhile)."""
        self.commits: list[tuple[Event, ...]] = []
        self.lock = threading.Lock()

    def is_leader(self) -> bool:
        return self.leader

    def term(self) -> int:
        return self.current_term

    def commit(self, events: tuple[Event, ...], callback: Callable[[bool, str], None]) -> None:
        with self.lock:
            if self.fail_commits or (self.commits_allowed is not None and len(self.commits) >= self.commits_allowed):
                callback(False, "LEADER_CHANGED")
                return
            self.commits.append(events)
            self.state = apply_events(self.state, events)
            if self.new_term_on_commit:
                self.current_term += 1
        callback(True, "")
