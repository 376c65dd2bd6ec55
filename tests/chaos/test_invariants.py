"""The invariant checkers on hand-made histories: each one finds the violation it exists for, and only that."""

from __future__ import annotations

from agents.consumer.state import ConsumerState
from agents.delay.timer import BATCH
from agents.pop.handle import ReceiptHandle
from agents.pop.model import Inflight, QueueKey, QueueState
from tests.harness.chaos.history import (
    Ack,
    ControllerView,
    DelayedSend,
    FinalLog,
    History,
    LeaseAnswer,
    ReplicaFiles,
    RoleChange,
    Seen,
    TransactionEnd,
    TransactionSend,
)
from tests.harness.chaos.invariants import (
    check_acked_present,
    check_all,
    check_consumer_groups,
    check_controller_monotonic,
    check_controllers_agree,
    check_delayed,
    check_lease_answers,
    check_replicas_identical,
    check_seen_kept,
    check_single_writer,
    check_transactions,
    copies_of,
)
from tests.harness.consumer_ledger import Acked, Delivered, Hidden, Ledger, Sent, check_fifo

SET = "broker-a"


def ack(payload: str, queue_offset: int, commit_log_offset: int, broker_id: int = 1, epoch: int = 1) -> Ack:
    return Ack(SET, payload, broker_id, f"127.0.0.1:{1000 + broker_id}", epoch, 0, queue_offset, commit_log_offset, 0.0)


def final(at: dict[tuple[int, int], str], records: dict[int, str]) -> dict[str, FinalLog]:
    return {SET: FinalLog("agent0", at, records)}


GOOD_LOG = final({(0, 0): "p0", (0, 1): "p1"}, {0: "p0", 100: "p1"})
GOOD_ACKS = [ack("p0", 0, 0), ack("p1", 1, 100)]


def replica(
    node: str,
    broker_id: int,
    log: bytes,
    *,
    master: bool = False,
    epochs: tuple[tuple[int, int], ...] = ((1, 0),),
    confirm: int = 8,
) -> ReplicaFiles:
    return ReplicaFiles(node, broker_id, master, confirm, 0, log, epochs)


def view(node: str, master_epoch: int, sss_epoch: int, seq: float, master: int | None = 1) -> ControllerView:
    return ControllerView(node, SET, master_epoch, sss_epoch, master, (1, 2, 3), seq)


# --- 1: acknowledged messages are present, once, at their offsets --------------------------------


def test_a_consistent_history_has_no_violation() -> None:
    history = History(
        acks=GOOD_ACKS,
        seen=[Seen(SET, 0, 1, "p1", "agent1", 0.0)],
        role_changes=[RoleChange(SET, 1, "master", 1, "agent0"), RoleChange(SET, 2, "slave", 1, "agent1")],
        controller_views=[view("n0", 1, 1, 0.0), view("n0", 1, 2, 1.0), view("n1", 2, 3, 2.0)],
        final_logs=GOOD_LOG,
        replicas={SET: [replica("agent0", 1, b"abcdefgh", master=True), replica("agent1", 2, b"abcdefghXY")]},
        controller_states={"n0": {SET: view("n0", 2, 3, 0)}, "n1": {SET: view("n1", 2, 3, 0)}},
        lease_answers=[lease("n0", 1, 0.0, 0.1), lease("n1", 2, 0.5, 0.6), lease("n1", 2, 0.7, 0.8)],
    )
    assert check_all(history) == []


def test_a_lost_acknowledged_message_is_reported_with_its_offsets() -> None:
    violations = check_acked_present(GOOD_ACKS, final({(0, 0): "p0"}, {0: "p0"}))
    assert [v.invariant for v in violations] == [1, 1]
    assert "payload p1" in violations[0].text and "queue 0 offset 1 holds nothing" in violations[0].text
    assert "no record at offset 100" in violations[1].text


