"""Whether parsed JSON is an instance of a type: TypedDicts, unions, literals, lists, dicts and scalars.

The ``-o json`` documents are TypedDicts next to their commands; mypy checks the builders, and ``problems`` checks
at run time what mypy cannot see (docs/cli.md's examples, documents built from protocol messages), for the unit
tests of the commands' documents (tests/unit/cli/).
"""

from __future__ import annotations

import types
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints, is_typeddict


def problems(value: Any, tp: Any, where: str = "$") -> list[str]:
    """Where `value` (parsed JSON) is not an instance of `tp`; [] when it is."""
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, want an object ({tp.__name__})"]
        hints = get_type_hints(tp, include_extras=True)
        optional = {k for k, h in hints.items() if get_origin(h) is NotRequired}
        out = [f"{where}.{k}: missing ({tp.__name__})" for k in hints if k not in value and k not in optional]
        out += [f"{where}.{k}: not a key of {tp.__name__}" for k in value if k not in hints]
        for key, hint in hints.items():
            if key in value:
                inner = get_args(hint)[0] if key in optional else hint
                out += problems(value[key], inner, f"{where}.{key}")
        return out
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        found = [problems(value, arm, where) for arm in get_args(tp)]
        return [] if any(not p for p in found) else min(found, key=len)
    if origin is Literal:
        return [] if value in get_args(tp) else [f"{where}: {value!r} is none of {get_args(tp)}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__}, want a list"]
        return [p for i, item in enumerate(value) for p in problems(item, get_args(tp)[0], f"{where}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, want an object"]
        return [p for k, v in value.items() for p in problems(v, get_args(tp)[1], f"{where}.{k}")]
    if tp is None or tp is type(None):
        return [] if value is None else [f"{where}: {value!r}, want null"]
    wanted = {int: (int,), float: (int, float), str: (str,), bool: (bool,)}[tp]
    if isinstance(value, bool) and tp is not bool:
        return [f"{where}: {value!r}, want {tp.__name__}"]
    return [] if isinstance(value, wanted) else [f"{where}: {value!r}, want {tp.__name__}"]
