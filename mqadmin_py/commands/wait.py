"""``mqadmin wait master|insync|quorum``: block until the cluster reaches a state, for runbooks (exit 3 on timeout)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Annotated, Any, TypedDict, TypeVar

import typer

from mqadmin_py.commands.common import broker_id_option, broker_name_option, controller_client, seconds_option
from mqadmin_py.commands.controller import SyncStateDoc, fetch_sync_state
from mqadmin_py.options import ControllerOpt, OutputOpt
from mqadmin_py.output import Output, emit, emit_table
from mqbase.errors import Interrupted, MqError, TimedOut

app = typer.Typer(help="Block until a broker set has a master, a full SyncStateSet, or the controllers a quorum.")

WaitTimeoutOpt = Annotated[float, seconds_option("--timeout", help="Seconds to wait in all (exit 3 after).")]
BrokerNameOpt = Annotated[str, broker_name_option("-bn", "--brokerName", help="Broker set.")]
POLL_INTERVAL = 0.2
MAX_RPC_TIMEOUT = 2.0

Reached = TypeVar("Reached")


class WaitedSetDoc(SyncStateDoc):
    """``wait master`` and ``wait insync``: the set's getSyncStateSet document once reached."""

    waitedSeconds: float


class LeaderDoc(TypedDict):
    controllerLeaderId: str
    controllerLeaderAddress: str
    term: int


class WaitedLeaderDoc(LeaderDoc):
    """``wait quorum``."""

    waitedSeconds: float


def poll(what: str, probe: Callable[[float], tuple[Reached | None, str]], timeout: float) -> tuple[Reached, float]:
    """Call `probe(rpc_timeout)` until it reports done; returns its document and the seconds waited (3 decimals).
    Failures are retried, not fatal.

    `probe` returns (the document once the state is reached, else None; one-line description of what it saw). On
    timeout: TimedOut (exit 3) naming the last thing seen, so the runbook's log says why.
    """
    started = time.monotonic()
    deadline = started + timeout
    seen = "nothing yet"
    status = None
    if sys.stderr.isatty():
        from rich.console import Console

        status = Console(stderr=True).status(f"waiting for {what}")
        status.start()
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimedOut(f"{what}: not reached within {timeout:g} s (last seen: {seen})")
            try:
                doc, seen = probe(min(MAX_RPC_TIMEOUT, max(0.2, remaining)))
            except MqError as exc:
                doc, seen = None, str(exc)
            if doc is not None:
                return doc, round(time.monotonic() - started, 3)
            if status is not None:
                status.update(f"waiting for {what} ({seen})")
            time.sleep(min(POLL_INTERVAL, max(0.0, deadline - time.monotonic())))
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted while waiting for {what} (last seen: {seen})") from None
    finally:
        if status is not None:
            status.stop()


def _sync_state(client: Any, broker_name: str, rpc_timeout: float) -> SyncStateDoc:
    client.timeout = rpc_timeout
    return fetch_sync_state(client, [broker_name], None)[0]


def _master_alive(doc: SyncStateDoc) -> bool:
    return any(r["brokerId"] == doc["masterBrokerId"] and r["alive"] for r in doc["inSyncReplicas"])


def _summary(doc: SyncStateDoc) -> str:
    members = ",".join(f"{r['brokerId']}{'' if r['alive'] else '(dead)'}" for r in doc["inSyncReplicas"])
    master = "no master" if doc["masterBrokerId"] is None else f"master {doc['masterBrokerId']}"
    return f"{master}, masterEpoch {doc['masterEpoch']}, SyncStateSet [{members}]"


def _set_table(title: str) -> Callable[[WaitedSetDoc], None]:
    def table(d: WaitedSetDoc) -> None:
        members = [r["brokerId"] for r in d["inSyncReplicas"]]
        emit_table(
            f"{d['brokerName']}: {title} after {d['waitedSeconds']:g} s",
            ["Master", "MasterAddress", "MasterEpoch", "SyncStateSetEpoch", "SyncStateSet"],
            [[d["masterBrokerId"], d["masterAddress"], d["masterEpoch"], d["syncStateSetEpoch"], members]],
        )

    return table


