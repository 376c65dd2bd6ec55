"""AlterSyncStateSet (checks in the Java order), GetReplicaInfo and GetSyncStateData."""

from __future__ import annotations

from controller.events import AlterSyncStateSet
from controller.model import ControllerState
from controller.requests import (
    AlterSyncStateSetReply,
    AlterSyncStateSetRequest,
    ElectMasterRequest,
    GetReplicaInfoRequest,
    GetSyncStateDataRequest,
    ReplicaIdentity,
    ReplicaInfoReply,
    ReplicasInfo,
    SyncStateDataReply,
)
from controller.state import apply_event, apply_events, compute
from mqbase.codes import ResponseCode
from tests.harness.controller_state import (
    BROKER,
    CLUSTER,
    NOBODY,
    addr,
    alive_of,
    apply_ids,
    broker_set,
    elect_first,
    ha_addr,
    live,
    master_view,
    reply_of,
    run,
    three_replicas,
    with_master,
)

ALL_ALIVE = alive_of(1, 2, 3)


def alter(
    new_set: set[int], master: int = 1, master_epoch: int = 1, sss_epoch: int = 1, broker_name: str = BROKER
) -> AlterSyncStateSetRequest:
    """An AlterSyncStateSet request as the master of a fresh `with_master(1)` set would send it."""
    return AlterSyncStateSetRequest(broker_name, master, master_epoch, frozenset(new_set), sss_epoch)


# --- AlterSyncStateSet: each check and its code ------------------------------------------------


def test_alter_unknown_set_fails_with_2013() -> None:
    _, result = run(with_master(1), alter({1, 2}, broker_name="broker-z"), ALL_ALIVE)
    assert result.code == ResponseCode.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED
    assert result.remark == "Broker metadata is not existed"


def test_alter_to_the_equal_set_fails_with_2013() -> None:
    _, result = run(with_master(1), alter({1}), ALL_ALIVE)
    assert result.code == ResponseCode.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED
    assert result.remark == "The newSyncStateSet is equal with oldSyncStateSet, no needed to update syncStateSet"


def test_alter_from_a_non_master_fails_with_2002() -> None:
    _, result = run(with_master(1), alter({1, 2}, master=2), ALL_ALIVE)
    assert result.code == ResponseCode.CONTROLLER_INVALID_MASTER


def test_alter_before_any_election_fails_with_2002() -> None:
    _, result = run(three_replicas(), alter({1}, master_epoch=0, sss_epoch=0), ALL_ALIVE)
    assert result.code == ResponseCode.CONTROLLER_INVALID_MASTER


def test_alter_in_a_masterless_set_fails_with_2002() -> None:
    state, _ = run(with_master(1, (1, 2)), ElectMasterRequest("", BROKER), NOBODY)
    _, result = run(state, alter({1}, master_epoch=2, sss_epoch=2), ALL_ALIVE)
    assert result.code == ResponseCode.CONTROLLER_INVALID_MASTER


def test_alter_with_a_stale_master_epoch_fails_with_2000() -> None:
    _, result = run(with_master(1), alter({1, 2}, master_epoch=0), ALL_ALIVE)
    assert result.code == ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH


def test_alter_with_a_stale_sync_state_set_epoch_fails_with_2001() -> None:
    _, result = run(with_master(1, (1, 2)), alter({1, 2, 3}, sss_epoch=1), ALL_ALIVE)
    assert result.code == ResponseCode.CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH


def test_alter_with_an_unregistered_id_fails_with_2003() -> None:
    _, result = run(with_master(1), alter({1, 4}), {**ALL_ALIVE, **alive_of(4)})
    assert result.code == ResponseCode.CONTROLLER_INVALID_REPLICAS


def test_alter_with_a_dead_id_fails_with_2006() -> None:
    _, result = run(with_master(1), alter({1, 2, 3}), alive_of(1, 2))
    assert result.code == ResponseCode.CONTROLLER_BROKER_NOT_ALIVE


def test_alter_with_an_async_learner_fails_with_2003() -> None:
    alive = {**alive_of(1, 2), **{(BROKER, 3): live(async_learner=True)}}
    _, result = run(with_master(1), alter({1, 3}), alive)
    assert result.code == ResponseCode.CONTROLLER_INVALID_REPLICAS


