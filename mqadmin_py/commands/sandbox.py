"""``mqadmin sandbox up|down|status|kill|stop|start``: a real local cluster on loopback."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, TypedDict

import typer

from mqadmin_py.commands.common import key_values, seconds_option
from mqadmin_py.commands.container import BrokerPlaceDoc
from mqadmin_py.options import DEFAULT_SANDBOX_DIR, OutputOpt, SandboxDirOpt
from mqadmin_py.output import Output, emit, emit_table
from mqbase.errors import UsageError

if TYPE_CHECKING:
    from mqadmin_py.sandbox import Sandbox

DRILL_SIGNALS = ("KILL", "TERM", "STOP", "CONT")
app = typer.Typer(help="Run a real local cluster on loopback (controllers and broker agents) to try things and test.")


class ControllerDoc(TypedDict):
    id: str
    address: str
    raftAddress: str
    pid: int | None
    logFile: str


class AgentDoc(TypedDict):
    id: str
    address: str
    proxyAddress: str | None
    """The agent's RocketMQ 5 gRPC access point (None: it serves none)."""
    pid: int | None
    logFile: str
    brokers: list[BrokerPlaceDoc]


class SandboxDoc(TypedDict):
    """``sandbox up`` and ``sandbox status``."""

    dir: str
    credentialsFile: str | None
    controllers: list[ControllerDoc]
    agents: list[AgentDoc]
    proxyEndpoints: str
    """Every agent's access point, ``host:port;host:port;...``: what RocketMQ 5 clients are given as endpoints."""


class ProcessDoc(TypedDict):
    """A process and its pid: ``sandbox down`` lists the ones it stopped; ``stop`` gives None for one not running."""

    id: str
    pid: int | None


class DownDoc(TypedDict):
    stopped: list[ProcessDoc]
    purged: bool


class KillDoc(TypedDict):
    id: str
    pid: int
    signal: str
    brokerName: str | None
    brokerAddress: str | None


def _doc(sandbox: Sandbox) -> SandboxDoc:
    credentials = sandbox.credentials_file
    ids = sandbox.broker_ids()
    return {
        "dir": str(sandbox.dir),
        "credentialsFile": str(credentials) if credentials else None,
        "controllers": [
            {"id": c.id, "address": c.address, "raftAddress": c.raftAddress, "pid": c.pid, "logFile": c.logFile}
            for c in sandbox.controllers()
        ],
        "agents": [
            {
                "id": a.id,
                "address": a.address,
                "proxyAddress": a.proxyAddress or None,
                "pid": a.pid,
                "logFile": a.logFile,
                "brokers": [
                    {
                        "clusterName": b.clusterName,
                        "brokerName": b.brokerName,
                        "brokerId": ids.get(b.brokerAddress),
                        "brokerAddress": b.brokerAddress,
                        "haAddress": b.haAddress,
                    }
                    for b in a.brokers
                ],
            }
            for a in sandbox.agents()
        ],
        "proxyEndpoints": sandbox.proxy_endpoints(),
    }


def _table(doc: SandboxDoc) -> None:
    rows = [[c["id"], "controller", c["address"], f"raft {c['raftAddress']}", c["pid"] or "stopped"]
            for c in doc["controllers"]]  # fmt: skip
    for a in doc["agents"]:
        hosted = ", ".join(
            f"{b['brokerName']} id {'?' if b['brokerId'] is None else b['brokerId']} {b['brokerAddress']}"
            for b in a["brokers"]
        )
        rows.append([a["id"], "agent", a["address"], hosted, a["pid"] or "stopped"])
        if a["proxyAddress"]:
            rows.append([a["id"], "access point", a["proxyAddress"], "RocketMQ 5 gRPC", a["pid"] or "stopped"])
    emit_table(f"Sandbox {doc['dir']} (logs in logs/)", ["Id", "Kind", "Address", "Raft / brokers", "Pid"], rows)
    if doc["controllers"]:
        addresses = ";".join(c["address"] for c in doc["controllers"])
        typer.echo(f"export MQADMIN_CONTROLLERS='{addresses}'")
    if doc["proxyEndpoints"]:
        typer.echo(f"# RocketMQ 5 clients' endpoints: {doc['proxyEndpoints']}")
    if doc["credentialsFile"]:
        typer.echo(f"export MQADMIN_CREDENTIALS_FILE='{doc['credentialsFile']}'")


def _sandbox(directory: str) -> Sandbox:
    from mqadmin_py.sandbox import Sandbox

    return Sandbox(directory)


@contextmanager
def _status() -> Iterator[Callable[[str], None]]:
    """Progress lines for long waits: a spinner on a terminal, nothing otherwise (stdout stays clean)."""
    if not sys.stderr.isatty():
        yield lambda _text: None
        return
    from rich.console import Console

    status = Console(stderr=True).status("starting")
    status.start()
    try:
        yield status.update
    finally:
        status.stop()


