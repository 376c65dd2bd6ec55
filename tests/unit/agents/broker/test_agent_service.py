"""Pieces of the agent API that need no process: the controller views of answers."""

from __future__ import annotations

from agents.broker import convert
from agents.broker.roles import View
from mqbase.proto import common_pb2
from mqbase.proto import controller_pb2 as pb


def test_every_controller_answer_becomes_the_same_view() -> None:
    members = common_pb2.SyncStateSet(broker_ids=[1, 2], sync_state_set_epoch=3)
    expected = View(1, "h:1", "h:2", 5, frozenset({1, 2}), 3)
    register = pb.RegisterBrokerResponse(
        master_broker_id=1, master_address="h:1", master_ha_address="h:2", master_epoch=5, sync_state_set=members
    )
    info = pb.GetReplicaInfoResponse(
        master_broker_id=1, master_address="h:1", master_ha_address="h:2", master_epoch=5, sync_state_set=members
    )
    elect = pb.ElectMasterResponse(
        master_broker_id=1, master_address="h:1", master_ha_address="h:2", master_epoch=5,
        sync_state_set=[1, 2], sync_state_set_epoch=3,
    )  # fmt: skip
    push = common_pb2.RoleChangeNotification(
        master_broker_id=1, master_address="h:1", master_ha_address="h:2", master_epoch=5,
        sync_state_set=[1, 2], sync_state_set_epoch=3,
    )  # fmt: skip
    # the message form (field 14) wins over the deprecated ids an older controller sent alone
    elect_message = pb.ElectMasterResponse(
        master_broker_id=1, master_address="h:1", master_ha_address="h:2", master_epoch=5,
        sync_state_set=[9], sync_state_set_epoch=8, sync_state_set_info=members,
    )  # fmt: skip
    answers = (register, info, elect, elect_message)
    assert [convert.view_of(r) for r in answers] == [expected] * 4
    assert convert.view_of_push(push) == expected


def test_an_answer_without_an_alive_master_has_no_master() -> None:
    view = convert.view_of(pb.GetReplicaInfoResponse(master_epoch=4))
    assert (view.master_id, view.master_address, view.master_epoch) == (None, "", 4)
