"""RIP-32 in Consumers over real replicas in tmp_path: an acting replica's consumption escapes to another
set's master, and the set's next master serves only once it took the escaped changes back (pre-online).

The home set is one replica whose role the test moves (master, slave acting as master, master again: the same
log, as when the old master returns); the escape set is a master of its own. Both sets' services run with
``enableSlaveActingMaster``, so every new master is gated until ``take_back``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from agents.broker import take_back
from agents.broker.api import AckRequest, Delivery, Received, ReceiveRequest
from agents.broker.consumer_checks import Refused
from agents.broker.consumer_snapshots import SnapshotKeeper
from agents.broker.consumers import Consumers
from agents.config import BrokerConfig
from agents.consumer.records import Escaped, EscapeReleased
from agents.ha.config import HAConfig
from agents.ha.master_service import Appended, PutResult
from agents.ha.replica import Replica
from agents.ha.sync_state import PutStatus
from agents.metadata import MetadataTable, Topic, learn
from agents.pop.model import QueueKey
from agents.store.record import Message
from mqbase.clock import SYSTEM
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb

SEG = 64 * 1024
TOPIC = "Orders"
HOME, ESCAPE = "home", "escape"
INVISIBLE_MS = 60_000


class Broker:
    """A service's host: a real replica, the topic table, and the escape to the other set's service."""

    def __init__(self, root: Path, name: str) -> None:
        config = BrokerConfig(broker_name=name, store_path_root_dir=str(root), enable_slave_acting_master=True)
        self.config = replace(config, controller_addr=("x:1",))
        self.replica: Replica | None = Replica(root, 1, HAConfig(), SEG)
        self.replica.change_to_master(1, frozenset({1}), 1, lambda _s: None)
        topic = Topic(TOPIC, frozenset({HOME, ESCAPE}), 2, 2, 6)
        self.metadata: MetadataTable = learn(MetadataTable(), 1, [topic], [])
        self.broker_id = 1
        self.acting_since_ms = 0
        self.escape_to: Consumers | None = None
        self.consumers = Consumers(self, SnapshotKeeper(lambda: self.replica, lambda: self.config), SYSTEM)

    def append(self, messages: Sequence[Message]) -> Appended | PutResult:
        assert self.replica is not None
        return self.replica.append(messages)

    def master_address(self) -> str:
        return ""

    def lock_queues(self, keys: Sequence[QueueKey]) -> frozenset[QueueKey]:
        return frozenset(keys)

    def dead_letters_stored(self, topics: frozenset[str]) -> None:
        raise AssertionError("these tests make no dead letter")

    def escape(self, changes: Sequence[Escaped], copies: Sequence[Message], serving: Callable[[str], bool]) -> str:
        if self.escape_to is None or not serving(ESCAPE):
            raise Refused(ResponseCode.SERVICE_NOT_AVAILABLE, "no escape master")
        self.escape_to.intake.take_escaped(self.config.broker_name, changes, copies)
        return ESCAPE


@pytest.fixture
def sets(tmp_path: Path) -> Iterator[tuple[Broker, Broker]]:
    home, escape = Broker(tmp_path / HOME, HOME), Broker(tmp_path / ESCAPE, ESCAPE)
    home.escape_to = escape.consumers
    online(escape.consumers)
    yield home, escape
    for b in (home, escape):
        assert b.replica is not None
        b.replica.close()


def online(s: Consumers, escaped: dict[str, list[Escaped]] | None = None) -> None:
    """Run the pre-online the take-back thread runs (no other replica; the escaped changes given)."""
    phase = take_back.phase(s.ledger)
    assert phase is not None
    key, pre_online = phase
    assert pre_online
    take_back.merge(s.ledger, key, [], escaped or {})
    assert take_back.phase(s.ledger) == (key, False)


def send(b: Broker, n: int) -> None:
    assert b.replica is not None
    batch = [Message(TOPIC, i % 2, f"m{i}".encode(), {}, i) for i in range(n)]
    assert b.replica.put(batch).status is PutStatus.PUT_OK


def receive(s: Consumers, batch: int = 32) -> Received:
    request = ReceiveRequest("G", TOPIC, batch, INVISIBLE_MS)
    return s.pop.receive(request)


def ack(s: Consumers, messages: Sequence[Delivery]) -> list[int]:
    handles = [m.receipt_handle for m in messages]
    answer = s.pop.ack(AckRequest("G", TOPIC, tuple(handles)))
    assert answer.code == ResponseCode.SUCCESS, answer
    return [r.pop_code for r in answer.results]


def inflight(s: Consumers) -> int:
    progress = s.offsets.progress(pb.GetConsumerProgressRequest(group="G", topic=TOPIC))
    assert progress.code == ResponseCode.SUCCESS, progress
    return sum(q.inflight for q in progress.queues)


def act(b: Broker, since_ms: int) -> None:
    """The home replica becomes a slave (its master gone) and acts as its set's read-only master."""
    assert b.replica is not None
    b.replica.change_to_slave("127.0.0.1:1", 2)
    b.acting_since_ms = since_ms


