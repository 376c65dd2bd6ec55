"""The one renderer: JSON for scripts, rich tables for people, legacy text for old scripts.

Commands build a plain JSON-able document (camelCase keys, every key always
present, ``null`` for unknown); tables and the Java tool's ``#Key\\tvalue``
text are presentations of that same document.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any, TypeVar

Doc = TypeVar("Doc")
"""A command's document type (its TypedDict, or a list of them): `emit` hands the same type to its presenters."""


class Output(StrEnum):
    """``-o/--output`` choices."""

    table = "table"
    json = "json"
    legacy = "legacy"


def complain(error: Exception) -> None:
    """A failure as the one line on stderr every command gives (``mqadmin: <message>``): a command's failure
    (``__main__``) and each failed run of a watch (``-i``), which goes on."""
    print(f"mqadmin: {error}", file=sys.stderr, flush=True)


def null(value: Any) -> str:
    """A value in legacy text: Java prints a missing value as ``null``."""
    return "null" if value is None else str(value)


def emit_json(doc: Any) -> None:
    sys.stdout.write(json.dumps(doc, indent=2, sort_keys=False) + "\n")


def emit_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_lines=False)
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*("-" if v is None else str(v) for v in row))
    console = Console()
    if not console.is_terminal:  # piped into a log: as wide as the table needs, never "127.0.0.…"
        console = Console(width=240)
    console.print(table)


def emit(
    doc: Doc,
    fmt: Output,
    table: Callable[[Doc], None],
    legacy: Callable[[Doc], str] | None = None,
) -> None:
    """Print `doc` in the chosen format."""
    if fmt == Output.json:
        emit_json(doc)
    elif fmt == Output.legacy and legacy is not None:
        sys.stdout.write(legacy(doc))
    else:
        table(doc)
