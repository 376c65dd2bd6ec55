"""The CLI's pure parts: names, parsers, legacy text, the -i loop and response checks."""

from __future__ import annotations

from typing import Any

import pytest
import typer
from typer.main import get_command

from mqadmin_py.app import app
from mqadmin_py.commands.broker import EpochDoc, HaDoc, _epochs_legacy, _ha_legacy
from mqadmin_py.commands.common import AliasGroup, check, kebab, key_values, run
from mqadmin_py.commands.container import parse_broker_identity
from mqadmin_py.commands.messages import serving_sets
from mqadmin_py.output import Output
from mqadmin_py.sandbox import broker_set_names
from mqbase.errors import OperationFailed, OperationRefused, TimedOut, UsageError
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import controller_pb2 as cpb


def test_kebab_spelling_of_rocketmq_names() -> None:
    assert kebab("getSyncStateSet") == "get-sync-state-set"
    assert kebab("getControllerMetaData") == "get-controller-meta-data"
    assert kebab("haStatus") == "ha-status"
    assert kebab("wait") == "wait"


def test_every_camel_case_command_answers_to_its_kebab_spelling() -> None:
    group = get_command(app)
    assert isinstance(group, AliasGroup)
    ctx = typer.Context(group, info_name="mqadmin")
    for name in group.commands:
        if kebab(name) != name:
            assert group.aliases[kebab(name)] == name
            assert group.get_command(ctx, kebab(name)) is group.commands[name]
    assert group.get_command(ctx, "no-such-command") is None
    for required in ("getBrokerEpoch", "haStatus", "resetMasterFlushOffset", "addBroker", "removeBroker",
                     "sendMessage", "consumeMessage", "wait", "sandbox", "assignPreferredMaster"):  # fmt: skip
        assert required in group.commands
    assert group.get_command(ctx, "assign-preferred-master") is group.commands["assignPreferredMaster"]


def test_broker_identity_parsing() -> None:
    assert parse_broker_identity("DefaultCluster:broker-a:3") == ("DefaultCluster", "broker-a", 3)
    assert parse_broker_identity("c:b:-1") == ("c", "b", -1)
    # out of int64 (once a protobuf traceback), non-ASCII digits
    for bad in ("broker-a", "c:b", "c:b:x", "c::1", "c:b:1:2", "c:b:99999999999999999999", "c:b:²", "c:b:--1"):
        with pytest.raises(UsageError, match="clusterName:brokerName:brokerId"):
            parse_broker_identity(bad)
    for no_such_id in ("c:b:0", "c:b:-2"):  # once exit 1 "this agent hosts no broker"
        with pytest.raises(UsageError, match="broker ids start at 1"):
            parse_broker_identity(no_such_id)


def test_key_value_options() -> None:
    assert key_values(["a=1", " b = x=y "], "--broker-conf") == {"a": "1", "b": "x=y"}
    assert key_values(None, "--broker-conf") == {}
    with pytest.raises(UsageError, match="--broker-conf takes key=value"):
        key_values(["novalue"], "--broker-conf")


def test_broker_set_names_are_unique_and_ordered() -> None:
    names = broker_set_names(30)
    assert names[:3] == ["broker-a", "broker-b", "broker-c"] and names[26] == "broker-aa"
    assert len(set(names)) == 30


def test_get_broker_epoch_legacy_text_is_the_java_format() -> None:
    doc: EpochDoc = {
        "clusterName": "c",
        "brokerName": "b",
        "brokerAddress": "h:1",
        "brokerId": 2,
        "reachable": True,
        "error": None,
        "epochs": [{"epoch": 1, "startOffset": 0, "endOffset": 10}, {"epoch": 3, "startOffset": 10, "endOffset": 25}],
        "maxOffset": 25,
        "minOffset": 0,
        "confirmOffset": 25,
    }
    assert _epochs_legacy([doc]) == (
        "\n#clusterName\tc\n#brokerName\tb\n#brokerAddr\th:1\n#brokerId\t2"
        "\n#Epoch: EpochEntry{epoch=1, startOffset=0, endOffset=10}"
        "\n#Epoch: EpochEntry{epoch=3, startOffset=10, endOffset=25}\n"
    )


