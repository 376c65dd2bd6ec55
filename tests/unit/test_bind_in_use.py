"""A port another process listens on is named before gRPC binds it (two agents on one host)."""

from __future__ import annotations

from mqbase.serving import in_use
from tests.harness.processes import taken_port


def test_a_listening_port_is_in_use_and_free_once_closed() -> None:
    with taken_port() as port:
        address = f"127.0.0.1:{port}"
        assert in_use(address)
    assert not in_use(address)


def test_an_ephemeral_port_is_never_in_use() -> None:
    assert not in_use("127.0.0.1:0")