@app.command()
def master(
    controller: ControllerOpt,
    broker_name: BrokerNameOpt,
    other_than: Annotated[
        int | None, broker_id_option("--other-than", help="...and it is not this broker id (the old master).")
    ] = None,
    broker_id: Annotated[int | None, broker_id_option("-b", "--brokerId", help="...and it is this broker id.")] = None,
    timeout: WaitTimeoutOpt = 30.0,
    output: OutputOpt = Output.table,
) -> None:
    """Wait until a broker set has an alive master (optionally a different one, or a given one)."""
    conditions = (f" other than {other_than}" if other_than is not None else "") + (
        f" that is broker {broker_id}" if broker_id is not None else ""
    )

    def probe(rpc_timeout: float) -> tuple[SyncStateDoc | None, str]:
        doc = _sync_state(client, broker_name, rpc_timeout)
        done = (
            _master_alive(doc)
            and doc["masterBrokerId"] != other_than
            and (broker_id is None or doc["masterBrokerId"] == broker_id)
        )
        return doc if done else None, _summary(doc)

    with controller_client(controller, MAX_RPC_TIMEOUT) as client:  # one client: it remembers the leader
        reached, waited = poll(f"an alive master of {broker_name}{conditions}", probe, timeout)
    doc: WaitedSetDoc = {**reached, "waitedSeconds": waited}
    emit(doc, output, _set_table(f"master {doc['masterBrokerId']}"))


@app.command()
def insync(
    controller: ControllerOpt,
    broker_name: BrokerNameOpt,
    members: Annotated[
        int | None,
        typer.Option(
            "-n", "--members", help="SyncStateSet size to reach (default: every replica the controller knows).", min=1
        ),
    ] = None,
    timeout: WaitTimeoutOpt = 30.0,
    output: OutputOpt = Output.table,
) -> None:
    """Wait until a broker set has an alive master and at least N alive members in its SyncStateSet."""

    def probe(rpc_timeout: float) -> tuple[SyncStateDoc | None, str]:
        doc = _sync_state(client, broker_name, rpc_timeout)
        wanted = members or len(doc["inSyncReplicas"]) + len(doc["notInSyncReplicas"])
        alive = sum(1 for r in doc["inSyncReplicas"] if r["alive"])
        return doc if _master_alive(doc) and alive >= wanted else None, f"{_summary(doc)}, want {wanted} in sync"

    with controller_client(controller, MAX_RPC_TIMEOUT) as client:
        reached, waited = poll(f"{broker_name}'s SyncStateSet to fill", probe, timeout)
    doc: WaitedSetDoc = {**reached, "waitedSeconds": waited}
    emit(doc, output, _set_table(f"{len(doc['inSyncReplicas'])} in sync"))


@app.command()
def quorum(controller: ControllerOpt, timeout: WaitTimeoutOpt = 30.0, output: OutputOpt = Output.table) -> None:
    """Wait until the controller group has a leader that is ready and holds a quorum."""

    def probe(rpc_timeout: float) -> tuple[LeaderDoc | None, str]:
        seen = []
        with controller_client(controller, rpc_timeout) as client:
            for address in client.addresses:
                try:
                    m = client.metadata(address)
                except MqError as exc:
                    seen.append(f"{address}: {exc}")
                    continue
                if m.is_leader and m.raft.ready and m.raft.has_quorum:
                    leader: LeaderDoc = {"controllerLeaderId": m.self_id, "controllerLeaderAddress": address,
                                         "term": m.raft.term}  # fmt: skip
                    return leader, "leader"
                seen.append(f"{m.self_id}: {m.raft.state}, leader {m.controller_leader_id or 'none'}")
        return None, "; ".join(seen)

    reached, waited = poll("a controller leader with quorum", probe, timeout)
    doc: WaitedLeaderDoc = {**reached, "waitedSeconds": waited}
    emit(
        doc,
        output,
        lambda d: typer.echo(
            f"leader {d['controllerLeaderId']} at {d['controllerLeaderAddress']} (term {d['term']}) "
            f"after {d['waitedSeconds']:g} s"
        ),
    )
