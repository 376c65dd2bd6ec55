"""The sandbox's state file read strictly, and what a damaged one still allows.

``sandbox.json`` names the sandbox's processes; each running one also has ``run/<id>.pid``. A damaged state file
(``{}``, ``[]``, truncated, a key of the wrong type) is one line naming what is wrong, never a traceback from a
dataclass constructor, and it must not orphan the running processes: ``sandbox down`` stops what the pid files
name, each only if its pid still runs a command line with the node's config path (``pid_file_configs``), which is
where ``up`` puts it whatever the state file says.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from mqbase.errors import MqError


class DamagedState(MqError):
    """The sandbox's state file cannot be read (exit 1): the processes its pid files name can still be stopped."""

    def __init__(self, path: Path, why: str) -> None:
        self.problem = f"{path} is damaged ({why})"
        super().__init__(
            f"{self.problem}; 'mqadmin sandbox down --dir {path.parent}' still stops the processes its run/*.pid "
            "files name, then remove the directory (or 'down --purge') and run 'up' again"
        )


Shapes = dict[str, type]
"""A key → the dataclass whose fields the items of its list fill (``controllers`` → ControllerProcess)."""


def read_state(path: Path, shapes: Shapes, nested: Shapes) -> dict[str, Any]:
    """The state file at `path`, checked against `shapes` (its top-level lists) and `nested` (lists inside items,
    an agent's ``brokers``); an absent file is an empty sandbox. DamagedState says what is wrong."""
    if not path.exists():
        return {key: [] for key in shapes}
    try:
        doc = json.loads(path.read_text())
        state_problem(doc, shapes, nested)
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise DamagedState(path, why) from exc
    return dict(doc)


def state_problem(doc: object, shapes: Shapes, nested: Shapes) -> None:
    """ValueError naming the first thing `doc` (a parsed state file) gets wrong.

    Each item must be an object whose keys are fields of its dataclass (``pid`` aside: the pid files hold pids),
    holding every field without a default, strings where the field is a ``str``; a field of `nested` holds a list
    of items checked the same way.
    """
    if not isinstance(doc, dict):
        raise ValueError(f"expected a JSON object with {' and '.join(shapes)}, got {type(doc).__name__}")
    missing = [key for key in shapes if key not in doc]
    if missing:
        raise ValueError(f"no {' or '.join(repr(key) for key in missing)} list")
    for key, cls in shapes.items():
        _items(doc[key], cls, key, nested)


def _items(items: object, cls: type, where: str, nested: Shapes) -> None:
    if not isinstance(items, list):
        raise ValueError(f"{where}: expected a list, got {type(items).__name__}")
    for i, item in enumerate(items):
        _item(item, cls, f"{where}[{i}]", nested)


def _item(item: object, cls: type, where: str, nested: Shapes) -> None:
    if not isinstance(item, dict):
        raise ValueError(f"{where}: expected an object, got {type(item).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.name != "pid"}
    unknown = sorted(set(item) - set(fields) - {"pid"})
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r}")
    for name, f in fields.items():
        if name not in item:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ValueError(f"{where}: no {name!r}")
            continue
        value = item[name]
        if f.type == "str" and not isinstance(value, str):
            raise ValueError(f"{where}.{name}: expected a string, got {type(value).__name__}")
        if name in nested:
            _items(value, nested[name], f"{where}.{name}", nested)


def pid_file_configs(directory: Path, node_id: str) -> tuple[Path, Path]:
    """The config paths a node's process runs with, as ``up`` lays them out: (``conf/<id>.conf`` for a controller,
    ``conf/<id>/agent.conf`` for an agent). A pid file's pid counts as the node's only while its command line
    holds one of them, so a recycled pid is never signalled."""
    return directory / "conf" / f"{node_id}.conf", directory / "conf" / node_id / "agent.conf"
