"""A broker's crash-safe two-phase registration with the controller (Java's ``ReplicasManager.startBasicService``).

GetNextBrokerId → a temp identity file → ApplyBrokerId → the identity file, then the store opened under that id
and RegisterBroker. A crash between the phases leaves the temp file, so the same id is applied again; a controller
that lost the set is given the broker's own id again (`apply_broker_id` with `keep`).
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

from agents.broker.controller_link import ControllerLink
from agents.config import BrokerConfig
from agents.identity import Identity, IdentityFiles, check
from mqbase.codes import ResponseCode
from mqbase.errors import MqError
from mqbase.proto import controller_pb2 as cpb

log = logging.getLogger(__name__)

RETRY_S = 1.0
"""Wait between attempts while registration cannot reach the controller (Java retries every 5 s)."""


class Member(Protocol):
    """What registration needs of its broker (``ReplicasManager``)."""

    config: BrokerConfig
    broker_id: int

    @property
    def error(self) -> str: ...
    def set_error(self, error: str) -> None: ...
    def open_replica(self, broker_id: int) -> None: ...


class Registration:
    """See the module docstring."""

    def __init__(self, member: Member, link: ControllerLink, files: IdentityFiles) -> None:
        self._member = member
        self._link = link
        self._files = files

    def _name(self) -> str:
        c = self._member.config
        return f"{c.broker_cluster_name}/{c.broker_name}"

    def register(self, stopped: threading.Event) -> cpb.RegisterBrokerResponse | None:
        """Registration phases, retried until done or stopped: RegisterBroker's answer, None when stopped first.

        Identity files that cannot be written (a full or read-only disk) are retried like an absent controller
        (Java retries registration every few seconds); only files that cannot be trusted stop the broker.
        """
        identity = self._files.load()
        if identity is not None:
            check(identity, self._member.config.broker_cluster_name, self._member.config.broker_name)
        while not stopped.is_set():
            try:
                if identity is None:
                    try:
                        identity = self.apply_broker_id()
                    except OSError as exc:
                        error = f"registration retries: cannot write the broker identity: {exc}"
                        if error != self._member.error:
                            log.warning("%s: %s", self._name(), error)
                        self._member.set_error(error)
                if identity is not None:
                    self._member.open_replica(identity.broker_id)
                    response: cpb.RegisterBrokerResponse = self._link.call("RegisterBroker", self.request())
                    if response.code == ResponseCode.SUCCESS:
                        return response
                    self._member.set_error(f"RegisterBroker answered {response.code}: {response.remark}")
            except MqError as exc:
                self._member.set_error(f"registration waits for the controller: {exc}")
            stopped.wait(RETRY_S)
        return None

    def apply_broker_id(self, keep: Identity | None = None) -> Identity | None:
        """GetNextBrokerId → temp file → ApplyBrokerId → identity file; None to try again later.

        With `keep` (a controller that lost the set) the broker applies its own id again instead of a new one.
        """
        c = self._member.config
        temp = self._files.load_temp()
        if temp is None and keep is not None:
            temp = self._files.write_temp(keep, c.broker_address)
        if temp is None:
            request = cpb.GetNextBrokerIdRequest(cluster_name=c.broker_cluster_name, broker_name=c.broker_name)
            got = self._link.call("GetNextBrokerId", request)
            if got.code != ResponseCode.SUCCESS:
                self._member.set_error(f"GetNextBrokerId answered {got.code}: {got.remark}")
                return None
            temp = self._files.write_temp(
                Identity(c.broker_cluster_name, c.broker_name, got.next_broker_id), c.broker_address
            )
        check(temp.identity, c.broker_cluster_name, c.broker_name)
        applied = self._link.call(
            "ApplyBrokerId",
            cpb.ApplyBrokerIdRequest(
                cluster_name=c.broker_cluster_name,
                broker_name=c.broker_name,
                applied_broker_id=temp.identity.broker_id,
                register_check_code=temp.register_check_code,
                ha_address=c.ha_address,
            ),
        )
        if applied.code != ResponseCode.SUCCESS:
            log.info("%s: ApplyBrokerId(%d) answered %d (%s); asking for a new id",
                     self._name(), temp.identity.broker_id, applied.code, applied.remark)  # fmt: skip
            self._member.set_error(f"ApplyBrokerId answered {applied.code}: {applied.remark}")  # e.g. NO_PERMISSION
            self._files.clear_temp()
            return None
        self._files.commit(temp.identity)
        log.info("%s: registered broker id %d", self._name(), temp.identity.broker_id)
        return temp.identity

    def request(self) -> cpb.RegisterBrokerRequest:
        c = self._member.config
        return cpb.RegisterBrokerRequest(
            cluster_name=c.broker_cluster_name,
            broker_name=c.broker_name,
            broker_id=self._member.broker_id,
            broker_address=c.broker_address,
            ha_address=c.ha_address,
        )
