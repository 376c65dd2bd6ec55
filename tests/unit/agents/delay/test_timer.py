"""Delayed messages' pure core: what a send stores, the re-put copy, progress, what is due, and exactly-once
delivery through any crash between puts (the put carries the copies and their progress record together)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.consumer.progress import OffsetProgress, mark
from agents.delay.timer import (
    REAL_QID,
    REAL_TOPIC,
    TIMER_DELIVER_MS,
    TIMER_OUT_MS,
    TIMER_TOPIC,
    Refusal,
    due,
    next_due,
    out_ms,
    re_put,
    to_timer,
)
from agents.store.record import Message
from mqbase.codes import ResponseCode
from mqbase.metadata import send_problem, topic_problem
from tests.harness.fuzzing import fuzz

NOW = 1_700_000_000_000


def _sent(deliver: str | None, topic: str = "T", queue: int = 2) -> Message:
    properties = {"UNIQ_KEY": "ID1", "TAGS": "a"}
    if deliver is not None:
        properties[TIMER_DELIVER_MS] = deliver
    return Message(topic, queue, b"body", properties, NOW)


def test_a_message_with_a_time_ahead_waits_in_the_timer_topic() -> None:
    stored = to_timer(_sent(str(NOW + 5000)), NOW)
    assert isinstance(stored, Message)
    assert (stored.topic, stored.queue_id, stored.body, stored.store_timestamp) == (TIMER_TOPIC, 0, b"body", NOW)
    assert dict(stored.properties) == {
        "UNIQ_KEY": "ID1", "TAGS": "a", TIMER_DELIVER_MS: str(NOW + 5000), TIMER_OUT_MS: str(NOW + 5000),
        REAL_TOPIC: "T", REAL_QID: "2",
    }  # fmt: skip
    assert out_ms(stored) == NOW + 5000


@pytest.mark.parametrize("deliver", [None, str(NOW), str(NOW - 1), "0"])
def test_a_message_without_a_time_ahead_goes_to_its_topic_now(deliver: str | None) -> None:
    """Java stores a timer message whose time has come as an ordinary one (``checkIfTimerMessage``)."""
    sent = _sent(deliver)
    assert to_timer(sent, NOW) is sent


@pytest.mark.parametrize(
    ("deliver", "remark"),
    [
        (str(NOW + 3 * 24 * 3600 * 1000 + 1), "the delay time should not be bigger than the max delay 259200000ms"),
        ("soon", "TIMER_DELIVER_MS 'soon' is not a time in ms"),
        ("-5", "TIMER_DELIVER_MS '-5' is not a time in ms"),
        ("١٢", "is not a time in ms"),  # digits, but not ASCII ones
    ],
)
def test_a_time_too_far_or_unreadable_is_refused(deliver: str, remark: str) -> None:
    refused = to_timer(_sent(deliver), NOW)
    assert isinstance(refused, Refusal)
    assert refused.code == ResponseCode.MESSAGE_ILLEGAL
    assert refused.remark.startswith("timer message illegal") and remark in refused.remark


def test_the_max_delay_is_inclusive_and_configurable() -> None:
    assert isinstance(to_timer(_sent(str(NOW + 3 * 24 * 3600 * 1000)), NOW), Message)
    assert isinstance(to_timer(_sent(str(NOW + 11_000)), NOW, max_delay_sec=10), Refusal)


def test_the_timer_topic_is_the_brokers_own() -> None:
    assert TIMER_TOPIC == "rmq_sys_wheel_timer"
    assert send_problem(TIMER_TOPIC) is not None and topic_problem(TIMER_TOPIC) is not None


def test_the_re_put_copy_keeps_the_message_id_and_goes_to_its_queue() -> None:
    stored = to_timer(_sent(str(NOW + 5000)), NOW)
    assert isinstance(stored, Message)
    copy = re_put(stored, NOW + 5001)
    assert copy is not None
    assert (copy.topic, copy.queue_id, copy.body, copy.store_timestamp) == ("T", 2, b"body", NOW + 5001)
    assert dict(copy.properties) == {
        "UNIQ_KEY": "ID1", "TAGS": "a", TIMER_DELIVER_MS: str(NOW + 5000), TIMER_OUT_MS: str(NOW + 5000),
    }  # fmt: skip


@pytest.mark.parametrize("properties", [{}, {REAL_TOPIC: "T"}, {REAL_TOPIC: "T", REAL_QID: "x"}, {REAL_QID: "1"}])
def test_a_timer_message_without_a_real_queue_has_no_copy(properties: dict[str, str]) -> None:
    assert re_put(Message(TIMER_TOPIC, 0, b"b", properties, NOW), NOW) is None
    assert out_ms(Message(TIMER_TOPIC, 0, b"b", properties, NOW)) is None


def test_mark_moves_the_floor_over_what_follows_it() -> None:
    p = mark(OffsetProgress(), [1, 3])
    assert p == OffsetProgress(0, frozenset({1, 3}))
    p = mark(p, [0])
    assert p == OffsetProgress(2, frozenset({3}))
    assert mark(p, [2]) == OffsetProgress(4, frozenset())
    assert mark(p, [1, 3]) is p  # a replayed delivery changes nothing
    assert [o for o in range(6) if p.done(o)] == [0, 1, 3]


def test_due_is_earliest_first_and_skips_the_delivered() -> None:
    progress = OffsetProgress(2, frozenset({4}))
    pending = {0: 10, 2: 30, 3: 20, 4: 5, 5: 20, 6: 99}
    assert due(progress, pending, 30) == [3, 5, 2]
    assert due(progress, pending, 30, limit=2) == [3, 5]
    assert due(progress, pending, 19) == []
    assert next_due(progress, pending) == 20
    assert next_due(progress, {0: 10, 4: 5}) is None


# --- exactly once through crashes --------------------------------------------------------------------------------

Entry = tuple[str, tuple[int, ...]]
"""One record of the model's log: ("copy", (timer offset,)) or ("progress", (timer offsets...))."""


