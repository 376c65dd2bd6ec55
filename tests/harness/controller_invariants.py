"""Random controller requests and liveness for the property tests, and the invariants every step must keep.

``REQUESTS`` draws any request over two sets and ids 1..4 (a ``Spec`` is built against the state that decides
it: ``materialize``); ``ALIVE`` draws mostly alive brokers. The ``check_*`` functions are the invariants of
controller/model.py, asserted after each decided and applied request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from controller.codec import decode_state, encode_state
from controller.events import ElectMaster
from controller.model import AliveView, ControllerState, LiveInfo
from controller.requests import (
    AlterSyncStateSetRequest,
    ApplyBrokerIdRequest,
    AssignPreferredMasterRequest,
    CleanBrokerDataRequest,
    DeleteSubscriptionGroupRequest,
    DeleteTopicRequest,
    ElectMasterRequest,
    GetMetadataRequest,
    GetNextBrokerIdRequest,
    GetReplicaInfoRequest,
    GetSyncStateDataRequest,
    RegisterBrokerRequest,
    Request,
    Result,
    UpdateSubscriptionGroupRequest,
    UpdateTopicRequest,
)
from mqbase.codes import ResponseCode
from mqbase.retry import CustomizedRetry, ExponentialRetry
from tests.harness.controller_state import CLUSTER, addr, check_code, ha_addr

NAMES = st.sampled_from(["broker-a", "broker-b"])
IDS = st.integers(min_value=1, max_value=4)
ID_SETS = st.frozensets(IDS, max_size=4)
HA_ADDRESSES = st.sampled_from(["", ha_addr(1), ha_addr(2)])
LIVE_INFOS = st.builds(
    LiveInfo,
    broker_address=st.just(""),
    epoch=st.integers(min_value=0, max_value=3),
    max_offset=st.sampled_from([0, 100, 2**31 + 5, 2**40]),
    confirm_offset=st.just(0),
    election_priority=st.integers(min_value=0, max_value=2),
    async_learner=st.sampled_from([False] * 7 + [True]),
)


@dataclass(frozen=True)
class ApplyNextSpec:
    """ApplyBrokerId of the id GetNextBrokerId would hand out (the normal registration path)."""

    broker_name: str
    millis: int

    def request(self, state: ControllerState, alive: AliveView) -> Request:
        bs = state.get(self.broker_name)
        next_id = bs.next_broker_id if bs else 1
        return ApplyBrokerIdRequest(
            CLUSTER, self.broker_name, next_id, check_code(next_id, self.millis), ha_addr(next_id)
        )


@dataclass(frozen=True)
class AlterSpec:
    """An AlterSyncStateSet built against the state it is decided on: mostly current epochs and master."""

    broker_name: str
    use_current_master: bool
    other_master: int
    master_epoch_delta: int
    sync_state_set_epoch_delta: int
    new_set: frozenset[int]
    members: str  # "eligible": the set's alive non-learner ids; "alive": new_set's alive ids; "raw": new_set
    add_master: bool

    def request(self, state: ControllerState, alive: AliveView) -> Request:
        bs = state.get(self.broker_name)
        current = bs.master_id if bs else None
        master = current if self.use_current_master and current is not None else self.other_master
        new_set = self.new_set
        if self.members == "eligible" and bs is not None:
            new_set = frozenset(
                i for i in bs.broker_ids if (info := alive.get((self.broker_name, i))) and not info.async_learner
            )
        elif self.members == "alive":
            new_set = frozenset(i for i in new_set if (self.broker_name, i) in alive)
        return AlterSyncStateSetRequest(
            self.broker_name,
            master,
            (bs.master_epoch if bs else 0) + self.master_epoch_delta,
            new_set | {master} if self.add_master else new_set,
            (bs.sync_state_set_epoch if bs else 0) + self.sync_state_set_epoch_delta,
        )


Spec = ApplyNextSpec | AlterSpec
TOPICS = st.sampled_from(["TopicA", "TopicB"])
GROUPS = st.sampled_from(["GID_a", "GID_b"])
DELTAS = st.sampled_from([0, 0, 0, 0, -1, 1])
LIKELY = st.sampled_from([True, True, True, False])
MEMBERS = st.sampled_from(["eligible", "eligible", "alive", "raw"])
REQUESTS: st.SearchStrategy[Request | Spec] = st.one_of(
    st.builds(ApplyNextSpec, NAMES, st.sampled_from([1, 2])),
    st.builds(
        ApplyBrokerIdRequest,
        st.just(CLUSTER),
        NAMES,
        IDS,
        st.builds(check_code, IDS, st.sampled_from([1, 2])),
        HA_ADDRESSES,
    ),
    st.builds(RegisterBrokerRequest, st.just(CLUSTER), NAMES, IDS, st.builds(addr, st.integers(1, 6)), HA_ADDRESSES),
    st.builds(ElectMasterRequest, st.just(CLUSTER), NAMES, st.none() | IDS, st.booleans()),
    st.builds(ElectMasterRequest, st.just(""), NAMES),
    st.builds(AlterSpec, NAMES, LIKELY, IDS, DELTAS, DELTAS, ID_SETS, MEMBERS, LIKELY),
    st.builds(
        CleanBrokerDataRequest,
        st.just(CLUSTER),
        NAMES,
        st.sampled_from(["", "1", "2", "3;4", "1;2;3;4", "1;x"]),
        st.booleans(),
        st.booleans(),
    ),
    st.builds(AssignPreferredMasterRequest, st.sampled_from([CLUSTER, CLUSTER, "Other"]), NAMES, st.none() | IDS),
    st.builds(GetNextBrokerIdRequest, st.just(CLUSTER), NAMES),
    st.builds(GetReplicaInfoRequest, NAMES),
    st.just(GetSyncStateDataRequest(all_broker_sets=True)),
    st.builds(
        UpdateTopicRequest,
        TOPICS,
        st.sampled_from([CLUSTER, "", "Other"]),
        st.sampled_from(["", "", "broker-a", "broker-b", "broker-c"]),
        st.none() | st.integers(1, 3),
        st.none() | st.integers(1, 3),
        st.none() | st.sampled_from([2, 4, 6]),
        st.dictionaries(st.just("message.type"), st.none() | st.sampled_from(["NORMAL", "FIFO"]), max_size=1),
    ).filter(lambda r: bool(r.cluster_name) != bool(r.broker_name)),
    st.builds(DeleteTopicRequest, st.sampled_from([CLUSTER, "Other"]), TOPICS),
    st.builds(
        UpdateSubscriptionGroupRequest,
        GROUPS,
        st.sampled_from([CLUSTER, "", "Other"]),
        st.sampled_from(["", "", "broker-a", "broker-b"]),
        st.none() | st.booleans(),
        st.none() | st.integers(0, 16),
        st.none() | st.booleans(),
        st.none() | st.sampled_from([CustomizedRetry((2_000,)), ExponentialRetry(1_000, 8_000, 2)]),
    ).filter(lambda r: bool(r.cluster_name) != bool(r.broker_name)),
    st.builds(DeleteSubscriptionGroupRequest, st.sampled_from([CLUSTER, "Other"]), GROUPS),
    st.just(GetMetadataRequest()),
)
"""Any controller request over two sets and ids 1..4 (specs are built against the deciding state)."""

KEYS = [(name, i) for name in ("broker-a", "broker-b") for i in (1, 2, 3, 4)]
ALIVE = st.lists(st.tuples(LIKELY, LIVE_INFOS), min_size=len(KEYS), max_size=len(KEYS)).map(
    lambda drawn: {key: info for key, (up, info) in zip(KEYS, drawn, strict=True) if up}
)
"""Mostly alive brokers over both sets and ids 1..4."""


def materialize(drawn: Request | Spec, state: ControllerState, alive: AliveView) -> Request:
    return drawn.request(state, alive) if isinstance(drawn, ApplyNextSpec | AlterSpec) else drawn


def check_state(state: ControllerState) -> None:
    """The state invariants of model.py, plus a lossless snapshot."""
    for name, bs in state.broker_sets.items():
        ids = bs.broker_ids
        assert name == bs.broker_name
        assert ids, "a set exists only while it has a registered id"
        assert list(ids) == sorted(set(ids))
        assert bs.next_broker_id > max(ids)
        assert bs.master_epoch >= 0 and bs.sync_state_set_epoch >= 0
        if bs.master_id is not None:
            assert bs.master_id in ids
            assert bs.master_id in bs.sync_state_set
        assert bs.sync_state_set <= frozenset(ids)
        assert bs.preferred_id is None or bs.preferred_id in ids
    for name, topic in state.topics.items():
        assert name == topic.topic_name and topic.broker_names
    for name, group in state.groups.items():
        assert name == group.group_name and group.broker_names
    assert decode_state(encode_state(state)) == state


def check_transition(before: ControllerState, after: ControllerState) -> None:
    """Epochs and next ids never go back; a master that changes was just elected into SSS == {master}, or (a
    graceful transfer) into the SyncStateSet it was a member of, kept. The metadata changes only with its
    version, by one step per event, and a topic or group never moves to another cluster."""
    changed = (after.topics, after.groups) != (before.topics, before.groups)
    assert after.metadata_version - before.metadata_version in ((1,) if changed else (0, 1))
    for name in before.topics.keys() & after.topics.keys():
        assert before.topics[name].cluster_name == after.topics[name].cluster_name
    for name in before.groups.keys() & after.groups.keys():
        assert before.groups[name].cluster_name == after.groups[name].cluster_name
    for bs in after:
        old = before.get(bs.broker_name)
        if old is None:
            assert (bs.master_id, bs.master_epoch, bs.sync_state_set_epoch) == (None, 0, 0)
            continue
        assert bs.master_epoch >= old.master_epoch
        assert bs.sync_state_set_epoch >= old.sync_state_set_epoch
        assert bs.next_broker_id >= old.next_broker_id
        if bs.master_id is not None and bs.master_id != old.master_id:
            assert bs.master_epoch == old.master_epoch + 1
            kept = bs.master_id in old.sync_state_set and bs.sync_state_set <= old.sync_state_set
            assert bs.sync_state_set == frozenset({bs.master_id}) or kept
            assert bs.master_id in bs.sync_state_set
        if bs.master_epoch == old.master_epoch:
            assert bs.master_id in (old.master_id, None)


def check_registered(request: Request, result: Result[Any], after: ControllerState) -> None:
    """A successful RegisterBroker leaves the replica with exactly the addresses it registered."""
    if isinstance(request, RegisterBrokerRequest) and result.ok:
        bs = after.get(request.broker_name)
        assert bs is not None
        assert bs.addresses_of(request.broker_id) == (request.broker_address, request.ha_address)


def check_result(request: Request, result: Result[Any]) -> None:
    """Reads never write; a refusal writes nothing, except the 2004 election that clears the master."""
    assert isinstance(result.code, ResponseCode)
    reads = GetNextBrokerIdRequest | GetReplicaInfoRequest | GetSyncStateDataRequest | GetMetadataRequest
    if isinstance(request, reads):
        assert result.events == ()
    if not result.ok and result.events:
        assert result.code == ResponseCode.CONTROLLER_MASTER_NOT_AVAILABLE
        assert len(result.events) == 1
        assert isinstance(result.events[0], ElectMaster)
        assert result.events[0].new_master_id is None
