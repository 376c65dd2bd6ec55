"""``assign-preferred-master``: record (or clear) a broker set's preferred master, and optionally wait for it.

The preference lives in the controllers' replicated state, so it survives controller leader changes and
restarts. Elections honour it only while the controllers run with ``enablePreferredMaster=true``, and so does
the controller's scan that moves the master to an alive, in-sync preferred broker by a graceful transfer.
"""

from __future__ import annotations

import sys
import time
from typing import Annotated, Any, NotRequired, TypedDict

import typer

from mqadmin_py.commands.common import (
    broker_id_option,
    broker_name_option,
    check,
    cluster_name_option,
    code_name,
    controller_client,
    opt,
    seconds_option,
)
from mqadmin_py.commands.controller import SyncStateDoc
from mqadmin_py.commands.wait import MAX_RPC_TIMEOUT, _master_alive, _summary, _sync_state, poll
from mqadmin_py.options import ControllerOpt, OutputOpt
from mqadmin_py.output import Output, emit, emit_table, null
from mqbase.errors import OperationRefused, Refused, UsageError

INVALID_REPLICAS = 2003
"""CONTROLLER_INVALID_REPLICAS: the broker is an async learner, which can never become master."""
ASSIGN_RPC_TIMEOUT = 6.0
"""Seconds for the assignment itself: the leader waits up to 5 s for its commit."""


class PreferredDoc(TypedDict):
    clusterName: str
    brokerName: str
    previousPreferredBrokerId: int | None
    preferredBrokerId: int | None
    changed: bool
    preferredMasterEnabled: bool
    masterBrokerId: int | None
    masterEpoch: int
    waitedSeconds: NotRequired[float]  # with --wait (masterBrokerId and masterEpoch are then the ones waited for)


def assign_preferred_master(
    controller: ControllerOpt,
    cluster_name: Annotated[str, cluster_name_option("-c", "--clusterName", help="Cluster of the broker set.")],
    broker_name: Annotated[str, broker_name_option("-bn", "--brokerName", help="Broker set.")],
    broker_id: Annotated[
        int | None, broker_id_option("-b", "--brokerId", help="Broker id to prefer as master.")
    ] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Remove the set's preferred master instead.")] = False,
    wait: Annotated[
        bool, typer.Option("--wait", help="Then wait until that broker is the alive master (exit 3 on timeout).")
    ] = False,
    timeout: Annotated[float, seconds_option("--timeout", help="Seconds allowed in all, the wait included.")] = 30.0,
    output: OutputOpt = Output.table,
) -> None:
    """Record a broker set's preferred master (kept by the controllers; elections honour it with enablePreferredMaster).

    Prints the preference before and after. An async learner is refused (exit 4). With enablePreferredMaster the
    controller moves the master to the broker by a graceful transfer once it is in sync. With --wait, returns once
    the broker is the alive master; exit 3 on timeout (getSyncStateSet says why it waits), 4 if the preference is
    cleared or changed meanwhile.
    """
    from mqbase.proto import controller_pb2 as pb

    if clear == (broker_id is not None):
        raise UsageError("give -b BROKER_ID to assign, or --clear to remove the preference (not both)")
    if wait and clear:
        raise UsageError("--wait needs -b BROKER_ID: there is no broker to wait for after --clear")
    started = time.monotonic()
    request = pb.AssignPreferredMasterRequest(cluster_name=cluster_name, broker_name=broker_name, broker_id=broker_id,
                                              clear=clear)  # fmt: skip
    with controller_client(controller, min(timeout, ASSIGN_RPC_TIMEOUT)) as client:
        r = client.call("AssignPreferredMaster", request)
        if r.code == INVALID_REPLICAS:
            raise OperationRefused(r.code, code_name(r.code), r.remark)
        check(r)
        doc: PreferredDoc = {
            "clusterName": r.cluster_name,
            "brokerName": r.broker_name,
            "previousPreferredBrokerId": opt(r, "previous_preferred_broker_id"),
            "preferredBrokerId": opt(r, "preferred_broker_id"),
            "changed": opt(r, "previous_preferred_broker_id") != opt(r, "preferred_broker_id"),
            "preferredMasterEnabled": r.preferred_master_enabled,
            "masterBrokerId": opt(r, "master_broker_id"),
            "masterEpoch": r.master_epoch,
        }
        if not r.preferred_master_enabled:
            print("mqadmin: note: enablePreferredMaster=false on the controller leader, so elections ignore the "
                  "preference until it is enabled (updateControllerConfig -k enablePreferredMaster -v true)",
                  file=sys.stderr)  # fmt: skip
        if wait and broker_id is not None:
            doc = _wait_until_master(client, broker_name, broker_id, doc, timeout - (time.monotonic() - started))
    emit(doc, output, _table, _legacy)


def _wait_until_master(
    client: Any, broker_name: str, broker_id: int, doc: PreferredDoc, timeout: float
) -> PreferredDoc:
    """Poll until `broker_id` is the alive master; Refused (exit 4) as soon as it is no longer the preferred one."""
    client.timeout = MAX_RPC_TIMEOUT

    def probe(rpc_timeout: float) -> tuple[SyncStateDoc | None, str]:
        state = _sync_state(client, broker_name, rpc_timeout)
        elected = state["masterBrokerId"] == broker_id and _master_alive(state)
        dropped = state["preferredBrokerId"] != broker_id
        return state if elected or dropped else None, f"{_summary(state)}, preferred {null(state['preferredBrokerId'])}"

    state, waited = poll(f"broker {broker_id} to be the alive master of {broker_name}", probe, max(timeout, 0.1))
    if state["preferredBrokerId"] != broker_id:
        raise Refused(
            f"broker {broker_id} is no longer the preferred master of {broker_name} (now: "
            f"{null(state['preferredBrokerId'])}); it will not be elected for that reason any more"
        )
    return {**doc, "masterBrokerId": state["masterBrokerId"], "masterEpoch": state["masterEpoch"],
            "waitedSeconds": waited}  # fmt: skip


def _table(d: PreferredDoc) -> None:
    change = f"{null(d['previousPreferredBrokerId'])} -> {null(d['preferredBrokerId'])}"
    title = f"{d['brokerName']}: preferred master {change if d['changed'] else 'unchanged'}"
    if "waitedSeconds" in d:
        title += f"; broker {d['masterBrokerId']} is master after {d['waitedSeconds']:g} s"
    emit_table(title, ["Previous", "Preferred", "Master", "MasterEpoch", "enablePreferredMaster"],
               [[d["previousPreferredBrokerId"], d["preferredBrokerId"], d["masterBrokerId"], d["masterEpoch"],
                 str(d["preferredMasterEnabled"]).lower()]])  # fmt: skip


def _legacy(d: PreferredDoc) -> str:
    return (f"#ClusterName\t{d['clusterName']}\n#BrokerName\t{d['brokerName']}\n"
            f"#PreviousPreferredBrokerId\t{null(d['previousPreferredBrokerId'])}\n"
            f"#PreferredBrokerId\t{null(d['preferredBrokerId'])}\n#MasterBrokerId\t{null(d['masterBrokerId'])}\n"
            f"#MasterEpoch\t{d['masterEpoch']}\n")  # fmt: skip
