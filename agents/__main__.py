"""``mqagent``: run a broker agent (a container of broker replicas), or print its effective configuration."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
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
        Path, typer.Option("-c", "--configFile", help="Agent properties file (listenPort, brokerConfigPaths, ...).")
    ],
    print_config: Annotated[
        bool,
        typer.Option(
            "-p",
            "--printConfigItem",
            help="Check every broker config file, print the effective configuration and exit.",
        ),
    ] = False,
    log_level: Annotated[str, typer.Option("--log-level", help="DEBUG, INFO, WARNING or ERROR.")] = "INFO",
    _version: VersionOpt = False,
) -> None:
    """Host the broker replicas listed in the agent config; each registers with the controllers and replicates.

    With enableControllerInAgent=true the agent also runs a controller node of the Raft group.

    Exit codes: 0 clean shutdown (SIGTERM/SIGINT), 1 cannot start (port in use, a store in use by another
    process, damaged controller store, no broker could start), 2 bad configuration.
    """
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    from agents.broker.agent import remembered
    from agents.config import load_agent, load_broker
    from mqadmin_py.configkeys import ConfigError

    try:
        config = load_agent(config_file)
        if print_config:
            for path in [*map(str, config.broker_config_paths), *remembered(config)]:
                load_broker(path)
    except ConfigError as exc:
        typer.echo(f"mqagent: bad configuration: {exc}", err=True)
        raise typer.Exit(2) from exc
    if log_level.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        typer.echo(f"mqagent: --log-level must be DEBUG, INFO, WARNING or ERROR, got {log_level!r}", err=True)
        raise typer.Exit(2)
    if print_config:
        for key, value in sorted(config.to_properties().items()):
            typer.echo(f"{key}={value}")
        return
    logging.basicConfig(
        level=log_level.upper(), format="%(asctime)s %(levelname)s [agent] %(name)s: %(message)s", stream=sys.stderr
    )
    logging.getLogger("pysyncobj").setLevel(logging.WARNING)  # as mqcontroller, for an embedded controller
    from agents.broker.agent import Agent
    from agents.broker.service import AgentStartError

    agent = Agent(config)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    try:
        agent.start()
    except AgentStartError as exc:
        agent.stop()
        typer.echo(f"mqagent: cannot start: {exc}", err=True)
        raise typer.Exit(1) from exc
    while not stop.wait(0.5):
        pass
    logging.getLogger(__name__).info("stopping")
    agent.stop()


def main() -> None:
    app(prog_name="mqagent")


if __name__ == "__main__":
    main()
