"""GetNextBrokerId, ApplyBrokerId and RegisterBroker (registration phases 1 to 3)."""

from __future__ import annotations

import pytest

from controller.events import ApplyBrokerId, UpdateBrokerAddress
from controller.model import ControllerState, Replica
from controller.requests import (
    ApplyBrokerIdReply,
    ApplyBrokerIdRequest,
    GetNextBrokerIdRequest,
    NextBrokerIdReply,
    RegisterBrokerReply,
    RegisterBrokerRequest,
)
from controller.state import address_taken, apply_event
from mqbase.codes import ResponseCode
from tests.harness.controller_state import (
    BROKER,
    CLUSTER,
    NOBODY,
    addr,
    alive_of,
    apply_ids,
    broker_set,
    check_code,
    ha_addr,
    live,
    reply_of,
    run,
    three_replicas,
    with_master,
)

# --- GetNextBrokerId ----------------------------------------------------------------------------


def test_next_broker_id_is_one_for_an_unknown_set() -> None:
    _, result = run(ControllerState(), GetNextBrokerIdRequest(CLUSTER, BROKER), NOBODY)
    assert result.code == ResponseCode.SUCCESS
    assert result.reply == NextBrokerIdReply(CLUSTER, BROKER, 1)
    assert result.events == ()


def test_next_broker_id_follows_the_applied_ids() -> None:
    state = ControllerState()
    for expected in (1, 2, 3, 4):
        _, result = run(state, GetNextBrokerIdRequest(CLUSTER, BROKER), NOBODY)
        assert reply_of(result, NextBrokerIdReply).next_broker_id == expected
        state = apply_ids(state, [expected])


def test_next_broker_id_is_per_broker_set() -> None:
    state = apply_ids(three_replicas(), [1], broker_name="broker-b")
    _, a = run(state, GetNextBrokerIdRequest(CLUSTER, BROKER), NOBODY)
    _, b = run(state, GetNextBrokerIdRequest(CLUSTER, "broker-b"), NOBODY)
    assert (reply_of(a, NextBrokerIdReply).next_broker_id, reply_of(b, NextBrokerIdReply).next_broker_id) == (4, 2)


def test_next_broker_id_stays_above_an_applied_id_that_skipped_ahead() -> None:
    state = apply_ids(ControllerState(), [1, 7])
    assert broker_set(state).next_broker_id == 8
    _, result = run(state, GetNextBrokerIdRequest(CLUSTER, BROKER), NOBODY)
    assert reply_of(result, NextBrokerIdReply).next_broker_id == 8


# --- ApplyBrokerId ------------------------------------------------------------------------------


def test_apply_first_id_creates_the_set() -> None:
    request = ApplyBrokerIdRequest(CLUSTER, BROKER, 1, check_code(1))
    state, result = run(ControllerState(), request, NOBODY)
    assert result.code == ResponseCode.SUCCESS
    assert result.reply == ApplyBrokerIdReply(CLUSTER, BROKER)
    assert result.events == (ApplyBrokerId(CLUSTER, BROKER, addr(1), 1, check_code(1)),)
    bs = broker_set(state)
    assert bs.cluster_name == CLUSTER
    assert bs.replicas == (Replica(1, addr(1), check_code(1)),)
    assert bs.next_broker_id == 2
    assert (bs.master_id, bs.master_epoch, bs.sync_state_set, bs.sync_state_set_epoch) == (None, 0, frozenset(), 0)


def test_apply_stores_the_ha_address() -> None:
    request = ApplyBrokerIdRequest(CLUSTER, BROKER, 1, check_code(1), ha_addr(1))
    state, result = run(ControllerState(), request, NOBODY)
    assert result.events == (ApplyBrokerId(CLUSTER, BROKER, addr(1), 1, check_code(1), ha_addr(1)),)
    assert broker_set(state).replicas == (Replica(1, addr(1), check_code(1), ha_addr(1)),)


def test_apply_other_than_one_for_an_unknown_set_is_rejected_with_the_java_remark() -> None:
    request = ApplyBrokerIdRequest(CLUSTER, BROKER, 2, check_code(2))
    state, result = run(ControllerState(), request, NOBODY)
    assert result.code == ResponseCode.CONTROLLER_BROKER_ID_INVALID
    assert result.remark == (
        "Broker-set: broker-a hasn't been registered in controller, but broker try to apply brokerId: 2"
    )
    assert result.events == ()
    assert len(state) == 0