def promote(b: Broker, epoch: int) -> None:
    assert b.replica is not None
    b.acting_since_ms = 0
    b.replica.change_to_master(epoch, frozenset({1}), epoch, lambda _s: None)


def test_a_new_master_serves_no_consumer_before_its_pre_online(sets: tuple[Broker, Broker]) -> None:
    home, _ = sets
    assert home.consumers.ledger.pre_online  # from the role change on, before any request looked (ListBrokers, metrics)
    send(home, 2)
    refused = receive(home.consumers)
    assert refused.code == ResponseCode.SERVICE_NOT_AVAILABLE and "pre-online" in refused.remark
    assert home.consumers.ledger.pre_online
    online(home.consumers)
    assert not home.consumers.ledger.pre_online
    assert len(receive(home.consumers).messages) == 2


def test_the_returning_master_takes_back_what_the_acting_replica_consumed(sets: tuple[Broker, Broker]) -> None:
    home, escape = sets
    online(home.consumers)
    send(home, 10)
    before = receive(home.consumers, 4).messages
    assert ack(home.consumers, before[:2]) == [20000, 20000]

    act(home, 1_700_000_000_000)
    refused = receive(home.consumers)  # an acting replica takes back earlier escapes before it serves
    assert refused.code == ResponseCode.SERVICE_NOT_AVAILABLE
    online(home.consumers)
    during = receive(home.consumers).messages
    assert len(during) == 6  # the ones never delivered; the two unacked are still invisible
    assert ack(home.consumers, during[:3]) == [20000] * 3
    sent = pb.UpdateConsumerOffsetRequest(group="G", topic=TOPIC, queue_id=0, offset=0)
    assert home.consumers.offsets.update_offset(sent).code == ResponseCode.NO_PERMISSION  # a reset needs a master
    held = escape.consumers.intake.escaped_for(HOME)
    assert len(held) == 2 + 3  # the receive's two queues, the three acks: each change its own key
    assert len({e.key for e in held}) == len(held)
    waiting = escape.consumers.offsets.progress(pb.GetConsumerProgressRequest(group="G")).escaped  # consumerProgress
    assert {(w.home, w.topic) for w in waiting} == {(HOME, TOPIC)} and sum(w.changes for w in waiting) == len(held)
    assert not escape.consumers.offsets.progress(pb.GetConsumerProgressRequest(group="other")).escaped

    promote(home, 3)
    assert receive(home.consumers).code == ResponseCode.SERVICE_NOT_AVAILABLE
    taken = take_back.phase(home.consumers.ledger)
    assert taken is not None
    released = take_back.merge(home.consumers.ledger, taken[0], [], {ESCAPE: held})
    assert sorted(released[ESCAPE]) == sorted(e.key for e in held)
    assert inflight(home.consumers) == 2 + 3  # nothing acked is in flight again, nothing in flight forgotten
    assert receive(home.consumers).code == ResponseCode.PULL_NOT_FOUND
    # The handles the acting replica gave out ack on the returning master: their tickets came back too.
    assert ack(home.consumers, during[3:]) == [20000] * 3
    assert ack(home.consumers, before[2:]) == [20000] * 2
    assert inflight(home.consumers) == 0

    escape.consumers.intake.release_escaped(EscapeReleased(HOME, tuple(released[ESCAPE])))
    assert escape.consumers.intake.escaped_for(HOME) == []


