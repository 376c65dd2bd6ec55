"""``mqadmin sandbox up|down|status|kill|start``: a real local controller group on loopback."""

from __future__ import annotations

import signal
from typing import Annotated, Any

import typer

from mqadmin_py.errors import UsageError
from mqadmin_py.options import DEFAULT_SANDBOX_DIR, OutputOpt, SandboxDirOpt
from mqadmin_py.output import Output, emit, emit_table

app = typer.Typer(help="Run a real local cluster on loopback (controllers for now) for trying things and tests.")


def _doc(sandbox: Any) -> dict[str, Any]:
    return {
        "dir": str(sandbox.dir),
        "controllers": [
            {"id": c.id, "address": c.address, "raftAddress": c.raftAddress, "pid": c.pid, "logFile": c.logFile}
            for c in sandbox.controllers()
        ],
    }


def _table(doc: dict[str, Any]) -> None:
    rows = [[c["id"], c["address"], c["raftAddress"], c["pid"] or "stopped", c["logFile"]] for c in doc["controllers"]]
    emit_table(f"Sandbox {doc['dir']}", ["Id", "gRPC address", "Raft address", "Pid", "Log"], rows)
    if doc["controllers"]:
        addresses = ";".join(c["address"] for c in doc["controllers"])
        typer.echo(f"export MQADMIN_CONTROLLERS='{addresses}'")


def _sandbox(directory: str) -> Any:
    from mqadmin_py.sandbox import Sandbox

    return Sandbox(directory)


@app.command()
def up(
    directory: SandboxDirOpt = DEFAULT_SANDBOX_DIR,
    controllers: Annotated[int, typer.Option("--controllers", help="Controller nodes: 1, 3 or 5.")] = 3,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds to wait for a leader.")] = 30.0,
    output: OutputOpt = Output.table,
) -> None:
    """Start the sandbox (or restart a stopped one) and wait until a controller leader serves."""
    sandbox = _sandbox(directory)
    sandbox.up(controllers=controllers, timeout=timeout)
    emit(_doc(sandbox), output, _table)


@app.command()
def down(directory: SandboxDirOpt = DEFAULT_SANDBOX_DIR, output: OutputOpt = Output.table) -> None:
    """Stop exactly the processes the sandbox started (by pid); files stay for a later 'up'."""
    stopped = _sandbox(directory).down()
    doc = {"stopped": [{"id": c.id, "pid": c.pid} for c in stopped]}
    emit(doc, output, lambda d: typer.echo(f"stopped {len(d['stopped'])} process(es)"))


@app.command()
def status(directory: SandboxDirOpt = DEFAULT_SANDBOX_DIR, output: OutputOpt = Output.table) -> None:
    """Show the sandbox's processes, addresses and logs."""
    emit(_doc(_sandbox(directory)), output, _table)


@app.command()
def kill(
    node: Annotated[str, typer.Argument(help="Controller id (n0, n1, ...) or 'leader'.")],
    directory: SandboxDirOpt = DEFAULT_SANDBOX_DIR,
    sig: Annotated[str, typer.Option("--signal", help="KILL, TERM, STOP or CONT.")] = "KILL",
) -> None:
    """Send a signal to one sandbox controller, for failover drills."""
    sandbox = _sandbox(directory)
    try:
        signum = signal.Signals[f"SIG{sig.upper()}"]
    except KeyError as exc:
        raise UsageError(f"unknown signal {sig!r}: use KILL, TERM, STOP or CONT") from exc
    node_id = sandbox.wait_for_leader(10.0) if node == "leader" else node
    pid = sandbox.signal(node_id, signum)
    typer.echo(f"sent {signum.name} to controller {node_id} (pid {pid})")


@app.command()
def start(
    node: Annotated[str, typer.Argument(help="Controller id (n0, n1, ...).")],
    directory: SandboxDirOpt = DEFAULT_SANDBOX_DIR,
) -> None:
    """Start one stopped sandbox controller again."""
    pid = _sandbox(directory).start(node)
    typer.echo(f"controller {node} runs (pid {pid})")
