"""The CLI's errors against a real sandbox: what a new operator hit with bad input on purpose.

One sandbox (1 controller, 2 agents, one broker set) serves the module, driven through ``mqadmin`` as real
processes. Tests run in file order; the last stops one agent (to ask for a dead broker's election).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness.sandbox import BROKER, CLUSTER, Cli
from tests.harness.wait import wait_until

TOPIC = "OperatorErrors"


class Box(Cli):
    """The module's CLI runner and the ``sandbox up`` document."""

    up: dict[str, Any]


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Box]:
    run = Box(tmp_path_factory.mktemp("operator") / "sandbox")
    try:
        run.up = run.json("sandbox", "up", "--controllers", "1", "--replicas", "2", "--timeout", "120")
        run.env["MQADMIN_CONTROLLERS"] = run.up["controllers"][0]["address"]
        run.json("updateTopic", "-c", CLUSTER, "-t", TOPIC)
        yield run
    finally:
        run("sandbox", "down", ok=False)


def sync_state(cli: Cli) -> dict[str, Any]:
    [doc] = cli.json("getSyncStateSet", "-b", BROKER)
    return doc  # type: ignore[no-any-return]


def slave(cli: Cli) -> dict[str, Any]:
    doc = sync_state(cli)
    return next(r for r in doc["inSyncReplicas"] if r["brokerId"] != doc["masterBrokerId"])


def refused(cli: Cli, *args: str, code: int) -> str:
    """The one stderr line of a command that must exit `code` and print nothing on stdout."""
    result = cli(*args, ok=False)
    assert (result.returncode, result.stdout) == (code, ""), (args, result.returncode, result.stdout, result.stderr)
    [line] = result.stderr.strip().splitlines()[-1:]
    return line


# --- 4. huge durations are no limit -----------------------------------------------------------------


def test_huge_timeouts_and_intervals_work(cli: Box) -> None:
    """``--timeout 1e20`` (and 1e308) exited 3 "timed out after 1e+20 s" after 0.3 s, on every command."""
    assert cli.json("getSyncStateSet", "--timeout", "1e20")[0]["brokerName"] == BROKER
    assert len(cli.json("clusterList", "--timeout", "1e308")) == 2
    assert cli.json("wait", "master", "-bn", BROKER, "--timeout", "1e308")["brokerName"] == BROKER
    watched = cli("getSyncStateSet", "-o", "json", "-i", "1e20", "--count", "1", "--timeout", "1e20")
    assert json.loads(watched.stdout)[0]["brokerName"] == BROKER
    assert "--timeout" in refused(cli, "updateTopic", "-c", CLUSTER, "-t", TOPIC, "--timeout", "nan", code=2)


# --- 8. an address of the wrong kind says what it is --------------------------------------------------


def test_an_address_of_another_kind_is_named_for_what_it_is(cli: Box) -> None:
    """``-a <agent>`` said "controller unreachable (UNIMPLEMENTED)"; ``getBrokerConfig -b <agent>`` "this agent hosts
    no broker ''"; ``listBrokers -c <controller>`` "broker unreachable (UNIMPLEMENTED)"."""
    agent = cli.up["agents"][0]
    line = refused(cli, "getSyncStateSet", "-a", agent["address"], code=2)
    assert f"{agent['address']} is not a controller: it is a broker agent" in line
    line = refused(cli, "getSyncStateSet", "-a", agent["proxyAddress"], code=2)
    assert f"{agent['proxyAddress']} is not a controller: it is a RocketMQ 5 access point" in line
    controller = cli.up["controllers"][0]["address"]
    assert f"{controller} is not a broker: it is a controller" in refused(cli, "listBrokers", "-c", controller, code=2)
    container = cli("getBrokerConfig", "-b", agent["address"], ok=False)
    hosted = agent["brokers"][0]
    assert container.returncode == 1 and "this is an agent's container address, not a broker's" in container.stderr
    assert f"{hosted['brokerName']} id {hosted['brokerId']} at {hosted['brokerAddress']}" in container.stderr
    # one wrong entry among the controllers is skipped, as an unreachable one is
    assert cli.json("getSyncStateSet", "-a", f"{agent['address']};{controller}")[0]["brokerName"] == BROKER


# --- 8 and 10. refusals exit 4 and say why --------------------------------------------------------------


