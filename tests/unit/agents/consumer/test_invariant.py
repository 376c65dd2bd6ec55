"""The failover checker: silent for a state rebuilt from the whole log, loud for any answer the log lost."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.consumer.invariant import Told, ToldAck, ToldCommit, ToldDelivery, violations
from agents.consumer.records import OffsetCommitted, StateRecord
from agents.consumer.snapshot import rebuild, take
from agents.consumer.state import Committed, ConsumerState, apply_all
from agents.pop.events import Acked
from agents.pop.model import Inflight, QueueKey, QueueState
from tests.harness.consumer_runs import STEPS, play
from tests.harness.fuzzing import fuzz

Q = QueueKey("G", "T", 0)
QUEUE = QueueState(3, 6, MappingProxyType({4: Inflight(7, 900, 1)}), MappingProxyType({3: 5, 5: 6}), 8)
STATE = ConsumerState(1, MappingProxyType({Q: Committed(10, 0)}), MappingProxyType({Q: QUEUE}))


@pytest.mark.parametrize(
    ("told", "unanswered", "found"),
    [
        ([ToldAck(Q, 2), ToldAck(Q, 3), ToldAck(Q, 5)], [], []),
        ([ToldAck(Q, 4)], [], ["G on T/0 offset 4 was acked to a consumer but is in flight again"]),
        ([ToldAck(Q, 6)], [], ["G on T/0 offset 6 was acked to a consumer but is not yet delivered again"]),
        ([ToldDelivery(Q, 4, 7), ToldDelivery(Q, 4, 6), ToldDelivery(Q, 5, 6)], [], []),
        (
            [ToldDelivery(Q, 4, 8)],
            [],
            ["G on T/0 offset 4 was handed out with ticket 8 but the new master has ticket 7"],
        ),
        ([ToldDelivery(Q, 6, 8)], [], ["G on T/0 offset 6 was delivered but is unknown to the new master"]),
        ([ToldCommit(Q, 10)], [], []),
        ([ToldCommit(Q, 12), ToldCommit(Q, 10)], [], []),  # a reset back: the last answer counts
        ([ToldCommit(Q, 11)], [], ["G on T/0: committed offset 11 was told but the new master has 10"]),
        ([ToldCommit(Q, 8)], [ToldCommit(Q, 10)], []),  # its answer was lost, its record was not
        ([], [ToldCommit(Q, 10)], []),
        ([], [ToldCommit(Q, 9)], ["G on T/0: the new master has offset 10, which no consumer committed"]),
        (
            [ToldCommit(QueueKey("G", "T", 1), 3)],
            [],
            ["G on T/1: committed offset 3 was told but the new master has none"],
        ),
        (
            [ToldAck(QueueKey("G", "U", 0), 0)],
            [],
            ["G on U/0 offset 0 was acked to a consumer but is not yet delivered"],
        ),
    ],
)
def test_each_answer_is_checked(told: list[Told], unanswered: list[ToldCommit], found: list[str]) -> None:
    got = violations(told, STATE, unanswered)
    assert len(got) == len(found)
    assert all(line.startswith(prefix) for line, prefix in zip(got, found, strict=True)), got


def _kept(steps: list[tuple[str, int, int]], *voiding: str) -> list[tuple[str, int, int]]:
    """`steps` without deleting a group (or the other `voiding` kinds), which voids what was told and so could hide
    a lost record."""
    return [step for step in steps if step[0] not in ("forget", *voiding)]


def _without(records: list[StateRecord], index: int) -> list[StateRecord]:
    """The log as a replica that lost record `index` would hold it (numbered without a gap)."""
    rest = records[:index] + records[index + 1 :]
    return [replace(r, seq=i) for i, r in enumerate(rest, 1)]


@fuzz(200)
@given(STEPS, st.data())
def test_a_state_rebuilt_from_the_log_keeps_every_answer(
    steps: list[tuple[str, int, int]], data: st.DataObject
) -> None:
    run = play(steps)
    cut = data.draw(st.integers(0, len(run.records)))
    snapshot = take(apply_all(None, run.records[:cut]), cut, len(run.records))
    assert violations(run.told, rebuild(snapshot, run.records[cut:])) == ()


@fuzz(200)
@given(STEPS, st.data())
def test_an_ack_the_new_master_lacks_is_caught(steps: list[tuple[str, int, int]], data: st.DataObject) -> None:
    """A log cut before an ack's record: what a failover would do if acks were answered before they were confirmed."""
    run = play(_kept(steps, "commit"))  # a reset after the ack would void it
    acks = [i for i, r in enumerate(run.records) if isinstance(r.change, Acked)]
    if not acks:
        return
    index = data.draw(st.sampled_from(acks))
    lost = run.records[index].change
    assert isinstance(lost, Acked)
    found = violations(run.told, apply_all(None, run.records[:index]))
    q = lost.queue
    assert any(line.startswith(f"{q.group} on {q.topic}/{q.queue_id} offset {lost.offset} was acked") for line in found)


@fuzz(200)
@given(STEPS)
def test_a_rolled_back_offset_is_caught(steps: list[tuple[str, int, int]]) -> None:
    """Java's failover: the new master has the offsets of its last sync, not the last commit told to a consumer."""
    run = play(_kept(steps))
    commits = [i for i, r in enumerate(run.records) if isinstance(r.change, OffsetCommitted)]
    if not commits:
        return
    index = commits[-1]
    last = run.records[index].change
    assert isinstance(last, OffsetCommitted)
    rebuilt = apply_all(None, _without(run.records, index))
    before = rebuilt.offsets.get(last.queue)
    found = violations(run.told, rebuilt)
    assert bool(found) == (before is None or before.offset != last.offset)
