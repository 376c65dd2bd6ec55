"""The consumer side (``Consumers``) and SnapshotKeeper over a real master replica in tmp_path (a set of one:
every put is PUT_OK)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from agents.broker import consumer_ledger
from agents.broker.api import (
    Acked,
    AckRequest,
    Changed,
    ChangeInvisibleRequest,
    Ended,
    EndRequest,
    Received,
    ReceiveRequest,
)
from agents.broker.consumer_checks import Refused
from agents.broker.consumer_snapshots import ConsumerStateUnavailable, SnapshotKeeper
from agents.broker.consumers import Consumers
from agents.config import BrokerConfig
from agents.consumer import snapshot
from agents.consumer.records import SYSTEM_TOPIC, Escaped
from agents.consumer.state import ConsumerState
from agents.delay.timer import TIMER_DELIVER_MS, TIMER_TOPIC, to_timer
from agents.ha.config import HAConfig
from agents.ha.master_service import Appended, PutResult
from agents.ha.replica import Replica
from agents.ha.sync_state import PutStatus
from agents.metadata import UNIQ_KEY, Group, MetadataTable, Topic, learn
from agents.pop.model import QueueKey
from agents.store.layout import CONSUMER_SNAPSHOT, STORE_DIR
from agents.store.record import Message
from agents.transaction.half import CHECK_MAX_TOPIC, TRAN_MSG, Resolution, TransactionRef, to_half
from mqbase.clock import SYSTEM
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb

SEG = 64 * 1024
TOPIC = "Orders"


class Broker:
    """The service's host: a real replica, the topic table, and a put that can be made to fail."""

    def __init__(self, root: Path) -> None:
        self.config = replace(BrokerConfig(broker_name="b", store_path_root_dir=str(root)), controller_addr=("x:1",))
        self.replica: Replica | None = Replica(root, 1, HAConfig(), SEG)
        self.replica.change_to_master(1, frozenset({1}), 1, lambda _s: None)
        self.metadata: MetadataTable = learn(MetadataTable(), 1, [Topic(TOPIC, frozenset({"b"}), 2, 2, 6)], [])
        self.refuse: PutStatus | None = None
        self.locked: frozenset[QueueKey] | None = None  # the orderly queues the coordinator holds (None: all)
        self.dead_letter_topics: list[frozenset[str]] = []  # what the service asked to have created

    def append(self, messages: Sequence[Message]) -> Appended | PutResult:
        assert self.replica is not None
        return PutResult(self.refuse) if self.refuse else self.replica.append(messages)

    def master_address(self) -> str:
        return ""

    broker_id = 1
    acting_since_ms = 0  # never acting here: tests/unit/agents/broker/test_rip32_service.py acts

    def escape(self, changes: Sequence[Escaped], copies: Sequence[Message], serving: Callable[[str], bool]) -> str:
        raise AssertionError("a master never escapes")

    def lock_queues(self, keys: Sequence[QueueKey]) -> frozenset[QueueKey]:
        return frozenset(keys) if self.locked is None else self.locked & frozenset(keys)

    def dead_letters_stored(self, topics: frozenset[str]) -> None:
        self.dead_letter_topics.append(topics)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path)
    yield b
    assert b.replica is not None
    b.replica.close()


def service(b: Broker) -> tuple[Consumers, SnapshotKeeper]:
    keeper = SnapshotKeeper(lambda: b.replica, lambda: b.config)
    return Consumers(b, keeper, SYSTEM), keeper


def send(b: Broker, n: int) -> None:
    assert b.replica is not None
    assert b.replica.put([Message(TOPIC, i % 2, f"m{i}".encode(), {}, i) for i in range(n)]).status is PutStatus.PUT_OK


def receive(s: Consumers, group: str = "G", batch: int = 32) -> Received:
    request = ReceiveRequest(group, TOPIC, batch, 60_000)
    return s.pop.receive(request)


