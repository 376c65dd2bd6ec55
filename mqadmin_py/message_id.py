"""RocketMQ 5 message ids, as the official clients make them: the producer names each message, the broker keeps it.

34 upper-case hex characters: ``01`` (the layout version), the host's MAC address (6 bytes), the low 2 bytes of the
process id, the seconds since 2021-01-01T00:00:00Z (4 bytes) and a per-process sequence (4 bytes), as
``MessageIdCodec`` of rocketmq-clients. The id travels as the ``UNIQ_KEY`` property, where Java's proxy keeps a
client's id; ``sendMessage`` reports it as ``msgId``.
"""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Callable, Iterator

EPOCH_2021_S = 1_609_459_200
"""2021-01-01T00:00:00Z in Unix seconds."""


def encode(mac: int, pid: int, unix_seconds: float, sequence: int) -> str:
    """The id of the `sequence`-th message of process `pid` on host `mac` at `unix_seconds` (pure)."""
    seconds = int(unix_seconds) - EPOCH_2021_S
    return f"01{mac & 0xFFFF_FFFF_FFFF:012X}{pid & 0xFFFF:04X}{seconds & 0xFFFF_FFFF:08X}{sequence & 0xFFFF_FFFF:08X}"


def ids(clock: Callable[[], float], mac: int | None = None, pid: int | None = None) -> Iterator[str]:
    """This process's ids, one per message, in order."""
    host = uuid.getnode() if mac is None else mac
    process = os.getpid() if pid is None else pid
    return (encode(host, process, clock(), n) for n in itertools.count())
