"""The clients of a chaos run, each a thread of the test process recording what it saw.

* ``Producer``: sends one message at a time to each set's master through the agents' real gRPC send path
  (``mqadmin sendMessage``'s ``_send_one``: it follows a refusing broker's hint, and retries only refusals
  that stored nothing), and records every PUT_OK. Every payload is unique and never re-sent after an
  ambiguous outcome, so a payload stored twice is a bug, not at-least-once delivery. Every ``DELAY_EVERY``th
  send to a set is a delayed message (``TIMER_DELIVER_MS`` 0.5–3 s ahead, payload ``<prefix>d<n>``), recorded as a
  ``DelayedSend`` whatever its outcome, never as an ``Ack``; a failover may deliver it twice, within invariant 8's
  bound. As many again, halfway between, are transactional (payload ``<prefix>t<n>``, a ``TransactionSend``): the
  half message, then a commit or a rollback held through failovers like a send, or no end at all (the producer
  "crashes" before it), left to the check-back.
* ``TransactionChecker``: the producer's answer to check-backs (what an official client's checker does, and the
  access point's relay takes for it): takes each set's due check-backs from its master (or acting replica) and
  ends each as the producer decided; a half whose send has not returned yet is left for its next check.
* ``Consumer``: every ``CONSUME_EVERY_S`` pulls, from a randomly chosen replica of each set (master or
  slave), whatever follows the offsets it has read so far, and records each message (invariant 5).
* ``GroupConsumer``: consumes the topic as the group ``GROUP`` (POP: receive, ack) on every set's master, found
  through the controllers (or, while they name none, the replica acting as master: ``ChaosCluster.acting_replica``)
  and followed through failovers (tests/harness/consumer_clients.py); some first deliveries
  are left unacked (they come back after ``GROUP_INVISIBLE_MS``) or made invisible for ``SHORT_INVISIBLE_MS`` only,
  and every answer goes to the set's ``Ledger`` (invariant 7). An ack that got no answer in time may have
  been done, so it is asked again (acks are idempotent). After healing, ``drain`` acks what is left.
* ``ControllerPoller``: asks every controller node directly (no redirect) for the sets' SyncStateSet data;
  the leader answers, followers refuse (NOT_LEADER); every answer is recorded (invariant 4). A node that
  answered is then asked each set's ``GetReplicaInfo`` (the transfer lease question), and every SUCCESS is
  recorded with when it was asked and answered (invariant 6).
"""

from __future__ import annotations

import random
import threading
import time
from functools import partial

from agents.delay.timer import TIMER_DELIVER_MS
from agents.metadata import UNIQ_KEY
from agents.transaction.half import TRAN_MSG, TransactionRef
from mqadmin_py.commands.messages import SendOutcomeDoc, _send_one, call_through
from mqbase.client import AgentClient, ControllerClient
from mqbase.errors import MqError
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import controller_pb2 as cpb
from tests.harness.chaos.cluster import AGENT_HOST, ChaosCluster
from tests.harness.chaos.history import (
    Ack,
    ControllerView,
    DelayedSend,
    LeaseAnswer,
    Recorder,
    Seen,
    TransactionEnd,
    TransactionSend,
)
from tests.harness.consumer_clients import GroupConsumer as GroupClient
from tests.harness.consumer_clients import Refused, now_ms, payload
from tests.harness.consumer_ledger import Sent

TOPIC = "Chaos"
QUEUES = 4  # queue_id -1: the agent spreads messages over queues 0..3
SEND_BUDGET_S = 2.0
CONSUME_EVERY_S = 0.5
POLL_EVERY_S = 0.3
GROUP = "ChaosGroup"
GROUP_BATCH = 32
GROUP_INVISIBLE_MS = 10_000
"""The shortest a receive allows: a delivery left unacked comes back within the run or its drain."""
SHORT_INVISIBLE_MS = 1_000
GROUP_BUDGET_S = 2.0
"""How long one request follows a moving master before the consumer turns to the next set."""
LEAVE, SHORTEN = 0.1, 0.1
"""The shares of first deliveries left unacked, and made invisible for SHORT_INVISIBLE_MS instead of acked."""
DELAY_EVERY = 10
"""One send in this many, per set, is a delayed message (a count per set: with 2 sets, a global one would put
every delayed message on the same set)."""
DELAY_MIN_S, DELAY_MAX_S = 0.5, 3.0
"""How far ahead a delayed message is due: past the send's own retries (up to SEND_BUDGET_S) for some, and within
AFTER_HEAL_S of the last send for all but the last few (the drain and convergence after it give them time)."""
TRANSACTION_EVERY = DELAY_EVERY
"""One send in this many, per set, is transactional (the fifth of every ten; the tenth is delayed)."""
COMMIT, ROLLBACK = 0.5, 0.25
"""The shares of transactions committed and rolled back by the producer's own end; the rest are left to the
check-back, which the producer answers with a commit or a rollback, half and half."""
CHECK_EVERY_S = 0.5


