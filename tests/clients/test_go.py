"""The official Go client (``github.com/apache/rocketmq-clients/golang/v5``, pinned in tests/clients/go/go.mod)
through every scenario."""

from __future__ import annotations

import pytest

from tests.harness.client_scenarios import ClientScenarios

pytestmark = [pytest.mark.integration, pytest.mark.slow]


class TestGoClient(ClientScenarios):
    language = "go"
