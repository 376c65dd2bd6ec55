"""Java ``.properties`` files: the config format of RocketMQ, kept for controllers and agents.

Supports ``key=value`` and ``key: value``, ``#``/``!`` comments and blank
lines; no line continuations (RocketMQ config files never use them). Writes
are atomic (temp file, fsync, rename) so a crash never leaves half a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mqbase.errors import MqBaseError
from mqbase.files import atomic_write


class PropertiesError(MqBaseError, ValueError):
    """A properties file that cannot be read; the message names the file and line."""


def parse_properties(text: str, source: str = "<string>") -> dict[str, str]:
    """Parse properties text; a line without a separator is an error naming its line number."""
    result: dict[str, str] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        positions = [p for p in (line.find("="), line.find(":")) if p > 0]
        if not positions:
            raise PropertiesError(f"{source}:{lineno}: expected 'key=value', got {raw!r}")
        cut = min(positions)
        result[line[:cut].strip()] = line[cut + 1 :].strip()
    return result


def read_properties(path: str | Path) -> dict[str, str]:
    """Read and parse a properties file."""
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise PropertiesError(f"cannot read config file {p}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise PropertiesError(f"config file {p} is not UTF-8 text: {exc}") from exc
    return parse_properties(text, str(p))


def with_values(text: str, values: Mapping[str, str]) -> str:
    """Properties `text` with each of `values` set: its line (the last, if the key is there twice, as the parser
    keeps the last) rewritten in place, or a line added at the end; comments, order and other lines are kept."""
    lines = text.splitlines()
    last: dict[str, int] = {}
    for i, raw in enumerate(lines):
        line = raw.strip()
        if line and line[0] not in "#!":
            positions = [p for p in (line.find("="), line.find(":")) if p > 0]
            if positions:
                last[line[: min(positions)].strip()] = i
    for key, value in values.items():
        if key in last:
            lines[last[key]] = f"{key}={value}"
        else:
            lines.append(f"{key}={value}")
    return "".join(f"{line}\n" for line in lines)


def update_properties_file(path: str | Path, values: Mapping[str, str]) -> None:
    """Set `values` in a properties file (``with_values``), atomically: readers see the old or the new file."""
    p = Path(path).expanduser()
    atomic_write(p, with_values(p.read_text(encoding="utf-8"), values).encode("utf-8"))


def dump_properties(values: Mapping[str, str]) -> str:
    """Properties text, one ``key=value`` per line in key order."""
    return "".join(f"{k}={v}\n" for k, v in sorted(values.items()))


def write_properties_atomic(path: str | Path, values: Mapping[str, str], header: str = "") -> None:
    """Write a properties file so that readers see the old or the new content, never a mix."""
    p = Path(path).expanduser()
    p.parent.mkdir(parents=True, exist_ok=True)
    body = (f"# {header}\n" if header else "") + dump_properties(values)
    atomic_write(p, body.encode("utf-8"))
