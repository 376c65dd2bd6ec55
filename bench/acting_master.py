"""RIP-32 acting master takeover: from "the set has no master" to "the acting replica is routed, serves
a read and serves consumers", on 1 controller and 3 real agents (two broker sets of three replicas, agent k hosting
replica k of both, ``enableSlaveActingMaster=true``, ``allAckInSyncStateSet=false``).

broker-a loses its master; broker-b is the escape target a consumer's changes on broker-a's acting replica go to:
before each case its master is moved (``transferMaster``) to the acting replica's agent, which survives, and
masters acknowledge puts alone so it stays writable when its other replicas die with broker-a's.

Two ways a set loses its master, each `--runs` times in the same run:

* *no electable master* (controller up, unclean election off): one slave is left out of the SyncStateSet (SIGSTOP
  until the master shrinks the set, then SIGCONT), then every SyncStateSet member's agent is SIGKILLed; the clock
  starts when the last one is killed. Target: ``controllerHeartBeatTimeoutMills`` + 1 s. The SIGSTOP also pauses
  broker-b's master (same agent): its ``controllerHeartBeatTimeoutMills`` is raised for the case, so the controller
  does not replace it by a replica about to be killed.
* *controllers down*: the controller is stopped, then the master's agent SIGKILLed; the clock starts at the kill.
  The smallest slave acts once the master is unseen for ``brokerNotActiveTimeoutMillis``. Target: that + 1 s.

Then, in a second sandbox of one broker set with the sandbox's settings and only ``enableSlaveActingMaster`` on
(what a user meets; ``brokerNotActiveTimeoutMillis`` at Java's 10 s), through the access point of the
slave that does not act:

* *restarted slaves, no electable master*: the slaves' agents are stopped until the SyncStateSet shrinks to the
  master, the master's agent SIGKILLed, the slaves' agents started again; the clock starts once both are started.
  They register fenced (no master to follow) and the smaller acts. Target: ``controllerHeartBeatTimeoutMills``
  + 1 s (the sandbox's 3 s).
* *controllers down*, as above. Target: ``brokerNotActiveTimeoutMillis`` + 1 s.

Three clocks from the same start: when the replica started acting (its ``actingSince``, wall clock, same
machine); when its access point routes the topic read-only at itself (QueryRoute, polled every 20 ms) and a
PullMessage on the replica then returns the messages sent (and confirmed) before; and, from then on, when a POP
ReceiveMessage of a consumer group through that access point (the v2 protocol as the official client speaks it, at
broker-a's queue) returns the message sent before the kill: the acting replica serves consumers only once it took
its set's state back from the other replicas. Between runs everything is started again and both sets wait for a
master and a full SyncStateSet.
"""

from __future__ import annotations

import argparse
import signal
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from _common import MqError, grpc, log_summary, machine_note, ms, parse_args, percentile, print_table, sandbox

from agents.access.protocol import stubs, v2
from agents.ha.acting import BROKER_NOT_ACTIVE_TIMEOUT_MS
from mqadmin_py.commands.controller import acting_since
from mqadmin_py.sandbox import Sandbox
from mqbase.client import AgentClient
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as apb
from tests.harness.acting_probes import TOPIC, pull, route
from tests.harness.escape_sets import ESCAPE, agent_of, healthy, sets
from tests.harness.sandbox import BROKER, CLUSTER, Cli, Cluster, Master, send
from tests.harness.v2_messages import raw_receive_from
from tests.harness.wait import wait_until

POLL_S = 0.02
GROUP = "GID_acting_bench"
"""The group the defaults phase receives with, raw (created with updateSubGroup first)."""
HEADERS = (("x-mq-client-id", "acting-master-bench"),)
SANDBOX_HEARTBEAT_TIMEOUT_S = 3.0
"""The sandbox's controllerHeartBeatTimeoutMills (docs/cli.md), in force in the defaults phase."""
MARGIN_S = 1.0
PAUSED_HEARTBEAT_TIMEOUT_MS = 60_000
"""broker-b's master's controllerHeartBeatTimeoutMills while its agent is SIGSTOPped (no electable master)."""
BEATS_S = 2.0
"""Time for a few of broker-b's heartbeats (every 500 ms in the sandbox) to carry a new timeout to the controller,
which does not report the timeout it holds."""


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", type=int, default=5, help="runs of each case (default 5)")
    parser.add_argument("--heartbeat-timeout-ms", type=int, default=3000, help="controllerHeartBeatTimeoutMills")
    parser.add_argument("--not-active-ms", type=int, default=3000, help="brokerNotActiveTimeoutMillis")


