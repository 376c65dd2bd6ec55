"""RIP-32's lock quorum across an acting-master episode, with the official client: an orderly group consumes a
FIFO topic's message groups through master → slave acting as master → master again, with ``lockInStrictMode``
false and true.

Two broker sets of three replicas, agent k hosting replica k of both, one controller, ``enableSlaveActingMaster``
on, a short ``rebalanceLockMaxLiveTime``. The FIFO topic lives on broker-a only, so every message group stays on
its queue through the episode (a topic on both sets would move a group to broker-b while broker-a is read-only);
broker-b is the escape set. The episode is test_access_acting_escape.py's (controller stopped, then broker-a's
master's agent SIGKILLed, ``allAckInSyncStateSet=false`` so broker-b, which loses a replica too, stays writable):
it leaves broker-a two replicas of three, a lock majority for the acting one in strict mode. The no-electable
route (test_access_acting_no_electable.py) would leave one, which strict mode can never lock with.

Two consumer clients of the group, each through another surviving agent's access point, take turns; a batch is
held unacked across the kill and comes back on the acting replica once its invisibility ends. What is asserted,
per message group: every message acked once, in send order, the held batch again first (attempt 2). Consumption
pauses over each handover back to a master (until the acting replica has stopped and the master's pre-online is
over): what both modes guarantee then. Coordinators that overlap in time are where non-strict mode can break
order (docs/decisions.md), and SIGKILL leaves no such overlap, so the modes behave alike here; strict mode's extra
guarantee is test_lock_quorum.py's (a second owner is refused while the majority's lock lives).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rocketmq import ClientConfiguration, Credentials, FilterExpression, Message, SimpleConsumer
from rocketmq.v5.exception import ProxyTimeoutException

from mqadmin_py.sandbox import AgentProcess, Sandbox
from tests.harness.escape_sets import (
    CLUSTER,
    ESCAPE,
    HOME,
    NOT_ACTIVE_MS,
    agent_of,
    caught_up,
    healthy,
    held,
    listed,
    sets,
)
from tests.harness.official_client import send_bodies
from tests.harness.sandbox import Cli, all_learnt, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

LIFE_MS = 3000
"""rebalanceLockMaxLiveTime: the acting replica waits at most this long for the dead master's locks to expire."""
BROKER_CONF = {
    "allAckInSyncStateSet": "false",
    "enableSlaveActingMaster": "true",
    "brokerNotActiveTimeoutMillis": str(NOT_ACTIVE_MS),
    "syncBrokerMetadataPeriod": "500",
    "rebalanceLockMaxLiveTime": str(LIFE_MS),
}
MESSAGE_GROUPS = ("g0", "g1", "g2", "g3")
BEFORE, AFTER = 12, 3
"""Messages per message group sent before the episode, and after the master is back."""
INVISIBLE_S = 10


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with serving_sandbox(
        Path(tmp_path_factory.mktemp("rip32-fifo")), controllers=1, replicas=3, broker_sets=2,
        broker_config=BROKER_CONF,
    ) as sandbox:  # fmt: skip
        yield sandbox


class Ledger:
    """What the group received, per message group in order, and each message's last delivery attempt."""

    def __init__(self) -> None:
        self.order: dict[str, list[int]] = {g: [] for g in MESSAGE_GROUPS}
        self.attempts: dict[str, int] = {}

    def total(self) -> int:
        return sum(map(len, self.order.values()))

    def record(self, m: Message) -> None:
        body = m.body.decode()
        group, i = body.split(":")
        assert m.message_group == group
        self.order[group].append(int(i))
        self.attempts[body] = m.delivery_attempt

    def take(self, consumers: list[SimpleConsumer], enough: Callable[[], bool], timeout: float, what: str) -> None:
        """The consumers receive and ack in turns until `enough`. A receive the access point held for want of a
        master or acting replica that answers (between the kill and the acting, while it learns where the set is
        served) ends in PROXY_TIMEOUT, delivering nothing; the client is told to retry, and the turn passes."""
        deadline = time.monotonic() + timeout
        turn = 0
        while not enough() and time.monotonic() < deadline:
            consumer = consumers[turn % len(consumers)]
            turn += 1
            try:
                received = consumer.receive(4, INVISIBLE_S)
            except ProxyTimeoutException:
                continue
            for m in received:
                self.record(m)
                consumer.ack(m)
        assert enough(), f"{what}: {self.order}"

    def reached(self, total: int) -> Callable[[], bool]:
        return lambda: self.total() >= total


def everything_up(box: Sandbox) -> None:
    """Restart what an earlier run left stopped, so that a failed mode does not fail the next one."""
    for process in box.processes():
        if not process.pid:
            box.start(process.id)
    box.wait_for_leader(timeout=60)


def acting_agent(box: Sandbox, agents: list[AgentProcess]) -> AgentProcess | None:
    return next((a for a in agents if listed(a.address, HOME).acting_master), None)


def serving(box: Sandbox, survivors: list[AgentProcess]) -> int:
    """broker-a's master id once it serves the group alone: every replica in sync, nobody acting, its pre-online
    over (until then the access points hold receives, and may answer PROXY_TIMEOUT)."""
    master = healthy(box, replicas=3)[HOME]
    wait_until(lambda: acting_agent(box, survivors) is None, 30, "acting to stop")
    address = next(a.address for a in box.agents() if a.id == agent_of(box, master.master_address))
    wait_until(lambda: not listed(address, HOME).pre_online, 60, "the master's pre-online to end")
    return int(master.master_broker_id)


