"""The order test files start in: the longest first, from the seconds each took in a recorded run.

``make test`` runs two xdist workers that take test files whole (``--dist loadfile``) in collection order
(``--no-loadscope-reorder``: xdist's own reorder starts the files with the most tests first, which started the
few-test Spark and reference files, each minutes long, last). Starting the longest files first is the
longest-processing-time rule: the run ends when its last long file does, so no worker idles at the end while the
other finishes a two-minute file it began late.

``tests/module_seconds.json`` holds each file's seconds (set-up, call and tear-down summed). Refresh it when a
file's cost changed much: ``make test PYTEST_ARGS="--module-seconds-out tests/module_seconds.json"`` (a run of some
files updates theirs and keeps the rest; files gone from disk are dropped). A file it does not list counts as the
median of those it does. The order decides only when files start, never what a test does.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SECONDS_FILE = ROOT / "tests" / "module_seconds.json"


def recorded(path: Path = SECONDS_FILE) -> dict[str, float]:
    """The seconds per file in `path`; nothing when it is missing or not a JSON object (the order is then kept)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def longest_first(files: list[str], seconds: dict[str, float]) -> list[str]:
    """`files` by descending recorded seconds; unknown files count as the median; ties keep their order."""
    default = statistics.median(seconds.values()) if seconds else 0.0
    return sorted(files, key=lambda f: -seconds.get(f, default))


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class ModuleSeconds:
    """Sums the reports' durations per file and merges them into `out` at the end (on the xdist controller, which
    receives every worker's reports)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[file_of(report.nodeid)] += report.duration

    def pytest_sessionfinish(self) -> None:
        if not self.seconds:
            return
        merged = recorded(self.out) | {f: round(s, 1) for f, s in self.seconds.items()}
        kept = {f: s for f, s in sorted(merged.items()) if (ROOT / f).is_file()}
        self.out.write_text(json.dumps(kept, indent=0) + "\n")
