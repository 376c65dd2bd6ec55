"""CLI behaviour that needs no running cluster: help, usage errors and exit codes."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from mqadmin_py.app import app
from mqadmin_py.commands.common import local_time
from mqadmin_py.commands.controller import (
    SyncStateViewDoc,
    _sync_state_docs,
    _sync_state_legacy,
    _sync_state_table,
    with_acting,
)
from mqbase.ports import free_ports
from mqbase.proto import controller_pb2 as pb
from tests.harness.processes import run_mqadmin


def test_help_lists_rocketmq_command_names() -> None:
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for name in ("getControllerMetaData", "getSyncStateSet", "electMaster", "cleanBrokerMetadata", "sandbox"):
        assert name in result.output


def test_kebab_case_alias_reaches_the_same_command() -> None:
    result = CliRunner().invoke(app, ["get-sync-state-set", "--help"])
    assert result.exit_code == 0
    assert "--brokerName" in result.output


def test_missing_required_option_is_a_usage_error() -> None:
    assert run_mqadmin("electMaster", "-a", "127.0.0.1:1").returncode == 2


def test_unreachable_controllers_exit_5_without_a_traceback() -> None:
    port = free_ports(1)[0]
    result = run_mqadmin("getSyncStateSet", "-a", f"127.0.0.1:{port}", "--timeout", "1")
    assert result.returncode == 5
    assert "Traceback" not in result.stderr
    assert "no controller leader reachable" in result.stderr


def test_clean_without_cluster_or_living_flag_is_refused_as_in_java() -> None:
    result = run_mqadmin("cleanBrokerMetadata", "-a", "127.0.0.1:1", "-bn", "b")
    assert result.returncode == 2
    assert "clusterName option can not be empty" in result.stderr


def test_sync_state_json_shows_each_replicas_ha_address() -> None:
    def member(broker_id: int, ha_address: str) -> pb.ReplicaIdentity:
        return pb.ReplicaIdentity(broker_id=broker_id, broker_address=f"h:{broker_id}", ha_address=ha_address)

    info = pb.ReplicasInfo(cluster_name="c", broker_name="b", master_epoch=0, sync_state_set_epoch=0,
                           in_sync_replicas=[member(1, "h:11")], not_in_sync_replicas=[member(2, "")])  # fmt: skip
    docs = _sync_state_docs(pb.GetSyncStateDataResponse(replicas_info=[info]))
    assert docs == [
        {"clusterName": "c", "brokerName": "b", "masterBrokerId": None, "masterAddress": None, "masterEpoch": 0,
         "syncStateSetEpoch": 0, "preferredBrokerId": None,
         "inSyncReplicas": [{"brokerId": 1, "brokerAddress": "h:1", "haAddress": "h:11", "alive": False}],
         "notInSyncReplicas": [{"brokerId": 2, "brokerAddress": "h:2", "haAddress": "", "alive": False}],
         "lastTransfer": None, "lastRefusal": None, "preferredMasterBlockedBy": None}
    ]  # fmt: skip


def _preferred_set_doc(preferred: int | None) -> SyncStateViewDoc:
    def member(broker_id: int) -> pb.ReplicaIdentity:
        return pb.ReplicaIdentity(broker_id=broker_id, broker_address=f"h:{broker_id}", alive=True)

    info = pb.ReplicasInfo(cluster_name="c", broker_name="b", master_broker_id=1, master_address="h:1",
                           master_epoch=3, sync_state_set_epoch=4, in_sync_replicas=[member(1), member(2)],
                           preferred_broker_id=preferred)  # fmt: skip
    (doc,) = _sync_state_docs(pb.GetSyncStateDataResponse(replicas_info=[info]))
    return with_acting(doc, {1: 0, 2: 0})


def _masterless_set_doc(since: dict[int, int | None]) -> SyncStateViewDoc:
    """A set of three (1 in sync and dead, 2 and 3 not in sync) without a master, the replicas answering `since`."""

    def member(broker_id: int, alive: bool) -> pb.ReplicaIdentity:
        return pb.ReplicaIdentity(broker_id=broker_id, broker_address=f"h:{broker_id}", alive=alive)

    info = pb.ReplicasInfo(cluster_name="c", broker_name="b", master_epoch=5, sync_state_set_epoch=7,
                           in_sync_replicas=[member(1, False)],
                           not_in_sync_replicas=[member(2, True), member(3, True)])  # fmt: skip
    (doc,) = _sync_state_docs(pb.GetSyncStateDataResponse(replicas_info=[info]))
    return with_acting(doc, since)


def test_sync_state_shows_the_replica_acting_as_master_and_the_ones_that_did_not_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = _masterless_set_doc({1: None, 2: 1_700_000_000_000, 3: 0})
    assert (doc["actingMaster"], doc["actingSince"], doc["actingUnknown"]) == (2, 1_700_000_000_000, [1])
    assert "#ActingMasterBrokerId\t2\n#ActingSince\t1700000000000\n" in _sync_state_legacy([doc])
    _sync_state_table([doc])
    output = capsys.readouterr().out
    assert "Acting master since" in output
    cells = [[c.strip() for c in line.split("\u2502")[1:-1]] for line in output.splitlines() if "h:" in line]
    assert [(row[1], row[3], row[-1] or None) for row in cells] == [
        ("1", "slave", "unknown"), ("2", "acting master", local_time(1_700_000_000_000)), ("3", "slave", None)
    ]  # fmt: skip


def test_sync_state_shows_the_smaller_id_when_two_replicas_briefly_both_act() -> None:
    doc = _masterless_set_doc({1: 0, 2: 20, 3: 10})
    assert (doc["actingMaster"], doc["actingSince"], doc["actingUnknown"]) == (2, 20, [])


def test_sync_state_without_an_acting_replica_prints_what_it_printed_before(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _masterless_set_doc({1: 0, 2: 0, 3: 0})
    assert (doc["actingMaster"], doc["actingSince"], doc["actingUnknown"]) == (None, None, [])
    assert "Acting" not in _sync_state_legacy([doc])
    _sync_state_table([doc])
    assert "acting master" not in capsys.readouterr().out


def test_sync_state_shows_the_preferred_master_in_every_form(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _preferred_set_doc(2)
    assert doc["preferredBrokerId"] == 2
    assert "#SyncStateSetNums\t2\n#PreferredBrokerId\t2\n" in _sync_state_legacy([doc])
    _sync_state_table([doc])
    rows = [line for line in capsys.readouterr().out.splitlines() if "h:" in line]
    assert ["slave (preferred)" in row for row in rows] == [False, True]
    assert "master" in rows[0]


def test_sync_state_without_a_preferred_master_prints_what_java_prints() -> None:
    doc = _preferred_set_doc(None)
    assert doc["preferredBrokerId"] is None
    assert "Preferred" not in _sync_state_legacy([doc])


def test_assign_preferred_master_usage_errors_exit_2() -> None:
    common = ("assign-preferred-master", "-a", "127.0.0.1:1", "-c", "c", "-bn", "b")
    for extra, message in [
        ((), "give -b BROKER_ID to assign, or --clear"),
        (("-b", "2", "--clear"), "give -b BROKER_ID to assign, or --clear"),
        (("--clear", "--wait"), "--wait needs -b BROKER_ID"),
    ]:
        result = run_mqadmin(*common, *extra)
        assert result.returncode == 2, result
        assert message in result.stderr
