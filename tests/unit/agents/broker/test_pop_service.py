"""The POP service's pure parts: what a dead-letter copy carries, the body digest."""

from __future__ import annotations

import pytest

from agents.broker.pop_service import body_digest, dead_letter, fitting
from agents.store.record import Message


def test_a_dead_letter_names_its_source_and_last_attempt_under_the_same_id() -> None:
    source = Message("Orders", 3, b"body", {"UNIQ_KEY": "ID1", "TAGS": "TagA"}, 5)
    copy = dead_letter(source, 17, "%DLQ%GID", 900)
    kept = {"UNIQ_KEY": "ID1", "TAGS": "TagA"}
    added = {"RETRY_TOPIC": "Orders", "DELIVERY_ATTEMPT": "17", "ORIGIN_MESSAGE_ID": "ID1"}
    assert copy == Message("%DLQ%GID", 0, b"body", {**kept, **added}, 900)


@pytest.mark.parametrize(
    ("body", "digest"),
    [(b"", "D41D8CD98F00B204E9800998ECF8427E"), (b"hello", "5D41402ABC4B2A76B9719D911017C592")],
)
def test_the_body_digest_is_md5_in_upper_case_hex_as_javas_proxy_sends(body: bytes, digest: str) -> None:
    assert body_digest(body) == digest


@pytest.mark.parametrize(
    ("sizes", "room", "first", "expected"),
    [
        ({5: 10, 6: 10, 7: 10}, 25, True, [5, 6]),  # the third would pass the room: the scan ends before it
        ({5: 10, 6: 10}, 20, False, [5, 6]),  # exactly full
        ({7: 10, 5: 50}, 20, True, [5]),  # in offset order; one oversized message still goes out alone
        ({5: 50}, 20, False, []),  # ... but not after other queues' messages filled the reply
        ({}, 20, True, []),
    ],
)
def test_a_receive_looks_only_at_what_fits_its_reply(
    sizes: dict[int, int], room: int, first: bool, expected: list[int]
) -> None:
    assert fitting(sizes, room, first=first) == expected
