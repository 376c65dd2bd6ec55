"""POP's rules, clock passed in: visibility, attempts, dead letters, FIFO blocking, filters, the committed offset."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

import pytest

from agents.pop.errors import PopCode
from agents.pop.events import Acked, Changed, Delivery, Event, Popped
from agents.pop.filter import ALL, TagFilter, parse_filter
from agents.pop.handle import ReceiptHandle
from agents.pop.model import (
    DEFAULT_LIMITS,
    NO_TICKET,
    Entry,
    GroupPolicy,
    Inflight,
    Limits,
    QueueKey,
    QueueState,
    QueueView,
)
from agents.pop.rules import (
    Ack,
    Answer,
    ChangeInvisible,
    DeadLetter,
    Nack,
    Receive,
    Received,
    ack,
    apply,
    apply_all,
    change_invisible,
    nack,
    receive,
)
from mqbase.retry import DEFAULT_BACKOFF_MS, DEFAULT_RETRY_POLICY, CustomizedRetry, ExponentialRetry, RetryPolicy

BROKER = "broker-a"
Q = QueueKey("G", "T", 0)
INVISIBLE = 30_000
T0 = 1_700_000_000_000
CONCURRENT = GroupPolicy()
ORDERLY = GroupPolicy(orderly=True)


def view(end: int, confirm: int | None = None, min_offset: int = 0, tags: Mapping[int, str] | None = None) -> QueueView:
    """The queue holding offsets [min_offset, end), all read; untagged unless `tags` says otherwise."""
    tags = tags or {}
    entries = {o: Entry(tags.get(o)) for o in range(min_offset, end)}
    return QueueView(BROKER, min_offset, end if confirm is None else confirm, entries)


def pop(
    state: QueueState | None,
    qv: QueueView,
    now: int,
    batch: int = 32,
    policy: GroupPolicy = CONCURRENT,
    flt: TagFilter = ALL,
    invisible: int = INVISIBLE,
) -> tuple[QueueState, Answer[Received]]:
    answer = receive(state, Receive(Q, flt, batch, invisible), qv, policy, now)
    return apply_all(state, answer.events), answer


def got(answer: Answer[Received]) -> list[tuple[int, int]]:
    """(offset, attempt) of each delivered message."""
    assert answer.reply is not None
    return [(h.queue_offset, h.attempt) for h in answer.reply.messages]


def handles(answer: Answer[Received]) -> tuple[ReceiptHandle, ...]:
    assert answer.reply is not None
    return answer.reply.messages


def do_ack(state: QueueState, handle: ReceiptHandle) -> tuple[QueueState, Answer[ReceiptHandle]]:
    answer = ack(state, Ack("G", "T", handle), BROKER)
    return apply_all(state, answer.events), answer


def do_change(
    state: QueueState, handle: ReceiptHandle, invisible: int, now: int
) -> tuple[QueueState, Answer[ReceiptHandle]]:
    answer = change_invisible(state, ChangeInvisible("G", "T", handle, invisible), BROKER, now)
    return apply_all(state, answer.events), answer


# --- receive --------------------------------------------------------------------------------------


def test_a_first_receive_delivers_from_the_queue_start_with_attempt_one_and_fresh_tickets() -> None:
    state, answer = pop(None, view(5), T0, batch=3)
    assert answer.code == PopCode.OK
    assert handles(answer) == tuple(ReceiptHandle(BROKER, "G", "T", 0, o, T0 + INVISIBLE, 1, o + 1) for o in range(3))
    assert answer.events == (Popped(Q, 0, 3, (), (), tuple(Delivery(o, o + 1, T0 + INVISIBLE, 1) for o in range(3))),)
    assert (state.committed, state.scanned, state.next_ticket, dict(state.done)) == (0, 3, 4, {})


@pytest.mark.parametrize(
    ("end", "confirm", "batch", "expected"),
    [
        (5, 5, 32, [0, 1, 2, 3, 4]),
        (5, 2, 32, [0, 1]),
        (5, 0, 32, []),
        (5, 5, 2, [0, 1]),
        (40, 40, 100, list(range(32))),
    ],
)
def test_a_receive_stops_at_the_confirm_offset_and_the_batch_size_capped_at_32(
    end: int, confirm: int, batch: int, expected: list[int]
) -> None:
    _, answer = pop(None, view(end, confirm), T0, batch=batch)
    assert [o for o, _ in got(answer)] == expected
    assert answer.code == (PopCode.OK if expected else PopCode.MESSAGE_NOT_FOUND)


def test_an_empty_receive_writes_no_event() -> None:
    state, _ = pop(None, view(2), T0)
    _, answer = pop(state, view(2), T0 + 1)
    assert (answer.code, answer.events, got(answer)) == (PopCode.MESSAGE_NOT_FOUND, (), [])


def test_invisible_messages_are_skipped_and_expired_ones_come_back_first_with_attempt_plus_one() -> None:
    state, first = pop(None, view(4), T0, batch=2)
    state, second = pop(state, view(4), T0 + 1, batch=2)
    assert (got(first), got(second)) == ([(0, 1), (1, 1)], [(2, 1), (3, 1)])
    state, _ = do_ack(state, handles(first)[1])
    state, third = pop(state, view(6), T0 + INVISIBLE, batch=3)
    assert got(third) == [(0, 2), (4, 1), (5, 1)]
    state, fourth = pop(state, view(6), T0 + INVISIBLE + 1, batch=3)
    assert got(fourth) == [(2, 2), (3, 2)]


def test_an_unread_expired_message_is_left_for_later_and_new_ones_still_flow_for_a_concurrent_group() -> None:
    state, _ = pop(None, view(2), T0, batch=1)
    qv = view(3)
    unread = replace(qv, entries={o: e for o, e in qv.entries.items() if o != 0})
    _, answer = pop(state, unread, T0 + INVISIBLE)
    assert got(answer) == [(1, 1), (2, 1)]


@pytest.mark.parametrize(
    ("expression", "tags", "expected", "committed"),
    [
        ("*", {0: "a", 2: "b"}, [0, 1, 2, 3], 0),
        ("a", {0: "a", 2: "b"}, [0], 0),
        ("b || c", {0: "a", 1: "c", 2: "b"}, [1, 2], 1),
        ("z", {0: "a"}, [], 4),
    ],
)
def test_messages_the_filter_refuses_are_done_at_once_and_the_committed_offset_passes_them(
    expression: str, tags: dict[int, str], expected: list[int], committed: int
) -> None:
    state, answer = pop(None, view(4, tags=tags), T0, flt=parse_filter(expression))
    assert [o for o, _ in got(answer)] == expected
    assert (state.committed, state.scanned) == (committed, 4)


def test_an_expired_message_the_filter_now_refuses_is_done_without_a_delivery() -> None:
    state, _ = pop(None, view(2, tags={0: "a", 1: "a"}), T0, batch=1)
    state, answer = pop(state, view(2, tags={0: "a", 1: "a"}), T0 + INVISIBLE, flt=parse_filter("b"))
    assert (got(answer), state.committed, dict(state.inflight)) == ([], 2, {})


def test_a_long_filtered_run_is_crossed_max_scan_offsets_per_receive() -> None:
    qv = view(2500, tags={o: "x" for o in range(2500)})
    state, answer = pop(None, qv, T0, flt=parse_filter("y"))
    assert (answer.code, state.committed) == (PopCode.MESSAGE_NOT_FOUND, DEFAULT_LIMITS.max_scan)
    state, _ = pop(state, qv, T0, flt=parse_filter("y"))
    assert state.committed == 2 * DEFAULT_LIMITS.max_scan


def test_the_scan_stops_where_the_broker_stopped_reading() -> None:
    qv = view(10)
    partial = replace(qv, entries={o: qv.entries[o] for o in range(4)})
    state, answer = pop(None, partial, T0)
    assert (got(answer), state.scanned) == ([(0, 1), (1, 1), (2, 1), (3, 1)], 4)


def test_messages_below_the_queue_min_offset_are_gone_and_count_as_done() -> None:
    state, _ = pop(None, view(5), T0, batch=2)
    state, answer = pop(state, view(8, min_offset=3), T0 + INVISIBLE, batch=2)
    assert got(answer) == [(3, 1), (4, 1)]
    assert (state.committed, sorted(state.inflight)) == (3, [3, 4])


@pytest.mark.parametrize(
    ("batch", "invisible", "code", "remark"),
    [
        (0, INVISIBLE, PopCode.BAD_REQUEST, "batch size 0 is below 1"),
        (1, 9_999, PopCode.ILLEGAL_INVISIBLE_TIME, "invisible duration 9999 ms is outside [10000, 43200000] ms"),
        (
            1,
            43_200_001,
            PopCode.ILLEGAL_INVISIBLE_TIME,
            "invisible duration 43200001 ms is outside [10000, 43200000] ms",
        ),
    ],
)
def test_bad_receive_parameters_are_refused(batch: int, invisible: int, code: PopCode, remark: str) -> None:
    state, answer = pop(None, view(3), T0, batch=batch, invisible=invisible)
    assert (answer.code, answer.remark, answer.events, state) == (code, remark, (), QueueState())


# --- ack ------------------------------------------------------------------------------------------


def test_the_committed_offset_moves_past_the_contiguous_acked_prefix_only() -> None:
    state, answer = pop(None, view(4), T0)
    h = handles(answer)
    steps = [(2, 0, {2}), (1, 0, {1, 2}), (0, 3, set()), (3, 4, set())]
    for offset, committed, done in steps:
        state, acked = do_ack(state, h[offset])
        assert acked.events == (Acked(Q, offset, h[offset].ticket),)
        assert (state.committed, set(state.done)) == (committed, done)


def test_an_ack_is_idempotent_for_its_own_handle_before_and_after_the_commit() -> None:
    state, answer = pop(None, view(2), T0)
    first, second = handles(answer)
    state, _ = do_ack(state, second)
    again_state, again = do_ack(state, second)
    assert (again.code, again.remark, again.events, again_state) == (PopCode.OK, "already acked", (), state)
    state, _ = do_ack(state, first)
    assert state.committed == 2
    _, late = do_ack(state, first)
    assert (late.code, late.remark, late.events) == (PopCode.OK, "already acked", ())


def test_an_ack_after_the_deadline_counts_until_the_message_is_delivered_again() -> None:
    state, answer = pop(None, view(1), T0)
    (h,) = handles(answer)
    state, later = pop(state, replace(view(1), entries={}), T0 + INVISIBLE)
    assert got(later) == []
    state, acked = do_ack(state, h)
    assert (acked.code, state.committed) == (PopCode.OK, 1)


def test_a_handle_from_before_a_redelivery_is_stale() -> None:
    state, first = pop(None, view(1), T0)
    state, second = pop(state, view(1), T0 + INVISIBLE)
    _, stale = do_ack(state, handles(first)[0])
    assert (stale.code, stale.remark) == (
        PopCode.INVALID_RECEIPT_HANDLE,
        "stale receipt handle: offset 0 was delivered or changed since",
    )
    state, fresh = do_ack(state, handles(second)[0])
    assert (fresh.code, state.committed) == (PopCode.OK, 1)


def test_a_stale_handle_of_a_message_acked_through_another_is_refused_while_above_the_commit() -> None:
    state, _ = pop(None, view(1), T0, batch=1)
    state, first = pop(state, view(2), T0, batch=1)
    state, second = pop(state, view(2), T0 + INVISIBLE, batch=2)
    assert got(second) == [(0, 2), (1, 2)]
    state, _ = do_ack(state, handles(second)[1])
    _, stale = do_ack(state, handles(first)[0])
    assert (stale.code, stale.remark) == (
        PopCode.INVALID_RECEIPT_HANDLE,
        "stale receipt handle: offset 1 was acked through another handle",
    )
    assert state.committed == 0


@pytest.mark.parametrize(
    ("edit", "remark"),
    [
        (lambda h: replace(h, broker_name="broker-b"), "receipt handle is for broker set broker-b, not broker-a"),
        (lambda h: replace(h, group="H"), "receipt handle is for group H on topic T"),
        (lambda h: replace(h, topic="U"), "receipt handle is for group G on topic U"),
        (lambda h: replace(h, ticket=99), "receipt handle ticket 99 was never issued"),
        (lambda h: replace(h, queue_offset=7), "offset 7 of T:0 was never delivered to G"),
    ],
)
def test_handles_that_name_another_delivery_are_refused(
    edit: Callable[[ReceiptHandle], ReceiptHandle], remark: str
) -> None:
    state, answer = pop(None, view(3), T0, batch=2)
    refused = ack(state, Ack("G", "T", edit(handles(answer)[0])), BROKER)
    assert (refused.code, refused.remark, refused.events) == (PopCode.INVALID_RECEIPT_HANDLE, remark, ())


def test_an_ack_for_a_queue_this_group_never_received_from_is_refused() -> None:
    handle = ReceiptHandle(BROKER, "G", "T", 0, 0, T0, 1, 1)
    answer = ack(None, Ack("G", "T", handle), BROKER)
    assert (answer.code, answer.remark) == (PopCode.INVALID_RECEIPT_HANDLE, "offset 0 of T:0 was never delivered to G")


# --- change invisible duration and nack -----------------------------------------------------------


def test_a_change_gives_a_new_handle_and_deadline_and_makes_the_old_handle_stale() -> None:
    state, answer = pop(None, view(1), T0)
    (old,) = handles(answer)
    state, changed = do_change(state, old, 60_000, T0 + 5)
    new = changed.reply
    assert new == replace(old, deadline_ms=T0 + 5 + 60_000, ticket=2)
    assert changed.events == (Changed(Q, 0, 1, 2, T0 + 60_005),)
    assert state.inflight[0] == Inflight(2, T0 + 60_005, 1)
    _, invisible = pop(state, view(1), T0 + INVISIBLE)
    assert got(invisible) == []
    _, visible = pop(state, view(1), T0 + 60_005)
    assert got(visible) == [(0, 2)]
    for refused in (do_ack(state, old)[1], do_change(state, old, 1_000, T0 + 6)[1]):
        assert (refused.code, refused.remark) == (
            PopCode.INVALID_RECEIPT_HANDLE,
            "stale receipt handle: offset 0 was delivered or changed since",
        )
    assert new is not None and do_ack(state, new)[1].code == PopCode.OK


def test_a_change_to_zero_makes_the_message_visible_at_once() -> None:
    state, answer = pop(None, view(1), T0)
    state, _ = do_change(state, handles(answer)[0], 0, T0 + 1)
    assert got(pop(state, view(1), T0 + 1)[1]) == [(0, 2)]


@pytest.mark.parametrize("invisible", [-1, 43_200_001])
def test_a_change_outside_the_limits_is_refused_and_echoes_the_handle(invisible: int) -> None:
    state, answer = pop(None, view(1), T0)
    (h,) = handles(answer)
    after, refused = do_change(state, h, invisible, T0)
    assert (refused.code, refused.reply, refused.events, after) == (PopCode.ILLEGAL_INVISIBLE_TIME, h, (), state)


def test_a_change_of_an_acked_message_is_refused_and_echoes_the_handle() -> None:
    state, answer = pop(None, view(2), T0)
    h = handles(answer)[1]
    state, _ = do_ack(state, h)
    _, refused = do_change(state, h, 1_000, T0)
    assert (refused.code, refused.remark, refused.reply) == (
        PopCode.INVALID_RECEIPT_HANDLE,
        "the message is already acked",
        h,
    )


@pytest.mark.parametrize(
    ("retry", "attempt_before", "delay"),
    [
        (DEFAULT_RETRY_POLICY, 1, 1_000),
        (DEFAULT_RETRY_POLICY, 2, 5_000),
        (DEFAULT_RETRY_POLICY, 3, 10_000),
        (DEFAULT_RETRY_POLICY, 30, 7_200_000),
        (CustomizedRetry((2_000, 4_000)), 1, 2_000),
        (CustomizedRetry((2_000, 4_000)), 5, 4_000),
        (ExponentialRetry(500, 3_000, 2), 1, 500),
        (ExponentialRetry(500, 3_000, 2), 3, 2_000),
        (ExponentialRetry(500, 3_000, 2), 4, 3_000),
    ],
)
def test_a_nack_makes_the_message_visible_after_the_group_backoff_for_its_attempt(
    retry: RetryPolicy, attempt_before: int, delay: int
) -> None:
    inflight = {0: Inflight(5, T0 + INVISIBLE, attempt_before)}
    state = QueueState(0, 1, inflight, {}, 6)
    h = ReceiptHandle(BROKER, "G", "T", 0, 0, T0 + INVISIBLE, attempt_before, 5)
    policy = GroupPolicy(retry_max_times=100, retry=retry)
    answer = nack(state, Nack("G", "T", h), BROKER, policy, T0)
    state = apply_all(state, answer.events)
    assert answer.reply is not None and answer.reply.deadline_ms == T0 + delay
    assert got(pop(state, view(1), T0 + delay - 1, policy=policy)[1]) == []
    assert got(pop(state, view(1), T0 + delay, policy=policy)[1]) == [(0, attempt_before + 1)]


# --- dead letters ---------------------------------------------------------------------------------


@pytest.mark.parametrize("retry_max_times", [0, 1, 3])
def test_after_retry_max_times_plus_one_deliveries_the_message_goes_to_the_dlq_and_is_acked(
    retry_max_times: int,
) -> None:
    policy = GroupPolicy(retry_max_times=retry_max_times)
    state: QueueState | None = None
    now = T0
    attempts: list[int] = []
    for _ in range(retry_max_times + 1):
        state, answer = pop(state, view(1), now, policy=policy)
        attempts.extend(a for _, a in got(answer))
        now += INVISIBLE
    state, last = pop(state, view(1), now, policy=policy)
    assert attempts == list(range(1, retry_max_times + 2))
    assert (last.code, got(last)) == (PopCode.MESSAGE_NOT_FOUND, [])
    assert last.reply is not None
    assert last.reply.dead_letters == (DeadLetter(0, retry_max_times + 1, "%DLQ%G"),)
    assert (state.committed, dict(state.inflight)) == (1, {})


def test_the_dead_letter_handle_is_refused_while_an_earlier_message_holds_the_commit_back() -> None:
    policy = GroupPolicy(retry_max_times=0)
    state, first = pop(None, view(1), T0)
    state, second = pop(state, view(2), T0 + 1, policy=policy)
    state, _ = do_change(state, handles(first)[0], 120_000, T0 + 2)
    state, dead = pop(state, view(2), T0 + 1 + INVISIBLE, policy=policy)
    assert dead.reply is not None and [d.offset for d in dead.reply.dead_letters] == [1]
    assert state.done == {1: NO_TICKET}
    _, refused = do_ack(state, handles(second)[0])
    assert refused.remark == "stale receipt handle: offset 1 was filtered out or dead-lettered"


# --- FIFO -----------------------------------------------------------------------------------------


def test_an_orderly_queue_is_blocked_while_any_delivery_from_it_is_invisible() -> None:
    state, first = pop(None, view(4), T0, batch=2, policy=ORDERLY)
    assert got(first) == [(0, 1), (1, 1)]
    state, blocked = pop(state, view(4), T0 + 1, policy=ORDERLY)
    assert (blocked.code, blocked.reply, blocked.events) == (
        PopCode.MESSAGE_NOT_FOUND,
        Received(blocked=True),
        (),
    )
    state, _ = do_ack(state, handles(first)[0])
    assert got(pop(state, view(4), T0 + 2, policy=ORDERLY)[1]) == []
    state, _ = do_ack(state, handles(first)[1])
    assert got(pop(state, view(4), T0 + 3, policy=ORDERLY)[1]) == [(2, 1), (3, 1)]


def test_an_orderly_queue_redelivers_expired_messages_before_any_later_one() -> None:
    state, first = pop(None, view(4), T0, batch=2, policy=ORDERLY)
    state, _ = do_ack(state, handles(first)[0])
    _, again = pop(state, view(4), T0 + INVISIBLE, batch=2, policy=ORDERLY)
    assert got(again) == [(1, 2), (2, 1)]


def test_an_orderly_queue_never_delivers_past_an_expired_message_it_could_not_read() -> None:
    state, _ = pop(None, view(1), T0, policy=ORDERLY)
    qv = view(3)
    unread = replace(qv, entries={o: e for o, e in qv.entries.items() if o != 0})
    _, answer = pop(state, unread, T0 + INVISIBLE, policy=ORDERLY)
    assert (answer.code, got(answer), answer.events) == (PopCode.MESSAGE_NOT_FOUND, [], ())


def test_an_orderly_queue_with_a_full_batch_of_retries_takes_no_new_message() -> None:
    state, _ = pop(None, view(2), T0, batch=2, policy=ORDERLY)
    _, answer = pop(state, view(5), T0 + INVISIBLE, batch=1, policy=ORDERLY)
    assert got(answer) == [(0, 2)]


def orderly_pop(
    state: QueueState | None, qv: QueueView, now: int, attempt_id: str, batch: int = 2
) -> tuple[QueueState, Answer[Received]]:
    answer = receive(state, Receive(Q, ALL, batch, INVISIBLE, attempt_id), qv, ORDERLY, now)
    return apply_all(state, answer.events), answer


def test_an_orderly_receive_retried_with_its_attempt_id_gets_its_batch_again_under_new_handles() -> None:
    state, first = orderly_pop(None, view(4), T0, "a")
    state, retried = orderly_pop(state, view(4), T0 + 1, "a")
    assert got(retried) == got(first) == [(0, 1), (1, 1)]
    assert [h.ticket for h in handles(retried)] == [3, 4]
    assert state.attempt_id == "a"
    _, stale = do_ack(state, handles(first)[0])
    assert stale.code == PopCode.INVALID_RECEIPT_HANDLE
    state, _ = do_ack(state, handles(retried)[0])
    state, again = orderly_pop(state, view(4), T0 + 2, "a")
    assert got(again) == [(1, 1), (2, 1)]


@pytest.mark.parametrize(("first_id", "second_id"), [("a", "b"), ("a", ""), ("", "")])
def test_an_orderly_receive_with_another_or_no_attempt_id_stays_blocked(first_id: str, second_id: str) -> None:
    state, _ = orderly_pop(None, view(4), T0, first_id)
    _, blocked = orderly_pop(state, view(4), T0 + 1, second_id)
    assert blocked.reply == Received(blocked=True)


def test_a_concurrent_group_keeps_no_attempt_id() -> None:
    answer = receive(None, Receive(Q, ALL, 2, INVISIBLE, "a"), view(4), CONCURRENT, T0)
    assert apply_all(None, answer.events).attempt_id == ""


# --- apply ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "event",
    [Acked(Q, 0, 1), Changed(Q, 0, 1, 9, T0), Acked(Q, 0, 2), Changed(Q, 0, 2, 9, T0), Acked(Q, 5, 1)],
)
def test_replaying_an_event_twice_or_with_a_stale_ticket_changes_nothing_more(event: Event) -> None:
    state, _ = pop(None, view(1), T0)
    once = apply(state, event)
    assert apply(once, event) == once


def test_the_state_rebuilt_from_the_events_equals_the_state_that_made_them() -> None:
    events: list[Event] = []
    state: QueueState | None = None
    state, answer = pop(state, view(6), T0, batch=4)
    events += answer.events
    for h in handles(answer)[1:3]:
        state, acked = do_ack(state, h)
        events += acked.events
    state, changed = do_change(state, handles(answer)[3], 0, T0 + 1)
    events += changed.events
    state, again = pop(state, view(6), T0 + INVISIBLE, batch=4, policy=GroupPolicy(retry_max_times=1))
    events += again.events
    state, ordered = orderly_pop(state, view(8), T0 + 3 * INVISIBLE, "x")
    events += ordered.events
    assert state.attempt_id == "x"
    assert apply_all(None, events) == state


def test_the_defaults_are_javas() -> None:
    assert (CONCURRENT.retry_max_times, CONCURRENT.orderly) == (16, False)
    assert CONCURRENT.retry == CustomizedRetry(DEFAULT_BACKOFF_MS)
    assert DEFAULT_BACKOFF_MS[:4] == (1_000, 5_000, 10_000, 30_000)
    assert DEFAULT_BACKOFF_MS[-1] == 7_200_000 and len(DEFAULT_BACKOFF_MS) == 18
    assert Limits() == DEFAULT_LIMITS