def pull_request(broker_name: str, queue_id: int, offset: int, max_messages: int) -> pb.PullMessageRequest:
    """A pull of the test topic's `queue_id` from `offset` on."""
    return pb.PullMessageRequest(
        broker=pb.BrokerRef(broker_name=broker_name),
        topic=TOPIC,
        queue_id=queue_id,
        queue_offset=offset,
        max_messages=max_messages,
    )


class Producer(threading.Thread):
    def __init__(self, cluster: ChaosCluster, recorder: Recorder, seed: int) -> None:
        super().__init__(name="chaos-producer", daemon=True)
        self.cluster = cluster
        self.recorder = recorder
        self.prefix = f"s{seed}-"
        self.rng = random.Random(seed ^ 0xDE1A7)  # its own stream, as the Consumer's
        self.stopped = threading.Event()
        self._targets: dict[str, str | None] = dict.fromkeys(cluster.sets)
        self.decisions: dict[str, bool] = {}
        """Transactional payload → commit (True) or roll back: how the producer answers its check-back."""

    def run(self) -> None:
        n = 0
        sends = dict.fromkeys(self.cluster.sets, 0)
        with AgentClient(timeout=SEND_BUDGET_S + 3) as agents:
            while not self.stopped.is_set():
                for name in self.cluster.sets:
                    address = self._targets[name] or self._find(name)
                    if address is None:
                        self.recorder.failed_send("NO_MASTER")
                        self.stopped.wait(0.1)
                        continue
                    sends[name] += 1
                    if sends[name] % TRANSACTION_EVERY == TRANSACTION_EVERY // 2:
                        self._transact(agents, name, address, f"{self.prefix}t{n:07d}")
                        n += 1
                        continue
                    due_ms = None
                    if sends[name] % DELAY_EVERY == 0:
                        due_ms = now_ms() + round(self.rng.uniform(DELAY_MIN_S, DELAY_MAX_S) * 1000)
                    payload = f"{self.prefix}{'' if due_ms is None else 'd'}{n:07d}"
                    n += 1
                    message = pb.Message(topic=TOPIC, queue_id=-1, body=payload.encode())
                    if due_ms is not None:
                        message.properties[TIMER_DELIVER_MS] = str(due_ms)
                    try:
                        result, address = _send_one(agents, name, address, message, SEND_BUDGET_S)
                    except MqError:
                        self._targets[name] = None
                        self._failed(name, payload, due_ms, "UNREACHABLE")
                        continue
                    if result["code"] != 0:
                        self._targets[name] = None
                        self._failed(name, payload, due_ms, str(result["status"]))
                        self.stopped.wait(0.05)
                        continue
                    self._targets[name] = address
                    if due_ms is not None:
                        self.recorder.delayed(DelayedSend(name, payload, due_ms, acked=True), "PUT_OK")
                    else:
                        self.recorder.ack(_ack(name, payload, address, result, time.monotonic()))

    def _transact(self, agents: AgentClient, name: str, address: str, payload: str) -> None:
        """A transactional send: the half message, then the producer's end unless it "crashes" first. Its decision
        is in `decisions` once the half is acknowledged (the checker answers by it); a half with no clear answer
        is rolled back when checked, as a producer that never ran its local transaction answers."""
        draw = self.rng.random()
        ends = draw < COMMIT + ROLLBACK
        commit = draw < COMMIT if ends else self.rng.random() < 0.5
        message_id = f"{payload}-id"
        message = pb.Message(
            topic=TOPIC, queue_id=-1, body=payload.encode(), properties={TRAN_MSG: "true", UNIQ_KEY: message_id}
        )
        try:
            result, address = _send_one(agents, name, address, message, SEND_BUDGET_S)
            status = "PUT_OK" if result["code"] == 0 else str(result["status"])
        except MqError:
            status = "UNREACHABLE"
        if status != "PUT_OK":
            self._targets[name] = None
            self.decisions[payload] = False
            self.recorder.transaction(TransactionSend(name, payload, False, False, False, None), status)
            self.stopped.wait(0.05)
            return
        self._targets[name] = address
        queue_offset, offset = result["queueOffset"], result["commitLogOffset"]
        assert queue_offset is not None and offset is not None, result
        transaction_id = TransactionRef(name, queue_offset, offset).encode()
        self.decisions[payload] = commit
        self.recorder.transaction(TransactionSend(name, payload, True, commit, ends, transaction_id), status)
        if ends:
            end(agents, self.cluster, self.recorder, name, address, message, transaction_id, commit, from_check=False)

    def _failed(self, name: str, payload: str, due_ms: int | None, status: str) -> None:
        """A send without PUT_OK; a delayed one is kept (with its due time): it may be stored, and then delivered."""
        if due_ms is not None:
            self.recorder.delayed(DelayedSend(name, payload, due_ms, acked=False), status)
        else:
            self.recorder.failed_send(status)

    def _find(self, name: str) -> str | None:
        try:
            info = self.cluster.sync_state().get(name)
        except MqError:
            return None
        return info.master_address if info is not None and info.HasField("master_address") else None


