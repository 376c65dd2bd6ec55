"""Commit-log record codec: pure functions, no I/O.

A message record (big-endian, every field at a fixed place up to the topic)::

     0               4               8               12              16
    +---------------+---------------+---------------+---------------+
    | totalSize i32 | magic i32     | headerCRC u32 | bodyCRC u32   |
    +---------------+---------------+---------------+---------------+
    | queueId i32   | queueOffset i64               | storeTimestamp|
    +---------------+-------------------------------+---------------+
    | i64 (ms) cont.| topicLen u16  | topic (utf-8, topicLen bytes) |
    +---------------+-----------------------------------------------+
    | propsLen i32  | properties ("k\\x01v\\x02" pairs, propsLen bytes)  |
    +---------------+-----------------------------------------------+
    | bodyLen i32   | body (bodyLen bytes)                          |
    +---------------+-----------------------------------------------+

``totalSize`` counts the whole record, itself included. ``queueOffset`` is the message's position in its
consume queue, fixed by the master at put time and replicated with the bytes, so every replica numbers a
queue the same way even when its log starts in the middle (``syncFromLastFile``, retention). ``bodyCRC`` is
the CRC-32 of the body (zlib's, computed by ``crc.crc32``); ``headerCRC`` covers every other byte of the record
(bytes 0..8 and 12..body), so a torn or overwritten header is caught as
surely as a torn body. Recovery relies on this: the first position where no
record decodes is the end of the log.

A blank record pads the rest of a segment when the next record does not fit
(Java's ``BLANK_MAGIC_CODE``)::

    | totalSize i32 (= bytes to the segment end) | magic = BLANK_MAGIC | crc32(first 8 bytes) u32 | zeros ... |

``decode_at`` answers None for anything that is not a complete, intact
message record (zeros, a short buffer, a blank, bad magic or CRC, sizes that
do not add up); it raises ``RecordError`` only for a record whose CRCs match
but whose content breaks the format rules, which a torn write cannot produce.
"""

from __future__ import annotations

import logging
import re
import struct
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import NamedTuple

from agents.errors import AgentError
from agents.store import fastpath
from agents.store.crc import crc32

MESSAGE_MAGIC = 0x4D514D32  # "MQM2" (layout 2: with queueOffset); not Java's value: the layout is not Java's
BLANK_MAGIC = 0x4D514230  # "MQB0"

# totalSize, magic, headerCRC, bodyCRC, queueId, queueOffset, storeTimestamp, topicLen
_FIXED = struct.Struct(">iiIIiqqH")
_LEN = struct.Struct(">i")
_BLANK = struct.Struct(">iiI")
_PEEK = struct.Struct(">ii")

BLANK_SIZE = _BLANK.size
"""A segment always keeps this much room after a message so that a blank record can close it."""

MAX_TOPIC_BYTES = 127  # RocketMQ TopicValidator.TOPIC_MAX_LENGTH
MAX_PROPERTIES_BYTES = 32_767  # Java stores the properties length in a short
MAX_BODY_BYTES = 4 * 1024 * 1024  # Java maxMessageSize default
MIN_RECORD_SIZE = _FIXED.size + 1 + 2 * _LEN.size
MAX_RECORD_SIZE = _FIXED.size + MAX_TOPIC_BYTES + _LEN.size + MAX_PROPERTIES_BYTES + _LEN.size + MAX_BODY_BYTES

_TOPIC = re.compile(r"[%|a-zA-Z0-9_-]{1,127}")  # RocketMQ TopicValidator; also safe as a directory name
_NAME_SEP, _PAIR_SEP = "\x01", "\x02"
_INT32_MAX, _INT64_MAX = 2**31 - 1, 2**63 - 1


_log = logging.getLogger(__name__)

ENTRY = struct.Struct("=qqiii4x")
"""A dispatch entry as the replication scan keeps it, packed (no Python object per message): commit-log offset,
queue offset, size, queue id, topic id (``TOPICS``); native byte order, in memory only."""


def _load_compiled() -> ModuleType | None:
    """The compiled fast paths if they were built for this layout, else None: then every record is checked and
    dispatched in Python, correctly but several times slower for small messages."""
    module = fastpath.compiled
    if module is None:
        return None
    if (MESSAGE_MAGIC, _FIXED.size, _LEN.size, BLANK_SIZE, ENTRY.size) != (
        module.MESSAGE_MAGIC,
        module.FIXED_SIZE,
        module.LEN_SIZE,
        module.BLANK_SIZE,
        getattr(module, "ENTRY_SIZE", None),
    ):
        _log.warning("agents/store/_fastscan was built for another record layout: not used (reinstall to rebuild)")
        return None
    return module


