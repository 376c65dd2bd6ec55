"""Tag filter expressions (`*`, ``TagA || TagB``), parsed once into a `TagFilter` that matches a message's tag.

Java's ``FilterAPI.buildSubscriptionData`` is the model: an empty expression or ``*`` takes every message, else
the text splits on ``||``, each part is trimmed as Java's ``String.trim`` does (every char up to U+0020) and empty
parts are dropped. Where Java silently builds a filter that can match no message a RocketMQ 5 client sends, this
refuses it: no tag at all (``"   "``, ``"||"``; Java takes the first as matching nothing and throws on the second),
``*`` inside a list (Java looks for a literal tag ``*``) and a tag holding ``|`` (``"|||"`` is Java's tag ``|``;
clients refuse such tags).
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.pop.errors import PopCode, PopError

SUB_ALL = "*"
SEPARATOR = "||"
_JAVA_TRIM = "".join(chr(c) for c in range(0x21))
"""What Java's ``String.trim`` removes from both ends: every char up to and including the space."""


@dataclass(frozen=True, slots=True)
class TagFilter:
    """A parsed TAG expression: `tags` None takes every message, else only messages whose tag is one of them."""

    tags: frozenset[str] | None

    def matches(self, tag: str | None) -> bool:
        """Whether a message with `tag` (None: the message has none) passes; an untagged one passes `*` only."""
        return self.tags is None or (tag is not None and tag in self.tags)

    @property
    def expression(self) -> str:
        """The canonical text: `*`, or the tags sorted and joined by `` || ``."""
        return SUB_ALL if self.tags is None else f" {SEPARATOR} ".join(sorted(self.tags))


ALL = TagFilter(None)


def parse_filter(text: str) -> TagFilter:
    """The filter of a TAG expression, or `PopError` ILLEGAL_FILTER_EXPRESSION saying which part is wrong."""
    if text == "" or text.strip(_JAVA_TRIM) == SUB_ALL:
        return ALL
    tags: set[str] = set()
    for tag in (part.strip(_JAVA_TRIM) for part in text.split(SEPARATOR)):
        if not tag:
            continue
        if tag == SUB_ALL:
            raise PopError(
                PopCode.ILLEGAL_FILTER_EXPRESSION, f"filter expression {text!r}: '*' must stand alone, not in a list"
            )
        if "|" in tag:
            raise PopError(PopCode.ILLEGAL_FILTER_EXPRESSION, f"filter expression {text!r}: tag {tag!r} contains '|'")
        tags.add(tag)
    if not tags:
        raise PopError(PopCode.ILLEGAL_FILTER_EXPRESSION, f"filter expression {text!r} names no tag")
    return TagFilter(frozenset(tags))