def test_an_acknowledged_message_overwritten_at_its_offset_is_reported() -> None:
    violations = check_acked_present(GOOD_ACKS, final({(0, 0): "p0", (0, 1): "other"}, {0: "p0", 100: "p1"}))
    assert len(violations) == 1 and "holds other" in violations[0].text


def test_an_acknowledged_message_stored_twice_is_reported() -> None:
    log = final({(0, 0): "p0", (0, 1): "p1", (0, 2): "p1"}, {0: "p0", 100: "p1", 200: "p1"})
    texts = [v.text for v in check_acked_present(GOOD_ACKS, log)]
    assert any("stored 2 times in the queue" in t for t in texts)
    assert any("stored 2 times in the commit log" in t for t in texts)


def test_a_set_without_a_final_master_is_reported() -> None:
    assert check_acked_present(GOOD_ACKS, {})[0].text.startswith("no final master")


# --- 2: one writer per masterEpoch -----------------------------------------------------------------


def test_two_brokers_acknowledging_in_one_epoch_is_reported() -> None:
    violations = check_single_writer(
        [ack("p0", 0, 0, broker_id=1, epoch=3), ack("p1", 1, 100, broker_id=2, epoch=3)], []
    )
    assert len(violations) == 1
    assert "masterEpoch 3 had 2 writers" in violations[0].text and "broker 2 acked p1" in violations[0].text


def test_an_ack_from_a_broker_that_was_not_the_epochs_master_is_reported() -> None:
    violations = check_single_writer([ack("p0", 0, 0, broker_id=1, epoch=4)], [RoleChange(SET, 2, "master", 4, "a1")])
    assert len(violations) == 1 and "logged becoming master on a1" in violations[0].text


def test_two_brokers_logging_master_in_one_epoch_is_reported() -> None:
    changes = [RoleChange(SET, 1, "master", 2, "a0"), RoleChange(SET, 3, "master", 2, "a2")]
    assert [v.invariant for v in check_single_writer([], changes)] == [2]


def test_one_broker_master_in_successive_epochs_is_fine() -> None:
    changes = [
        RoleChange(SET, 1, "master", 1, "a0"),
        RoleChange(SET, 1, "master", 2, "a0"),
        RoleChange(SET, 2, "slave", 2, "a1"),
    ]
    assert check_single_writer([ack("p0", 0, 0, broker_id=1, epoch=2)], changes) == []


# --- 3: replicas identical up to the confirmOffset, epoch files agree ------------------------------


def test_a_replica_differing_below_the_confirm_offset_is_reported_at_the_first_byte() -> None:
    group = [replica("agent0", 1, b"abcdefgh", master=True), replica("agent1", 2, b"abcXefgh")]
    violations = check_replicas_identical({SET: group})
    assert len(violations) == 1 and "differs from master 1 at offset 3" in violations[0].text


def test_a_difference_past_the_confirm_offset_is_allowed() -> None:
    group = [replica("agent0", 1, b"abcdefgh", master=True, confirm=4), replica("agent1", 2, b"abcdXXXX")]
    assert check_replicas_identical({SET: group}) == []


def test_a_replica_short_of_the_confirm_offset_is_reported() -> None:
    group = [replica("agent0", 1, b"abcdefgh", master=True), replica("agent1", 2, b"abc")]
    assert "holds 3 bytes, below the confirmOffset 8" in check_replicas_identical({SET: group})[0].text


def test_epoch_files_disagreeing_on_a_common_epoch_are_reported() -> None:
    group = [
        replica("agent0", 1, b"abcdefgh", master=True, epochs=((1, 0), (2, 4))),
        replica("agent1", 2, b"abcdefgh", epochs=((1, 0), (2, 6))),
    ]
    violations = check_replicas_identical({SET: group})
    assert len(violations) == 1 and "epoch 2 starts at 4 on broker 1" in violations[0].text


def test_no_single_master_after_healing_is_reported() -> None:
    group = [replica("agent0", 1, b"ab"), replica("agent1", 2, b"ab")]
    assert "0 replicas are master" in check_replicas_identical({SET: group})[0].text


