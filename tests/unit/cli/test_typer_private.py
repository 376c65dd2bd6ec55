"""typer's private names stay in mqadmin_py/typer_private.py, and still are what typer builds.

typer 0.28 vendors click as ``typer._click`` and exports no public name for click's base classes, its file and
string parameter types, typer's choice type or ``get_current_context``. If a typer release moves one of them, these
tests fail here, by name, instead of the completion generator silently offering nothing or ``client_security``
silently falling back to plaintext.
"""

from __future__ import annotations

import ast
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
import typer.main
from typer.core import TyperArgument, TyperGroup, TyperOption
from typer.testing import CliRunner

from mqadmin_py import typer_private
from mqadmin_py.commands.common import AliasGroup

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("mqbase", "controller", "agents", "spark", "mqadmin_py")
ALLOWED = "mqadmin_py/typer_private.py"


def _private_typer_imports(path: Path) -> list[str]:
    """The ``typer._x`` modules `path` imports (also ``from typer import _x``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("typer._")]
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module.startswith("typer._"):
                found.append(node.module)
            elif node.module == "typer":
                found += [f"typer.{a.name}" for a in node.names if a.name.startswith("_")]
    return found


def test_only_typer_private_imports_typers_private_modules() -> None:
    offenders = {
        str(path.relative_to(ROOT)): names
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if (names := _private_typer_imports(path)) and str(path.relative_to(ROOT)) != ALLOWED
    }
    assert offenders == {}, "import these through mqadmin_py/typer_private.py (or a public typer name)"


class Colour(Enum):
    red = "red"


def _probe_app() -> typer.Typer:
    app = typer.Typer(cls=AliasGroup)

    @app.command("probeIt")
    def probe_it(
        name: Annotated[str, typer.Argument()],
        colour: Annotated[Colour, typer.Option()] = Colour.red,
        config_file: Annotated[typer.FileText | None, typer.Option()] = None,
    ) -> None:
        ctx = typer_private.get_current_context(silent=True)
        assert isinstance(ctx, typer_private.Context)
        typer.echo(f"{ctx.info_name} {name}")

    @app.command("other")
    def other() -> None:  # a second command keeps the group a group
        """Nothing."""

    return app


def test_typer_builds_the_classes_the_cli_checks_for() -> None:
    root = typer.main.get_command(_probe_app())
    assert isinstance(root, typer_private.Command) and isinstance(root, TyperGroup)
    ctx = typer.Context(root)
    command = root.get_command(ctx, "probe-it")  # AliasGroup's override of TyperGroup.get_command
    assert isinstance(command, typer_private.Command)
    params = {p.name: p for p in command.params}
    assert isinstance(params["name"], TyperArgument)
    assert isinstance(params["name"].type, typer_private.StringParamType)
    assert isinstance(params["colour"], TyperOption)
    assert isinstance(params["colour"].type, typer_private.TyperChoice)
    assert [str(c) for c in params["colour"].type.choices] == ["red"]
    assert isinstance(params["config_file"].type, typer_private.File)


def test_get_current_context_is_the_running_commands_context() -> None:
    result = CliRunner().invoke(_probe_app(), ["probe-it", "x"])
    assert result.exit_code == 0, result.output
    assert result.output == "probe-it x\n"
    assert typer_private.get_current_context(silent=True) is None  # popped once the command returned