def test_alter_to_a_set_without_the_master_fails_with_2013() -> None:
    _, result = run(with_master(1), alter({2, 3}), ALL_ALIVE)
    assert result.code == ResponseCode.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED
    assert "1" in result.remark


# --- AlterSyncStateSet: the order of the checks -------------------------------------------------


def test_equal_set_is_checked_before_the_master_and_the_epochs() -> None:
    _, result = run(with_master(1), alter({1}, master=3, master_epoch=0, sss_epoch=0), NOBODY)
    assert result.code == ResponseCode.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED


def test_invalid_master_is_checked_before_a_stale_master_epoch() -> None:
    _, result = run(with_master(1), alter({1, 2}, master=2, master_epoch=0), ALL_ALIVE)
    assert result.code == ResponseCode.CONTROLLER_INVALID_MASTER


def test_stale_master_epoch_is_checked_before_a_dead_member() -> None:
    _, result = run(with_master(1), alter({1, 2, 3}, master_epoch=0), alive_of(1))
    assert result.code == ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH


def test_stale_master_epoch_is_checked_before_a_stale_sync_state_set_epoch() -> None:
    _, result = run(with_master(1), alter({1, 2}, master_epoch=0, sss_epoch=0), ALL_ALIVE)
    assert result.code == ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH


def test_stale_sync_state_set_epoch_is_checked_before_an_unregistered_member() -> None:
    _, result = run(with_master(1), alter({1, 9}, sss_epoch=0), ALL_ALIVE)
    assert result.code == ResponseCode.CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH


def test_dead_member_is_checked_before_the_missing_master() -> None:
    _, result = run(with_master(1), alter({2, 3}), alive_of(1, 2))
    assert result.code == ResponseCode.CONTROLLER_BROKER_NOT_ALIVE


def test_unregistered_member_is_checked_before_the_missing_master() -> None:
    _, result = run(with_master(1), alter({2, 9}), {**ALL_ALIVE, **alive_of(9)})
    assert result.code == ResponseCode.CONTROLLER_INVALID_REPLICAS


def test_failed_alter_emits_no_event_and_keeps_the_state() -> None:
    state = with_master(1)
    after, result = run(state, alter({1, 2, 3}), alive_of(1, 2))
    assert result.events == ()
    assert result.reply is None
    assert after == state


# --- AlterSyncStateSet: success and stale events ------------------------------------------------


def test_alter_success_expands_the_set_and_bumps_its_epoch() -> None:
    state, result = run(with_master(1), alter({1, 2, 3}), ALL_ALIVE)
    assert result.code == ResponseCode.SUCCESS
    assert result.reply == AlterSyncStateSetReply(2, frozenset({1, 2, 3}))
    assert result.events == (AlterSyncStateSet(BROKER, frozenset({1, 2, 3}), 1, 1),)
    assert master_view(state) == (1, 1, frozenset({1, 2, 3}), 2)


def test_alter_success_shrinks_the_set() -> None:
    state, result = run(with_master(1, (1, 2, 3)), alter({1, 3}, sss_epoch=2), alive_of(1, 3))
    assert result.reply == AlterSyncStateSetReply(3, frozenset({1, 3}))
    assert broker_set(state).sync_state_set == frozenset({1, 3})
    assert broker_set(state).sync_state_set_epoch == 3


def test_alter_event_computed_before_an_election_is_a_no_op_when_applied_after_it() -> None:
    state = with_master(1, (1, 2))
    pending = compute(state, alter({1, 2, 3}, sss_epoch=2), ALL_ALIVE, allow_unclean=False)
    assert pending.ok
    elected, election = run(state, ElectMasterRequest("", BROKER), alive_of(2, 3))
    assert election.ok
    assert broker_set(elected).master_id == 2
    assert apply_events(elected, pending.events) == elected


def test_second_alter_computed_on_the_same_epoch_is_a_no_op() -> None:
    state = with_master(1)
    first = compute(state, alter({1, 2}), ALL_ALIVE, allow_unclean=False)
    second = compute(state, alter({1, 3}), ALL_ALIVE, allow_unclean=False)
    state = apply_events(state, first.events)
    assert apply_events(state, second.events) == state
    assert broker_set(state).sync_state_set == frozenset({1, 2})


def test_alter_event_for_an_unknown_set_is_a_no_op() -> None:
    state = with_master(1)
    assert apply_event(state, AlterSyncStateSet("broker-z", frozenset({1}), 1, 1)) == state


