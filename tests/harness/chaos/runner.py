"""One chaos run: start the cluster, run the clients under a fault schedule, heal, collect, check.

Phases (``run_chaos``):

1. start 3 controllers and 3 agents through the proxies; wait until every set has a master and a full
   SyncStateSet;
2. create the topic; start the producer, the consumer, the consumer group and the controller poller; inject
   faults for ``duration_s``;
3. heal everything, let the producer run ``AFTER_HEAL_S`` more, stop the clients, and wait until every set
   has one master, 3 replicas in sync and equal max and confirm offsets on all of them; the consumer group acks
   what is left (at most ``DRAIN_S``);
4. read every set's messages from its final master (again until the last delayed messages are delivered, at most
   ``DELAYED_S`` past their due time), stop the agents, wait until the controller nodes have applied the same Raft
   index, stop them;
5. read the files (commit logs, epoch files, consumer-state snapshots, controller journals and snapshots) and the
   agents' role-change log lines, and run the invariant checkers.

Every process is stopped by pid in a ``finally``, whatever happens.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from mqadmin_py.sandbox import broker_set_names
from mqbase.client import AgentClient
from mqbase.errors import MqError
from mqbase.proto import agent_pb2 as pb
from tests.harness.agents import AgentProcess, create_topic
from tests.harness.chaos.cluster import AGENT_HOST, ChaosCluster, consumer_state, records, views_of
from tests.harness.chaos.faults import FaultScheduler
from tests.harness.chaos.history import ActingEpisode, FinalLog, History, Recorder
from tests.harness.chaos.invariants import Violation, check_all, copies_of, master_changes
from tests.harness.chaos.workload import (
    QUEUES,
    TOPIC,
    Consumer,
    ControllerPoller,
    GroupConsumer,
    Producer,
    TransactionChecker,
    pull_request,
)
from tests.harness.wait import wait_until

READY_S = 90.0
AFTER_HEAL_S = 3.0
CONVERGE_S = 90.0
DRAIN_S = 45.0
DELAYED_S = 15.0
TRANSACTIONS_S = 10.0
"""The check bound after healing: how long the final masters may list a transaction open (transactionTimeOut 1 s,
then a check every second, answered within the checker's 0.5 s poll and one end's round trip)."""
"""How long past the last due time the final masters may take to deliver every PUT_OK delayed message."""
SHOW_PER_INVARIANT = 20

Scenario = Callable[[ChaosCluster, Recorder, Callable[[str], None]], None]
"""A scripted phase 2: injects its faults (recorded with ``Recorder.fault``) and heals them before returning."""


@dataclass
class Report:
    seed: int
    duration_s: float
    sets: int
    history: History
    violations: list[Violation] = field(default_factory=list)
    elapsed_s: float = 0.0
    proxied: dict[str, int] = field(default_factory=dict)
    """Connections each kind of link carried (raft, grpc, ha)."""

    def faults_by_kind(self) -> Counter[str]:
        return Counter(f.kind for f in self.history.faults if not f.kind.startswith("heal "))

    def text(self) -> str:
        h = self.history
        lines = [
            f"seed {self.seed}, {self.duration_s:g} s of faults, {self.sets} broker set(s), "
            f"{self.elapsed_s:.0f} s in all",
            "faults injected: " + (", ".join(f"{k} {n}" for k, n in sorted(self.faults_by_kind().items())) or "none"),
            f"sends: {h.send_attempts} attempts, {len(h.acks)} acknowledged; not acknowledged: "
            + (", ".join(f"{k} {n}" for k, n in sorted(h.send_failures.items())) or "none"),
            f"consumer reads during the run: {len(h.seen)}; controller answers polled: {len(h.controller_views)}; "
            f"role changes logged: {len(h.role_changes)}; lease answers: {len(h.lease_answers)}",
            self._delayed_text(),
            self._transactions_text(),
            "consumer group: "
            + "; ".join(
                f"{name}: {len(g.deliveries)} deliveries ({sum(d.attempt > 1 for d in g.deliveries)} again), "
                f"{len(g.acks)} acked, {len(g.hidden)} made visible sooner"
                for name, g in sorted(h.groups.items())
            )
            + f"; drained in {h.drain_s:.1f} s"
            + "; refused: "
            + (", ".join(f"{k} {n}" for k, n in sorted(h.group_failures.items())) or "none"),
            "checked: "
            + "; ".join(
                f"{name}: {len(log.at_queue_offset)} messages served by the final master {log.master_node}, "
                f"{len(log.at_commit_log_offset)} records in its log"
                for name, log in sorted(h.final_logs.items())
            ),
            "checked: "
            + "; ".join(
                f"{name}: {len(group)} replicas compared up to {max(r.confirm_offset for r in group)}"
                for name, group in sorted(h.replicas.items())
            )
            + f"; controller states of {len(h.controller_states)} nodes rebuilt from their journals",
            *(self._acting_text(e) for e in h.acting),
            "connections through the proxies: " + ", ".join(f"{k} {n}" for k, n in sorted(self.proxied.items())),
            *(f"note: {n}" for n in h.notes),
            f"violations: {len(self.violations)}"
            + "".join(
                f", invariant {i}: {n}" for i, n in sorted(Counter(v.invariant for v in self.violations).items())
            ),
        ]
        shown: Counter[int] = Counter()
        for v in self.violations:
            shown[v.invariant] += 1
            if shown[v.invariant] <= SHOW_PER_INVARIANT:
                lines.append(f"  {v}")
        lines += [
            f"  ... and {n - SHOW_PER_INVARIANT} more of invariant {i}"
            for i, n in sorted(shown.items())
            if n > SHOW_PER_INVARIANT
        ]
        return "\n".join(lines)

    def _acting_text(self, episode: ActingEpisode) -> str:
        """What a RIP-32 episode served: the group's acks answered while the replica acted, and the set's delayed
        messages found in another set's topic (delivered through escape)."""
        h = self.history
        ledger = h.groups.get(episode.broker_set)
        acks = [a for a in ledger.acks if episode.from_ms <= a.answered_ms <= episode.to_ms] if ledger else []
        return (
            f"acting master: {episode.broker_set} served by {episode.node} for "
            f"{(episode.to_ms - episode.from_ms) / 1000:.1f} s, {len(acks)} acks answered meanwhile, "
            f"{len(escaped_delayed(h, episode.broker_set))} of its delayed messages delivered through escape"
        )

    def _transactions_text(self) -> str:
        """Invariant 9's figures: transactions by decision and how they ended."""
        h = self.history
        acked = [t for t in h.transactions if t.acked]
        ended = Counter(("check" if e.from_check else "producer", e.code == 0) for e in h.transaction_ends)
        copies = copies_of((t.payload for t in acked if t.commit), h.final_logs)
        return (
            f"transactions: {len(h.transactions)} sent, {len(acked)} acknowledged: "
            f"{sum(t.commit and t.ends for t in acked)} committed and {sum(not t.commit and t.ends for t in acked)} "
            f"rolled back by the producer, {sum(not t.ends for t in acked)} left to the check-back; ends answered OK "
            f"{ended['producer', True]} by the producer ({ended['producer', False]} not), {ended['check', True]} "
            f"answering check-backs ({ended['check', False]} not); {sum(len(c) == 1 for c in copies.values())} of "
            f"{len(copies)} committed ones in the topic once; open after healing: "
            f"{sum(len(i) for i in h.open_transactions.values())}, none left after {h.transactions_wait_s:.1f} s"
        )

    def _delayed_text(self) -> str:
        """Invariant 8's figures: delayed sends, those found delivered on the final masters, their extra copies."""
        h = self.history
        copies = copies_of((d.payload for d in h.delayed), h.final_logs)
        acked = [d for d in h.delayed if d.acked]
        changes = master_changes(h.role_changes)
        return (
            f"delayed messages: {len(h.delayed)} sent, {len(acked)} acknowledged, "
            f"{sum(bool(copies[d.payload]) for d in acked)} of those delivered "
            f"({sum(bool(at) for at in copies.values())} of all); "
            f"{sum(len(at) - 1 for at in copies.values() if at)} extra copies; master changes: "
            + (", ".join(f"{name} {n}" for name, n in sorted(changes.items())) or "none")
            + f"; final logs read in {h.delayed_wait_s:.1f} s"
        )