def test_apply_an_unused_id_succeeds() -> None:
    state = apply_ids(ControllerState(), [1])
    state, result = run(state, ApplyBrokerIdRequest(CLUSTER, BROKER, 2, check_code(2)), NOBODY)
    assert result.code == ResponseCode.SUCCESS
    assert broker_set(state).broker_ids == (1, 2)
    assert broker_set(state).next_broker_id == 3


def test_apply_an_unused_id_that_is_not_the_next_one_is_accepted_as_in_java() -> None:
    state = apply_ids(ControllerState(), [1])
    state, result = run(state, ApplyBrokerIdRequest(CLUSTER, BROKER, 5, check_code(5)), NOBODY)
    assert result.ok
    assert broker_set(state).broker_ids == (1, 5)
    assert broker_set(state).next_broker_id == 6


def test_apply_same_id_with_same_check_code_is_an_idempotent_retry() -> None:
    state = apply_ids(ControllerState(), [1, 2])
    request = ApplyBrokerIdRequest(CLUSTER, BROKER, 2, check_code(2))
    after, result = run(state, request, NOBODY)
    assert result.code == ResponseCode.SUCCESS
    assert result.events == (ApplyBrokerId(CLUSTER, BROKER, addr(2), 2, check_code(2)),)
    assert after == state
    assert broker_set(after).next_broker_id == 3


def test_apply_same_id_with_another_check_code_is_rejected_with_the_java_remark() -> None:
    state = apply_ids(ControllerState(), [1, 2])
    request = ApplyBrokerIdRequest(CLUSTER, BROKER, 2, check_code(9, millis=1_700_000_000_999))
    after, result = run(state, request, NOBODY)
    assert result.code == ResponseCode.CONTROLLER_BROKER_ID_INVALID
    assert result.remark == "Fail to apply brokerId: 2 in broker-set: broker-a"
    assert result.events == ()
    assert after == state


def test_apply_takes_the_address_from_the_check_code_before_the_first_semicolon() -> None:
    request = ApplyBrokerIdRequest(CLUSTER, BROKER, 1, "10.0.0.5:10911;1700000000000;extra")
    state, result = run(ControllerState(), request, NOBODY)
    event = result.events[0]
    assert isinstance(event, ApplyBrokerId)
    assert event.broker_address == "10.0.0.5:10911"
    assert broker_set(state).replicas == (Replica(1, "10.0.0.5:10911", "10.0.0.5:10911;1700000000000;extra"),)


def test_apply_with_a_check_code_without_semicolon_uses_the_whole_code_as_address() -> None:
    state, _ = run(ControllerState(), ApplyBrokerIdRequest(CLUSTER, BROKER, 1, "10.0.0.5:10911"), NOBODY)
    assert broker_set(state).addresses_of(1) == ("10.0.0.5:10911", "")


def test_applying_an_existing_id_event_again_changes_nothing() -> None:
    state = apply_ids(ControllerState(), [1, 2])
    event = ApplyBrokerId(CLUSTER, BROKER, "10.9.9.9:1", 2, "10.9.9.9:1;1")
    assert apply_event(state, event) == state


# --- RegisterBroker -----------------------------------------------------------------------------


def test_register_unknown_set_is_rejected_with_the_java_remark() -> None:
    _, result = run(ControllerState(), RegisterBrokerRequest(CLUSTER, BROKER, 1, addr(1)), NOBODY)
    assert result.code == ResponseCode.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED
    assert result.remark == "Broker-set: broker-a hasn't been registered in controller"
    assert result.events == ()


def test_register_unknown_id_is_rejected_with_the_java_remark() -> None:
    _, result = run(three_replicas(), RegisterBrokerRequest(CLUSTER, BROKER, 4, addr(4)), NOBODY)
    assert result.code == ResponseCode.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED
    assert result.remark == "BrokerId: 4 hasn't been registered in broker-set: broker-a"


