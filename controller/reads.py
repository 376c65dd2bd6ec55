"""Which answers a leader may give without confirming its leadership first (pure; used by the proposer).

A leader that was deposed but does not know it yet (partitioned from its peers, it keeps the role until
``raftLeaderFallbackTimeoutMs``) still holds the state of its last applied entry, while a new leader may have
committed a newer master meanwhile. An answer a broker acts on for safety — "am I still master in epoch E?"
after a transfer's write pause, a role to take, a SyncStateSet to confirm — must not come from such a state.

So every answer except the plain reads is given only when an entry this leader appended *after* deciding it
was committed in the same term it decided in (a barrier through the log; a write's own entry serves as one).
Raft's quorum intersection then rules out a newer leader that committed anything before the question was
asked: a majority accepted our entry of term T after the question arrived, so no majority had moved to a
later term before it. Plain reads (``PLAIN_READS``) are answered from the leader's applied state at once.
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.requests import GetMetadataRequest, GetNextBrokerIdRequest, GetSyncStateDataRequest, Request

PLAIN_READS = (GetSyncStateDataRequest, GetNextBrokerIdRequest, GetMetadataRequest)
"""Reads no safety decision depends on: ``getSyncStateSet`` (operators, the ACL member list), the id a
registering broker proposes (``ApplyBrokerId``, a commit, decides whether it may have it), and the topic and
group metadata (versioned: an agent's table never goes back a version, so an older answer from a deposed leader
changes nothing and the next poll brings the newer one; a barrier per poll would only add Raft entries)."""


def is_plain(request: Request) -> bool:
    return isinstance(request, PLAIN_READS)


def needs_barrier(requests: Iterable[Request], has_events: bool) -> bool:
    """True when a batch must commit an empty entry before answering: it has answers that need a
    confirmed leadership and no events of its own whose entry would confirm it."""
    return not has_events and not all(is_plain(r) for r in requests)


def may_answer(request: Request, decided_in_term: int, confirmed_in_term: int | None) -> bool:
    """May the answer the leader of `decided_in_term` computed for `request` be given?

    `confirmed_in_term` is the term in which an entry appended after the decision was committed (the batch's
    own entry or a barrier), None when there was none or it failed. A different term means leadership changed
    in between, so another leader may have committed first: refuse.
    """
    return is_plain(request) or confirmed_in_term == decided_in_term
