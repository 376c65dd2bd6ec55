"""RIP-32 as users meet it: default settings but ``enableSlaveActingMaster``, replicas restarted rather than
paused, and the official clients (Java in the first episode, Python in the others: each meets an acting replica
once, which keeps the suite's time down) connected through the access point of a host whose replica does not act.

One controller; agent k hosts replica k of every set. Each episode has a sandbox of its own:

1. *No electable master, slaves restarted*: the slaves' agents are stopped until the SyncStateSet shrinks to the
   master, the master's agent is SIGKILLed, the slaves' agents start again (fenced: no master to follow). The
   controller can elect nobody; the smaller restarted replica acts and serves what it holds.
2. *Controllers down, then the master dies*: the slave with the smallest id acts once the master has been unseen
   for ``brokerNotActiveTimeoutMillis`` (10 s) and the access points learn it from the set's agents.
3. *Delayed messages due during the episode*, two sets, the other one healthy: the acting replica delivers them
   through broker-b's master (the escape bridge).

In the one-set episodes no other set has a master, so the acting replica keeps its consumers' changes in its escape
journal. Each episode ends with the master back: its pre-online takes the acting replica's changes back, no acked
message is delivered again, the rest is delivered once, and the acting replica wrote nothing to its commit log.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from rocketmq import ClientConfiguration, Credentials, FilterExpression, SimpleConsumer

from agents.access.protocol import service, stubs, v2
from mqadmin_py.sandbox import AgentProcess, Sandbox
from mqbase.client import AgentClient, ControllerClient
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as apb
from mqbase.proto import controller_pb2 as cpb
from tests.harness.client_scenarios import driver_for
from tests.harness.official_client import consume, send
from tests.harness.sandbox import Cli, all_learnt, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CLUSTER, HOME, OTHER = "DefaultCluster", "broker-a", "broker-b"
TOPIC, DELAY_TOPIC, GROUP = "UsersTopic", "UsersLater", "GID_users"
CLIENT = (("x-mq-client-id", "acting-defaults-test"),)
BROKER_CONF = {"enableSlaveActingMaster": "true"}
"""Every other key at its default: brokerNotActiveTimeoutMillis 10 s, the controller's 10 s heartbeat timeout,
syncBrokerMetadataPeriod 5 s, haMaxTimeSlaveNotCatchup 15 s."""


def sandbox(tmp: pytest.TempPathFactory, name: str, broker_sets: int = 1) -> Iterator[Sandbox]:
    with serving_sandbox(
        Path(tmp.mktemp(name)), controllers=1, replicas=3, broker_sets=broker_sets, broker_config=BROKER_CONF
    ) as box:
        cli = Cli(box.dir, box.addresses())
        cli.json("updateTopic", "-c", CLUSTER, "-t", TOPIC, "-r", "2", "-w", "2")
        cli.json("updateTopic", "-c", CLUSTER, "-t", DELAY_TOPIC, "-r", "2", "-w", "2",
                 "--attributes", "+message.type=DELAY")  # fmt: skip
        made = cli.json("updateSubGroup", "-c", CLUSTER, "-g", GROUP)
        wait_until(lambda: all_learnt(cli, box, made["metadataVersion"]), 60, "every broker to learn the metadata")
        yield box


@pytest.fixture
def one_set(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    yield from sandbox(tmp_path_factory, "rip32-users")


def info(box: Sandbox, name: str = HOME) -> Any:
    """The controller's ReplicasInfo of set `name`."""
    with ControllerClient(box.addresses(), timeout=3.0) as client:
        reply = client.call("GetSyncStateData", cpb.GetSyncStateDataRequest(broker_names=[name]))
    assert reply.code == ResponseCode.SUCCESS, reply
    return next(i for i in reply.replicas_info if i.broker_name == name)


def host(box: Sandbox, broker_address: str) -> AgentProcess:
    return next(a for a in box.agents() for b in a.brokers if b.brokerAddress == broker_address)


def listed(agent: AgentProcess, name: str = HOME) -> Any:
    """The agent's broker of set `name`, as ListBrokers lists it (empty while the agent has not opened it yet)."""
    with AgentClient(timeout=5.0) as client:
        answer = client.call(agent.address, "ListBrokers", apb.ListBrokersRequest())
    return next((b for b in answer.brokers if b.broker_name == name), apb.HostedBroker(pre_online=True))


def ha(agent: AgentProcess, name: str = HOME) -> Any:
    with AgentClient(timeout=5.0) as client:
        return client.call(agent.address, "GetHAStatus", apb.BrokerRef(broker_name=name))


def journal(agent: AgentProcess) -> bytes:
    """What the replica of broker-a on `agent` holds in its escape journal (the records' wire)."""
    with AgentClient(timeout=5.0) as client:
        answer = client.call(
            agent.address, "GetEscaped", apb.GetEscapedRequest(broker=apb.BrokerRef(broker_name=HOME), home=HOME)
        )
    assert answer.code == ResponseCode.SUCCESS, answer
    return bytes(answer.records)


