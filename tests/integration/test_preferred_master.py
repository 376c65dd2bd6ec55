"""Preferred master, Assign and Elect, on a real 3-node controller group driven by fake brokers.

The module's group runs with ``enablePreferredMaster=true``, switched on at run time through
UpdateControllerConfig (a group-wide value). Each test uses its own broker-set name; tests that kill a node put the
group back before they return.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from mqadmin_py.sandbox import Sandbox
from mqbase.codes import ResponseCode as C
from mqbase.proto import controller_pb2 as pb
from tests.harness.controllers import (
    CLUSTER,
    Client,
    FakeBroker,
    alive_ids,
    alter,
    catch_up,
    elect,
    ensure_group,
    leader,
    master_of,
    node_config,
    replica_info,
    sync_state_data,
    wait_alive,
    wait_dead,
    wait_new_master,
)
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]


class PreferringBroker(FakeBroker):
    """A FakeBroker whose beats also carry ``brokerElectionPriority`` and ``asyncLearner``."""

    def __init__(self, *args: Any, priority: int | None = None, async_learner: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.priority = priority
        self.async_learner = async_learner

    def beat(self) -> pb.BrokerHeartbeatRequest:
        message = super().beat()
        if self.priority is not None:
            message.election_priority = self.priority
        message.async_learner = self.async_learner
        return message


MakeBroker = Callable[..., PreferringBroker]


def set_preferred_master_flag(sandbox: Sandbox, enabled: bool) -> None:
    """UpdateControllerConfig enablePreferredMaster for the group (the leader commits it), applied on every node."""
    value = str(enabled).lower()
    request = pb.UpdateControllerConfigRequest(properties={"enablePreferredMaster": value})
    with Client(sandbox.addresses(), timeout=3.0) as group:
        updated = group.call("UpdateControllerConfig", request)
    assert updated.code == C.SUCCESS, updated

    def applied() -> bool:
        return all(node_config(c.address).config["enablePreferredMaster"] == value for c in sandbox.controllers())

    wait_until(applied, 20, f"enablePreferredMaster={value} on every node")


@pytest.fixture(scope="module", autouse=True)
def preferred_master_on(sandbox: Sandbox) -> None:
    ensure_group(sandbox)
    set_preferred_master_flag(sandbox, True)


@pytest.fixture(autouse=True)
def healthy_group(sandbox: Sandbox) -> Iterator[None]:
    """Every test ends with three running nodes and a serving leader."""
    yield
    ensure_group(sandbox)


@pytest.fixture
def make(sandbox: Sandbox) -> Iterator[MakeBroker]:
    """Factory of registered, heartbeating PreferringBrokers; all closed at the end of the test."""
    made: list[PreferringBroker] = []

    def build(broker_name: str, **kwargs: Any) -> PreferringBroker:
        kwargs.setdefault("heartbeat_timeout_millis", 30_000)  # only a broken stream explains a quick failover
        broker = PreferringBroker([c.address for c in sandbox.controllers()], broker_name, **kwargs)
        made.append(broker)
        broker.register()
        broker.start()
        return broker

    yield build
    for broker in made:
        broker.close()


def assign(
    client: Client, broker_name: str, broker_id: int | None, cluster_name: str = CLUSTER
) -> pb.AssignPreferredMasterResponse:
    request = pb.AssignPreferredMasterRequest(
        cluster_name=cluster_name, broker_name=broker_name, broker_id=broker_id, clear=broker_id is None
    )
    response: pb.AssignPreferredMasterResponse = client.call("AssignPreferredMaster", request)
    return response


def known(client: Client, broker_name: str) -> pb.ReplicasInfo:
    info = sync_state_data(client, broker_name)
    assert info is not None, f"the controller does not know {broker_name}"
    return info


def preferred_of(client: Client, broker_name: str) -> int | None:
    info = known(client, broker_name)
    return info.preferred_broker_id if info.HasField("preferred_broker_id") else None


def in_sync_set(client: Client, make: MakeBroker, name: str, options: list[dict[str, Any]]) -> list[PreferringBroker]:
    """Brokers 1..n (`options` per broker), broker 1 master at masterEpoch 1, every broker in the SyncStateSet."""
    group = [make(name, **kw) for kw in options]
    ids = {b.broker_id for b in group if b.broker_id is not None}
    assert ids == set(range(1, len(group) + 1))
    wait_alive(client, name, ids)
    won = elect(client, name, 1)
    assert (won.code, won.master_broker_id) == (C.SUCCESS, 1), won
    grown = alter(client, name, 1, won.master_epoch, sorted(ids), won.sync_state_set_epoch)
    assert grown.code == C.SUCCESS, grown
    return group


# --- Assign ---------------------------------------------------------------------------------------


def test_assignment_is_idempotent_survives_a_leader_kill_and_shows_in_get_sync_state_data(
    sandbox: Sandbox, client: Client, make: MakeBroker
) -> None:
    name = "p1-assign"
    in_sync_set(client, make, name, [{}, {}, {}])

    first = assign(client, name, 3)
    assert first.code == C.SUCCESS, first
    assert not first.HasField("previous_preferred_broker_id")
    assert (first.preferred_broker_id, first.master_broker_id, first.master_epoch) == (3, 1, 1)
    assert first.preferred_master_enabled
    again = assign(client, name, 3)
    assert (again.code, again.previous_preferred_broker_id, again.preferred_broker_id) == (C.SUCCESS, 3, 3)

    old = leader(sandbox)
    sandbox.signal(old.id, signal.SIGKILL)
    wait_dead(sandbox, old.id)
    assert sandbox.wait_for_leader(20) != old.id
    assert wait_until(lambda: preferred_of(client, name), 15, "the new leader to answer") == 3
    assert master_of(replica_info(client, name)) == 1, "an assignment alone moves no master"

    sandbox.start(old.id)
    catch_up(sandbox, old.id)
    moved = assign(client, name, 2)
    assert (moved.previous_preferred_broker_id, moved.preferred_broker_id) == (3, 2)


def test_refusals_name_the_reason(client: Client, make: MakeBroker) -> None:
    name = "p2-refusals"
    make(name)
    make(name)
    make(name, async_learner=True)
    wait_alive(client, name, {1, 2, 3})

    learner = assign(client, name, 3)
    assert learner.code == C.CONTROLLER_INVALID_REPLICAS, learner
    assert "async learner" in learner.remark
    unknown_id = assign(client, name, 9)
    assert unknown_id.code == C.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED, unknown_id
    assert "registered ids: 1, 2, 3" in unknown_id.remark
    for missing in (assign(client, "p2-no-such-set", 1), assign(client, name, 1, cluster_name="OtherCluster")):
        assert missing.code == C.CONTROLLER_BROKER_METADATA_NOT_EXIST, missing
    both = client.call(
        "AssignPreferredMaster",
        pb.AssignPreferredMasterRequest(cluster_name=CLUSTER, broker_name=name, broker_id=1, clear=True),
    )
    assert both.code == C.CONTROLLER_INVALID_REQUEST, both
    assert preferred_of(client, name) is None


# --- Elect ----------------------------------------------------------------------------------------


def test_master_lost_elects_the_preferred_over_a_more_advanced_member(client: Client, make: MakeBroker) -> None:
    name = "p3-master-lost"
    group = in_sync_set(client, make, name, [{}, {"max_offset": 900}, {"max_offset": 10}])
    assert assign(client, name, 3).code == C.SUCCESS

    group[0].crash()
    after = wait_new_master(client, name, old=1, timeout=15)
    assert (master_of(after), after.master_epoch) == (3, 2)
    group[2].wait_for_notification(lambda n: n.master_epoch == 2 and n.master_broker_id == 3)


def test_an_admin_election_away_from_the_preferred_warns_and_checks_the_cluster(
    client: Client, make: MakeBroker
) -> None:
    """Fixed: electMaster gave no hint that the scan moves the role back, and accepted any cluster name."""
    name = "p9-elect-warns"
    in_sync_set(client, make, name, [{}, {}, {}])
    assert assign(client, name, 1).code == C.SUCCESS

    def designate(broker_id: int, cluster_name: str = CLUSTER) -> pb.ElectMasterResponse:
        request = pb.ElectMasterRequest(cluster_name=cluster_name, broker_name=name, broker_id=broker_id,
                                        designate_elect=True)  # fmt: skip
        response: pb.ElectMasterResponse = client.call("ElectMaster", request)
        return response

    wrong = designate(2, "OtherCluster")
    assert wrong.code == C.CONTROLLER_BROKER_METADATA_NOT_EXIST, wrong
    assert wrong.remark.endswith(f"it belongs to cluster {CLUSTER}")
    assert master_of(known(client, name)) == 1
    moved = designate(2)
    assert (moved.code, moved.master_broker_id) == (C.SUCCESS, 2), moved
    (warning,) = moved.warnings
    assert warning.startswith(f"the preferred master of {name} is broker 1: with enablePreferredMaster the controller")
    again = designate(2)  # a no-op (2011) still warns: the scan moves the role back all the same
    assert (again.code, again.master_broker_id) == (C.CONTROLLER_MASTER_STILL_EXIST, 2), again
    assert list(again.warnings) == [warning]


def test_a_preferred_outside_the_sync_state_set_does_not_win(client: Client, make: MakeBroker) -> None:
    name = "p4-not-eligible"
    group = in_sync_set(client, make, name, [{}, {"max_offset": 10}, {"max_offset": 900}])
    info = replica_info(client, name)
    shrunk = alter(client, name, 1, info.master_epoch, [1, 2], info.sync_state_set.sync_state_set_epoch)
    assert shrunk.code == C.SUCCESS, shrunk
    assert assign(client, name, 3).code == C.SUCCESS

    group[0].crash()
    after = wait_new_master(client, name, old=1, timeout=15)
    assert master_of(after) == 2, "only SyncStateSet members are eligible; the preferred broker 3 is not one"


def test_first_election_goes_to_the_preferred_whoever_asks(client: Client, make: MakeBroker) -> None:
    assigned, by_priority = "p5-first-assigned", "p5-first-priority"
    for _ in range(3):
        make(assigned)
    make(by_priority)
    make(by_priority)
    make(by_priority, priority=0)
    wait_alive(client, assigned, {1, 2, 3})
    wait_alive(client, by_priority, {1, 2, 3})
    assert assign(client, assigned, 2).code == C.SUCCESS

    for name, expected in ((assigned, 2), (by_priority, 3)):
        won = elect(client, name, 1)
        assert (won.code, won.master_broker_id, won.master_epoch) == (C.SUCCESS, expected, 1), won


def test_clearing_the_preference_restores_the_normal_policy(client: Client, make: MakeBroker) -> None:
    name = "p6-clear"
    group = in_sync_set(client, make, name, [{}, {"max_offset": 900}, {"max_offset": 10}, {}])
    assert assign(client, name, 3).code == C.SUCCESS
    cleared = assign(client, name, None)
    assert (cleared.code, cleared.previous_preferred_broker_id) == (C.SUCCESS, 3)
    assert not cleared.HasField("preferred_broker_id")
    assert preferred_of(client, name) is None

    group[0].crash()
    assert master_of(wait_new_master(client, name, old=1, timeout=15)) == 2

    assert assign(client, name, 4).code == C.SUCCESS
    group[3].crash()
    wait_until(lambda: 4 not in alive_ids(known(client, name)), 15, "broker 4 to be dead on the leader")
    request = pb.CleanBrokerDataRequest(cluster_name=CLUSTER, broker_name=name, broker_controller_ids_to_clean="4")
    assert client.call("CleanBrokerData", request).code == C.SUCCESS
    assert preferred_of(client, name) is None, "cleaning the preferred broker's id clears the preference"


def test_with_the_flag_off_the_preference_is_kept_but_ignored(
    sandbox: Sandbox, client: Client, make: MakeBroker
) -> None:
    name = "p7-flag-off"
    group = in_sync_set(client, make, name, [{}, {"max_offset": 900}, {"max_offset": 10}])
    set_preferred_master_flag(sandbox, False)
    try:
        recorded = assign(client, name, 3)
        assert (recorded.code, recorded.preferred_master_enabled) == (C.SUCCESS, False)
        group[0].crash()
        assert master_of(wait_new_master(client, name, old=1, timeout=15)) == 2
        assert preferred_of(client, name) == 3
    finally:
        set_preferred_master_flag(sandbox, True)