def test_acks_hold_in_a_table_rebuilt_from_the_log_and_from_a_snapshot(broker: Broker) -> None:
    send(broker, 6)
    s, keeper = service(broker)
    got = receive(s)
    assert len(got.messages) == 6 and got.messages[0].body_digest
    acked = s.pop.ack(AckRequest("G", TOPIC, tuple(m.receipt_handle for m in got.messages[:4])))
    assert [r.pop_code for r in acked.results] == [20000] * 4
    for rebuilt, _ in (service(broker), (s, keeper)):
        progress = rebuilt.offsets.progress(pb.GetConsumerProgressRequest(group="G", topic=TOPIC))
        assert sum(q.inflight for q in progress.queues) == 2
    cut = keeper.run_once()
    assert cut is not None and cut.state.seq == 6 and keeper.retained_floor() == cut.covered > 0  # 2 receives, 4 acks
    fresh, fresh_keeper = service(broker)
    assert fresh_keeper.latest(broker.replica) == cut  # type: ignore[arg-type]
    assert receive(fresh).code == ResponseCode.PULL_NOT_FOUND  # the two unacked are still invisible


def test_the_first_dead_letter_of_a_group_asks_for_its_topic_once_the_set_serves_it_nothing_more(
    broker: Broker,
) -> None:
    send(broker, 3)
    s, _ = service(broker)
    handles = [m.receipt_handle for m in receive(s).messages]

    def forward(handle: str) -> None:
        dead = s.pop.ack(AckRequest("G", TOPIC, (handle,), dead_letter=True))
        assert [r.pop_code for r in dead.results] == [20000]

    forward(handles[0])
    assert broker.dead_letter_topics == [frozenset({"%DLQ%G"})]
    assert [m.topic for _, m in broker.replica.store.consume("%DLQ%G", 0, 0, 8)] == ["%DLQ%G"]  # type: ignore[union-attr]
    forward(handles[1])  # not created yet (the controller was slow or unreachable): asked again
    assert len(broker.dead_letter_topics) == 2
    dlq = Topic("%DLQ%G", frozenset({"b"}), 1, 1, 6)
    broker.metadata = learn(broker.metadata, 2, [*broker.metadata.topics.values(), dlq], [])
    forward(handles[2])
    assert len(broker.dead_letter_topics) == 2


def test_a_refused_put_answers_its_code_and_the_log_decides_afterwards(broker: Broker) -> None:
    send(broker, 2)
    s, _ = service(broker)
    broker.refuse = PutStatus.FLUSH_SLAVE_TIMEOUT
    refused = receive(s)
    assert (refused.code, list(refused.messages)) == (ResponseCode.FLUSH_SLAVE_TIMEOUT, [])
    broker.refuse = None
    assert len(receive(s).messages) == 2  # nothing was written: the rebuilt table delivers them now


def test_a_slave_refuses_with_the_masters_address(broker: Broker) -> None:
    assert broker.replica is not None
    broker.replica.change_to_slave("127.0.0.1:1", 2)
    s, _ = service(broker)
    assert receive(s).code == ResponseCode.SLAVE_NOT_AVAILABLE


def test_a_damaged_snapshot_is_set_aside_while_the_whole_log_is_there(broker: Broker) -> None:
    send(broker, 2)
    s, _ = service(broker)
    assert len(receive(s).messages) == 2
    path = broker.config.store_root / STORE_DIR / CONSUMER_SNAPSHOT
    path.write_bytes(b"MQCS garbage")
    fresh, _ = service(broker)
    assert receive(fresh).code == ResponseCode.PULL_NOT_FOUND  # rebuilt from the log: both still in flight
    assert path.with_name(CONSUMER_SNAPSHOT + ".damaged").exists()


def test_without_a_snapshot_a_log_that_lost_its_start_is_refused(broker: Broker) -> None:
    assert broker.replica is not None
    while broker.replica.store.max_offset < 3 * SEG:
        send(broker, 50)
    broker.replica.store.set_confirm_offset(broker.replica.store.max_offset)
    assert broker.replica.delete_before(SEG) > 0
    keeper = SnapshotKeeper(lambda: broker.replica, lambda: broker.config)
    with pytest.raises(ConsumerStateUnavailable, match="cannot be rebuilt"):
        keeper.latest(broker.replica)
    refused = Consumers(broker, keeper, SYSTEM).pop.receive(ReceiveRequest("G", TOPIC, 1, 60_000))
    assert refused.code == ResponseCode.SYSTEM_ERROR and "restore the file" in refused.remark


