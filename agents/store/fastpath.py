"""The compiled fast paths of the slave's per-record work (``_fastscan.c``), or None where it was not built.

``setup.py`` builds the module when a C compiler and zlib's headers are there and skips it otherwise; the Python
code each path speeds up stays complete and correct on its own (``record._scan_records``,
``MessageStore._dispatch``, ``CommitLog.key_entries`` and ``index.add_packed``), only slower for small messages.
``mqagent`` logs which one runs.
"""

from __future__ import annotations

import logging
from types import ModuleType


def _load() -> ModuleType | None:
    try:
        from agents.store import _fastscan
    except ImportError:
        return None
    return _fastscan


compiled = _load()


def report(logger: logging.Logger) -> None:
    """Log which path replicated records take: a missing build costs small-message throughput, not correctness."""
    if compiled is not None:
        logger.info(
            "replicated records are scanned and dispatched by the compiled fast path (agents/store/_fastscan, "
            "body CRCs by %s)",
            compiled.BODY_CRC,
        )
    else:
        logger.warning(
            "replicated records are scanned and dispatched in pure Python, several times slower for small messages: "
            "agents/store/_fastscan was not built (reinstall with gcc, zlib.h and Python.h present)"
        )