@app.command()
def up(
    directory: SandboxDirOpt = DEFAULT_SANDBOX_DIR,
    controllers: Annotated[int, typer.Option("--controllers", help="Controller nodes: 1, 3 or 5.")] = 3,
    broker_sets: Annotated[
        int, typer.Option("--broker-sets", help="Broker sets (broker-a, broker-b, ...); 0 for controllers only.")
    ] = 1,
    replicas: Annotated[int, typer.Option("--replicas", help="Replicas per set = agents (aK hosts replica K).")] = 3,
    cluster_name: Annotated[str, typer.Option("--cluster-name", help="Cluster of every set.")] = "DefaultCluster",
    broker_conf: Annotated[
        list[str] | None, typer.Option("--broker-conf", help="Extra broker key=value (repeatable).")
    ] = None,
    controller_conf: Annotated[
        list[str] | None, typer.Option("--controller-conf", help="Extra controller key=value (repeatable).")
    ] = None,
    timeout: Annotated[float, seconds_option("--timeout", help="Seconds to wait until everything serves.")] = 90.0,
    secure: Annotated[
        bool,
        typer.Option("--secure", help="TLS (client certificates required), credentials and an encrypted Raft."),
    ] = False,
    output: OutputOpt = Output.table,
) -> None:
    """Start the sandbox and wait until every broker set has a master and a full SyncStateSet.

    Shape options apply when the sandbox is created; an existing sandbox starts what is stopped, as it was.
    With --secure, export the printed MQADMIN_CREDENTIALS_FILE to reach it with mqadmin.
    """
    sandbox = _sandbox(directory)
    with _status() as progress:
        sandbox.up(
            controllers,
            key_values(controller_conf, "--controller-conf"),
            timeout,
            broker_sets=broker_sets,
            replicas=replicas,
            cluster_name=cluster_name,
            broker_config=key_values(broker_conf, "--broker-conf"),
            progress=progress,
            secure=secure,
        )
    emit(_doc(sandbox), output, _table)


@app.command()
def down(
    directory: SandboxDirOpt = DEFAULT_SANDBOX_DIR,
    purge: Annotated[bool, typer.Option("--purge", help="Also delete the sandbox directory (data, logs).")] = False,
    output: OutputOpt = Output.table,
) -> None:
    """Stop exactly the processes the sandbox started (by pid); files stay for a later 'up' unless --purge.

    With a damaged sandbox.json, the processes its run/*.pid files name are stopped (each only while its pid runs
    the node's config), and a line on stderr says so.
    """
    from mqadmin_py.sandbox_state import DamagedState

    sandbox = _sandbox(directory)
    try:
        sandbox.processes()
    except DamagedState as exc:
        typer.echo(f"mqadmin: {exc.problem}; stopping what its run/*.pid files name", err=True)
    stopped = sandbox.down(purge=purge)
    doc: DownDoc = {"stopped": [{"id": p.id, "pid": p.pid} for p in stopped], "purged": purge}
    emit(doc, output, lambda d: typer.echo(f"stopped {len(d['stopped'])} process(es)" + (", purged" if purge else "")))


@app.command()
def status(directory: SandboxDirOpt = DEFAULT_SANDBOX_DIR, output: OutputOpt = Output.table) -> None:
    """Show the sandbox's processes, addresses, pids and logs."""
    emit(_doc(_sandbox(directory)), output, _table)


@app.command()
def kill(
    target: Annotated[
        str, typer.Argument(help="A process id (n0, a1, ...), 'leader' (controller leader) or 'master' (see -bn).")
    ],
    directory: SandboxDirOpt = DEFAULT_SANDBOX_DIR,
    sig: Annotated[str, typer.Option("--signal", help="KILL, TERM, STOP or CONT.")] = "KILL",
    broker_name: Annotated[
        str | None, typer.Option("-bn", "--brokerName", help="With 'master': which set (default: the first).")
    ] = None,
    output: OutputOpt = Output.table,
) -> None:
    """Send a signal to one sandbox process, for failover drills ('master': the agent hosting a set's master)."""
    sandbox = _sandbox(directory)
    if sig.upper() not in DRILL_SIGNALS:
        raise UsageError(f"unsupported signal {sig!r}: use KILL, TERM, STOP or CONT")
    signum = signal.Signals[f"SIG{sig.upper()}"]
    broker = None
    if target == "leader":
        node_id = sandbox.wait_for_leader(10.0)
    elif target == "master":
        agent, broker = sandbox.master_agent(broker_name)
        node_id = agent.id
    else:
        node_id = target
    pid = sandbox.signal(node_id, signum)
    doc: KillDoc = {
        "id": node_id,
        "pid": pid,
        "signal": signum.name,
        "brokerName": broker.brokerName if broker else None,
        "brokerAddress": broker.brokerAddress if broker else None,
    }
    what = f" (master of {broker.brokerName} at {broker.brokerAddress})" if broker else ""
    emit(doc, output, lambda d: typer.echo(f"sent {d['signal']} to {d['id']}{what} (pid {d['pid']})"))


@app.command()
def stop(
    node: Annotated[str, typer.Argument(help="Process id (n0, a1, ...).")],
    directory: SandboxDirOpt = DEFAULT_SANDBOX_DIR,
    output: OutputOpt = Output.table,
) -> None:
    """Stop one sandbox process cleanly (SIGTERM, then SIGKILL after 15 s), e.g. for a rolling restart."""
    sandbox = _sandbox(directory)
    pid = next((p.pid for p in sandbox.processes() if p.id == node), None)
    sandbox.stop(node, timeout=15.0)
    doc: ProcessDoc = {"id": node, "pid": pid}
    emit(
        doc,
        output,
        lambda d: typer.echo(f"{d['id']} stopped" + (f" (was pid {pid})" if pid else "")),
    )


@app.command()
def start(
    node: Annotated[str, typer.Argument(help="Process id (n0, a1, ...).")],
    directory: SandboxDirOpt = DEFAULT_SANDBOX_DIR,
    output: OutputOpt = Output.table,
) -> None:
    """Start one stopped sandbox process again (same ports, same data)."""
    pid = _sandbox(directory).start(node)
    doc: ProcessDoc = {"id": node, "pid": pid}
    emit(doc, output, lambda d: typer.echo(f"{d['id']} runs (pid {d['pid']})"))
