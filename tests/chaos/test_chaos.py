"""The chaos suite in CI: bounded runs with fixed seeds (about two minutes on 2 cores).

Each run starts 3 controllers and 3 agents, produces and consumes under random faults drawn from the seed
(kills, pauses, partitions through the proxies, a slow disk), heals, and checks the invariants
(``invariants.py``). A failure prints the seed's report: rerun it with ``bench/chaos.py --seed N``. One more
runs follow a script instead of a seed: a controller leader cut off during a transfer, and a broker set
left with no electable master, served by its acting replica (RIP-32).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.harness.chaos.cluster import ChaosCluster
from tests.harness.chaos.faults import (
    ACTING_CONFIG,
    ACTING_HOLD_S,
    STALE_LEADER_CONFIG,
    STALE_LEADER_HOLD_S,
    FaultScheduler,
)
from tests.harness.chaos.history import History, Recorder
from tests.harness.chaos.runner import escaped_delayed, run_chaos

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DURATION_S = 25.0


@pytest.mark.parametrize(("seed", "sets"), [(1, 1), (2, 2), (3, 1)])
def test_no_invariant_breaks_under_random_faults(tmp_path: Path, seed: int, sets: int) -> None:
    report = run_chaos(tmp_path, seed, DURATION_S, sets)
    print(report.text())
    h = report.history
    assert not report.violations, report.text()
    assert not h.notes, report.text()  # every set converged after healing: liveness, not only safety
    assert sum(n for k, n in report.faults_by_kind().items() if not k.startswith("skip ")) > 0, report.text()
    assert h.acks and len(h.final_logs) == sets and len(h.controller_states) == 3, report.text()
    assert all(report.proxied[kind] > 0 for kind in ("raft", "grpc", "ha")), report.text()
    # Invariant 7 checks what the consumer group was told: it must have been told something on every set.
    assert len(h.groups) == sets, report.text()
    assert all(g.deliveries and g.acks for g in h.groups.values()), report.text()
    # Invariant 8 checks delayed messages: every set must have had some acknowledged.
    assert {d.broker_set for d in h.delayed if d.acked} == set(h.final_logs), report.text()
    # Invariant 9 checks transactions: every set must have had commits, rollbacks and check-backs answered.
    assert all(tried_every_ending(h, name) for name in h.final_logs), report.text()


def tried_every_ending(h: History, broker_set: str) -> bool:
    """The set had a transaction committed and one rolled back by their producer's end, and one of each ended by
    the answer to its check-back."""
    decided = {t.payload: t for t in h.transactions if t.broker_set == broker_set and t.acked}
    ended = {
        (decided[e.payload].commit, e.from_check) for e in h.transaction_ends if e.payload in decided and e.code == 0
    }
    return ended == {(True, False), (False, False), (True, True), (False, True)}


def _stale_leader(cluster: ChaosCluster, recorder: Recorder, say: Callable[[str], None]) -> None:
    FaultScheduler(cluster, recorder, 0, say).stale_leader_during_transfer()


def test_a_deposed_controller_leader_gives_no_stale_answer_to_the_lease_question(tmp_path: Path) -> None:
    """The old leader, cut off and unaware, is asked the lease question after the new leader moved the master."""
    report = run_chaos(
        tmp_path, 0, STALE_LEADER_HOLD_S, 1, controller_config=STALE_LEADER_CONFIG, scenario=_stale_leader
    )
    print(report.text())
    h = report.history
    assert not report.violations, report.text()
    assert not h.notes, report.text()
    kinds = report.faults_by_kind()
    assert kinds["partition-controller-leader"] == 1 and kinds["transfer-master"] == 1, report.text()
    epochs = {a.master_epoch for a in h.lease_answers}
    assert len(epochs) > 1, f"the lease answers never saw the transfer's new masterEpoch: {epochs}"


def _acting(cluster: ChaosCluster, recorder: Recorder, say: Callable[[str], None]) -> None:
    FaultScheduler(cluster, recorder, 0, say).acting_episode()


def test_a_set_without_an_electable_master_serves_its_group_through_the_acting_replica_and_rolls_nothing_back(
    tmp_path: Path,
) -> None:
    """Every controller killed, then the first set's master broker removed: the set's acting replica serves the group
    and delivers due delayed messages through escape; after healing, invariants 7 and 8 hold across the episode (no
    ack undone, nothing lost, no delayed message twice) on whichever replica the controllers elect."""
    report = run_chaos(tmp_path, 0, ACTING_HOLD_S, 2, broker_config=ACTING_CONFIG, scenario=_acting)
    print(report.text())
    h = report.history
    assert not report.violations, report.text()
    assert not h.notes, report.text()
    kinds = report.faults_by_kind()
    assert kinds["kill-controller"] == 3 and kinds["remove-master"] == 1 and kinds["acting-master"] == 1, report.text()
    [episode] = h.acting
    served = [a for a in h.groups[episode.broker_set].acks if episode.from_ms <= a.answered_ms <= episode.to_ms]
    assert served, f"no ack was answered while the replica acted\n{report.text()}"
    assert escaped_delayed(h, episode.broker_set), f"no delayed message was delivered through escape\n{report.text()}"
