"""``mqcontroller``: run one controller node, or print its effective configuration.

``python -m mqadmin_py.mqcontroller`` runs it as the ``mqcontroller`` script does.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from mqadmin_py.daemons import LogLevelOpt, checked_level, daemon_app, fail, start_logging
from mqadmin_py.version import VersionOpt

PROGRAM = "mqcontroller"
app = daemon_app()


@app.command()
def run(
    config_file: Annotated[
        Path,
        typer.Option("-c", "--configFile", help="Controller properties file (controllerPeers, controllerSelfId, ...)."),
    ],
    print_config: Annotated[
        bool, typer.Option("-p", "--printConfigItem", help="Print the effective configuration and exit.")
    ] = False,
    log_level: LogLevelOpt = "INFO",
    _version: VersionOpt = False,
) -> None:
    """Start a controller node of a Raft group (1, 3 or 5 nodes) that keeps broker-set metadata.

    Exit codes: 0 clean shutdown (SIGTERM/SIGINT), 1 cannot start (port in use,
    damaged store, store in use by another process), 2 bad configuration.
    """
    from controller.config import ConfigError, load, to_properties

    try:
        config = load(config_file)
    except ConfigError as exc:
        fail(PROGRAM, f"bad configuration: {exc}", 2)
    level = checked_level(PROGRAM, log_level)
    if print_config:
        for key, value in sorted(to_properties(config).items()):
            typer.echo(f"{key}={value}")
        return
    from mqbase.files import directory_problem

    for key, folder in (("controllerStorePath", config.node_store_dir),
                        ("configStorePath", config.effective_config_store_path.parent)):  # fmt: skip
        if problem := directory_problem(folder):
            fail(PROGRAM, f"bad configuration: {key}: {problem}", 2)
    start_logging(level, config.controller_self_id)
    from controller.daemon import ControllerNode, GrpcBindError, MetricsBindError
    from controller.raft import RaftStartError
    from mqbase.storelock import StoreLockError

    try:
        node = ControllerNode(config)
    except (RaftStartError, StoreLockError) as exc:
        fail(PROGRAM, f"cannot start: {exc}", 1)
    try:
        asyncio.run(node.serve())
    except (GrpcBindError, MetricsBindError) as exc:
        node.destroy()
        fail(PROGRAM, f"cannot start: {exc}", 1)


def main() -> None:
    app(prog_name=PROGRAM)


if __name__ == "__main__":
    main()
