"""The official Rust client (crate ``rocketmq``, pinned in tests/clients/rust/Cargo.toml) through every scenario
its API has: it has no PushConsumer and no changeInvisibleDuration, so those scenarios are skipped."""

from __future__ import annotations

import pytest

from tests.harness.client_scenarios import ClientScenarios

pytestmark = [pytest.mark.integration, pytest.mark.slow]


class TestRustClient(ClientScenarios):
    language = "rust"
    client_bugs = {
        "test_a_sigkill_of_the_master_while_sending_fails_no_send_loses_nothing_and_brings_back_no_ack[all]": (
            "rocketmq 5.0.0 does not start when one address of its list is down (Channel::balance_list, "
            "src/session.rs:169)"
        ),
    }