def roles(box: Sandbox, name: str = HOME) -> tuple[AgentProcess, list[AgentProcess]]:
    """The master's agent and the slaves' agents by broker id, once every replica is in sync."""
    full = wait_until(
        lambda: (i := info(box, name)).HasField("master_broker_id") and len(i.in_sync_replicas) == 3 and i,
        60, f"{name}: a master and three replicas in sync",
    )  # fmt: skip
    slaves = sorted(
        (r for r in full.in_sync_replicas if r.broker_id != full.master_broker_id), key=lambda r: r.broker_id
    )
    return host(box, full.master_address), [host(box, r.broker_address) for r in slaves]


def by_id(replica: Any) -> int:
    return int(replica.broker_id)


def caught_up(master: AgentProcess, slaves: list[AgentProcess]) -> bool:
    top = ha(master).max_offset
    return all(ha(s).max_offset >= top and ha(s).confirm_offset >= top for s in slaves)


def consumer(endpoints: str, group: str = GROUP, topic: str = TOPIC) -> SimpleConsumer:
    c = SimpleConsumer(ClientConfiguration(endpoints, Credentials()), group, {topic: FilterExpression()}, 2)
    c.startup()
    return c


class Group:
    """The group's consumer as one official client runs it, through one access point: `take` receives and acks
    until `count` messages were acked (or none came for a while), and says how often each id was delivered."""

    def __init__(self, client: str, endpoints: str) -> None:
        self.client, self.endpoints = client, endpoints
        self._python = consumer(endpoints) if client == "python" else None
        self._java = driver_for("java") if client == "java" else None

    def take(self, count: int, idle_s: int = 20) -> dict[str, int]:
        got: dict[str, int] = {}
        if self._python is not None:
            consume(
                self._python, got, lambda: len(got) >= count, batch=8, timeout_s=idle_s * 3 if count > 1 else idle_s
            )
            return got
        assert self._java is not None
        run = self._java.run("receive", self.endpoints, TOPIC, "--group", GROUP, "--count", str(count),
                             "--idle-seconds", str(idle_s), timeout=idle_s * 6)  # fmt: skip
        assert not [a for a in run.ops("ack") if not a["ok"]], run.ops("ack")
        for line in run.ops("receive"):
            got[line["id"]] = got.get(line["id"], 0) + 1
        return got

    def close(self) -> None:
        if self._python is not None:
            self._python.shutdown()


def back_online(box: Sandbox, actor: AgentProcess, access_point: str) -> None:
    """broker-a has a master again that serves (its pre-online over), the replica that acted stopped, and the
    access point routes broker-a writable again (a producer that starts before gets read-only queues only)."""
    master = wait_until(lambda: info(box).master_address or None, 90, "broker-a's master")
    wait_until(lambda: not listed(actor).acting_master, 30, "acting to stop")
    wait_until(lambda: not listed(host(box, master)).pre_online, 60, "the master's pre-online to end")
    wait_until(lambda: writable(access_point), 30, "the access point to route broker-a writable")


def writable(access_point: str) -> bool:
    """Whether the access point routes a queue of broker-a writable (QueryRoute, as the clients ask)."""
    with grpc.insecure_channel(access_point) as channel:
        request = service.QueryRouteRequest(topic=v2.Resource(name=TOPIC))
        answer = stubs.MessagingServiceStub(channel).QueryRoute(request, metadata=CLIENT, timeout=10)
    queues = answer.message_queues
    return any(q.broker.name == HOME and q.permission in (v2.WRITE, v2.READ_WRITE) for q in queues)


def served_by(actor: AgentProcess, c: Group, acked: dict[str, int], sent: set[str]) -> dict[str, int]:
    """The group takes the rest of `sent` from the acting replica, each once, and the replica keeps the changes in
    its escape journal without writing its commit log; what was taken."""
    written = ha(actor).max_offset
    during = c.take(len(sent - set(acked)))
    assert not set(during) & set(acked) and set(during) | set(acked) == sent
    assert all(n == 1 for n in during.values())
    assert journal(actor), "the acting replica kept no change in its escape journal"
    assert ha(actor).max_offset == written, "the acting replica wrote its commit log"
    return during


def the_rest_once(c: Group, acked: dict[str, int], expected: set[str]) -> None:
    """Receive and ack until `expected` is in; no message acked before may come back, none may come twice, and
    nothing else is left."""
    rest = c.take(len(expected))
    assert not set(rest) & set(acked), "a message acked during the episode came back"
    assert set(rest) == expected and all(n == 1 for n in rest.values())
    assert c.take(1, idle_s=6) == {}, "a message was delivered again"


