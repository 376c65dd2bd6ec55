"""When an agent that started its brokers must not run on: nothing of it would serve; and the controller node the
entry point hands it (enableControllerInAgent), started before the brokers and stopped after them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.broker.agent import Agent, Failed, start_refused
from agents.broker.rpc_scope import AgentStartError
from agents.config import AgentConfig
from controller.embedded import ControllerStartError
from mqbase.serving import in_use
from mqbase.storelock import StoreLock

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


class Node:
    """A HostedController that records, at each call, whether the agent's container port serves."""

    def __init__(self, error: str = "") -> None:
        self.error = error
        self.agent: Agent | None = None
        self.calls: list[tuple[str, bool]] = []

    def _serving(self) -> bool:
        assert self.agent is not None
        return self.agent.port != 0 and in_use(self.agent.address)

    def start(self) -> None:
        self.calls.append(("start", self._serving()))
        if self.error:
            raise ControllerStartError(self.error)

    def stop(self) -> None:
        self.calls.append(("stop", self._serving()))


def _agent(tmp_path: Path, error: str = "") -> tuple[Agent, Node]:
    config = AgentConfig(listen_port=0, enable_proxy=False, agent_store_path=tmp_path / "agent",
                         broker_config_paths=(tmp_path / "missing.conf",))  # fmt: skip
    node = Node(error)
    node.agent = Agent(config, node)
    return node.agent, node


def test_the_hosted_controller_starts_before_the_agent_serves_and_stops_after(tmp_path: Path) -> None:
    """The node the entry point hands over starts first, keeps the agent running although its one broker fails
    (it is useful alone), and stops once the agent's servers have."""
    agent, node = _agent(tmp_path)
    agent.start()
    try:
        assert node.calls == [("start", False)] and in_use(agent.address)
        assert [f.config_path for f in agent.failed()] == [str(tmp_path / "missing.conf")]
    finally:
        agent.stop()
    assert node.calls == [("start", False), ("stop", False)]


def test_a_controller_that_cannot_start_ends_the_agents_start_with_its_message(tmp_path: Path) -> None:
    agent, node = _agent(tmp_path, "embedded controller: cannot bind 127.0.0.1:9878")
    with pytest.raises(AgentStartError, match=r"^embedded controller: cannot bind 127\.0\.0\.1:9878$"):
        agent.start()
    agent.stop()  # as mqagent does after a failed start
    assert node.calls == [("start", False), ("stop", False)] and agent.port == 0
    StoreLock.acquire(tmp_path / "agent").release()  # the agent's store is free again
