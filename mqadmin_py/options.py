"""Options shared by every command, defined once."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from mqadmin_py.output import Output

ControllerOpt = Annotated[
    str,
    typer.Option(
        "-a",
        "--controllerAddress",
        envvar="MQADMIN_CONTROLLERS",
        help="Controller gRPC addresses, ';'-separated (env MQADMIN_CONTROLLERS).",
        show_default=False,
    ),
]
OutputOpt = Annotated[Output, typer.Option("-o", "--output", help="table, json or legacy (the Java tool's text).")]
TimeoutOpt = Annotated[float, typer.Option("--timeout", help="Seconds allowed for each RPC.", min=0.1)]
SandboxDirOpt = Annotated[
    str,
    typer.Option("--dir", envvar="MQADMIN_SANDBOX_DIR", help="Sandbox directory (env MQADMIN_SANDBOX_DIR)."),
]
DEFAULT_SANDBOX_DIR = os.path.join(os.path.expanduser("~"), ".mqadmin", "sandbox")
BrokerNamesOpt = Annotated[list[str] | None, typer.Option("-b", "--brokerName", help="Broker set name(s).")]
ClusterNameOpt = Annotated[str | None, typer.Option("-c", "--clusterName", help="Every set of a cluster.")]
