"""RocketMQ 5 message ids, as the official clients make them: the producer names each message, the broker keeps it.

34 upper-case hex characters: ``01`` (the layout version), the host's MAC address (6 bytes), the low 2 bytes of the
process id, the seconds since 2021-01-01T00:00:00Z (4 bytes) and a per-process sequence (4 bytes), as
``MessageIdCodec`` of rocketmq-clients. The id travels as the ``UNIQ_KEY`` property, where Java's proxy keeps a
client's id; ``sendMessage`` reports it as ``msgId``.

Java's offset message ids (``offsetMsgId``, what ``queryMsgById`` takes) name where a broker stored a message
instead: its store host and commit-log offset. Every replica of a set stores a record at the same offset, so the id
finds the message on whichever replica is master now.
"""

from __future__ import annotations

import ipaddress
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


# --- offset message ids (Java's MessageDecoder.createMessageId) ------------------------------------


def offset_id(store_host: str, commit_log_offset: int) -> str | None:
    """Java's offset message id of the record at `commit_log_offset` on the broker at `store_host` (``ip:port``):
    upper-case hex of the IP (4 or 16 bytes), the port (4 bytes) and the offset (8 bytes); None for a host name."""
    host, _, port = store_host.rpartition(":")
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None
    return (ip.packed + int(port).to_bytes(4, "big") + commit_log_offset.to_bytes(8, "big")).hex().upper()


def decode_offset_id(text: str) -> tuple[str, int]:
    """(``ip:port``, commit-log offset) of an offset message id; ValueError for anything else."""
    value = text.strip()
    if len(value) not in (32, 56) or not all(c in "0123456789abcdefABCDEF" for c in value):
        raise ValueError(
            f"{text!r} is not an offset message id (32 or 56 hex digits: store host, port and commit-log offset); "
            "a client's message id (UNIQ_KEY) is found with queryMsgByUniqueKey -t TOPIC -i ID"
        )
    raw = bytes.fromhex(value)
    ip = ipaddress.ip_address(raw[:-12])
    host = f"[{ip}]" if ip.version == 6 else str(ip)
    return f"{host}:{int.from_bytes(raw[-12:-8], 'big')}", int.from_bytes(raw[-8:], "big")
