"""The fault schedule: kinds, timings and targets drawn from one seeded ``random.Random``.

Every step draws the same numbers whatever the cluster looks like (the kind, how long it lasts, the pause
before the next one, the link mode, the fsync delay, a broker set and a target pick), so one seed always
gives the same sequence of kinds and timings. Targets named by role ("the master of set-b", "the controller
leader") are resolved against the live cluster when the fault starts, and are printed.

At most ``MAX_ACTIVE`` faults are active at a time, on distinct processes. Each ends ("heals") after its
hold time: a killed process is started again, a stopped one continued, a link passes again, a slow disk is
replaced by a normal one (graceful restart).
"""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass

from mqbase.client import ControllerClient
from mqbase.errors import MqError
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import controller_pb2 as cpb
from tests.harness.agents import AgentProcess
from tests.harness.chaos.cluster import CLUSTER, ChaosCluster
from tests.harness.chaos.history import ActingEpisode, Fault, Recorder
from tests.harness.chaos.proxy import Mode
from tests.harness.wait import wait_until

KINDS = (
    "kill-master",
    "kill-slave",
    "stop-master",
    "stop-slave",
    "kill-controller-leader",
    "kill-controller-follower",
    "stop-controller-leader",
    "stop-controller-follower",
    "partition-master-controllers",
    "partition-master-slaves",
    "partition-controller-leader",
    "slow-disk",
)
MAX_ACTIVE = 2
HOLD_S = (1.0, 6.0)
GAP_S = (0.5, 3.0)
FSYNC_DELAYS_MS = (20, 50, 150)
STALE_LEADER_HOLD_S = 4.0
"""How long the deposed leader stays cut off after the new leader's transfer (the poller keeps asking it)."""
STALE_LEADER_CONFIG = {"raftLeaderFallbackTimeoutMs": "30000"}
"""Controller keys of the stale-leader scenario: the cut-off leader keeps its role for the whole scenario."""
ACTING_CONFIG = {"enableSlaveActingMaster": "true", "brokerNotActiveTimeoutMillis": "2000"}
"""Broker keys of the acting-master scenario (``allAckInSyncStateSet`` stays on, as in every chaos run)."""
ACTING_WARMUP_S = 3.0
"""How long the clients run with both masters before the controllers are killed (deliveries in flight, delayed
messages due during the episode)."""
ACTING_HOLD_S = 8.0
"""How long the acting replica serves before the controllers and the killed agent come back."""


@dataclass
class Active:
    kind: str
    target: str
    until: float
    heal: Callable[[], None]