Took = tuple[float, float, float]
"""Seconds from "no master" until the replica started acting (its own actingSince), until routed and serving a
read, and until a POP receive returned the message sent before."""


def received(access_point: str, body: bytes) -> bool:
    """Whether a POP receive of the group at broker-a's queue, through `access_point`, returns `body`."""
    with grpc.insecure_channel(access_point) as channel:
        code, messages = raw_receive_from(stubs.MessagingServiceStub(channel), TOPIC, BROKER, GROUP, HEADERS)
    return code == v2.OK and any(m.body == body for m in messages)


def routed(access_point: str, address: str, count: int) -> bool:
    """Whether `access_point` routes the topic's queue on broker-a read-only at itself (broker-b's stays writable)
    and the replica at `address` serves `count` messages."""
    if (v2.READ, [access_point]) not in route(access_point):
        return False
    answer = pull(address)
    return bool(answer.code == ResponseCode.SUCCESS and len(answer.messages) == count)


def served(access_point: str, address: str, broker_id: int, count: int, body: bytes, limit_s: float) -> Took:
    """Poll, from now (the set just lost its master), until `access_point` routes broker-a read-only at itself and
    the replica at `address` then serves the `count` messages sent before, and then until a consumer receives the
    last one (`body`) through it (receives without acks: earlier runs' messages may come again); then ask the
    replica since when it acts."""
    started, wall = time.perf_counter(), time.time()
    clocks: list[float] = []
    while time.perf_counter() - started < limit_s:
        try:
            if not clocks and routed(access_point, address, count):
                clocks.append(time.perf_counter() - started)
            if clocks and received(access_point, body):
                clocks.append(time.perf_counter() - started)
                with AgentClient(timeout=5.0) as agents:
                    since_ms = acting_since(agents, address, BROKER, broker_id)
                if not since_ms:
                    raise RuntimeError(f"broker {broker_id} served a consumer but does not say it acts")
                return since_ms / 1000 - wall, clocks[0], clocks[1]
        except (MqError, grpc.RpcError, AssertionError):  # not answering yet, or a route answer not OK: poll again
            pass
        time.sleep(POLL_S)
    what = "serving a consumer" if clocks else "routed read-only and serving"
    raise RuntimeError(f"{address} was not {what} within {limit_s:.0f} s")


def holds(address: str, count: int) -> bool:
    return len(pull(address).messages) == count


def in_sync(cluster: Cluster, ids: list[int]) -> bool:
    return {r.broker_id for r in cluster.info().in_sync_replicas} == set(ids)


def prepared(cluster: Cluster) -> tuple[Master, int, bytes]:
    """Healthy sets and one more confirmed message on every replica of broker-a: its master, the messages in the
    queue and the new one's body."""
    if len(cluster.box.broker_sets()) > 1:
        healthy(cluster.box, replicas=3)
    master = cluster.healthy(timeout=120)
    body = f"before {time.time_ns()}"
    if send(master.address, TOPIC, body).code != ResponseCode.SUCCESS:
        raise RuntimeError("the send before the takeover failed")
    count = len(pull(master.address).messages)
    for i in master.slaves():
        wait_until(partial(holds, cluster.address_of(i), count), 30, f"broker {i} to replicate")
    return master, count, body.encode()


def escape_master_on(box: Sandbox, cluster: Cluster, agent: str) -> str:
    """Move broker-b's master to its replica on `agent` (the acting replica's, which survives); its address."""
    escape = sets(box)[ESCAPE]
    if agent_of(box, escape.master_address) != agent:
        target = next(r.broker_id for r in escape.in_sync_replicas if agent_of(box, r.broker_address) == agent)
        cluster.cli.json("transferMaster", "-c", CLUSTER, "-bn", ESCAPE, "-b", str(target))
        escape = wait_until(lambda: (e := healthy(box, replicas=3)[ESCAPE]).master_broker_id == target and e, 60,
                            "broker-b's master on the acting replica's agent")  # fmt: skip
    return str(escape.master_address)


def set_heartbeat_timeout(address: str, millis: int) -> None:
    values = {"controllerHeartBeatTimeoutMills": str(millis)}
    request = apb.UpdateBrokerConfigRequest(broker=apb.BrokerRef(broker_name=ESCAPE), values=values)
    with AgentClient(timeout=5.0) as agents:
        answer = agents.call(address, "UpdateBrokerConfig", request)
    if answer.code != ResponseCode.SUCCESS:
        raise RuntimeError(f"broker-b's heartbeat timeout not updated: {answer.remark}")