def test_the_snapshot_is_rewritten_only_when_it_has_something_new(broker: Broker) -> None:
    s, keeper = service(broker)
    first = keeper.run_once()
    assert first is not None and keeper.run_once() is first
    send(broker, 1)
    receive(s)
    second = keeper.run_once()
    assert second is not None and second.state.seq == 1
    path = broker.config.store_root / STORE_DIR / CONSUMER_SNAPSHOT
    assert snapshot.decode(path.read_bytes()) == second
    assert broker.replica is not None
    assert broker.replica.store.queue_range(SYSTEM_TOPIC, 0)[1] == 1


def paged(keeper: SnapshotKeeper, page_bytes: int) -> bytes | None:
    """The keeper's snapshot read as GetConsumerSnapshot serves it, `page_bytes` at a time."""
    out = b""
    while True:
        page = keeper.page(len(out), page_bytes)
        if page is None:
            return None
        _, total, data = page
        out += data
        if len(out) >= total:
            return out


def test_the_snapshot_is_served_page_by_page(broker: Broker) -> None:
    send(broker, 4)
    s, keeper = service(broker)
    assert keeper.page(0, 100) is None  # no snapshot yet
    receive(s)
    cut = keeper.run_once()
    assert cut is not None and paged(keeper, 7) == snapshot.encode(cut)


@pytest.mark.parametrize("delta", [0, -1, 1])
def test_a_replica_whose_log_starts_late_takes_the_masters_snapshot(broker: Broker, tmp_path: Path, delta: int) -> None:
    """An empty slave starts at the master's first file (SEG here); a snapshot at that offset is all it needs."""
    state = ConsumerState(seq=3)
    master_snapshot = snapshot.Snapshot(SEG + delta, state)
    late = Replica(tmp_path / "late", 2, HAConfig(), SEG)
    try:
        late.store.start_at(SEG)
        keeper = SnapshotKeeper(lambda: late, lambda: broker.config, fetch=lambda: snapshot.encode(master_snapshot))
        if delta == 0:
            assert keeper.latest(late) == master_snapshot
            assert (late.root / STORE_DIR / CONSUMER_SNAPSHOT).read_bytes() == snapshot.encode(master_snapshot)
        else:  # not inside this log (behind its start, or ahead of what it replicated): refused, retried later
            with pytest.raises(ConsumerStateUnavailable, match="outside this log"):
                keeper.latest(late)
    finally:
        late.close()


def test_without_the_master_a_late_log_is_refused_until_it_answers(broker: Broker, tmp_path: Path) -> None:
    late = Replica(tmp_path / "late", 2, HAConfig(), SEG)
    answer: list[bytes | None] = [None]
    try:
        late.store.start_at(SEG)
        keeper = SnapshotKeeper(lambda: late, lambda: broker.config, fetch=lambda: answer[0])
        with pytest.raises(ConsumerStateUnavailable, match="taken from the set's master once it can be"):
            keeper.latest(late)
        answer[0] = snapshot.encode(snapshot.Snapshot(SEG, ConsumerState()))
        assert keeper.latest(late) == snapshot.Snapshot(SEG, ConsumerState())
    finally:
        late.close()


def test_a_broker_that_has_not_read_the_metadata_yet_asks_for_a_retry_instead_of_denying_the_topic(
    broker: Broker,
) -> None:
    """A restarted replica can be master before its first GetMetadata: it knows no topic and no group yet, so it
    must not answer TOPIC_NOT_EXIST (clients do not retry it) nor serve an orderly group with the default policy."""
    send(broker, 1)
    s, _ = service(broker)
    [m] = receive(s).messages
    broker.metadata = MetadataTable()  # version -1: nothing learnt since the start
    refused: list[Received | Acked | Changed | pb.AgentResponse] = [
        receive(s),
        s.pop.ack(AckRequest("G", TOPIC, (m.receipt_handle,))),
        s.pop.change_invisible(ChangeInvisibleRequest("G", TOPIC, m.receipt_handle, 0)),
        s.offsets.update_offset(pb.UpdateConsumerOffsetRequest(group="G", topic=TOPIC, queue_id=0, offset=0)),
    ]
    assert {r.code for r in refused} == {ResponseCode.SERVICE_NOT_AVAILABLE}
    assert all("not read the topics and groups" in r.remark for r in refused)