# --- 4: controller epochs monotonic per node, nodes agree after healing -----------------------------


def test_a_master_epoch_going_back_on_one_node_is_reported() -> None:
    violations = check_controller_monotonic([view("n0", 3, 5, 1.0), view("n0", 2, 6, 2.0), view("n1", 1, 1, 3.0)])
    assert len(violations) == 1
    assert "masterEpoch went back from 3 to 2 on controller n0" in violations[0].text


def test_a_sync_state_set_epoch_going_back_is_reported_even_when_polled_out_of_order() -> None:
    violations = check_controller_monotonic([view("n1", 3, 7, 2.0), view("n1", 3, 8, 1.0)])
    assert len(violations) == 1 and "syncStateSetEpoch went back from 8 to 7" in violations[0].text


def test_different_nodes_may_lag_each_other() -> None:
    assert check_controller_monotonic([view("n0", 5, 9, 1.0), view("n1", 4, 8, 2.0)]) == []


def test_controller_nodes_that_disagree_after_healing_are_reported() -> None:
    states = {"n0": {SET: view("n0", 4, 6, 0)}, "n1": {SET: view("n1", 4, 6, 0)}, "n2": {SET: view("n2", 4, 5, 0)}}
    violations = check_controllers_agree(states)
    assert len(violations) == 1 and "n2: masterEpoch 4, syncStateSetEpoch 5" in violations[0].text


def test_a_node_missing_a_set_after_healing_is_reported() -> None:
    states = {"n0": {SET: view("n0", 1, 1, 0)}, "n1": {}}
    assert "n1: no such set" in check_controllers_agree(states)[0].text


# --- 5: nothing a consumer saw is truncated later ---------------------------------------------------


def test_a_consumed_message_that_was_truncated_is_reported() -> None:
    seen = [Seen(SET, 0, 1, "p1", "agent1", 0.0), Seen(SET, 0, 2, "p2", "agent2", 0.0)]
    violations = check_seen_kept(seen, GOOD_LOG)
    assert len(violations) == 1
    assert violations[0].invariant == 5 and "read p2 at queue 0 offset 2 from agent2" in violations[0].text


def test_a_consumed_offset_that_now_holds_another_message_is_reported() -> None:
    violations = check_seen_kept([Seen(SET, 0, 0, "old", "agent0", 0.0)], GOOD_LOG)
    assert len(violations) == 1 and "now holds p0" in violations[0].text


# --- 6: answers to the lease question are linearizable -------------------------------------------


def lease(node: str, epoch: int, asked_at: float, answered_at: float) -> LeaseAnswer:
    return LeaseAnswer(node, SET, epoch, epoch, asked_at, answered_at)


def test_an_older_epoch_answered_after_a_newer_one_was_received_is_reported() -> None:
    """The deposed leader n0, partitioned, answers epoch 1 after the new leader n1 answered epoch 2."""
    found = check_lease_answers([lease("n0", 1, 0.0, 0.1), lease("n1", 2, 1.0, 1.1), lease("n0", 1, 2.0, 2.1)])
    assert [(v.invariant, v.broker_set) for v in found] == [(6, SET)]
    assert "controller n0 answered masterEpoch 1" in found[0].text and "n1 had answered masterEpoch 2" in found[0].text


def test_overlapping_questions_may_see_either_epoch() -> None:
    """Asked before the newer answer came back: the two are concurrent, either order is linearizable."""
    assert check_lease_answers([lease("n1", 2, 1.0, 1.5), lease("n0", 1, 1.2, 1.6)]) == []


def test_lease_answers_of_different_sets_are_not_compared() -> None:
    other = LeaseAnswer("n0", "broker-b", 1, 1, 2.0, 2.1)
    assert check_lease_answers([lease("n1", 2, 1.0, 1.1), other]) == []


# --- 7: consumer groups through failovers ----------------------------------------------------------

Q = QueueKey("G", "Chaos", 0)