def no_electable_master(box: Sandbox, cluster: Cluster, limit_s: float, heartbeat_timeout_ms: int) -> Took:
    master, count, body = prepared(cluster)
    outsider = max(master.slaves())
    members = [i for i in master.ids if i != outsider]
    agent, address = cluster.agent_of(outsider), cluster.address_of(outsider)
    access_point = next(a.proxyAddress for a in box.agents() if a.id == agent)
    member_agents = [cluster.agent_of(i) for i in members]
    escape_master = escape_master_on(box, cluster, agent)
    set_heartbeat_timeout(escape_master, PAUSED_HEARTBEAT_TIMEOUT_MS)
    time.sleep(BEATS_S)
    box.signal(agent, signal.SIGSTOP)
    try:
        wait_until(partial(in_sync, cluster, members), 60, "the master to shrink the SyncStateSet")
        for member in member_agents:
            box.signal(member, signal.SIGKILL)
    finally:
        box.signal(agent, signal.SIGCONT)
    try:
        took = served(access_point, address, outsider, count, body, limit_s)
    except RuntimeError as exc:  # say whether the escape target survived the pause: a receive needs it
        now = sets(box)[ESCAPE].master_address or "none"
        raise RuntimeError(f"{exc}; broker-b's master: {now} (placed at {escape_master})") from exc
    set_heartbeat_timeout(escape_master, heartbeat_timeout_ms)
    if cluster.master() is not None:
        raise RuntimeError("the controller elected a master outside the SyncStateSet")
    if sets(box)[ESCAPE].master_address != escape_master:
        raise RuntimeError("broker-b's master changed: the escape target was not the one placed")
    return took


def controllers_down(box: Sandbox, cluster: Cluster, limit_s: float) -> Took:
    master, count, body = prepared(cluster)
    actor = min(master.slaves())
    agent, address = cluster.agent_of(actor), cluster.address_of(actor)
    access_point = next(a.proxyAddress for a in box.agents() if a.id == agent)
    master_agent = cluster.agent_of(master.broker_id)
    escape_master_on(box, cluster, agent)
    for controller in box.controllers():
        box.stop(controller.id)
    box.signal(master_agent, signal.SIGKILL)
    return served(access_point, address, actor, count, body, limit_s)


def restarted_slaves(box: Sandbox, cluster: Cluster, limit_s: float) -> Took:
    """A rack restart (no master to follow), measured through the access point of the slave that does not act."""
    master, count, body = prepared(cluster)
    actor, other = sorted(master.slaves())
    slave_agents = [cluster.agent_of(i) for i in (actor, other)]
    address, access_point = cluster.address_of(actor), proxy_of(box, cluster.agent_of(other))
    for agent in slave_agents:
        box.stop(agent)
    wait_until(partial(in_sync, cluster, [master.broker_id]), 60, "the SyncStateSet to shrink to the master")
    box.signal(cluster.agent_of(master.broker_id), signal.SIGKILL)
    for agent in slave_agents:
        box.start(agent)
    return served(access_point, address, actor, count, body, limit_s)


def controllers_down_elsewhere(box: Sandbox, cluster: Cluster, limit_s: float) -> Took:
    """The controllers-down case through the access point of the slave that does not act."""
    master, count, body = prepared(cluster)
    actor, other = sorted(master.slaves())
    address, access_point = cluster.address_of(actor), proxy_of(box, cluster.agent_of(other))
    master_agent = cluster.agent_of(master.broker_id)
    for controller in box.controllers():
        box.stop(controller.id)
    box.signal(master_agent, signal.SIGKILL)
    return served(access_point, address, actor, count, body, limit_s)


def proxy_of(box: Sandbox, agent: str) -> str:
    return next(a.proxyAddress for a in box.agents() if a.id == agent)


def restarted(box: Sandbox) -> None:
    for process in box.processes():
        box.start(process.id)
    if len(box.broker_sets()) > 1:
        healthy(box, replicas=3)
    else:
        box.wait_for_brokers(timeout=120)


def learnt(box: Sandbox, cli: Cli, version: int) -> bool:
    """Whether every broker of every agent has learnt the controllers' metadata `version`."""
    brokers = [b for a in box.agents() for b in cli.json("listBrokers", "-c", a.address)]
    return all((b["metadataVersion"] or -1) >= version for b in brokers)


