"""The election policy (reference §1.6, with the Java bugs fixed).

One pure function. Candidates are the alive members of the SyncStateSet; only
when none qualifies and unclean election is enabled are all alive replicas
tried. Within a candidate list:

1. the old master is sticky while it is a candidate (unless another broker is designated);
2. a designated (admin-preferred) broker wins if it is a candidate, otherwise nobody;
3. otherwise order by epoch desc, maxOffset desc, brokerElectionPriority asc,
   and finally broker id asc.

Fixes against ``DefaultElectPolicy`` (see docs/decisions.md): offsets are
compared as Python ints (no ``(int)`` overflow), equal brokers do not collapse
in a TreeSet (the lowest id wins, deterministically), and async learners are
never candidates.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from controller.model import LiveInfo


def _candidates(ids: Iterable[int], alive: Mapping[int, LiveInfo]) -> list[int]:
    return sorted(i for i in set(ids) if i in alive and not alive[i].async_learner)


def _try_elect(
    ids: Iterable[int], alive: Mapping[int, LiveInfo], old_master: int | None, preferred: int | None
) -> int | None:
    candidates = _candidates(ids, alive)
    if not candidates:
        return None
    if old_master in candidates and preferred in (None, old_master):
        return old_master
    if preferred is not None:
        return preferred if preferred in candidates else None

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
    preferred: int | None,
) -> int | None:
    """Pick the new master of one broker set, or None when nobody qualifies.

    Args:
        sync_state_set: the current SyncStateSet (broker ids).
        all_replicas: every registered id when unclean election is enabled, else None.
        alive: live info of the set's alive brokers, keyed by broker id.
        old_master: the current master id, if any.
        preferred: the admin-designated broker id, if any.
    """
    elected = _try_elect(sync_state_set, alive, old_master, preferred)
    if elected is None and all_replicas is not None:
        elected = _try_elect(all_replicas, alive, old_master, preferred)
    return elected
