"""Every mqadmin command against a real sandbox (3 controllers, 3 agents, one broker set), run as a real process.

One sandbox serves the whole module (started and stopped through the CLI itself). Tests run in file order and
later ones change the cluster (election, failover, an added broker set), so each states what it relies on.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqadmin_py.commands.sandbox import SandboxDoc
from mqadmin_py.sandbox import _pid_alive
from tests.harness.processes import ROOT, taken_port
from tests.harness.sandbox import BROKER, CLUSTER, Cli


class SandboxCli(Cli):
    """The module's CLI runner, which also keeps the ``sandbox up`` document its sandbox started with."""

    up: SandboxDoc


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxCli]:
    run = SandboxCli(tmp_path_factory.mktemp("cli") / "sandbox")
    run.up = up = run.json("sandbox", "up", "--timeout", "120")
    run.env["MQADMIN_CONTROLLERS"] = ";".join(c["address"] for c in up["controllers"])
    try:
        yield run
    finally:
        stopped = run.json("sandbox", "down")
        pids = [p["pid"] for p in stopped["stopped"]]
        configs = [c for c in (run.dir / "conf").rglob("*.conf")]
        assert not any(_pid_alive(pid, str(conf)) for pid in pids for conf in configs)


def sync_state(cli: Cli, name: str = BROKER) -> dict[str, Any]:
    docs = cli.json("getSyncStateSet", "-b", name)
    assert len(docs) == 1
    doc: dict[str, Any] = docs[0]
    return doc


# --- sandbox ------------------------------------------------------------------------------------


def test_sandbox_up_names_a_process_that_exits_at_start_with_its_log(tmp_path: Path) -> None:
    """Fixed: a node that cannot start (metrics port in use) was noticed only at the timeout, as "no leader"."""
    run = Cli(tmp_path / "sandbox")
    with taken_port() as port:
        result = run("sandbox", "up", "--controllers", "1", "--broker-sets", "0", "--timeout", "60",
                     "--controller-conf", "metricsExporterType=PROM",
                     "--controller-conf", f"metricsPromExporterPort={port}", ok=False)  # fmt: skip
    try:
        assert result.returncode == 1, result.stderr
        assert f"n0 exited with code 1 at start; last lines of {run.dir / 'logs' / 'n0.log'}:" in result.stderr
        assert f"mqcontroller: cannot start: cannot bind metrics port 127.0.0.1:{port}" in result.stderr
    finally:
        assert run.json("sandbox", "down")["stopped"] == []


def test_sandbox_up_reports_every_process_in_the_documented_schema(cli: SandboxCli) -> None:
    up = cli.up
    assert [c["id"] for c in up["controllers"]] == ["n0", "n1", "n2"]
    for c in up["controllers"]:
        assert set(c) >= {"id", "address", "raftAddress", "pid"} and c["pid"] is not None and c["pid"] > 0
    assert len(up["agents"]) == 3
    for agent in up["agents"]:
        assert set(agent) >= {"address", "pid", "brokers"} and agent["pid"] is not None and agent["pid"] > 0
        (broker,) = agent["brokers"]
        assert broker == {
            "clusterName": CLUSTER,
            "brokerName": BROKER,
            "brokerId": broker["brokerId"],
            "brokerAddress": broker["brokerAddress"],
            "haAddress": broker["haAddress"],
        }
    assert {b["brokerId"] for a in up["agents"] for b in a["brokers"]} == {1, 2, 3}  # one broker on each of 3
    status = cli.json("sandbox", "status")
    assert [a["pid"] for a in status["agents"]] == [a["pid"] for a in up["agents"]]
    table = cli("sandbox", "status").stdout
    assert "a2" in table and "export MQADMIN_CONTROLLERS=" in table


def test_up_waited_for_a_master_and_a_full_sync_state_set(cli: Cli) -> None:
    doc = sync_state(cli)
    assert doc["masterBrokerId"] is not None
    assert len(doc["inSyncReplicas"]) == 3 and all(r["alive"] for r in doc["inSyncReplicas"])


# --- controller commands ------------------------------------------------------------------------