# --- GetReplicaInfo -----------------------------------------------------------------------------


def test_replica_info_of_an_unknown_set_fails_with_2008() -> None:
    _, result = run(three_replicas(), GetReplicaInfoRequest("broker-z"), NOBODY)
    assert result.code == ResponseCode.CONTROLLER_BROKER_METADATA_NOT_EXIST
    assert result.remark == "Broker metadata is not existed"


def test_replica_info_reports_master_epochs_and_sync_state_set() -> None:
    _, result = run(with_master(1, (1, 2)), GetReplicaInfoRequest(BROKER), NOBODY)
    assert result.code == ResponseCode.SUCCESS
    assert result.reply == ReplicaInfoReply(1, addr(1), ha_addr(1), 1, frozenset({1, 2}), 2)
    assert result.events == ()


def test_replica_info_before_the_first_election_has_no_master() -> None:
    _, result = run(three_replicas(), GetReplicaInfoRequest(BROKER), NOBODY)
    assert result.reply == ReplicaInfoReply(None, None, None, 0, frozenset(), 0)


def test_replica_info_of_a_masterless_set_keeps_the_sync_state_set() -> None:
    state, _ = run(with_master(1, (1, 2)), ElectMasterRequest("", BROKER), NOBODY)
    _, result = run(state, GetReplicaInfoRequest(BROKER), NOBODY)
    assert result.reply == ReplicaInfoReply(None, None, None, 2, frozenset({1, 2}), 2)


# --- GetSyncStateData ---------------------------------------------------------------------------


def _three_sets() -> ControllerState:
    state = with_master(1, (1, 2))
    state = elect_first(apply_ids(state, [1, 2], broker_name="broker-b"), 2, broker_name="broker-b")
    return apply_ids(state, [1], broker_name="broker-c", cluster_name="OtherCluster")


def _names(request: GetSyncStateDataRequest) -> list[str]:
    _, result = run(_three_sets(), request, NOBODY)
    assert result.code == ResponseCode.SUCCESS
    return [info.broker_name for info in reply_of(result, SyncStateDataReply).replicas_info]


def test_sync_state_data_by_names_skips_unknown_names_and_sorts() -> None:
    request = GetSyncStateDataRequest(broker_names=("broker-c", "broker-z", "broker-a"))
    assert _names(request) == ["broker-a", "broker-c"]


def test_sync_state_data_lists_a_repeated_name_once() -> None:
    assert _names(GetSyncStateDataRequest(broker_names=("broker-b", "broker-b"))) == ["broker-b"]


def test_sync_state_data_by_cluster() -> None:
    assert _names(GetSyncStateDataRequest(cluster_name=CLUSTER)) == ["broker-a", "broker-b"]
    assert _names(GetSyncStateDataRequest(cluster_name="OtherCluster")) == ["broker-c"]
    assert _names(GetSyncStateDataRequest(cluster_name="NoSuchCluster")) == []


def test_sync_state_data_of_all_sets() -> None:
    assert _names(GetSyncStateDataRequest(all_broker_sets=True)) == ["broker-a", "broker-b", "broker-c"]


def test_sync_state_data_with_nothing_selected_fails_with_2005() -> None:
    _, result = run(_three_sets(), GetSyncStateDataRequest(), NOBODY)
    assert result.code == ResponseCode.CONTROLLER_INVALID_REQUEST
    assert result.reply is None


def test_sync_state_data_splits_in_sync_and_not_in_sync_with_alive_flags() -> None:
    _, result = run(with_master(1, (1, 2)), GetSyncStateDataRequest(broker_names=(BROKER,)), alive_of(1, 3))
    assert reply_of(result, SyncStateDataReply).replicas_info == (
        ReplicasInfo(
            cluster_name=CLUSTER,
            broker_name=BROKER,
            master_broker_id=1,
            master_address=addr(1),
            master_ha_address=ha_addr(1),
            master_epoch=1,
            sync_state_set_epoch=2,
            in_sync_replicas=(
                ReplicaIdentity(BROKER, 1, addr(1), ha_addr(1), True),
                ReplicaIdentity(BROKER, 2, addr(2), ha_addr(2), False),
            ),
            not_in_sync_replicas=(ReplicaIdentity(BROKER, 3, addr(3), ha_addr(3), True),),
        ),
    )
