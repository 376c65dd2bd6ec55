"""The ``mqadmin`` command tree. Heavy imports (grpc, rich, stubs) happen inside commands."""

from __future__ import annotations

import typer

from mqadmin_py.commands import controller, sandbox

app = typer.Typer(
    name="mqadmin",
    help="Admin toolkit for RocketMQ controller mode: controller group, broker sets, SyncStateSet, elections.\n\n"
    "Exit codes: 0 ok or no-op, 1 operation failed, 2 usage, 3 timed out, 4 refused, 5 no leader/unreachable.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
)
controller.register(app)
app.add_typer(sandbox.app, name="sandbox")