def test_ha_status_legacy_text_keeps_the_java_columns() -> None:
    master: HaDoc = {
        "brokerAddress": "h:1",
        "reachable": True,
        "error": None,
        "clusterName": "c",
        "brokerName": "b",
        "brokerId": 1,
        "role": "master",
        "masterEpoch": 1,
        "maxOffset": 100,
        "confirmOffset": 90,
        "syncStateSet": [1],
        "syncStateSetEpoch": 2,
        "slaves": [
            {
                "brokerId": 2,
                "brokerAddress": "h:2",
                "ackOffset": 90,
                "diff": 10,
                "inSync": False,
                "lastCaughtUpMillisAgo": 500,
            }
        ],
        "masterAddress": "h:1",
        "masterHaAddress": "h:9",
        "connected": False,
        "lastError": None,
    }
    lines = _ha_legacy([master]).splitlines()
    assert lines[1:5] == ["#MasterAddr\th:1", "#MasterCommitLogMaxOffset\t100", "#SlaveNum\t1", "#InSyncSlaveNum\t0"]
    assert lines[5].split() == [
        "#SlaveAddr",
        "#SlaveAckOffset",
        "#Diff",
        "#TransferSpeed(KB/s)",
        "#Status",
        "#TransferFromWhere",
    ]
    assert lines[6].split() == ["h:2", "90", "10", "n/a", "Fall", "Behind", "n/a"]


@pytest.mark.parametrize(
    ("code", "exit_code"),
    [
        (16, 4),  # NO_PERMISSION: a blacklisted key
        (2012, 4),  # an ineligible electMaster (once exit 1)
        (2009, 4),  # cleanBrokerMetadata of an alive broker (once exit 1)
        (2005, 2),  # CONTROLLER_INVALID_REQUEST: a bad config value (once exit 1)
        (2008, 1),  # not found: failed
        (1, 1),
    ],
)
def test_refusals_exit_4_invalid_requests_2_and_other_codes_fail_with_exit_1(code: int, exit_code: int) -> None:
    """One rule for "refused", as README and docs/cli.md's table say."""
    with pytest.raises(OperationFailed) as failed:
        check(pb.AgentResponse(code=code, remark="why"))
    assert (failed.value.exit_code, failed.value.code, str(failed.value).endswith(f"({code}): why")) == (
        exit_code, code, True)  # fmt: skip
    assert isinstance(failed.value, OperationRefused) == (exit_code == 4)
    assert check(pb.AgentResponse(code=21), allow=(21,)).code == 21


def test_interval_loop_survives_a_failed_run_and_exits_as_the_last_run(capsys: pytest.CaptureFixture[str]) -> None:
    answers: list[Any] = [TimedOut("first run timed out"), {"n": 2}, {"n": 3}]

    def fetch() -> Any:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    run(fetch, Output.json, lambda _d: None, None, interval=0.1, count=3)
    out, err = capsys.readouterr()
    assert out.splitlines() == ['{"n":2}', '{"n":3}']
    assert "first run timed out" in err
    answers[:] = [{"n": 1}, TimedOut("last run timed out")]
    with pytest.raises(typer.Exit) as ended:
        run(fetch, Output.json, lambda _d: None, None, interval=0.1, count=2)
    assert ended.value.exit_code == 3
    assert capsys.readouterr().err.count("last run timed out") == 1  # printed once, not again on exit


def test_a_missing_analytics_dependency_says_what_to_install() -> None:
    from mqadmin_py.commands.epochs import MissingDependency, _need, _why

    _need("json")
    for absent in ("no_such_module_xyz", "no_such_package_xyz.sub"):  # a dotted name must not crash find_spec
        with pytest.raises(MissingDependency, match=r"needs no_such_.*pip install 'mqadmin-py\[spark\]'"):
            _need(absent)
    assert _why(ValueError("first line\nsecond")) == "first line"
    assert _why(RuntimeError()) == "RuntimeError"


@pytest.mark.parametrize(
    ("topic", "served"),
    [
        ("Orders", frozenset({"broker-a", "broker-c"})),  # the route: only the sets serving it
        ("Audit", frozenset()),  # served by no set any more: no set may take it
        ("Unknown", None),  # the controllers do not have it: every set, whose brokers answer it
    ],
)
def test_sends_follow_the_topics_route(topic: str, served: frozenset[str] | None) -> None:
    metadata = cpb.GetMetadataResponse(
        topics=[
            cpb.TopicConfig(topic_name="Orders", broker_names=["broker-c", "broker-a"]),
            cpb.TopicConfig(topic_name="Audit", broker_names=[]),
        ]
    )
    assert serving_sets(metadata, topic) == served
