"""``mqadmin epochs collect`` from a real sandbox through a failover that leaves a message to truncate, and the
report over what it collected: the change and the truncation show up.

The master is made to hold a message no slave has in full: replication is capped at 4 KiB/s
(``maxHaTransferByteInSecond``), a 48 KiB message is put (the put waits for acks that cannot come in time; the
client gives up after 1 s), and the master is SIGKILLed while the slaves hold only the first few KiB of it. A slave
is elected, cuts the partial record, and starts the new epoch where the message started. Then:

1. a controller collect shows the new master, masterEpoch + 1, the old master unreachable, one master change;
2. a ``--from-stores`` collect of the three store directories shows the old master's log ahead of the new epoch's
   start by exactly that message: the report predicts its truncation with the agents' own code;
3. after the old master restarts and catches up, a third collect shows nothing left to truncate.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqbase.client import AgentClient
from mqbase.errors import MqError
from mqbase.proto import agent_pb2 as apb
from tests.harness.sandbox import BROKER, CLUSTER, Cli, Cluster, ha_status, send
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

pytest.importorskip("pyspark")

CAP = 4096  # bytes per second per slave connection: a 48 KiB message needs 12 s to replicate
BIG = "x" * 48 * 1024


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    cli = Cli(tmp_path_factory.mktemp("collect") / "sandbox")
    up = cli.json("sandbox", "up", "--timeout", "120", "--broker-conf", f"maxHaTransferByteInSecond={CAP}")
    controllers = ";".join(c["address"] for c in up["controllers"])
    cli.env["MQADMIN_CONTROLLERS"] = controllers
    c = Cluster(cli, controllers)
    try:
        yield c
    finally:
        for proc in c.box.processes():
            if proc.pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGCONT)
        c.close()
        cli.json("sandbox", "down")


def collect(cluster: Cluster, out: Path, *source: str) -> dict[str, Any]:
    args = source or ("-a", cluster.controllers, "--cluster-name", CLUSTER)
    doc: dict[str, Any] = cluster.cli.json("epochs", "collect", "--out", str(out), *args)
    return doc


def max_offset(address: str) -> int:
    with AgentClient(timeout=3.0) as agents:
        return int(agents.call(address, "GetHAStatus", apb.BrokerRef(broker_name=BROKER)).max_offset)


def the_set(summary: dict[str, Any]) -> dict[str, Any]:
    s: dict[str, Any]
    (s,) = [s for s in summary["sets"] if s["brokerName"] == BROKER]
    return s


def replicas_of(summary: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {r["brokerId"]: r for r in summary["replicas"] if r["brokerName"] == BROKER}


def test_failover_with_an_unreplicated_message(cluster: Cluster, spark: Any, tmp_path: Path) -> None:
    from spark.report import run_report

    fleet, stores = tmp_path / "fleet", tmp_path / "stores"
    old = cluster.healthy()
    cluster.create_topic("Fleet")
    cluster.cli.json("sendMessage", "-t", "Fleet", "-p", "m-{i}", "--count", "10")
    first = collect(cluster, fleet)
    assert first["unreachableReplicas"] == 0 and first["rows"]["replicas"] == 3

    # The master alone gets one more message in full, then dies.
    start = ha_status(old.address).max_offset
    with contextlib.suppress(MqError):
        send(old.address, "Fleet", BIG, timeout=1.0)
    status = ha_status(old.address)
    unconfirmed = status.max_offset - start  # the whole record; the slaves hold only its first few KiB
    assert unconfirmed > len(BIG) and status.confirm_offset < status.max_offset
    master_agent = cluster.agent_of(old.broker_id)
    cluster.signal(master_agent, signal.SIGKILL)
    new = cluster.wait_master(lambda m: m.broker_id != old.broker_id, 30, "a slave elected")
    assert new.epoch == old.epoch + 1
    other = next(b for b in old.ids if b not in (old.broker_id, new.broker_id))
    wait_until(lambda: max_offset(new.address) == max_offset(cluster.address_of(other)), 30, "the other slave cut")

    # 1. The controller's view: a master change, the old master unreachable.
    second = collect(cluster, fleet)
    assert second["unreachableReplicas"] == 1
    summary = run_report(spark, fleet).summary(details=True)
    s = the_set(summary)
    assert (s["masterBrokerId"], s["masterEpoch"], s["masterChanges"]) == (new.broker_id, new.epoch, 1)
    assert (s["unreachableReplicas"], s["uncleanElection"]) == (1, False)
    assert summary["fleet"]["masterChanges"] == 1
    assert replicas_of(summary)[old.broker_id]["reachable"] is False

    # 2. The stores, read in place: the old master would cut exactly the unreplicated message.
    collect(cluster, stores, "--from-stores", str(cluster.cli.dir / "store"))
    summary = run_report(spark, stores).summary(details=True)
    by_id = replicas_of(summary)
    assert the_set(summary)["masterBrokerId"] == new.broker_id
    assert by_id[old.broker_id]["predictedTruncationBytes"] == unconfirmed
    assert by_id[old.broker_id]["consistentPoint"] == by_id[old.broker_id]["maxOffset"] - unconfirmed
    assert summary["fleet"]["replicasTruncating"] == 1
    assert summary["fleet"]["predictedTruncationBytes"] == unconfirmed

    # 3. Back and caught up: the cut happened, nothing is left to truncate.
    cluster.cli("sandbox", "start", master_agent)
    cluster.healthy()
    third = collect(cluster, fleet)
    assert third["unreachableReplicas"] == 0
    summary = run_report(spark, fleet).summary(details=True)
    s = the_set(summary)
    assert (s["masterChanges"], s["replicasTruncating"], s["divergent"]) == (0, 0, False)
    assert replicas_of(summary)[old.broker_id]["consistentPoint"] == replicas_of(summary)[old.broker_id]["maxOffset"]
    assert summary["snapshots"] == 3

    # The same dataset through the command, as an operator runs it.
    report = cluster.cli("epochs", "report", "--input", str(stores), "-o", "json", "--top", "3", timeout=300)
    assert json.loads(report.stdout)["fleet"]["predictedTruncationBytes"] == unconfirmed