def test_every_refusal_exits_4_and_an_election_names_the_eligible_ids(cli: Box) -> None:
    """An ineligible electMaster ("Failed to elect a new master", no reason) and cleanBrokerMetadata of an alive
    broker exited 1, a transferMaster not allowed 4."""
    ids = sorted(r["brokerId"] for r in sync_state(cli)["inSyncReplicas"])
    line = refused(cli, "electMaster", "-c", CLUSTER, "-bn", BROKER, "-b", "99", code=4)
    assert line.endswith(
        f"CONTROLLER_ELECT_MASTER_FAILED (2012): Failed to elect a new master: broker 99 is not registered in the set "
        f"(registered ids: {', '.join(map(str, ids))}); eligible ids: {', '.join(map(str, ids))}"
    )
    alive = str(slave(cli)["brokerId"])
    line = refused(cli, "cleanBrokerMetadata", "-c", CLUSTER, "-bn", BROKER, "-b", alive, code=4)
    assert "CONTROLLER_INVALID_CLEAN_BROKER_METADATA (2009)" in line and "is still alive" in line
    transfer = cli("transferMaster", "-c", CLUSTER, "-bn", BROKER, "-b", "99", ok=False)
    assert transfer.returncode == 4 and "broker 99 is not registered" in transfer.stderr
    assert sorted(r["brokerId"] for r in sync_state(cli)["inSyncReplicas"]) == ids


# --- 9. a value that fails validation is exit 2, and nothing changes --------------------------------------


def test_bad_config_values_are_usage_errors_that_change_nothing(cli: Box) -> None:
    """``updateBrokerConfig -v abc`` exited 4 NO_PERMISSION and printed "syncFlushTimeout = abc" as a heading;
    ``updateControllerConfig`` exited 1 (2005)."""
    before = {d["brokerAddress"]: d["config"]["syncFlushTimeout"] for d in cli.json("getBrokerConfig", "-c", CLUSTER)}
    for value in ("abc", "nan"):  # the unit tests try the others (-1, 0)
        line = refused(cli, "updateBrokerConfig", "-c", CLUSTER, "-k", "syncFlushTimeout", "-v", value, code=2)
        assert line.startswith(f"mqadmin: -k syncFlushTimeout -v {value}: syncFlushTimeout must"), line
    after = {d["brokerAddress"]: d["config"]["syncFlushTimeout"] for d in cli.json("getBrokerConfig", "-c", CLUSTER)}
    assert after == before
    [node] = cli.json("getControllerConfig")
    line = refused(cli, "updateControllerConfig", "-k", "scanNotActiveBrokerInterval", "-v", "-1", code=2)
    assert "scanNotActiveBrokerInterval must not be negative" in line
    assert cli.json("getControllerConfig")[0]["configVersion"] == node["configVersion"]
    # a key that needs a restart is refused on both, as the broker refuses one
    line = refused(cli, "updateControllerConfig", "-k", "controllerGroup", "-v", "x", code=4)
    assert "cannot change at run time" in line
    fixed = cli("updateBrokerConfig", "-c", CLUSTER, "-k", "listenPort", "-v", "1", ok=False)
    assert fixed.returncode == 4 and "updated on 0 of 2 broker(s)" in fixed.stdout


# --- 11. the small things --------------------------------------------------------------------------------


def confirm_offset(cli: Cli, address: str) -> int:
    return next(d["confirmOffset"] for d in cli.json("clusterList") if d["brokerAddress"] == address)  # type: ignore[no-any-return]


def test_unknown_names_fail_and_impossible_values_are_usage_errors(cli: Box) -> None:
    line = refused(cli, "topicList", "-c", "NoCluster", code=1)
    assert "CONTROLLER_BROKER_METADATA_NOT_EXIST (2008)" in line and "cluster NoCluster" in line
    line = refused(cli, "consumeMessage", "-t", "NoTopic", "-bn", BROKER, code=1)
    assert "TOPIC_NOT_EXIST (17)" in line and "no topic NoTopic" in line
    agent = cli.up["agents"][0]["address"]
    assert "broker ids start at 1" in refused(cli, "removeBroker", "-c", agent, "-b", f"{CLUSTER}:{BROKER}:0", code=2)
    assert len(cli.json("listBrokers", "-c", agent)) == 1
    cli.json("sendMessage", "-t", TOPIC, "-p", "x")
    master = sync_state(cli)["masterAddress"]
    held = wait_until(lambda: confirm_offset(cli, master), 30, "a confirmed message")
    line = refused(cli, "resetMasterFlushOffset", "-b", master, "--offset", "99999999999999", code=2)
    assert f"past the end of the log (its last message ends at {held}); confirmOffset stays at {held}" in line
    stays = cli("resetMasterFlushOffset", "-b", master, "--offset", "0").stdout
    assert f"confirmOffset stays at {held}: it never moves back" in stays and "success" not in stays
    assert confirm_offset(cli, master) == held
    assert "the message body is empty" in refused(cli, "sendMessage", "-t", TOPIC, "-p", "", code=2)
    assert confirm_offset(cli, master) == held


