"""The official Node.js client (``rocketmq-client-nodejs``, pinned in tests/clients/node/package.json) through
every scenario."""

from __future__ import annotations

import pytest

from tests.harness.client_scenarios import ClientScenarios

pytestmark = [pytest.mark.integration, pytest.mark.slow]


class TestNodeClient(ClientScenarios):
    language = "node"
    client_bugs = {
        "test_a_sigkill_of_the_master_while_sending_fails_no_send_loses_nothing_and_brings_back_no_ack[all]": (
            "rocketmq-client-nodejs 1.0.8 joins a ';' list of endpoints into one grpc-js target without a scheme "
            "(src/route/Endpoints.ts:52), which never resolves"
        ),
    }
