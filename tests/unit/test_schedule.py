"""The start order of test files (tests/harness/schedule.py): longest first, unknown files as the median."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.harness.schedule import ModuleSeconds, longest_first, recorded


def test_longest_first_and_unknown_files_count_as_the_median() -> None:
    seconds = {"a.py": 10.0, "b.py": 200.0, "c.py": 1.0}
    assert longest_first(["a.py", "new.py", "b.py", "c.py"], seconds) == ["b.py", "a.py", "new.py", "c.py"]


def test_ties_and_an_empty_record_keep_the_collection_order() -> None:
    assert longest_first(["x.py", "y.py", "z.py"], {}) == ["x.py", "y.py", "z.py"]
    assert longest_first(["x.py", "y.py"], {"x.py": 3.0, "y.py": 3.0}) == ["x.py", "y.py"]


@pytest.mark.parametrize("text", ["", "[1, 2]", "{not json", '"a string"'])
def test_a_missing_or_damaged_record_orders_nothing(tmp_path: Path, text: str) -> None:
    path = tmp_path / "seconds.json"
    assert recorded(path) == {}
    path.write_text(text)
    assert recorded(path) == {}


def test_a_run_merges_its_files_into_the_record_and_drops_files_gone_from_disk(tmp_path: Path) -> None:
    out = tmp_path / "seconds.json"
    here = "tests/unit/test_schedule.py"
    out.write_text(json.dumps({"tests/unit/test_layers.py": 4.0, "tests/gone.py": 9.0, here: 1.0}))
    plugin = ModuleSeconds(out)
    for duration in (0.25, 2.0, 0.5):  # set-up, call, tear-down of one test
        plugin.pytest_runtest_logreport(pytest.TestReport(f"{here}::t", ("f", 1, "t"), {}, "passed", None, "call",
                                                          duration=duration))  # fmt: skip
    plugin.pytest_sessionfinish()
    assert json.loads(out.read_text()) == {"tests/unit/test_layers.py": 4.0, here: 2.8}
