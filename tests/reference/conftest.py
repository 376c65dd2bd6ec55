"""The reference tests' marker (the project's pytest settings run with --strict-markers)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "reference: runs the real Java RocketMQ 5 (java, mvn) to compare ours with")
