"""The scenarios every official RocketMQ 5 client is run through, and every check on what it reports.

A language's test module (``tests/clients/test_<language>.py``) subclasses ``ClientScenarios`` and names its
driver (tests/clients/README.md); the tests here run that driver as a real process against a sandbox of one
controller and one broker set of three replicas on three agents, and judge what it printed. Every client is given
one access point, as the clients' READMEs do, and, where the client takes one, the list of all of them.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest

from mqadmin_py.sandbox import Sandbox
from mqbase.client import AgentClient, ControllerClient
from mqbase.proto import agent_pb2 as apb
from mqbase.proto import controller_pb2 as cpb
from tests.harness.client_build import build, missing_tools, required
from tests.harness.processes import stop_process
from tests.harness.sandbox import CLUSTER, Cluster, all_up, serving_sandbox
from tests.harness.wait import wait_until

UNSUPPORTED = 3
QUEUES = 4
"""Read and write queues of every scenario topic."""
"""The driver's exit when the client's API lacks the step (tests/clients/README.md)."""

TOPICS = {"Sends": "NORMAL", "Invisible": "NORMAL", "Push": "NORMAL", "Fifo": "FIFO", "Delay": "DELAY",
          "Tx": "TRANSACTION", "Failover": "NORMAL"}  # fmt: skip
GROUPS = {"GID_sends": False, "GID_invisible": False, "GID_push": False, "GID_dlq": False, "GID_fifo": True,
          "GID_delay": False, "GID_tx": False, "GID_failover": False}  # fmt: skip
"""Group → consume orderly. ``GID_push`` retries once, 1 s after a failure, then dead-letters."""
FAST_RETRY_MS = 1000


@dataclass
class Run:
    """One driver process: the JSON lines it printed so far (read on a thread), its exit code once it ended."""

    proc: subprocess.Popen[str]
    lines: list[dict[str, Any]] = field(default_factory=list)
    stderr: str = ""
    readers: list[threading.Thread] = field(default_factory=list)

    def ops(self, op: str) -> list[dict[str, Any]]:
        return [line for line in list(self.lines) if line["op"] == op]

    def wait(self, timeout: float) -> int:
        """The exit code, once every line it printed is read."""
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            stop_process(self.proc)
            raise AssertionError(f"the driver did not finish in {timeout:g} s; it printed {self.lines[-5:]}") from None
        finally:
            for reader in self.readers:
                reader.join(10)
        return code

    def finished(self, timeout: float) -> Run:
        """Wait for the end; the driver must have ended well and said done."""
        code = self.wait(timeout)
        if code == UNSUPPORTED:
            pytest.skip(self.stderr.strip().splitlines()[-1] if self.stderr.strip() else "unsupported by the client")
        assert code == 0, f"driver exited {code}: {self.stderr[-2000:]}"
        assert self.lines and self.lines[-1]["op"] == "done", self.lines[-5:]
        return self


class Driver:
    """One official client's driver program."""

    def __init__(self, executable: Path) -> None:
        self.executable = executable

    def start(self, command: str, endpoints: str, topic: str, *options: str) -> Run:
        proc = subprocess.Popen(
            [str(self.executable), command, "--endpoints", endpoints, "--topic", topic, *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        run = Run(proc)

        def read_stdout() -> None:
            assert proc.stdout is not None
            with proc.stdout:
                for text in proc.stdout:
                    if text.strip():
                        run.lines.append(json.loads(text))  # anything but a JSON line on stdout: the driver's bug

        def read_stderr() -> None:
            assert proc.stderr is not None
            with proc.stderr:
                run.stderr = proc.stderr.read()

        run.readers = [threading.Thread(target=t, daemon=True) for t in (read_stdout, read_stderr)]
        for reader in run.readers:
            reader.start()
        return run

    def run(self, command: str, endpoints: str, topic: str, *options: str, timeout: float = 120) -> Run:
        return self.start(command, endpoints, topic, *options).finished(timeout)


def driver_for(language: str) -> Driver:
    """The language's driver, built now if needed; the tests skip when its toolchain is missing (fail in CI)."""
    if missing := missing_tools(language):
        message = f"{language} client: {', '.join(missing)} not installed"
        if required():
            pytest.fail(message + " (MQADMIN_REQUIRE_CLIENTS=1)")
        pytest.skip(message)
    return Driver(build(language))


def scenario_sandbox(directory: Path) -> Iterator[Sandbox]:
    """The sandbox of one language's scenarios, its topics and groups learnt by every broker (made through the
    controller API: a CLI process each costs seconds on a loaded machine; the CLI has tests of its own)."""
    with serving_sandbox(directory, controllers=1, replicas=3) as sandbox, ControllerClient(sandbox.addresses()) as c:
        answers = []
        for topic, kind in TOPICS.items():
            request = cpb.UpdateTopicRequest(
                cluster_name=CLUSTER, topic_name=topic, read_queue_nums=4, write_queue_nums=4
            )
            request.attributes.append(f"+message.type={kind}")
            answers.append(c.call("UpdateTopic", request))
        for group, orderly in GROUPS.items():
            request = cpb.UpdateSubscriptionGroupRequest(
                cluster_name=CLUSTER, group_name=group, consume_orderly=orderly
            )
            if group == "GID_push":
                request.retry_max_times = 1
                request.retry_policy.customized.next_ms.append(FAST_RETRY_MS)
            answers.append(c.call("UpdateSubscriptionGroup", request))
        assert all(a.code == 0 for a in answers), [a.remark for a in answers if a.code]
        version = max(a.metadata_version for a in answers)
        wait_until(lambda: learnt(sandbox, version), 60, "every broker to learn the topics and groups")
        yield sandbox


def learnt(box: Sandbox, version: int) -> bool:
    """Whether every broker of every agent has learnt metadata `version` (or a later one)."""
    with AgentClient(timeout=5.0) as agents:
        listed = [agents.call(a.address, "ListBrokers", apb.ListBrokersRequest()) for a in box.agents()]
    return all(b.metadata_version >= version for answer in listed for b in answer.brokers)


def sent_ids(run: Run) -> dict[str, int]:
    """Message id → seq of every acknowledged send; no send may have failed."""
    failed = [line for line in run.ops("send") if not line["ok"]]
    assert not failed, f"{len(failed)} send(s) failed: {failed[:3]}"
    return {line["id"]: line["seq"] for line in run.ops("send")}


def stored_copies(address: str, topic: str) -> Counter[str]:
    """How many times each message id is stored in `topic` on the broker at `address` (its master)."""
    copies: Counter[str] = Counter()
    with AgentClient(timeout=10.0) as agents:
        for queue_id in range(QUEUES):
            offset = 0
            while True:
                request = apb.PullMessageRequest(topic=topic, queue_id=queue_id, queue_offset=offset, max_messages=64)
                answer = agents.call(address, "PullMessage", request)
                assert answer.code == 0, answer
                copies.update(m.message.properties["UNIQ_KEY"] for m in answer.messages)
                if not answer.messages:
                    break
                offset = answer.next_offset
    return copies


def received_once(run: Run, expected: set[str], copies: Counter[str] | None = None) -> list[dict[str, Any]]:
    """The first delivery of each message; every expected id was received and acked, nothing else came, and
    nothing came back once acked. A message whose ack did not reach the broker may come back after its
    invisibility with a higher attempt (at least once, as RocketMQ promises): allowed, and listed on stderr.
    `copies`: how often each id is stored (a send in flight at a failover may be stored twice: at least once);
    each copy is delivered and acked on its own, so an id comes back only while it has copies not acked."""
    acked: Counter[str] = Counter()
    first: dict[str, dict[str, Any]] = {}
    attempts: dict[str, list[int]] = defaultdict(list)
    lines = list(run.lines)
    for line in lines:
        if line["op"] == "receive":
            stored = copies[line["id"]] if copies is not None else 1
            assert acked[line["id"]] < stored, (
                f"delivered again once acked: {[x for x in lines if x.get('id') == line['id']]}"
            )
            first.setdefault(line["id"], line)
            attempts[line["id"]].append(line["attempt"])
        elif line["op"] == "ack" and line["ok"]:
            acked[line["id"]] += 1
    got = set(first)
    assert got == expected, f"missing {sorted(expected - got)[:5]}, unexpected {sorted(got - expected)[:5]}"
    assert set(acked) == expected
    again = {i: a for i, a in attempts.items() if len(a) > (copies[i] if copies is not None else 1)}
    if again:
        print(f"redelivered (an ack or a receive answer lost): {again}", file=sys.stderr)
    return list(first.values())


class ClientScenarios:
    """The scenarios; a subclass per language sets ``language`` (and ``client_bugs``). The fixtures they use
    (``driver``, ``box``, ``cluster``: one sandbox per class) are in tests/clients/conftest.py."""

    language: ClassVar[str]
    client_bugs: ClassVar[dict[str, str]] = {}
    """Test name (with its parameters, as pytest names it) → the client bug that makes it fail, recorded in
    docs/clients.md: such a test is expected to fail, strictly (a client release that fixes it turns it red)."""

    @staticmethod
    def one(box: Sandbox) -> str:
        """One access point: the first agent's."""
        return box.agents()[0].proxyAddress

    # --- the scenarios ------------------------------------------------------------------------------------

    def test_sync_and_async_sends_are_each_received_and_acked_once(self, driver: Driver, box: Sandbox) -> None:
        sync = sent_ids(driver.run("produce", self.one(box), "Sends", "--count", "20", "--prefix", "sync"))
        many = sent_ids(driver.run("produce", self.one(box), "Sends", "--count", "40", "--mode", "async",
                                   "--prefix", "async", "--tag", "TagA"))  # fmt: skip
        assert len(sync) == 20 and len(many) == 40
        got = driver.run("receive", self.one(box), "Sends", "--group", "GID_sends", "--count", "60")
        lines = received_once(got, set(sync) | set(many))
        for line in lines:
            seq = sync.get(line["id"], many.get(line["id"]))
            prefix = "sync" if line["id"] in sync else "async"
            assert (line["body"], line["keys"], line["attempt"]) == (f"{prefix}-{seq}", [f"{prefix}-{seq}"], 1)
            assert line["tag"] == ("TagA" if prefix == "async" else None)

    def test_a_changed_invisible_duration_brings_the_message_back_once(self, driver: Driver, box: Sandbox) -> None:
        sent = sent_ids(driver.run("produce", self.one(box), "Invisible", "--count", "5"))
        got = driver.run("receive", self.one(box), "Invisible", "--group", "GID_invisible", "--count", "5",
                         "--change-invisible-first")  # fmt: skip
        (changed,) = got.ops("change_invisible")
        assert changed["ok"], changed
        deliveries = [line for line in got.ops("receive") if line["id"] == changed["id"]]
        assert [d["attempt"] for d in deliveries] == [1, 2]
        again = Counter(line["id"] for line in got.ops("receive") if line["id"] != changed["id"])
        assert set(again) == set(sent) - {changed["id"]} and set(again.values()) == {1}
        assert {line["id"] for line in got.ops("ack") if line["ok"]} == set(sent)

    def test_a_push_consumer_retries_a_failure_and_dead_letters_what_keeps_failing(
        self, driver: Driver, box: Sandbox, cluster: Cluster
    ) -> None:
        plain = sent_ids(driver.run("produce", self.one(box), "Push", "--count", "3", "--prefix", "plain"))
        retried = sent_ids(driver.run("produce", self.one(box), "Push", "--count", "1", "--prefix", "retry",
                                      "--tag", "retry"))  # fmt: skip
        failing = sent_ids(driver.run("produce", self.one(box), "Push", "--count", "1", "--prefix", "fail",
                                      "--tag", "fail"))  # fmt: skip
        pushed = driver.run("push", self.one(box), "Push", "--group", "GID_push", "--seconds", "10",
                            "--retry-tag", "retry", "--fail-tag", "fail", timeout=60)  # fmt: skip
        calls: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for line in pushed.ops("consume"):
            calls[line["id"]].append((line["attempt"], line["result"]))
        assert {i: calls[i] for i in plain} == {i: [(1, "SUCCESS")] for i in plain}
        assert {i: calls[i] for i in retried} == {i: [(1, "FAILURE"), (2, "SUCCESS")] for i in retried}
        assert {i: calls[i] for i in failing} == {i: [(1, "FAILURE"), (2, "FAILURE")] for i in failing}
        dlq = "%DLQ%GID_push"

        def created() -> dict[str, Any] | None:
            return next(
                (t for t in cluster.cli.json("topicList", "-c", CLUSTER)["topics"] if t["topicName"] == dlq), None
            )

        topic = wait_until(created, 30, f"the broker to create {dlq}")
        shape = (topic["brokerNames"], topic["readQueueNums"], topic["writeQueueNums"], topic["perm"])
        assert shape == (["broker-a"], 1, 1, 6)  # Java's DLQ_NUMS_PER_GROUP, read and write
        dead = driver.run("receive", self.one(box), dlq, "--group", "GID_dlq", "--count", "1")
        assert [(line["id"], line["body"], line["attempt"]) for line in received_once(dead, set(failing))] == [
            (next(iter(failing)), "fail-0", 1)
        ]

    def test_fifo_messages_are_consumed_in_order_within_each_message_group(self, driver: Driver, box: Sandbox) -> None:
        sent = sent_ids(driver.run("produce", self.one(box), "Fifo", "--count", "30", "--message-groups", "3"))
        pushed = driver.run("push", self.one(box), "Fifo", "--group", "GID_fifo", "--seconds", "8", timeout=60)
        order: dict[str, list[int]] = defaultdict(list)
        for line in pushed.ops("consume"):
            assert line["result"] == "SUCCESS" and line["attempt"] == 1, line
            order[line["message_group"]].append(sent[line["id"]])
        assert order == {f"g{g}": list(range(g, 30, 3)) for g in range(3)}

    def test_delay_messages_are_received_once_and_not_before_their_time(self, driver: Driver, box: Sandbox) -> None:
        before = int(time.time() * 1000)
        sent = sent_ids(driver.run("produce", self.one(box), "Delay", "--count", "5", "--delay-ms", "3000"))
        got = driver.run("receive", self.one(box), "Delay", "--group", "GID_delay", "--count", "5")
        for line in received_once(got, set(sent)):
            assert line["delivery_ts"] is not None and line["delivery_ts"] >= before + 1000, line  # a second's grain
            assert line["at"] >= line["delivery_ts"], line

    def test_transactions_commit_roll_back_and_answer_check_backs(
        self, driver: Driver, box: Sandbox, cluster: Cluster
    ) -> None:
        """A committed transaction is delivered once, a rolled back one never, and one left open is asked back by
        the master (after transactionTimeOut, 6 s) and committed by the producer's checker."""
        run = driver.run("transact", self.one(box), "Tx", "--count", "3", "--decisions", "commit,rollback,none",
                         "--check-answer", "commit", "--seconds", "12", timeout=90)  # fmt: skip
        by_seq = {seq: i for i, seq in sent_ids(run).items()}
        assert sorted(by_seq) == [0, 1, 2]
        ends = {line["seq"]: line for line in run.ops("end")}
        assert sorted(ends) == [0, 1] and all(e["ok"] for e in ends.values()), ends
        assert {(line["id"], line["body"], line["answer"]) for line in run.ops("check")} == {
            (by_seq[2], "t-2", "commit")
        }
        copies = stored_copies(cluster.wait_master(lambda m: True, 30, "the master").address, "Tx")
        assert copies == Counter({by_seq[0]: 1, by_seq[2]: 1}), copies
        got = driver.run("receive", self.one(box), "Tx", "--group", "GID_tx", "--count", "2")
        lines = received_once(got, {by_seq[0], by_seq[2]})
        assert sorted(line["body"] for line in lines) == ["t-0", "t-2"]

    @pytest.mark.parametrize("listed", ["one", "all"])
    def test_a_sigkill_of_the_master_while_sending_fails_no_send_loses_nothing_and_brings_back_no_ack(
        self, listed: str, driver: Driver, box: Sandbox, cluster: Cluster
    ) -> None:
        master = all_up(box, cluster)
        victim = cluster.agent_of(master.broker_id)
        survivor = next(a for a in box.agents() if a.id != victim)
        endpoints = survivor.proxyAddress if listed == "one" else box.proxy_endpoints()
        sending = driver.start("produce", endpoints, "Failover", "--count", "200", "--interval-ms", "20",
                               "--prefix", listed)  # fmt: skip
        wait_until(lambda: len(sending.ops("send")) >= 40 or sending.proc.poll() is not None, 60, "40 sends")
        assert len(sending.ops("send")) >= 40, f"the producer ended first: {sending.finished(10).lines[-3:]}"
        box.signal(victim, signal.SIGKILL)
        cluster.wait_master(lambda m: m.broker_id != master.broker_id, 30, "a new master")
        sent = sent_ids(sending.finished(120))
        assert len(sent) == 200
        copies = stored_copies(cluster.wait_master(lambda m: True, 30, "the master").address, "Failover")
        assert all(copies[i] for i in sent)  # nothing acknowledged is lost
        twice = {i: n for i, n in copies.items() if n > 1 and i in sent}
        assert len(twice) <= 1, f"only the send in flight at the kill may be stored twice: {twice}"
        if twice:
            print(f"stored twice (the send in flight at the kill): {twice}", file=sys.stderr)
        got = driver.run("receive", endpoints, "Failover", "--group", "GID_failover", "--count", "200")
        received_once(got, set(sent), copies)  # for "all": none of the "one" run's, acked before this kill, came back
        left = Counter({i: copies[i] for i in sent}) - Counter(x["id"] for x in got.ops("ack") if x["ok"])
        if left:  # a second copy the receive stopped before: the group takes it now, so the next run starts clean
            rest = driver.run("receive", endpoints, "Failover", "--group", "GID_failover", "--count", str(len(left)),
                              "--idle-seconds", "10")  # fmt: skip
            assert Counter(x["id"] for x in rest.ops("ack") if x["ok"]) == left
