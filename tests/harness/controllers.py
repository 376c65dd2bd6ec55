"""A real controller group from the tests' side: a fast-reconnecting client, node lookups, fake brokers.

``FakeBroker`` is a minimal broker: it
runs the three-phase registration through ``ControllerClient`` and keeps a
``HeartbeatStream`` open to every controller node, like a RocketMQ broker in
controller mode heartbeats every controller, and records the role changes
the controller pushes back.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import grpc

from mqadmin_py.sandbox import ControllerProcess, Sandbox
from mqbase.client import ControllerClient
from mqbase.codes import ResponseCode
from mqbase.errors import ControllerUnavailable
from mqbase.proto import common_pb2, controller_pb2_grpc
from mqbase.proto import controller_pb2 as pb
from tests.harness.wait import wait_until

CLUSTER = "IntegrationCluster"
CONTROLLER_CONFIG = {"scanNotActiveBrokerInterval": "200", "scanInactiveMasterInterval": "500"}
"""Controller keys that make broker failures show up within a second."""

# The FakeBroker's heartbeat streams reconnect quickly to a node that was killed and restarted (gRPC's default
# backoff grows to minutes).
CHANNEL_OPTIONS = [
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 500),
]

_ports = itertools.count(41_001)


# --- clients -------------------------------------------------------------------------------------


class Client(ControllerClient):
    """``ControllerClient`` that waits out leader elections.

    ``call`` retries while no leader is reachable (a Raft election in progress,
    as happens on a loaded CI box), as a broker would; ``call_at`` never retries.
    """

    def __init__(self, addresses: str | list[str], timeout: float = 3.0, leader_wait: float = 10.0) -> None:
        super().__init__(addresses, timeout)
        self.leader_wait = leader_wait

    def call(self, method: str, request: Any) -> Any:
        deadline = time.monotonic() + self.leader_wait
        while True:
            try:
                return super().call(method, request)
            except ControllerUnavailable:  # nobody leads right now (or the node was down): nothing was applied
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.1)


def running(sandbox: Sandbox) -> list[ControllerProcess]:
    """The sandbox nodes that run now."""
    return [c for c in sandbox.controllers() if c.pid]


def node(sandbox: Sandbox, node_id: str) -> ControllerProcess:
    return next(c for c in sandbox.controllers() if c.id == node_id)


def leader(sandbox: Sandbox, timeout: float = 20.0) -> ControllerProcess:
    """The node that leads (and serves) now."""
    return node(sandbox, sandbox.wait_for_leader(timeout))


def followers(sandbox: Sandbox, leader_id: str) -> list[ControllerProcess]:
    return [c for c in sandbox.controllers() if c.id != leader_id]


def metadata(address: str, timeout: float = 2.0) -> pb.GetControllerMetadataResponse:
    """GetControllerMetadata of one node, over a fresh channel."""
    with Client(address, timeout=timeout) as c:
        return c.metadata(address)


def ensure_group(sandbox: Sandbox, timeout: float = 30.0) -> str:
    """Start whatever node is down (and SIGCONT everything), then wait for a serving leader; returns its id."""
    import signal

    for c in sandbox.controllers():
        if c.pid:
            os.kill(c.pid, signal.SIGCONT)
        else:
            sandbox.start(c.id)
    return sandbox.wait_for_leader(timeout)


# --- reading and driving a broker set through the controller ------------------------------------


def replica_info(client: Client, broker_name: str) -> pb.GetReplicaInfoResponse:
    resp: pb.GetReplicaInfoResponse = client.call("GetReplicaInfo", pb.GetReplicaInfoRequest(broker_name=broker_name))
    return resp


def sync_state_data(client: Client, broker_name: str) -> pb.ReplicasInfo | None:
    """The set's ReplicasInfo from GetSyncStateData, or None when the controller does not know it."""
    resp = client.call("GetSyncStateData", pb.GetSyncStateDataRequest(broker_names=[broker_name]))
    assert resp.code == ResponseCode.SUCCESS, resp
    found = [r for r in resp.replicas_info if r.broker_name == broker_name]
    return found[0] if found else None


def alive_ids(info: pb.ReplicasInfo) -> set[int]:
    return {r.broker_id for r in [*info.in_sync_replicas, *info.not_in_sync_replicas] if r.alive}


def wait_alive(client: Client, broker_name: str, ids: set[int], timeout: float = 15.0) -> pb.ReplicasInfo:
    """Wait until the leader's live table has every id of `ids` (their streams reached the leader)."""

    def check() -> pb.ReplicasInfo | None:
        info = sync_state_data(client, broker_name)
        return info if info is not None and ids <= alive_ids(info) else None

    return wait_until(check, timeout, f"{broker_name} brokers {sorted(ids)} alive on the leader")


