"""A broker's connection to the controller group: leader calls, and a heartbeat stream to every node.

Unary calls go to the leader (``ControllerClient`` follows NOT_LEADER redirects). Heartbeats go to **every**
controller node over a long-lived ``HeartbeatStream`` each (Java #5712: followers must know the broker is
alive too, so a new leader does not expire it); a node that goes away is reconnected to every
``RECONNECT_S``. The controller pushes role changes back over those streams; they reach ``on_push``. Every
channel is TLS or plaintext and signs its calls as the agent's ``ClientSecurity`` says.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from agents.broker import convert
from agents.broker.convert import SetReplica
from agents.broker.roles import View
from mqbase.client import ControllerClient
from mqbase.codes import ResponseCode
from mqbase.errors import MqError
from mqbase.proto import common_pb2
from mqbase.proto import controller_pb2 as pb
from mqbase.proto import controller_pb2_grpc as pb_grpc
from mqbase.security import PLAINTEXT, ClientSecurity, open_channel

log = logging.getLogger(__name__)

RECONNECT_S = 0.5
_CHANNEL_OPTIONS = [("grpc.keepalive_time_ms", 10_000), ("grpc.keepalive_permit_without_calls", 1)]


class ControllerLink:
    """Leader calls plus one heartbeat stream per controller node (threads started by ``start``)."""

    def __init__(
        self,
        addresses: tuple[str, ...],
        beat: Callable[[], pb.BrokerHeartbeatRequest],
        on_push: Callable[[common_pb2.RoleChangeNotification], None],
        interval_s: Callable[[], float],
        call_timeout_s: float = 3.0,
        security: ClientSecurity = PLAINTEXT,
    ) -> None:
        self.addresses = addresses
        self._beat = beat
        self._on_push = on_push
        self._interval_s = interval_s
        self._security = security
        self._client = ControllerClient(addresses, timeout=call_timeout_s, security=security)
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._calls: dict[str, Any] = {}
        self._threads: list[threading.Thread] = []

    def call(self, method: str, request: Any) -> Any:
        """One RPC on the leader; raises ``mqbase.errors.MqError`` when no leader answers."""
        return self._client.call(method, request)

    # --- typed calls ---------------------------------------------------------------------------------

    def set_replicas(self, broker_name: str) -> tuple[SetReplica, ...] | None:
        """The controller's record of set `broker_name` (GetSyncStateData); None when it has none or cannot be
        asked now (logged)."""
        try:
            response = self.call("GetSyncStateData", pb.GetSyncStateDataRequest(broker_names=[broker_name]))
        except MqError as exc:
            log.info("%s: cannot learn the broker set's replicas: %s", broker_name, exc)
            return None
        info = next((i for i in response.replicas_info if i.broker_name == broker_name), None)
        return None if info is None else convert.replicas_of(info)

    def elect(self, cluster_name: str, broker_name: str, broker_id: int) -> View | None:
        """ElectMaster for the set; the controller's view when it has a master now, None otherwise (logged).
        Raises MqError when no controller answers."""
        request = pb.ElectMasterRequest(cluster_name=cluster_name, broker_name=broker_name, broker_id=broker_id)
        response = self.call("ElectMaster", request)
        if response.code in (ResponseCode.SUCCESS, ResponseCode.CONTROLLER_MASTER_STILL_EXIST):
            return convert.view_of(response)
        log.info("%s: no master elected yet (%d: %s)", broker_name, response.code, response.remark)
        return None

    def alter_sync_state_set(
        self, broker_name: str, master_id: int, master_epoch: int, members: frozenset[int], sss_epoch: int
    ) -> tuple[frozenset[int], int] | str:
        """AlterSyncStateSet: the SyncStateSet and its epoch the controller confirmed, or why it refused. Raises
        MqError when no controller answers."""
        response = self.call(
            "AlterSyncStateSet",
            pb.AlterSyncStateSetRequest(
                broker_name=broker_name,
                master_broker_id=master_id,
                master_epoch=master_epoch,
                new_sync_state_set=common_pb2.SyncStateSet(broker_ids=sorted(members), sync_state_set_epoch=sss_epoch),
            ),
        )
        if response.code != ResponseCode.SUCCESS:
            return f"{response.code}: {response.remark}"
        return frozenset(response.sync_state_set.broker_ids), response.new_sync_state_set_epoch

    # --- the streams ---------------------------------------------------------------------------------

    def start(self) -> None:
        for address in self.addresses:
            t = threading.Thread(target=self._stream_loop, args=(address,), name=f"heartbeat->{address}", daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self) -> None:
        """End every stream (the controllers see the broker go away at once) and release the channels."""
        self._stopped.set()
        with self._lock:
            calls = list(self._calls.values())
        for call in calls:
            call.cancel()
        for t in self._threads:
            t.join(timeout=5)
        self._client.close()

    def _beats(self, done: threading.Event) -> Iterator[pb.BrokerHeartbeatRequest]:
        while not self._stopped.is_set() and not done.is_set():
            yield self._beat()
            done.wait(self._interval_s())

    def _stream_loop(self, address: str) -> None:
        while not self._stopped.is_set():
            channel = open_channel(address, self._security, _CHANNEL_OPTIONS)
            done = threading.Event()
            call = pb_grpc.ControllerServiceStub(channel).HeartbeatStream(self._beats(done))
            with self._lock:
                self._calls[address] = call
            if self._stopped.is_set():
                call.cancel()
            try:
                for note in call:
                    self._on_push(note)
            except grpc.RpcError as exc:
                code = exc.code() if hasattr(exc, "code") else None
                if code == grpc.StatusCode.PERMISSION_DENIED:  # retried: the controller's keys may be fixed
                    log.warning("heartbeat stream to %s refused: %s", address, exc.details())
                elif not self._stopped.is_set():
                    log.debug("heartbeat stream to %s ended: %s", address, code or exc)
            finally:
                done.set()
                with self._lock:
                    self._calls.pop(address, None)
                channel.close()
            self._stopped.wait(RECONNECT_S)
