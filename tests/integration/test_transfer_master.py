"""Graceful master transfer on a real sandbox: 3 controllers, 3 agents hosting one broker set.

One sandbox serves the module, started through ``mqadmin sandbox up`` with a fast preferred-master scan
(``scanPreferredMasterInterval`` 300 ms, ``preferredMasterTransferIntervalMs`` 1 s) and a broker heartbeat
timeout (6 s) well above every transfer timeout used here, so a SIGSTOPped target still counts as alive while
a transfer waits for it. ``enablePreferredMaster`` is switched per test; an autouse fixture puts the cluster
back after every test (SIGCONT, restart what is down, preference cleared, flag off, full SyncStateSet),
whatever the test did or however it failed. No test assumes which broker is master when it starts.

``Producer`` sends one message at a time to the current master from a thread of this process, retrying the
refusals that stored nothing (codes 11 and 14) where the broker points, and records every acknowledged
message; ``assert_nothing_lost`` reads the topic back from the final master.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from mqadmin_py.sandbox import _pid_alive
from mqbase.client import AgentClient, ControllerClient
from mqbase.codes import ResponseCode as C
from mqbase.errors import MqError
from mqbase.proto import agent_pb2 as apb
from mqbase.proto import controller_pb2 as pb
from tests.harness.processes import ROOT
from tests.harness.sandbox import BROKER, CLUSTER, Cli, Cluster, Master, ha_status, leader_known, replicas, send
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]


QUEUES = 4
SCAN_MS = 300
MIN_INTERVAL_MS = 1000
CONTROLLER_CONF = {
    "scanPreferredMasterInterval": str(SCAN_MS),
    "preferredMasterTransferIntervalMs": str(MIN_INTERVAL_MS),
    "transferMasterTimeoutMs": "2000",
}
BROKER_CONF = {"controllerHeartBeatTimeoutMills": "6000"}
RETRIABLE = (C.SLAVE_NOT_AVAILABLE, C.SERVICE_NOT_AVAILABLE)  # 11, 14: the broker stored nothing


# --- the CLI and the cluster ------------------------------------------------------------------------


def read_topic(address: str, topic: str) -> list[str]:
    """Every readable message of `topic` on the broker at `address` (all queues, from offset 0)."""
    bodies: list[str] = []
    with AgentClient(timeout=5.0) as agents:
        for queue_id in range(QUEUES):
            offset = 0
            while True:
                request = apb.PullMessageRequest(
                    broker=apb.BrokerRef(broker_name=BROKER),
                    topic=topic,
                    queue_id=queue_id,
                    queue_offset=offset,
                    max_messages=512,
                )
                r = agents.call(address, "PullMessage", request)
                assert r.code == C.SUCCESS, r
                if not r.messages:
                    break
                bodies.extend(m.message.body.decode() for m in r.messages)
                offset = r.next_offset
    return bodies


# --- a producer and a reader ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Ack:
    body: str
    commit_offset: int
    epoch: int
    broker_id: int


class Producer:
    """Sends one message at a time to the current master (a thread of this process) until stopped.

    Codes 11 and 14 (SLAVE_NOT_AVAILABLE, SERVICE_NOT_AVAILABLE incl. MASTER_TRANSFERRING) stored nothing:
    the same body is retried, at the broker's ``master_address`` hint when it names another broker, else at
    the master the controller names. Any other outcome (FLUSH_SLAVE_TIMEOUT, an unreachable broker) may have
    stored the message: its body goes to ``unknown`` and is never sent again, so nothing can be duplicated
    by the producer itself. The producer creates its topic first (QUEUES queues).
    """

    def __init__(self, cluster: Cluster, topic: str, pace_s: float = 0.02) -> None:
        cluster.create_topic(topic, QUEUES)
        self.cluster = cluster
        self.topic = topic
        self.pace_s = pace_s
        self.unknown: set[str] = set()
        self._statuses: Counter[str] = Counter()
        self.failure: BaseException | None = None
        self._acked: list[Ack] = []
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"producer-{topic}", daemon=True)

    def __enter__(self) -> Producer:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=30)
        assert not self._thread.is_alive(), "the producer did not stop"
        assert self.failure is None, f"the producer failed: {self.failure!r}"

    def acked(self) -> list[Ack]:
        with self._lock:
            return list(self._acked)

    def statuses(self) -> dict[str, int]:
        with self._lock:
            return dict(self._statuses)

    def _count(self, status: str) -> None:
        with self._lock:
            self._statuses[status] += 1

    def wait_for(
        self,
        count: int,
        pred: Callable[[Ack], bool] = lambda _a: True,
        timeout: float = 60,
        what: str = "acknowledged messages",
    ) -> None:
        def enough() -> bool:
            assert self.failure is None, f"the producer failed: {self.failure!r}"
            return sum(map(pred, self.acked())) >= count

        wait_until(enough, timeout, f"{count} {what} (statuses so far: {self.statuses()})")

    def _master_address(self) -> str | None:
        with ControllerClient(self.cluster.controllers, timeout=2.0) as client:
            reply = client.call("GetSyncStateData", pb.GetSyncStateDataRequest(broker_names=[BROKER]))
        info = reply.replicas_info[0] if reply.replicas_info else None
        return str(info.master_address) if info is not None and info.HasField("master_address") else None

    def _run(self) -> None:
        try:
            self._loop()
        except BaseException as exc:  # reported by stop() and wait_for()
            self.failure = exc

    def _loop(self) -> None:
        agents = AgentClient(timeout=5.0)
        address: str | None = None
        seq = 0
        try:
            while not self._stopped.is_set():
                if address is None:
                    try:
                        address = self._master_address()
                    except MqError:
                        address = None
                    if address is None:
                        self._stopped.wait(0.1)
                        continue
                body = f"{self.topic}-{seq}"
                message = apb.Message(topic=self.topic, queue_id=-1, body=body.encode())
                request = apb.SendMessageRequest(broker=apb.BrokerRef(broker_name=BROKER), message=message)
                try:
                    r = agents.call(address, "SendMessage", request)
                except MqError:
                    self._count("UNREACHABLE")
                    self.unknown.add(body)  # the broker may still have stored it
                    seq += 1
                    agents.close()
                    agents = AgentClient(timeout=5.0)  # fresh channels reconnect at once to a restarted broker
                    address = None
                    self._stopped.wait(0.1)
                    continue
                self._count(r.status or str(r.code))
                if r.code == C.SUCCESS:
                    placed = r.results[0]
                    with self._lock:
                        self._acked.append(Ack(body, placed.commit_log_offset, r.master_epoch, r.broker_id))
                    seq += 1
                    self._stopped.wait(self.pace_s)
                elif r.code in RETRIABLE:
                    hint = r.master_address
                    address = hint if hint and hint != address else None
                    self._stopped.wait(0.05)
                else:
                    self.unknown.add(body)
                    seq += 1
                    self._stopped.wait(0.05)
        finally:
            agents.close()


def assert_nothing_lost(cluster: Cluster, producer: Producer, timeout: float = 60) -> list[str]:
    """Every acknowledged message is readable from the current master exactly once; nothing unknown is read."""
    acked = {a.body for a in producer.acked()}
    assert len(acked) == len(producer.acked()), "the producer sent a body twice"

    def complete() -> list[str] | None:
        master = cluster.master()
        if master is None:
            return None
        bodies = read_topic(master.address, producer.topic)
        return bodies if acked <= set(bodies) else None

    bodies = wait_until(complete, timeout, f"all {len(acked)} acknowledged messages to be readable", interval=0.5)
    twice = sorted(b for b, n in Counter(bodies).items() if n > 1)
    assert not twice, f"read more than once: {twice[:10]}"
    strangers = set(bodies) - acked - producer.unknown
    assert not strangers, f"read but never sent: {sorted(strangers)[:10]}"
    return bodies


# --- fixtures ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    cli = Cli(tmp_path_factory.mktemp("transfer") / "sandbox")
    args = ["sandbox", "up", "--timeout", "120"]
    for key, value in CONTROLLER_CONF.items():
        args += ["--controller-conf", f"{key}={value}"]
    for key, value in BROKER_CONF.items():
        args += ["--broker-conf", f"{key}={value}"]
    try:
        up = cli.json(*args)
        controllers = ";".join(c["address"] for c in up["controllers"])
        cli.env["MQADMIN_CONTROLLERS"] = controllers
        made = Cluster(cli, controllers)
        try:
            yield made
        finally:
            made.close()
    finally:
        stopped = cli.json("sandbox", "down")
        pids = [p["pid"] for p in stopped["stopped"]]
        configs = list((cli.dir / "conf").rglob("*.conf"))
        assert not any(_pid_alive(pid, str(conf)) for pid in pids for conf in configs)


@pytest.fixture(autouse=True)
def restored(cluster: Cluster) -> Iterator[None]:
    """Every test leaves every process running and the set healthy, without preference, flag off."""
    try:
        yield
    finally:
        cluster.restore()


def entry(epochs: list[dict[str, Any]], epoch: int) -> dict[str, Any] | None:
    return next((e for e in epochs if e["epoch"] == epoch), None)


# --- 1. transferMaster with a producer running -------------------------------------------------------------


def test_transfer_moves_the_master_without_truncating_or_losing_anything(cluster: Cluster) -> None:
    before = cluster.healthy()
    old, target = before.broker_id, before.slaves()[0]
    target_address = cluster.address_of(target)
    old_log = Path(next(a.logFile for a in cluster.box.agents() if a.id == cluster.agent_of(old)))
    log_mark = old_log.stat().st_size
    with Producer(cluster, "t1-transfer") as producer:
        producer.wait_for(20)
        moved = cluster.cli.json("transferMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(target))
        assert (moved["state"], moved["allowed"], moved["dryRun"], moved["reason"]) == ("done", True, False, None)
        t = moved["transfer"]
        assert (t["state"], t["trigger"], t["fromBrokerId"], t["toBrokerId"]) == ("done", "admin", old, target)
        assert (t["fromMasterEpoch"], t["toMasterEpoch"]) == (before.epoch, before.epoch + 1)
        assert (moved["masterBrokerId"], moved["masterEpoch"]) == (target, before.epoch + 1)
        final = t["finalOffset"]
        assert final is not None and final > 0
        producer.wait_for(20, lambda a: a.epoch == before.epoch + 1, what="acknowledgements in the new epoch")
    acks = producer.acked()
    assert all(a.broker_id == old and a.commit_offset < final for a in acks if a.epoch == before.epoch)
    assert all(a.broker_id == target and a.commit_offset >= final for a in acks if a.epoch == before.epoch + 1)
    assert {a.epoch for a in acks} == {before.epoch, before.epoch + 1}

    after = cluster.master()
    assert after is not None and (after.broker_id, after.epoch) == (target, before.epoch + 1)

    def follows() -> dict[str, Any] | None:
        (doc,) = cluster.cli.json("haStatus", "-b", before.address)
        return doc if doc["role"] == "slave" and doc["connected"] else None

    slave = wait_until(follows, 30, f"the old master {old} to replicate from the new one", interval=0.3)
    assert (slave["brokerId"], slave["masterAddress"], slave["masterEpoch"]) == (old, target_address, after.epoch)

    def replicated() -> list[dict[str, Any]] | None:
        docs = cluster.cli.json("getBrokerEpoch", "-b", BROKER)
        ok = all(d["reachable"] and d["maxOffset"] >= final and entry(d["epochs"], after.epoch) for d in docs)
        return docs if ok and len(docs) == 3 else None

    for doc in wait_until(replicated, 30, "every replica past the final offset, in the new epoch", interval=0.3):
        new, previous = entry(doc["epochs"], after.epoch), entry(doc["epochs"], before.epoch)
        assert new is not None and new["startOffset"] == final, doc
        assert previous is not None and previous["endOffset"] == final, doc
    with old_log.open("rb") as f:
        f.seek(log_mark)
        assert b"truncating the local log" not in f.read(), "the old master truncated its log"

    assert_nothing_lost(cluster, producer)
    last = cluster.sync_state_doc()["lastTransfer"]
    assert last is not None and last["state"] == "done" and last["reason"] is None
    assert (last["fromBrokerId"], last["toBrokerId"], last["toMasterEpoch"], last["finalOffset"]) == (
        old,
        target,
        after.epoch,
        final,
    )


# --- 2. dry run -------------------------------------------------------------------------------------------


def test_dry_run_changes_nothing_and_names_the_reason_for_a_refusal(cluster: Cluster) -> None:
    before = cluster.healthy()
    doc_before = cluster.sync_state_doc()
    target = before.slaves()[0]
    dry = cluster.cli.json("transferMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(target), "--dry-run")
    assert (dry["dryRun"], dry["allowed"], dry["state"], dry["transfer"]) == (True, True, None, None)
    assert dry["reason"] is None
    assert (dry["masterBrokerId"], dry["masterEpoch"], dry["brokerId"]) == (before.broker_id, before.epoch, target)
    assert not any("preferred" in w for w in dry["warnings"]), dry["warnings"]
    doc_after = cluster.sync_state_doc()
    for key in ("masterBrokerId", "masterEpoch", "syncStateSetEpoch", "lastTransfer"):
        assert doc_after[key] == doc_before[key], key

    reason = f"broker 9 is not registered in broker set {BROKER} (registered ids: 1, 2, 3)"
    args = ("transferMaster", "-c", CLUSTER, "-bn", BROKER, "-b", "9", "--dry-run", "-o", "json")
    refused = cluster.cli(*args, ok=False)
    assert refused.returncode == 4, refused
    doc = json.loads(refused.stdout)
    assert (doc["allowed"], doc["reason"], doc["transfer"]) == (False, reason, None)
    assert reason in refused.stderr
    # The current master: a no-op with exit 0, dry run or not, as electMaster.
    noop = f"broker {before.broker_id} is already the master of {BROKER} (masterEpoch {before.epoch}); nothing to do"
    for extra in (("--dry-run",), ()):
        args = ("transferMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(before.broker_id), *extra)
        doc = cluster.cli.json(*args)
        assert (doc["alreadyMaster"], doc["allowed"], doc["reason"], doc["transfer"]) == (True, True, noop, None)
    unknown_set = cluster.cli("transferMaster", "-c", CLUSTER, "-bn", "no-such-set", "-b", "1", "--dry-run", ok=False)
    assert unknown_set.returncode == 1 and "2008" in unknown_set.stderr
    after = cluster.master()
    assert after is not None and (after.broker_id, after.epoch) == (before.broker_id, before.epoch)
    assert cluster.sync_state_doc()["syncStateSetEpoch"] == doc_before["syncStateSetEpoch"]


# --- 3. a preferred broker that was down when assigned -------------------------------------------------


def test_a_preferred_broker_that_comes_back_last_catches_up_and_becomes_master(cluster: Cluster) -> None:
    before = cluster.healthy()
    preferred = before.slaves()[-1]
    agent = cluster.agent_of(preferred)
    cluster.set_preferred_master(True)
    with Producer(cluster, "t3-preferred-returns") as producer:
        producer.wait_for(10)
        cluster.cli("sandbox", "stop", agent)

        def dead() -> bool:
            return not any(r.alive for r in replicas(cluster.info()) if r.broker_id == preferred)

        wait_until(dead, 30, f"broker {preferred} to be dead on the leader")
        assigned = cluster.cli.json("assign-preferred-master", "-c", CLUSTER, "-bn", BROKER, "-b", str(preferred))
        assert (assigned["preferredBrokerId"], assigned["changed"], assigned["preferredMasterEnabled"]) == (
            preferred,
            True,
            True,
        )
        blocked = cluster.sync_state_doc()["preferredMasterBlockedBy"]
        assert blocked is not None and f"broker {preferred} of {BROKER} is not alive" in blocked
        acked = len(producer.acked())
        producer.wait_for(acked + 10, what="acknowledgements while the preferred broker is down")
        still = cluster.master()
        assert still is not None and still.broker_id == before.broker_id, "a dead preferred broker took over"

        cluster.cli("sandbox", "start", agent)
        moved = cluster.wait_master(lambda m: m.broker_id == preferred, 90, f"broker {preferred} to become master")
        assert moved.epoch > before.epoch
        producer.wait_for(
            10,
            lambda a: a.broker_id == preferred and a.epoch == moved.epoch,
            what="acknowledgements from the preferred master",
        )
    last = cluster.last_transfer(lambda t: t["state"] != "running")
    assert (last["state"], last["trigger"], last["toBrokerId"], last["toMasterEpoch"]) == (
        "done",
        "preferred",
        preferred,
        moved.epoch,
    )
    doc = cluster.sync_state_doc()
    assert (doc["preferredBrokerId"], doc["preferredMasterBlockedBy"]) == (preferred, None)
    assert_nothing_lost(cluster, producer)


# --- 4. the preferred master killed and restarted -------------------------------------------------------


def test_a_killed_preferred_master_gets_the_role_back_after_its_restart(cluster: Cluster) -> None:
    before = cluster.healthy()
    preferred = before.slaves()[0]
    agent = cluster.agent_of(preferred)
    cluster.set_preferred_master(True)
    cluster.cli("assign-preferred-master", "-c", CLUSTER, "-bn", BROKER, "-b", str(preferred))
    first = cluster.wait_master(lambda m: m.broker_id == preferred, 60, f"broker {preferred} to become master")
    cluster.healthy()
    with Producer(cluster, "t4-preferred-killed") as producer:
        producer.wait_for(10, lambda a: a.broker_id == preferred, what="acknowledgements from the preferred master")
        killed = cluster.cli.json("sandbox", "kill", agent)
        assert killed["id"] == agent
        other = cluster.wait_master(lambda m: m.broker_id != preferred, 60, "another broker to be elected")
        assert other.epoch > first.epoch
        producer.wait_for(10, lambda a: a.epoch == other.epoch, what="acknowledgements from the elected broker")

        cluster.cli("sandbox", "start", agent)
        back = cluster.wait_master(lambda m: m.broker_id == preferred, 90, f"broker {preferred} to be master again")
        assert back.epoch > other.epoch
        producer.wait_for(10, lambda a: a.epoch == back.epoch, what="acknowledgements after the move back")
    last = cluster.last_transfer(lambda t: t["state"] != "running")
    assert (last["state"], last["trigger"], last["fromBrokerId"], last["toBrokerId"]) == (
        "done",
        "preferred",
        other.broker_id,
        preferred,
    )
    assert_nothing_lost(cluster, producer)


# --- 5. a target that cannot catch up in time -------------------------------------------------------------


def test_a_target_that_cannot_catch_up_aborts_and_the_old_master_writes_again(cluster: Cluster) -> None:
    before = cluster.healthy()
    target = before.slaves()[0]
    agent = cluster.agent_of(target)
    topic = "t5-abort"
    cluster.create_topic(topic, QUEUES)
    in_flight: list[apb.SendMessageResponse | MqError] = []

    def send_in_flight() -> None:
        try:
            in_flight.append(send(before.address, topic, "in-flight"))
        except MqError as exc:
            in_flight.append(exc)

    cluster.signal(agent, signal.SIGSTOP)
    try:
        # A put the stopped target cannot acknowledge: the master's final offset is past the target's ack.
        sender = threading.Thread(target=send_in_flight, name="in-flight")
        sender.start()

        def target_ack() -> int | None:
            r = ha_status(before.address)
            ack = next((s.ack_offset for s in r.slaves if s.broker_id == target), None)
            return ack if ack is not None and r.max_offset > ack else None

        wait_until(target_ack, 10, "the master to hold data the stopped target has not acknowledged")
        args = ("transferMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(target), "--timeout", "0.5", "-o", "json")
        result = cluster.cli(*args, ok=False)
        ack = target_ack()  # frozen while the target is stopped
    finally:
        cluster.signal(agent, signal.SIGCONT)
    assert result.returncode == 1, result
    doc = json.loads(result.stdout)
    t = doc["transfer"]
    assert (doc["state"], t["state"], t["fromBrokerId"], t["toBrokerId"]) == (
        "aborted",
        "aborted",
        before.broker_id,
        target,
    )
    reason = f"broker {target} acknowledged {ack}, not the final offset {t['finalOffset']}, within 500 ms"
    assert (doc["reason"], t["reason"], t["toMasterEpoch"]) == (reason, reason, None)
    assert "aborted" in result.stderr and reason in result.stderr
    assert (doc["masterBrokerId"], doc["masterEpoch"]) == (before.broker_id, before.epoch)

    first = send(before.address, topic, "after-abort-0")
    assert first.code != C.SERVICE_NOT_AVAILABLE and first.status != "MASTER_TRANSFERRING", first
    responses = [first]

    def acknowledged() -> bool:
        if responses[-1].code == C.SUCCESS:
            return True
        responses.append(send(before.address, topic, f"after-abort-{len(responses)}"))
        return False

    # The resumed target may still be catching up: the write is admitted at once, its acknowledgement may lag.
    wait_until(acknowledged, 30, "a write acknowledged by the old master")
    assert all((r.broker_id, r.master_epoch) == (before.broker_id, before.epoch) for r in responses), responses
    sender.join(timeout=30)
    assert in_flight and not isinstance(in_flight[0], MqError), in_flight
    assert in_flight[0].code in (C.SUCCESS, C.FLUSH_SLAVE_TIMEOUT), in_flight

    last = cluster.sync_state_doc()["lastTransfer"]
    assert last is not None and (last["state"], last["reason"], last["toBrokerId"]) == ("aborted", reason, target)
    assert (last["fromMasterEpoch"], last["toMasterEpoch"], last["finalOffset"]) == (
        before.epoch,
        None,
        t["finalOffset"],
    )
    after = cluster.master()
    assert after is not None and (after.broker_id, after.epoch) == (before.broker_id, before.epoch)


# --- 6. the controller leader killed during a transfer -------------------------------------------------


def test_a_leader_killed_during_a_transfer_leaves_one_master_and_writes_resume(cluster: Cluster) -> None:
    before = cluster.healthy()
    target = before.slaves()[0]
    agent = cluster.agent_of(target)
    leader = cluster.leader_id()
    probe = "t6-probe"
    cluster.create_topic(probe, QUEUES)
    with Producer(cluster, "t6-leader-killed") as producer:
        producer.wait_for(10)
        cluster.signal(agent, signal.SIGSTOP)
        stopped, transfer = True, None
        try:

            def master_ahead() -> bool:
                r = ha_status(before.address)
                return any(s.broker_id == target and s.ack_offset < r.max_offset for s in r.slaves)

            wait_until(master_ahead, 10, "the master to hold data the stopped target has not acknowledged")
            args = ("transferMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(target), "--timeout", "3", "-o", "json")
            transfer = subprocess.Popen(
                cluster.cli.command(*args),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=ROOT,
                env=cluster.cli.env,
            )

            def paused() -> bool:  # the master refuses at once while it waits for the target
                r = send(before.address, probe, "probe", timeout=0.5)
                return bool(r.status == "MASTER_TRANSFERRING" and r.master_address == cluster.address_of(target))

            wait_until(paused, 15, "the master to pause writes for the transfer")
            acked_at_kill = len(producer.acked())
            cluster.signal(leader, signal.SIGKILL)
            cluster.signal(agent, signal.SIGCONT)
            stopped = False
            out, err = transfer.communicate(timeout=90)
            assert "Traceback" not in err, err
            # The CLI either lost its answer (no leader: 5), or the new leader ran the request again (0, 1, 4).
            assert transfer.returncode in (0, 1, 4, 5), (transfer.returncode, out, err)

            producer.wait_for(acked_at_kill + 10, timeout=90, what="acknowledgements after the leader was killed")
        finally:
            if stopped:
                cluster.signal(agent, signal.SIGCONT)
            if transfer is not None and transfer.poll() is None:
                transfer.kill()
                transfer.communicate()

    def one_master() -> tuple[Master, list[apb.HostedBroker]] | None:
        master = cluster.master()
        hosted: list[apb.HostedBroker] = []
        for a in cluster.box.agents():
            with AgentClient(timeout=3.0) as agents:
                hosted.extend(
                    b
                    for b in agents.call(a.address, "ListBrokers", apb.ListBrokersRequest()).brokers
                    if b.broker_name == BROKER
                )
        masters = [b for b in hosted if b.role == "master"]
        if master is None or len(hosted) != 3 or len(masters) != 1:
            return None
        agreed = (masters[0].broker_id, masters[0].master_epoch) == (master.broker_id, master.epoch)
        return (master, hosted) if agreed else None

    master, hosted = wait_until(one_master, 60, "exactly one broker reporting the master role", interval=0.3)
    assert master.broker_id in (before.broker_id, target)
    assert sorted(b.role for b in hosted) == ["master", "slave", "slave"]
    assert_nothing_lost(cluster, producer)

    cluster.cli("sandbox", "start", leader)
    node = next(c for c in cluster.box.controllers() if c.id == leader)
    wait_until(partial(leader_known, node.address), 60, f"the restarted {leader} to know the leader")


# --- 7. clearing the preference ----------------------------------------------------------------------------


def test_clearing_the_preference_stops_the_scan_moving_the_master(cluster: Cluster) -> None:
    before = cluster.healthy()
    preferred, other = before.slaves()
    transfer = ("transferMaster", "-c", CLUSTER, "-bn", BROKER)
    cluster.set_preferred_master(True)
    cluster.cli("assign-preferred-master", "-c", CLUSTER, "-bn", BROKER, "-b", str(preferred))
    cluster.wait_master(lambda m: m.broker_id == preferred, 60, f"the scan to make broker {preferred} master")
    cluster.healthy()

    # Control: while the preference stands, a transfer away from it is undone by the scan.
    dry = cluster.cli.json(*transfer, "-b", str(other), "--dry-run")
    assert dry["allowed"] and any(f"preferred master of {BROKER} is broker {preferred}" in w for w in dry["warnings"])
    assert cluster.cli.json(*transfer, "-b", str(other))["state"] == "done"
    back = cluster.wait_master(lambda m: m.broker_id == preferred, 60, "the scan to move the master back")
    last = cluster.sync_state_doc()["lastTransfer"]
    assert (last["trigger"], last["fromBrokerId"], last["toBrokerId"]) == ("preferred", other, preferred)
    cluster.healthy()

    cleared = cluster.cli.json("assign-preferred-master", "-c", CLUSTER, "-bn", BROKER, "--clear")
    assert (cleared["previousPreferredBrokerId"], cleared["preferredBrokerId"]) == (preferred, None)
    moved = cluster.cli.json(*transfer, "-b", str(other))
    assert (moved["state"], moved["masterBrokerId"], moved["masterEpoch"]) == ("done", other, back.epoch + 1)
    cluster.healthy()
    window = (10 * SCAN_MS + MIN_INTERVAL_MS) / 1000  # ten scans past the minimum interval
    deadline = time.monotonic() + window
    while time.monotonic() < deadline:
        now = cluster.master()
        assert now is not None and (now.broker_id, now.epoch) == (other, back.epoch + 1), now
        time.sleep(0.2)
    doc = cluster.sync_state_doc()
    assert (doc["preferredBrokerId"], doc["preferredMasterBlockedBy"]) == (None, None)
    assert (doc["lastTransfer"]["trigger"], doc["lastTransfer"]["toBrokerId"]) == ("admin", other)


# --- 8. the write pause and its lease at the agent --------------------------------------------------------


def test_prepare_transfer_pauses_writes_until_the_lease_then_the_master_asks_and_resumes(cluster: Cluster) -> None:
    before = cluster.healthy()
    target = before.slaves()[0]
    target_address = cluster.address_of(target)
    topic = "t8-lease"
    cluster.create_topic(topic, QUEUES)
    ref = apb.BrokerRef(broker_name=BROKER, broker_id=before.broker_id)

    def prepare(epoch: int, token: str, lease_millis: int) -> apb.PrepareTransferResponse:
        request = apb.PrepareTransferRequest(
            broker=ref,
            target_broker_id=target,
            target_address=target_address,
            master_epoch=epoch,
            timeout_millis=500,
            lease_millis=lease_millis,
            token=token,
        )
        with AgentClient(timeout=10.0) as agents:
            response: apb.PrepareTransferResponse = agents.call(before.address, "PrepareTransfer", request)
        return response

    def resume(token: str) -> apb.AgentResponse:
        with AgentClient(timeout=5.0) as agents:
            response: apb.AgentResponse = agents.call(
                before.address, "ResumeWrites", apb.ResumeWritesRequest(broker=ref, token=token)
            )
        return response

    wrong = prepare(before.epoch + 7, uuid.uuid4().hex, 1500)
    assert wrong.code == C.CONTROLLER_FENCED_MASTER_EPOCH, wrong
    assert f"is master in epoch {before.epoch}, not {before.epoch + 7}" in wrong.remark
    unknown = resume("no-such-token")
    assert (unknown.code, unknown.remark) == (C.SUCCESS, "no write pause with this token")
    assert send(before.address, topic, "before").code == C.SUCCESS, "a refused PrepareTransfer paused writes"

    ready = prepare(before.epoch, uuid.uuid4().hex, 1500)
    assert ready.code == C.SUCCESS, ready
    assert ready.final_offset > 0 and ready.target_ack_offset >= ready.final_offset
    refused = send(before.address, topic, "refused")
    assert (refused.code, refused.status, refused.master_address) == (
        C.SERVICE_NOT_AVAILABLE,
        "MASTER_TRANSFERRING",
        target_address,
    )
    assert (refused.broker_id, refused.master_epoch) == (before.broker_id, before.epoch)

    responses: list[apb.SendMessageResponse] = []

    def accepted() -> bool:
        responses.append(send(before.address, topic, f"after-lease-{len(responses)}"))
        return bool(responses[-1].code == C.SUCCESS)

    wait_until(accepted, 60, "the master to accept writes once its lease ran out", interval=0.1)
    assert all(r.code == C.SERVICE_NOT_AVAILABLE for r in responses[:-1]), responses
    ok = responses[-1]
    assert (ok.broker_id, ok.master_epoch) == (before.broker_id, before.epoch), "resumed in another epoch"
    assert ok.results[0].commit_log_offset == ready.final_offset, "something was written during the pause"
    now = cluster.master()
    assert now is not None and (now.broker_id, now.epoch) == (before.broker_id, before.epoch), "a broker was elected"

    # ResumeWrites with the pause's own token ends it at once, long before its lease.
    token = uuid.uuid4().hex
    assert prepare(before.epoch, token, 60_000).code == C.SUCCESS
    assert send(before.address, topic, "paused-again").status == "MASTER_TRANSFERRING"
    resumed = resume(token)
    assert (resumed.code, resumed.remark) == (C.SUCCESS, "")
    assert send(before.address, topic, "after-resume").code == C.SUCCESS
    wanted = sorted(["before", f"after-lease-{len(responses) - 1}", "after-resume"])
    wait_until(lambda: sorted(read_topic(before.address, topic)) == wanted, 30, f"exactly {wanted} to be readable")
