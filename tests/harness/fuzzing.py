"""Shared pieces of the fuzz suite: reproducible hypothesis settings, a file-state fingerprint, bit flips.

Every fuzz test runs with ``fuzz(n)``: a fixed example count, no deadline (the box is shared and slow), derandomized
and without the example database, so CI runs the same inputs every time and a failure reproduces locally.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from hypothesis import HealthCheck, settings

F = TypeVar("F", bound=Callable[..., object])


def fuzz(max_examples: int) -> Callable[[F], F]:
    """The settings of one fuzz target: `max_examples` reproducible examples."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


def files_state(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Content and mtime (ns) of every file under `directory`: a reader must leave both as they were."""
    return {
        str(p.relative_to(directory)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def flip_bits(data: bytes, positions: list[int]) -> bytes:
    """`data` with the bits at `positions` (taken modulo its bit length) inverted."""
    out = bytearray(data)
    for position in positions:
        bit = position % (8 * len(out))
        out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


def write_file(path: Path, data: bytes | None) -> None:
    """Make `path` hold `data`, or not exist for None; with an old mtime, so that a rewrite would show."""
    if data is None:
        path.unlink(missing_ok=True)
        return
    path.write_bytes(data)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
