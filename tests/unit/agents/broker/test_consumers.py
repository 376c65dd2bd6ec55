"""The consumer service's pure part: what a dead-letter copy carries."""

from __future__ import annotations

from agents.broker.consumers import dead_letter
from agents.store.record import Message


def test_a_dead_letter_names_its_source_and_last_attempt_under_the_same_id() -> None:
    source = Message("Orders", 3, b"body", {"UNIQ_KEY": "ID1", "TAGS": "TagA"}, 5)
    copy = dead_letter(source, 17, "%DLQ%GID", 900)
    kept = {"UNIQ_KEY": "ID1", "TAGS": "TagA"}
    added = {"RETRY_TOPIC": "Orders", "DELIVERY_ATTEMPT": "17", "ORIGIN_MESSAGE_ID": "ID1"}
    assert copy == Message("%DLQ%GID", 0, b"body", {**kept, **added}, 900)