def test_register_with_an_alive_master_returns_the_master_fields() -> None:
    state = with_master(1, sync_state_set=(1, 2))
    _, result = run(state, RegisterBrokerRequest(CLUSTER, BROKER, 2, addr(2), ha_addr(2)), alive_of(1, 2))
    assert result.code == ResponseCode.SUCCESS
    assert result.reply == RegisterBrokerReply(
        cluster_name=CLUSTER,
        broker_name=BROKER,
        master_broker_id=1,
        master_address=addr(1),
        master_ha_address=ha_addr(1),
        master_epoch=1,
        sync_state_set_epoch=2,
        sync_state_set=frozenset({1, 2}),
        current_sync_state_set_epoch=2,
    )
    assert result.events == ()


def test_register_with_a_dead_master_leaves_the_master_fields_empty() -> None:
    state = with_master(1, sync_state_set=(1, 2))
    _, result = run(state, RegisterBrokerRequest(CLUSTER, BROKER, 2, addr(2), ha_addr(2)), alive_of(2, 3))
    x = reply_of(result, RegisterBrokerReply)
    assert result.code == ResponseCode.SUCCESS
    assert (x.master_broker_id, x.master_address, x.master_ha_address, x.master_epoch, x.sync_state_set_epoch) == (
        (None,) * 5
    )
    assert x.sync_state_set == frozenset({1, 2})
    assert x.current_sync_state_set_epoch == 2


def test_register_in_the_grace_after_a_controller_start_names_the_unseen_master() -> None:
    state = with_master(1, sync_state_set=(1, 2))
    request = RegisterBrokerRequest(CLUSTER, BROKER, 2, addr(2), ha_addr(2))
    _, result = run(state, request, alive_of(2, 3), master_grace=True)
    x = reply_of(result, RegisterBrokerReply)
    assert (x.master_broker_id, x.master_address, x.master_ha_address, x.master_epoch) == (1, addr(1), ha_addr(1), 1)
    _, unseen = run(three_replicas(), request, alive_of(2, 3), master_grace=True)  # no master yet: none named
    assert reply_of(unseen, RegisterBrokerReply).master_broker_id is None


def test_the_grace_does_not_refuse_the_master_registering_from_a_new_address() -> None:
    state = with_master(1, sync_state_set=(1, 2))
    moved = RegisterBrokerRequest(CLUSTER, BROKER, 1, "10.0.0.9:10911", ha_addr(1))  # the master, from elsewhere
    _, result = run(state, moved, alive_of(2), master_grace=True)  # unseen: the move is not refused
    assert result.code == ResponseCode.SUCCESS


def test_register_before_any_election_has_no_master_fields() -> None:
    _, result = run(three_replicas(), RegisterBrokerRequest(CLUSTER, BROKER, 1, addr(1), ha_addr(1)), alive_of(1, 2, 3))
    reply = reply_of(result, RegisterBrokerReply)
    assert reply.master_broker_id is None
    assert reply.sync_state_set == frozenset()
    assert reply.current_sync_state_set_epoch == 0


def test_register_with_the_same_addresses_emits_no_event() -> None:
    state = three_replicas()
    after, result = run(state, RegisterBrokerRequest(CLUSTER, BROKER, 3, addr(3), ha_addr(3)), alive_of(3))
    assert result.events == ()
    assert after == state


def test_register_with_a_new_address_emits_update_broker_address() -> None:
    state = three_replicas()
    request = RegisterBrokerRequest(CLUSTER, BROKER, 3, "10.0.0.3:10911", ha_addr(3))
    _, result = run(state, request, alive_of(3))
    assert result.code == ResponseCode.SUCCESS
    assert result.events == (UpdateBrokerAddress(CLUSTER, BROKER, "10.0.0.3:10911", 3, ha_addr(3)),)


def test_register_with_only_a_new_ha_address_emits_update_broker_address() -> None:
    state = three_replicas()
    after, result = run(state, RegisterBrokerRequest(CLUSTER, BROKER, 3, addr(3), "10.0.0.3:10912"), alive_of(3))
    assert result.code == ResponseCode.SUCCESS
    assert result.events == (UpdateBrokerAddress(CLUSTER, BROKER, addr(3), 3, "10.0.0.3:10912"),)
    assert broker_set(after).replica(3) == Replica(3, addr(3), check_code(3), "10.0.0.3:10912")


