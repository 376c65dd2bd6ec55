"""Periodic: a broker's background task that runs every so often on a daemon thread until stopped.

The period is read afresh before each wait (its key may change at run time with updateBrokerConfig), and a run
that raises is logged and the next one tries again: a disk error must not end retention or snapshots for good.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class Periodic:
    """Calls ``run_once`` every `period_s()` seconds on a thread named `name`; subclasses define ``run_once``."""

    def __init__(self, name: str, period_s: Callable[[], float], what: str) -> None:
        """`what`: the task as the log names a failed run ("broker b: retention")."""
        self._period_s = period_s
        self._what = what
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)

    def run_once(self) -> object:
        raise NotImplementedError

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop after the run under way, if any; idempotent."""
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _loop(self) -> None:
        while not self._stopped.wait(self._period_s()):
            try:
                self.run_once()
            except Exception:  # the next run tries again
                log.exception("%s run failed", self._what)