def run_chaos(
    directory: Path,
    seed: int,
    duration_s: float,
    sets: int = 1,
    say: Callable[[str], None] = print,
    broker_config: dict[str, str] | None = None,
    controller_config: dict[str, str] | None = None,
    scenario: Scenario | None = None,
) -> Report:
    """One run (see the module docstring); `broker_config` and `controller_config` override keys (e.g. an unsafe
    setting); `scenario` replaces the random fault schedule of phase 2 by a scripted one (it must heal what it
    breaks)."""
    started = time.monotonic()
    history = History()
    recorder = Recorder(history)
    cluster = ChaosCluster(directory, broker_set_names(sets), broker_config, controller_config)
    say(f"chaos seed {seed}: {duration_s:g} s, {sets} broker set(s), files in {directory}")
    try:
        cluster.start()
        _wait_ready(cluster, READY_S)
        _create_topic(cluster)
        group = GroupConsumer(cluster, recorder, seed)
        producer = Producer(cluster, recorder, seed)
        checker = TransactionChecker(cluster, recorder, producer.decisions)
        clients: list[Producer | Consumer | GroupConsumer | ControllerPoller] = [
            producer,
            Consumer(cluster, recorder, seed),
            group,
            ControllerPoller(cluster, recorder),
        ]
        for t in [*clients, checker]:
            t.start()
        try:
            if scenario is None:
                FaultScheduler(cluster, recorder, seed, say).run(duration_s)
            else:
                scenario(cluster, recorder, say)
            time.sleep(AFTER_HEAL_S)
        finally:
            for t in clients:
                t.stopped.set()
            for t in clients:
                t.join(30)
        masters = _converge(cluster, recorder, CONVERGE_S)
        drain_started = time.monotonic()
        group.drain(history.acks, DRAIN_S)
        history.drain_s = time.monotonic() - drain_started
        group.close()
        _resolve_transactions(history, masters, TRANSACTIONS_S)
        checker.stopped.set()
        checker.join(30)
        confirm = _collect_delivered(cluster, history, masters)
        for a in cluster.agents:
            a.stop()
        last_index = _controllers_settle(cluster, recorder)
        for c in cluster.controllers.values():
            c.stop()
        _collect_files(cluster, history, masters, confirm, last_index)
        history.role_changes = cluster.role_changes()
    finally:
        cluster.close()
    proxied = Counter[str]()
    for link in cluster.hub.links.values():
        proxied[link.name.split()[0]] += link.accepted
    return Report(seed, duration_s, sets, history, check_all(history), time.monotonic() - started, dict(proxied))


