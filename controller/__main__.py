"""``mqcontroller``: run one controller node, or print its effective configuration."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from mqadmin_py.version import VersionOpt

app = typer.Typer(
    add_completion=False,  # static scripts in completions/
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.command()
def run(
    config_file: Annotated[
        Path,
        typer.Option("-c", "--configFile", help="Controller properties file (controllerPeers, controllerSelfId, ...)."),
    ],
    print_config: Annotated[
        bool, typer.Option("-p", "--printConfigItem", help="Print the effective configuration and exit.")
    ] = False,
    log_level: Annotated[str, typer.Option("--log-level", help="DEBUG, INFO, WARNING or ERROR.")] = "INFO",
    _version: VersionOpt = False,
) -> None:
    """Start a controller node of a Raft group (1, 3 or 5 nodes) that keeps broker-set metadata.

    Exit codes: 0 clean shutdown (SIGTERM/SIGINT), 1 cannot start (port in use,
    damaged store, store in use by another process), 2 bad configuration.
    """
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    from controller.config import ConfigError, load, to_properties

    try:
        config = load(config_file)
    except ConfigError as exc:
        typer.echo(f"mqcontroller: bad configuration: {exc}", err=True)
        raise typer.Exit(2) from exc
    if log_level.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        typer.echo(f"mqcontroller: --log-level must be DEBUG, INFO, WARNING or ERROR, got {log_level!r}", err=True)
        raise typer.Exit(2)
    if print_config:
        for key, value in sorted(to_properties(config).items()):
            typer.echo(f"{key}={value}")
        return
    from mqadmin_py.properties import directory_problem

    for key, folder in (("controllerStorePath", config.node_store_dir),
                        ("configStorePath", config.effective_config_store_path.parent)):  # fmt: skip
        if problem := directory_problem(folder):
            typer.echo(f"mqcontroller: bad configuration: {key}: {problem}", err=True)
            raise typer.Exit(2)
    logging.basicConfig(
        level=log_level.upper(),
        format=f"%(asctime)s %(levelname)s [{config.controller_self_id}] %(name)s: %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("pysyncobj").setLevel(logging.WARNING)
    from controller.daemon import ControllerNode, GrpcBindError, MetricsBindError
    from controller.raft import RaftStartError
    from mqadmin_py.storelock import StoreLockError

    try:
        node = ControllerNode(config)
    except (RaftStartError, StoreLockError) as exc:
        typer.echo(f"mqcontroller: cannot start: {exc}", err=True)
        raise typer.Exit(1) from exc
    try:
        asyncio.run(node.serve())
    except (GrpcBindError, MetricsBindError) as exc:
        node.destroy()
        typer.echo(f"mqcontroller: cannot start: {exc}", err=True)
        raise typer.Exit(1) from exc


def main() -> None:
    app(prog_name="mqcontroller")


if __name__ == "__main__":
    main()