def handle(offset: int, ticket: int = 1, attempt: int = 1) -> str:
    return ReceiptHandle(SET, Q.group, Q.topic, Q.queue_id, offset, 50_000, attempt, ticket).encode()


def delivered(
    payload: str, offset: int, at: int, *, attempt: int = 1, group: str = "", until: int = 50_000
) -> Delivered:
    return Delivered(payload, group, attempt, handle(offset, attempt, attempt), at, at + 1, until)


def acked(payload: str, offset: int, at: int, attempt: int = 1) -> Acked:
    return Acked(payload, handle(offset, attempt, attempt), at, at + 1)


def ledger(*facts: Sent | Delivered | Hidden | Acked) -> Ledger:
    out = Ledger()
    out.record(*facts)
    return out


def state(committed: int, inflight: dict[int, int] | None = None) -> dict[str, ConsumerState]:
    """A rebuilt state: everything below `committed` consumed; `inflight` offset → ticket, delivered and unacked."""
    flying = {o: Inflight(t, 50_000, t) for o, t in (inflight or {}).items()}
    scanned = max([committed, *(o + 1 for o in flying)])
    queue = QueueState(committed=committed, scanned=scanned, inflight=flying)
    return {SET: ConsumerState(seq=1, queues={Q: queue})}


GOOD_GROUP = ledger(
    Sent("p0"),
    Sent("p1"),
    delivered("p0", 0, 10),
    delivered("p1", 1, 10),
    acked("p0", 0, 20),
    delivered("p1", 1, 40, attempt=2),  # left unacked: back after its invisibility, with the next attempt
    acked("p1", 1, 50, attempt=2),
)


def test_a_group_that_got_everything_back_once_has_no_violation() -> None:
    assert check_consumer_groups({SET: GOOD_GROUP}, state(2)) == []


def test_a_message_delivered_after_its_ack_was_answered_is_reported() -> None:
    group = ledger(*GOOD_GROUP.sent, *GOOD_GROUP.deliveries, *GOOD_GROUP.acks, delivered("p0", 0, 60, attempt=2))
    texts = [v.text for v in check_consumer_groups({SET: group}, state(2)) if v.invariant == 7]
    assert len(texts) == 1 and "p0 was acked at 21" in texts[0] and "delivered again" in texts[0]


def test_a_message_sent_and_never_acked_is_reported_lost() -> None:
    group = ledger(Sent("p0"), Sent("lost"), delivered("p0", 0, 10), acked("p0", 0, 20))
    [v] = check_consumer_groups({SET: group}, state(1))
    assert "never acked" in v.text and "lost" in v.text


def test_a_redelivery_with_no_higher_attempt_is_reported() -> None:
    group = ledger(Sent("p0"), delivered("p0", 0, 10), delivered("p0", 0, 30), acked("p0", 0, 40))
    [v] = check_consumer_groups({SET: group}, state(1))
    assert "attempt 1" in v.text and "after attempt 1" in v.text


def test_a_rebuilt_state_that_lost_an_ack_or_a_delivery_is_reported() -> None:
    # The client was told p0 acked and p1 delivered; a state rebuilt without them would hand both out again.
    group = ledger(Sent("p0"), delivered("p0", 0, 10), delivered("p1", 1, 10), acked("p0", 0, 20))
    texts = [v.text for v in check_consumer_groups({SET: group}, state(0, {0: 1})) if v.text.startswith("rebuilt")]
    assert any("offset 0 was acked to a consumer but is in flight again" in t for t in texts)
    assert any("offset 1 was delivered but is unknown to the new master" in t for t in texts)


