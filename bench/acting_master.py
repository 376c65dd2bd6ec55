"""RIP-32 acting master takeover (issue 27): from "the set has no master" to "the acting replica is routed and serves
a read", on 1 controller and 3 real agents (one broker set of three replicas, ``enableSlaveActingMaster=true``).

Two ways a set loses its master, each `--runs` times in the same run:

* *no electable master* (controller up, unclean election off): one slave is left out of the SyncStateSet (SIGSTOP
  until the master shrinks the set, then SIGCONT), then every SyncStateSet member's agent is SIGKILLed; the clock
  starts when the last one is killed. Target: ``controllerHeartBeatTimeoutMills`` + 1 s.
* *controllers down*: the controller is stopped, then the master's agent SIGKILLed; the clock starts at the kill.
  The smallest slave acts once the master is unseen for ``brokerNotActiveTimeoutMillis``. Target: that + 1 s.

The clock stops when the acting replica's access point routes the topic read-only at itself (QueryRoute, polled
every 20 ms) and a PullMessage on the replica then returns the message sent (and confirmed) before. Also shown:
when the replica started acting (its ``actingSince``, wall clock, same machine): the part before routing. Between
runs everything is started again and the set waits for a master and a full SyncStateSet.
"""

from __future__ import annotations

import argparse
import signal
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from _common import MqError, grpc, log_summary, machine_note, ms, parse_args, percentile, print_table, sandbox

from agents.access.protocol import v2
from mqadmin_py.commands.controller import acting_since
from mqadmin_py.sandbox import Sandbox
from mqbase.client import AgentClient
from mqbase.codes import ResponseCode
from tests.harness.sandbox import BROKER, Cli, Cluster, Master, send
from tests.harness.wait import wait_until
from tests.integration.test_slave_acting_master import TOPIC, pull, route

POLL_S = 0.02
MARGIN_S = 1.0


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", type=int, default=5, help="runs of each case (default 5)")
    parser.add_argument("--heartbeat-timeout-ms", type=int, default=3000, help="controllerHeartBeatTimeoutMills")
    parser.add_argument("--not-active-ms", type=int, default=3000, help="brokerNotActiveTimeoutMillis")


Took = tuple[float, float]
"""Seconds from "no master" until the replica started acting (its own actingSince) and until routed and serving."""


def served(access_point: str, address: str, broker_id: int, count: int, limit_s: float) -> Took:
    """Poll, from now (the set just lost its master), until `access_point` routes the topic read-only at itself and
    the replica at `address` then serves the `count` messages sent before; then ask it since when it acts."""
    started, wall = time.perf_counter(), time.time()
    while time.perf_counter() - started < limit_s:
        try:
            if route(access_point) == [(v2.READ, [access_point])]:
                answer = pull(address)
                if answer.code == ResponseCode.SUCCESS and len(answer.messages) == count:
                    took = time.perf_counter() - started
                    with AgentClient(timeout=5.0) as agents:
                        since_ms = acting_since(agents, address, BROKER, broker_id)
                    if not since_ms:
                        raise RuntimeError(f"broker {broker_id} is routed read-only but does not say it acts")
                    return since_ms / 1000 - wall, took
        except (MqError, grpc.RpcError, AssertionError):  # not answering yet, or a route answer not OK: poll again
            pass
        time.sleep(POLL_S)
    raise RuntimeError(f"{address} was not routed read-only and serving within {limit_s:.0f} s")


def holds(address: str, count: int) -> bool:
    return len(pull(address).messages) == count


def in_sync(cluster: Cluster, ids: list[int]) -> bool:
    return {r.broker_id for r in cluster.info().in_sync_replicas} == set(ids)