@pytest.mark.parametrize("client", ["java"])
def test_restarted_replicas_of_a_set_with_no_electable_master_serve_it(one_set: Sandbox, client: str) -> None:
    box = one_set
    master, slaves = roles(box)
    before = send(master.proxyAddress, TOPIC, 30)
    wait_until(lambda: caught_up(master, slaves), 30, "the slaves to hold and confirm everything")
    first = Group(client, master.proxyAddress)
    try:
        acked = first.take(8)
    finally:
        first.close()

    for s in slaves:  # a rack restart: the slaves go first ...
        box.stop(s.id)
    wait_until(lambda: len(info(box).in_sync_replicas) == 1, 60, "the SyncStateSet to shrink to the master")
    after = send(master.proxyAddress, TOPIC, 10)  # the master alone holds these
    box.signal(master.id, signal.SIGKILL)  # ... then the master dies, and the slaves come back
    for s in slaves:
        box.start(s.id)
    actor, other = slaves
    wait_until(lambda: listed(actor).acting_master, 60, "the smaller restarted replica to act")
    assert not listed(other).acting_master
    c = Group(client, other.proxyAddress)  # the host whose replica does not act
    try:
        acked |= served_by(actor, c, acked, before)

        box.start(master.id)  # the only SyncStateSet member: elected, it takes the episode's changes back
        back_online(box, actor, other.proxyAddress)
        the_rest_once(c, acked, after)
    finally:
        c.close()
    wait_until(lambda: not journal(actor), 30, "the master to release the journal it took back")


@pytest.mark.parametrize("client", ["python"])
def test_with_the_controllers_down_the_slaves_serve_a_set_whose_master_died(one_set: Sandbox, client: str) -> None:
    box = one_set
    master, slaves = roles(box)
    actor, other = slaves
    sent = send(master.proxyAddress, TOPIC, 30)
    wait_until(lambda: caught_up(master, slaves), 30, "the slaves to hold and confirm everything")
    c = Group(client, other.proxyAddress)
    try:
        acked = c.take(8)
        for controller in box.controllers():
            box.stop(controller.id)
        box.signal(master.id, signal.SIGKILL)
        wait_until(lambda: listed(actor).acting_master, 60, "the slave with the smallest id to act")
        assert not listed(other).acting_master
        acked |= served_by(actor, c, acked, sent)

        for controller in box.controllers():
            box.start(controller.id)
        box.start(master.id)
        back_online(box, actor, other.proxyAddress)
        more = send(other.proxyAddress, TOPIC, 10)
        the_rest_once(c, acked, more)
    finally:
        c.close()
    wait_until(lambda: not journal(actor), 30, "the master to release the journal it took back")


@pytest.fixture
def two_sets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    yield from sandbox(tmp_path_factory, "rip32-users-delay", broker_sets=2)


def test_delayed_messages_due_while_a_restarted_replica_acts_are_delivered_once(two_sets: Sandbox) -> None:
    box = two_sets
    cli = Cli(box.dir, box.addresses())
    master, _ = roles(box)
    other_master, _ = roles(box, OTHER)
    outsider = next(a for a in box.agents() if a.id not in {master.id, other_master.id})
    others = [a for a in box.agents() if a.id != outsider.id]
    ids = {host(box, r.broker_address).id: r.broker_id for r in info(box).in_sync_replicas}
    bystander = others[0]  # its access point serves the client throughout; its replica of broker-a never acts

    due_s = int(time.time()) + 30  # falls due while broker-a has no master
    delayed = send(bystander.proxyAddress, DELAY_TOPIC, 10, due_s)
    wait_until(lambda: caught_up(master, [outsider]), 30, "the outsider to hold and confirm everything")
    c = consumer(bystander.proxyAddress, topic=DELAY_TOPIC)
    try:
        # The outsider's agent restarts: it falls out of both SyncStateSets; meanwhile broker-a's members stop in
        # their agents (RIP-31: broker-b's replicas there go on), so broker-a has no electable master.
        box.stop(outsider.id)
        wait_until(
            lambda: all(ids[outsider.id] not in {r.broker_id for r in info(box, n).in_sync_replicas} for n in (HOME,))
            and len(info(box, OTHER).in_sync_replicas) == 2,
            60, "both SyncStateSets to drop the stopped agent's replicas",
        )  # fmt: skip
        for agent in others:
            cli.json("removeBroker", "-c", agent.address, "-b", f"{CLUSTER}:{HOME}:{ids[agent.id]}")
        box.start(outsider.id)
        wait_until(lambda: listed(outsider).acting_master, 60, "the restarted outsider to act for broker-a")

        got: dict[str, int] = {}
        consume(c, got, lambda: delayed <= set(got), batch=8, timeout_s=90)
        assert set(got) == delayed and all(n == 1 for n in got.values()) and time.time() >= due_s
        assert listed(outsider).acting_master, "the episode ended before the test's point"

        for agent in others:  # broker-a's members come back: one is elected and takes the episode back
            config = next(b.configFile for b in agent.brokers if b.brokerName == HOME)
            cli.json("addBroker", "-c", agent.address, "-b", config)
        back_online(box, outsider, bystander.proxyAddress)
        for _ in range(4):  # each receive asks one set's queues: each set twice
            assert c.receive(32, 20) == [], "a delayed message was delivered twice"
    finally:
        c.shutdown()
