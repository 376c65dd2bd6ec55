"""The click names the CLI needs that typer 0.28 does not export: the one place that imports typer's private modules.

typer 0.28 vendors click as ``typer._click`` (the ``click`` package is no longer installed with it). Its public
names cover contexts (``typer.Context``), callback parameters (``typer.CallbackParam``), the command and parameter
classes it builds (``typer.core``) and path types (``typer.models.TyperPath``), but not click's base ``Command`` and
``Context`` that ``TyperGroup.get_command`` is declared with, the file and string parameter types, typer's choice
type, or ``get_current_context``. tests/unit/cli/test_typer_private.py fails when a typer upgrade moves or replaces
one of them (pyproject pins ``typer>=0.28,<0.29``).
"""

from typer._click import Command as Command
from typer._click import Context as Context
from typer._click.globals import get_current_context as get_current_context
from typer._click.types import File as File
from typer._click.types import StringParamType as StringParamType
from typer._types import TyperChoice as TyperChoice
