"""Broker, controller and agent defects an operator met, against one real sandbox (3 controllers, 3 agents, one set),
driven through the CLI as a real process. Tests run in file order; the last one stops every controller."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqadmin_py.sandbox import Sandbox
from mqbase.client import AgentClient
from mqbase.proto import agent_pb2 as apb
from tests.harness.processes import ROOT
from tests.harness.sandbox import BROKER, CLUSTER, Cli, all_learnt
from tests.harness.wait import wait_until


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cli]:
    run = Cli(tmp_path_factory.mktemp("core") / "sandbox")
    up = run.json("sandbox", "up", "--timeout", "120")
    run.env["MQADMIN_CONTROLLERS"] = ";".join(c["address"] for c in up["controllers"])
    try:
        yield run
    finally:
        run.json("sandbox", "down")


def sync_state(cli: Cli) -> dict[str, Any]:
    [doc] = cli.json("getSyncStateSet", "-b", BROKER)
    assert isinstance(doc, dict)
    return doc


def slave_of(cli: Cli) -> dict[str, Any]:
    doc = sync_state(cli)
    slave: dict[str, Any] = next(r for r in doc["inSyncReplicas"] if r["brokerId"] != doc["masterBrokerId"])
    return slave


def bodies(doc: dict[str, Any]) -> list[str]:
    return sorted(m["body"] for m in doc["messages"])


# --- a send to a queue past the topic's write queues -------------------------------------------------------


def test_a_send_to_a_queue_past_the_write_queues_is_refused_by_the_broker_and_stores_nothing(cli: Cli) -> None:
    cli.json("updateTopic", "-c", CLUSTER, "-t", "Orders")  # 8 queues
    refused = cli("sendMessage", "-t", "Orders", "-p", "x", "-i", "99", "-o", "json", ok=False)
    assert refused.returncode == 1, refused.stderr
    assert "request queueId[99] is illegal, topic:[Orders] topicConfig.writeQueueNums:[8]" in refused.stderr
    [result] = json.loads(refused.stdout)["results"]
    assert (result["code"], result["queueId"]) == (1, None)
    request = apb.SendMessagesRequest(
        broker=apb.BrokerRef(broker_name=BROKER),
        messages=[apb.Message(topic="Orders", queue_id=q, body=b"y") for q in (0, 8)],
    )
    with AgentClient(timeout=5.0) as agents:  # the agent API, as any client sends: the whole batch is refused
        answer = agents.call(sync_state(cli)["masterAddress"], "SendMessages", request)
    assert answer.code == 1 and "queueId[8] is illegal" in answer.remark and not answer.results
    assert cli.json("consumeMessage", "-t", "Orders", "-b", BROKER, "-c", "100")["messages"] == []
    assert cli.json("sendMessage", "-t", "Orders", "-p", "ok", "-i", "7")["results"][0]["queueId"] == 7


# --- every scope option is checked ----------------------------------------------------------------------


def test_clean_broker_metadata_of_a_wrong_cluster_is_refused_and_changes_nothing(cli: Cli) -> None:
    before = sync_state(cli)
    for extra in ((), ("-l",)):
        refused = cli("cleanBrokerMetadata", "-c", "TotallyWrongCluster", "-bn", BROKER, "-b", "2", *extra, ok=False)
        assert refused.returncode == 1, refused.stderr
        assert "CONTROLLER_BROKER_METADATA_NOT_EXIST (2008)" in refused.stderr
        assert f"it belongs to cluster {CLUSTER}" in refused.stderr
    assert sync_state(cli) == before


# --- a topic created again replays nothing ---------------------------------------------------------------


def test_a_topic_deleted_and_created_again_replays_nothing_a_group_acked(cli: Cli) -> None:
    box = Sandbox(cli.dir)
    cli.json("updateTopic", "-c", CLUSTER, "-t", "Again", "-r", "2", "-w", "2")
    cli.json("updateSubGroup", "-c", CLUSTER, "-g", "GID_again")
    cli.json("sendMessage", "-t", "Again", "-p", "old-{i}", "--count", "4")
    got = cli.json("consumeMessage", "-t", "Again", "-g", "GID_again", "-c", "10")
    assert bodies(got) == [f"old-{i}" for i in range(4)]
    deleted = cli.json("deleteTopic", "-c", CLUSTER, "-t", "Again")
    wait_until(lambda: all_learnt(cli, box, deleted["metadataVersion"]), 30, "every broker learnt the deletion")
    cli.json("updateTopic", "-c", CLUSTER, "-t", "Again", "-r", "2", "-w", "2")
    cli.json("updateSubGroup", "-c", CLUSTER, "-g", "GID_new")  # a group new to the topic
    cli.json("sendMessage", "-t", "Again", "-p", "new-{i}", "--count", "2")
    for group in ("GID_again", "GID_new"):
        got = cli.json("consumeMessage", "-t", "Again", "-g", group, "-c", "10")
        assert bodies(got) == ["new-0", "new-1"], group


# --- updateBrokerConfig is persisted per broker ------------------------------------------------------------


def test_update_broker_config_outlives_a_restart_and_a_split_set_is_shown(cli: Cli) -> None:
    updated = cli.json("updateBrokerConfig", "-c", CLUSTER, "-k", "syncFlushTimeout", "-v", "4321")
    assert [b["status"] for b in updated["brokers"]] == ["updated"] * 3
    slave = slave_of(cli)
    agent = next(a for a in Sandbox(cli.dir).agents() if a.brokers[0].brokerAddress == slave["brokerAddress"])
    cli("sandbox", "stop", agent.id)
    cli("sandbox", "start", agent.id)

    def restarted() -> list[dict[str, Any]] | None:
        shown = cli("getBrokerConfig", "-c", CLUSTER, "-o", "json", ok=False)
        docs: list[dict[str, Any]] = json.loads(shown.stdout) if shown.stdout else []
        return docs if shown.returncode == 0 and all(d["reachable"] for d in docs) else None

    docs = wait_until(restarted, 60, "the restarted replica answers")
    assert {d["config"]["syncFlushTimeout"] for d in docs} == {"4321"}
    assert all(d["differs"] == [] for d in docs)
    cli.json("updateBrokerConfig", "-b", slave["brokerAddress"], "-k", "syncFlushTimeout", "-v", "5555")
    docs = cli.json("getBrokerConfig", "-c", CLUSTER)
    assert all(d["differs"] == ["syncFlushTimeout"] for d in docs)
    assert "broker-a: syncFlushTimeout differs between replicas" in cli("getBrokerConfig", "-c", CLUSTER).stdout
    cli.json("updateBrokerConfig", "-c", CLUSTER, "-k", "syncFlushTimeout", "-v", "4321")


# --- a second agent on a port the first serves -----------------------------------------------------------


@pytest.mark.parametrize("key", ["proxyListenPort", "listenPort"])
def test_a_second_agent_on_a_taken_port_exits_with_one_line_naming_it(cli: Cli, tmp_path: Path, key: str) -> None:
    first = Sandbox(cli.dir).agents()[0]
    taken = (first.proxyAddress if key == "proxyListenPort" else first.address).rsplit(":", 1)[1]
    ports = {"listenPort": "0", "proxyListenPort": "0", key: taken}
    conf = tmp_path / "agent.conf"
    conf.write_text("".join(f"{k}={v}\n" for k, v in ports.items()) + f"agentStorePath={tmp_path / 'store'}\n")
    result = subprocess.run([sys.executable, "-m", "mqadmin_py.mqagent", "-c", str(conf)], capture_output=True,
                            text=True, cwd=ROOT, env={**cli.env}, timeout=60)  # fmt: skip
    assert result.returncode == 1, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("mqagent: cannot start: ") and f"127.0.0.1:{taken} ({key})" in last, result.stderr
    assert "address already in use" in last
    assert "Traceback" not in result.stderr and "cannot join thread" not in result.stderr


# --- a replica's reader needs no controller to find every queue (last: stops the controllers) -----------------


def test_consume_from_one_replica_with_every_controller_down_reads_every_queue(cli: Cli) -> None:
    cli.json("updateTopic", "-c", CLUSTER, "-t", "Eight")  # 8 queues, the one default
    cli.json("sendMessage", "-t", "Eight", "-p", "e-{i}", "--count", "16")  # round robin: 2 a queue
    slave = slave_of(cli)["brokerAddress"]
    read = ("consumeMessage", "-t", "Eight", "-b", BROKER, "--brokerAddr", slave, "-c", "100")
    wait_until(lambda: len(cli.json(*read)["messages"]) == 16, 30, "the slave holds all 16")
    for node in ("n0", "n1", "n2"):
        cli("sandbox", "stop", node)
    outage = cli(*read, "-o", "json")
    assert bodies(json.loads(outage.stdout)) == sorted(f"e-{i}" for i in range(16))
    assert "reading queues 0-" not in outage.stderr
