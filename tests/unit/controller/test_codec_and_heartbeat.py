"""The versioned JSON codec (log entries and snapshots) and the heartbeat live table."""

from __future__ import annotations

import json
import zlib
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.codec import CodecError, decode_events, decode_state, encode_events, encode_state, entry_json
from controller.events import (
    AlterSyncStateSet,
    ApplyBrokerId,
    AssignPreferredMaster,
    CleanBrokerData,
    ElectMaster,
    Event,
    SetGroupConfig,
    UpdateBrokerAddress,
)
from controller.heartbeat import (
    DEFAULT_HEARTBEAT_TIMEOUT_MS,
    Heartbeat,
    LiveEntry,
    LiveTable,
    address_conflict,
    merge,
)
from controller.liveness import NEVER, Liveness, due
from controller.model import BrokerSet, ControllerState, LiveInfo, Replica
from tests.harness.controller_state import BROKER, CLUSTER, addr, apply_ids, check_code, ha_addr, with_master

# --- strategies ---------------------------------------------------------------------------------

names = st.text(min_size=1, max_size=12)
ids = st.integers(min_value=1, max_value=2**63 - 1)
epochs = st.integers(min_value=0, max_value=2**31 - 1)
id_sets = st.frozensets(st.integers(min_value=1, max_value=64), max_size=6)

events_st: st.SearchStrategy[Event] = st.one_of(
    st.builds(ApplyBrokerId, names, names, names, ids, names, st.just("") | names),
    st.builds(UpdateBrokerAddress, names, names, names, ids, st.just("") | names),
    st.builds(ElectMaster, names, st.none() | ids, epochs),
    st.builds(AlterSyncStateSet, names, id_sets, epochs, epochs),
    st.builds(CleanBrokerData, names, st.none() | id_sets),
    st.builds(AssignPreferredMaster, names, st.none() | ids),
    st.builds(SetGroupConfig, st.dictionaries(names, names, max_size=3), epochs),
)


@st.composite
def broker_sets(draw: st.DrawFn, broker_name: str) -> BrokerSet:
    broker_ids = sorted(draw(st.sets(st.integers(min_value=1, max_value=40), min_size=1, max_size=5)))
    replicas = tuple(Replica(i, draw(names), draw(names), draw(st.just("") | names)) for i in broker_ids)
    master = draw(st.none() | st.sampled_from(broker_ids))
    return BrokerSet(
        cluster_name=draw(names),
        broker_name=broker_name,
        replicas=replicas,
        next_broker_id=broker_ids[-1] + draw(st.integers(min_value=1, max_value=5)),
        master_id=master,
        master_epoch=draw(epochs),
        sync_state_set=frozenset(draw(st.sets(st.sampled_from(broker_ids)))),
        sync_state_set_epoch=draw(epochs),
        preferred_id=draw(st.none() | st.sampled_from(broker_ids)),
    )


@st.composite
def states(draw: st.DrawFn) -> ControllerState:
    set_names = draw(st.sets(names, max_size=4))
    return ControllerState(MappingProxyType({n: draw(broker_sets(n)) for n in set_names}))


# --- codec: round trips -------------------------------------------------------------------------

ONE_OF_EACH: list[Event] = [
    ApplyBrokerId(CLUSTER, BROKER, addr(1), 1, check_code(1), ha_addr(1)),
    UpdateBrokerAddress(CLUSTER, BROKER, "10.0.0.3:10911", 3, "10.0.0.3:10912"),
    ElectMaster(BROKER, 2, 1),
    ElectMaster(BROKER, None, 4),
    AlterSyncStateSet(BROKER, frozenset({1, 2, 3}), 2, 5),
    CleanBrokerData(BROKER, frozenset({2, 3})),
    CleanBrokerData(BROKER, None),
    AssignPreferredMaster(BROKER, 2),
    AssignPreferredMaster(BROKER, None),
]


@pytest.mark.parametrize("event", ONE_OF_EACH, ids=lambda e: type(e).__name__)
def test_each_event_type_round_trips(event: Event) -> None:
    assert decode_events(encode_events([event])) == [event]


def test_an_entry_keeps_the_order_of_its_events() -> None:
    assert decode_events(encode_events(ONE_OF_EACH)) == ONE_OF_EACH


def test_an_empty_entry_round_trips_as_the_leader_barrier() -> None:
    assert decode_events(encode_events(())) == []


