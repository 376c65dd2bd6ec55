"""The report's stage count (``spark.progress.stages_done``): pure, from status-tracker data (no JVM here)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark")

from spark.progress import stages_done


def test_nothing_started_yet() -> None:
    assert stages_done([], {}) == (0, 0)


def test_a_running_job_counts_its_finished_stages() -> None:
    jobs = [("RUNNING", [0, 1, 2])]
    assert stages_done(jobs, {0: (4, 4), 1: (4, 1), 2: None}) == (1, 3)


def test_a_succeeded_job_has_all_its_stages_done_even_the_skipped_ones() -> None:
    """A stage whose shuffle output exists already is skipped: it never runs a task, the tracker may not list it."""
    jobs = [("SUCCEEDED", [0, 1]), ("SUCCEEDED", [1, 2, 3]), ("RUNNING", [1, 4])]
    assert stages_done(jobs, {0: (2, 2), 1: (2, 2), 2: None, 3: (2, 2), 4: (2, 0)}) == (4, 5)


def test_a_stage_of_no_task_is_not_done_by_its_count() -> None:
    assert stages_done([("RUNNING", [7])], {7: (0, 0)}) == (0, 1)


def test_a_failed_or_cancelled_job_leaves_its_unfinished_stages_undone() -> None:
    assert stages_done([("FAILED", [0, 1])], {0: (3, 3), 1: (3, 2)}) == (1, 2)
