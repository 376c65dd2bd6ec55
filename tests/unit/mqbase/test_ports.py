"""Port choice: below the ephemeral range, never a reserved or bound port, reserved once chosen."""

from __future__ import annotations

import random
import socket
import subprocess
import sys

import pytest

from mqbase import ports
from mqbase.ports import SPAN, candidates, choose, free_ports


def test_candidates_lie_below_the_ephemeral_range_from_the_start_given() -> None:
    ordered = candidates(32768, 5)
    assert ordered[0] == 32768 - SPAN + 5
    assert sorted(ordered) == list(range(32768 - SPAN, 32768))


def test_candidates_never_go_below_1024_and_a_range_starting_that_low_has_none() -> None:
    assert sorted(candidates(2048, 0)) == list(range(1024, 2048))
    assert candidates(1024, 7) == []


def test_choose_skips_live_reservations_and_ports_that_do_not_bind() -> None:
    reserved = {10: 200.0, 11: 50.0}  # 11's reservation has expired at 100
    chosen = choose(3, [10, 11, 12, 13, 14], reserved, 100.0, bindable=lambda port: port != 12)
    assert chosen == [11, 13, 14]


def test_choose_returns_fewer_when_the_candidates_run_out() -> None:
    assert choose(3, [1, 2], {}, 0.0, bindable=lambda port: True) == [1, 2]


def test_chosen_ports_differ_bind_lie_below_the_ephemeral_range_and_are_not_chosen_again() -> None:
    first = free_ports(8)
    again = free_ports(8)
    assert len(set(first) | set(again)) == 16
    low = ports._ephemeral_low()
    assert all(port < low for port in first + again)
    for port in first:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))


def test_another_process_does_not_choose_a_reserved_port() -> None:
    mine = set(free_ports(16))
    code = "from mqbase.ports import free_ports; print(*free_ports(16))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert not mine & {int(p) for p in out.split()}


def test_a_port_bound_by_another_socket_is_not_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    low = ports._ephemeral_low()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0 if low - SPAN < 1024 else low - 1))
        taken = s.getsockname()[1]
        order = candidates(low, 0)
        if taken not in order:
            pytest.skip("the ephemeral range starts too low to test a port below it")
        monkeypatch.setattr(random, "randrange", lambda _: order.index(taken))
        assert free_ports(1) != [taken]