def test_get_controller_metadata_in_three_forms(cli: Cli) -> None:
    doc = cli.json("getControllerMetaData")
    assert doc["group"] == "sandbox" and doc["controllerLeaderId"] in {"n0", "n1", "n2"}
    assert sum(1 for n in doc["nodes"] if n["isLeader"]) == 1
    assert all(n["hasQuorum"] and n["term"] >= 1 for n in doc["nodes"])
    assert "Raft state" in cli("getControllerMetaData").stdout
    legacy = cli("getControllerMetaData", "-o", "legacy").stdout
    assert "#ControllerGroup\tsandbox" in legacy and legacy.count("#Peer:\t") == 3


def test_get_sync_state_set_in_three_forms_and_its_kebab_alias(cli: Cli) -> None:
    doc = sync_state(cli)
    assert set(doc) == {
        "clusterName",
        "brokerName",
        "masterBrokerId",
        "masterAddress",
        "masterEpoch",
        "syncStateSetEpoch",
        "preferredBrokerId",
        "inSyncReplicas",
        "notInSyncReplicas",
        "lastTransfer",
        "lastRefusal",
        "preferredMasterBlockedBy",
        "actingMaster",
        "actingSince",
        "actingUnknown",
    }
    assert (doc["lastTransfer"], doc["lastRefusal"], doc["preferredMasterBlockedBy"]) == (None, None, None)
    assert (doc["actingMaster"], doc["actingSince"], doc["actingUnknown"]) == (None, None, [])  # RIP-32: nobody acts
    assert set(doc["inSyncReplicas"][0]) == {"brokerId", "brokerAddress", "haAddress", "alive"}
    assert cli.json("get-sync-state-set", "-b", BROKER) == [doc]
    assert cli.json("getSyncStateSet", "-c", CLUSTER) == [doc]
    table = cli("getSyncStateSet").stdout
    assert "master" in table and "in-sync" in table
    legacy = cli("getSyncStateSet", "-b", BROKER, "-o", "legacy").stdout
    assert f"#brokerName\t{BROKER}" in legacy and "#SyncStateSetNums\t3" in legacy
    assert legacy.count("InSyncReplica:\tReplicaIdentity{") == 3


def test_interval_with_count_prints_one_json_document_per_run(cli: Cli) -> None:
    out = cli("getSyncStateSet", "-b", BROKER, "-o", "json", "-i", "0.2", "--count", "3").stdout
    lines = out.strip().splitlines()
    assert len(lines) == 3
    assert all(json.loads(line)[0]["brokerName"] == BROKER for line in lines)


def test_unknown_broker_set_exits_1_with_the_rocketmq_code(cli: Cli) -> None:
    for args in (("getSyncStateSet", "-b", "no-such-set"), ("getBrokerEpoch", "-c", "NoSuchCluster")):
        result = cli(*args, ok=False)
        assert result.returncode == 1
        assert "CONTROLLER_BROKER_METADATA_NOT_EXIST (2008)" in result.stderr


def test_controller_config_get_update_and_a_refused_key(cli: Cli) -> None:
    docs = cli.json("getControllerConfig")
    assert len(docs) == 3 and all(d["config"]["controllerGroup"] == "sandbox" for d in docs)
    assert "enableElectUncleanMaster" in cli("getControllerConfig", "-o", "legacy").stdout
    updated = cli.json("updateControllerConfig", "-k", "enableElectUncleanMaster", "-v", "false")
    assert updated["key"] == "enableElectUncleanMaster" and len(updated["controllers"]) == 3
    refused = cli("updateControllerConfig", "-k", "configStorePath", "-v", "/tmp/x", ok=False)
    assert refused.returncode == 4 and "NO_PERMISSION (16)" in refused.stderr
    unknown = cli("updateControllerConfig", "-k", "noSuchKey", "-v", "1", ok=False)
    assert unknown.returncode == 2 and "unknown config key 'noSuchKey'" in unknown.stderr  # checked first


# --- messages and broker commands ----------------------------------------------------------------