def test_sandbox_up_with_a_bad_shape_leaves_no_directory(cli: Box) -> None:
    target = cli.dir.parent / "never-made"
    assert "1, 3 or 5" in refused(cli, "sandbox", "up", "--controllers", "2", "--dir", str(target), code=2)
    assert not target.exists()


# --- 13. output -------------------------------------------------------------------------------------------


def test_legacy_output_is_the_java_tools_text(cli: Box) -> None:
    """clusterList, topicRoute, getConsumerConfig and updateTopic printed the rich table with -o legacy, and
    sendMessage printed #QueueOffset where Java prints #MsgId."""
    doc = sync_state(cli)
    header, *rows = cli("clusterList", "-o", "legacy").stdout.splitlines()
    assert header.split()[:6] == ["#Cluster", "Name", "#Broker", "Name", "#BID", "#Addr"] and len(rows) == 2
    assert [CLUSTER, BROKER, "0", doc["masterAddress"]] in [row.split()[:4] for row in rows]
    route = json.loads(cli("topicRoute", "-t", TOPIC, "-o", "legacy").stdout)
    assert route["brokerDatas"][0]["brokerAddrs"] == {"0": doc["masterAddress"]}
    assert route["queueDatas"][0]["writeQueueNums"] == 8
    update = cli("updateTopic", "-c", CLUSTER, "-t", TOPIC, "-o", "legacy").stdout
    assert update.startswith(f"create topic to {BROKER} success.\nTopicConfig [topicName={TOPIC}, readQueueNums=8,")
    cli.json("updateSubGroup", "-c", CLUSTER, "-g", "GID_operator")
    config = cli("getConsumerConfig", "-g", "GID_operator", "-o", "legacy").stdout.splitlines()
    assert config[0] == f"============================={CLUSTER}:{BROKER}============================="
    assert re.fullmatch(r"groupName +=  GID_operator", config[1])
    header, row = cli("sendMessage", "-t", TOPIC, "-p", "legacy", "-o", "legacy").stdout.splitlines()
    assert header.split()[-1] == "#MsgId" and re.fullmatch(r"[0-9A-F]{34}", row.split()[-1]), row


def test_tables_name_the_message_id_the_real_queue_and_readable_times(cli: Box) -> None:
    """The sendMessage table had no MsgId, a delayed send showed the timer queue (0/0), StoreTimestamp was
    epoch ms, updateSubGroup's table was ~225 columns wide."""
    table = cli("sendMessage", "-t", TOPIC, "-p", "seen", "-k", "table-key").stdout
    assert "MsgId" in table.splitlines()[2]
    [delayed] = cli.json("sendMessage", "-t", TOPIC, "-p", "later", "-bn", BROKER, "-i", "5", "--delay", "3600")[
        "results"
    ]
    assert (delayed["status"], delayed["queueId"]) == ("PUT_OK", 5)
    shown = cli("sendMessage", "-t", TOPIC, "-p", "later", "-bn", BROKER, "-i", "6", "--delay", "3600").stdout
    assert "delivered to consumers from" in shown and "scheduled" in shown
    read = cli("consumeMessage", "-t", TOPIC, "-bn", BROKER).stdout
    row = next(line for line in read.splitlines() if "table-key" in line)
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", row), row
    group = cli("updateSubGroup", "-c", CLUSTER, "-g", "GID_operator", "-r", "3").stdout
    assert max(map(len, group.splitlines())) < 100 and "customized 1s 5s 10s" in group


# --- 8. an election of a dead broker says so (last: stops an agent) ----------------------------------------


def test_electing_a_dead_broker_says_it_is_not_alive(cli: Box) -> None:
    target = slave(cli)
    agent = next(a for a in cli.up["agents"] if a["brokers"][0]["brokerId"] == target["brokerId"])
    cli("sandbox", "stop", agent["id"])

    def dead() -> bool:
        doc = sync_state(cli)
        return not any(r["alive"] for r in doc["inSyncReplicas"] + doc["notInSyncReplicas"]
                       if r["brokerId"] == target["brokerId"])  # fmt: skip

    wait_until(dead, 60, f"broker {target['brokerId']} seen dead")
    master = sync_state(cli)["masterBrokerId"]
    line = refused(cli, "electMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(target["brokerId"]), code=4)
    assert f"broker {target['brokerId']} is not alive (no heartbeat within its timeout); eligible ids: {master}" in line
