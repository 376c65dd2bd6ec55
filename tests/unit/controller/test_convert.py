"""Request validation at the gRPC edge: malformed requests never reach the state machine."""

from __future__ import annotations

import pytest

from controller import convert
from controller.convert import InvalidRequest
from controller.requests import (
    ElectMasterReply,
    RegisterBrokerReply,
    ReplicaIdentity,
    ReplicaInfoReply,
    ReplicasInfo,
    Result,
    SyncStateDataReply,
)
from mqbase.codes import ResponseCode as C
from mqbase.proto import common_pb2 as common
from mqbase.proto import controller_pb2 as pb


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


def test_registration_requests_carry_the_ha_address_and_old_clients_may_omit_it() -> None:
    apply = pb.ApplyBrokerIdRequest(cluster_name="c", broker_name="b", applied_broker_id=1, register_check_code="h:1;1")
    register = pb.RegisterBrokerRequest(cluster_name="c", broker_name="b", broker_id=1, broker_address="h:1")
    assert convert.apply_broker_id(apply).ha_address == ""
    assert convert.register_broker(register).ha_address == ""
    apply.ha_address = register.ha_address = "h:2"
    assert convert.apply_broker_id(apply).ha_address == "h:2"
    assert convert.register_broker(register).ha_address == "h:2"


@pytest.mark.parametrize("ha_address", ["h", "h:0", ":1", "h:x"])
def test_a_malformed_ha_address_names_the_field(ha_address: str) -> None:
    req = pb.RegisterBrokerRequest(
        cluster_name="c", broker_name="b", broker_id=1, broker_address="h:1", ha_address=ha_address
    )
    with pytest.raises(InvalidRequest, match="haAddress must be host:port"):
        convert.register_broker(req)


def test_replies_carry_the_masters_ha_address_next_to_its_address() -> None:
    reg = RegisterBrokerReply("c", "b", 1, "h:1", "h:2", 1, 1, frozenset({1}), 1)
    elect = ElectMasterReply("c", "b", 1, "h:1", "h:2", 1, 1, ((1, "h:1"),), frozenset({1}))
    info = ReplicaInfoReply(1, "h:1", "h:2", 1, frozenset({1}), 1)
    member = ReplicaIdentity("b", 1, "h:1", "h:2", True)
    sets = SyncStateDataReply((ReplicasInfo("c", "b", 1, "h:1", "h:2", 1, 1, (member,), ()),))
    responses = [
        pb.RegisterBrokerResponse(**convert.register_reply(Result(C.SUCCESS, reply=reg))),
        pb.ElectMasterResponse(**convert.elect_reply(Result(C.SUCCESS, reply=elect))),
        pb.GetReplicaInfoResponse(**convert.replica_info_reply(Result(C.SUCCESS, reply=info))),
        pb.GetSyncStateDataResponse(**convert.sync_state_data_reply(Result(C.SUCCESS, reply=sets))).replicas_info[0],
    ]
    assert [(r.master_address, r.master_ha_address) for r in responses] == [("h:1", "h:2")] * 4
    assert responses[3].in_sync_replicas[0].ha_address == "h:2"


@pytest.mark.parametrize("code", [C.SUCCESS, C.CONTROLLER_MASTER_STILL_EXIST])
def test_an_election_answers_the_sync_state_set_in_the_shape_of_every_other_reply(code: C) -> None:
    """Fixed: ElectMasterResponse had only ids (field 11); field 14 is the SyncStateSet message, epoch included,
    and the deprecated field keeps the same ids for older clients."""
    elect = ElectMasterReply("c", "b", 2, "h:1", "h:2", 4, 7, ((1, "h:1"), (2, "h:3")), frozenset({2, 1}))
    r = pb.ElectMasterResponse(**convert.elect_reply(Result(code, reply=elect)))
    assert r.HasField("sync_state_set_info")
    assert (list(r.sync_state_set_info.broker_ids), r.sync_state_set_info.sync_state_set_epoch) == ([1, 2], 7)
    assert (list(r.sync_state_set), r.sync_state_set_epoch) == ([1, 2], 7)


def test_an_election_without_a_reply_has_no_sync_state_set() -> None:
    r = pb.ElectMasterResponse(**convert.elect_reply(Result(C.CONTROLLER_MASTER_NOT_AVAILABLE, "none")))
    assert not r.HasField("sync_state_set_info") and list(r.sync_state_set) == []


def test_without_a_master_the_ha_address_is_absent_too() -> None:
    info = ReplicaInfoReply(None, None, None, 0, frozenset(), 0)
    r = pb.GetReplicaInfoResponse(**convert.replica_info_reply(Result(C.SUCCESS, reply=info)))
    assert not r.HasField("master_address")
    assert not r.HasField("master_ha_address")