def test_send_and_consume_messages(cli: Cli) -> None:
    cli.json("updateTopic", "-c", CLUSTER, "-t", "Orders", "-r", "4", "-w", "4")  # 8 messages: 2 in each queue
    sent = cli.json("sendMessage", "-t", "Orders", "-p", "order-{i}", "-k", "k", "-c", "TagA", "--count", "8")
    assert sent["sent"] == 8 and sent["failed"] == 0
    assert {r["status"] for r in sent["results"]} == {"PUT_OK"}
    assert len({(r["queueId"], r["queueOffset"]) for r in sent["results"]}) == 8
    got = cli.json("consumeMessage", "-t", "Orders", "-b", BROKER, "-c", "100")
    assert sorted(m["body"] for m in got["messages"]) == sorted(f"order-{i}" for i in range(8))
    assert all(m["keys"] == "k" and m["properties"]["TAGS"] == "TagA" for m in got["messages"])
    placed = {(r["queueId"], r["queueOffset"]): f"order-{r['index']}" for r in sent["results"]}
    assert {(m["queueId"], m["queueOffset"]): m["body"] for m in got["messages"]} == placed
    one = cli.json("consumeMessage", "-t", "Orders", "-bn", BROKER, "-i", "0", "--offset", "1", "-c", "1")
    assert [(m["queueId"], m["queueOffset"]) for m in one["messages"]] == [(0, 1)]
    assert "order-" in cli("consumeMessage", "-t", "Orders", "-bn", BROKER).stdout
    assert (
        "MSG: queueId=0, queueOffset=0" in cli("consumeMessage", "-t", "Orders", "-bn", BROKER, "-o", "legacy").stdout
    )
    assert "PUT_OK" in cli("sendMessage", "-t", "Orders", "-p", "x", "-o", "legacy").stdout


def test_get_broker_epoch_lists_every_replica(cli: Cli) -> None:
    docs = cli.json("getBrokerEpoch", "-b", BROKER)
    assert [d["brokerId"] for d in docs] == sorted(d["brokerId"] for d in docs) and len(docs) == 3
    for d in docs:
        assert d["reachable"] and d["epochs"], d
        assert d["epochs"][-1]["endOffset"] == d["maxOffset"]
        assert set(d["epochs"][0]) == {"epoch", "startOffset", "endOffset"}
    legacy = cli("getBrokerEpoch", "-b", BROKER, "-o", "legacy").stdout
    assert legacy.count("#Epoch: EpochEntry{epoch=") >= 3 and f"#clusterName\t{CLUSTER}" in legacy
    assert "StartOffset" in cli("getBrokerEpoch").stdout


def test_ha_status_of_the_master_and_of_a_slave(cli: Cli) -> None:
    (master,) = cli.json("haStatus")
    assert master["role"] == "master" and len(master["slaves"]) == 2
    assert all(s["inSync"] and s["brokerAddress"] for s in master["slaves"])
    slave_address = master["slaves"][0]["brokerAddress"]
    (slave,) = cli.json("haStatus", "-b", slave_address)
    assert slave["role"] == "slave" and slave["masterAddress"] == master["brokerAddress"] and slave["connected"]
    legacy = cli("haStatus", "-o", "legacy").stdout
    assert "#MasterCommitLogMaxOffset" in legacy and "#InSyncSlaveNum\t2" in legacy
    assert "#CommitLogMaxOffset" in cli("haStatus", "-b", slave_address, "-o", "legacy").stdout
    assert "Slave id" in cli("haStatus", "-c", CLUSTER).stdout


def test_reset_master_flush_offset(cli: Cli) -> None:
    doc = sync_state(cli)
    assert cli.json("resetMasterFlushOffset", "-b", doc["masterAddress"], "--offset", "0")["offset"] == 0
    assert (
        "success" in cli("resetMasterFlushOffset", "-b", doc["masterAddress"], "--offset", "0", "-o", "legacy").stdout
    )
    slave = next(r for r in doc["inSyncReplicas"] if r["brokerId"] != doc["masterBrokerId"])
    refused = cli("resetMasterFlushOffset", "-b", slave["brokerAddress"], "--offset", "0", ok=False)
    assert refused.returncode == 1 and "only a master" in refused.stderr


# --- Java mqadmin habits: -n, clusterList, getBrokerConfig, updateBrokerConfig --------------------------