compiled = _load_compiled()
"""The compiled fast paths, checked against this layout (None: not built, or built for another layout)."""
_fast_scan: Callable[..., tuple[int, int]] | None = compiled.scan if compiled is not None else None
fast_group_entries: (
    Callable[[bytes, list[str]], tuple[list[tuple[str, int, int, int, int, int, bytes]], int]] | None
) = compiled.group_entries if compiled is not None else None
"""The compiled grouping of packed entries for dispatch (``MessageStore._dispatch_grouped``), or None."""


class RecordError(AgentError, ValueError):
    """A message that cannot be encoded, or a CRC-valid record that breaks the format rules."""


@dataclass(frozen=True, slots=True)
class Message:
    """One stored message; ``properties`` is frozen into a read-only mapping.

    ``queue_offset`` is assigned by ``MessageStore.put`` (whatever the caller passes is replaced).
    """

    topic: str
    queue_id: int
    body: bytes
    properties: Mapping[str, str]
    store_timestamp: int
    queue_offset: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "properties", MappingProxyType(dict(self.properties)))


def _check(msg: Message) -> None:
    """Raise RecordError naming the first rule `msg` breaks (the same rules ``decode_at`` enforces)."""
    if not _TOPIC.fullmatch(msg.topic):
        raise RecordError(f"topic {msg.topic!r} must be 1..127 characters of [%|a-zA-Z0-9_-]")
    if not 0 <= msg.queue_id <= _INT32_MAX:
        raise RecordError(f"queue id {msg.queue_id} is outside 0..{_INT32_MAX}")
    if not 0 <= msg.queue_offset <= _INT64_MAX:
        raise RecordError(f"queue offset {msg.queue_offset} is outside 0..{_INT64_MAX}")
    if not 0 <= msg.store_timestamp <= _INT64_MAX:
        raise RecordError(f"store timestamp {msg.store_timestamp} is outside 0..{_INT64_MAX}")
    if len(msg.body) > MAX_BODY_BYTES:
        raise RecordError(f"body of {len(msg.body)} bytes exceeds {MAX_BODY_BYTES}")
    for key, value in msg.properties.items():
        if not key or any(sep in key or sep in value for sep in (_NAME_SEP, _PAIR_SEP)):
            raise RecordError(f"property {key!r} must be non-empty and neither it nor its value may hold \\x01/\\x02")


def _encode_properties(props: Mapping[str, str]) -> bytes:
    return "".join(f"{k}{_NAME_SEP}{v}{_PAIR_SEP}" for k, v in props.items()).encode()


def _decode_properties(raw: bytes) -> dict[str, str]:
    text = raw.decode()
    if text and not text.endswith(_PAIR_SEP):
        raise RecordError("properties do not end with \\x02")
    props: dict[str, str] = {}
    for pair in text.split(_PAIR_SEP)[:-1]:
        key, sep, value = pair.partition(_NAME_SEP)
        if not key or not sep or _NAME_SEP in value or key in props:
            raise RecordError(f"malformed property {pair!r}")
        props[key] = value
    return props


def encode(msg: Message) -> bytes:
    """The record bytes of `msg`; raises RecordError if `msg` breaks a format rule."""
    _check(msg)
    topic = msg.topic.encode()
    props = _encode_properties(msg.properties)
    if len(props) > MAX_PROPERTIES_BYTES:
        raise RecordError(f"properties of {len(props)} bytes exceed {MAX_PROPERTIES_BYTES}")
    body = bytes(msg.body)
    total = _FIXED.size + len(topic) + _LEN.size + len(props) + _LEN.size + len(body)
    body_crc = crc32(body)
    head = bytearray(
        _FIXED.pack(total, MESSAGE_MAGIC, 0, body_crc, msg.queue_id, msg.queue_offset, msg.store_timestamp, len(topic))
    )
    head += topic + _LEN.pack(len(props)) + props + _LEN.pack(len(body))
    struct.pack_into(">I", head, 8, _header_crc(head))
    return bytes(head) + body


def _header_crc(head: bytes | bytearray | memoryview) -> int:
    """CRC of a record header without its own CRC field (bytes 8..12)."""
    view = memoryview(head)
    return crc32(view[12:], crc32(view[:8]))


@dataclass(frozen=True, slots=True)
class RecordHeader:
    """Where a message record sits and what it is for, without its body."""

    size: int
    topic: str
    queue_id: int
    queue_offset: int


class _Layout(NamedTuple):
    """Where the parts of an intact record lie, and its fixed fields (a tuple: built once per record scanned)."""

    total: int
    queue_id: int
    queue_offset: int
    timestamp: int
    props_at: int
    body_len_at: int
    body_at: int
    end: int