def summary(name: str, values: list[float], target_s: float | None) -> list[str]:
    if target_s is None:
        return [name, str(len(values)), ms(percentile(values, 50)), ms(max(values)), "-", "-"]
    met = "yes" if max(values) < target_s else "no"
    return [name, str(len(values)), ms(percentile(values, 50)), ms(max(values)), f"< {ms(target_s)}", met]


def main() -> None:
    args = parse_args(__doc__, options)
    runs = 1 if args.quick else args.runs
    config = {
        "enableSlaveActingMaster": "true",
        "controllerHeartBeatTimeoutMills": str(args.heartbeat_timeout_ms),
        "brokerNotActiveTimeoutMillis": str(args.not_active_ms),
        "syncBrokerMetadataPeriod": "500",
        "haMaxTimeSlaveNotCatchup": "3000",
        "allAckInSyncStateSet": "false",
    }
    targets = {"no electable master": args.heartbeat_timeout_ms / 1000 + MARGIN_S,
               "controllers down": args.not_active_ms / 1000 + MARGIN_S}  # fmt: skip
    cases: dict[str, Callable[[Sandbox, Cluster, float], Took]] = {
        "no electable master": partial(no_electable_master, heartbeat_timeout_ms=args.heartbeat_timeout_ms),
        "controllers down": controllers_down,
    }
    defaults: dict[str, Callable[[Sandbox, Cluster, float], Took]] = {
        "defaults, restarted slaves": restarted_slaves,
        "defaults, controllers down": controllers_down_elsewhere,
    }
    targets |= {"defaults, restarted slaves": SANDBOX_HEARTBEAT_TIMEOUT_S + MARGIN_S,
                "defaults, controllers down": BROKER_NOT_ACTIVE_TIMEOUT_MS / 1000 + MARGIN_S}  # fmt: skip
    times: dict[str, list[Took]] = {name: [] for name in (*cases, *defaults)}
    logs = ""
    for set_count, broker_config, phase in ((2, config, cases), (1, {"enableSlaveActingMaster": "true"}, defaults)):
        with sandbox(1, broker_sets=set_count, replicas=3, broker_config=broker_config) as box:
            box.wait_for_brokers(timeout=60.0)
            cluster = Cluster(Cli(Path(box.dir), box.addresses()), box.addresses())
            try:
                cluster.create_topic(TOPIC, 1)
                made = cluster.cli.json("updateSubGroup", "-c", CLUSTER, "-g", GROUP)
                wait_until(partial(learnt, box, cluster.cli, made["metadataVersion"]), 60,
                           "every broker to learn the topic and the group")  # fmt: skip
                steps = [(run, name, case) for run in range(runs) for name, case in phase.items()]
                for step, (run, name, case) in enumerate(steps, 1):
                    times[name].append(case(box, cluster, 10 * targets[name]))
                    acting, took, popped = times[name][-1]
                    print(f"  run {run + 1}, {name}: acting after {ms(acting)} ms, serving after {ms(took)} ms, "
                          f"POP receive after {ms(popped)} ms", flush=True)  # fmt: skip
                    if step < len(steps):  # the sandbox of the last one is only stopped
                        restarted(box)
            finally:
                cluster.close()
            logs += log_summary(box) + "\n"
    print(f"\nmachine: {machine_note()}; 1 controller, 3 agents, 2 sets, controllerHeartBeatTimeoutMills="
          f"{args.heartbeat_timeout_ms}, brokerNotActiveTimeoutMillis={args.not_active_ms}; then (defaults) 1 set, "
          f"the sandbox's settings, brokerNotActiveTimeoutMillis={BROKER_NOT_ACTIVE_TIMEOUT_MS}")  # fmt: skip
    print_table(
        "Acting master takeover: no master → acting replica routed read-only, serving a read, serving consumers (ms)",
        ["case", "runs", "median", "max", "target", "met (max)"],
        [row for name, what in (("no electable master", "last SyncStateSet member SIGKILLed"),
                                 ("controllers down", "controller stopped, then master SIGKILLed"),
                                 ("defaults, restarted slaves", "slaves restarted after the master's SIGKILL"),
                                 ("defaults, controllers down", "through the other slave's access point"))
         for row in (summary(f"{name} ({what}): acting starts", [a for a, _, _ in times[name]], None),
                     summary(f"{name}: routed read-only and serving a read", [t for _, t, _ in times[name]],
                             targets[name]),
                     summary(f"{name}: POP receive served", [p for _, _, p in times[name]], targets[name]))],
    )  # fmt: skip
    print(logs)


if __name__ == "__main__":
    main()