@given(st.lists(events_st, max_size=6))
def test_any_event_list_round_trips(events: list[Event]) -> None:
    assert decode_events(encode_events(events)) == events


def test_state_with_several_sets_round_trips() -> None:
    state = apply_ids(with_master(1, (1, 2)), [1, 2, 5], broker_name="broker-b", cluster_name="OtherCluster")
    decoded = decode_state(encode_state(state))
    assert decoded == state
    assert sorted(bs.broker_name for bs in decoded) == [BROKER, "broker-b"]


def test_empty_state_round_trips() -> None:
    assert decode_state(encode_state(ControllerState())) == ControllerState()


@given(states())
def test_any_state_round_trips(state: ControllerState) -> None:
    assert decode_state(encode_state(state)) == state


def test_snapshot_stores_each_replicas_ha_address() -> None:
    replicas = json.loads(encode_state(with_master(1)))["brokerSets"][0]["replicas"]
    assert [(r["brokerId"], r["haAddress"]) for r in replicas] == [(i, ha_addr(i)) for i in (1, 2, 3)]


def test_snapshot_written_before_ha_addresses_decodes_with_empty_ones() -> None:
    doc = json.loads(encode_state(with_master(1, (1, 2))))
    for r in doc["brokerSets"][0]["replicas"]:
        del r["haAddress"]
    bs = decode_state(json.dumps(doc).encode()).get(BROKER)
    assert bs is not None
    assert [(r.address, r.ha_address) for r in bs.replicas] == [(addr(i), "") for i in (1, 2, 3)]
    assert (bs.master_id, bs.sync_state_set) == (1, frozenset({1, 2}))


def test_state_encoding_does_not_depend_on_insertion_order() -> None:
    state = apply_ids(with_master(1), [1], broker_name="broker-b")
    reordered = ControllerState(MappingProxyType(dict(reversed(list(state.broker_sets.items())))))
    assert encode_state(reordered) == encode_state(state)


# --- codec: errors ------------------------------------------------------------------------------


def _entry(*docs: dict[str, Any], v: Any = 1) -> bytes:
    return json.dumps({"v": v, "events": list(docs)}).encode()


def _checksummed(doc: bytes) -> bytes:
    return b"\x01" + zlib.crc32(doc).to_bytes(4, "big") + doc


@pytest.mark.parametrize("blob", [b"{not json", b"{\xff\xfe\x00", _checksummed(b"not json"), _checksummed(b"")])
def test_decode_events_rejects_non_json(blob: bytes) -> None:
    with pytest.raises(CodecError, match="log entry is not valid JSON"):
        decode_events(blob)


@pytest.mark.parametrize(
    ("blob", "shown"), [(b"not json", "byte 0x6e"), (b"\xff\xfe\x00", "byte 0xff"), (b"", "nothing")]
)
def test_decode_events_rejects_an_unknown_format(blob: bytes, shown: str) -> None:
    with pytest.raises(CodecError, match=f"log entry starts with {shown}, neither 0x01 \\(checksummed\\) nor"):
        decode_events(blob)


def test_a_log_entry_is_checksummed_json() -> None:
    blob = encode_events([ElectMaster(BROKER, 2, 1)])
    assert blob[:1] == b"\x01"
    assert int.from_bytes(blob[1:5], "big") == zlib.crc32(blob[5:])
    assert json.loads(blob[5:])["v"] == 1


