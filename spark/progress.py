"""A report's Spark jobs watched from the driver: stages done out of stages known, and Ctrl-C that cancels them.

PySpark's own SIGINT handler calls into the JVM from inside the signal handler, on the main thread that is already
in the middle of a py4j call: the reentrant call fails and py4j logs some 50 lines of tracebacks. ``SparkWatch``
replaces it while the report runs: Ctrl-C only records the interrupt and cancels the report's jobs from another
thread (a classic session's job group, or every operation of a Spark Connect session); the job's own call then
fails, and the caller sees ``interrupted``. A second Ctrl-C raises KeyboardInterrupt at once.

A classic session's progress comes from its status tracker, polled by a thread; a Connect session's from the
progress handler the server feeds.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterable, Mapping
from types import FrameType
from typing import Any, Self, cast

from pyspark.sql import SparkSession

from spark.session import is_connect

JOB_GROUP = "mqadmin-epochs-report"
POLL_S = 0.3

Progress = Callable[[int, int], None]
"""Told (stages done, stages known so far) whenever either changes."""


def stages_done(
    jobs: Iterable[tuple[str, Iterable[int]]], stages: Mapping[int, tuple[int, int] | None]
) -> tuple[int, int]:
    """(stages done, stages known) from a classic session's status tracker: `jobs` as (status, stage ids) and
    `stages` as stage id → (tasks, tasks completed), None when the tracker no longer has it.

    A stage counts as done when every task of it completed, or when a job that has it succeeded (a stage a job
    skips, its shuffle output being there already, never runs a task).
    """
    known: set[int] = set()
    done: set[int] = set()
    for status, stage_ids in jobs:
        ids = set(stage_ids)
        known |= ids
        if status == "SUCCEEDED":
            done |= ids
    for stage_id in known - done:
        tasks = stages.get(stage_id)
        if tasks is not None and tasks[0] > 0 and tasks[1] >= tasks[0]:
            done.add(stage_id)
    return len(done), len(known)


class SparkWatch:
    """While entered: `progress` hears of the report's stages, and Ctrl-C cancels its jobs (``interrupted``)."""

    def __init__(self, session: SparkSession, progress: Progress, stopping: Callable[[], None]) -> None:
        """`stopping` is called at the first Ctrl-C: a job is cancelled at once, but the driver may first be
        planning the next one for a while (many seconds on a cold JVM), which nothing can cut short."""
        self._session = session
        self._progress = progress
        self._stopping = stopping
        self._connect = is_connect(session)
        self.interrupted = threading.Event()
        self._stopped = threading.Event()
        self._shown = (-1, -1)
        self._operations: dict[str, tuple[int, int]] = {}
        self._previous: Any = None
        self._poller: threading.Thread | None = None

    def __enter__(self) -> Self:
        if self._connect:
            self._session.registerProgressHandler(cast(Any, self._connect_progress))  # any callable of its shape
        else:
            self._session.sparkContext.setJobGroup(JOB_GROUP, "mqadmin epochs report", interruptOnCancel=True)
            self._poller = threading.Thread(target=self._poll, name="spark-progress", daemon=True)
            self._poller.start()
        self._previous = signal.signal(signal.SIGINT, self._on_sigint)
        return self

    def __exit__(self, *_exc: object) -> None:
        signal.signal(signal.SIGINT, self._previous)
        self._stopped.set()
        if self._poller is not None:
            self._poller.join()
        if self._connect:
            self._session.clearProgressHandlers()

    def _on_sigint(self, _signum: int, _frame: FrameType | None) -> None:
        if self.interrupted.is_set():
            raise KeyboardInterrupt
        self.interrupted.set()
        threading.Thread(target=self._cancel, name="spark-cancel", daemon=True).start()
        self._stopping()

    def _cancel(self) -> None:
        """Cancel what runs now (the poller cancels again each round, for a job the report starts after this)."""
        if self._connect:
            self._session.interruptAll()
        else:
            self._session.sparkContext.cancelJobGroup(JOB_GROUP)

    def _poll(self) -> None:
        tracker = self._session.sparkContext.statusTracker()
        while not self._stopped.wait(POLL_S):
            if self.interrupted.is_set():
                self._cancel()
            jobs = [job for job in map(tracker.getJobInfo, tracker.getJobIdsForGroup(JOB_GROUP)) if job is not None]
            stages: dict[int, tuple[int, int] | None] = {}
            for stage_id in {s for job in jobs for s in job.stageIds}:
                info = tracker.getStageInfo(stage_id)
                stages[stage_id] = (info.numTasks, info.numCompletedTasks) if info is not None else None
            self._show(*stages_done([(job.status, job.stageIds) for job in jobs], stages))

    def _connect_progress(self, stages: Iterable[Any] | None, inflight_tasks: int, operation_id: str | None,
                          done: bool) -> None:  # fmt: skip
        """A Connect server's progress report of one operation: its stages, each done or not (PySpark passes
        every argument by its name)."""
        listed = list(stages or [])
        self._operations[operation_id or ""] = (sum(bool(s.done) for s in listed), len(listed))
        self._show(sum(d for d, _ in self._operations.values()), sum(t for _, t in self._operations.values()))

    def _show(self, done: int, known: int) -> None:
        if (done, known) != self._shown:
            self._shown = (done, known)
            self._progress(done, known)