def _layout(view: memoryview, pos: int, verify_crc: bool) -> _Layout | None:
    """The layout of an intact record at `pos`, or None."""
    if pos + _FIXED.size > len(view):
        return None
    total, magic, header_crc, body_crc, queue_id, queue_offset, timestamp, topic_len = _FIXED.unpack_from(view, pos)
    end = pos + total
    if magic != MESSAGE_MAGIC or not MIN_RECORD_SIZE <= total <= MAX_RECORD_SIZE or end > len(view):
        return None
    props_at = pos + _FIXED.size + topic_len
    if props_at + _LEN.size > end:
        return None
    (props_len,) = _LEN.unpack_from(view, props_at)
    body_len_at = props_at + _LEN.size + props_len
    if props_len < 0 or body_len_at + _LEN.size > end:
        return None
    (body_len,) = _LEN.unpack_from(view, body_len_at)
    body_at = body_len_at + _LEN.size
    if body_len != end - body_at:
        return None
    if verify_crc and (_header_crc(view[pos:body_at]) != header_crc or crc32(view[body_at:end]) != body_crc):
        return None
    return _Layout(total, queue_id, queue_offset, timestamp, props_at, body_len_at, body_at, end)


def decode_at(buf: bytes | bytearray | memoryview, pos: int) -> tuple[Message, int] | None:
    """The message record at ``buf[pos:]`` and its size, or None if there is no intact message record there."""
    if pos < 0:
        raise RecordError(f"negative position {pos}")
    view = memoryview(buf).cast("B")
    found = _layout(view, pos, verify_crc=True)
    if found is None:
        return None
    return _message(view, pos, found), found.total


def header_at(buf: bytes | bytearray | memoryview, pos: int, *, verify_crc: bool) -> RecordHeader | None:
    """The header of the record at ``buf[pos:]`` without building a Message or copying the body.

    With ``verify_crc`` both CRCs are checked (new bytes from a peer); without, only the framing (bytes
    below the log's validated record boundary). None where there is no intact record.
    """
    view = memoryview(buf).cast("B")
    found = _layout(view, pos, verify_crc)
    if found is None:
        return None
    try:
        topic = bytes(view[pos + _FIXED.size : found.props_at]).decode()
    except UnicodeDecodeError:
        return None
    return RecordHeader(found.total, topic, found.queue_id, found.queue_offset)


class RecordKeys(NamedTuple):
    """What the message index takes from a record (``index.py``): its topic and store time and the raw (utf-8) values
    of its KEYS and UNIQ_KEY properties, b"" when absent; read without a Message, the body or the CRCs."""

    size: int
    topic: bytes
    store_timestamp: int
    keys: bytes
    unique_key: bytes


KEYS, UNIQ_KEY = "KEYS", "UNIQ_KEY"
"""The properties the message index files records under (``agents.metadata``'s names)."""
_KEYS_AT, _UNIQ_KEY_AT = f"{KEYS}{_NAME_SEP}".encode(), f"{UNIQ_KEY}{_NAME_SEP}".encode()


def _raw_property(raw: bytes, name: bytes) -> bytes:
    """The value of the property whose name and separator are `name` in raw properties; b"" when absent."""
    at = raw.find(name)
    while at > 0 and raw[at - 1] != 2:  # a longer name ending in it ("MYKEYS"): only a pair's start counts
        at = raw.find(name, at + 1)
    if at < 0:
        return b""
    end = raw.find(b"\x02", at + len(name))
    return raw[at + len(name) : end] if end >= 0 else b""


def keys_at(buf: bytes | bytearray | memoryview, pos: int) -> RecordKeys | None:
    """The index's fields of the record at ``buf[pos:]``, checking only the framing (bytes below the validated record
    boundary, as ``header_at`` without ``verify_crc``); None where there is no record."""
    view = memoryview(buf).cast("B")
    found = _layout(view, pos, verify_crc=False)
    if found is None:
        return None
    raw = bytes(view[found.props_at + _LEN.size : found.body_len_at])
    topic = bytes(view[pos + _FIXED.size : found.props_at])
    return RecordKeys(
        found.total, topic, found.timestamp, _raw_property(raw, _KEYS_AT), _raw_property(raw, _UNIQ_KEY_AT)
    )