def test_a_change_taken_back_twice_changes_nothing(sets: tuple[Broker, Broker]) -> None:
    home, escape = sets
    online(home.consumers)
    send(home, 4)
    act(home, 1_700_000_000_000)
    online(home.consumers)
    during = receive(home.consumers).messages
    ack(home.consumers, during)
    held = escape.consumers.intake.escaped_for(HOME)
    promote(home, 3)
    online(home.consumers, {ESCAPE: held})
    sweep = take_back.phase(home.consumers.ledger)
    assert sweep is not None and not sweep[1]
    # a sweep that finds them again (not released yet)
    take_back.merge(home.consumers.ledger, sweep[0], [], {ESCAPE: held})
    assert inflight(home.consumers) == 0
    assert receive(home.consumers).code == ResponseCode.PULL_NOT_FOUND


def test_an_acting_replica_without_an_escape_master_answers_retry_and_changes_nothing(
    sets: tuple[Broker, Broker],
) -> None:
    home, escape = sets
    online(home.consumers)
    send(home, 3)
    act(home, 1_700_000_000_000)
    online(home.consumers)
    home.escape_to = None
    refused = receive(home.consumers)
    assert refused.code == ResponseCode.SERVICE_NOT_AVAILABLE and not refused.messages
    home.escape_to = escape.consumers
    assert len(receive(home.consumers).messages) == 3  # the refused receive handed nothing out


def test_escaped_changes_must_name_their_home(sets: tuple[Broker, Broker]) -> None:
    _, escape = sets
    with pytest.raises(Refused, match="home set"):
        escape.consumers.intake.take_escaped(ESCAPE, [], [])
    with pytest.raises(Refused, match="no escaped change"):
        escape.consumers.intake.take_escaped(HOME, [], [])


def test_a_master_that_ran_nothing_for_long_takes_back_what_a_slave_acted_before_it_serves(
    sets: tuple[Broker, Broker], tmp_path: Path
) -> None:
    """A master paused (SIGSTOP, a stalled host) while its set's slave acted: the changes the slave escaped must be
    merged before it serves again, or it would deliver again what the group acked meanwhile."""
    paused, escape = sets
    online(paused.consumers)
    send(paused, 4)
    slave = Broker(tmp_path / "slave", HOME)  # the same log, acting while the master is paused
    slave.escape_to = escape.consumers
    send(slave, 4)
    act(slave, 1_700_000_000_000)
    online(slave.consumers)
    assert ack(slave.consumers, receive(slave.consumers, 2).messages) == [20000, 20000]
    held = escape.consumers.intake.escaped_for(HOME)
    assert held

    now, half_bound_s = time.monotonic(), paused.config.broker_not_active_timeout_millis / 2000
    assert not paused.consumers.ledger.tick(now + 0.1)  # a short gap: still online
    assert not paused.consumers.ledger.pre_online
    assert paused.consumers.ledger.tick(now + 0.1 + half_bound_s)
    assert not paused.consumers.ledger.tick(now + 0.2 + half_bound_s)  # reported once
    refused = receive(paused.consumers)
    assert refused.code == ResponseCode.SERVICE_NOT_AVAILABLE and "pre-online" in refused.remark
    assert paused.consumers.ledger.pre_online
    online(paused.consumers, {ESCAPE: held})
    assert inflight(paused.consumers) == 0  # the two acked are acked here too
    assert len(receive(paused.consumers).messages) == 2  # only the two never delivered
    assert slave.replica is not None
    slave.replica.close()


def test_an_acting_replica_or_a_master_with_the_key_off_ignores_a_gap(sets: tuple[Broker, Broker]) -> None:
    home, _ = sets
    online(home.consumers)
    send(home, 2)
    act(home, 1_700_000_000_000)
    online(home.consumers)
    assert home.consumers.ledger.tick(time.monotonic() + 3600)  # noticed, but an acting replica takes nothing back
    assert len(receive(home.consumers).messages) == 2
    promote(home, 3)
    home.config = replace(home.config, enable_slave_acting_master=False)
    assert receive(home.consumers, 1).code == ResponseCode.SUCCESS
    assert not home.consumers.ledger.tick(time.monotonic() + 7200)
    assert receive(home.consumers, 1).code == ResponseCode.SUCCESS  # served on: no pre-online with the key off
