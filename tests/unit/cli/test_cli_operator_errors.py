"""The CLI's errors, exit codes and output as a new operator met them, checked
without a cluster (tests/integration/test_cli_operator_errors.py checks them against a real sandbox).

An address nobody listens on stands for "no cluster": a command that checks its input first exits 2 before it
tries to connect (exit 5), so the exit code says which happened.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agents.config import check_value as check_broker_value
from controller.config import check_value as check_controller_value
from mqadmin_py.app import app
from mqadmin_py.commands import legacy
from mqadmin_py.commands.common import MAX_SECONDS, finite_seconds, wait_seconds
from mqadmin_py.commands.messages import _send_legacy, _send_table
from mqadmin_py.commands.topic import _group_table
from mqbase.client import _summary
from mqbase.configkeys import ConfigError
from mqbase.errors import MqError
from mqbase.ports import free_ports
from tests.harness.processes import run_mqadmin


def outcome(*args: str) -> tuple[int, str, str]:
    """(exit code, stdout, the error line) of ``mqadmin args`` run in-process, as ``mqadmin_py.__main__`` maps it."""
    result = CliRunner().invoke(app, list(args))
    if isinstance(result.exception, MqError):
        return result.exception.exit_code, result.stdout, str(result.exception)
    return result.exit_code, result.stdout, result.stderr


def nobody() -> str:
    return f"127.0.0.1:{free_ports(1)[0]}"


# --- 4. huge durations -----------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["1e20", "1e308"])
def test_a_huge_timeout_is_no_limit_instead_of_an_instant_time_out(value: str) -> None:
    """It exited 3 "timed out after 1e+20 s" at once: the gRPC deadline overflowed."""
    result = run_mqadmin("getSyncStateSet", "-a", nobody(), "--timeout", value)
    assert result.returncode == 5 and "unreachable (UNAVAILABLE)" in result.stderr, result.stderr


def test_waits_are_clamped_to_a_length_grpc_and_sleep_take_and_other_durations_are_not() -> None:
    assert wait_seconds(1e308) == MAX_SECONDS and wait_seconds(2.5) == 2.5 and wait_seconds(None) is None
    assert MAX_SECONDS <= threading.TIMEOUT_MAX  # time.sleep and every wait take it
    assert finite_seconds(1e300) == 1e300  # --delay: a time to come, range-checked by sendMessage
    with pytest.raises(ValueError, match="not a finite number"):
        wait_seconds(float("nan"))


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_a_topic_change_timeout_is_checked_like_every_other(value: str) -> None:
    """updateTopic's --timeout took nan ("timed out after nan s", exit 3)."""
    code, _, error = outcome("updateTopic", "-a", nobody(), "-c", "C", "-t", "T", "--timeout", value)
    assert code == 2, error


def test_delay_past_the_last_delivery_time_is_still_a_usage_error() -> None:
    code, _, error = outcome("sendMessage", "-a", nobody(), "-t", "T", "-p", "x", "--delay", "1e300")
    assert code == 2 and "past the last delivery time" in error


# --- 8 and 13. one line when no controller answers ------------------------------------------------


def test_no_controller_is_one_short_line_with_the_tls_hint_once() -> None:
    """It was ~600 characters, the TLS hint three times."""
    addresses = [nobody() for _ in range(3)]
    result = run_mqadmin("getSyncStateSet", "-a", ";".join(addresses), "--timeout", "2")
    [line] = result.stderr.strip().splitlines()
    assert result.returncode == 5 and line.count("--tlsCaFile") == 1 and len(line) < 250, line
    assert f"{', '.join(addresses)} unreachable (UNAVAILABLE)" in line


def test_the_summary_names_each_reason_once_with_its_addresses() -> None:
    errors = ["controller a:1 unreachable (UNAVAILABLE)", "GetMetadata to controller b:2 timed out after 3 s",
              "controller c:3 unreachable (UNAVAILABLE)", "a:1 is not a controller: it is a broker agent"]  # fmt: skip
    assert _summary(errors) == (
        "a:1, c:3 unreachable (UNAVAILABLE); b:2 timed out after 3 s; a:1 is not a controller: it is a broker agent"
    )


# --- 9. config values are checked before anything is sent -----------------------------------------