def test_java_option_letters_and_an_ignored_name_server(cli: Cli) -> None:
    assert cli.json("getSyncStateSet", "-b", BROKER, "-n", "127.0.0.1:9876")[0]["brokerName"] == BROKER
    cli.json("updateTopic", "-c", CLUSTER, "-t", "Habits")
    sent = cli.json("sendMessage", "-t", "Habits", "-p", "h", "-b", BROKER, "-i", "2", "-n", "ns1:9876;ns2:9876")
    assert sent["results"][0]["queueId"] == 2
    got = cli.json("consumeMessage", "-t", "Habits", "-b", BROKER, "-i", "2", "-c", "5")
    assert [m["body"] for m in got["messages"]] == ["h"]
    count = cli("sendMessage", "-t", "Habits", "-p", "h", "-n", "10", ok=False)
    assert count.returncode == 2 and "--count" in count.stderr
    address = cli("consumeMessage", "-t", "Habits", "-b", sync_state(cli)["masterAddress"], ok=False)
    assert address.returncode == 2 and "--brokerAddr" in address.stderr


def test_sandbox_status_names_the_broker_id_each_agent_hosts(cli: Cli) -> None:
    doc = sync_state(cli)
    ids = {r["brokerAddress"]: r["brokerId"] for r in doc["inSyncReplicas"] + doc["notInSyncReplicas"]}
    hosted = [b for a in cli.json("sandbox", "status")["agents"] for b in a["brokers"]]
    assert {b["brokerAddress"]: b["brokerId"] for b in hosted} == ids


def test_cluster_list_shows_every_replica_with_role_epoch_and_offsets(cli: Cli) -> None:
    """Relies on a written log: a slave records its master's epoch with the first batch it receives."""
    cli.json("updateTopic", "-c", CLUSTER, "-t", "Listed")
    assert cli.json("sendMessage", "-t", "Listed", "-p", "x")["sent"] == 1
    doc = sync_state(cli)
    deadline = time.monotonic() + 30
    rows = cli.json("clusterList")
    while len({r["maxOffset"] for r in rows}) > 1 and time.monotonic() < deadline:
        time.sleep(0.2)  # the last slave may still be receiving the batch
        rows = cli.json("clusterList")
    assert [(r["clusterName"], r["brokerName"]) for r in rows] == [(CLUSTER, BROKER)] * 3
    assert [r["brokerId"] for r in rows] == sorted(r["brokerId"] for r in rows)
    assert {r["brokerId"] for r in rows if r["role"] == "master"} == {doc["masterBrokerId"]}
    for r in rows:
        assert r["reachable"] and r["alive"] and r["inSync"] and r["epoch"] == doc["masterEpoch"], r
        assert 0 <= r["minOffset"] <= r["confirmOffset"] <= r["maxOffset"]
        assert (r["actingMaster"], r["actingSince"]) == (False, None), r  # a set with a master: nobody acts
    assert cli.json("clusterList", "-c", CLUSTER) is not None
    assert "ConfirmOffset" in cli("clusterList").stdout
    unknown = cli("clusterList", "-c", "NoSuchCluster", ok=False)
    assert unknown.returncode == 1 and "2008" in unknown.stderr


def test_broker_config_is_read_and_updated_on_every_replica_of_the_cluster(cli: Cli) -> None:
    docs = cli.json("getBrokerConfig", "-c", CLUSTER)
    assert len(docs) == 3 and all(d["config"]["brokerName"] == BROKER for d in docs)
    one = cli.json("getBrokerConfig", "-b", docs[0]["brokerAddress"])
    assert one[0]["config"] == docs[0]["config"]
    assert "============" in cli("getBrokerConfig", "-c", CLUSTER, "-o", "legacy").stdout
    updated = cli.json("updateBrokerConfig", "-c", CLUSTER, "-k", "syncFlushTimeout", "-v", "4321")
    assert [b["status"] for b in updated["brokers"]] == ["updated"] * 3
    assert {d["config"]["syncFlushTimeout"] for d in cli.json("getBrokerConfig", "-c", CLUSTER)} == {"4321"}
    refused = cli("updateBrokerConfig", "-c", CLUSTER, "-k", "storePathRootDir", "-v", "/x", "-o", "json", ok=False)
    assert refused.returncode == 4 and "NO_PERMISSION (16)" in refused.stderr
    assert [b["status"] for b in json.loads(refused.stdout)["brokers"]] == ["refused", "skipped", "skipped"]
    for shortcut, why in ((("-c", ""), "cannot be empty"), (("-b", ""), "not host:port"), ((), "exactly one of -b")):
        wide = cli("updateBrokerConfig", *shortcut, "-k", "syncFlushTimeout", "-v", "1", ok=False)
        assert wide.returncode == 2 and why in wide.stderr