def elect(client: Client, broker_name: str, broker_id: int, designate: bool = False) -> pb.ElectMasterResponse:
    resp: pb.ElectMasterResponse = client.call(
        "ElectMaster",
        pb.ElectMasterRequest(
            cluster_name=CLUSTER, broker_name=broker_name, broker_id=broker_id, designate_elect=designate
        ),
    )
    return resp


def alter(
    client: Client, broker_name: str, master: int, master_epoch: int, ids: list[int], sss_epoch: int
) -> pb.AlterSyncStateSetResponse:
    resp: pb.AlterSyncStateSetResponse = client.call(
        "AlterSyncStateSet",
        pb.AlterSyncStateSetRequest(
            broker_name=broker_name,
            master_broker_id=master,
            master_epoch=master_epoch,
            new_sync_state_set=common_pb2.SyncStateSet(broker_ids=ids, sync_state_set_epoch=sss_epoch),
        ),
    )
    return resp


def master_of(info: pb.GetReplicaInfoResponse) -> int | None:
    return info.master_broker_id if info.HasField("master_broker_id") else None


def wait_new_master(client: Client, broker_name: str, old: int, timeout: float) -> pb.GetReplicaInfoResponse:
    """Poll GetReplicaInfo until the set has a master other than `old`."""

    def check() -> pb.GetReplicaInfoResponse | None:
        info = replica_info(client, broker_name)
        return info if master_of(info) not in (None, old) else None

    return wait_until(check, timeout, f"{broker_name} to get a master other than {old}")


def wait_dead(sandbox: Sandbox, node_id: str) -> None:
    wait_until(lambda: node_id not in {c.id for c in running(sandbox)}, 10, f"{node_id} to die")


def catch_up(sandbox: Sandbox, node_id: str, timeout: float = 30.0) -> None:
    """Wait until `node_id` knows the leader and has applied everything the leader had applied."""
    lead = leader(sandbox)
    target = metadata(lead.address).raft.last_applied

    def caught_up() -> bool:
        m = metadata(node(sandbox, node_id).address)
        return bool(m.controller_leader_id) and m.raft.last_applied >= target

    wait_until(caught_up, timeout, f"{node_id} to apply up to index {target}")


def node_config(address: str) -> pb.GetControllerConfigResponse:
    with Client(address, timeout=3.0) as one:
        request = pb.GetControllerConfigRequest()
        resp: pb.GetControllerConfigResponse = one.call_at(address, "GetControllerConfig", request)
    assert resp.code == ResponseCode.SUCCESS, resp
    return resp


# --- fake broker ---------------------------------------------------------------------------------