def _ack(broker_set: str, payload: str, address: str, result: SendOutcomeDoc, at: float) -> Ack:
    """The Ack of a SUCCESS reply: its placement fields are null only when no broker answered."""
    broker_id, epoch = result["brokerId"], result["masterEpoch"]
    queue_id, queue_offset, offset = result["queueId"], result["queueOffset"], result["commitLogOffset"]
    assert broker_id is not None and epoch is not None, result
    assert queue_id is not None and queue_offset is not None and offset is not None, result
    return Ack(broker_set, payload, broker_id, address, epoch, queue_id, queue_offset, offset, at)


def end(
    agents: AgentClient,
    cluster: ChaosCluster,
    recorder: Recorder,
    name: str,
    address: str,
    half: pb.Message,
    transaction_id: str,
    commit: bool,
    *,
    from_check: bool,
) -> None:
    """EndTransaction at the set's master, held through a failover like a send (an end is idempotent), recorded."""
    request = pb.EndTransactionRequest(
        broker=pb.BrokerRef(broker_name=name),
        topic=TOPIC,
        message_id=half.properties[UNIQ_KEY],
        transaction_id=transaction_id,
        resolution=pb.COMMIT if commit else pb.ROLLBACK,
        from_check=from_check,
    )
    asked_ms, asked_at = now_ms(), time.monotonic()
    r, _ = call_through(agents, address, "EndTransaction", request, SEND_BUDGET_S, partial(_master_of, cluster, name))
    code = None if r is None else r.code
    payload = half.body.decode(errors="replace")
    recorder.transaction_end(TransactionEnd(name, payload, commit, from_check, asked_ms, asked_at, code))


class TransactionChecker(threading.Thread):
    def __init__(self, cluster: ChaosCluster, recorder: Recorder, decisions: dict[str, bool]) -> None:
        super().__init__(name="chaos-transaction-checker", daemon=True)
        self.cluster = cluster
        self.recorder = recorder
        self.decisions = decisions
        self.stopped = threading.Event()

    def run(self) -> None:
        with AgentClient(timeout=SEND_BUDGET_S + 3) as agents:
            while not self.stopped.wait(CHECK_EVERY_S):
                for name in self.cluster.sets:
                    address = _master_of(self.cluster, name)
                    if address is not None:
                        self._answer(agents, name, address)

    def _answer(self, agents: AgentClient, name: str, address: str) -> None:
        request = pb.TakeTransactionChecksRequest(broker=pb.BrokerRef(broker_name=name), topics=[TOPIC])
        try:
            r = agents.call(address, "TakeTransactionChecks", request)
        except MqError:
            return
        for check in r.checks if r.code == 0 else ():
            commit = self.decisions.get(check.message.body.decode(errors="replace"))
            if commit is not None:  # None: its send has not returned; it is checked again
                end(agents, self.cluster, self.recorder, name, address, check.message, check.transaction_id, commit,
                    from_check=True)  # fmt: skip