def test_register_without_ha_address_clears_it_as_an_old_client_has_none() -> None:
    state = three_replicas()
    after, result = run(state, RegisterBrokerRequest(CLUSTER, BROKER, 3, addr(3)), alive_of(3))
    assert result.events == (UpdateBrokerAddress(CLUSTER, BROKER, addr(3), 3, ""),)
    assert broker_set(after).addresses_of(3) == (addr(3), "")


def test_update_broker_address_changes_both_addresses_and_keeps_the_check_code() -> None:
    request = RegisterBrokerRequest(CLUSTER, BROKER, 3, "10.0.0.3:10911", "10.0.0.3:10912")
    state, _ = run(three_replicas(), request, alive_of(3))
    bs = broker_set(state)
    assert bs.replica(3) == Replica(3, "10.0.0.3:10911", check_code(3), "10.0.0.3:10912")
    assert bs.replica(1) == Replica(1, addr(1), check_code(1), ha_addr(1))
    assert bs.next_broker_id == 4


def test_update_broker_address_for_an_unknown_id_or_set_is_a_no_op() -> None:
    state = three_replicas()
    assert apply_event(state, UpdateBrokerAddress(CLUSTER, BROKER, "10.0.0.9:1", 9)) == state
    assert apply_event(state, UpdateBrokerAddress(CLUSTER, "broker-z", "10.0.0.9:1", 1)) == state


def test_registered_master_reports_its_new_addresses_after_update() -> None:
    state = with_master(1)
    state, _ = run(state, RegisterBrokerRequest(CLUSTER, BROKER, 1, "10.0.0.1:10911", "10.0.0.1:10912"), alive_of(1))
    _, result = run(state, RegisterBrokerRequest(CLUSTER, BROKER, 2, addr(2), ha_addr(2)), alive_of(1, 2))
    reply = reply_of(result, RegisterBrokerReply)
    assert (reply.master_address, reply.master_ha_address) == ("10.0.0.1:10911", "10.0.0.1:10912")


# --- an id alive at another address (a second process on a copy of the store) --------------------

STEALER = "127.0.0.1:40999"


@pytest.mark.parametrize(
    ("live_address", "requested", "refused"),
    [
        (None, STEALER, False),  # not alive: the broker restarted elsewhere and takes its id back
        ("", STEALER, False),  # alive without an address (no heartbeat address known): nothing to protect
        (addr(2), addr(2), False),  # the broker registering again from where it heartbeats
        (addr(2), STEALER, True),  # another process claiming the id while the broker still heartbeats
    ],
)
def test_address_taken(live_address: str | None, requested: str, refused: bool) -> None:
    bs = broker_set(three_replicas())
    alive = {} if live_address is None else alive_of(2, info=live(broker_address=live_address))
    result = address_taken(bs, 2, requested, alive)
    if not refused:
        assert result is None
        return
    assert result is not None and result.code == ResponseCode.CONTROLLER_BROKER_ID_INVALID
    assert result.remark == (
        f"BrokerId: 2 of broker-set: {BROKER} is alive at {addr(2)}; "
        f"refusing to move it to {STEALER} while that broker still heartbeats"
    )
    assert result.events == ()


def test_register_from_another_address_while_the_id_heartbeats_is_refused_and_changes_nothing() -> None:
    state = three_replicas()
    alive = alive_of(2, info=live(broker_address=addr(2)))
    after, result = run(state, RegisterBrokerRequest(CLUSTER, BROKER, 2, STEALER, ha_addr(9)), alive)
    assert result.code == ResponseCode.CONTROLLER_BROKER_ID_INVALID
    assert after == state


def test_apply_again_from_another_address_while_the_id_heartbeats_is_refused() -> None:
    state = three_replicas()
    replica = broker_set(state).replica(2)
    assert replica is not None
    alive = alive_of(2, info=live(broker_address=STEALER))  # the broker moved; an old temp file is applied again
    request = ApplyBrokerIdRequest(CLUSTER, BROKER, 2, replica.register_check_code, ha_addr(2))
    after, result = run(state, request, alive)
    assert result.code == ResponseCode.CONTROLLER_BROKER_ID_INVALID
    assert after == state
