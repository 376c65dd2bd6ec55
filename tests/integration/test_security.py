"""Every door of a secure cluster, refused without credentials and open with them, over real processes.

One ``mqadmin sandbox up --secure`` cluster (3 controllers, broker-a on 2 agents: TLS with client certificates
required, the ACL, an encrypted Raft) serves most tests; it is started and stopped through the CLI. The Raft
password test runs its own controllers, the HA admission test an in-process master on a real socket.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest

from agents.ha.config import HAConfig
from agents.ha.master_service import HAMaster
from agents.ha.master_session import admit_slave
from agents.ha.sync_state import SyncState
from agents.protocol.frames import MASTER_HANDSHAKE_HEADER_SIZE, SlaveHandshake, encode
from agents.store.epochs import EpochCache
from agents.store.message_store import MessageStore
from mqadmin_py.sandbox import Sandbox, _pid_alive
from mqbase.client import AgentClient, ControllerClient
from mqbase.codes import ResponseCode
from mqbase.errors import BrokerUnavailable, ControllerUnavailable
from mqbase.proto import agent_pb2 as apb
from mqbase.proto import controller_pb2 as pb
from mqbase.security import PLAINTEXT, ClientSecurity, Credential, open_channel
from tests.harness.agents import AgentProcess
from tests.harness.controllers import FakeBroker
from tests.harness.processes import ROOT
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

BROKER = "broker-a"
CLUSTER = "DefaultCluster"


class SecureCli:
    """``python -m mqadmin_py`` with a HOME of its own (no stray ~/.mqadmin/credentials) and the sandbox's dir."""

    def __init__(self, directory: Path, home: Path) -> None:
        self.dir = directory
        self.env = {**os.environ, "HOME": str(home), "MQADMIN_SANDBOX_DIR": str(directory), "PYTHONPATH": str(ROOT)}
        for key in [k for k in self.env if k.startswith("MQADMIN_") and k != "MQADMIN_SANDBOX_DIR"]:
            del self.env[key]

    def __call__(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        result = subprocess.run([sys.executable, "-m", "mqadmin_py", *args], capture_output=True, text=True,
                                cwd=ROOT, env={**self.env, **(env or {})}, timeout=180)  # fmt: skip
        assert "Traceback" not in result.stderr, result.stderr
        return result

    def json(self, *args: str, env: dict[str, str] | None = None) -> Any:
        result = self(*args, "-o", "json", env=env)
        assert result.returncode == 0, f"{args}: exit {result.returncode}\n{result.stdout}\n{result.stderr}"
        return json.loads(result.stdout)


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecureCli]:
    base = tmp_path_factory.mktemp("secure")
    run = SecureCli(base / "sandbox", base / "home")
    up = run.json("sandbox", "up", "--secure", "--replicas", "2", "--timeout", "120")
    assert up["credentialsFile"] == str(run.dir / "credentials")
    run.env["MQADMIN_CONTROLLERS"] = ";".join(c["address"] for c in up["controllers"])
    try:
        yield run
    finally:
        down = run.json("sandbox", "down", "--purge")
        configs = [str(p) for p in (run.dir / "conf").rglob("*.conf")] if run.dir.exists() else []
        assert not any(_pid_alive(p["pid"], conf) for p in down["stopped"] for conf in configs)
        assert down["purged"] and not run.dir.exists()


@pytest.fixture(scope="module")
def sandbox(cli: SecureCli) -> Sandbox:
    return Sandbox(cli.dir)


@pytest.fixture(scope="module")
def admin(sandbox: Sandbox) -> ClientSecurity:
    """TLS with the client certificate and the admin credential (what the credentials file gives)."""
    return sandbox.security()


def anonymous(admin: ClientSecurity) -> ClientSecurity:
    """TLS with the client certificate, but no credential."""
    return replace(admin, credential=None)


def secrets_of(sandbox: Sandbox) -> list[str]:
    text = Path(sandbox.controllers()[0].configFile).read_text()
    values = dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    return [values["adminSecretKey"], values["brokerSecretKey"], values["raftPassword"]]


