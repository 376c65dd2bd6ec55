"""Versioned JSON encoding of events (the Raft log) and of the state (snapshots).

Our payloads are JSON, never pickled Python objects: a log entry or snapshot
written by one release reads the same in the next, whatever the Python
classes are called. (pysyncobj wraps each entry in its own small pickled
envelope of method id + arguments; with a single replicated method taking
bytes, that envelope never names one of our classes.) Decoding errors
raise ``CodecError`` with a message naming the bad field. A field added after
release (it has a default) may be missing, so older entries and snapshots
still decode (``ha_address``; ``preferredBrokerId``, which reads as null; the group config, which reads as
none set at version 0; topics and subscription groups, which read as none at metadata version 0; a group's
``groupRetryPolicy``, Java's JSON document, which reads as Java's customized levels; ``writeWipedSets``, which
reads as none wiped).

Log entry:  0x01 | CRC-32 of the JSON (u32 BE) | {"v": 1, "events": [{"type": "ElectMaster", ...}, ...]}
Snapshot:   {"v": 1, "brokerSets": [{"clusterName": ..., "replicas": [...], ...}], "config": {...}, "configVersion": 0,
             "topics": [{"topicName": ..., ...}], "subscriptionGroups": [{"groupName": ..., ...}], "metadataVersion": 0,
             "writeWipedSets": ["broker-a"]}
A topic or group inside an event (``UpdateTopic.topic``) is the same document as in the snapshot.

The log entry's first byte says how it is framed: 0x01, checksummed (a bit flipped in a journal is refused
rather than applied); ``{``, the bare JSON that releases before the checksum wrote, still read as it was.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from dataclasses import MISSING, fields
from types import MappingProxyType
from typing import Any, get_args

from controller.errors import ControllerError
from controller.events import Event
from controller.model import BrokerSet, ControllerState, Replica, SubscriptionGroup, TopicConfig
from mqbase import retry

VERSION = 1

CHECKSUMMED = 0x01
"""First byte of a checksummed log entry: then the CRC-32 (zlib's) of the JSON, u32 big-endian, then the JSON."""
_UNCHECKED = ord("{")
"""First byte of a log entry written before the checksum: the JSON alone."""

_EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in get_args(Event)}
_SET_FIELDS = {"new_sync_state_set", "broker_ids", "sync_state_set"}
_MAP_FIELDS = {"values"}


class CodecError(ControllerError, ValueError):
    """A log entry or snapshot that cannot be decoded."""


def _jsonable(value: Any) -> Any:
    if isinstance(value, TopicConfig):
        return topic_doc(value)
    if isinstance(value, SubscriptionGroup):
        return group_doc(value)
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, Mapping):
        return dict(sorted(value.items()))
    return value


