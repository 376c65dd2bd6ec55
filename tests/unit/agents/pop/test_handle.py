"""Receipt handles: one text per handle, and a precise INVALID_RECEIPT_HANDLE for anything else."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.pop.errors import PopCode, PopError
from agents.pop.handle import MAX_INT, ReceiptHandle, decode
from tests.harness.fuzzing import fuzz

GOOD = "1 broker-a GID_x %RETRY%GID_x|T 3 42 1700000010000 2 7"


def test_a_handle_decodes_to_its_fields_and_encodes_back() -> None:
    handle = decode(GOOD)
    assert handle == ReceiptHandle("broker-a", "GID_x", "%RETRY%GID_x|T", 3, 42, 1_700_000_010_000, 2, 7)
    assert handle.encode() == GOOD


def test_a_handle_built_with_a_negative_number_is_refused() -> None:
    with pytest.raises(PopError, match=r"^receipt handle: queueOffset -1 is not in 0..2\^63-1$"):
        ReceiptHandle("b", "g", "t", 0, -1, 0, 1, 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "receipt handle has 1 fields, expected 9"),
        ("1 b g t 0 0 0 1", "receipt handle has 8 fields, expected 9"),
        ("1 b g t 0 0 0 1 1 1", "receipt handle has 10 fields, expected 9"),
        ("1  g t 0 0 0 1 1", "receipt handle: brokerName is empty"),
        ("1 b g t 0 0 0 1 1 ", "receipt handle has 10 fields, expected 9"),
        ("2 b g t 0 0 0 1 1", "receipt handle version '2' is not 1"),
        ("1 b g t -1 0 0 1 1", "receipt handle: queueId '-1' is not a number in 0..2^63-1"),
        ("1 b g t +1 0 0 1 1", "receipt handle: queueId '+1' is not a number in 0..2^63-1"),
        ("1 b g t 0 01 0 1 1", "receipt handle: queueOffset '01' is not a number in 0..2^63-1"),
        ("1 b g t 0 1_0 0 1 1", "receipt handle: queueOffset '1_0' is not a number in 0..2^63-1"),
        ("1 b g t 0 0 \u0661 1 1", "receipt handle: deadlineMs '\u0661' is not a number in 0..2^63-1"),
        ("1 b g t 0 0 0 0 1", "receipt handle: attempt must be at least 1"),
        (
            "1 b g t 0 0 0 1 9223372036854775808",
            "receipt handle: ticket '9223372036854775808' is not a number in 0..2^63-1",
        ),
        (
            "1 b g t 0 0 0 1 99999999999999999999",
            "receipt handle: ticket '99999999999999999999' is not a number in 0..2^63-1",
        ),
        ("1 b\x00 g t 0 0 0 1 1", "receipt handle: brokerName 'b\\x00' holds whitespace or control characters"),
        ("1\tb g t 0 0 0 1 1", "receipt handle has 8 fields, expected 9"),
    ],
)
def test_malformed_handles_are_refused_naming_the_field(text: str, message: str) -> None:
    with pytest.raises(PopError) as caught:
        decode(text)
    assert caught.value.code == PopCode.INVALID_RECEIPT_HANDLE
    assert str(caught.value) == message


NAMES = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp", "Cn", "Co", "Cf")), min_size=1)
NUMBERS = st.integers(0, MAX_INT)
HANDLES = st.builds(ReceiptHandle, NAMES, NAMES, NAMES, NUMBERS, NUMBERS, NUMBERS, st.integers(1, MAX_INT), NUMBERS)


@fuzz(300)
@given(HANDLES)
def test_every_handle_round_trips(handle: ReceiptHandle) -> None:
    assert decode(handle.encode()) == handle


@fuzz(300)
@given(st.text())
def test_any_text_decodes_to_a_handle_with_that_one_text_or_is_refused(text: str) -> None:
    try:
        handle = decode(text)
    except PopError as refused:
        assert refused.code == PopCode.INVALID_RECEIPT_HANDLE
    else:
        assert handle.encode() == text


@fuzz(300)
@given(HANDLES, st.integers(0, 200), st.characters())
def test_an_edited_handle_is_refused_or_decodes_to_its_own_text(handle: ReceiptHandle, at: int, char: str) -> None:
    text = handle.encode()
    edited = text[: at % len(text)] + char + text[at % len(text) + 1 :]
    try:
        assert decode(edited).encode() == edited
    except PopError as refused:
        assert refused.code == PopCode.INVALID_RECEIPT_HANDLE