class Consumer(threading.Thread):
    def __init__(self, cluster: ChaosCluster, recorder: Recorder, seed: int) -> None:
        super().__init__(name="chaos-consumer", daemon=True)
        self.cluster = cluster
        self.recorder = recorder
        self.rng = random.Random(seed ^ 0x5EED)  # its own stream: the fault schedule must not depend on it
        self.stopped = threading.Event()
        self.cursor: dict[tuple[str, int], int] = {}

    def run(self) -> None:
        with AgentClient(timeout=1.0) as agents:
            while not self.stopped.wait(CONSUME_EVERY_S):
                for name in self.cluster.sets:
                    agent = self.rng.choice(self.cluster.agents)
                    address = f"{AGENT_HOST}:{agent.broker_ports[name]}"
                    for queue_id in range(QUEUES):
                        try:
                            self._pull(agents, name, agent.name, address, queue_id)
                        except MqError:
                            break  # down or stopped: try another replica next round

    def _pull(self, agents: AgentClient, name: str, node: str, address: str, queue_id: int) -> None:
        offset = self.cursor.get((name, queue_id), 0)
        response = agents.call(address, "PullMessage", pull_request(name, queue_id, offset, 64))
        if response.code != 0 or not response.messages:
            return
        now = time.monotonic()
        self.recorder.seen(
            [
                Seen(name, queue_id, m.queue_offset, m.message.body.decode(errors="replace"), node, now)
                for m in response.messages
            ]
        )
        self.cursor[(name, queue_id)] = response.next_offset


def _master_of(cluster: ChaosCluster, name: str) -> str | None:
    """The set's master as the controllers name it; while they name none or none answers, the replica acting as
    its master (RIP-32), which the agents' routes show to clients as broker id 0."""
    try:
        info = cluster.sync_state().get(name)
    except MqError:
        info = None
    if info is not None and info.HasField("master_address"):
        return info.master_address
    acting = cluster.acting_replica(name)
    return f"{AGENT_HOST}:{acting.broker_ports[name]}" if acting is not None else None


class GroupConsumer(threading.Thread):
    def __init__(self, cluster: ChaosCluster, recorder: Recorder, seed: int) -> None:
        super().__init__(name="chaos-group-consumer", daemon=True)
        self.cluster = cluster
        self.recorder = recorder
        self.rng = random.Random(seed ^ 0x90B)  # its own stream, as the Consumer's
        self.stopped = threading.Event()
        self.left: dict[str, list[pb.ReceivedMessage]] = {name: [] for name in cluster.sets}
        """Deliveries left unacked, per set: the drain makes those still invisible visible at once."""
        self.unanswered: dict[str, list[pb.ReceivedMessage]] = {name: [] for name in cluster.sets}
        """Deliveries whose ack got no answer in time, per set: the broker may have acked them (then they never
        come back), so the drain acks them again by their handles, which answers OK if that ack was done."""
        self.clients = {
            name: GroupClient(
                partial(_master_of, cluster, name), name, GROUP, TOPIC, recorder.group_ledger(name), GROUP_BUDGET_S + 1
            )
            for name in cluster.sets
        }

    def run(self) -> None:
        while not self.stopped.is_set():
            for name, client in self.clients.items():
                try:
                    self._round(client, self.left[name], self.unanswered[name])
                except MqError:
                    continue  # no master answered in time: the next set, then this one again
                except Refused as exc:  # e.g. a restarted replica that has not learnt the topic yet
                    self.recorder.failed_group_request(f"{exc.request} {exc.code}")
                    self.stopped.wait(0.1)

    def _round(self, client: GroupClient, left: list[pb.ReceivedMessage], unanswered: list[pb.ReceivedMessage]) -> None:
        got = client.receive(GROUP_BATCH, GROUP_INVISIBLE_MS, budget_s=GROUP_BUDGET_S)
        ack = []
        for m in got:
            draw = self.rng.random()
            if m.delivery_attempt > 1 or draw >= LEAVE + SHORTEN:
                ack.append(m)
            elif draw >= LEAVE:
                client.change_invisible(m, SHORT_INVISIBLE_MS, budget_s=GROUP_BUDGET_S)
            else:
                left.append(m)
        try:
            client.ack(ack, budget_s=GROUP_BUDGET_S)
        except MqError:
            unanswered += ack
            raise
        if len(got) < GROUP_BATCH:
            self.stopped.wait(CONSUME_EVERY_S)

    def drain(self, acks: list[Ack], budget_s: float) -> None:
        """Ack everything left, after the faults healed: every PUT_OK message must be acked in the end. Acks that
        got no answer are asked again first. What was left unacked and has not come back yet is made visible now,
        by its handle (still current unless it came back), rather than waited for."""
        deadline = time.monotonic() + budget_s
        for name, client in self.clients.items():
            client.ledger.record(*(Sent(a.payload) for a in acks if a.broker_set == name))
            try:
                if self.unanswered[name]:
                    client.ack(self.unanswered[name], budget_s=max(deadline - time.monotonic(), 1.0))
                again = {d.payload for d in client.ledger.deliveries if d.attempt > 1}
                for m in self.left[name]:
                    if payload(m) not in again:
                        client.change_invisible(m, 0, budget_s=max(deadline - time.monotonic(), 1.0))
                client.drain(GROUP_INVISIBLE_MS, max(deadline - time.monotonic(), 1.0))
            except (MqError, Refused) as exc:
                self.recorder.note(f"{name}: the consumer group could not drain: {exc}")
            if left := client.ledger.unacked():
                self.recorder.note(self._left_unacked(name, client, left, acks))

    @staticmethod
    def _left_unacked(name: str, client: GroupClient, left: set[str], acks: list[Ack]) -> str:
        """What the ledger and the master say of the first messages the drain left unacked, to tell a message the
        broker counts as consumed (lost) from one still in flight or never handed out."""
        placed = {a.payload: a for a in acks if a.broker_set == name}
        try:
            queues = {q.queue_id: q for q in client.progress(budget_s=5.0)}
        except (MqError, Refused) as exc:
            queues, why = {}, f" (no progress: {exc})"
        else:
            why = ""
        now = now_ms()
        parts = []
        for p in sorted(left)[:5]:
            a = placed.get(p)
            q = queues.get(a.queue_id) if a is not None else None
            where = f"queue {a.queue_id} offset {a.queue_offset}" if a is not None else "not placed"
            group = f", group offset {q.consumer_offset}, inflight {q.inflight}" if q is not None else ""
            told = [f"attempt {d.attempt} until {d.invisible_until_ms - now:+d} ms" for d in client.ledger.deliveries
                    if d.payload == p]  # fmt: skip
            told += [f"hidden until {h.invisible_until_ms - now:+d} ms" for h in client.ledger.hidden if h.payload == p]
            told += [f"ack refused {code}" for refused, code in client.refused_acks if refused == p]
            parts.append(f"{p} at {where}{group}; told: {', '.join(told) or 'never delivered'}")
        return f"{name}: {len(left)} left unacked after the drain{why}: " + "; ".join(parts)

    def close(self) -> None:
        for client in self.clients.values():
            client.close()


