"""RIP-32 acting master takeover (issue 27): from "the set has no master" to "the acting replica is routed and serves
a read", on 1 controller and 3 real agents (one broker set of three replicas, ``enableSlaveActingMaster=true``).

Two ways a set loses its master, each `--runs` times in the same run:

* *no electable master* (controller up, unclean election off): one slave is left out of the SyncStateSet (SIGSTOP
  until the master shrinks the set, then SIGCONT), then every SyncStateSet member's agent is SIGKILLed; the clock
  starts when the last one is killed. Target: ``controllerHeartBeatTimeoutMills`` + 1 s.
* *controllers down*: the controller is stopped, then the master's agent SIGKILLed; the clock starts at the kill.
  The smallest slave acts once the master is unseen for ``brokerNotActiveTimeoutMillis``. Target: that + 1 s.

The clock stops when the acting replica's access point routes the topic read-only at itself (QueryRoute, polled
every 20 ms) and a PullMessage on the replica then returns the message sent (and confirmed) before. Between runs
everything is started again and the set waits for a master and a full SyncStateSet.
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
from mqadmin_py.sandbox import Sandbox
from mqbase.codes import ResponseCode
from tests.harness.sandbox import Cli, Cluster, Master, send
from tests.harness.wait import wait_until
from tests.integration.test_slave_acting_master import TOPIC, pull, route

POLL_S = 0.02
MARGIN_S = 1.0


def options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", type=int, default=5, help="runs of each case (default 5)")
    parser.add_argument("--heartbeat-timeout-ms", type=int, default=3000, help="controllerHeartBeatTimeoutMills")
    parser.add_argument("--not-active-ms", type=int, default=3000, help="brokerNotActiveTimeoutMillis")


def served(access_point: str, address: str, count: int, started: float, limit_s: float) -> float:
    """Seconds since `started` until `access_point` routes the topic read-only at itself and the replica at `address`
    then serves the `count` messages sent before."""
    while time.perf_counter() - started < limit_s:
        try:
            if route(access_point) == [(v2.READ, [access_point])]:
                answer = pull(address)
                if answer.code == ResponseCode.SUCCESS and len(answer.messages) == count:
                    return time.perf_counter() - started
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


def no_electable_master(box: Sandbox, cluster: Cluster, limit_s: float) -> float:
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
        started = time.perf_counter()
    finally:
        box.signal(agent, signal.SIGCONT)
    took = served(access_point, address, count, started, limit_s)
    if cluster.master() is not None:
        raise RuntimeError("the controller elected a master outside the SyncStateSet")
    return took


def controllers_down(box: Sandbox, cluster: Cluster, limit_s: float) -> float:
    master, count = prepared(cluster)
    actor = min(master.slaves())
    agent, address = cluster.agent_of(actor), cluster.address_of(actor)
    access_point = next(a.proxyAddress for a in box.agents() if a.id == agent)
    master_agent = cluster.agent_of(master.broker_id)
    for controller in box.controllers():
        box.stop(controller.id)
    box.signal(master_agent, signal.SIGKILL)
    started = time.perf_counter()
    return served(access_point, address, count, started, limit_s)


def restarted(box: Sandbox, cluster: Cluster) -> None:
    for process in box.processes():
        box.start(process.id)
    cluster.healthy(timeout=120)


def summary(name: str, values: list[float], target_s: float) -> list[str]:
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
    cases: dict[str, Callable[[Sandbox, Cluster, float], float]] = {
        "no electable master": no_electable_master,
        "controllers down": controllers_down,
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    with sandbox(1, broker_sets=1, replicas=3, broker_config=config) as box:
        box.wait_for_brokers(timeout=60.0)
        cluster = Cluster(Cli(Path(box.dir), box.addresses()), box.addresses())
        try:
            cluster.create_topic(TOPIC, 1)
            for run in range(runs):
                for name, case in cases.items():
                    times[name].append(case(box, cluster, 10 * targets[name]))
                    print(f"  run {run + 1}, {name}: {ms(times[name][-1])} ms", flush=True)
                    restarted(box, cluster)
        finally:
            cluster.close()
        logs = log_summary(box)
    print(f"\nmachine: {machine_note()}; 1 controller, 3 agents, controllerHeartBeatTimeoutMills="
          f"{args.heartbeat_timeout_ms}, brokerNotActiveTimeoutMillis={args.not_active_ms}")  # fmt: skip
    print_table(
        "Acting master takeover: no master → acting replica routed read-only and serving a read (ms)",
        ["case", "runs", "median", "max", "target", "met (max)"],
        [summary("no electable master (last SyncStateSet member SIGKILLed)", times["no electable master"],
                 targets["no electable master"]),
         summary("controllers down, then master SIGKILLed", times["controllers down"], targets["controllers down"])],
    )  # fmt: skip
    print(logs)


if __name__ == "__main__":
    main()
