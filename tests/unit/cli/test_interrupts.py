"""Ctrl-C in a long wait: one line saying what was awaited and last seen, exit 130, no traceback."""

from __future__ import annotations

import pytest

from mqadmin_py.commands.wait import poll
from mqbase.errors import Interrupted


def test_ctrl_c_while_waiting_says_what_it_waited_for_and_saw() -> None:
    calls = 0

    def probe(_rpc_timeout: float) -> tuple[None, str]:
        nonlocal calls
        calls += 1
        if calls == 2:  # the user's SIGINT lands in the second probe's RPC
            raise KeyboardInterrupt
        return None, "broker-a: master 1, 2/3 in sync"

    with pytest.raises(Interrupted) as caught:
        poll("a full SyncStateSet of broker-a", probe, 60)
    assert str(caught.value) == (
        "interrupted while waiting for a full SyncStateSet of broker-a (last seen: broker-a: master 1, 2/3 in sync)"
    )
    assert caught.value.exit_code == 130
