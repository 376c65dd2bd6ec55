"""Random consumer runs for the consumer-state tests: real POP decisions and offset commits, logged as records.

A run drives ``agents.pop.rules`` over a few queues of two groups (six messages stored in each at the start) with
a clock it moves itself, writes every event (and every offset commit) as a `StateRecord` numbered in log order,
and remembers what consumers were told, so the tests can replay, cut, snapshot and check the failover invariant
against a log that real decisions made.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

from agents.consumer.invariant import Told, ToldAck, ToldCommit, ToldDelivery
from agents.consumer.records import Change, Forgotten, OffsetCommitted, StateRecord
from agents.consumer.state import ConsumerState, apply, queue_state
from agents.pop.errors import PopCode
from agents.pop.filter import ALL
from agents.pop.handle import ReceiptHandle
from agents.pop.model import Entry, GroupPolicy, QueueKey, QueueView
from agents.pop.rules import Ack, ChangeInvisible, Receive, ack, change_invisible, receive

BROKER = "broker-a"
QUEUES = (QueueKey("G", "T", 0), QueueKey("G", "T", 1), QueueKey("H", "T", 0))

STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.integers(0, 2), st.integers(1, 4)),
        st.tuples(st.just("receive"), st.integers(0, 2), st.integers(1, 3)),
        st.tuples(st.just("ack"), st.integers(0, 40), st.just(0)),
        st.tuples(st.just("ack"), st.integers(0, 40), st.just(0)),
        st.tuples(st.just("change"), st.integers(0, 40), st.sampled_from([0, 20_000])),
        st.tuples(st.just("wait"), st.just(0), st.sampled_from([1, 15_000, 40_000])),
        st.tuples(st.just("commit"), st.integers(0, 2), st.integers(0, 12)),
        st.tuples(st.just("forget"), st.integers(0, 2), st.just(0)),
    ),
    min_size=4,
    max_size=50,
)


@dataclass
class Run:
    """The log a run wrote, the state it kept while writing, and what consumers were told."""

    now: int = 1_000_000
    ends: list[int] = field(default_factory=lambda: [6] * len(QUEUES))
    state: ConsumerState = field(default_factory=ConsumerState)
    records: list[StateRecord] = field(default_factory=list)
    told: list[Told] = field(default_factory=list)
    handles: list[ReceiptHandle] = field(default_factory=list)

    def write(self, change: Change) -> None:
        record = StateRecord(len(self.records) + 1, change)
        self.records.append(record)
        self.state = apply(self.state, record)


def play(steps: list[tuple[str, int, int]]) -> Run:
    """The run `steps` make (see the module docstring)."""
    run = Run()
    policy = GroupPolicy(retry_max_times=1)
    for kind, a, b in steps:
        if kind == "put":
            run.ends[a] += b
        elif kind == "wait":
            run.now += b
        elif kind == "commit":
            run.write(OffsetCommitted(QUEUES[a], b, run.now))
            run.told.append(ToldCommit(QUEUES[a], b))
        elif kind == "forget":  # the group was deleted: what its consumers were told no longer holds
            q = QUEUES[a]
            run.write(Forgotten(q.group, q.topic))
            run.told = [t for t in run.told if (t.queue.group, t.queue.topic) != (q.group, q.topic)]
        elif kind == "receive":
            q = QUEUES[a]
            view = QueueView(BROKER, 0, run.ends[a], {o: Entry() for o in range(run.ends[a])})
            answer = receive(queue_state(run.state, q), Receive(q, ALL, b, 30_000), view, policy, run.now)
            for event in answer.events:
                run.write(event)
            assert answer.reply is not None
            run.handles += answer.reply.messages
            run.told += [ToldDelivery(q, h.queue_offset, h.ticket) for h in answer.reply.messages]
        elif run.handles:
            h = run.handles[a % len(run.handles)]
            q = QueueKey(h.group, h.topic, h.queue_id)
            if kind == "ack":
                answered = ack(queue_state(run.state, q), Ack(h.group, h.topic, h), BROKER)
                if answered.code == PopCode.OK:
                    run.told.append(ToldAck(q, h.queue_offset))
            else:
                change = ChangeInvisible(h.group, h.topic, h, b)
                answered = change_invisible(queue_state(run.state, q), change, BROKER, run.now)
                if answered.code == PopCode.OK and answered.reply is not None:
                    run.handles.append(answered.reply)
                    run.told.append(ToldDelivery(q, h.queue_offset, answered.reply.ticket))
            for event in answered.events:
                run.write(event)
    return run