@pytest.mark.parametrize("value", ["abc", "-1", "nan", "0"])
def test_a_bad_broker_config_value_is_exit_2_before_anything_is_sent(value: str) -> None:
    """It exited 4 "NO_PERMISSION (16)" and printed "syncFlushTimeout = abc" as a heading."""
    code, stdout, error = outcome("updateBrokerConfig", "-b", nobody(), "-k", "syncFlushTimeout", "-v", value)
    assert (code, stdout) == (2, ""), error
    assert error.startswith(f"-k syncFlushTimeout -v {value}: syncFlushTimeout must")


@pytest.mark.parametrize(
    ("key", "value", "why"),
    [("enableElectUncleanMaster", "abc", "must be true or false"), ("scanNotActiveBrokerInterval", "-1", "negative"),
     ("scanNotActiveBrokerInterval", "nan", "integer"), ("transferMasterTimeoutMs", "5", "100..60000"),
     ("noSuchKey", "1", "unknown config key")],
)  # fmt: skip
def test_a_bad_controller_config_value_is_exit_2_before_anything_is_sent(key: str, value: str, why: str) -> None:
    """It exited 1 (CONTROLLER_INVALID_REQUEST 2005)."""
    code, stdout, error = outcome("updateControllerConfig", "-a", nobody(), "-k", key, "-v", value)
    assert (code, stdout) == (2, "") and why in error, error


def test_values_only_the_broker_can_judge_are_left_to_it() -> None:
    check_broker_value("syncFlushTimeout", "4000")
    check_broker_value("listenPort", "1")  # not a runtime key: the broker refuses it (exit 4)
    check_broker_value("brokerId", "3")  # the controller assigns it: the broker says so
    check_controller_value("enableElectUncleanMaster", "true")
    with pytest.raises(ConfigError, match="10-95"):
        check_broker_value("diskMaxUsedSpaceRatio", "99")
    with pytest.raises(ConfigError, match="did you mean 'syncFlushTimeout'"):
        check_broker_value("syncFlushTimeOut", "1")


# --- 11. small things -----------------------------------------------------------------------------


def test_an_empty_body_is_refused_as_java_refuses_it() -> None:
    code, _, error = outcome("sendMessage", "-a", nobody(), "-t", "T", "-p", "")
    assert code == 2 and "the message body is empty" in error, error


@pytest.mark.parametrize("identity", ["DefaultCluster:broker-a:0", "DefaultCluster:broker-a:-2"])
def test_remove_broker_of_an_id_no_broker_has_is_a_usage_error(identity: str) -> None:
    """It exited 1: "this agent hosts no broker DefaultCluster:broker-a:0"."""
    code, _, error = outcome("removeBroker", "-c", nobody(), "-b", identity)
    assert code == 2 and "broker ids start at 1" in error, error


def test_sandbox_up_with_a_bad_shape_leaves_no_directory_behind(tmp_path: Path) -> None:
    target = tmp_path / "X"
    code, _, error = outcome("sandbox", "up", "--controllers", "2", "--dir", str(target))
    assert code == 2 and "1, 3 or 5" in error and not target.exists()


# --- 13. output -----------------------------------------------------------------------------------


def replica(broker_id: int, role: str, acting: bool | None = None) -> Any:
    return {"clusterName": "DefaultCluster", "brokerName": "broker-a", "brokerId": broker_id,
            "brokerAddress": f"127.0.0.1:{10910 + broker_id}", "role": role, "alive": True, "inSync": True,
            "masterEpoch": 1, "syncStateSetEpoch": 1, "epoch": 1, "minOffset": 0, "maxOffset": 0, "confirmOffset": 0,
            "reachable": True, "error": None, "actingMaster": acting, "actingSince": None}  # fmt: skip


def test_cluster_list_legacy_is_java_columns_with_the_master_as_id_0() -> None:
    header, master, slave = legacy.cluster_list([replica(2, "master"), replica(1, "slave", False)]).splitlines()
    assert header.split() == ["#Cluster", "Name", "#Broker", "Name", "#BID", "#Addr", "#Version", "#InTPS(LOAD)",
                              "#OutTPS(LOAD)", "#Timer(Progress)", "#PCWait(ms)", "#Hour", "#SPACE",
                              "#ACTIVATED"]  # fmt: skip
    assert master.split()[:4] == ["DefaultCluster", "broker-a", "0", "127.0.0.1:10912"] and master.split()[-1] == "true"
    assert slave.split()[:4] == ["DefaultCluster", "broker-a", "1", "127.0.0.1:10911"] and slave.split()[-1] == "false"
    assert header.index("#Addr") == master.index("127.0.0.1")  # the columns line up as Java's printf's


