"""End to end: 3 controllers and 3 real mqagent processes hosting one broker set of 3 replicas (allAck on)."""

from __future__ import annotations

import itertools
import signal
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from mqadmin_py.sandbox import Sandbox
from mqbase.client import ControllerClient
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as pb
from mqbase.proto import controller_pb2 as cpb
from tests.harness.agents import BROKER, FAST, AgentProcess, create_topic, master_agent, master_of_set, send
from tests.harness.controllers import CONTROLLER_CONFIG
from tests.harness.processes import unused_port
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]


@pytest.fixture(scope="module")
def controllers(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Sandbox:
    box = Sandbox(Path(tmp_path_factory.mktemp("e2e-controllers")))
    request.addfinalizer(box.down)
    box.up(controllers=3, extra_config=dict(CONTROLLER_CONFIG), timeout=30.0)
    return box


@pytest.fixture
def cluster(controllers: Sandbox, tmp_path: Path) -> Iterator[list[AgentProcess]]:
    """Three agents, one replica of BROKER each, started in order (the first registered becomes master)."""
    addresses = controllers.addresses()
    agents = [AgentProcess(tmp_path, f"agent{i}", addresses, {BROKER: dict(FAST)}) for i in range(3)]
    try:
        agents[0].start()
        wait_until(lambda: agents[0].role(BROKER) == "master", 20, "the first replica to become master")
        create_topic(addresses)
        for a in agents[1:]:
            a.start()
        yield agents
    finally:
        for a in agents:
            a.close()
        with ControllerClient(addresses) as client:  # the next test starts from an empty broker set
            client.call("CleanBrokerData", cpb.CleanBrokerDataRequest(
                cluster_name="E2ECluster", broker_name=BROKER, is_clean_living_broker=True,
                clean_whole_set=True))  # fmt: skip


def sync_state(controllers: Sandbox) -> cpb.ReplicasInfo:
    with ControllerClient(controllers.addresses()) as client:
        response: cpb.GetSyncStateDataResponse = client.call(
            "GetSyncStateData", cpb.GetSyncStateDataRequest(broker_names=[BROKER])
        )
    info: cpb.ReplicasInfo = response.replicas_info[0]
    return info


def settled_master(controllers: Sandbox, cluster: list[AgentProcess]) -> AgentProcess:
    """The master, once all three replicas are in the SyncStateSet."""
    wait_until(lambda: len(sync_state(controllers).in_sync_replicas) == 3, 30, "all three in sync")
    master = master_agent(cluster)
    assert master is not None
    return master


def pull_all(agent: AgentProcess) -> dict[int, list[tuple[int, bytes]]]:
    """Every confirmed message of both queues, as (queue offset, body)."""
    out: dict[int, list[tuple[int, bytes]]] = {}
    for queue_id in (0, 1):
        got: list[tuple[int, bytes]] = []
        offset = 0
        while True:
            response = agent.stub(BROKER).PullMessage(
                pb.PullMessageRequest(
                    broker=pb.BrokerRef(broker_name=BROKER),
                    topic="Orders",
                    queue_id=queue_id,
                    queue_offset=offset,
                    max_messages=256,
                ),
                timeout=5,
            )
            assert response.code == ResponseCode.SUCCESS, response
            if not response.messages:
                break
            got += [(m.queue_offset, m.message.body) for m in response.messages]
            offset = response.next_offset
        out[queue_id] = got
    return out


def test_start_up_replicate_and_read_from_every_replica(controllers: Sandbox, cluster: list[AgentProcess]) -> None:
    first = cluster[0]

    def all_in_sync() -> cpb.ReplicasInfo | None:
        info = sync_state(controllers)
        return info if len(info.in_sync_replicas) == 3 else None

    info = wait_until(all_in_sync, 30, "the SyncStateSet to grow to all three replicas")
    assert info.master_broker_id == first.ha_status(BROKER).broker_id
    assert {a.role(BROKER) for a in cluster[1:]} == {"slave"}
    sent = [send(first, i) for i in range(40)]
    assert {r.code for r in sent} == {ResponseCode.SUCCESS}, [r.remark for r in sent if r.code]
    expected = {q: [(r.results[0].queue_offset, f"order-{i:05d}".encode()) for i, r in enumerate(sent) if i % 2 == q]
                for q in (0, 1)}  # fmt: skip

    def serves_every_message(agent: AgentProcess) -> bool:
        return pull_all(agent) == expected

    for agent in cluster:
        wait_until(partial(serves_every_message, agent), 15, f"{agent.name} to serve every message")
    # a slave refuses writes and says where the master is
    refused = send(cluster[1], 99)
    assert refused.status == "SLAVE_NOT_AVAILABLE" and refused.master_address


def test_sigkill_of_the_master_under_load_fails_over_without_losing_an_acknowledged_message(
    controllers: Sandbox, cluster: list[AgentProcess]
) -> None:
    old = settled_master(controllers, cluster)
    old_epoch = old.ha_status(BROKER).master_epoch
    acked: list[tuple[int, pb.SendResult, int]] = []  # (message number, placement, epoch)
    stop = threading.Event()

    def produce() -> None:
        i = 0
        while not stop.is_set():
            target = master_agent([a for a in cluster if a is not old]) if not old.running() else old
            if target is None:
                stop.wait(0.02)
                continue
            try:
                response = send(target, i)
            except Exception:
                continue
            if response.code == ResponseCode.SUCCESS:
                acked.append((i, response.results[0], response.master_epoch))
                i += 1

    producer = threading.Thread(target=produce)
    producer.start()
    try:
        wait_until(lambda: len(acked) >= 30, 20, "sends before the crash")
        old.kill()
        killed_at = len(acked)
        new = wait_until(lambda: master_agent([a for a in cluster if a is not old]), 15, "a new master")
        assert new.ha_status(BROKER).master_epoch == old_epoch + 1
        wait_until(lambda: len(acked) >= killed_at + 30, 20, "sends after the failover")
    finally:
        stop.set()
        producer.join(15)
    old.start()
    wait_until(lambda: old.role(BROKER) == "slave", 30, "the old master to come back as a slave")
    wait_until(lambda: len(sync_state(controllers).in_sync_replicas) == 3, 30, "the old master to rejoin")
    # In send order, each queue's acknowledged offsets ascend.
    for q in (0, 1):
        offsets = [p.queue_offset for _, p, _ in acked if p.queue_id == q]
        assert offsets == sorted(set(offsets)), f"queue {q}: acknowledged offsets out of order or repeated"

    def holds_every_acked(agent: AgentProcess) -> bool:
        return not missing_acked(agent, acked)

    for agent in cluster:
        wait_until(partial(holds_every_acked, agent), 20, f"{agent.name} to hold every acknowledged message")
        assert not missing_acked(agent, acked)


def missing_acked(agent: AgentProcess, acked: list[tuple[int, pb.SendResult, int]]) -> list[str]:
    """Acknowledged messages not found at their queue offset on `agent` (each offset holds one message).

    A send retried after its master died may be stored twice (at-least-once, as in RocketMQ) but only one of
    the copies was acknowledged, at the offset checked here.
    """
    pulled = pull_all(agent)
    at: dict[tuple[int, int], bytes] = {}
    for q, items in pulled.items():
        offsets = [offset for offset, _ in items]
        assert all(b == a + 1 for a, b in itertools.pairwise(offsets)), f"queue {q} is not contiguous: {offsets}"
        at.update(((q, offset), body) for offset, body in items)
    return [
        f"order-{i:05d} at {p.queue_id}/{p.queue_offset}: {at.get((p.queue_id, p.queue_offset))!r}"
        for i, p, _ in acked
        if at.get((p.queue_id, p.queue_offset)) != f"order-{i:05d}".encode()
    ]


def test_a_hung_master_is_replaced_and_steps_down_without_accepting_writes_in_its_old_epoch(
    controllers: Sandbox, cluster: list[AgentProcess]
) -> None:
    old = settled_master(controllers, cluster)
    old_epoch = old.ha_status(BROKER).master_epoch
    assert send(old, 0).code == ResponseCode.SUCCESS
    old.signal(signal.SIGSTOP)
    try:
        others = [a for a in cluster if a is not old]
        new = wait_until(lambda: master_agent(others), 15, "the controller to elect another master (heartbeat expiry)")
        assert new.ha_status(BROKER).master_epoch == old_epoch + 1
        assert send(new, 1).code == ResponseCode.SUCCESS
    finally:
        old.signal(signal.SIGCONT)
    # Right after SIGCONT the old master must not acknowledge a write in its old epoch.
    late = send(old, 2)
    assert late.code != ResponseCode.SUCCESS or late.master_epoch > old_epoch, late
    wait_until(lambda: old.role(BROKER) == "slave", 15, "the old master to step down")
    assert old.ha_status(BROKER).master_epoch == old_epoch + 1


def test_a_killed_slave_leaves_the_sync_state_set_and_rejoins(
    controllers: Sandbox, cluster: list[AgentProcess]
) -> None:
    master = settled_master(controllers, cluster)
    slave = next(a for a in cluster if a is not master)
    slave_id = slave.ha_status(BROKER).broker_id
    slave.kill()
    # allAck: the master keeps serving once the set has shrunk (the first sends may time out while it shrinks)
    wait_until(lambda: send(master, 1).code == ResponseCode.SUCCESS and slave_id not in
             {r.broker_id for r in sync_state(controllers).in_sync_replicas}, 20, "the set to shrink")  # fmt: skip
    slave.start()
    wait_until(lambda: len(sync_state(controllers).in_sync_replicas) == 3, 30, "the slave to rejoin")
    assert slave.ha_status(BROKER).broker_id == slave_id


def test_replication_survives_the_controller_leader_and_the_new_leader_handles_the_next_failover(
    controllers: Sandbox, cluster: list[AgentProcess]
) -> None:
    master = settled_master(controllers, cluster)
    leader_id = controllers.wait_for_leader()
    controllers.signal(leader_id, signal.SIGKILL)
    try:
        # the data plane does not wait for the controllers: allAck sends still complete
        assert all(send(master, i).code == ResponseCode.SUCCESS for i in range(10))
        controllers.wait_for_leader(timeout=20)
        epoch = master.ha_status(BROKER).master_epoch
        master.kill()
        new = wait_until(
            lambda: master_agent([a for a in cluster if a is not master]), 20, "the new leader to fail over"
        )
        assert new.ha_status(BROKER).master_epoch == epoch + 1
    finally:
        controllers.start(leader_id)
        controllers.wait_for_leader(timeout=20)


def test_a_replica_restarted_on_a_new_port_keeps_its_id_and_the_controller_learns_the_address(
    controllers: Sandbox, cluster: list[AgentProcess]
) -> None:
    wait_until(lambda: len(sync_state(controllers).in_sync_replicas) == 3, 30, "all three in sync")
    slave = next(a for a in cluster if a.role(BROKER) == "slave")
    slave_id = slave.ha_status(BROKER).broker_id
    slave.stop()
    conf = slave.dir / f"{BROKER}.conf"
    new_port = unused_port()
    conf.write_text(conf.read_text().replace(f"listenPort={slave.broker_ports[BROKER]}", f"listenPort={new_port}"))
    slave.broker_ports[BROKER] = new_port
    slave.start()

    def registered_at_new_port() -> bool:
        replicas = [*sync_state(controllers).in_sync_replicas, *sync_state(controllers).not_in_sync_replicas]
        return any(r.broker_id == slave_id and r.broker_address == f"127.0.0.1:{new_port}" for r in replicas)

    wait_until(registered_at_new_port, 20, "the controller to hold the new address under the same id")
    assert slave.ha_status(BROKER).broker_id == slave_id


def test_killing_an_agent_fails_over_only_the_broker_sets_whose_master_it_hosted(
    controllers: Sandbox, tmp_path: Path
) -> None:
    names = ("set-a", "set-b")
    addresses = controllers.addresses()
    agents = [AgentProcess(tmp_path, f"multi{i}", addresses, {n: dict(FAST) for n in names}) for i in range(3)]
    client = ControllerClient(addresses)
    try:
        agents[0].start()
        wait_until(lambda: all(agents[0].role(n) == "master" for n in names), 20, "agent0 to be master of both sets")
        for a in agents[1:]:
            a.start()

        def in_sync(name: str) -> set[int]:
            data = client.call("GetSyncStateData", cpb.GetSyncStateDataRequest(broker_names=[name]))
            return {r.broker_id for r in data.replicas_info[0].in_sync_replicas}

        wait_until(lambda: all(len(in_sync(n)) == 3 for n in names), 30, "both sets fully in sync")
        # move set-b's master to agent1 (admin-designated election), so agent0 hosts only set-a's master
        b_on_agent1 = agents[1].ha_status("set-b").broker_id
        moved = client.call("ElectMaster", cpb.ElectMasterRequest(
            cluster_name="E2ECluster", broker_name="set-b", broker_id=b_on_agent1, designate_elect=True))  # fmt: skip
        assert moved.code == ResponseCode.SUCCESS, moved
        wait_until(lambda: agents[1].role("set-b") == "master", 15, "agent1 to take set-b")
        b_epoch = agents[1].ha_status("set-b").master_epoch
        a_epoch = agents[0].ha_status("set-a").master_epoch
        agents[0].kill()
        wait_until(lambda: master_of_set(agents[1:], "set-a"), 15, "set-a to fail over")
        assert agents[1].role("set-b") == "master" and agents[1].ha_status("set-b").master_epoch == b_epoch
        new_a = master_of_set(agents[1:], "set-a")
        assert new_a is not None and new_a.ha_status("set-a").master_epoch == a_epoch + 1
    finally:
        for a in agents:
            a.close()
        for name in names:
            client.call("CleanBrokerData", cpb.CleanBrokerDataRequest(
                cluster_name="E2ECluster", broker_name=name, is_clean_living_broker=True,
                clean_whole_set=True))  # fmt: skip
        client.close()