def test_every_flipped_bit_of_a_log_entry_is_refused() -> None:
    blob = encode_events([ElectMaster(BROKER, 2, 1), CleanBrokerData(BROKER, frozenset({3}))])
    for bit in range(len(blob) * 8):
        flipped = bytearray(blob)
        flipped[bit // 8] ^= 1 << (bit % 8)
        with pytest.raises(CodecError):
            decode_events(bytes(flipped))


def test_a_log_entry_written_before_the_checksum_still_decodes() -> None:
    events: list[Event] = [ElectMaster(BROKER, 2, 1)]
    old = entry_json(encode_events(events))
    assert old[:1] == b"{"
    assert decode_events(old) == events


def test_decode_rejects_a_json_value_that_is_not_an_object() -> None:
    with pytest.raises(CodecError, match="log entry must be a JSON object"):
        decode_events(_checksummed(b"[1, 2]"))
    with pytest.raises(CodecError, match="snapshot must be a JSON object"):
        decode_state(b'"brokerSets"')


@pytest.mark.parametrize(("version", "shown"), [(2, "2"), (0, "0"), ("1", "'1'"), (None, "None")])
def test_decode_events_rejects_another_version(version: Any, shown: str) -> None:
    with pytest.raises(CodecError, match=f"log entry has version {shown}; this release reads version 1"):
        decode_events(_entry(v=version))


def test_decode_state_rejects_another_version() -> None:
    with pytest.raises(CodecError, match="snapshot has version 7; this release reads version 1"):
        decode_state(b'{"v": 7, "brokerSets": []}')


def test_decode_events_rejects_an_unknown_event_type() -> None:
    with pytest.raises(CodecError, match="unknown event type 'ShutdownEvent'"):
        decode_events(_entry({"type": "ShutdownEvent", "broker_name": BROKER}))
    with pytest.raises(CodecError, match="unknown event type None"):
        decode_events(_entry({"broker_name": BROKER}))


def test_decode_events_names_a_missing_field() -> None:
    doc = json.loads(entry_json(encode_events([ElectMaster(BROKER, 2, 1)])))["events"][0]
    del doc["expected_master_epoch"]
    with pytest.raises(CodecError, match="ElectMaster event lacks field 'expected_master_epoch'"):
        decode_events(_entry(doc))


@pytest.mark.parametrize(
    "event",
    [ApplyBrokerId(CLUSTER, BROKER, addr(1), 1, check_code(1)), UpdateBrokerAddress(CLUSTER, BROKER, addr(3), 3)],
    ids=lambda e: type(e).__name__,
)
def test_log_entry_written_before_ha_addresses_decodes_with_an_empty_one(event: Event) -> None:
    doc = json.loads(entry_json(encode_events([event])))["events"][0]
    del doc["ha_address"]
    assert decode_events(_entry(doc)) == [event]


def test_codec_error_is_a_value_error() -> None:
    assert issubclass(CodecError, ValueError)


@pytest.mark.parametrize(
    "snapshot",
    [
        {"v": 1},
        {"v": 1, "brokerSets": 5},
        {"v": 1, "brokerSets": [{"brokerName": BROKER}]},
        {"v": 1, "brokerSets": ["broker-a"]},
        {"v": 1, "brokerSets": [{**json.loads(encode_state(with_master(1)))["brokerSets"][0], "replicas": [{}]}]},
        {"v": 1, "brokerSets": [{**json.loads(encode_state(with_master(1)))["brokerSets"][0], "syncStateSet": 3}]},
    ],
    ids=["no_sets", "sets_not_a_list", "set_lacks_fields", "set_not_an_object", "replica_lacks_fields", "sss_is_int"],
)
def test_decode_state_rejects_a_malformed_snapshot(snapshot: dict[str, Any]) -> None:
    with pytest.raises(CodecError, match="snapshot is missing or has a malformed field"):
        decode_state(json.dumps(snapshot).encode())


@pytest.mark.parametrize(
    "doc",
    [
        {"type": "CleanBrokerData", "broker_name": BROKER, "broker_ids": 5},
        {"type": ["ElectMaster"]},
    ],
    ids=["set_field_not_a_list", "type_not_a_string"],
)
def test_decode_events_rejects_a_malformed_event_value_with_codec_error(doc: dict[str, Any]) -> None:
    with pytest.raises(CodecError):
        decode_events(_entry(doc))


# --- heartbeat merge ----------------------------------------------------------------------------


def hb(broker_id: int = 1, epoch: int = 2, max_offset: int = 500, **kw: Any) -> Heartbeat:
    return Heartbeat(CLUSTER, BROKER, broker_id, kw.pop("broker_address", addr(broker_id)), epoch, max_offset, **kw)


def test_first_heartbeat_creates_a_row_with_its_values() -> None:
    entry = merge(None, hb(epoch=2, max_offset=500, confirm_offset=400, heartbeat_timeout_ms=3_000), now=100.0)
    assert entry == LiveEntry(CLUSTER, LiveInfo(addr(1), 2, 500, 400, 2**31 - 1, False), 100.0, 3.0)


def test_heartbeat_defaults_match_java() -> None:
    beat = Heartbeat(CLUSTER, BROKER, 1, addr(1))
    assert (beat.epoch, beat.max_offset, beat.confirm_offset) == (-1, -1, -1)
    assert beat.heartbeat_timeout_ms == DEFAULT_HEARTBEAT_TIMEOUT_MS == 10_000
    assert beat.election_priority == 2**31 - 1
    assert merge(None, beat, now=0.0).timeout_s == 10.0


@pytest.mark.parametrize(
    ("epoch", "max_offset", "expected"),
    [
        (3, 100, (3, 100, 90)),  # higher epoch wins even with a lower offset
        (2, 600, (2, 600, 90)),  # same epoch, higher offset
        (2, 500, (2, 500, 400)),  # same epoch, same offset: kept
        (2, 499, (2, 500, 400)),  # same epoch, lower offset: kept
        (1, 10_000, (2, 500, 400)),  # lower epoch: kept whatever the offset
    ],
)
def test_merge_moves_epoch_and_offsets_only_forward(epoch: int, max_offset: int, expected: tuple[int, ...]) -> None:
    old = merge(None, hb(epoch=2, max_offset=500, confirm_offset=400), now=100.0)
    new = merge(old, hb(epoch=epoch, max_offset=max_offset, confirm_offset=90), now=101.0)
    assert (new.info.epoch, new.info.max_offset, new.info.confirm_offset) == expected


def test_merge_always_refreshes_address_priority_timeout_and_time() -> None:
    old = merge(None, hb(epoch=2, max_offset=500, election_priority=5, heartbeat_timeout_ms=3_000), now=100.0)
    stale = hb(epoch=1, max_offset=1, broker_address="10.0.0.1:10911", election_priority=1, heartbeat_timeout_ms=6_000)
    new = merge(old, stale, now=104.0)
    assert new.info == LiveInfo("10.0.0.1:10911", 2, 500, -1, 1, False)
    assert (new.last_update, new.timeout_s) == (104.0, 6.0)


# --- LiveTable ----------------------------------------------------------------------------------


def test_beat_reports_whether_the_broker_is_new() -> None:
    table = LiveTable()
    assert table.beat(hb(1), now=100.0) is True
    assert table.beat(hb(1), now=101.0) is False
    assert table.beat(hb(2), now=101.0) is True
    assert len(table) == 2


def test_alive_view_includes_a_broker_until_the_timeout_boundary() -> None:
    table = LiveTable()
    table.beat(hb(1, heartbeat_timeout_ms=10_000), now=100.0)
    table.beat(hb(2, heartbeat_timeout_ms=3_000), now=100.0)
    assert set(table.alive_view(110.0)) == {(BROKER, 1)}
    assert set(table.alive_view(103.0)) == {(BROKER, 1), (BROKER, 2)}
    assert table.alive_view(110.5) == {}
    assert table.active_count(103.0) == 2
    assert table.active_count(104.0) == 1
    assert len(table) == 2


def test_alive_view_carries_the_merged_live_info() -> None:
    table = LiveTable()
    table.beat(hb(3, epoch=4, max_offset=2**40, election_priority=1), now=100.0)
    assert table.alive_view(101.0) == {(BROKER, 3): LiveInfo(addr(3), 4, 2**40, -1, 1, False)}


def test_a_fresh_beat_keeps_a_broker_alive() -> None:
    table = LiveTable()
    table.beat(hb(1, heartbeat_timeout_ms=3_000), now=100.0)
    table.beat(hb(1, heartbeat_timeout_ms=3_000), now=102.0)
    assert (BROKER, 1) in table.alive_view(105.0)
    assert table.expire(105.0) == []


def test_expire_removes_and_returns_only_the_timed_out_rows() -> None:
    table = LiveTable()
    table.beat(hb(1, heartbeat_timeout_ms=3_000), now=100.0)
    table.beat(hb(2, heartbeat_timeout_ms=10_000), now=100.0)
    assert table.expire(103.0) == []
    expired = table.expire(103.5)
    assert [key for key, _ in expired] == [(BROKER, 1)]
    assert expired[0][1].last_update == 100.0
    assert table.get((BROKER, 1)) is None
    assert table.get((BROKER, 2)) is not None
    assert len(table) == 1


def test_remove_forgets_a_broker_and_returns_its_row() -> None:
    table = LiveTable()
    table.beat(hb(1, epoch=3), now=100.0)
    assert table.remove((BROKER, 1), "10.0.0.9:1") is None  # a stream from another address: not its row
    removed = table.remove((BROKER, 1), addr(1))
    assert removed is not None
    assert removed.info.epoch == 3
    assert table.remove((BROKER, 1), addr(1)) is None
    assert table.alive_view(100.0) == {}


def test_a_broker_that_expired_starts_a_fresh_row() -> None:
    table = LiveTable()
    table.beat(hb(1, epoch=5, max_offset=900, heartbeat_timeout_ms=1_000), now=100.0)
    table.expire(200.0)
    assert table.beat(hb(1, epoch=1, max_offset=10), now=200.0) is True
    assert table.alive_view(200.0)[(BROKER, 1)].epoch == 1


def test_same_id_in_two_sets_are_separate_rows() -> None:
    table = LiveTable()
    table.beat(hb(1), now=100.0)
    table.beat(Heartbeat(CLUSTER, "broker-b", 1, "10.0.1.1:10911"), now=100.0)
    assert set(table.alive_view(100.0)) == {(BROKER, 1), ("broker-b", 1)}


@pytest.mark.parametrize(
    ("old_address", "old_at", "beat_address", "conflict"),
    [
        (None, 0.0, "10.0.0.2:1", None),  # no row: anyone may beat
        ("10.0.0.1:1", 100.0, "10.0.0.1:1", None),  # the holder itself
        ("10.0.0.1:1", 100.0, "10.0.0.2:1", "10.0.0.1:1"),  # alive elsewhere: refused, names the holder
        ("10.0.0.1:1", 97.0, "10.0.0.2:1", "10.0.0.1:1"),  # still alive at the edge of its timeout (3 s)
        ("10.0.0.1:1", 96.9, "10.0.0.2:1", None),  # expired: the id may move
        ("", 100.0, "10.0.0.2:1", None),  # a row without an address proves nothing
        ("10.0.0.1:1", 100.0, "", None),  # nor does a beat without one
    ],
)
def test_a_beat_may_not_move_an_alive_id_to_another_address(
    old_address: str | None, old_at: float, beat_address: str, conflict: str | None
) -> None:
    old = (
        None if old_address is None else merge(None, hb(broker_address=old_address, heartbeat_timeout_ms=3000), old_at)
    )
    assert address_conflict(old, hb(broker_address=beat_address), now=100.0) == conflict


def test_liveness_refuses_a_beat_from_another_address_and_keeps_the_holder() -> None:
    now = [100.0]
    inactive: list[tuple[tuple[str, int], str]] = []
    liveness = Liveness(lambda: now[0], lambda key, why: inactive.append((key, why)))
    assert liveness.beat(hb(broker_address="10.0.0.1:1", heartbeat_timeout_ms=3000)) is None
    assert liveness.beat(hb(broker_address="10.0.0.2:1", epoch=9)) == "10.0.0.1:1"
    assert liveness.alive_view()[(BROKER, 1)].broker_address == "10.0.0.1:1"
    assert liveness.alive_view()[(BROKER, 1)].epoch == 2  # nothing of the refused beat was kept
    liveness.stream_closed((BROKER, 1), "10.0.0.2:1")  # the intruder's stream ends: the holder stays alive
    assert inactive == [] and (BROKER, 1) in liveness.alive_view()
    liveness.stream_closed((BROKER, 1), "10.0.0.1:1")
    assert inactive == [((BROKER, 1), "heartbeat stream closed")]
    assert liveness.beat(hb(broker_address="10.0.0.2:1")) is None  # the id is free now


# --- the detection loop's schedule (controller.daemon runs it on the node's injected clock) -----------------


@pytest.mark.parametrize(
    ("next_at", "now", "interval_s", "expected"),
    [
        pytest.param(NEVER, 0.0, 5.0, (True, 5.0), id="never_run_is_due_at_once"),
        pytest.param(NEVER, -100.0, 5.0, (True, -95.0), id="never_run_is_due_on_any_clock"),
        pytest.param(10.0, 9.99, 5.0, (False, 10.0), id="before_its_time"),
        pytest.param(10.0, 10.0, 5.0, (True, 15.0), id="at_its_time"),
        pytest.param(10.0, 12.5, 5.0, (True, 17.5), id="late_runs_once_and_counts_from_now"),
    ],
)
def test_a_periodic_scan_runs_when_due_and_is_next_due_one_interval_later(
    next_at: float, now: float, interval_s: float, expected: tuple[bool, float]
) -> None:
    assert due(next_at, now, interval_s) == expected
