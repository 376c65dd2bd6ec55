"""docs/architecture.md's module map lists exactly the modules on disk, each under its own package's heading.

A map that silently omits a module (as it once omitted ``controller/transfer.py``) or names one that moved (as it
named ``mqadmin_py/`` paths after the floor moved to ``mqbase/``) misleads a newcomer more than no map; this keeps
it honest the way ``tests/unit/test_layers.py`` keeps the layers honest.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
PACKAGES = ("mqbase", "controller", "agents", "spark", "mqadmin_py")
ARCHITECTURE = ROOT / "docs" / "architecture.md"
ROW = re.compile(r"^\| `(?P<path>[^`]+\.py)` \|", re.MULTILINE)


def on_disk() -> set[str]:
    """Every module of the five packages, generated stubs aside (the rule test_layers.py applies)."""
    return {
        path.relative_to(ROOT).as_posix()
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "_pb2" not in path.name
    }


def map_sections() -> list[tuple[str, list[str]]]:
    """(### heading, module paths of its table rows) for each sub-section of the "## Module map" section."""
    text = ARCHITECTURE.read_text()
    start = text.index("\n## Module map\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else len(text)]
    parts = re.split(r"^### (.*)$", section, flags=re.MULTILINE)
    return [(heading, ROW.findall(body)) for heading, body in zip(parts[1::2], parts[2::2], strict=True)]


def listed() -> list[str]:
    return [path for _heading, paths in map_sections() for path in paths]


def test_every_module_on_disk_is_on_the_map() -> None:
    missing = sorted(on_disk() - set(listed()))
    assert not missing, f"add these modules to the module map of docs/architecture.md: {missing}"


def test_every_module_on_the_map_exists() -> None:
    gone = sorted(set(listed()) - on_disk())
    assert not gone, f"the module map of docs/architecture.md lists modules that do not exist: {gone}"


def test_no_module_is_listed_twice() -> None:
    twice = sorted(path for path, n in Counter(listed()).items() if n > 1)
    assert not twice, twice


def test_each_module_sits_under_a_heading_that_names_it_or_its_package() -> None:
    misplaced = [
        (path, heading)
        for heading, paths in map_sections()
        for path in paths
        if f"`{path.partition('/')[0]}/`" not in heading and f"`{path}`" not in heading
    ]
    assert not misplaced, misplaced