def test_fifo_order_and_blocking_breaches_are_reported() -> None:
    sent = [Sent("a0", "A"), Sent("a1", "A"), Sent("a2", "A")]
    early = ledger(*sent, delivered("a1", 1, 10, group="A"), delivered("a0", 0, 20, group="A"))
    assert any("a1 was handed out before a0" in t for t in check_fifo(early.sent, early.deliveries, [], []))
    blocked = ledger(*sent, delivered("a0", 0, 10, group="A", until=100), delivered("a1", 1, 30, group="A"))
    assert any("while a0 was unacked and invisible until 100" in t for t in check_fifo(
        blocked.sent, blocked.deliveries, [], []))  # fmt: skip
    visible = ledger(*sent, delivered("a0", 0, 10, group="A", until=20), delivered("a1", 1, 30, group="A"))
    assert not [t for t in check_fifo(visible.sent, visible.deliveries, [], []) if "invisible" in t]
    order = ledger(*sent[:2], delivered("a0", 0, 10, group="A"), delivered("a1", 1, 10, group="A"),
                   acked("a1", 1, 20), acked("a0", 0, 30))  # fmt: skip
    assert check_fifo(order.sent, order.deliveries, [], order.acks) == [
        "message group A: acked a1 where a0 was next in send order"
    ]


def test_a_second_copy_of_a_delayed_message_is_checked_as_its_own_message() -> None:
    """A failover inside a delivery put stores the delayed message twice: the group gets the copy at offset 5 after
    acking the one at offset 2. By payload that is a redelivery; by copy, each copy's own ack is still final."""
    twice = ledger(
        Sent("p0"),
        delivered("p0", 0, 10),
        acked("p0", 0, 20),
        delivered("d1", 2, 10),
        acked("d1", 2, 20),
        delivered("d1", 5, 30),
        acked("d1", 5, 40),
    )
    assert check_consumer_groups({SET: twice}, state(6), delayed=["d1"]) == []
    assert [v.invariant for v in check_consumer_groups({SET: twice}, state(6))] == [7, 7]  # again, attempt 1 again
    again = ledger(*twice.sent, *twice.deliveries, *twice.acks, delivered("d1", 5, 60, attempt=2))
    [v] = check_consumer_groups({SET: again}, state(6), delayed=["d1"])
    assert "d1@0:5 was acked at 41" in v.text and "delivered again" in v.text


# --- 8: delayed messages ------------------------------------------------------------------------------


def delayed_log(copies: dict[tuple[int, int], tuple[str, int]]) -> dict[str, FinalLog]:
    """A final log holding `copies`: (queue id, queue offset) → (payload, store timestamp)."""
    at = {k: p for k, (p, _) in copies.items()}
    return {SET: FinalLog("agent0", at, {}, {k: ms for k, (_, ms) in copies.items()})}


DELAYED = [DelayedSend(SET, "d0", 1_000, acked=True), DelayedSend(SET, "d1", 2_000, acked=True)]
MASTERS = [RoleChange(SET, 1, "master", 1, "agent0"), RoleChange(SET, 2, "master", 2, "agent1")]  # one change


def test_delayed_messages_delivered_once_and_on_time_have_no_violation() -> None:
    log = delayed_log({(0, 0): ("p0", 500), (1, 0): ("d0", 1_000), (2, 0): ("d1", 2_400)})
    assert check_delayed(DELAYED, log, []) == []


def test_an_unacknowledged_delayed_send_may_be_missing_but_is_held_to_its_due_time() -> None:
    maybe = [DelayedSend(SET, "d2", 3_000, acked=False)]
    assert check_delayed(maybe, delayed_log({}), []) == []
    [v] = check_delayed(maybe, delayed_log({(0, 4): ("d2", 2_999)}), [])
    assert "d2 (due at 3000) was stored at queue 0 offset 4 of agent0 at 2999, 1 ms early" in v.text


def test_a_lost_delayed_message_is_reported() -> None:
    [v] = check_delayed(DELAYED, delayed_log({(1, 0): ("d0", 1_000)}), MASTERS)
    assert (v.invariant, v.broker_set) == (8, SET)
    assert "delayed payload d1 (PUT_OK, due at 2000) is not in the topic on agent0" in v.text


def test_a_delayed_message_stored_before_its_due_time_is_reported() -> None:
    [v] = check_delayed(DELAYED, delayed_log({(1, 0): ("d0", 1_000), (2, 0): ("d1", 1_500)}), [])
    assert "d1 (due at 2000) was stored at queue 2 offset 0 of agent0 at 1500, 500 ms early" in v.text


