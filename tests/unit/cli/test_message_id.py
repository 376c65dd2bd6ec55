"""RocketMQ 5 message ids as the official clients make them (mqadmin_py/message_id.py)."""

from __future__ import annotations

import re

import pytest

from mqadmin_py.message_id import EPOCH_2021_S, encode, ids


@pytest.mark.parametrize(
    ("mac", "pid", "seconds", "sequence", "expected"),
    [
        (0x0A0B0C0D0E0F, 0x12345, EPOCH_2021_S + 16.9, 7, "010A0B0C0D0E0F23450000001000000007"),  # pid: low 2 bytes
        (0, 0, EPOCH_2021_S, 0, "01" + "0" * 32),
        (2**48 - 1, 0xFFFF, EPOCH_2021_S + 2**32 - 1, 2**32 - 1, "01" + "F" * 32),
        (1, 1, EPOCH_2021_S + 2**32, 2**32, "01000000000001000100000000" + "00000000"),  # fields wrap, never grow
    ],
)
def test_the_layout_of_an_id(mac: int, pid: int, seconds: float, sequence: int, expected: str) -> None:
    assert encode(mac, pid, seconds, sequence) == expected


def test_a_process_numbers_its_ids_in_order() -> None:
    made = ids(lambda: EPOCH_2021_S + 5.0, mac=1, pid=2)
    first, second = next(made), next(made)
    assert re.fullmatch(r"01[0-9A-F]{32}", first) and first[:-8] == second[:-8]
    assert (int(first[-8:], 16), int(second[-8:], 16)) == (0, 1)