def broker_credential(sandbox: Sandbox) -> Credential:
    text = Path(sandbox.controllers()[0].configFile).read_text()
    values = dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    return Credential(values["brokerAccessKey"], values["brokerSecretKey"])


def sync_state(client: ControllerClient) -> pb.ReplicasInfo:
    reply = client.call("GetSyncStateData", pb.GetSyncStateDataRequest(broker_names=[BROKER]))
    assert reply.code == ResponseCode.SUCCESS, reply.remark
    info: pb.ReplicasInfo = reply.replicas_info[0]
    return info


# --- files and the CLI ---------------------------------------------------------------------------


def test_secrets_and_keys_are_written_for_the_owner_only(cli: SecureCli) -> None:
    private = [cli.dir / "credentials", *(cli.dir / "tls").iterdir(), *(cli.dir / "conf").rglob("*.conf")]
    assert len(private) >= 6 + 3 + 2
    for path in private:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    for directory in (cli.dir / "tls", cli.dir / "conf"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory


def test_mqadmin_reaches_the_secure_sandbox_with_its_credentials_file(cli: SecureCli) -> None:
    creds = {"MQADMIN_CREDENTIALS_FILE": str(cli.dir / "credentials")}
    (before,) = cli.json("getSyncStateSet", "-b", BROKER, env=creds)
    target = next(r["brokerId"] for r in before["inSyncReplicas"] if r["brokerId"] != before["masterBrokerId"])
    tls_only = ["--tlsCaFile", str(cli.dir / "tls/ca.pem"), "--tlsCertFile", str(cli.dir / "tls/client.pem"),
                "--tlsKeyFile", str(cli.dir / "tls/client.key")]  # fmt: skip

    refused = cli(*tls_only, "electMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(target))
    assert refused.returncode == 4, refused.stderr
    assert "NO_PERMISSION (16): ElectMaster needs admin or broker credentials: no credentials sent" in refused.stderr
    (unchanged,) = cli.json(*tls_only, "getSyncStateSet", "-b", BROKER)  # reads need TLS only
    assert (unchanged["masterBrokerId"], unchanged["masterEpoch"]) == (before["masterBrokerId"], before["masterEpoch"])

    elected = cli.json("electMaster", "-c", CLUSTER, "-bn", BROKER, "-b", str(target), env=creds)
    assert elected["changed"] and elected["masterBrokerId"] == target
    assert elected["masterEpoch"] == before["masterEpoch"] + 1


def test_a_group_readable_credentials_file_is_refused(cli: SecureCli, tmp_path: Path) -> None:
    copy = tmp_path / "credentials"
    copy.write_text((cli.dir / "credentials").read_text())
    copy.chmod(0o640)
    result = cli("--credentialsFile", str(copy), "getSyncStateSet")
    assert result.returncode == 2
    assert "is accessible by group or others (mode 0640); run chmod 600" in result.stderr


# --- TLS ----------------------------------------------------------------------------------------------


def test_a_plaintext_client_cannot_talk_to_a_tls_server_and_is_told_why(sandbox: Sandbox) -> None:
    address = sandbox.controllers()[0].address
    with (
        ControllerClient(address, timeout=3.0, security=PLAINTEXT) as client,
        pytest.raises(ControllerUnavailable) as e,
    ):
        client.call("GetControllerMetadata", pb.GetControllerMetadataRequest())
    assert "unreachable (UNAVAILABLE); if it serves TLS, connect with --tls/--tlsCaFile" in str(e.value)


def test_mutual_tls_refuses_a_client_without_a_certificate(sandbox: Sandbox, admin: ClientSecurity) -> None:
    no_cert = replace(admin, cert_file="", key_file="")
    address = sandbox.controllers()[0].address
    with ControllerClient(address, timeout=3.0, security=no_cert) as client, pytest.raises(ControllerUnavailable):
        client.metadata(address)
    with AgentClient(timeout=3.0, security=no_cert) as agents, pytest.raises(BrokerUnavailable):
        agents.call(sandbox.agents()[0].address, "ListBrokers", apb.ListBrokersRequest())
    with ControllerClient(address, timeout=3.0, security=anonymous(admin)) as client:
        assert client.metadata(address).code == ResponseCode.SUCCESS  # the certificate alone opens the reads


# --- the ACL on the controller ------------------------------------------------------------------------


def test_controller_writes_need_the_admin_credential(sandbox: Sandbox, admin: ClientSecurity) -> None:
    address = sandbox.controllers()[0].address
    update = pb.UpdateControllerConfigRequest(properties={"enableElectUncleanMaster": "true"})
    assert admin.credential is not None, "the sandbox's security carries the admin credential"
    wrong = replace(admin, credential=Credential(admin.credential.access_key, "not-the-secret-0000"))
    as_broker = replace(admin, credential=broker_credential(sandbox))
    for security, reason in ((anonymous(admin), "no credentials sent"), (wrong, "does not match"),
                             (as_broker, "has the broker role")):  # fmt: skip
        with ControllerClient(address, security=security) as client:
            refused = client.call_at(address, "UpdateControllerConfig", update)
            assert refused.code == ResponseCode.NO_PERMISSION and reason in refused.remark
            config = client.call_at(address, "GetControllerConfig", pb.GetControllerConfigRequest()).config
            assert config["enableElectUncleanMaster"] == "false"
            clean = pb.CleanBrokerDataRequest(cluster_name=CLUSTER, broker_name=BROKER, is_clean_living_broker=True,
                                              clean_whole_set=True)  # fmt: skip
            assert client.call("CleanBrokerData", clean).code == ResponseCode.NO_PERMISSION
            assert len(sync_state(client).in_sync_replicas) == 2  # the set is still there
    with ControllerClient(address, security=admin) as client:
        # The group's value: the leader commits it (a follower redirects there) and every node applies it.
        assert client.call("UpdateControllerConfig", update).code == ResponseCode.SUCCESS
        get = pb.GetControllerConfigRequest()
        wait_until(
            lambda: client.call_at(address, "GetControllerConfig", get).config["enableElectUncleanMaster"] == "true",
            10,
            "the update to reach the node",
        )
        revert = pb.UpdateControllerConfigRequest(properties={"enableElectUncleanMaster": "false"})
        assert client.call("UpdateControllerConfig", revert).code == ResponseCode.SUCCESS


# --- the ACL on the agents ------------------------------------------------------------------------------


def test_agent_admin_calls_need_the_admin_credential(sandbox: Sandbox, admin: ClientSecurity) -> None:
    broker = sandbox.agents()[0].brokers[0].brokerAddress
    update = apb.UpdateBrokerConfigRequest(values={"brokerElectionPriority": "5"})
    prepare = apb.PrepareTransferRequest(target_broker_id=2, master_epoch=1, timeout_millis=100, lease_millis=500,
                                         token="t")  # fmt: skip
    with AgentClient(security=anonymous(admin)) as agents:
        refused = agents.call(broker, "UpdateBrokerConfig", update)
        assert refused.code == ResponseCode.NO_PERMISSION and "UpdateBrokerConfig needs admin" in refused.remark
        assert agents.call(broker, "GetBrokerConfig", apb.BrokerRef()).config["brokerElectionPriority"] != "5"
        reset = agents.call(broker, "ResetMasterFlushOffset", apb.ResetMasterFlushOffsetRequest(offset=0))
        assert reset.code == ResponseCode.NO_PERMISSION
    with AgentClient(security=admin) as agents:
        # The controller's calls take the broker credential: an admin cannot pause a master's writes.
        refused = agents.call(broker, "PrepareTransfer", prepare)
        assert refused.code == ResponseCode.NO_PERMISSION and "has the admin role" in refused.remark
        assert agents.call(broker, "UpdateBrokerConfig", update).code == ResponseCode.SUCCESS
        assert agents.call(broker, "GetBrokerConfig", apb.BrokerRef()).config["brokerElectionPriority"] == "5"


def test_bytes_that_do_not_parse_are_refused_before_the_access_check(sandbox: Sandbox, admin: ClientSecurity) -> None:
    """Guarded methods too: an undecodable request has no body to verify, so it is INVALID_ARGUMENT, not a crash of
    the check (which re-serializes the request) nor grpcio's UNKNOWN/INTERNAL."""
    garbage = b"\x0a\x05ab"  # a truncated string: not a protobuf of any type
    targets = [
        (sandbox.controllers()[0].address, "mqadmin.controller.v1.ControllerService", "UpdateControllerConfig"),
        (sandbox.agents()[0].brokers[0].brokerAddress, "mqadmin.agent.v1.AgentService", "UpdateBrokerConfig"),
    ]
    for address, service, method in targets:
        with open_channel(address, anonymous(admin)) as channel:
            stub = channel.unary_unary(f"/{service}/{method}", request_serializer=None, response_deserializer=None)
            with pytest.raises(grpc.RpcError) as info:
                stub(garbage, timeout=10)
            assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT, info.value
            assert f"/{service}/{method}: the request is not a valid" in (info.value.details() or "")
    with open_channel(targets[0][0], anonymous(admin)) as channel:
        stream = channel.stream_stream(f"/{targets[0][1]}/HeartbeatStream", request_serializer=None,
                                       response_deserializer=None)  # fmt: skip
        with pytest.raises(grpc.RpcError) as info:
            list(stream(iter([garbage]), timeout=10))
        # The stream's access check runs when it opens (it signs no body), so a caller without credentials is
        # refused before its first message is read.
        assert info.value.code() is grpc.StatusCode.PERMISSION_DENIED, info.value


def test_secrets_appear_in_no_answer_and_no_log(sandbox: Sandbox, admin: ClientSecurity) -> None:
    secrets = secrets_of(sandbox)
    seen: list[str] = []
    with ControllerClient(sandbox.addresses(), security=admin) as client:
        for node in sandbox.controllers():
            config = client.call_at(node.address, "GetControllerConfig", pb.GetControllerConfigRequest()).config
            assert config["adminSecretKey"] == config["raftPassword"] == "******"
            seen += config.values()
    with AgentClient(security=admin) as agents:
        for agent in sandbox.agents():
            seen += agents.call(agent.brokers[0].brokerAddress, "GetBrokerConfig", apb.BrokerRef()).config.values()
    printed = subprocess.run([sys.executable, "-m", "mqadmin_py.mqcontroller", "-c",
                              sandbox.controllers()[0].configFile, "-p"],
                             capture_output=True, text=True, cwd=ROOT, timeout=60, check=True).stdout  # fmt: skip
    assert "adminSecretKey=******" in printed
    logs = "".join(Path(p.logFile).read_text(errors="replace") for p in sandbox.processes())
    assert "refused" in logs  # the earlier tests' refusals were logged ...
    for secret in secrets:  # ... and no secret was, nor served
        assert secret not in logs and secret not in printed and secret not in seen


def test_an_agent_with_a_wrong_broker_credential_cannot_register(
    sandbox: Sandbox, admin: ClientSecurity, tmp_path: Path
) -> None:
    real = broker_credential(sandbox)
    rogue = AgentProcess(tmp_path, "rogue", sandbox.addresses(), {"broker-rogue": {}})
    keys = {k: v for k, v in (line.split("=", 1) for line in Path(sandbox.agents()[0].configFile).read_text()
                              .splitlines() if "=" in line and not line.startswith("#"))
            if k.startswith(("tls", "acl", "admin"))}  # fmt: skip
    keys |= {"brokerAccessKey": real.access_key, "brokerSecretKey": "wrong-secret-0123456789"}
    with rogue.conf.open("a") as f:
        f.write("".join(f"{k}={v}\n" for k, v in keys.items()))
    rogue.conf.chmod(0o600)
    rogue.start()
    try:
        with AgentClient(timeout=2.0, security=admin) as agents:

            def refused() -> str | None:
                brokers = agents.call(f"127.0.0.1:{rogue.port}", "ListBrokers", apb.ListBrokersRequest()).brokers
                errors = [b.error for b in brokers if b.broker_name == "broker-rogue"]
                return next((e for e in errors if "answered 16" in e), None)

            error = wait_until(refused, 60, "the rogue broker's registration to be refused")
        assert "ApplyBrokerId needs broker credentials: signature of access key" in error
        with ControllerClient(sandbox.addresses(), security=admin) as client:
            reply = client.call("GetSyncStateData", pb.GetSyncStateDataRequest(broker_names=["broker-rogue"]))
            assert reply.code == ResponseCode.SUCCESS and list(reply.replicas_info) == []  # the set is unknown
    finally:
        rogue.stop()
    assert "wrong-secret-0123456789" not in rogue.log_text()


# --- Raft ------------------------------------------------------------------------------------------------


def test_a_controller_with_a_wrong_raft_password_cannot_join(tmp_path: Path) -> None:
    group = Sandbox(tmp_path / "raft")
    group.up(3, {"raftPassword": "the-right-raft-password"}, timeout=60, broker_sets=0)
    broker = FakeBroker([c.address for c in group.controllers()], "raft-set")
    try:
        leader_id = group.wait_for_leader(30)
        outsider = next(c for c in group.controllers() if c.id != leader_id)
        group.stop(outsider.id)
        conf = Path(outsider.configFile)
        conf.write_text(conf.read_text().replace("the-right-raft-password", "a-wrong-raft-password"))
        group.start(outsider.id)
        broker.register()  # the two others still form a majority and commit
        with ControllerClient(group.addresses(), timeout=2.0) as client:
            leader = next(c for c in group.controllers() if c.id == leader_id)
            committed = client.metadata(leader.address).raft.commit_index
            wait_until(lambda: client.metadata(outsider.address), 30, "the outsider's gRPC port")
            # Observed for a while: the outsider never learns of a leader nor applies what the others committed,
            # and the leader never counts it as connected.
            deadline = time.monotonic() + 3.0
            while time.monotonic() < deadline:
                seen = client.metadata(outsider.address)
                assert seen.controller_leader_id == "" and seen.raft.last_applied < committed
                assert client.metadata(leader.address).raft.connected_peers == 1
                time.sleep(0.2)
            group.stop(outsider.id)
            conf.write_text(conf.read_text().replace("a-wrong-raft-password", "the-right-raft-password"))
            group.start(outsider.id)
            wait_until(lambda: client.metadata(outsider.address).raft.last_applied >= committed, 60,
                       "the outsider with the right password to catch up")  # fmt: skip
            assert client.metadata(outsider.address).controller_leader_id != ""
    finally:
        broker.close()
        group.down()


# --- HA admission ----------------------------------------------------------------------------------------


def _handshake(port: int, broker_id: int) -> tuple[bytes, bool]:
    """Connect as slave `broker_id`: (the master's first bytes, whether it closed the connection)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(encode(SlaveHandshake(False, False, broker_id)))
        received = b""
        while len(received) < MASTER_HANDSHAKE_HEADER_SIZE:
            chunk = sock.recv(4096)  # a socket timeout fails the test: the master neither answered nor closed
            if not chunk:
                return received, True
            received += chunk
        return received, False


def test_the_ha_port_closes_on_a_broker_id_outside_the_set(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = MessageStore(tmp_path / "store", 64 * 1024)
    cache = EpochCache.from_pairs([(1, 0)])
    master = HAMaster(store, lambda: cache, SyncState(1, frozenset({1}), 1), HAConfig(), on_propose=lambda _s: None,
                      admit=lambda slave: admit_slave(slave, 1, frozenset({1, 2})))  # fmt: skip
    port = master.start("127.0.0.1", 0)
    try:
        assert _handshake(port, 7) == (b"", True)  # closed without a master handshake
        assert _handshake(port, 1) == (b"", True)  # nor may a peer claim the master's own id
        assert master.slaves() == {} and store.max_offset == 0
        assert "broker id 7 is not registered in this broker set (registered: [1, 2])" in caplog.text
        answer, closed = _handshake(port, 2)  # a registered id is served
        assert not closed and len(answer) >= MASTER_HANDSHAKE_HEADER_SIZE
    finally:
        master.stop()
        store.close()