class ControllerPoller(threading.Thread):
    def __init__(self, cluster: ChaosCluster, recorder: Recorder) -> None:
        super().__init__(name="chaos-poller", daemon=True)
        self.cluster = cluster
        self.recorder = recorder
        self.stopped = threading.Event()

    def run(self) -> None:
        request = cpb.GetSyncStateDataRequest(broker_names=self.cluster.sets)
        with ControllerClient(list(self.cluster.controller_addresses.values()), timeout=1.0) as client:
            while not self.stopped.wait(POLL_EVERY_S):
                for node, address in self.cluster.controller_addresses.items():
                    if not self.cluster.controllers[node].running():
                        continue
                    try:
                        reply = client.call_at(address, "GetSyncStateData", request)
                    except MqError:
                        continue
                    if reply.code != 0:
                        continue
                    now = time.monotonic()
                    for info in reply.replicas_info:
                        self.recorder.controller_view(
                            ControllerView(
                                node,
                                info.broker_name,
                                info.master_epoch,
                                info.sync_state_set_epoch,
                                info.master_broker_id if info.HasField("master_broker_id") else None,
                                tuple(sorted(r.broker_id for r in info.in_sync_replicas)),
                                now,
                            )
                        )
                    for name in self.cluster.sets:
                        self._ask_lease(client, node, address, name)

    def _ask_lease(self, client: ControllerClient, node: str, address: str, broker_set: str) -> None:
        asked_at = time.monotonic()
        try:
            reply = client.call_at(address, "GetReplicaInfo", cpb.GetReplicaInfoRequest(broker_name=broker_set))
        except MqError:
            return
        if reply.code == 0:
            master = reply.master_broker_id if reply.HasField("master_broker_id") else None
            self.recorder.lease_answer(
                LeaseAnswer(node, broker_set, reply.master_epoch, master, asked_at, time.monotonic())
            )