def test_a_snapshot_above_a_truncation_is_set_aside_and_the_log_decides(broker: Broker) -> None:
    """A replica's log cut back below its snapshot (a deposed master's confirmOffset that its successor never had):
    the records that replace the cut ones reuse their numbers, so the snapshot would hide them as replays."""
    assert broker.replica is not None
    store = broker.replica.store
    send(broker, 4)
    s, keeper = service(broker)
    assert len(receive(s, batch=2).messages) == 2
    [(popped_at, _, _)] = store.records_from(SYSTEM_TOPIC, 0, 0, 10)
    cut = keeper.run_once()
    assert cut is not None and cut.covered > popped_at and cut.state.seq == 1
    store.truncate(popped_at)
    assert keeper.latest(broker.replica) is None
    path = broker.config.store_root / STORE_DIR / CONSUMER_SNAPSHOT
    assert not path.exists() and path.with_name(CONSUMER_SNAPSHOT + ".truncated").exists()
    assert len(receive(Consumers(broker, keeper, SYSTEM)).messages) == 4  # this history delivered nothing yet
    again = keeper.run_once()
    assert again is not None and keeper.latest(broker.replica) == again  # a snapshot cut after the cut stands
    send(broker, 2)
    store.truncate(again.covered)  # a cut at or above a snapshot leaves it standing
    assert store.truncations()[-1] == again.covered
    assert keeper.run_once() == again and path.exists()
    assert sum(len(q.inflight) for q in again.state.queues.values()) == 4  # the new history's records, none hidden


def send_delayed(b: Broker, *due_ms: int) -> None:
    """Timer messages "d0", "d1", ... to queue 1 of the topic, due at `due_ms`, as the send path stores them."""
    assert b.replica is not None
    messages = [
        to_timer(Message(TOPIC, 1, f"d{i}".encode(), {UNIQ_KEY: f"ID{i}", TIMER_DELIVER_MS: str(at)}, 10), 10)
        for i, at in enumerate(due_ms)
    ]
    assert all(isinstance(m, Message) and m.topic == TIMER_TOPIC for m in messages)
    assert b.replica.put([m for m in messages if isinstance(m, Message)]).status is PutStatus.PUT_OK


def test_delayed_messages_are_re_put_when_due_once_and_after_a_rebuild_never_again(broker: Broker) -> None:
    send_delayed(broker, 300, 100, 200)
    s, keeper = service(broker)
    assert receive(s).code == ResponseCode.PULL_NOT_FOUND  # nothing in the topic before its time
    assert s.timers.deliver_due(99) == 100  # the earliest due time: the thread sleeps until then
    assert s.timers.deliver_due(150) == 150  # delivered one: look again at once
    assert s.timers.deliver_due(150) == 200
    first = receive(s)
    got = [(m.message.body, m.message.queue_id, m.message.store_timestamp) for m in first.messages]
    assert got == [(b"d1", 1, 150)]
    assert first.messages[0].message.properties[UNIQ_KEY] == "ID1"
    assert "REAL_TOPIC" not in first.messages[0].message.properties
    assert s.timers.deliver_due(1_000) == 1_000
    assert s.timers.deliver_due(1_000) is None  # nothing waits any more
    assert sorted(m.message.body for m in receive(s).messages) == [b"d0", b"d2"]
    cut = keeper.run_once()
    assert cut is not None and cut.state.timer.floor == 3
    for rebuilt, _ in (service(broker), (s, keeper)):  # a new master rebuilds the progress from its snapshot and log
        assert rebuilt.timers.deliver_due(10_000) is None
    assert broker.replica is not None
    assert broker.replica.store.queue_range(TOPIC, 1) == (0, 3)  # three copies, one each


def test_a_refused_delivery_put_delivers_nothing_and_the_next_pass_does(broker: Broker) -> None:
    send_delayed(broker, 100)
    s, _ = service(broker)
    broker.refuse = PutStatus.SERVICE_NOT_AVAILABLE
    with pytest.raises(Refused):
        s.timers.deliver_due(200)
    broker.refuse = None
    assert s.timers.deliver_due(200) == 200
    assert [m.message.body for m in receive(s).messages] == [b"d0"]


def test_a_slave_delivers_nothing(broker: Broker) -> None:
    send_delayed(broker, 100)
    assert broker.replica is not None
    broker.replica.change_to_slave("127.0.0.1:1", 2)
    with pytest.raises(Refused) as refused:
        service(broker)[0].timers.deliver_due(200)
    assert refused.value.code == ResponseCode.SLAVE_NOT_AVAILABLE