def test_one_delivery_put_again_per_master_change_is_allowed_and_more_is_reported() -> None:
    sends = [DelayedSend(SET, f"d{i}", 1_000, acked=True) for i in range(BATCH + 1)]
    copies = {(0, i): (f"d{i}", 1_000) for i in range(BATCH + 1)}
    again = {(1, i): (f"d{i}", 1_100) for i in range(BATCH)}
    assert check_delayed(sends, delayed_log(copies | again), MASTERS) == []
    [v] = check_delayed(sends, delayed_log(copies | again | {(1, BATCH): (f"d{BATCH}", 1_100)}), MASTERS)
    assert f"{BATCH + 1} extra copies of delayed payloads, above {BATCH} per master change (1 master changes)" in v.text
    [v] = check_delayed(sends[:1], delayed_log({(0, 0): ("d0", 1_000), (1, 0): ("d0", 1_000)}), MASTERS[:1])
    assert "1 extra copies" in v.text and "(0 master changes), e.g. of ['d0']" in v.text


def test_a_delayed_message_escaped_into_another_sets_topic_counts_there_and_is_held_to_its_due_time() -> None:
    """RIP-32: an acting replica's due delivery is re-put into the topic on another set's master."""
    home = delayed_log({(1, 0): ("d0", 1_000)})
    escape = FinalLog("agent2", {(3, 7): "d1"}, {}, {(3, 7): 2_000})
    assert check_delayed(DELAYED, home | {"set-b": escape}, []) == []
    assert copies_of((d.payload for d in DELAYED), home | {"set-b": escape})["d1"] == [("set-b", 3, 7)]
    early = FinalLog("agent2", {(3, 7): "d1"}, {}, {(3, 7): 1_900})
    [v] = check_delayed(DELAYED, home | {"set-b": early}, [])
    assert (v.invariant, v.broker_set) == (8, SET)
    assert "d1 (due at 2000) was stored at queue 3 offset 7 of agent2 (set-b) at 1900, 100 ms early" in v.text


def test_a_delayed_message_without_a_final_master_is_reported() -> None:
    assert [v.text for v in check_delayed(DELAYED[:1], {}, [])] == ["no final master to check delayed payload d0"]


def test_check_all_checks_delayed_messages() -> None:
    history = History(delayed=DELAYED[:1], final_logs=delayed_log({}))
    assert [v.invariant for v in check_all(history)] == [8]


# --- 9: transactional messages ------------------------------------------------------------------------


TXS = [
    TransactionSend(SET, "t0", acked=True, commit=True, ends=True, transaction_id="broker-a@0@100"),
    TransactionSend(SET, "t1", acked=True, commit=False, ends=True, transaction_id="broker-a@1@200"),
    TransactionSend(SET, "t2", acked=True, commit=True, ends=False, transaction_id="broker-a@2@300"),
    TransactionSend(SET, "t3", acked=False, commit=False, ends=False, transaction_id=None),
]
ENDS = [
    TransactionEnd(SET, "t0", commit=True, from_check=False, asked_ms=1_000, asked_at=1.0, code=0),
    TransactionEnd(SET, "t1", commit=False, from_check=False, asked_ms=1_100, asked_at=1.1, code=0),
    TransactionEnd(SET, "t2", commit=True, from_check=True, asked_ms=3_000, asked_at=3.0, code=0),
]


def transactions(
    copies: dict[tuple[int, int], tuple[str, int]],
    seen: list[Seen] | None = None,
    groups: dict[str, Ledger] | None = None,
    open_transactions: dict[str, list[str]] | None = None,
) -> History:
    """Transactions `TXS` ended by `ENDS`, with a final log of `copies` (see `delayed_log`)."""
    return History(
        transactions=TXS,
        transaction_ends=ENDS,
        final_logs=delayed_log(copies),
        seen=seen or [],
        groups=groups or {},
        open_transactions=open_transactions or {},
    )


