"""``mqagent``: run a broker agent (a container of broker replicas), or print its effective configuration.

The entry point composes the process: the agent and, with ``enableControllerInAgent=true``, the controller node
it hosts (``controller.embedded``). ``python -m mqadmin_py.mqagent`` runs it as the ``mqagent`` script does.
"""

from __future__ import annotations

import logging
import signal
import threading
from pathlib import Path
from typing import Annotated

import typer

from mqadmin_py.daemons import LogLevelOpt, checked_level, daemon_app, fail, start_logging
from mqadmin_py.version import VersionOpt

PROGRAM = "mqagent"
app = daemon_app()


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
    log_level: LogLevelOpt = "INFO",
    _version: VersionOpt = False,
) -> None:
    """Host the broker replicas listed in the agent config; each registers with the controllers and replicates.

    With enableControllerInAgent=true the agent also runs a controller node of the Raft group.

    Exit codes: 0 clean shutdown (SIGTERM/SIGINT), 1 cannot start (port in use, a store in use by another
    process, damaged controller store, no broker could start), 2 bad configuration.
    """
    from agents.broker.agent import remembered
    from agents.config import load_agent, load_broker
    from mqbase.configkeys import ConfigError

    try:
        config = load_agent(config_file)
        if print_config:
            for path in [*map(str, config.broker_config_paths), *remembered(config)]:
                load_broker(path)
    except ConfigError as exc:
        fail(PROGRAM, f"bad configuration: {exc}", 2)
    level = checked_level(PROGRAM, log_level)
    if print_config:
        for key, value in sorted(config.to_properties().items()):
            typer.echo(f"{key}={value}")
        return
    start_logging(level, "agent")  # pysyncobj quiet as in mqcontroller, for an embedded controller
    from agents.broker.agent import Agent
    from agents.broker.rpc_scope import AgentStartError
    from controller.embedded import EmbeddedController

    # Composed here, not in the agent: it starts the node before its brokers and stops it after them.
    controller = EmbeddedController(config.controller_config) if config.controller_config else None
    agent = Agent(config, controller)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    try:
        agent.start()
    except AgentStartError as exc:
        agent.stop()
        fail(PROGRAM, f"cannot start: {exc}", 1)
    while not stop.wait(0.5):
        pass
    logging.getLogger(__name__).info("stopping")
    agent.stop()


def main() -> None:
    app(prog_name=PROGRAM)


if __name__ == "__main__":
    main()