def test_an_orderly_group_is_served_only_from_the_queues_the_coordinator_holds_a_lock_for(broker: Broker) -> None:
    """RIP-32's lock quorum: a queue whose lock the coordinator did not get is left alone (nothing delivered)."""
    broker.metadata = learn(broker.metadata, 2, list(broker.metadata.topics.values()),
                            [Group("FIFO", frozenset({"b"}), True, 16, True)])  # fmt: skip
    send(broker, 4)  # queues 0 and 1
    s, _ = service(broker)
    broker.locked = frozenset({QueueKey("FIFO", TOPIC, 1)})
    assert {m.message.queue_id for m in receive(s, "FIFO").messages} == {1}
    assert {m.message.queue_id for m in receive(s, "G").messages} == {0, 1}  # not orderly: no lock asked
    broker.locked = frozenset()
    assert receive(s, "FIFO").code == ResponseCode.PULL_NOT_FOUND
    broker.locked = None
    assert {m.message.queue_id for m in receive(s, "FIFO").messages} == {0}


def test_a_topic_deleted_and_created_again_replays_nothing_to_its_groups_old_or_new(broker: Broker) -> None:
    """A re-created topic starts after the old one's end: before, the group received every acked message again, and
    a new group the old ones too."""
    send(broker, 6)
    s, _ = service(broker)
    got = receive(s)
    s.pop.ack(AckRequest("G", TOPIC, tuple(m.receipt_handle for m in got.messages)))
    with_topic = broker.metadata
    without = learn(with_topic, 2, [], [])
    s.offsets.forget(with_topic, without)  # deleteTopic, as the master learns it
    broker.metadata = learn(without, 3, [Topic(TOPIC, frozenset({"b"}), 2, 2, 6)], [])  # updateTopic again
    assert broker.replica is not None
    assert broker.replica.put([Message(TOPIC, q, f"new{q}".encode(), {}, 0) for q in (0, 1)]).status is PutStatus.PUT_OK
    for group in ("G", "H"):
        assert sorted(m.message.body for m in receive(s, group).messages) == [b"new0", b"new1"], group
    rebuilt, _ = service(broker)  # the starts come back with the state rebuilt from the log
    assert sorted(m.message.body for m in receive(rebuilt, "K").messages) == [b"new0", b"new1"]
    progress = rebuilt.offsets.progress(pb.GetConsumerProgressRequest(group="L", topic=TOPIC))
    assert [(q.min_offset, q.consumer_offset, q.broker_offset) for q in progress.queues] == [(3, 3, 4), (3, 3, 4)]


# --- transactions --------------------------------------------------------------------------------


def send_halves(b: Broker, count: int, stored_ms: int = 10) -> list[str]:
    """Half messages "t0", "t1", ... to queue 0 of the topic, stored at `stored_ms` as the send path stores them;
    their transaction ids."""
    assert b.replica is not None
    halves = [to_half(Message(TOPIC, 0, f"t{i}".encode(), {UNIQ_KEY: f"TX{i}", TRAN_MSG: "true"}, stored_ms))
              for i in range(count)]  # fmt: skip
    result = b.replica.put(halves)
    assert result.status is PutStatus.PUT_OK
    return [TransactionRef("b", p.queue_offset, p.commit_log_offset).encode() for p in result.placed]


def end(s: Consumers, i: int, tx_id: str, resolution: Resolution | None, message_id: str = "") -> Ended:
    return s.transactions.end(EndRequest(TOPIC, message_id or f"TX{i}", tx_id, resolution))


def copies(b: Broker) -> list[bytes]:
    assert b.replica is not None
    return [m.body for _, m in b.replica.store.consume(TOPIC, 0, 0, 100)]


ENDED_BEFORE = "the transaction was ended before; the first end stands"


def conflict(tx_id: str, stood: str, asked: str) -> tuple[ResponseCode, str]:
    return ResponseCode.MESSAGE_ILLEGAL, f"transaction {tx_id} was {stood} before: {asked} (the first end stands)"


COMMITTED = "committed", "its message is delivered; this rollback is not done"
ROLLED_BACK = "rolled back", "its message is never delivered; this commit is not done"


