"""The election policy (Java's ``DefaultElectPolicy``, with the Java bugs fixed).

One pure function. Candidates are the alive members of the SyncStateSet; only
when none qualifies and unclean election is enabled are all alive replicas
tried. Within a candidate list:

1. the old master is sticky while it is a candidate (unless another broker is designated);
2. a designated (admin ``electMaster -b``) broker wins if it is a candidate, otherwise nobody;
3. the preferred master (``enablePreferredMaster``, see ``preferred_of``) wins if it is
   a candidate of the SyncStateSet; it is ignored in the unclean pass, where the most
   advanced replica must win to lose as little as possible;
4. otherwise order by epoch desc, maxOffset desc, brokerElectionPriority asc,
   and finally broker id asc.

Fixes against ``DefaultElectPolicy`` (see docs/decisions.md): offsets are
compared as Python ints (no ``(int)`` overflow), equal brokers do not collapse
in a TreeSet (the lowest id wins, deterministically), and async learners are
never candidates.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from controller.model import LiveInfo

PREFERRED_PRIORITY = 0
"""``brokerElectionPriority`` that marks a broker as the preferred master (the #5588 proposal)."""


def preferred_of(assigned: int | None, alive: Mapping[int, LiveInfo]) -> int | None:
    """The effective preferred master of a set: the assigned id, else the lowest alive non-learner id at priority 0.

    An assignment overrides the brokers' priority config even while the assigned broker is down, so the
    operator's choice is never silently replaced by another broker's config.
    """
    if assigned is not None:
        return assigned
    marked = (i for i, info in alive.items() if info.election_priority == PREFERRED_PRIORITY and not info.async_learner)
    return min(marked, default=None)


def _candidates(ids: Iterable[int], alive: Mapping[int, LiveInfo]) -> list[int]:
    return sorted(i for i in set(ids) if i in alive and not alive[i].async_learner)


def _try_elect(
    ids: Iterable[int],
    alive: Mapping[int, LiveInfo],
    old_master: int | None,
    designated: int | None,
    preferred: int | None,
) -> int | None:
    candidates = _candidates(ids, alive)
    if not candidates:
        return None
    if old_master in candidates and designated in (None, old_master):
        return old_master
    if designated is not None:
        return designated if designated in candidates else None
    if preferred in candidates:
        return preferred

    def rank(broker_id: int) -> tuple[int, int, int, int]:
        info = alive[broker_id]
        return (-info.epoch, -info.max_offset, info.election_priority, broker_id)

    return min(candidates, key=rank)


def elect(
    sync_state_set: Iterable[int],
    all_replicas: Iterable[int] | None,
    alive: Mapping[int, LiveInfo],
    *,
    old_master: int | None,
    designated: int | None,
    preferred: int | None,
) -> int | None:
    """Pick the new master of one broker set, or None when nobody qualifies.

    Args:
        sync_state_set: the current SyncStateSet (broker ids).
        all_replicas: every registered id when unclean election is enabled, else None.
        alive: live info of the set's alive brokers, keyed by broker id.
        old_master: the current master id, if any.
        designated: the admin-designated broker id (``electMaster -b``), if any.
        preferred: the effective preferred master when ``enablePreferredMaster`` is on, else None.
    """
    elected = _try_elect(sync_state_set, alive, old_master, designated, preferred)
    if elected is None and all_replicas is not None:
        elected = _try_elect(all_replicas, alive, old_master, designated, None)
    return elected


def designated_refusal(
    designated: int,
    registered: Collection[int],
    sync_state_set: Collection[int],
    alive: Mapping[int, LiveInfo],
    *,
    allow_unclean: bool,
) -> str:
    """Why an admin-designated election (``electMaster -b``) elected nobody, and which ids it could elect: Java's
    bare "Failed to elect a new master" leaves the operator guessing."""
    eligible = set(_candidates(sync_state_set, alive)) | set(_candidates(registered, alive) if allow_unclean else ())
    if designated not in registered:
        why = f"broker {designated} is not registered in the set (registered ids: {_ids(registered)})"
    elif designated not in alive:
        why = f"broker {designated} is not alive (no heartbeat within its timeout)"
    elif alive[designated].async_learner:
        why = f"broker {designated} is an async learner, which never becomes master"
    else:
        why = (
            f"broker {designated} is not in the SyncStateSet ({_ids(sync_state_set)}); "
            "enableElectUncleanMaster=true allows any alive replica, and may lose acknowledged messages"
        )
    return f"Failed to elect a new master: {why}; eligible ids: {_ids(eligible)}"


def _ids(ids: Iterable[int]) -> str:
    return ", ".join(map(str, sorted(ids))) or "none"
