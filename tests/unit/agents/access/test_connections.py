"""The access point's table of connected clients (``agents.access.connections``), with the clock passed in."""

from __future__ import annotations

from agents.access.connections import CHANNEL_EXPIRED_S, Connection, Connections


def client(client_id: str, group: str = "", topics: dict[str, str] | None = None, at: float = 0.0) -> Connection:
    return Connection(client_id, "127.0.0.1:5000", "PYTHON", "5.1.2", "SIMPLE_CONSUMER" if group else "PRODUCER",
                      group, topics or {}, at, int(at * 1000))  # fmt: skip


def test_consumers_are_listed_by_group_and_producers_by_topic() -> None:
    table = Connections()
    table.announce(client("c2", "GID", {"Orders": "TagA"}))
    table.announce(client("c1", "GID", {"Orders": "*"}))
    table.announce(client("c3", "OTHER", {"Orders": "*"}))
    table.announce(client("p1", topics={"Orders": ""}))
    assert [c.client_id for c in table.alive(1.0, group="GID")] == ["c1", "c2"]
    assert [c.client_id for c in table.alive(1.0, topic="Orders")] == ["p1"]  # consumers of the topic are not
    assert [c.client_id for c in table.alive(1.0)] == ["c1", "c2", "c3", "p1"]


def test_a_new_announcement_replaces_the_old_one() -> None:
    table = Connections()
    table.announce(client("c1", "GID", {"Orders": "*"}))
    table.announce(client("c1", "GID", {"Orders": "TagB", "Audit": "*"}))
    [only] = table.alive(1.0)
    assert dict(only.subscriptions) == {"Orders": "TagB", "Audit": "*"}


def test_a_client_not_heard_from_within_the_expiry_is_gone_and_a_heartbeat_keeps_it() -> None:
    table = Connections()
    table.announce(client("quiet", "GID", at=0.0))
    table.announce(client("beating", "GID", at=0.0))
    table.heard("beating", "127.0.0.1:6000", now=CHANNEL_EXPIRED_S - 1, now_ms=5)
    table.heard("unknown", "127.0.0.1:7000", now=1.0, now_ms=6)  # no settings yet: nothing to list
    alive = table.alive(CHANNEL_EXPIRED_S + 0.5)
    assert [(c.client_id, c.address, c.last_seen_ms) for c in alive] == [("beating", "127.0.0.1:6000", 5)]


def test_a_terminated_client_is_forgotten_at_once() -> None:
    table = Connections()
    table.announce(client("c1", "GID"))
    table.forget("c1")
    table.forget("never-seen")
    assert table.alive(0.0) == []
