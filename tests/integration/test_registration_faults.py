"""Registration against a real controller when something is wrong: a second broker claiming an id that is alive
elsewhere is refused (the controller keeps the address the broker heartbeats from), and a broker whose identity
file could not be written registers once the fault clears instead of staying fenced.

The write fault is real and works as root: the agent runs with a soft RLIMIT_FSIZE of a few bytes, so the kernel
refuses every write past them with EFBIG (the error a full disk gives a write that needs new space; Python ignores
SIGXFSZ). The store locks (a pid each) fit; the identity temp file does not. The test then raises the limit of the
running process with prlimit. The agent's own log is lost until then: it cannot be written either.
"""

from __future__ import annotations

import errno
import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from agents.identity import IDENTITY_FILE, Identity
from mqadmin_py.sandbox import Sandbox
from mqbase.codes import ResponseCode
from mqbase.proto import agent_pb2 as apb
from mqbase.proto import controller_pb2 as pb
from mqbase.proto import controller_pb2_grpc
from tests.harness.agents import FAST, AgentProcess
from tests.harness.controllers import CLUSTER, CONTROLLER_CONFIG, Client, FakeBroker
from tests.harness.processes import ROOT
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

FILE_SIZE_LIMIT = 16
"""Bytes a file may grow to while the fault lasts: a pid fits, ``cluster#broker#id#address;millis`` does not."""


@pytest.fixture(scope="module")
def controller(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    box = Sandbox(tmp_path_factory.mktemp("controller"))
    try:
        box.up(controllers=1, extra_config=dict(CONTROLLER_CONFIG), timeout=30.0)
        yield box
    finally:
        box.down()


def only_replica(client: Client, broker_name: str) -> pb.ReplicaIdentity:
    """The one replica of a one-broker set, as the controller reports it."""
    data: pb.GetSyncStateDataResponse = client.call(
        "GetSyncStateData", pb.GetSyncStateDataRequest(broker_names=[broker_name])
    )
    info: pb.ReplicasInfo
    (info,) = data.replicas_info
    replicas: list[pb.ReplicaIdentity] = [*info.in_sync_replicas, *info.not_in_sync_replicas]
    (only,) = replicas
    return only


def test_a_second_broker_cannot_take_an_id_that_heartbeats_from_another_address(controller: Sandbox) -> None:
    addresses = [c.address for c in controller.controllers()]
    rightful = FakeBroker(addresses, "steal-set")
    try:
        broker_id = rightful.register()
        rightful.start()
        steal = pb.RegisterBrokerRequest(
            cluster_name=CLUSTER,
            broker_name="steal-set",
            broker_id=broker_id,
            broker_address="127.0.0.1:1",
            ha_address="127.0.0.1:2",
        )
        with Client(addresses, timeout=5) as client:

            def replica() -> pb.ReplicaIdentity:
                return only_replica(client, "steal-set")

            wait_until(lambda: replica().alive, 10, "the controller to see the broker alive")
            refused = client.call("RegisterBroker", steal)
            assert refused.code == ResponseCode.CONTROLLER_BROKER_ID_INVALID, refused
            assert f"is alive at {rightful.address}" in refused.remark
            assert (replica().broker_id, replica().broker_address) == (broker_id, rightful.address)
            log = Path(controller.controllers()[0].logFile).read_text()
            assert f"RegisterBroker refused: BrokerId: {broker_id} of broker-set: steal-set is alive at" in log
            # once the broker stops heartbeating, the id's next registration (its restart elsewhere) is accepted
            rightful.close()
            moved = wait_until(
                lambda: client.call("RegisterBroker", steal).code == ResponseCode.SUCCESS, 20, "the id to be free"
            )
            assert moved
    finally:
        rightful.close()


def test_a_second_broker_cannot_heartbeat_with_an_id_alive_at_another_address(controller: Sandbox) -> None:
    addresses = [c.address for c in controller.controllers()]
    rightful = FakeBroker(addresses, "beat-set")
    try:
        broker_id = rightful.register()
        rightful.start()
        intruder = rightful.beat()
        intruder.broker_address = "127.0.0.1:1"
        with Client(addresses, timeout=5) as client:

            def replica() -> pb.ReplicaIdentity:
                return only_replica(client, "beat-set")

            wait_until(lambda: replica().alive, 10, "the controller to see the broker alive")
            refused = client.call("BrokerHeartbeat", intruder)
            assert refused.code == ResponseCode.CONTROLLER_BROKER_ID_INVALID, refused
            assert f"is alive at {rightful.address}" in refused.remark
            channel = grpc.insecure_channel(addresses[0])
            try:
                stub = controller_pb2_grpc.ControllerServiceStub(channel)  # type: ignore[no-untyped-call]  # generated, unannotated
                stream = stub.HeartbeatStream(iter([intruder]), timeout=5)
                with pytest.raises(grpc.RpcError) as aborted:
                    list(stream)
            finally:
                channel.close()
            assert aborted.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "CONTROLLER_BROKER_ID_INVALID" in str(aborted.value.details())
            # the intruder's stream has ended; the broker holding the id is still the alive one, at its address
            time.sleep(rightful.heartbeat_timeout_millis / 1000)
            assert (replica().broker_address, replica().alive) == (rightful.address, True)
            assert not any(n.master_address == intruder.broker_address for n in rightful.notifications())
            log = Path(controller.controllers()[0].logFile).read_text()
            assert f"heartbeat refused: BrokerId: {broker_id} of broker-set: beat-set is alive at" in log
    finally:
        rightful.close()


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, resource.RLIM_INFINITY))


def test_a_broker_registers_once_its_identity_file_can_be_written(controller: Sandbox, tmp_path: Path) -> None:
    agent = AgentProcess(tmp_path, "full", controller.addresses(), {"full-set": dict(FAST)})
    log = open(agent.dir / "agent.log", "ab")  # noqa: SIM115 - the child owns it
    agent.proc = subprocess.Popen(
        [sys.executable, "-m", "mqadmin_py.mqagent", "-c", str(agent.conf)],
        stdout=log,
        stderr=log,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        preexec_fn=_limit_file_size,
    )
    log.close()
    try:

        def error() -> str:
            brokers = agent.stub().ListBrokers(apb.ListBrokersRequest(), timeout=2).brokers
            return str(brokers[0].error) if brokers else ""  # none yet: the container port serves first

        wait_until(lambda: os.strerror(errno.EFBIG) in error(), 30, "the identity write to fail")
        assert error().startswith("registration retries: cannot write the broker identity: "), error()
        resource.prlimit(agent.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        wait_until(lambda: agent.role("full-set") == "master", 30, "the broker to register and become master")
        assert error() == ""
        identity = Identity.decode((agent.dir / "full-set" / IDENTITY_FILE).read_text())
        assert (identity.cluster_name, identity.broker_name) == ("E2ECluster", "full-set")
    finally:
        agent.close()