def test_topic_route_legacy_is_java_route_json() -> None:
    doc: Any = {"topicName": "T", "clusterName": "C", "messageType": "NORMAL", "brokerSets": [
        {"brokerName": "b", "readQueueNums": 8, "writeQueueNums": 4, "perm": 6, "masterBrokerId": 2,
         "masterAddress": "h:1", "masterAlive": True},
        {"brokerName": "c", "readQueueNums": 8, "writeQueueNums": 8, "perm": 4, "masterBrokerId": None,
         "masterAddress": None, "masterAlive": False}]}  # fmt: skip
    route = json.loads(legacy.topic_route(doc))
    assert [d["brokerAddrs"] for d in route["brokerDatas"]] == [{"0": "h:1"}, {}]
    assert route["queueDatas"][0] == {"brokerName": "b", "perm": 6, "readQueueNums": 8, "topicSysFlag": 0,
                                      "writeQueueNums": 4}  # fmt: skip


def test_update_topic_and_consumer_config_legacy_are_java_lines() -> None:
    topic: Any = {"metadataVersion": 3, "changed": True, "topic": {"topicName": "T", "clusterName": "C",
                  "brokerNames": ["a", "b"], "readQueueNums": 8, "writeQueueNums": 8, "perm": 4,
                  "messageType": "FIFO"}}  # fmt: skip
    assert legacy.update_topic(topic) == (
        "create topic to a success.\ncreate topic to b success.\nTopicConfig [topicName=T, readQueueNums=8, "
        "writeQueueNums=8, perm=R--, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false, "
        "attributes={+message.type=FIFO}]\n"
    )
    group: Any = {"groupName": "G", "clusterName": "C", "brokerNames": ["a"], "consumeOrderly": False,
                  "retryMaxTimes": 16, "consumeEnable": True, "groupRetryPolicy": {"type": "CUSTOMIZED",
                  "customizedRetryPolicy": {"next": [1000]}}}  # fmt: skip
    lines = legacy.consumer_config(group).splitlines()
    assert lines[0] == "=============================C:a============================="
    assert lines[1] == f"{'groupName':<40}=  G" and lines[3] == f"{'consumeMessageOrderly':<40}=  false"


def test_a_group_table_is_narrow(capsys: pytest.CaptureFixture[str]) -> None:
    """updateSubGroup's table was ~225 columns wide (18 retry levels in ms in one cell of a seven-column row)."""
    levels = [1000, 5000, 10000, 30000, *(60000 * m for m in range(1, 11)), 1200000, 1800000, 3600000, 7200000]
    group: Any = {"groupName": "GID_orders", "clusterName": "DefaultCluster", "brokerNames": ["broker-a"],
                  "consumeOrderly": False, "retryMaxTimes": 16, "consumeEnable": True,
                  "groupRetryPolicy": {"type": "CUSTOMIZED", "customizedRetryPolicy": {"next": levels}}}  # fmt: skip
    _group_table(group, "Group updated")
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) < 100 and "customized 1s 5s 10s 30s 1m 2m" in out and "20m 30m 1h 2h" in out


def sent(queue_offset: int) -> Any:
    return {"index": 0, "msgId": "0102AB", "brokerName": "broker-a", "brokerAddress": "h:1", "brokerId": 1,
            "masterEpoch": 1, "status": "PUT_OK", "code": 0, "remark": None, "queueId": 5, "queueOffset": queue_offset,
            "commitLogOffset": 0, "attempts": 1, "unanswered": 0, "transactionId": None,
            "transaction": None}  # fmt: skip


def test_send_output_has_the_msg_id_and_a_delayed_send_says_when(capsys: pytest.CaptureFixture[str]) -> None:
    """-o legacy printed #QueueOffset where Java prints #MsgId; the table had no MsgId; a delayed send showed the
    timer queue's offset as if it were its queue's."""
    doc: Any = {"topic": "T", "sent": 1, "failed": 0, "results": [sent(7)]}
    assert _send_legacy(doc).splitlines()[0].split() == ["#Broker", "Name", "#QID", "#Send", "Result", "#MsgId"]
    assert _send_legacy(doc).splitlines()[1].split() == ["broker-a", "5", "PUT_OK", "0102AB"]
    _send_table(doc)
    now = capsys.readouterr().out
    assert "MsgId" in now and "0102AB" in now and " 7 " in now and "scheduled" not in now
    _send_table(doc, deliver_ms=4102444800000)  # 2100-01-01
    later = capsys.readouterr().out
    assert "delivered to consumers from 2100-01-01" in later and "scheduled" in later and " 7 " not in later
