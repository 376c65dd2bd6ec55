"""When an agent that started its brokers must not run on: nothing of it would serve."""

from __future__ import annotations

import pytest

from agents.broker.agent import Failed, start_refused

BAD = Failed("/etc/mq/a.conf", "/etc/mq/a.conf: brokerName is required")
PORT = Failed("/etc/mq/b.conf", "cannot listen on 127.0.0.1:10911 (in use?)")


@pytest.mark.parametrize(
    ("failed", "started", "hosts_controller", "refused"),
    [
        ([], 0, False, None),  # nothing to start: empty on purpose
        ([], 2, False, None),
        ([BAD], 1, False, None),  # one broker runs: the failed one is listed, the agent serves the other
        ([BAD], 0, True, None),  # the controller node is useful alone
        ([BAD], 0, False, "no broker could start: /etc/mq/a.conf: brokerName is required"),
        (
            [BAD, PORT],
            0,
            False,
            "no broker could start: /etc/mq/a.conf: brokerName is required; "
            "/etc/mq/b.conf: cannot listen on 127.0.0.1:10911 (in use?)",
        ),
    ],
)
def test_start_refused(failed: list[Failed], started: int, hosts_controller: bool, refused: str | None) -> None:
    assert start_refused(failed, started, hosts_controller) == refused
