"""The official Java client (``org.apache.rocketmq:rocketmq-client-java``, pinned in tests/clients/java/pom.xml)
through every scenario."""

from __future__ import annotations

import pytest

from tests.harness.client_scenarios import ClientScenarios

pytestmark = [pytest.mark.integration, pytest.mark.slow]


class TestJavaClient(ClientScenarios):
    language = "java"