def escaped_delayed(history: History, broker_set: str) -> list[str]:
    """The payloads of `broker_set`'s delayed messages found in another set's topic on the final masters (RIP-32
    escape: an acting replica's due delivery re-put on the escape master)."""
    copies = copies_of((d.payload for d in history.delayed), history.final_logs)
    return [
        d.payload
        for d in history.delayed
        if d.broker_set == broker_set and any(where != broker_set for where, _, _ in copies[d.payload])
    ]


def _wait_ready(cluster: ChaosCluster, timeout: float) -> None:
    def ready() -> bool:
        state = cluster.sync_state()
        sets = [
            n
            for n, info in state.items()
            if info.HasField("master_address") and sum(r.alive for r in info.in_sync_replicas) == 3
        ]
        return len(sets) == len(cluster.sets)

    wait_until(ready, timeout, f"the cluster to start (see {cluster.dir})", interval=0.2)


def _create_topic(cluster: ChaosCluster) -> None:
    """The test topic in the controllers' metadata, learnt by every replica before the clients start (a consumer
    group's receive on a replica that has not learnt it yet is refused)."""
    create_topic(";".join(cluster.controller_addresses.values()), TOPIC, queues=QUEUES)  # none is created by a send

    def learnt() -> bool:
        return all(
            TOPIC in b.topics
            for a in cluster.agents
            for b in a.stub().ListBrokers(pb.ListBrokersRequest(), timeout=2).brokers
        )

    wait_until(learnt, 30, f"every replica to learn topic {TOPIC}", interval=0.2)


