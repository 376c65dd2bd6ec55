"""Every state-changing request checks the cluster it names: a wrong one is 2008 and changes
nothing, as electMaster and transferMaster already refused it."""

from __future__ import annotations

import pytest

from controller.requests import (
    ApplyBrokerIdRequest,
    CleanBrokerDataRequest,
    ElectMasterRequest,
    RegisterBrokerRequest,
    Request,
)
from mqbase.codes import ResponseCode
from tests.harness.controller_state import (
    BROKER,
    CLUSTER,
    NOBODY,
    addr,
    alive_of,
    check_code,
    ha_addr,
    run,
    with_master,
)

WRONG = "TotallyWrongCluster"
NOT_EXIST = ResponseCode.CONTROLLER_BROKER_METADATA_NOT_EXIST


@pytest.mark.parametrize(
    "request_",
    [
        pytest.param(CleanBrokerDataRequest(WRONG, BROKER, "2", True, False), id="clean_living_listed_id"),
        pytest.param(CleanBrokerDataRequest(WRONG, BROKER, "3", False, False), id="clean_dead_listed_id"),
        pytest.param(ElectMasterRequest(WRONG, BROKER, 2), id="broker_triggered_election"),
        pytest.param(ApplyBrokerIdRequest(WRONG, BROKER, 4, check_code(4), ha_addr(4)), id="apply_broker_id"),
        pytest.param(RegisterBrokerRequest(WRONG, BROKER, 2, addr(2), ha_addr(2)), id="register_broker"),
    ],
)
def test_a_request_naming_another_cluster_is_refused_and_changes_nothing(request_: Request) -> None:
    state = with_master(1, (1, 2))
    after, result = run(state, request_, alive_of(1, 2))
    assert result.code == NOT_EXIST, result.remark
    assert (
        result.remark
        == f"Broker-set: {BROKER} hasn't been registered in cluster {WRONG}, it belongs to cluster {CLUSTER}"
    )
    assert after == state


def test_clean_of_the_right_cluster_still_removes_the_dead_broker() -> None:
    state = with_master(1, (1, 2))
    after, result = run(state, CleanBrokerDataRequest(CLUSTER, BROKER, "3", False, False), alive_of(1, 2))
    assert result.ok, result.remark
    assert after.get(BROKER) is not None and after.get(BROKER).replica(3) is None  # type: ignore[union-attr]


def test_clean_living_without_a_cluster_is_javas_unscoped_form() -> None:
    """Java's ``-l`` needs no ``-c``: an empty cluster name is not a wrong one."""
    state = with_master(1, (1, 2))
    after, result = run(state, CleanBrokerDataRequest("", BROKER, "3", True, False), NOBODY)
    assert result.ok, result.remark
    assert after != state


def test_the_controllers_own_election_names_no_cluster() -> None:
    state = with_master(1, (1, 2))
    _, result = run(state, ElectMasterRequest("", BROKER), alive_of(2))
    assert result.ok, result.remark
