"""The ``--version`` option the three programs share (the version is ``mqbase.__version__``)."""

from __future__ import annotations

from typing import Annotated

import typer

from mqbase import __version__


def _print_version(ctx: typer.Context, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        typer.echo(f"{ctx.find_root().info_name} {__version__}")
        raise typer.Exit()


VersionOpt = Annotated[
    bool,
    typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
]
