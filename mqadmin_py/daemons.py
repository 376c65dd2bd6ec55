"""What ``mqcontroller`` and ``mqagent`` share at start-up: the typer app, ``--log-level``, logging, failing.

Their command lines, ``mqadmin_py/mqcontroller.py`` and ``mqadmin_py/mqagent.py``, are entry points: they sit in
the CLI package (they import typer) and compose the daemon packages below, which import nothing of it
(``tests/unit/test_layers.py``).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Annotated, NoReturn

import typer

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

LogLevelOpt = Annotated[str, typer.Option("--log-level", help="DEBUG, INFO, WARNING or ERROR.")]


def daemon_app() -> typer.Typer:
    """A one-command typer app as both daemons have it; grpc stays quiet unless GRPC_VERBOSITY says otherwise."""
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    return typer.Typer(
        add_completion=False,  # static scripts in completions/
        pretty_exceptions_show_locals=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )


def fail(program: str, why: str, code: int) -> NoReturn:
    """One line on stderr and exit `code` (1 cannot start, 2 bad configuration)."""
    typer.echo(f"{program}: {why}", err=True)
    raise typer.Exit(code)


def checked_level(program: str, level: str) -> str:
    """`level` in upper case; exit 2 when it is not one of LEVELS."""
    if level.upper() not in LEVELS:
        fail(program, f"--log-level must be DEBUG, INFO, WARNING or ERROR, got {level!r}", 2)
    return level.upper()


def start_logging(level: str, tag: str) -> None:
    """Log lines to stderr tagged with `tag` (the node or "agent"); pysyncobj's chatter only from WARNING up."""
    logging.basicConfig(
        level=level, format=f"%(asctime)s %(levelname)s [{tag}] %(name)s: %(message)s", stream=sys.stderr
    )
    logging.getLogger("pysyncobj").setLevel(logging.WARNING)