def _message(view: memoryview, pos: int, at: _Layout) -> Message:
    """Build the Message of a CRC-valid record, enforcing the rules ``encode`` does."""
    try:
        topic = bytes(view[pos + _FIXED.size : at.props_at]).decode()
        props = _decode_properties(bytes(view[at.props_at + _LEN.size : at.body_len_at]))
    except UnicodeDecodeError as exc:
        raise RecordError(f"record at {pos}: text is not utf-8: {exc}") from exc
    msg = Message(topic, at.queue_id, bytes(view[at.body_at : at.end]), props, at.timestamp, at.queue_offset)
    try:
        _check(msg)
    except RecordError as exc:
        raise RecordError(f"record at {pos}: {exc}") from exc
    return msg


def encode_blank(size: int) -> bytes:
    """The header of a blank record padding `size` bytes (the caller leaves the rest zero)."""
    if not BLANK_SIZE <= size <= _INT32_MAX:
        raise RecordError(f"blank of {size} bytes is outside {BLANK_SIZE}..{_INT32_MAX}")
    head = _PEEK.pack(size, BLANK_MAGIC)
    return head + struct.pack(">I", crc32(head))


def blank_size_at(buf: bytes | bytearray | memoryview, pos: int) -> int | None:
    """The size a blank record at ``buf[pos:]`` pads, or None if there is no intact blank header there."""
    view = memoryview(buf).cast("B")
    if pos < 0 or pos + BLANK_SIZE > len(view):
        return None
    size, magic, crc = _BLANK.unpack_from(view, pos)
    if magic != BLANK_MAGIC or size < BLANK_SIZE or crc != crc32(view[pos : pos + 8]):
        return None
    return int(size)


def bytes_needed(buf: bytes | bytearray | memoryview, pos: int) -> int:
    """How many bytes from `pos` a reader must hold to judge the record there (a hint for windowed reads)."""
    view = memoryview(buf).cast("B")
    if pos + _FIXED.size > len(view):
        return _FIXED.size
    total, magic = _PEEK.unpack_from(view, pos)
    return int(total) if magic == MESSAGE_MAGIC and _FIXED.size <= total <= MAX_RECORD_SIZE else _FIXED.size


def record_sizes(data: bytes) -> list[int]:
    """The sizes of the message records `data` consists of; RecordError unless they tile it exactly.

    A cheap framing check for ``CommitLog.append`` (which places each record in a segment); it trusts the
    CRCs of bytes that ``encode`` produced.
    """
    sizes, pos = [], 0
    while pos < len(data):
        if pos + _PEEK.size > len(data):
            raise RecordError(f"{len(data) - pos} trailing bytes at {pos} are not a record")
        total, magic = _PEEK.unpack_from(data, pos)
        if magic != MESSAGE_MAGIC or not MIN_RECORD_SIZE <= total <= len(data) - pos:
            raise RecordError(f"no message record at {pos} (magic {magic:#x}, size {total})")
        sizes.append(int(total))
        pos += total
    return sizes


Entry = tuple[int, int, str, int, int]
"""(commit-log offset, size, topic, queue id, queue offset) of a message record: all that dispatch needs."""


class TopicIds:
    """Small integer ids of the topic names replicated records carry, for packed entries (``ENTRY``).

    One table per process, shared by its stores: a name is checked (``_topic``) and numbered the first time a
    scan meets it, never again; ids are never reused. It grows with the distinct topics the process replicates.
    """

    def __init__(self) -> None:
        self.ids: dict[bytes, int] = {}  # raw topic bytes -> id, as the compiled scan looks them up
        self.names: list[str] = []  # id -> name
        self._lock = threading.Lock()

    def id_of(self, raw: bytes, pos: int) -> int:
        """The id of the topic `raw` names (RecordError naming offset `pos` if it is not a valid topic)."""
        found = self.ids.get(raw)
        if found is not None:
            return found
        name = _topic(raw, pos)
        with self._lock:  # two replicas' scans may meet a new topic at once
            found = self.ids.get(raw)
            if found is None:
                found = len(self.names)
                self.names.append(name)
                self.ids[raw] = found
        return found


TOPICS = TopicIds()


def unpack_entries(packed: bytes | bytearray | memoryview) -> list[Entry]:
    """The entries of packed ``ENTRY`` records, as tuples (dispatch's own loop, tests)."""
    names = TOPICS.names
    return [
        (pos, size, names[topic], queue_id, queue_offset)
        for pos, queue_offset, size, queue_id, topic in ENTRY.iter_unpack(packed)
    ]


class Scan(NamedTuple):
    """What ``scan_replicated`` found: the new record boundary, the entries of the records completed, and the
    partial record past the boundary (kept in memory for the next batch instead of being read back)."""

    start: int
    end: int
    boundary: int
    entries: bytearray  # packed ENTRY records, in log order
    tail: bytes