class FaultScheduler:
    def __init__(self, cluster: ChaosCluster, recorder: Recorder, seed: int, say: Callable[[str], None]) -> None:
        self.cluster = cluster
        self.recorder = recorder
        self.rng = random.Random(seed)
        self.say = say
        self.active: list[Active] = []
        self.cuts: dict[str, list[Mode]] = {}
        """Link → the modes of the active faults that cut it (two partitions can share a link)."""
        self.started = time.monotonic()

    def run(self, duration_s: float) -> None:
        """Inject and heal faults for `duration_s`; every fault is healed before returning."""
        end = time.monotonic() + duration_s
        next_at = time.monotonic() + 1.0
        try:
            while time.monotonic() < end:
                self._heal_due(time.monotonic())
                if time.monotonic() >= next_at and len(self.active) < MAX_ACTIVE:
                    kind = self.rng.choice(KINDS)
                    hold = self.rng.uniform(*HOLD_S)
                    gap = self.rng.uniform(*GAP_S)
                    mode = self.rng.choice((Mode.DROP, Mode.BLACKHOLE))
                    delay_ms = self.rng.choice(FSYNC_DELAYS_MS)
                    broker_set = self.rng.choice(self.cluster.sets)
                    pick = self.rng.randrange(1 << 30)
                    self._inject(kind, hold, mode, delay_ms, broker_set, pick)
                    next_at = time.monotonic() + gap
                time.sleep(0.1)
        finally:
            self.heal_all()

    def heal_all(self) -> None:
        for fault in list(self.active):
            self._heal(fault)
        self.cluster.hub.heal_all()
        for c in self.cluster.controllers.values():
            if c.running():
                c.signal(signal.SIGCONT)
            else:
                c.start()
        for a in self.cluster.agents:
            if a.proc is not None and a.proc.poll() is None:
                a.signal(signal.SIGCONT)
            else:
                self.cluster.start_agent(a)

    def stale_leader_during_transfer(self) -> None:
        """A scripted schedule: the controller leader is cut off (its Raft links blackholed) and, with
        ``STALE_LEADER_CONFIG``, does not know it; the majority elects a new leader, which transfers the first
        set's master to another in-sync replica (the master pauses writes under the transfer's lease and the
        set moves to masterEpoch + 1); the old leader stays cut off ``STALE_LEADER_HOLD_S`` more while the poller
        asks every node the lease question (invariant 6); then everything heals."""
        cluster = self.cluster
        name = cluster.sets[0]
        try:
            old = wait_until(lambda: cluster.leader(), 30.0, "a controller leader")
            info = cluster.sync_state()[name]
            master = info.master_broker_id
            target = min(r.broker_id for r in info.in_sync_replicas if r.broker_id != master)
            answered = self.recorder.history.lease_answers  # the poller's, appended under the recorder's lock
            wait_until(lambda: old if any(a.node == old for a in answered) else None, 30.0, f"a lease answer of {old}")
            links = cluster.raft_links_of(old)
            self._cut("partition-controller-leader", f"controller {old}", old, links, Mode.BLACKHOLE, float("inf"))
            others = [n for n in cluster.controllers if n != old]
            new = wait_until(lambda: cluster.leader(among=others), 30.0, "a leader on the majority side")
            request = cpb.TransferMasterRequest(cluster_name=CLUSTER, broker_name=name, broker_id=target)
            with ControllerClient(list(cluster.controller_addresses.values()), timeout=15.0) as client:
                moved = client.call_at(cluster.controller_addresses[new], "TransferMaster", request)
            detail = f"{name}: broker {master} -> {target}, code {moved.code} {moved.remark}".rstrip()
            self._record("transfer-master", f"controller {new}", detail)
            if moved.code != 0:
                self.recorder.note(f"the new leader's transfer did not happen ({detail}): nothing for the stale one")
            time.sleep(STALE_LEADER_HOLD_S)
        finally:
            self.heal_all()

    def acting_episode(self) -> None:
        """A scripted schedule (RIP-32): the first two sets' masters are made to live in different agents
        (a transfer when they share one); every controller is killed, then the first set's master broker is removed
        from its agent (``RemoveBroker``: it stops, the agent's replicas of other sets run on). With
        ``ACTING_CONFIG`` the smallest alive replica of that set acts as its read-only master: the consumer group
        receives and acks through it, and its consumer changes and due delayed messages escape to the other set's
        master. After ``ACTING_HOLD_S`` everything heals (the controllers start again, the broker is added back),
        and the set's next master serves only once its pre-online has taken the escaped state back.

        Why not SIGKILL the agent: it also hosts a replica of every other set, and with the controllers down no
        SyncStateSet can shrink, so under ``allAckInSyncStateSet`` no set could acknowledge an escape until they
        return (docs/decisions.md, RIP-32)."""
        cluster = self.cluster
        home, other = cluster.sets[0], cluster.sets[1]
        removed: pb.HostedBroker | None = None
        victim: AgentProcess | None = None
        try:
            masters = wait_until(lambda: self._masters_apart(home, other), 60.0, "the masters in two agents", 1.0)
            time.sleep(ACTING_WARMUP_S)
            for node, proc in cluster.controllers.items():
                proc.kill()
                self._record("kill-controller", f"controller {node}")
            victim = masters[home]
            hosted = victim.stub().ListBrokers(pb.ListBrokersRequest(), timeout=5).brokers
            [broker] = [b for b in hosted if b.broker_name == home]
            request = pb.RemoveBrokerRequest(cluster_name=CLUSTER, broker_name=home, broker_id=broker.broker_id)
            answer = victim.stub().RemoveBroker(request, timeout=30)
            assert answer.code == 0, f"RemoveBroker of {home} in {victim.name}: {answer.code} {answer.remark}"
            removed = broker
            self._record("remove-master", f"{victim.name} (master of {home})", f"broker {broker.broker_id}")
            actor = wait_until(lambda: cluster.acting_replica(home), 30.0, f"a replica of {home} acting as master")
            since = int(time.time() * 1000)
            self._record("acting-master", f"{actor.name} ({home})")
            time.sleep(ACTING_HOLD_S)
            self.recorder.acting(ActingEpisode(home, actor.name, since, int(time.time() * 1000)))
        finally:
            self.heal_all()
            if removed is not None and victim is not None:
                back = victim.stub().AddBroker(pb.AddBrokerRequest(broker_config_path=removed.config_path), timeout=30)
                self._record("add-broker", f"{victim.name} ({home})", f"code {back.code} {back.remark}".rstrip())

    # --- internals -------------------------------------------------------------------------------

    def _record(self, kind: str, target: str, detail: str = "") -> None:
        at = time.monotonic() - self.started
        self.recorder.fault(Fault(at, kind, target, detail))
        self.say(f"  t={at:6.1f}s {kind:<28} {target} {detail}".rstrip())

    def _masters_apart(self, home: str, other: str) -> dict[str, AgentProcess] | None:
        """Set → master agent once `home`'s and `other`'s masters run in different agents, else None after asking
        the controllers to move `other`'s master to another in-sync replica."""
        masters = self.cluster.masters()
        if home not in masters or other not in masters:
            return None
        if masters[home] is not masters[other] and masters[other].role(other) == "master":
            return masters
        if masters[home] is masters[other]:
            info = self.cluster.sync_state()[other]
            target = min(r.broker_id for r in info.in_sync_replicas if r.broker_id != info.master_broker_id)
            request = cpb.TransferMasterRequest(cluster_name=CLUSTER, broker_name=other, broker_id=target)
            moved = self.cluster.client.call("TransferMaster", request)
            detail = f"{other}: broker {info.master_broker_id} -> {target}, code {moved.code} {moved.remark}"
            self._record("transfer-master", "controllers", detail.rstrip())
        return None

    def _busy(self) -> set[str]:
        return {f.target for f in self.active}

    def _heal_due(self, now: float) -> None:
        for fault in [f for f in self.active if f.until <= now]:
            self._heal(fault)

    def _heal(self, fault: Active) -> None:
        self.active.remove(fault)
        fault.heal()
        self._record(f"heal {fault.kind}", fault.target)

    def _agents_in_role(self, broker_set: str, role: str) -> list[AgentProcess]:
        busy = self._busy()
        return [
            a
            for a in self.cluster.agents
            if a.name not in busy and a.proc is not None and a.proc.poll() is None and a.role(broker_set) == role
        ]

    def _controller_leader(self) -> str | None:
        try:
            leader = self.cluster.leader()
        except MqError:
            return None
        return leader if leader not in self._busy() else None

    def _inject(self, kind: str, hold: float, mode: Mode, delay_ms: int, broker_set: str, pick: int) -> None:
        until = time.monotonic() + hold
        if kind.endswith("-controller-leader") or kind.endswith("-controller-follower"):
            leader = self._controller_leader()
            if leader is None:
                return self._record(f"skip {kind}", "-", "no controller leader now")
            if kind.endswith("-leader"):
                node = leader
            else:
                others = sorted(
                    n
                    for n, c in self.cluster.controllers.items()
                    if n != leader and n not in self._busy() and c.running()
                )
                if not others:
                    return self._record(f"skip {kind}", "-", "no free follower")
                node = others[pick % len(others)]
            return self._controller_fault(kind, node, mode, until)
        role = "slave" if kind in ("kill-slave", "stop-slave", "slow-disk") else "master"
        candidates = self._agents_in_role(broker_set, role)
        if kind == "slow-disk":
            candidates = self._agents_in_role(broker_set, "master") + candidates
        if not candidates:
            return self._record(f"skip {kind}", broker_set, f"no free {role}")
        agent = candidates[pick % len(candidates)]
        label = f"{agent.name} ({role} of {broker_set})"
        if kind.startswith("kill-"):
            agent.kill()
            self._record(kind, label)
            self.active.append(Active(kind, agent.name, until, lambda: self.cluster.start_agent(agent)))
        elif kind.startswith("stop-"):
            agent.signal(signal.SIGSTOP)
            self._record(kind, label)
            self.active.append(Active(kind, agent.name, until, lambda: agent.signal(signal.SIGCONT)))
        elif kind == "slow-disk":
            agent.kill()
            self.cluster.start_agent(agent, delay_ms)
            self._record(kind, label, f"fsync delayed {delay_ms} ms")

            def normal_disk() -> None:
                agent.stop()
                self.cluster.start_agent(agent)

            self.active.append(Active(kind, agent.name, until, normal_disk))
        elif kind == "partition-master-controllers":
            links = [self.cluster.links.grpc[(agent.name, c)] for c in self.cluster.controllers]
            self._cut(kind, label, agent.name, links, mode, until)
        else:  # partition-master-slaves
            self._cut(kind, label, agent.name, [self.cluster.links.ha[(agent.name, broker_set)]], mode, until)
        return None

    def _controller_fault(self, kind: str, node: str, mode: Mode, until: float) -> None:
        proc = self.cluster.controllers[node]
        label = f"controller {node}"
        if kind.startswith("kill-"):
            proc.kill()
            self._record(kind, label)
            self.active.append(Active(kind, node, until, proc.start))
        elif kind.startswith("stop-"):
            proc.signal(signal.SIGSTOP)
            self._record(kind, label)
            self.active.append(Active(kind, node, until, lambda: proc.signal(signal.SIGCONT)))
        else:  # partition-controller-leader
            self._cut(kind, label, node, self.cluster.raft_links_of(node), mode, until)

    def _cut(self, kind: str, label: str, target: str, links: list[str], mode: Mode, until: float) -> None:
        for link in links:
            self.cuts.setdefault(link, []).append(mode)
            self.cluster.set_mode(link, mode)
        self._record(kind, label, f"{mode.value}: {', '.join(links)}")

        def heal() -> None:
            for link in links:
                self.cuts[link].remove(mode)
                self.cluster.set_mode(link, self.cuts[link][-1] if self.cuts[link] else Mode.PASS)

        self.active.append(Active(kind, target, until, heal))
