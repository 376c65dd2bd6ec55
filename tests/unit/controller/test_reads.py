"""Which answers a leader may give before confirming its leadership (``controller.reads``), as tables."""

from __future__ import annotations

import pytest

from controller.reads import may_answer, needs_barrier
from controller.requests import (
    AlterSyncStateSetRequest,
    ElectMasterRequest,
    GetNextBrokerIdRequest,
    GetReplicaInfoRequest,
    GetSyncStateDataRequest,
    RegisterBrokerRequest,
    Request,
)

LEASE = GetReplicaInfoRequest("b")
"""The transfer lease question ("am I still master in epoch E?") and the brokers' periodic poll."""
REGISTER = RegisterBrokerRequest("c", "b", 1, "127.0.0.1:9001")
ELECT = ElectMasterRequest("c", "b", 1)
ALTER = AlterSyncStateSetRequest("b", 1, 1, frozenset({1}), 1)
SYNC_STATE = GetSyncStateDataRequest(broker_names=("b",))
NEXT_ID = GetNextBrokerIdRequest("c", "b")


@pytest.mark.parametrize(
    ("request_", "decided_in", "confirmed_in", "answer"),
    [
        (LEASE, 3, 3, True),  # an entry committed in the deciding term after the decision
        (LEASE, 3, None, False),  # no entry committed: a deposed leader that does not know it yet
        (LEASE, 3, 4, False),  # the term changed in between: another leader may have committed first
        (REGISTER, 3, None, False),  # registration answers carry the master a broker takes its role from
        (ELECT, 3, None, False),  # MASTER_STILL_EXIST is answered from state too
        (ALTER, 3, None, False),  # a no-op SUCCESS confirms a SyncStateSet to the master
        (ELECT, 3, 3, True),
        (SYNC_STATE, 3, None, True),  # plain reads: answered from the applied state at once
        (SYNC_STATE, 3, 4, True),
        (NEXT_ID, 3, None, True),  # ApplyBrokerId (a commit) decides whether the broker gets the id
    ],
)
def test_may_answer(request_: Request, decided_in: int, confirmed_in: int | None, answer: bool) -> None:
    assert may_answer(request_, decided_in, confirmed_in) is answer


@pytest.mark.parametrize(
    ("requests", "has_events", "barrier"),
    [
        ([LEASE], False, True),
        ([SYNC_STATE, LEASE], False, True),
        ([LEASE], True, False),  # the batch's own entry confirms the leadership
        ([SYNC_STATE], False, False),
        ([SYNC_STATE, NEXT_ID], False, False),
        ([ELECT], False, True),  # an election that changed nothing (MASTER_STILL_EXIST)
    ],
)
def test_needs_barrier(requests: list[Request], has_events: bool, barrier: bool) -> None:
    assert needs_barrier(requests, has_events) is barrier
