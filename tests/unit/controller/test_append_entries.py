"""The AppendEntries receiver rule (Raft §5.3): delete only from the first conflicting entry, append only what is new.

A table of named cases, then every small log against a model of what the rule must leave behind.
"""

from __future__ import annotations

import itertools

import pytest

from controller.append_entries import Accept, IndexTerm, Refuse, plan_append


def _log(first: int, terms: list[int]) -> list[IndexTerm]:
    return [(first + i, t) for i, t in enumerate(terms)]


CASES: list[tuple[str, list[IndexTerm], int, int, list[IndexTerm], Accept | Refuse]] = [
    # name, local log from prev on, prev index, prev term, incoming, plan
    ("heartbeat at the end", _log(4, [1]), 4, 1, [], Accept(None, 0, 4)),
    ("new entries at the end", _log(4, [1]), 4, 1, _log(5, [1, 1]), Accept(None, 0, 6)),
    ("retransmit of what is held", _log(1, [1, 1, 1, 1]), 1, 1, _log(2, [1]), Accept(None, 1, 2)),
    ("retransmit, log longer", _log(1, [1, 1, 1, 1, 2]), 1, 1, _log(2, [1, 1]), Accept(None, 2, 3)),
    ("heartbeat behind the end", _log(2, [1, 1, 1]), 2, 1, [], Accept(None, 0, 2)),
    ("partly held, rest new", _log(3, [1, 1]), 3, 1, _log(4, [1, 1, 1]), Accept(None, 1, 6)),
    ("conflict at the first", _log(2, [1, 1, 1]), 2, 1, _log(3, [2, 2]), Accept(3, 0, 4)),
    ("conflict after a match", _log(2, [1, 1, 1, 1]), 2, 1, _log(3, [1, 3]), Accept(4, 1, 4)),
    ("conflict at the last held", _log(2, [1, 1]), 2, 1, _log(3, [2, 2, 2]), Accept(3, 0, 5)),
    ("prev past the end", _log(9, []), 9, 1, _log(10, [1]), Refuse("no entry at index 9")),
    (
        "prev term differs",
        _log(5, [1, 1]),
        5,
        2,
        _log(6, [2]),
        Refuse("the entry at index 5 has term 1, the leader's has 2"),
    ),
    ("window from another index", _log(4, [1]), 5, 1, [], Refuse("no entry at index 5")),
]


@pytest.mark.parametrize(
    ("local", "prev_index", "prev_term", "incoming", "plan"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_plan_append(
    local: list[IndexTerm], prev_index: int, prev_term: int, incoming: list[IndexTerm], plan: Accept | Refuse
) -> None:
    assert plan_append(local, prev_index, prev_term, incoming) == plan


def _carry_out(log: list[IndexTerm], plan: Accept, incoming: list[IndexTerm]) -> list[IndexTerm]:
    kept = log if plan.delete_from is None else [e for e in log if e[0] < plan.delete_from]
    return kept + incoming[plan.append_from :]


def _logs(max_len: int) -> list[list[IndexTerm]]:
    """Every log of up to `max_len` entries after the entry (1, term 1), terms 1-3 never decreasing."""
    out = []
    for n in range(max_len + 1):
        for terms in itertools.product((1, 2, 3), repeat=n):
            if list(terms) == sorted(terms):
                out.append([(1, 1), *_log(2, list(terms))])
    return out


def test_every_small_log_ends_as_raft_requires() -> None:
    """Every log of up to 4 entries against every AppendEntries a leader's log of up to 4 entries can send.

    Afterwards: the log is unchanged up to `prev_index`, then holds the message's entries, and acknowledges exactly
    that far (with Log Matching, the leader's log up to there);
    an entry is deleted only if the message conflicts at or before it; nothing is deleted when nothing conflicts.
    """
    logs = _logs(4)
    checked = 0
    for local, leader in itertools.product(logs, logs):
        for prev_index in range(1, len(leader) + 1):
            for count in range(len(leader) - prev_index + 1):
                prev_term = leader[prev_index - 1][1]
                incoming = leader[prev_index : prev_index + count]
                window = local[prev_index - 1 : prev_index + count + 1]
                plan = plan_append(window, prev_index, prev_term, incoming)
                if prev_index > len(local) or local[prev_index - 1][1] != prev_term:
                    assert isinstance(plan, Refuse)
                    continue
                assert isinstance(plan, Accept)
                after = _carry_out(local, plan, incoming)
                assert plan.matched == prev_index + count
                assert after[:prev_index] == local[:prev_index]
                assert after[prev_index : plan.matched] == incoming
                conflicts = [
                    i for i, e in enumerate(incoming) if prev_index + i < len(local) and local[prev_index + i] != e
                ]
                if conflicts:
                    assert plan.delete_from == incoming[conflicts[0]][0]
                    assert after == local[: plan.delete_from - 1] + incoming[conflicts[0] :]
                else:
                    assert plan.delete_from is None
                    assert after[: len(local)] == local
                    assert len(after) == max(len(local), plan.matched)
                checked += 1
    assert checked > 5_000
