"""The installed package's version, and the ``--version`` option the three programs share."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Annotated

import typer


def package_version() -> str:
    """The version pip installed (pyproject.toml's), or ``unknown`` when run from a tree that is not installed."""
    try:
        return version("mqadmin-py")
    except PackageNotFoundError:
        return "unknown"


def _print_version(ctx: typer.Context, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        typer.echo(f"{ctx.find_root().info_name} {package_version()}")
        raise typer.Exit()


VersionOpt = Annotated[
    bool,
    typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
]