def _status(agent: AgentProcess, broker_set: str) -> pb.GetHAStatusResponse | None:
    try:
        return agent.ha_status(broker_set)
    except Exception:  # grpc.RpcError while it restarts
        return None


def _converge(cluster: ChaosCluster, recorder: Recorder, timeout: float) -> dict[str, AgentProcess]:
    """Wait until each set has one master, all in its SyncStateSet and equal offsets; set → master agent."""
    deadline = time.monotonic() + timeout
    pending: dict[str, str] = {}
    masters: dict[str, AgentProcess] = {}
    while time.monotonic() < deadline:
        pending.clear()
        for name in cluster.sets:
            statuses = {a.name: _status(a, name) for a in cluster.agents}
            roles = [s.role if s else "down" for s in statuses.values()]
            leaders = [a for a in cluster.agents if (s := statuses[a.name]) is not None and s.role == "master"]
            if len(leaders) != 1 or roles.count("slave") != 2:
                pending[name] = f"roles {roles}"
                continue
            m = statuses[leaders[0].name]
            assert m is not None
            offsets = {(s.max_offset, s.confirm_offset) for s in statuses.values() if s is not None}
            if len(m.sync_state_set) != 3 or len(offsets) != 1:
                pending[name] = f"SyncStateSet {list(m.sync_state_set)}, (max, confirm) offsets {sorted(offsets)}"
                continue
            masters[name] = leaders[0]
        if not pending:
            return masters
        time.sleep(0.3)
    recorder.note(f"not converged {timeout:g} s after healing: " + "; ".join(f"{k}: {v}" for k, v in pending.items()))
    for name in pending:  # check what there is: the agent that says it is master, if one does
        m2 = next((a for a in cluster.agents if (s := _status(a, name)) is not None and s.role == "master"), None)
        if m2 is not None:
            masters[name] = m2
    return masters


def _collect_live(cluster: ChaosCluster, history: History, masters: dict[str, AgentProcess]) -> dict[str, int]:
    """Read every set's messages from its final master; returns set → the master's confirmOffset."""
    confirm: dict[str, int] = {}
    with AgentClient(timeout=10) as agents:
        for name, master in masters.items():
            address = f"{AGENT_HOST}:{master.broker_ports[name]}"
            at: dict[tuple[int, int], str] = {}
            stored_ms: dict[tuple[int, int], int] = {}
            for queue_id in range(QUEUES):
                offset = 0
                while True:
                    r = agents.call(address, "PullMessage", pull_request(name, queue_id, offset, 256))
                    if r.code != 0 or not r.messages:
                        break
                    for m in r.messages:
                        at[(queue_id, m.queue_offset)] = m.message.body.decode(errors="replace")
                        stored_ms[(queue_id, m.queue_offset)] = m.store_timestamp
                    offset = r.next_offset
            status = _status(master, name)
            confirm[name] = status.confirm_offset if status is not None else 0
            history.final_logs[name] = FinalLog(master.name, at, {}, stored_ms)
    return confirm


