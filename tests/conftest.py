"""Suite-wide hooks: test files start longest first (tests/harness/schedule.py says why and how it is measured), and
no property test has a deadline: a hypothesis deadline is a timing threshold, which a loaded two-core CI box breaks
(the fuzz suite's ``fuzz(n)`` says the same for its targets)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

from tests.harness.schedule import ModuleSeconds, file_of, longest_first, recorded

settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--module-seconds-out", metavar="PATH", default="",
                     help="merge each test file's seconds (set-up + call + tear-down) into PATH (JSON)")  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    out = str(config.getoption("--module-seconds-out"))
    if out and not hasattr(config, "workerinput"):  # the xdist controller, or a run without xdist
        config.pluginmanager.register(ModuleSeconds(Path(out)), "module-seconds")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    by_file: dict[str, list[pytest.Item]] = {}
    for item in items:
        by_file.setdefault(file_of(item.nodeid), []).append(item)
    items[:] = [item for f in longest_first(list(by_file), recorded()) for item in by_file[f]]