def test_update_broker_config_changes_nothing_while_a_replica_is_down(cli: Cli) -> None:
    doc = sync_state(cli)
    slave = next(r for r in doc["inSyncReplicas"] if r["brokerId"] != doc["masterBrokerId"])
    agent = next(a for a in cli.json("sandbox", "status")["agents"] if a["brokers"][0]["brokerId"] == slave["brokerId"])
    cli("sandbox", "stop", agent["id"])
    try:
        refused = cli("updateBrokerConfig", "-c", CLUSTER, "-k", "syncFlushTimeout", "-v", "2222", ok=False)
        assert refused.returncode == 4 and slave["brokerAddress"] in refused.stderr
        assert "nothing changed" in refused.stderr
        shown = cli("getBrokerConfig", "-c", CLUSTER, "-o", "json", ok=False)
        assert shown.returncode == 1
        values = {d["brokerAddress"]: (d["config"] or {}).get("syncFlushTimeout") for d in json.loads(shown.stdout)}
        assert values.pop(slave["brokerAddress"]) is None and set(values.values()) == {"4321"}
        partial = cli.json("updateBrokerConfig", "-c", CLUSTER, "-k", "syncFlushTimeout", "-v", "2222",
                           "--reachable-only")  # fmt: skip
        statuses = {b["brokerAddress"]: b["status"] for b in partial["brokers"]}
        assert statuses.pop(slave["brokerAddress"]) == "unreachable" and set(statuses.values()) == {"updated"}
    finally:
        cli("sandbox", "start", agent["id"])
        cli.json("wait", "insync", "-bn", BROKER, "--timeout", "60")


# --- elections, waits, failover -----------------------------------------------------------------


