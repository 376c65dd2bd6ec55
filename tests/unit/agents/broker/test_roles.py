"""The broker's role decisions, over every combination of small inputs."""

from __future__ import annotations

import itertools

import pytest

from agents.broker.roles import BecomeMaster, BecomeSlave, Elect, Local, Stay, TakeSyncStateSet, View, decide
from agents.ha.role import Role

ME, OTHER = 1, 2


def view(master: int | None, epoch: int, sss_epoch: int = 1, members: frozenset[int] = frozenset({1, 2})) -> View:
    address = "" if master is None else f"10.0.0.{master}:10911"
    ha = "" if master is None else f"10.0.0.{master}:10912"
    return View(master, address, ha, epoch, members, sss_epoch)


def local(role: Role = Role.FENCED, epoch: int = 0, sss_epoch: int = 0) -> Local:
    return Local(ME, role, epoch, sss_epoch)


def test_first_start_without_a_master_asks_for_an_election() -> None:
    assert decide(local(), view(None, 0)) == Elect()


def test_a_newer_epoch_naming_this_broker_makes_it_master_with_the_set() -> None:
    assert decide(local(), view(ME, 1, 3)) == BecomeMaster(1, frozenset({1, 2}), 3)


def test_a_newer_epoch_naming_another_broker_makes_this_one_its_slave_with_its_ha_address() -> None:
    assert decide(local(Role.MASTER, 1), view(OTHER, 2)) == BecomeSlave(2, OTHER, "10.0.0.2:10911", "10.0.0.2:10912")


def test_a_newer_epoch_without_a_master_asks_for_an_election_unless_pushed() -> None:
    assert decide(local(Role.SLAVE, 1), view(None, 2)) == Elect()
    assert decide(local(Role.SLAVE, 1), view(None, 2), may_elect=False) == Stay()


@pytest.mark.parametrize("role", list(Role))
def test_an_older_or_equal_epoch_never_changes_the_role(role: Role) -> None:
    for epoch, master in itertools.product((1, 2), (ME, OTHER)):
        decision = decide(local(role, 2, 5), view(master, epoch, 1))
        assert not isinstance(decision, BecomeMaster | BecomeSlave)


def test_a_master_takes_a_newer_sync_state_set_of_its_own_epoch_only() -> None:
    me = local(Role.MASTER, 2, 3)
    assert decide(me, view(ME, 2, 4, frozenset({1}))) == TakeSyncStateSet(frozenset({1}), 4)
    assert decide(me, view(ME, 2, 3)) == Stay()  # not newer
    assert decide(me, view(ME, 2, 2)) == Stay()  # older
    assert decide(local(Role.SLAVE, 2, 3), view(OTHER, 2, 4)) == Stay()  # slaves do not keep a set


def test_no_alive_master_at_the_current_epoch_asks_for_an_election() -> None:
    assert decide(local(Role.SLAVE, 2), view(None, 2)) == Elect()
    assert decide(local(Role.MASTER, 2), view(None, 2)) == Elect()  # expired by the controller: qualify again
    assert decide(local(Role.SLAVE, 2), view(None, 2), may_elect=False) == Stay()


def test_every_combination_obeys_the_epoch_rule() -> None:
    """Exhaustive over small values: a role change only ever comes with a strictly higher epoch."""
    for role, epoch, sss_epoch, master, v_epoch, v_sss in itertools.product(
        list(Role), range(3), range(3), (None, ME, OTHER), range(3), range(3)
    ):
        for may_elect in (True, False):
            d = decide(local(role, epoch, sss_epoch), view(master, v_epoch, v_sss), may_elect=may_elect)
            if isinstance(d, BecomeMaster | BecomeSlave):
                assert d.epoch == v_epoch > epoch
            if isinstance(d, BecomeMaster):
                assert master == ME
            if isinstance(d, Elect):
                assert master is None and may_elect
            if isinstance(d, TakeSyncStateSet):
                assert role is Role.MASTER and master == ME and v_epoch == epoch and v_sss > sss_epoch


def test_a_master_with_unsettled_members_takes_the_controllers_set_at_the_same_epoch() -> None:
    unsettled = Local(ME, Role.MASTER, 1, 3, sync_state_set_unsettled=True)
    assert decide(unsettled, view(ME, 1, 3)) == TakeSyncStateSet(frozenset({1, 2}), 3)
    assert decide(unsettled, view(ME, 1, 2)) == Stay()  # an older set settles nothing
    assert decide(local(Role.MASTER, 1, 3), view(ME, 1, 3)) == Stay()
