"""updateBrokerConfig writes its keys into the broker's config file in place."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqbase.properties import parse_properties, update_properties_file, with_values

FILE = """# broker-a, replica 2
brokerName=broker-a
syncFlushTimeout = 3000

! Java's other comment mark
listenPort: 0
syncFlushTimeout=3500
"""


def test_a_key_is_rewritten_where_it_stands_and_the_rest_is_kept() -> None:
    out = with_values(FILE, {"syncFlushTimeout": "4000"})
    assert out == FILE.replace("syncFlushTimeout=3500", "syncFlushTimeout=4000")  # the last one is the value
    assert parse_properties(out)["syncFlushTimeout"] == "4000"


def test_a_key_the_file_lacks_is_added_at_the_end() -> None:
    out = with_values(FILE, {"autoCreateTopicEnable": "true", "listenPort": "1"})
    assert out.splitlines()[-1] == "autoCreateTopicEnable=true"
    assert parse_properties(out) == {**parse_properties(FILE), "autoCreateTopicEnable": "true", "listenPort": "1"}
    assert with_values("", {"k": "v"}) == "k=v\n"


@pytest.mark.parametrize("text", ["a=1", "a=1\n"])
def test_the_file_ends_with_a_newline(text: str) -> None:
    assert with_values(text, {"b": "2"}) == "a=1\nb=2\n"


def test_the_file_is_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "broker.conf"
    path.write_text(FILE)
    update_properties_file(path, {"syncFlushTimeout": "4000"})
    assert parse_properties(path.read_text())["syncFlushTimeout"] == "4000"
    assert [p.name for p in tmp_path.iterdir()] == ["broker.conf"]  # no temp file left behind
