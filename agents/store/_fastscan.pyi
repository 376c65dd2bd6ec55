"""Stub of the compiled fast path of record.py's replication scan (_fastscan.c)."""

from collections.abc import Callable

MESSAGE_MAGIC: int
FIXED_SIZE: int
LEN_SIZE: int
BLANK_SIZE: int
ENTRY_SIZE: int  # record.ENTRY.size
BODY_CRC: str  # "pclmulqdq" (computed in C) or "callable" (scan's crc argument)

def crc32(data: bytes | memoryview, value: int = 0, /) -> int: ...
def scan(
    view: memoryview,
    i: int,
    pos: int,
    segment_size: int,
    min_record: int,
    max_record: int,
    entries: bytearray,
    topics: dict[bytes, int],
    crc: Callable[[memoryview], int],
    /,
) -> tuple[int, int]: ...
def group_entries(
    entries: bytes | bytearray | memoryview, names: list[str], /
) -> tuple[list[tuple[str, int, int, int, int, int, bytes]], int]: ...
