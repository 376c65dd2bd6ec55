"""The official Python client (``rocketmq-python-client``, pinned in pyproject.toml) through every scenario."""

from __future__ import annotations

import pytest

from tests.harness.client_scenarios import ClientScenarios

pytestmark = [pytest.mark.integration, pytest.mark.slow]


class TestPythonClient(ClientScenarios):
    language = "python"
