"""Request validation at the gRPC edge: malformed requests never reach the state machine."""

from __future__ import annotations

import pytest

from controller import convert
from controller.convert import InvalidRequest
from mqadmin_py.proto import common_pb2 as common
from mqadmin_py.proto import controller_pb2 as pb


def test_register_without_address_names_the_field() -> None:
    with pytest.raises(InvalidRequest, match="brokerAddress must be host:port"):
        convert.register_broker(pb.RegisterBrokerRequest(cluster_name="c", broker_name="b", broker_id=1))


def test_heartbeat_without_broker_id_uses_the_java_remark() -> None:
    with pytest.raises(InvalidRequest, match="Heart beat with empty brokerId"):
        convert.heartbeat(pb.BrokerHeartbeatRequest(cluster_name="c", broker_name="b", broker_address="h:1"))


def test_heartbeat_defaults_match_java() -> None:
    hb = convert.heartbeat(
        pb.BrokerHeartbeatRequest(cluster_name="c", broker_name="b", broker_address="h:1", broker_id=2)
    )
    assert (hb.epoch, hb.max_offset, hb.confirm_offset) == (-1, -1, -1)
    assert hb.heartbeat_timeout_ms == 10_000
    assert hb.election_priority == 2**31 - 1


@pytest.mark.parametrize("value", [0, -5])
def test_non_positive_broker_ids_are_invalid(value: int) -> None:
    with pytest.raises(InvalidRequest, match="brokerId must be a positive broker id"):
        convert.register_broker(
            pb.RegisterBrokerRequest(cluster_name="c", broker_name="b", broker_id=value, broker_address="h:1")
        )


def test_alter_with_empty_set_is_invalid() -> None:
    req = pb.AlterSyncStateSetRequest(broker_name="b", master_broker_id=1, master_epoch=1)
    with pytest.raises(InvalidRequest, match="newSyncStateSet is required"):
        convert.alter_sync_state_set(req)


def test_alter_with_negative_epoch_is_invalid() -> None:
    req = pb.AlterSyncStateSetRequest(
        broker_name="b",
        master_broker_id=1,
        master_epoch=-1,
        new_sync_state_set=common.SyncStateSet(broker_ids=[1], sync_state_set_epoch=0),
    )
    with pytest.raises(InvalidRequest, match="masterEpoch must be between 0"):
        convert.alter_sync_state_set(req)


def test_elect_without_id_is_a_controller_trigger_and_minus_one_too() -> None:
    assert convert.elect_master(pb.ElectMasterRequest(broker_name="b")).is_controller_trigger
    assert convert.elect_master(pb.ElectMasterRequest(broker_name="b", broker_id=-1)).is_controller_trigger


def test_designated_election_needs_an_id() -> None:
    with pytest.raises(InvalidRequest, match="brokerId is required"):
        convert.elect_master(pb.ElectMasterRequest(broker_name="b", designate_elect=True))


@pytest.mark.parametrize("name", ["", "a;b", "x" * 256, "tab\there", "nul\0"])
def test_bad_broker_names_are_invalid(name: str) -> None:
    with pytest.raises(InvalidRequest, match="brokerName"):
        convert.get_replica_info(pb.GetReplicaInfoRequest(broker_name=name))


def test_apply_broker_id_needs_an_address_in_the_check_code() -> None:
    req = pb.ApplyBrokerIdRequest(cluster_name="c", broker_name="b", applied_broker_id=1, register_check_code=";1")
    with pytest.raises(InvalidRequest, match="registerCheckCode address"):
        convert.apply_broker_id(req)