COMMITTED = {(0, 0): ("t0", 1_000), (1, 0): ("t2", 3_001)}


def test_commits_delivered_once_after_their_end_and_no_rollback_seen_have_no_violation() -> None:
    group = ledger(delivered("t0", 0, 1_500), acked("t0", 0, 1_600))
    seen = [Seen(SET, 0, 0, "t0", "agent1", 1.2)]
    assert check_transactions(transactions(COMMITTED, seen=seen, groups={SET: group})) == []
    assert check_all(transactions(COMMITTED, seen=seen)) == []  # invariant 5 reads the same copies


def test_a_lost_commit_is_reported() -> None:
    [v] = check_transactions(transactions({(0, 0): ("t0", 1_000)}))
    assert (v.invariant, v.broker_set) == (9, SET)
    assert v.text == "committed transaction broker-a@2@300 (t2) is not in the topic on the final masters"


def test_one_extra_copy_of_a_commit_per_master_change_is_allowed_and_more_is_reported() -> None:
    """A new master whose log ends inside the old one's last commit (the copy, not the record) stores the copy
    again on the next commit (docs/storage.md, "Transactional messages")."""
    history = transactions(COMMITTED | {(2, 5): ("t0", 1_200)})
    [v] = check_transactions(history)
    assert "1 extra copies of committed transactions, above one per master change (0 master changes)" in v.text
    assert "t0 (stored at broker-a queue 0 offset 0; stored at broker-a queue 2 offset 5)" in v.text
    history.role_changes = MASTERS
    assert check_transactions(history) == []


def test_a_commit_escaped_into_another_sets_topic_counts_once() -> None:
    """RIP-32: an acting replica's commit puts the copy on another set's master."""
    escape = FinalLog("agent2", {(3, 7): "t2"}, {}, {(3, 7): 3_050})
    history = transactions({(0, 0): ("t0", 1_000)})
    history.final_logs["set-b"] = escape
    assert check_transactions(history) == []


def test_a_rolled_back_or_unacknowledged_transaction_stored_read_or_delivered_is_reported() -> None:
    history = transactions(
        COMMITTED | {(0, 1): ("t1", 1_200)},
        seen=[Seen(SET, 0, 1, "t1", "agent1", 2.0)],
        groups={SET: ledger(delivered("t3", 4, 2_000))},
    )
    texts = sorted(v.text for v in check_transactions(history))
    assert texts == [
        "rolled-back transaction t1 was read at broker-a queue 0 offset 1 from agent1",
        "rolled-back transaction t1 was stored at broker-a queue 0 offset 1",
        "unacknowledged (so rolled-back) transaction t3 was delivered to the group on broker-a",
    ]


def test_a_commit_visible_before_it_was_asked_is_reported() -> None:
    early = {(0, 0): ("t0", 999), (1, 0): ("t2", 3_001)}
    [v] = check_transactions(transactions(early))
    assert v.text == "transaction t0 was stored at broker-a queue 0 offset 0, before its commit was asked at 1000"
    seen = [Seen(SET, 1, 0, "t2", "agent1", 2.9)]
    group = ledger(delivered("t2", 0, 2_900))
    texts = sorted(v.text for v in check_transactions(transactions(COMMITTED, seen=seen, groups={SET: group})))
    assert texts == [
        "transaction t2 was delivered to the group on broker-a, before its commit was asked at 3000",
        "transaction t2 was read at broker-a queue 1 offset 0 from agent1, before its commit was asked at 3000",
    ]
    no_end = History(transactions=TXS[2:3], final_logs=delayed_log({(1, 0): ("t2", 3_001)}))
    [v] = check_transactions(no_end)
    assert v.text.endswith("before any commit of it was asked")


def test_a_transaction_open_after_the_check_bound_is_reported() -> None:
    [v] = check_transactions(transactions(COMMITTED, open_transactions={SET: ["broker-a@2@300"]}))
    assert v.text == "transaction broker-a@2@300 is still open after healing and the check bound"
