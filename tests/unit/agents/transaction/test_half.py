"""Half messages, their commit and drop copies, and the transaction id: pure."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agents.delay.timer import REAL_QID, REAL_TOPIC
from agents.store.record import Message
from agents.transaction.half import (
    CHECK_IMMUNITY,
    CHECK_MAX_TOPIC,
    HALF_TOPIC,
    PGROUP,
    TRAN_MSG,
    TransactionRef,
    committed,
    decode_id,
    dropped,
    immunity_ms,
    is_transactional,
    to_half,
)
from tests.harness.fuzzing import fuzz

SENT = Message("Orders", 3, b"paid", {"UNIQ_KEY": "AB01", TRAN_MSG: "true", "k": "v"}, 1_000)


def test_a_half_message_waits_in_the_half_queue_naming_its_real_queue() -> None:
    half = to_half(SENT)
    assert (half.topic, half.queue_id, half.body, half.store_timestamp) == (HALF_TOPIC, 0, b"paid", 1_000)
    assert half.properties == {**SENT.properties, REAL_TOPIC: "Orders", REAL_QID: "3", PGROUP: "Orders"}


def test_a_commit_copies_the_half_to_its_queue_with_the_same_id_and_type() -> None:
    copy = committed(to_half(SENT), 5_000)
    assert copy == Message("Orders", 3, b"paid", {**SENT.properties, PGROUP: "Orders"}, 5_000)
    assert is_transactional(copy.properties)
    assert committed(Message(HALF_TOPIC, 0, b"x", {REAL_TOPIC: "T", REAL_QID: "q"}, 0), 1) is None
    assert committed(Message(HALF_TOPIC, 0, b"x", {}, 0), 1) is None


def test_a_dropped_half_is_kept_whole_for_the_operator() -> None:
    half = to_half(SENT)
    assert dropped(half, 9) == Message(CHECK_MAX_TOPIC, 0, b"paid", dict(half.properties), 9)


def test_the_first_check_waits_for_the_message_s_own_immunity_when_it_names_one() -> None:
    assert immunity_ms(to_half(SENT), 6_000) == 6_000
    for text, expected in (("30", 30_000), ("0", 6_000), ("-1", 6_000), ("x", 6_000), ("٣", 6_000)):
        half = Message(HALF_TOPIC, 0, b"x", {CHECK_IMMUNITY: text}, 0)
        assert immunity_ms(half, 6_000) == expected, text


@fuzz(200)
@given(st.from_regex(r"[%|a-zA-Z0-9_-]{1,40}", fullmatch=True), st.integers(0, 2**63 - 1), st.integers(0, 2**63))
def test_a_transaction_id_names_its_set_and_offsets_on_any_access_point(name: str, half: int, log: int) -> None:
    ref = TransactionRef(name, half, log)
    assert decode_id(ref.encode()) == ref


@fuzz(200)
@given(st.text(max_size=60))
def test_any_other_text_is_no_transaction_id_or_names_digits_only(text: str) -> None:
    ref = decode_id(text)
    assert ref is None or ref.encode() == text or text.count("@") >= 2


def test_ids_no_broker_handed_out_are_refused() -> None:
    for text in ("", "7", "a@1", "@1@2", "a@1@", "a@-1@2", "a@1@2x", "a@١@2"):
        assert decode_id(text) is None, text