class FakeBroker:
    """A minimal controller-mode broker: registration, heartbeat streams, role-change log.

    ``register()`` runs GetNextBrokerId → ApplyBrokerId → RegisterBroker, with an HA address.
    ``start()`` opens one HeartbeatStream per controller node, each in its own
    thread, beating every ``interval`` seconds and reconnecting when a node
    goes away (as a real broker does). ``crash()`` cancels every stream at once
    (a killed process), ``hang()`` stops the beats but keeps the streams open,
    ``close()`` ends the streams and releases every thread and channel.
    """

    def __init__(
        self,
        controllers: list[str],
        broker_name: str,
        *,
        cluster_name: str = CLUSTER,
        heartbeat_timeout_millis: int = 1500,
        epoch: int = 0,
        max_offset: int = 0,
        interval: float = 0.1,
    ) -> None:
        self.controllers = list(controllers)
        self.cluster_name = cluster_name
        self.broker_name = broker_name
        self.address = f"127.0.0.1:{next(_ports)}"
        self.ha_address = f"127.0.0.1:{next(_ports)}"
        self.heartbeat_timeout_millis = heartbeat_timeout_millis
        self.interval = interval
        self.broker_id: int | None = None
        self.register_response: pb.RegisterBrokerResponse | None = None
        self._epoch = epoch
        self._max_offset = max_offset
        self._lock = threading.Lock()
        self._notes: list[tuple[str, common_pb2.RoleChangeNotification]] = []
        self._beats_sent = dict.fromkeys(self.controllers, 0)
        self._stopped = threading.Event()
        self._hung = threading.Event()
        self._calls: dict[str, Any] = {}
        self._channels: dict[str, grpc.Channel] = {}
        self._threads: list[threading.Thread] = []
        self._client = Client(self.controllers, timeout=5.0)

    # --- registration ----------------------------------------------------------------------------

    def register(self, attempts: int = 5) -> int:
        """The three registration phases; returns the broker id the controller assigned."""
        for _ in range(attempts):
            nxt = self._client.call(
                "GetNextBrokerId",
                pb.GetNextBrokerIdRequest(cluster_name=self.cluster_name, broker_name=self.broker_name),
            )
            assert nxt.code == ResponseCode.SUCCESS, nxt
            check_code = f"{self.address};{int(time.time() * 1000)}"
            applied = self._client.call(
                "ApplyBrokerId",
                pb.ApplyBrokerIdRequest(
                    cluster_name=self.cluster_name,
                    broker_name=self.broker_name,
                    applied_broker_id=nxt.next_broker_id,
                    register_check_code=check_code,
                    ha_address=self.ha_address,
                ),
            )
            if applied.code == ResponseCode.CONTROLLER_BROKER_ID_INVALID:
                continue  # another replica took the id first: ask again
            assert applied.code == ResponseCode.SUCCESS, applied
            self.broker_id = nxt.next_broker_id
            break
        else:
            raise AssertionError(f"{self.broker_name}: could not apply a broker id in {attempts} attempts")
        reg = self._client.call(
            "RegisterBroker",
            pb.RegisterBrokerRequest(
                cluster_name=self.cluster_name,
                broker_name=self.broker_name,
                broker_id=self.broker_id,
                broker_address=self.address,
                ha_address=self.ha_address,
            ),
        )
        assert reg.code == ResponseCode.SUCCESS, reg
        self.register_response = reg
        return self.broker_id

    # --- heartbeats ------------------------------------------------------------------------------

    def set_progress(self, *, epoch: int | None = None, max_offset: int | None = None) -> None:
        """Change the epoch / maxOffset carried by the next beats."""
        with self._lock:
            if epoch is not None:
                self._epoch = epoch
            if max_offset is not None:
                self._max_offset = max_offset

    def beat(self) -> pb.BrokerHeartbeatRequest:
        assert self.broker_id is not None, "register() first"
        with self._lock:
            epoch, max_offset = self._epoch, self._max_offset
        return pb.BrokerHeartbeatRequest(
            cluster_name=self.cluster_name,
            broker_address=self.address,
            broker_name=self.broker_name,
            broker_id=self.broker_id,
            epoch=epoch,
            max_offset=max_offset,
            confirm_offset=max_offset,
            heartbeat_timeout_millis=self.heartbeat_timeout_millis,
        )

    def start(self) -> FakeBroker:
        """Open a heartbeat stream to every controller node (background threads)."""
        assert self.broker_id is not None, "register() first"
        for address in self.controllers:
            t = threading.Thread(target=self._stream_loop, args=(address,), name=f"hb-{self.address}->{address}")
            t.daemon = True
            t.start()
            self._threads.append(t)
        return self

    def _beats(self, address: str, done: threading.Event) -> Iterator[pb.BrokerHeartbeatRequest]:
        while not self._stopped.is_set() and not done.is_set():
            if not self._hung.is_set():
                yield self.beat()
                with self._lock:
                    self._beats_sent[address] += 1
            done.wait(self.interval)

    def _stream_loop(self, address: str) -> None:
        while not self._stopped.is_set():
            channel = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
            stub = controller_pb2_grpc.ControllerServiceStub(channel)  # type: ignore[no-untyped-call]  # generated, unannotated
            done = threading.Event()
            call = stub.HeartbeatStream(self._beats(address, done))
            with self._lock:
                if self._stopped.is_set():
                    call.cancel()
                self._calls[address] = call
                self._channels[address] = channel
            try:
                for note in call:
                    with self._lock:
                        self._notes.append((address, note))
            except grpc.RpcError:
                pass  # the node went away, or we cancelled: reconnect unless stopped
            finally:
                done.set()
                with self._lock:
                    self._calls.pop(address, None)
                    self._channels.pop(address, None)
                channel.close()
            self._stopped.wait(0.2)

    def beats_sent(self) -> dict[str, int]:
        with self._lock:
            return dict(self._beats_sent)

    def notifications(self) -> list[common_pb2.RoleChangeNotification]:
        """Every role change pushed to this broker so far, in arrival order (from any node)."""
        with self._lock:
            return [note for _addr, note in self._notes]

    def wait_for_notification(
        self, pred: Callable[[common_pb2.RoleChangeNotification], bool], timeout: float = 15.0
    ) -> common_pb2.RoleChangeNotification:
        return wait_until(
            lambda: next((n for n in self.notifications() if pred(n)), None),
            timeout,
            f"a role-change push to {self.broker_name}/{self.broker_id}",
        )

    # --- failure modes ---------------------------------------------------------------------------

    def hang(self) -> None:
        """Stop sending beats, keep every stream open (a hung or partitioned broker)."""
        self._hung.set()

    def crash(self) -> None:
        """Cancel every stream at once, like a killed process; nothing reconnects."""
        self._stopped.set()
        with self._lock:
            calls = list(self._calls.values())
        for call in calls:
            call.cancel()
        self._join()

    def close(self) -> None:
        """Stop heartbeating and release threads, streams and channels (idempotent)."""
        self.crash()
        self._client.close()

    def _join(self) -> None:
        for t in self._threads:
            t.join(timeout=5.0)
        alive = [t.name for t in self._threads if t.is_alive()]
        assert not alive, f"heartbeat threads did not stop: {alive}"
        self._threads.clear()