@pytest.mark.parametrize("strict", [False, True], ids=["not-strict", "strict"])
def test_each_message_group_is_consumed_in_order_across_an_acting_master_episode(box: Sandbox, strict: bool) -> None:
    everything_up(box)
    cli = Cli(box.dir, box.addresses())
    mode = "strict" if strict else "loose"
    topic, group = f"Rip32Fifo_{mode}", f"GID_rip32_fifo_{mode}"
    cli.json("updateBrokerConfig", "-c", CLUSTER, "-k", "lockInStrictMode", "-v", str(strict).lower())
    cli.json("updateTopic", "-b", HOME, "-t", topic, "-r", "2", "-w", "2", "--attributes", "+message.type=FIFO")
    made = cli.json("updateSubGroup", "-c", CLUSTER, "-g", group, "--consume-orderly", "true")

    wait_until(lambda: all_learnt(cli, box, made["metadataVersion"]), 60, "every broker to learn the orderly group")
    found = healthy(box, replicas=3)
    home_agent = agent_of(box, found[HOME].master_address)
    if agent_of(box, found[ESCAPE].master_address) == home_agent:  # the escape set's master must survive the kill
        other = next(r for r in found[ESCAPE].in_sync_replicas if agent_of(box, r.broker_address) != home_agent)
        cli.json("transferMaster", "-c", CLUSTER, "-bn", ESCAPE, "-b", str(other.broker_id))
        found = healthy(box, replicas=3)
    assert agent_of(box, found[ESCAPE].master_address) != home_agent
    old_master = found[HOME].master_broker_id
    survivors = [a for a in box.agents() if a.id != home_agent]
    home_replicas = {agent_of(box, r.broker_address): r.broker_address for r in found[HOME].in_sync_replicas}

    for g in MESSAGE_GROUPS:
        send_bodies(survivors[0].proxyAddress, topic, [f"{g}:{i}" for i in range(BEFORE)], group=g)
    consumers = [
        SimpleConsumer(ClientConfiguration(a.proxyAddress, Credentials()), group, {topic: FilterExpression()}, 2)
        for a in survivors
    ]
    for consumer in consumers:
        consumer.startup()
    ledger = Ledger()
    try:
        # On the master: part of each message group, then a batch held unacked by one client while the other asks.
        ledger.take(consumers, ledger.reached(12), 60, "a part on the master")
        unacked = wait_until(lambda: consumers[0].receive(4, INVISIBLE_S), 30, "a batch to hold unacked")
        for m in consumers[1].receive(4, INVISIBLE_S):
            ledger.record(m)
            consumers[1].ack(m)
        master_address = found[HOME].master_address
        wait_until(lambda: all(caught_up(master_address, home_replicas[a.id]) for a in survivors), 30,
                   "both slaves to hold and confirm everything")  # fmt: skip

        # No master and nobody to elect one: a survivor acts, and the group goes on through it.
        for controller in box.controllers():
            box.stop(controller.id)
        box.signal(home_agent, signal.SIGKILL)
        actor = wait_until(lambda: acting_agent(box, survivors), 30 + NOT_ACTIVE_MS / 1000, "a survivor to act")
        unacked_bodies = {m.body.decode() for m in unacked}
        part = ledger.reached(len(MESSAGE_GROUPS) * BEFORE * 2 // 3)
        ledger.take(consumers, lambda: part() and unacked_bodies <= set(ledger.attempts), INVISIBLE_S + 60,
                    "a part and the held batch again on the acting replica")  # fmt: skip
        assert listed(actor.address, HOME).acting_master, "the episode ended before the test's point"
        assert held(found[ESCAPE].master_address), "the acting replica escaped nothing"

        # The controller and the old master come back; the master role returns to the old master.
        for controller in box.controllers():
            box.start(controller.id)
        box.start(home_agent)
        for _ in range(2):  # the master elected first, then the master role back on the old master
            master = serving(box, survivors)
            ledger.take(consumers, ledger.reached(ledger.total() + 4), 60, "a few on the master")
            if master == old_master:
                break
            cli.json("transferMaster", "-c", CLUSTER, "-bn", HOME, "-b", str(old_master))
        assert sets(box)[HOME].master_broker_id == old_master

        for g in MESSAGE_GROUPS:
            send_bodies(survivors[0].proxyAddress, topic, [f"{g}:{i}" for i in range(BEFORE, BEFORE + AFTER)], group=g)
        ledger.take(consumers, ledger.reached(len(MESSAGE_GROUPS) * (BEFORE + AFTER)), 60, "the rest")
        assert [m for c in consumers for m in c.receive(32, INVISIBLE_S)] == [], "a message came again"
    finally:
        for consumer in consumers:
            consumer.shutdown()
    assert ledger.order == {g: list(range(BEFORE + AFTER)) for g in MESSAGE_GROUPS}
    assert {b: n for b, n in ledger.attempts.items() if n != 1} == dict.fromkeys(unacked_bodies, 2)
