"""POP's rules over random runs of receives, acks, changes and time: the invariants that hold after every step."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given
from hypothesis import strategies as st

from agents.pop.errors import PopCode
from agents.pop.events import Event
from agents.pop.filter import ALL, parse_filter
from agents.pop.handle import ReceiptHandle
from agents.pop.model import Entry, GroupPolicy, QueueKey, QueueState, QueueView
from agents.pop.rules import (
    Ack,
    ChangeInvisible,
    Nack,
    Receive,
    ack,
    apply,
    apply_all,
    change_invisible,
    nack,
    receive,
)
from tests.harness.fuzzing import fuzz

BROKER = "b"
Q = QueueKey("G", "T", 0)

STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("receive"), st.integers(1, 4), st.integers(0, 2)),
        st.tuples(st.just("ack"), st.integers(0, 50), st.booleans()),
        st.tuples(st.just("change"), st.integers(0, 50), st.sampled_from([0, 10_000, 60_000])),
        st.tuples(st.just("nack"), st.integers(0, 50), st.just(0)),
        st.tuples(st.just("wait"), st.sampled_from([1, 5_000, 30_000]), st.booleans()),
        st.tuples(st.just("put"), st.integers(1, 3), st.booleans()),
    ),
    max_size=40,
)


@dataclass
class Run:
    """One random run's state and what the checks need to remember."""

    orderly: bool
    retry_max_times: int
    state: QueueState = field(default_factory=QueueState)
    now: int = 1_000_000
    end: int = 0
    confirm: int = 0
    handles: list[ReceiptHandle] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    acked: set[int] = field(default_factory=set)
    dead: set[int] = field(default_factory=set)

    def view(self) -> QueueView:
        tags = {o: Entry("a" if o % 3 else "b") for o in range(self.end)}
        return QueueView(BROKER, 0, self.confirm, tags)

    def take(self, events: tuple[Event, ...]) -> None:
        self.events += events
        for event in events:
            self.state = apply(self.state, event)


def check_invariant(state: QueueState) -> None:
    window = set(range(state.committed, state.scanned))
    assert set(state.inflight) | set(state.done) == window
    assert not set(state.inflight) & set(state.done)
    assert state.committed not in state.done
    assert all(f.ticket < state.next_ticket for f in state.inflight.values())


@fuzz(300)
@given(st.booleans(), st.integers(0, 2), st.booleans(), STEPS)
def test_every_run_keeps_the_invariants(
    orderly: bool, retry_max_times: int, filtered: bool, steps: list[tuple[str, int, int]]
) -> None:
    run = Run(orderly, retry_max_times)
    policy = GroupPolicy(orderly=orderly, retry_max_times=retry_max_times)
    flt = parse_filter("a") if filtered else ALL
    for step in steps:
        kind = step[0]
        before = run.state
        if kind == "put":
            run.end += step[1]
            run.confirm = run.end if step[2] else run.confirm
        elif kind == "wait":
            run.now += step[1]
        elif kind == "receive":
            invisible_before = {o for o, f in before.inflight.items() if f.deadline_ms > run.now}
            attempt_id = ("", "a", "b")[step[2]]
            retried = orderly and attempt_id != "" and attempt_id == before.attempt_id
            request = Receive(Q, flt, step[1], 30_000, attempt_id)
            answer = receive(before, request, run.view(), policy, run.now)
            assert answer.reply is not None
            offsets = [h.queue_offset for h in answer.reply.messages]
            assert offsets == sorted(set(offsets))
            assert all(o < run.confirm for o in offsets)
            assert not set(offsets) & (run.acked | run.dead | (set() if retried else invisible_before))
            assert all(flt.matches(run.view().entries[o].tag) for o in offsets)
            assert all(1 <= h.attempt <= retry_max_times + 1 for h in answer.reply.messages)
            if orderly and offsets and not retried:
                assert not invisible_before
            if orderly and invisible_before and not retried:
                assert answer.reply.blocked and not answer.events
            run.dead |= {d.offset for d in answer.reply.dead_letters}
            run.handles += answer.reply.messages
            run.take(answer.events)
        elif run.handles:
            handle = run.handles[step[1] % len(run.handles)]
            if kind == "ack":
                answered = ack(before, Ack("G", "T", handle), BROKER)
                if answered.events:
                    run.acked.add(handle.queue_offset)
            else:
                if kind == "nack":
                    answered = nack(before, Nack("G", "T", handle), BROKER, policy, run.now)
                else:
                    change = ChangeInvisible("G", "T", handle, step[2])
                    answered = change_invisible(before, change, BROKER, run.now)
                if answered.code == PopCode.OK:
                    assert answered.reply is not None
                    run.handles.append(answered.reply)
            current = before.inflight.get(handle.queue_offset)
            assert (current is not None and current.ticket == handle.ticket) == bool(answered.events)
            run.take(answered.events)
        check_invariant(run.state)
        assert run.state.committed >= before.committed
        assert apply_all(None, run.events) == run.state