def scan_replicated(held: bytes, data: bytes | bytearray | memoryview, start: int, segment_size: int) -> Scan:
    """Validate replicated bytes in one pass: ``held`` (the partial record at the log's record boundary `start`)
    followed by `data`; raises RecordError naming the first problem.

    Every complete message record must have intact CRCs, a valid topic and queue numbers, and leave room for a
    blank before the end of its segment; every blank must have an intact header and close its segment exactly.
    The last record may be incomplete (the rest comes in the next batch): it becomes the tail. Only the record
    that ``held`` starts is copied to be checked whole; the rest is read in place.
    """
    view = memoryview(data).cast("B")
    entries = bytearray()
    pos, i = start, 0  # the next record: its commit-log offset, and its index in `view` (negative: in `held`)
    if held:
        first = held + bytes(view[: max(0, _FIXED.size - len(held))])
        need = _complete_size(first, 0, start, segment_size)
        if need is None or need > len(held) + len(view):
            return Scan(start, start + len(held) + len(view), start, entries, held + bytes(view))
        i = need - len(held)
        _scan_records(memoryview(held + bytes(view[:i])), 0, pos, segment_size, entries)  # just that one
        pos += need
    i, pos = _scan_records(view, i, pos, segment_size, entries)
    return Scan(start, start + len(held) + len(view), pos, entries, bytes(view[i:]))


def _scan_records(view: memoryview, i: int, pos: int, segment_size: int, entries: bytearray) -> tuple[int, int]:
    """Check every complete record of ``view[i:]`` (commit-log offset `pos`) and add the entries of its messages;
    returns where the first incomplete record starts (index, offset). RecordError for the first bad record.

    The compiled fast path (``_fastscan.scan``) takes the run of ordinary message records it accepts; every
    record it stops at (a blank, a new topic, the incomplete tail, damage) is judged here, by the same checks
    without it.
    """
    n = len(view)
    while True:
        if _fast_scan is not None:
            i, pos = _fast_scan(
                view, i, pos, segment_size, MIN_RECORD_SIZE, MAX_RECORD_SIZE, entries, TOPICS.ids, crc32
            )
        need = _complete_size(view, i, pos, segment_size)
        if need is None or i + need > n:
            return i, pos
        _check_record(view, i, pos, segment_size, entries)
        i, pos = i + need, pos + need


def _complete_size(buf: bytes | memoryview, i: int, pos: int, segment_size: int) -> int | None:
    """The size of the record at ``buf[i:]`` (commit-log offset `pos`), or None while too few bytes say it;
    RecordError for a header no record can have."""
    remaining = len(buf) - i
    if remaining < _PEEK.size:
        return None
    total, magic = _PEEK.unpack_from(buf, i)
    if magic == MESSAGE_MAGIC:
        if not MIN_RECORD_SIZE <= total <= MAX_RECORD_SIZE:
            raise RecordError(f"record at offset {pos} has an impossible size {total}")
        if total + BLANK_SIZE > segment_size - pos % segment_size:
            raise RecordError(f"record of {total} bytes at offset {pos} leaves no room for a blank in its segment")
        return int(total)
    if magic != BLANK_MAGIC:
        raise RecordError(f"no record at offset {pos} (magic {magic:#x})")
    if remaining < BLANK_SIZE:
        return None
    if blank_size_at(buf, i) != segment_size - pos % segment_size:
        raise RecordError(f"damaged or misplaced blank record at offset {pos}")
    return int(total)


def _check_record(buf: bytes | memoryview, i: int, pos: int, segment_size: int, entries: bytearray) -> None:
    """Verify the whole record at ``buf[i:]`` (its size already checked) and add its entry if it is a message."""
    if _PEEK.unpack_from(buf, i)[1] == BLANK_MAGIC:
        return
    view = memoryview(buf)
    found = _layout(view, i, verify_crc=True)
    if found is None:
        raise RecordError(f"record at offset {pos} fails its CRC")
    if found.queue_id < 0 or found.queue_offset < 0:
        raise RecordError(f"record at offset {pos} has a negative queue id or queue offset")
    topic = TOPICS.id_of(bytes(view[i + _FIXED.size : found.props_at]), pos)
    entries += ENTRY.pack(pos, found.queue_offset, found.total, found.queue_id, topic)


def _topic(raw: bytes, pos: int) -> str:
    """The topic a record names, checked as ``encode`` checks it (it becomes a consume-queue directory)."""
    try:
        topic = raw.decode()
    except UnicodeDecodeError:
        topic = ""
    if not _TOPIC.fullmatch(topic):
        raise RecordError(f"record at offset {pos} has an invalid topic {raw!r}")
    return topic