def test_a_transaction_ends_once_whatever_comes_after(broker: Broker) -> None:
    """A commit stores its copy once; a repeat answers SUCCESS and writes nothing, a rollback after it is refused
    and writes nothing, and so is a commit after a rollback; a rollback stores nothing; UNSPECIFIED ends nothing;
    an id or message the set does not hold is refused."""
    ids = send_halves(broker, 3)
    s, _ = service(broker)
    assert receive(s).code == ResponseCode.PULL_NOT_FOUND  # a half message is no consumer's
    assert end(s, 0, ids[0], Resolution.COMMIT).code == ResponseCode.SUCCESS
    answer = end(s, 0, ids[0], Resolution.COMMIT)
    assert (answer.code, answer.remark) == (ResponseCode.SUCCESS, ENDED_BEFORE)
    answer = end(s, 0, ids[0], Resolution.ROLLBACK)
    assert (answer.code, answer.remark) == conflict(ids[0], COMMITTED[0], COMMITTED[1])
    assert end(s, 1, ids[1], Resolution.ROLLBACK).code == ResponseCode.SUCCESS
    answer = end(s, 1, ids[1], Resolution.COMMIT)
    assert (answer.code, answer.remark) == conflict(ids[1], ROLLED_BACK[0], ROLLED_BACK[1])
    assert end(s, 1, ids[1], Resolution.ROLLBACK).remark == ENDED_BEFORE
    assert end(s, 2, ids[2], None).code == ResponseCode.SUCCESS
    assert copies(broker) == [b"t0"]
    delivered = receive(s).messages
    assert [(d.message.body, d.message.properties[UNIQ_KEY], d.message.properties[TRAN_MSG]) for d in delivered] == [
        (b"t0", "TX0", "true")
    ]
    wrong = [ids[2].replace("b@", "c@"), ids[2][:-1] + "9", "nonsense"]  # another set, another half, no id at all
    bad = [end(s, 2, ids[2], Resolution.COMMIT, message_id="other"), *(end(s, 2, w, Resolution.COMMIT) for w in wrong)]
    assert {a.code for a in bad} == {ResponseCode.MESSAGE_ILLEGAL}
    assert copies(broker) == [b"t0"]
    assert (s.transactions.counts.committed, s.transactions.counts.rolled_back) == (1, 1)


def test_ends_in_flight_at_once_share_the_first_ones_put_and_the_other_resolution_is_refused(broker: Broker) -> None:
    ids = send_halves(broker, 1)
    s, _ = service(broker)
    ledger, release = s.ledger, threading.Event()
    settle = ledger.settle

    def held(appended: consumer_ledger.Appended | None) -> None:  # the first end's put waits for its acknowledgement
        release.wait(10)
        settle(appended)

    ledger.settle = held  # type: ignore[method-assign]
    answers: dict[str, Ended] = {}
    asks = [("first", Resolution.COMMIT), ("repeat", Resolution.COMMIT), ("other", Resolution.ROLLBACK)]
    threads = [threading.Thread(target=lambda n=n, r=r: answers.__setitem__(n, end(s, 0, ids[0], r))) for n, r in asks]
    threads[0].start()
    while not s.transactions._ending:  # the first is in flight
        threading.Event().wait(0.001)
    ending = next(iter(s.transactions._ending.values()))
    for t in threads[1:]:
        t.start()
    while len(ending.settled._cond._waiters) < 2:  # type: ignore[attr-defined]  # both wait for the first's put
        threading.Event().wait(0.001)
    release.set()
    for t in threads:
        t.join(10)
    assert (answers["first"].code, answers["repeat"].code) == (ResponseCode.SUCCESS, ResponseCode.SUCCESS)
    assert (answers["other"].code, answers["other"].remark) == conflict(ids[0], COMMITTED[0], COMMITTED[1])
    assert copies(broker) == [b"t0"] and s.transactions.counts.committed == 1