def _collect_delivered(cluster: ChaosCluster, history: History, masters: dict[str, AgentProcess]) -> dict[str, int]:
    """``_collect_live``, again every 0.5 s until every PUT_OK delayed message is in its set's final log, at most
    ``DELAYED_S`` past the last due time: the producer's last ones are due up to 3 s after it stopped, which may be
    after the sets converged and the group drained (a message missing after that is invariant 8's)."""
    started = time.monotonic()
    last_due_s = max((d.due_ms for d in history.delayed), default=0) / 1000
    deadline = started + max(last_due_s - time.time(), 0) + DELAYED_S
    while True:
        confirm = _collect_live(cluster, history, masters)
        copies = copies_of((d.payload for d in history.delayed), history.final_logs)
        waiting = [d for d in history.delayed if d.acked and d.broker_set in masters and not copies[d.payload]]
        if not waiting or time.monotonic() > deadline:
            history.delayed_wait_s = time.monotonic() - started
            return confirm
        time.sleep(0.5)


def _resolve_transactions(history: History, masters: dict[str, AgentProcess], timeout: float) -> None:
    """Wait (at most `timeout`) until no final master lists a transaction of the topic open, the checker answering
    their check-backs meanwhile; what is still open then goes to the history (invariant 9)."""
    started = time.monotonic()
    with AgentClient(timeout=5) as agents:
        while True:
            open_ids: dict[str, list[str]] = {}
            for name, master in masters.items():
                request = pb.GetOpenTransactionsRequest(broker=pb.BrokerRef(broker_name=name), topic=TOPIC)
                try:
                    r = agents.call(f"{AGENT_HOST}:{master.broker_ports[name]}", "GetOpenTransactions", request)
                except MqError as exc:
                    open_ids[name] = [f"(not listed: {exc})"]
                    continue
                if r.transactions or r.code != 0:
                    open_ids[name] = [t.transaction_id for t in r.transactions] or [f"(not listed: {r.remark})"]
            if not open_ids or time.monotonic() - started > timeout:
                history.open_transactions = open_ids
                history.transactions_wait_s = time.monotonic() - started
                return
            time.sleep(0.5)


def _controllers_settle(cluster: ChaosCluster, recorder: Recorder, timeout: float = 30.0) -> int:
    """Wait until every node has applied the same Raft index (stable for a second); returns it."""
    deadline = time.monotonic() + timeout
    stable_since = time.monotonic()
    last: tuple[int, ...] = (-1,)  # no node answered yet
    while time.monotonic() < deadline:
        indexes = []
        for address in cluster.controller_addresses.values():
            try:
                meta = cluster.client.metadata(address)
                indexes.append(meta.raft.last_applied)
            except MqError:
                indexes.append(-1)
        now = tuple(indexes)
        if now != last:
            stable_since, last = time.monotonic(), now
        elif len(set(now)) == 1 and now[0] > 0 and time.monotonic() - stable_since >= 1.0:
            return now[0]
        time.sleep(0.1)
    recorder.note(f"controller nodes did not settle on one applied index: {last}")
    return min(i for i in last if i > 0) if any(i > 0 for i in last) else 0


def _collect_files(
    cluster: ChaosCluster, history: History, masters: dict[str, AgentProcess], confirm: dict[str, int], last_index: int
) -> None:
    for name in cluster.sets:
        group = []
        for a in cluster.agents:
            ids = (a.dir / name / "brokerIdentity").read_text().strip().rsplit("#", 1)
            group.append(cluster.replica_files(a, name, int(ids[1]), masters.get(name) is a, confirm.get(name, 0)))
        history.replicas[name] = group
        master = next((r for r in group if r.is_master), None)
        if master is not None and name in history.final_logs:
            stored = records(master.log, master.min_offset)
            on_disk = {o: m.body.decode(errors="replace") for o, m in stored.items() if m.topic == TOPIC}
            history.final_logs[name] = replace(history.final_logs[name], at_commit_log_offset=on_disk)
            root = cluster.replica_root(masters[name], name)
            history.consumer_states[name] = consumer_state(root, master.log, master.min_offset)
    for node in cluster.controllers:
        steps = cluster.controller_history(node, last_index)
        for index, state in steps:
            history.controller_views.extend(views_of(node, state, index, "journal"))
        if steps:
            history.controller_states[node] = {v.broker_set: v for v in views_of(node, steps[-1][1], 0, "final")}
        else:
            history.controller_states[node] = {}