def prepared(cluster: Cluster) -> tuple[Master, int]:
    """A healthy set with one more confirmed message on every replica: its master, and the messages in the queue."""
    master = cluster.healthy(timeout=120)
    if send(master.address, TOPIC, "before").code != ResponseCode.SUCCESS:
        raise RuntimeError("the send before the takeover failed")
    count = len(pull(master.address).messages)
    for i in master.slaves():
        wait_until(partial(holds, cluster.address_of(i), count), 30, f"broker {i} to replicate")
    return master, count


def no_electable_master(box: Sandbox, cluster: Cluster, limit_s: float) -> Took:
    master, count = prepared(cluster)
    outsider = max(master.slaves())
    members = [i for i in master.ids if i != outsider]
    agent, address = cluster.agent_of(outsider), cluster.address_of(outsider)
    access_point = next(a.proxyAddress for a in box.agents() if a.id == agent)
    member_agents = [cluster.agent_of(i) for i in members]
    box.signal(agent, signal.SIGSTOP)
    try:
        wait_until(partial(in_sync, cluster, members), 60, "the master to shrink the SyncStateSet")
        for member in member_agents:
            box.signal(member, signal.SIGKILL)
    finally:
        box.signal(agent, signal.SIGCONT)
    took = served(access_point, address, outsider, count, limit_s)
    if cluster.master() is not None:
        raise RuntimeError("the controller elected a master outside the SyncStateSet")
    return took


def controllers_down(box: Sandbox, cluster: Cluster, limit_s: float) -> Took:
    master, count = prepared(cluster)
    actor = min(master.slaves())
    agent, address = cluster.agent_of(actor), cluster.address_of(actor)
    access_point = next(a.proxyAddress for a in box.agents() if a.id == agent)
    master_agent = cluster.agent_of(master.broker_id)
    for controller in box.controllers():
        box.stop(controller.id)
    box.signal(master_agent, signal.SIGKILL)
    return served(access_point, address, actor, count, limit_s)


def restarted(box: Sandbox, cluster: Cluster) -> None:
    for process in box.processes():
        box.start(process.id)
    cluster.healthy(timeout=120)


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
    }
    targets = {"no electable master": args.heartbeat_timeout_ms / 1000 + MARGIN_S,
               "controllers down": args.not_active_ms / 1000 + MARGIN_S}  # fmt: skip
    cases: dict[str, Callable[[Sandbox, Cluster, float], Took]] = {
        "no electable master": no_electable_master,
        "controllers down": controllers_down,
    }
    times: dict[str, list[Took]] = {name: [] for name in cases}
    with sandbox(1, broker_sets=1, replicas=3, broker_config=config) as box:
        box.wait_for_brokers(timeout=60.0)
        cluster = Cluster(Cli(Path(box.dir), box.addresses()), box.addresses())
        try:
            cluster.create_topic(TOPIC, 1)
            for run in range(runs):
                for name, case in cases.items():
                    times[name].append(case(box, cluster, 10 * targets[name]))
                    acting, took = times[name][-1]
                    print(f"  run {run + 1}, {name}: acting after {ms(acting)} ms, serving after {ms(took)} ms",
                          flush=True)  # fmt: skip
                    restarted(box, cluster)
        finally:
            cluster.close()
        logs = log_summary(box)
    print(f"\nmachine: {machine_note()}; 1 controller, 3 agents, controllerHeartBeatTimeoutMills="
          f"{args.heartbeat_timeout_ms}, brokerNotActiveTimeoutMillis={args.not_active_ms}")  # fmt: skip
    print_table(
        "Acting master takeover: no master → acting replica routed read-only and serving a read (ms)",
        ["case", "runs", "median", "max", "target", "met (max)"],
        [row for name, what in (("no electable master", "last SyncStateSet member SIGKILLed"),
                                 ("controllers down", "controller stopped, then master SIGKILLed"))
         for row in (summary(f"{name} ({what}): acting starts", [a for a, _ in times[name]], None),
                     summary(f"{name}: routed read-only and serving a read", [t for _, t in times[name]],
                             targets[name]))],
    )  # fmt: skip
    print(logs)


if __name__ == "__main__":
    main()