def test_elect_master_moves_the_master_and_a_repeat_is_a_no_op(cli: Cli) -> None:
    before = sync_state(cli)
    target = next(r["brokerId"] for r in before["inSyncReplicas"] if r["brokerId"] != before["masterBrokerId"])
    elected = cli.json("electMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(target))
    assert elected["changed"] and elected["masterBrokerId"] == target
    assert elected["syncStateSet"] == [target]
    assert elected["masterEpoch"] == before["masterEpoch"] + 1
    again = cli("electMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(target), "-o", "legacy")
    assert f"#MasterEpoch\t{elected['masterEpoch']}" in again.stdout
    waited = cli.json("wait", "insync", "-bn", BROKER, "--timeout", "30")
    assert waited["masterBrokerId"] == target and len(waited["inSyncReplicas"]) == 3


def test_transfer_records_refusals_apart_and_a_transfer_to_the_master_is_a_no_op(cli: Cli) -> None:
    """Fixed: a refused transferMaster replaced lastTransfer; a repeat exited 4; electMaster ignored -c."""
    before = sync_state(cli)
    target = next(r["brokerId"] for r in before["inSyncReplicas"] if r["brokerId"] != before["masterBrokerId"])
    transfer = ("transferMaster", "-c", CLUSTER, "-bn", BROKER)
    done = cli.json(*transfer, "-b", str(target))
    assert (done["state"], done["alreadyMaster"]) == ("done", False)
    refused = cli(*transfer, "-b", "99", ok=False)
    assert refused.returncode == 4 and "broker 99 is not registered" in refused.stderr
    doc = sync_state(cli)
    assert (doc["lastTransfer"]["state"], doc["lastTransfer"]["toBrokerId"]) == ("done", target)
    assert (doc["lastRefusal"]["state"], doc["lastRefusal"]["toBrokerId"]) == ("refused", 99)
    table = cli("getSyncStateSet", "-b", BROKER).stdout
    assert f"{BROKER}: last refused transfer {target} -> 99 refused: broker 99 is not registered" in table
    again = cli.json(*transfer, "-b", str(target))
    assert (again["alreadyMaster"], again["transfer"], again["masterEpoch"]) == (True, None, doc["masterEpoch"])
    assert "already master (no change)" in cli(*transfer, "-b", str(target)).stdout
    other = next(r["brokerId"] for r in doc["inSyncReplicas"] if r["brokerId"] != target)
    wrong = cli("electMaster", "-c", "NoSuchCluster", "-bn", BROKER, "-b", str(other), ok=False)
    assert wrong.returncode == 1 and "CONTROLLER_BROKER_METADATA_NOT_EXIST (2008)" in wrong.stderr
    assert f"it belongs to cluster {CLUSTER}" in wrong.stderr
    assert sync_state(cli)["masterBrokerId"] == target
    cli.json("wait", "insync", "-bn", BROKER, "--timeout", "30")


def test_an_empty_clean_list_is_refused_and_the_live_set_survives(cli: Cli) -> None:
    """Fixed: ``-b '' -l`` (and an empty list over the RPC) removed a live set's metadata."""
    from mqbase.client import ControllerClient
    from mqbase.codes import ResponseCode
    from mqbase.proto import controller_pb2 as pb

    refused = cli("cleanBrokerMetadata", "-c", CLUSTER, "-bn", BROKER, "-b", "", "-l", ok=False)
    assert refused.returncode == 2 and "no broker id given" in refused.stderr
    request = pb.CleanBrokerDataRequest(cluster_name=CLUSTER, broker_name=BROKER, is_clean_living_broker=True)
    with ControllerClient(cli.env["MQADMIN_CONTROLLERS"]) as client:
        answer = client.call("CleanBrokerData", request)
    assert answer.code == ResponseCode.CONTROLLER_INVALID_CLEAN_BROKER_METADATA
    assert "set cleanWholeSet to remove the whole broker set" in answer.remark
    doc = sync_state(cli)
    assert doc["masterBrokerId"] is not None and len(doc["inSyncReplicas"]) == 3


def test_wait_times_out_with_exit_3_and_says_what_it_saw(cli: Cli) -> None:
    master = sync_state(cli)["masterBrokerId"]
    result = cli("wait", "master", "-bn", BROKER, "--other-than", str(master), "--timeout", "0.5", ok=False)
    assert result.returncode == 3 and f"last seen: master {master}" in result.stderr
    quorum = cli.json("wait", "quorum")
    assert quorum["controllerLeaderId"] in {"n0", "n1", "n2"}


def test_a_stopped_slave_leaves_the_set_and_rejoins_after_start(cli: Cli) -> None:
    before = sync_state(cli)
    slave = next(r for r in before["inSyncReplicas"] if r["brokerId"] != before["masterBrokerId"])
    status = cli.json("sandbox", "status")
    agent = next(a for a in status["agents"] if a["brokers"][0]["brokerAddress"] == slave["brokerAddress"])
    stopped = cli.json("sandbox", "stop", agent["id"])
    assert stopped == {"id": agent["id"], "pid": agent["pid"]}
    assert next(a for a in cli.json("sandbox", "status")["agents"] if a["id"] == agent["id"])["pid"] is None
    members = {r["brokerId"]: r for r in sync_state(cli)["inSyncReplicas"] + sync_state(cli)["notInSyncReplicas"]}
    assert not members[slave["brokerId"]]["alive"]
    again = cli.json("sandbox", "up")  # starts only what is stopped, then waits until the set is full again
    assert [c["pid"] for c in again["controllers"]] == [c["pid"] for c in status["controllers"]]
    assert next(a for a in again["agents"] if a["id"] == agent["id"])["pid"] not in (None, agent["pid"])
    assert len(sync_state(cli)["inSyncReplicas"]) == 3


def test_failover_drill_through_the_cli(cli: Cli) -> None:
    cli.json("updateTopic", "-c", CLUSTER, "-t", "Drill")
    cli.json("sendMessage", "-t", "Drill", "-p", "before-{i}", "--count", "6")
    before = sync_state(cli)
    killed = cli.json("sandbox", "kill", "master", "-bn", BROKER)
    assert killed["brokerAddress"] == before["masterAddress"]
    after = cli.json("wait", "master", "-bn", BROKER, "--other-than", str(before["masterBrokerId"]), "--timeout", "30")
    assert after["masterEpoch"] > before["masterEpoch"]
    epochs = {d["brokerId"]: d for d in cli.json("getBrokerEpoch", "-b", BROKER)}
    assert not epochs[before["masterBrokerId"]]["reachable"]
    assert epochs[after["masterBrokerId"]]["epochs"][-1]["epoch"] == after["masterEpoch"]
    sent = cli.json("sendMessage", "-t", "Drill", "-p", "after-{i}", "--count", "3")
    assert sent["failed"] == 0
    bodies = {m["body"] for m in cli.json("consumeMessage", "-t", "Drill", "-bn", BROKER, "--max", "100")["messages"]}
    assert bodies == {f"before-{i}" for i in range(6)} | {f"after-{i}" for i in range(3)}
    cli("sandbox", "start", killed["id"])
    cli.json("wait", "insync", "-bn", BROKER, "--timeout", "60")


def test_a_hung_controller_is_skipped_not_waited_on(cli: SandboxCli) -> None:
    follower = next(n for n in cli.json("getControllerMetaData")["nodes"] if not n["isLeader"])
    node_id = {c["address"]: c["id"] for c in cli.up["controllers"]}[follower["address"]]
    hung_first = ";".join(
        [follower["address"], *(a for a in cli.env["MQADMIN_CONTROLLERS"].split(";") if a != follower["address"])]
    )
    cli("sandbox", "kill", node_id, "--signal", "STOP")
    try:
        docs = json.loads(cli("getSyncStateSet", "-a", hung_first, "--timeout", "1", "-o", "json").stdout)
        assert docs[0]["brokerName"] == BROKER
        waited = cli.json("wait", "master", "-bn", BROKER, "-a", hung_first, "--timeout", "15")
        assert waited["masterBrokerId"] is not None
    finally:
        cli("sandbox", "kill", node_id, "--signal", "CONT")


# --- the RIP-31 container and metadata cleaning (last: they add and remove a broker set) --------------------


def test_add_list_remove_broker_then_clean_its_metadata(cli: SandboxCli, tmp_path: Path) -> None:
    agent = cli.up["agents"][0]
    port = json.loads(cli("sandbox", "status", "-o", "json").stdout)["agents"][0]["address"]
    assert port == agent["address"]
    from mqbase.ports import free_ports

    listen, ha = free_ports(2)
    conf = tmp_path / "broker-z.conf"
    conf.write_text(
        f"brokerClusterName={CLUSTER}\nbrokerName=broker-z\nlistenPort={listen}\nhaListenPort={ha}\n"
        f"storePathRootDir={tmp_path / 'store'}\ncontrollerAddr={cli.env['MQADMIN_CONTROLLERS']}\n"
        "mappedFileSizeCommitLog=8388608\ntotalReplicas=1\nbrokerHeartbeatInterval=200\n"
        "controllerHeartBeatTimeoutMills=2000\n"
    )
    assert cli.json("addBroker", "-c", agent["address"], "-b", str(conf))["brokerConfigPath"] == str(conf)
    waited = cli.json("wait", "master", "-bn", "broker-z", "--timeout", "30")
    hosted = {b["brokerName"]: b for b in cli.json("listBrokers", "-c", agent["address"])}
    assert hosted["broker-z"]["brokerId"] == waited["masterBrokerId"]
    bad = cli("removeBroker", "-c", agent["address"], "-b", "broker-z", ok=False)
    assert bad.returncode == 2 and "clusterName:brokerName:brokerId" in bad.stderr
    cli("removeBroker", "-c", agent["address"], "-b", f"{CLUSTER}:broker-z:{waited['masterBrokerId']}")
    assert "broker-z" not in {b["brokerName"] for b in cli.json("listBrokers", "-c", agent["address"])}
    deadline = time.monotonic() + 30
    while sync_state(cli, "broker-z")["inSyncReplicas"][0]["alive"]:
        assert time.monotonic() < deadline, "the removed broker still counts as alive"
        time.sleep(0.2)
    cleaned = cli.json("cleanBrokerMetadata", "-bn", "broker-z", "-c", CLUSTER, "--wholeSet")
    assert cleaned["cleaned"]
    gone = cli("getSyncStateSet", "-b", "broker-z", ok=False)
    assert gone.returncode == 1 and "2008" in gone.stderr


def test_assign_preferred_master_shows_it_waits_for_it_and_clears_it(cli: Cli) -> None:
    before = sync_state(cli)
    slave, other = (r["brokerId"] for r in before["inSyncReplicas"] if r["brokerId"] != before["masterBrokerId"])
    assign = ("assign-preferred-master", "-c", CLUSTER, "-bn", BROKER)

    def background(*args: str) -> subprocess.Popen[str]:
        command = [sys.executable, "-m", "mqadmin_py", *assign, *args, "-o", "json"]
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                env=cli.env)  # fmt: skip

    assigned = cli(*assign, "-b", str(slave), "-o", "json")
    assert json.loads(assigned.stdout) == {
        "clusterName": CLUSTER, "brokerName": BROKER, "previousPreferredBrokerId": None, "preferredBrokerId": slave,
        "changed": True, "preferredMasterEnabled": False, "masterBrokerId": before["masterBrokerId"],
        "masterEpoch": before["masterEpoch"],
    }  # fmt: skip
    assert "enablePreferredMaster=false" in assigned.stderr
    assert sync_state(cli)["preferredBrokerId"] == slave
    assert f"#SyncStateSetNums\t3\n#PreferredBrokerId\t{slave}\n" in cli("getSyncStateSet", "-o", "legacy").stdout
    assert "slave (preferred)" in cli("getSyncStateSet").stdout
    assert "unchanged" in cli(*assign, "-b", str(slave)).stdout
    timed_out = cli(*assign, "-b", str(slave), "--wait", "--timeout", "1", ok=False)
    assert timed_out.returncode == 3 and f"broker {slave} to be the alive master" in timed_out.stderr

    waiting = background("-b", str(slave), "--wait", "--timeout", "60")
    try:
        cli("electMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(slave))
        out, err = waiting.communicate(timeout=90)
        assert waiting.returncode == 0, err
        assert json.loads(out)["masterBrokerId"] == slave
    finally:
        waiting.kill()
        waiting.communicate()

    waiting = background("-b", str(other), "--wait", "--timeout", "60")
    try:
        deadline = time.monotonic() + 30
        while sync_state(cli)["preferredBrokerId"] != other:
            assert time.monotonic() < deadline, "the background assignment did not land"
            time.sleep(0.2)
        cleared = cli.json(*assign, "--clear")
        assert (cleared["previousPreferredBrokerId"], cleared["preferredBrokerId"]) == (other, None)
        _, err = waiting.communicate(timeout=30)
        assert waiting.returncode == 4 and "no longer the preferred master" in err, err
    finally:
        waiting.kill()
        waiting.communicate()
    assert sync_state(cli)["preferredBrokerId"] is None
    assert "PreferredBrokerId" not in cli("getSyncStateSet", "-o", "legacy").stdout

    unknown = cli(*assign, "-b", "99", ok=False)
    assert unknown.returncode == 1 and "CONTROLLER_BROKER_NEED_TO_BE_REGISTERED (2010)" in unknown.stderr


def test_the_readme_preferred_master_runbook_completes_in_the_sandbox(cli: Cli) -> None:
    """Right after a transferMaster (which counts as the set's transfer attempt), as at the end of a rolling
    restart: the sandbox's preferredMasterTransferIntervalMs must fit in the runbook's --timeout."""
    before = sync_state(cli)
    moved, target = (r["brokerId"] for r in before["inSyncReplicas"] if r["brokerId"] != before["masterBrokerId"])
    cli("transferMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(moved))
    cli("updateControllerConfig", "-k", "enablePreferredMaster", "-v", "true")
    try:
        waited = cli.json("assign-preferred-master", "-c", CLUSTER, "-bn", BROKER, "-b", str(target), "--wait",
                          "--timeout", "30")  # fmt: skip
        assert waited["masterBrokerId"] == target
        after = sync_state(cli)
        assert after["masterBrokerId"] == target
        assert (after["lastTransfer"]["toBrokerId"], after["lastTransfer"]["trigger"]) == (target, "preferred")
    finally:
        cli("updateControllerConfig", "-k", "enablePreferredMaster", "-v", "false")
        cli.json("assign-preferred-master", "-c", CLUSTER, "-bn", BROKER, "--clear")
