"""Tag filter expressions: Java's parsing (whitespace, empty parts, ``||``) and the refusals it lacks."""

from __future__ import annotations

import pytest

from agents.pop.errors import PopCode, PopError
from agents.pop.filter import ALL, TagFilter, parse_filter


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("*", None),
        ("", None),
        ("  *\t", None),
        ("TagA", {"TagA"}),
        ("TagA || TagB", {"TagA", "TagB"}),
        ("TagA||TagB||TagA", {"TagA", "TagB"}),
        ("  TagA  ||\tTagB\n", {"TagA", "TagB"}),
        ("TagA || ", {"TagA"}),
        ("|| TagA ||  || TagB ||", {"TagA", "TagB"}),
        ("Tag A", {"Tag A"}),
        ("\x01TagA\x1f", {"TagA"}),
        ("Tag\u00a0A", {"Tag\u00a0A"}),
    ],
)
def test_expressions_parse_as_java_does(text: str, tags: set[str] | None) -> None:
    parsed = parse_filter(text)
    assert parsed.tags == (None if tags is None else frozenset(tags))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("   ", "filter expression '   ' names no tag"),
        ("||", "filter expression '||' names no tag"),
        (" || \t|| ", "filter expression ' || \\t|| ' names no tag"),
        ("TagA || *", "filter expression 'TagA || *': '*' must stand alone, not in a list"),
        ("|||", "filter expression '|||': tag '|' contains '|'"),
        ("TagA | TagB", "filter expression 'TagA | TagB': tag 'TagA | TagB' contains '|'"),
    ],
)
def test_expressions_that_could_match_no_client_message_are_refused(text: str, message: str) -> None:
    with pytest.raises(PopError) as caught:
        parse_filter(text)
    assert caught.value.code == PopCode.ILLEGAL_FILTER_EXPRESSION
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("flt", "tag", "passes"),
    [
        (ALL, None, True),
        (ALL, "TagA", True),
        (TagFilter(frozenset({"TagA", "TagB"})), "TagB", True),
        (TagFilter(frozenset({"TagA", "TagB"})), "TagC", False),
        (TagFilter(frozenset({"TagA"})), None, False),
        (TagFilter(frozenset({"TagA"})), "taga", False),
    ],
)
def test_matching(flt: TagFilter, tag: str | None, passes: bool) -> None:
    assert flt.matches(tag) is passes


@pytest.mark.parametrize(("text", "canonical"), [("*", "*"), ("TagB||TagA", "TagA || TagB"), (" x ", "x")])
def test_the_canonical_expression_parses_back_to_the_same_filter(text: str, canonical: str) -> None:
    assert parse_filter(text).expression == canonical
    assert parse_filter(canonical) == parse_filter(text)