def test_a_new_master_knows_which_transactions_ended(broker: Broker) -> None:
    ids = send_halves(broker, 2)
    s, keeper = service(broker)
    assert end(s, 0, ids[0], Resolution.COMMIT).code == ResponseCode.SUCCESS
    keeper.run_once()
    assert end(s, 1, ids[1], Resolution.ROLLBACK).code == ResponseCode.SUCCESS  # after the snapshot: in the tail
    rebuilt, _ = service(broker)  # a new master: its snapshot and the records after it
    assert end(rebuilt, 0, ids[0], Resolution.COMMIT).remark == ENDED_BEFORE
    answer = end(rebuilt, 0, ids[0], Resolution.ROLLBACK)  # how it ended, from the snapshot
    assert (answer.code, answer.remark) == conflict(ids[0], COMMITTED[0], COMMITTED[1])
    answer = end(rebuilt, 1, ids[1], Resolution.COMMIT)  # from the log's tail
    assert (answer.code, answer.remark) == conflict(ids[1], ROLLED_BACK[0], ROLLED_BACK[1])
    assert copies(broker) == [b"t0"]
    assert rebuilt.transactions.deliver_due(10**9) is None  # nothing open: nothing to check


def test_a_refused_end_stores_nothing_and_its_retry_ends_it(broker: Broker) -> None:
    ids = send_halves(broker, 1)
    s, _ = service(broker)
    broker.refuse = PutStatus.SERVICE_NOT_AVAILABLE
    assert end(s, 0, ids[0], Resolution.COMMIT).code == ResponseCode.SERVICE_NOT_AVAILABLE
    broker.refuse = None
    assert end(s, 0, ids[0], Resolution.COMMIT).code == ResponseCode.SUCCESS
    assert copies(broker) == [b"t0"]


def test_open_transactions_are_checked_back_counted_and_dropped(broker: Broker) -> None:
    """First after transactionTimeOut from the store, then every transactionCheckInterval; each check-back is
    handed out once, to an access point asking for its topic; at transactionCheckMax the next turn drops it."""
    broker.config = replace(broker.config, transaction_time_out=100, transaction_check_interval=50,
                            transaction_check_max=2)  # fmt: skip
    ids = send_halves(broker, 2, stored_ms=10)
    s, keeper = service(broker)
    tx = s.transactions
    assert tx.deliver_due(50) == 110  # read both: due at 10 + 100
    assert tx.take_checks(frozenset({TOPIC})).checks == ()
    assert tx.deliver_due(110) == 110
    assert tx.take_checks(frozenset({"Other"})).checks == ()  # for a producer of another topic: nothing
    first = tx.take_checks(frozenset({TOPIC})).checks
    assert [(c.transaction_id, c.message.topic, c.message.body) for c in first] == [(ids[0], TOPIC, b"t0"),
                                                                                   (ids[1], TOPIC, b"t1")]  # fmt: skip
    assert "REAL_TOPIC" not in first[0].message.properties and first[0].body_digest
    assert tx.take_checks(frozenset({TOPIC})).checks == ()  # handed out once
    assert end(s, 1, ids[1], Resolution.ROLLBACK).code == ResponseCode.SUCCESS
    assert tx.deliver_due(159) == 160  # the next turn of the one still open
    assert tx.deliver_due(160) == 160
    assert [o.checks for o in tx.open_transactions(TOPIC)] == [2]
    keeper.run_once()
    rebuilt, _ = service(broker)  # a new master goes on counting from the replicated count
    assert rebuilt.transactions.deliver_due(161) == 161  # what is due is checked at once: no last check known here
    assert rebuilt.transactions.take_checks(frozenset({TOPIC})).checks == ()  # dropped, not checked a third time
    assert broker.replica is not None
    dropped_copy = [m for _, m in broker.replica.store.consume(CHECK_MAX_TOPIC, 0, 0, 10)]
    assert [(m.body, m.properties[UNIQ_KEY]) for m in dropped_copy] == [(b"t0", "TX0")]
    assert rebuilt.transactions.open_transactions(TOPIC) == () and copies(broker) == []
    assert rebuilt.transactions.counts.dropped == 1 and tx.counts.checked == 3
    answer = end(rebuilt, 0, ids[0], Resolution.COMMIT)  # its producer answers at last: too late
    assert (answer.code, answer.remark) == conflict(
        ids[0],
        "dropped",
        f"its check-backs went unanswered (kept in {CHECK_MAX_TOPIC}, never delivered); this commit is not done",
    )
    assert end(rebuilt, 0, ids[0], Resolution.ROLLBACK).remark == ENDED_BEFORE  # what happened anyway
    assert copies(broker) == []
