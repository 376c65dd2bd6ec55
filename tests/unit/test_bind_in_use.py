"""A port another process listens on is named before gRPC binds it (issue 35 §1.15: two agents on one host)."""

from __future__ import annotations

import socket

from mqbase.serving import in_use


def test_a_listening_port_is_in_use_and_free_once_closed() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        assert in_use(address)
    assert not in_use(address)


def test_an_ephemeral_port_is_never_in_use() -> None:
    assert not in_use("127.0.0.1:0")