def _progress(log: list[Entry]) -> OffsetProgress:
    return mark(OffsetProgress(), [o for kind, offsets in log if kind == "progress" for o in offsets])


def _deliver(log: list[Entry], times: dict[int, int], now: int, limit: int) -> list[Entry]:
    """What a master appends at `now`: one put of the due copies, then their progress record."""
    offsets = due(_progress(log), times, now, limit)
    return [("copy", (o,)) for o in offsets] + [("progress", tuple(sorted(offsets)))] if offsets else []


STEP = st.tuples(st.integers(0, 100), st.integers(1, 4), st.integers(0, 3), st.booleans())
"""(clock advance, batch limit, records a crash cuts off the log's end, whether the cut keeps whole puts)."""


@fuzz(300)
@given(st.lists(st.integers(0, 200), min_size=1, max_size=12), st.lists(STEP, max_size=20))
def test_every_due_message_is_delivered_exactly_once_through_crashes_between_puts(
    due_at: list[int], steps: list[tuple[int, int, int, bool]]
) -> None:
    """Masters come and go: each appends puts of copies + progress, and a crash loses any number of whole puts
    from the log's end (what was not confirmed). The next master rebuilds the progress from what is left. Every
    timer message ends up copied exactly once: a put is kept or lost whole, so no copy without its record."""
    times = dict(enumerate(due_at))
    log: list[list[Entry]] = []
    now = 0
    for advance, limit, lost, _ in steps:
        now += advance
        put = _deliver([e for p in log for e in p], times, now, limit)
        if put:
            log.append(put)
        del log[len(log) - min(lost, len(log)) :]
    log.append(_deliver([e for p in log for e in p], times, 10**9, len(times)))
    copies = sorted(o for p in log for kind, (o, *_) in p if kind == "copy")
    assert copies == sorted(times)


@fuzz(300)
@given(st.lists(st.integers(0, 200), min_size=1, max_size=12), st.lists(STEP, max_size=20))
def test_a_crash_inside_a_put_duplicates_at_most_that_put_and_never_loses(
    due_at: list[int], steps: list[tuple[int, int, int, bool]]
) -> None:
    """Replication may cut the new master's log inside the old master's last put (docs/decisions.md): copies
    whose progress record was cut off are delivered again, so the message comes twice (same message id), and a
    message is never lost."""
    times = dict(enumerate(due_at))
    log: list[Entry] = []
    cut_off: set[int] = set()
    now = 0
    for advance, limit, lost, whole in steps:
        now += advance
        put = _deliver(log, times, now, limit)
        log += put
        if put and not whole:  # the cut falls inside this put: its copies may survive without their record
            kept = min(lost, len(put) - 1)
            del log[len(log) - (len(put) - kept) :]
            cut_off.update(o for kind, (o, *_) in put[:kept] if kind == "copy")
    log += _deliver(log, times, 10**9, len(times))
    copies = [o for kind, (o, *_) in log if kind == "copy"]
    assert set(copies) == set(times)
    assert {o for o in copies if copies.count(o) > 1} <= cut_off
