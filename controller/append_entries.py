"""The AppendEntries receiver rule (Raft §5.3) as a pure decision over (index, term) pairs.

pysyncobj 0.3.17 deletes every local entry after ``prevLogIdx`` whenever an AppendEntries matches there, then
appends what came. A retransmitted (or older, delayed) AppendEntries therefore cuts entries the follower already
acknowledged, and until the leader sends them again the follower holds fewer entries than it promised: a crash
in that window can lose an entry the leader counted as committed (hashicorp/raft fixed the same bug in its PR 113,
"Stop truncating non-conflicting entries in AppendEntries"). The rule here deletes only from the first entry whose
term conflicts and appends only what is new. ``controller.raft`` carries it out on pysyncobj's journal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

IndexTerm = tuple[int, int]
"""A log entry reduced to what the rule compares: (Raft index, term)."""


@dataclass(frozen=True, slots=True)
class Refuse:
    """The log does not hold ``prevLogIdx`` with ``prevLogTerm``: answer as pysyncobj does (the leader backs off)."""

    reason: str


@dataclass(frozen=True, slots=True)
class Accept:
    """Delete local entries from ``delete_from`` on (None: delete nothing), append ``incoming[append_from:]``.

    ``matched`` is the last index this message proves identical to the leader's log: the index to acknowledge
    and the highest the commit index may reach on this message (Raft §5.3: min(leaderCommit, index of last new entry)).
    Local entries past it that do not conflict stay: a later message checks them.
    """

    delete_from: int | None
    append_from: int
    matched: int


def plan_append(
    local: Sequence[IndexTerm], prev_index: int, prev_term: int, incoming: Sequence[IndexTerm]
) -> Accept | Refuse:
    """What to do with one AppendEntries.

    `local` is the local log from `prev_index` on (at least ``len(incoming) + 1`` entries where the log has
    them; empty when the log does not hold `prev_index`); `incoming` is the message's entries, whose indexes
    follow on from `prev_index`.
    """
    if not local or local[0][0] != prev_index:
        return Refuse(f"no entry at index {prev_index}")
    if local[0][1] != prev_term:
        return Refuse(f"the entry at index {prev_index} has term {local[0][1]}, the leader's has {prev_term}")
    matched = prev_index + len(incoming)
    for at, (index, term) in enumerate(incoming):
        if at + 1 >= len(local):
            return Accept(delete_from=None, append_from=at, matched=matched)
        if local[at + 1][1] != term:
            return Accept(delete_from=index, append_from=at, matched=matched)
    return Accept(delete_from=None, append_from=len(incoming), matched=matched)