def _string_map(value: Any, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise CodecError(f"{what} must map strings to strings")
    return value


def topic_doc(t: TopicConfig) -> dict[str, Any]:
    """A topic's JSON document (snapshots and ``UpdateTopic`` events)."""
    return {
        "topicName": t.topic_name,
        "clusterName": t.cluster_name,
        "brokerNames": sorted(t.broker_names),
        "readQueueNums": t.read_queue_nums,
        "writeQueueNums": t.write_queue_nums,
        "perm": t.perm,
        "attributes": dict(sorted(t.attributes.items())),
    }


def group_doc(g: SubscriptionGroup) -> dict[str, Any]:
    """A subscription group's JSON document (snapshots and ``UpdateSubscriptionGroup`` events)."""
    return {
        "groupName": g.group_name,
        "clusterName": g.cluster_name,
        "brokerNames": sorted(g.broker_names),
        "consumeOrderly": g.consume_orderly,
        "retryMaxTimes": g.retry_max_times,
        "consumeEnable": g.consume_enable,
        "groupRetryPolicy": retry.java_doc(g.retry_policy),
    }


def _typed(d: dict[str, Any], key: str, kind: type, what: str) -> Any:
    value = d[key]
    if type(value) is not kind:
        raise CodecError(f"{what} field {key!r} must be {kind.__name__}, got {value!r}")
    return value


def _names(d: dict[str, Any], what: str) -> frozenset[str]:
    value = d["brokerNames"]
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise CodecError(f"{what} field 'brokerNames' must be a list of strings")
    return frozenset(value)


def topic_of(d: Any) -> TopicConfig:
    """Inverse of ``topic_doc``; ``CodecError`` names a missing or mistyped field."""
    if not isinstance(d, dict):
        raise CodecError("a topic must be a JSON object")
    try:
        what = f"topic {d['topicName']!r}"
        return TopicConfig(
            topic_name=_typed(d, "topicName", str, what),
            cluster_name=_typed(d, "clusterName", str, what),
            broker_names=_names(d, what),
            read_queue_nums=_typed(d, "readQueueNums", int, what),
            write_queue_nums=_typed(d, "writeQueueNums", int, what),
            perm=_typed(d, "perm", int, what),
            attributes=MappingProxyType(_string_map(d["attributes"], f"{what} field 'attributes'")),
        )
    except KeyError as exc:
        raise CodecError(f"a topic lacks field {exc.args[0]!r}") from exc


def _retry_policy(d: dict[str, Any], what: str) -> retry.RetryPolicy:
    if "groupRetryPolicy" not in d:
        return retry.DEFAULT_RETRY_POLICY
    try:
        return retry.of_java_doc(d["groupRetryPolicy"])
    except ValueError as exc:
        raise CodecError(f"{what} field 'groupRetryPolicy': {exc}") from exc


def group_of(d: Any) -> SubscriptionGroup:
    """Inverse of ``group_doc``."""
    if not isinstance(d, dict):
        raise CodecError("a subscription group must be a JSON object")
    try:
        what = f"group {d['groupName']!r}"
        return SubscriptionGroup(
            group_name=_typed(d, "groupName", str, what),
            cluster_name=_typed(d, "clusterName", str, what),
            broker_names=_names(d, what),
            consume_orderly=_typed(d, "consumeOrderly", bool, what),
            retry_max_times=_typed(d, "retryMaxTimes", int, what),
            consume_enable=_typed(d, "consumeEnable", bool, what),
            retry_policy=_retry_policy(d, what),
        )
    except KeyError as exc:
        raise CodecError(f"a subscription group lacks field {exc.args[0]!r}") from exc


def _version(doc: dict[str, Any], key: str) -> int:
    version = doc.get(key, 0)
    if type(version) is not int or version < 0:
        raise CodecError(f"snapshot field {key!r} must be a non-negative integer")
    return version


def encode_events(events: tuple[Event, ...] | list[Event]) -> bytes:
    """One Raft log entry holding `events` in order (possibly none: the leader barrier)."""
    docs = [{"type": type(e).__name__, **{f.name: _jsonable(getattr(e, f.name)) for f in fields(e)}} for e in events]
    doc = json.dumps({"v": VERSION, "events": docs}, separators=(",", ":")).encode()
    return bytes([CHECKSUMMED]) + zlib.crc32(doc).to_bytes(4, "big") + doc


def entry_json(blob: bytes) -> bytes:
    """The JSON of a log entry, its checksum checked; ``CodecError`` if the entry was damaged."""
    if blob[:1] == bytes([_UNCHECKED]):
        return blob
    if blob[:1] != bytes([CHECKSUMMED]):
        shown = f"byte 0x{blob[0]:02x}" if blob else "nothing"
        raise CodecError(f"log entry starts with {shown}, neither 0x{CHECKSUMMED:02x} (checksummed) nor '{{' (JSON)")
    doc, stored = blob[5:], int.from_bytes(blob[1:5], "big")
    if len(blob) < 5 or zlib.crc32(doc) != stored:
        raise CodecError(f"log entry fails its CRC-32 check (stored {stored:08x}, computed {zlib.crc32(doc):08x})")
    return doc


def _load(blob: bytes, what: str) -> dict[str, Any]:
    try:
        doc = json.loads(blob)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CodecError(f"{what} is not valid JSON: {exc}") from exc
    if not isinstance(doc, dict):
        raise CodecError(f"{what} must be a JSON object")
    version = doc.get("v")
    if type(version) is not int or version != VERSION:
        raise CodecError(f"{what} has version {doc.get('v')!r}; this release reads version {VERSION}")
    return doc


def decode_events(blob: bytes) -> list[Event]:
    """Inverse of ``encode_events``; also reads the unchecksummed entries of older releases."""
    doc = _load(entry_json(blob), "log entry")
    items = doc.get("events", [])
    if not isinstance(items, list):
        raise CodecError("log entry field 'events' must be a list")
    return [_decode_event(item) for item in items]


def _decode_event(item: Any) -> Event:
    kind = item.get("type") if isinstance(item, dict) else None
    cls = _EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise CodecError(f"log entry has an unknown event type {kind!r}")
    try:
        kwargs = {f.name: item[f.name] for f in fields(cls) if f.name in item or f.default is MISSING}
    except KeyError as exc:
        raise CodecError(f"{kind} event lacks field {exc.args[0]!r}") from exc
    for name in _SET_FIELDS & kwargs.keys():
        if kwargs[name] is not None:
            if not isinstance(kwargs[name], list) or not all(type(i) is int for i in kwargs[name]):
                raise CodecError(f"{kind} event field {name!r} must be a list of integers")
            kwargs[name] = frozenset(kwargs[name])
    for name in _MAP_FIELDS & kwargs.keys():
        kwargs[name] = _string_map(kwargs[name], f"{kind} event field {name!r}")
    if "topic" in kwargs:
        kwargs["topic"] = topic_of(kwargs["topic"])
    if "group" in kwargs:
        kwargs["group"] = group_of(kwargs["group"])
    return cls(**kwargs)  # type: ignore[no-any-return]


def encode_state(state: ControllerState) -> bytes:
    """The whole controller state as a snapshot document."""
    sets = [
        {
            "clusterName": bs.cluster_name,
            "brokerName": bs.broker_name,
            "nextBrokerId": bs.next_broker_id,
            "masterBrokerId": bs.master_id,
            "masterEpoch": bs.master_epoch,
            "syncStateSet": sorted(bs.sync_state_set),
            "syncStateSetEpoch": bs.sync_state_set_epoch,
            "preferredBrokerId": bs.preferred_id,
            "replicas": [
                {
                    "brokerId": r.broker_id,
                    "brokerAddress": r.address,
                    "haAddress": r.ha_address,
                    "registerCheckCode": r.register_check_code,
                }
                for r in bs.replicas
            ],
        }
        for bs in sorted(state, key=lambda b: b.broker_name)
    ]
    doc = {
        "v": VERSION,
        "brokerSets": sets,
        "config": _jsonable(state.config),
        "configVersion": state.config_version,
        "topics": [topic_doc(state.topics[name]) for name in sorted(state.topics)],
        "subscriptionGroups": [group_doc(state.groups[name]) for name in sorted(state.groups)],
        "metadataVersion": state.metadata_version,
        "writeWipedSets": sorted(state.write_wiped),
    }
    return json.dumps(doc, separators=(",", ":")).encode()


def decode_state(blob: bytes) -> ControllerState:
    """Inverse of ``encode_state``."""
    doc = _load(blob, "snapshot")
    sets: dict[str, BrokerSet] = {}
    try:
        for d in doc["brokerSets"]:
            bs = BrokerSet(
                cluster_name=d["clusterName"],
                broker_name=d["brokerName"],
                replicas=tuple(
                    Replica(r["brokerId"], r["brokerAddress"], r["registerCheckCode"], r.get("haAddress", ""))
                    for r in d["replicas"]
                ),
                next_broker_id=d["nextBrokerId"],
                master_id=d["masterBrokerId"],
                master_epoch=d["masterEpoch"],
                sync_state_set=frozenset(d["syncStateSet"]),
                sync_state_set_epoch=d["syncStateSetEpoch"],
                preferred_id=d.get("preferredBrokerId"),
            )
            if bs.preferred_id is not None and type(bs.preferred_id) is not int:
                raise CodecError(f"snapshot field 'preferredBrokerId' of {bs.broker_name} must be an integer or null")
            sets[bs.broker_name] = bs
    except (KeyError, TypeError) as exc:
        raise CodecError(f"snapshot is missing or has a malformed field: {exc}") from exc
    config = _string_map(doc.get("config", {}), "snapshot field 'config'")
    topics, groups = doc.get("topics", []), doc.get("subscriptionGroups", [])
    if not isinstance(topics, list) or not isinstance(groups, list):
        raise CodecError("snapshot fields 'topics' and 'subscriptionGroups' must be lists")
    return ControllerState(
        MappingProxyType(sets),
        MappingProxyType(config),
        _version(doc, "configVersion"),
        topics=MappingProxyType({t.topic_name: t for t in map(topic_of, topics)}),
        groups=MappingProxyType({g.group_name: g for g in map(group_of, groups)}),
        metadata_version=_version(doc, "metadataVersion"),
        write_wiped=_wiped(doc.get("writeWipedSets", [])),
    )


def _wiped(value: Any) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise CodecError("snapshot field 'writeWipedSets' must be a list of strings")
    return frozenset(value)
