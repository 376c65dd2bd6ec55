"""A controller leader partitioned from its peers must not answer the transfer lease question from old state.

Three real controller nodes with every Raft link behind the chaos suite's proxy. The leader's two Raft links
are blackholed, the other two nodes elect a new leader and commit a new master, and the old leader, which does
not know it was deposed (``raftLeaderFallbackTimeoutMs`` is long here, so it keeps the role for the whole test),
is asked "who is master of this set?" (``GetReplicaInfo``: the question a paused master asks before it resumes
writes). It must refuse; it used to answer the superseded master from its own state.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mqbase.client import ControllerClient
from mqbase.codes import ResponseCode as C
from mqbase.proto import common_pb2
from mqbase.proto import controller_pb2 as pb
from tests.harness.chaos.cluster import CLUSTER, ChaosCluster
from tests.harness.chaos.proxy import Mode
from tests.harness.controllers import FakeBroker
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

SET = "stale-leader"
UNAWARE = {"raftLeaderFallbackTimeoutMs": "60000"}
"""The partitioned leader keeps its role (pysyncobj steps down after this long without a quorum's answers)."""


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ChaosCluster]:
    """The chaos suite's 3 controllers (no agents), stopped by pid at the end."""
    c = ChaosCluster(tmp_path, [SET], controller_config=UNAWARE)
    try:
        for proc in c.controllers.values():
            proc.start()
        yield c
    finally:
        c.close()


def test_a_deposed_leader_that_does_not_know_it_refuses_the_lease_question(cluster: ChaosCluster) -> None:
    nodes = sorted(cluster.controllers)
    addresses = cluster.controller_addresses
    old = wait_until(cluster.leader, 30, "a controller leader")
    brokers = [FakeBroker(list(addresses.values()), SET, cluster_name=CLUSTER) for _ in range(3)]
    try:
        for b in brokers:
            b.register()
            b.start()
        with ControllerClient(list(addresses.values()), timeout=10.0) as client:
            first = client.call(
                "ElectMaster", pb.ElectMasterRequest(cluster_name=CLUSTER, broker_name=SET, broker_id=1)
            )
            assert (first.code, first.master_broker_id, first.master_epoch) == (C.SUCCESS, 1, 1), first
            members = common_pb2.SyncStateSet(broker_ids=[1, 2, 3], sync_state_set_epoch=first.sync_state_set_epoch)
            grown = client.call(
                "AlterSyncStateSet",
                pb.AlterSyncStateSetRequest(
                    broker_name=SET, master_broker_id=1, master_epoch=1, new_sync_state_set=members
                ),
            )
            assert grown.code == C.SUCCESS, grown  # broker 2 may be designated once it is in sync

            for link in cluster.raft_links_of(old):
                cluster.set_mode(link, Mode.BLACKHOLE)
            others = [n for n in nodes if n != old]
            new = wait_until(lambda: cluster.leader(among=others), 30, "a leader on the majority side")
            moved = client.call_at(
                addresses[new],
                "ElectMaster",
                pb.ElectMasterRequest(cluster_name=CLUSTER, broker_name=SET, broker_id=2, designate_elect=True),
            )
            assert (moved.code, moved.master_broker_id, moved.master_epoch) == (C.SUCCESS, 2, 2), moved

            stale = client.metadata(addresses[old])
            assert stale.is_leader and stale.raft.ready, f"{old} should still believe it leads: {stale}"
            plain = client.call_at(addresses[old], "GetSyncStateData", pb.GetSyncStateDataRequest(broker_names=[SET]))
            assert plain.code == C.SUCCESS and plain.replicas_info[0].master_epoch == 1, (
                "a plain read is answered from the node's applied state, stale or not (docs/protocol.md)"
            )
            lease = client.call_at(addresses[old], "GetReplicaInfo", pb.GetReplicaInfoRequest(broker_name=SET))
            assert lease.code == C.CONTROLLER_NOT_LEADER, f"the deposed leader answered from old state: {lease}"
            assert "could not confirm" in lease.remark

            for link in cluster.raft_links_of(old):
                cluster.set_mode(link, Mode.PASS)
            wait_until(lambda: not client.metadata(addresses[old]).is_leader, 30, f"{old} to step down")
            now = client.call("GetReplicaInfo", pb.GetReplicaInfoRequest(broker_name=SET))
            assert (now.code, now.master_broker_id, now.master_epoch) == (C.SUCCESS, 2, 2), now
    finally:
        for b in brokers:
            b.close()
