"""The functional core of the controller: compute and apply (Java's ``ReplicasInfoManager``).

``compute(state, request, alive, allow_unclean=..., preferred_master=..., master_grace=...)``
decides a request against the current state, the liveness facts the leader
holds and the two election switches of its config, and returns a ``Result``
(code, remark, reply, events). It never changes state.
``apply_event(state, event)`` is the only way state changes; every node runs
it for every committed event, and it reads nothing but the state and the
event (no clock, no liveness), so all nodes end with identical state.

Checks run in the Java order, so each failure keeps its Java response code.
No I/O, no logging, no clock here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from types import MappingProxyType
from typing import Any, assert_never

from controller.election import designated_refusal, elect, preferred_of
from controller.events import (
    AlterSyncStateSet,
    ApplyBrokerId,
    AssignPreferredMaster,
    BrokerSetEvent,
    CleanBrokerData,
    ElectMaster,
    Event,
    MetadataEvent,
    SetGroupConfig,
    UpdateBrokerAddress,
)
from controller.metadata import apply_metadata, compute_metadata
from controller.model import FIRST_BROKER_ID, AliveView, BrokerSet, ControllerState, LiveInfo, Replica, alive_in_set
from controller.requests import (
    AlterSyncStateSetReply,
    AlterSyncStateSetRequest,
    ApplyBrokerIdReply,
    ApplyBrokerIdRequest,
    AssignPreferredMasterReply,
    AssignPreferredMasterRequest,
    CleanBrokerDataRequest,
    DeleteSubscriptionGroupRequest,
    DeleteTopicRequest,
    ElectMasterReply,
    ElectMasterRequest,
    GetMetadataRequest,
    GetNextBrokerIdRequest,
    GetReplicaInfoRequest,
    GetSyncStateDataRequest,
    NextBrokerIdReply,
    RegisterBrokerReply,
    RegisterBrokerRequest,
    ReplicaIdentity,
    ReplicaInfoReply,
    ReplicasInfo,
    Request,
    Result,
    SetBrokerPermissionRequest,
    SetGroupConfigReply,
    SetGroupConfigRequest,
    SyncStateDataReply,
    TransferMasterRequest,
    UpdateSubscriptionGroupRequest,
    UpdateTopicRequest,
)
from controller.transfer import check_transfer, not_registered
from mqbase.codes import ResponseCode as C

METADATA_NOT_EXIST = "Broker metadata is not existed"


def _is_alive(alive: AliveView, broker_name: str, broker_id: int | None) -> bool:
    return broker_id is not None and (broker_name, broker_id) in alive


# --- registration -------------------------------------------------------------------------------


def get_next_broker_id(state: ControllerState, req: GetNextBrokerIdRequest) -> Result[NextBrokerIdReply]:
    """Registration phase 1: the id a new replica should try to apply. Always SUCCESS."""
    bs = state.get(req.broker_name)
    next_id = bs.next_broker_id if bs else FIRST_BROKER_ID
    return Result(C.SUCCESS, reply=NextBrokerIdReply(req.cluster_name, req.broker_name, next_id))


def address_taken(bs: BrokerSet, broker_id: int, address: str, alive: AliveView) -> Result[Any] | None:
    """CONTROLLER_BROKER_ID_INVALID when `broker_id` still heartbeats from another address than `address`.

    Moving a registered id to a new address while the broker holding it is alive lets a second process (a copy of
    its store) steal the id: the controller would then send clients and slaves to the newcomer, or to a dead
    address once the newcomer stops, while the real broker keeps heartbeating. The rightful broker restarting
    elsewhere gets its address once its old process stops heartbeating (its stream closes, or it times out).
    """
    live = alive.get((bs.broker_name, broker_id))
    if live is None or not live.broker_address or live.broker_address == address:
        return None
    return Result(C.CONTROLLER_BROKER_ID_INVALID, id_taken(bs.broker_name, broker_id, live.broker_address, address))


def id_taken(broker_name: str, broker_id: int, live_address: str, address: str) -> str:
    """The remark of a refusal to move a live broker id to another address (registration or heartbeat)."""
    return (
        f"BrokerId: {broker_id} of broker-set: {broker_name} is alive at {live_address}; "
        f"refusing to move it to {address} while that broker still heartbeats"
    )


def apply_broker_id(
    state: ControllerState, req: ApplyBrokerIdRequest, alive: AliveView = MappingProxyType({})
) -> Result[ApplyBrokerIdReply]:
    """Registration phase 2: claim an id (CAS); a retry with the same check code is idempotent, unless the id
    heartbeats from another address (``address_taken``)."""
    address = req.register_check_code.split(";")[0]
    event = ApplyBrokerId(
        req.cluster_name, req.broker_name, address, req.broker_id, req.register_check_code, req.ha_address
    )
    reply = ApplyBrokerIdReply(req.cluster_name, req.broker_name)
    bs = state.get(req.broker_name)
    if bs is None:
        if req.broker_id == FIRST_BROKER_ID:
            return Result(C.SUCCESS, reply=reply, events=(event,))
        return Result(
            C.CONTROLLER_BROKER_ID_INVALID,
            f"Broker-set: {req.broker_name} hasn't been registered in controller, "
            f"but broker try to apply brokerId: {req.broker_id}",
        )
    if bs.cluster_name != req.cluster_name:  # a set's name is unique across clusters: never join another's
        return Result(C.CONTROLLER_BROKER_METADATA_NOT_EXIST, not_registered(req.cluster_name, req.broker_name, bs))
    existing = bs.replica(req.broker_id)
    if existing is not None and (taken := address_taken(bs, req.broker_id, address, alive)) is not None:
        return taken
    if existing is None or existing.register_check_code == req.register_check_code:
        return Result(C.SUCCESS, reply=reply, events=(event,))
    return Result(
        C.CONTROLLER_BROKER_ID_INVALID,
        f"Fail to apply brokerId: {req.broker_id} in broker-set: {req.broker_name}",
    )


def presume_master(alive: AliveView, bs: BrokerSet) -> AliveView:
    """`alive` with the set's master counted alive when the heartbeat table has not seen it.

    What a node that started less than one heartbeat timeout ago must presume before a broker's request elects
    another master: its table starts empty, and a live master's gRPC channel may back off for seconds after every
    controller restarted (the controller's own scan waits for the same window)."""
    if bs.master_id is None or (bs.broker_name, bs.master_id) in alive:
        return alive
    replica = bs.replica(bs.master_id)
    presumed = LiveInfo(broker_address=replica.address if replica is not None else "")
    return {**alive, (bs.broker_name, bs.master_id): presumed}


def register_broker(
    state: ControllerState, req: RegisterBrokerRequest, alive: AliveView, *, master_grace: bool = False
) -> Result[RegisterBrokerReply]:
    """Registration phase 3: refresh the address and HA address, and return the alive master, if any (with
    `master_grace`, the registered master unless the table says otherwise: ``presume_master``).

    Refused while the id heartbeats from another address (``address_taken``)."""
    bs = state.get(req.broker_name)
    if bs is None:
        return Result(
            C.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED,
            f"Broker-set: {req.broker_name} hasn't been registered in controller",
        )
    if bs.cluster_name != req.cluster_name:
        return Result(C.CONTROLLER_BROKER_METADATA_NOT_EXIST, not_registered(req.cluster_name, req.broker_name, bs))
    replica = bs.replica(req.broker_id)
    if replica is None:
        return Result(
            C.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED,
            f"BrokerId: {req.broker_id} hasn't been registered in broker-set: {req.broker_name}",
        )
    if (taken := address_taken(bs, req.broker_id, req.broker_address, alive)) is not None:
        return taken
    master_alive = _is_alive(presume_master(alive, bs) if master_grace else alive, bs.broker_name, bs.master_id)
    master_address, master_ha_address = bs.addresses_of(bs.master_id if master_alive else None)
    reply = RegisterBrokerReply(
        cluster_name=req.cluster_name,
        broker_name=req.broker_name,
        master_broker_id=bs.master_id if master_alive else None,
        master_address=master_address,
        master_ha_address=master_ha_address,
        master_epoch=bs.master_epoch if master_alive else None,
        sync_state_set_epoch=bs.sync_state_set_epoch if master_alive else None,
        sync_state_set=bs.sync_state_set,
        current_sync_state_set_epoch=bs.sync_state_set_epoch,
    )
    events: tuple[Event, ...] = ()
    if (replica.address, replica.ha_address) != (req.broker_address, req.ha_address):
        events = (
            UpdateBrokerAddress(req.cluster_name, req.broker_name, req.broker_address, req.broker_id, req.ha_address),
        )
    return Result(C.SUCCESS, reply=reply, events=events)


# --- election -----------------------------------------------------------------------------------


def _first_election_candidate(
    bs: BrokerSet, req: ElectMasterRequest, alive: dict[int, LiveInfo], preferred: int | None
) -> int | None:
    """Java's first-election rule ("the first broker that asks becomes master"), made safe.

    The requester must be a registered id of the set and not an async learner
    (RocketMQ #10013); otherwise the normal policy decides. An alive, non-learner
    preferred master takes the requester's place: the set starts where the
    operator wants it, whoever asked first.
    """
    if not bs.is_first_election or req.broker_id is None or bs.replica(req.broker_id) is None:
        return None
    if preferred in alive and not alive[preferred].async_learner:
        return preferred
    info = alive.get(req.broker_id)
    if info is not None and info.async_learner:
        return None
    return req.broker_id


def elect_master(
    state: ControllerState,
    req: ElectMasterRequest,
    alive: AliveView,
    *,
    allow_unclean: bool,
    preferred_master: bool = False,
    master_grace: bool = False,
) -> Result[ElectMasterReply]:
    """Broker-, controller- or admin-triggered election of one broker set.

    With `preferred_master` (``enablePreferredMaster``) the set's preferred master wins the first election and
    any election among SyncStateSet candidates; an admin-designated election ignores it. With `master_grace` a
    broker's request counts the master alive unless the table says otherwise (``presume_master``), so it keeps
    its role; an admin's or the controller's own election reads the table as it is.
    """
    bs = state.get(req.broker_name)
    if bs is None:
        return Result(C.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED, "Broker hasn't been registered")
    if (req.designate_elect or req.cluster_name) and bs.cluster_name != req.cluster_name:  # a -c Java leaves unchecked
        return Result(C.CONTROLLER_BROKER_METADATA_NOT_EXIST, not_registered(req.cluster_name, req.broker_name, bs))
    old_master = bs.master_id
    broker_trigger = not req.designate_elect and not req.is_controller_trigger
    in_set = alive_in_set(presume_master(alive, bs) if master_grace and broker_trigger else alive, bs)
    preferred = preferred_of(bs.preferred_id, in_set) if preferred_master and not req.designate_elect else None
    new_master = _first_election_candidate(bs, req, in_set, preferred)
    if new_master is None:
        new_master = elect(
            bs.sync_state_set,
            bs.broker_ids if allow_unclean else None,
            in_set,
            old_master=old_master,
            designated=req.broker_id if req.designate_elect else None,
            preferred=preferred,
        )
    if new_master is not None and new_master == old_master:
        reply = ElectMasterReply(
            bs.cluster_name, bs.broker_name, old_master, *bs.addresses_of(old_master),
            bs.master_epoch, bs.sync_state_set_epoch, (), bs.sync_state_set,
        )  # fmt: skip
        return Result(C.CONTROLLER_MASTER_STILL_EXIST, "The old master is still alive, no need to elect", reply)
    if new_master is not None:
        return _elected(bs, new_master)
    if req.is_controller_trigger:
        # Clearing a master that is already cleared would only bump the epoch again.
        events = (ElectMaster(bs.broker_name, None, bs.master_epoch),) if old_master is not None else ()
        return Result(
            C.CONTROLLER_MASTER_NOT_AVAILABLE,
            "Old master has down and failed to elect a new broker master",
            events=events,
        )
    if req.designate_elect and req.broker_id is not None:
        reason = designated_refusal(
            req.broker_id, bs.broker_ids, bs.sync_state_set, in_set, allow_unclean=allow_unclean
        )
        return Result(C.CONTROLLER_ELECT_MASTER_FAILED, reason)
    return Result(C.CONTROLLER_ELECT_MASTER_FAILED, "Failed to elect a new master")


def _elected(bs: BrokerSet, new_master: int, keep: frozenset[int] | None = None) -> Result[ElectMasterReply]:
    """SUCCESS with the ElectMaster event that makes `new_master` master in masterEpoch + 1.

    The SyncStateSet becomes {new_master}, or `keep` (a graceful transfer keeps the set it started with).
    """
    reply = ElectMasterReply(
        bs.cluster_name, bs.broker_name, new_master, *bs.addresses_of(new_master),
        bs.master_epoch + 1, bs.sync_state_set_epoch + 1,
        tuple((r.broker_id, r.address) for r in bs.replicas), keep or frozenset({new_master}),
    )  # fmt: skip
    return Result(C.SUCCESS, "", reply, (ElectMaster(bs.broker_name, new_master, bs.master_epoch, keep),))


def transfer_master(state: ControllerState, req: TransferMasterRequest, alive: AliveView) -> Result[ElectMasterReply]:
    """The last step of a graceful transfer: elect the target, if nothing changed since the master paused.

    Fenced by the master id and masterEpoch the transfer started from; the SyncStateSet-size safeguard was
    checked at the start (pausing writes cannot shrink the set in between, and must not block the hand-over).
    The SyncStateSet is kept, not reset to {target}: with allAckInSyncStateSet every acknowledged message is on
    every member, and the target has all the old master had, so the new master's first writes still need every
    member's acknowledgement instead of its own alone.
    """
    bs = state.get(req.broker_name)
    if bs is None:
        return Result(C.CONTROLLER_BROKER_METADATA_NOT_EXIST, METADATA_NOT_EXIST)
    if bs.master_epoch != req.expected_master_epoch:
        return Result(
            C.CONTROLLER_FENCED_MASTER_EPOCH,
            f"the master of {bs.broker_name} changed during the transfer: masterEpoch is {bs.master_epoch}, "
            f"not {req.expected_master_epoch}",
        )
    if bs.master_id != req.expected_master_id:
        return Result(
            C.CONTROLLER_INVALID_MASTER,
            f"the master of {bs.broker_name} is {bs.master_id}, not {req.expected_master_id}",
        )
    reason = check_transfer(bs, req.broker_id, alive, require_full_sync_state_set=False)
    if reason is not None:
        return Result(C.CONTROLLER_ELECT_MASTER_FAILED, reason)
    return _elected(bs, req.broker_id, keep=bs.sync_state_set)


def scan_need_reelect(state: ControllerState, alive: AliveView) -> list[str]:
    """Broker sets whose master is dead while at least one registered broker is alive."""
    return [
        bs.broker_name
        for bs in state
        if bs.master_id is not None
        and not _is_alive(alive, bs.broker_name, bs.master_id)
        and any(_is_alive(alive, bs.broker_name, i) for i in bs.broker_ids)
    ]


# --- SyncStateSet -------------------------------------------------------------------------------


def alter_sync_state_set(
    state: ControllerState, req: AlterSyncStateSetRequest, alive: AliveView
) -> Result[AlterSyncStateSetReply]:
    """The master reports a new SyncStateSet; fenced by masterEpoch and syncStateSetEpoch."""
    prefix = "Rejecting alter syncStateSet request because"
    bs = state.get(req.broker_name)
    if bs is None:
        return Result(C.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED, METADATA_NOT_EXIST)
    if req.new_sync_state_set == bs.sync_state_set:
        return Result(
            C.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED,
            "The newSyncStateSet is equal with oldSyncStateSet, no needed to update syncStateSet",
        )
    if bs.master_id is None or bs.master_id != req.master_broker_id:
        return Result(
            C.CONTROLLER_INVALID_MASTER,
            f"{prefix} the current leader is:{bs.master_id}, not {req.master_broker_id}",
        )
    if req.master_epoch != bs.master_epoch:
        return Result(
            C.CONTROLLER_FENCED_MASTER_EPOCH,
            f"{prefix} the current master epoch is:{bs.master_epoch}, not {req.master_epoch}",
        )
    if req.sync_state_set_epoch != bs.sync_state_set_epoch:
        return Result(
            C.CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH,
            f"{prefix} the current syncStateSet epoch is:{bs.sync_state_set_epoch}, not {req.sync_state_set_epoch}",
        )
    for broker_id in sorted(req.new_sync_state_set):
        if bs.replica(broker_id) is None:
            return Result(C.CONTROLLER_INVALID_REPLICAS, f"{prefix} the replicas {broker_id} don't exist")
        info = alive.get((bs.broker_name, broker_id))
        if info is None:
            return Result(C.CONTROLLER_BROKER_NOT_ALIVE, f"{prefix} the replicas {broker_id} don't alive")
        if info.async_learner:
            return Result(C.CONTROLLER_INVALID_REPLICAS, f"{prefix} the replicas {broker_id} is an async learner")
    if bs.master_id not in req.new_sync_state_set:
        return Result(
            C.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED,
            f"{prefix} the newSyncStateSet don't contains origin leader {bs.master_id}",
        )
    new_epoch = bs.sync_state_set_epoch + 1
    event = AlterSyncStateSet(bs.broker_name, req.new_sync_state_set, bs.master_epoch, bs.sync_state_set_epoch)
    return Result(C.SUCCESS, "", AlterSyncStateSetReply(new_epoch, req.new_sync_state_set), (event,))


# --- reads --------------------------------------------------------------------------------------


def get_replica_info(state: ControllerState, req: GetReplicaInfoRequest) -> Result[ReplicaInfoReply]:
    """The master and SyncStateSet of one broker set; brokers poll this."""
    bs = state.get(req.broker_name)
    if bs is None:
        return Result(C.CONTROLLER_BROKER_METADATA_NOT_EXIST, METADATA_NOT_EXIST)
    reply = ReplicaInfoReply(
        bs.master_id, *bs.addresses_of(bs.master_id), bs.master_epoch, bs.sync_state_set, bs.sync_state_set_epoch
    )
    return Result(C.SUCCESS, reply=reply)


def _replicas_info(bs: BrokerSet, alive: AliveView) -> ReplicasInfo:
    def identity(r: Replica) -> ReplicaIdentity:
        alive_now = _is_alive(alive, bs.broker_name, r.broker_id)
        return ReplicaIdentity(bs.broker_name, r.broker_id, r.address, r.ha_address, alive_now)

    master_address, master_ha_address = bs.addresses_of(bs.master_id)
    return ReplicasInfo(
        cluster_name=bs.cluster_name,
        broker_name=bs.broker_name,
        master_broker_id=bs.master_id,
        master_address=master_address,
        master_ha_address=master_ha_address,
        master_epoch=bs.master_epoch,
        sync_state_set_epoch=bs.sync_state_set_epoch,
        in_sync_replicas=tuple(identity(r) for r in bs.replicas if r.broker_id in bs.sync_state_set),
        not_in_sync_replicas=tuple(identity(r) for r in bs.replicas if r.broker_id not in bs.sync_state_set),
        preferred_broker_id=bs.preferred_id,
    )


def get_sync_state_data(
    state: ControllerState, req: GetSyncStateDataRequest, alive: AliveView
) -> Result[SyncStateDataReply]:
    """SyncStateSet details of the selected sets; unknown names are skipped, as in Java."""
    if req.all_broker_sets:
        selected: Iterable[BrokerSet] = state
    elif req.broker_names:
        selected = (bs for name in dict.fromkeys(req.broker_names) if (bs := state.get(name)) is not None)
    elif req.cluster_name:
        selected = (bs for bs in state if bs.cluster_name == req.cluster_name)
    else:
        return Result(C.CONTROLLER_INVALID_REQUEST, "Name one or more brokerNames, a clusterName, or all sets")
    infos = tuple(_replicas_info(bs, alive) for bs in sorted(selected, key=lambda b: b.broker_name))
    return Result(C.SUCCESS, reply=SyncStateDataReply(infos))


# --- cleaning -----------------------------------------------------------------------------------


def _parse_ids(raw: str) -> frozenset[int]:
    """Parse ``"1;2;3"`` as strictly as Java's ``Long.valueOf`` (a trailing ``;`` is allowed, as in ``split``)."""
    tokens = raw.split(";")
    while tokens and tokens[-1] == "":
        tokens.pop()
    for token in tokens:
        if not (token.isascii() and token.isdigit()):
            raise ValueError(f'For input string: "{token}"')
    return frozenset(int(token) for token in tokens)


def clean_broker_data(state: ControllerState, req: CleanBrokerDataRequest, alive: AliveView) -> Result[None]:
    """Remove dead brokers (or, with ``clean_living_broker``, any brokers) from a set's metadata.

    Unlike Java, listed ids are honoured with ``clean_living_broker`` too: only
    those ids are removed, never the whole set. And an empty id list is refused:
    the whole set goes only with ``whole_set``, so a caller's empty variable
    cannot wipe a running set.
    """
    bad = C.CONTROLLER_INVALID_CLEAN_BROKER_METADATA
    try:
        ids = _parse_ids(req.broker_ids_to_clean) or None
    except ValueError as exc:
        remark = f"Please set the option <brokerControllerIdsToClean> according to the format, exception: {exc}"
        return Result(bad, remark)
    if (ids is None) != req.whole_set:
        remark = "with cleanWholeSet, list no brokerControllerIdsToClean" if req.whole_set else (
            "no brokerControllerIdsToClean given: list the ids to clean, or set cleanWholeSet to remove the whole "
            f"broker set {req.broker_name}"
        )  # fmt: skip
        return Result(bad, remark)
    bs = state.get(req.broker_name)
    if bs is not None and req.cluster_name and bs.cluster_name != req.cluster_name:  # Java leaves -c unchecked
        return Result(C.CONTROLLER_BROKER_METADATA_NOT_EXIST, not_registered(req.cluster_name, req.broker_name, bs))
    if not req.clean_living_broker:
        if ids is None and bs is not None and bs.master_id is not None:
            return Result(bad, f"Broker {req.broker_name} is still alive, clean up failure")
        for broker_id in sorted(ids or ()):
            if _is_alive(alive, req.broker_name, broker_id):
                return Result(bad, f"Broker [{req.broker_name},  {broker_id}] is still alive, clean up failure")
    if bs is None:
        return Result(bad, f"Broker {req.broker_name} is not existed,clean broker data failure.")
    return Result(C.SUCCESS, events=(CleanBrokerData(req.broker_name, ids),))


# --- preferred master ---------------------------------------------------------------------------


def assign_preferred_master(
    state: ControllerState, req: AssignPreferredMasterRequest, alive: AliveView, *, enabled: bool
) -> Result[AssignPreferredMasterReply]:
    """Record (or clear) a set's preferred master; assigning the current one again is a no-op success.

    The preference is recorded whether or not `enabled` (``enablePreferredMaster``) is on, so operators can
    set it up before switching elections over. A broker the leader knows as an async learner is refused
    (it can never become master); a broker that is down is accepted, since it may come back.
    """
    bs = state.get(req.broker_name)
    if bs is None or bs.cluster_name != req.cluster_name:
        return Result(C.CONTROLLER_BROKER_METADATA_NOT_EXIST, not_registered(req.cluster_name, req.broker_name, bs))
    if req.broker_id is not None:
        if bs.replica(req.broker_id) is None:
            registered = ", ".join(map(str, bs.broker_ids))
            return Result(
                C.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED,
                f"BrokerId: {req.broker_id} hasn't been registered in broker-set: {bs.broker_name} "
                f"(registered ids: {registered})",
            )
        info = alive.get((bs.broker_name, req.broker_id))
        if info is not None and info.async_learner:
            return Result(
                C.CONTROLLER_INVALID_REPLICAS,
                f"Broker {req.broker_id} of {bs.broker_name} is an async learner, which never becomes master",
            )
    reply = AssignPreferredMasterReply(
        bs.cluster_name, bs.broker_name, bs.preferred_id, req.broker_id, bs.master_id, bs.master_epoch, enabled
    )
    if req.broker_id == bs.preferred_id:
        return Result(C.SUCCESS, reply=reply)
    return Result(C.SUCCESS, reply=reply, events=(AssignPreferredMaster(bs.broker_name, req.broker_id),))


# --- group config -------------------------------------------------------------------------------


def set_group_config(state: ControllerState, req: SetGroupConfigRequest) -> Result[SetGroupConfigReply]:
    """Record runtime keys as the group's values; keys that already hold the value are left out (no-op success).

    With `only_missing` only keys the group has no value for are recorded, so a new leader's file values never
    replace a value set earlier (a leader change must not flip ``enableElectUncleanMaster``).
    """
    current = state.config
    changes = {
        k: v for k, v in sorted(req.values.items()) if (k not in current if req.only_missing else current.get(k) != v)
    }
    if not changes:
        return Result(C.SUCCESS, reply=SetGroupConfigReply(state.config_version, ()))
    reply = SetGroupConfigReply(state.config_version + 1, tuple(changes))
    return Result(C.SUCCESS, reply=reply, events=(SetGroupConfig(changes, state.config_version),))


# --- dispatch -----------------------------------------------------------------------------------


def compute(
    state: ControllerState,
    request: Request,
    alive: AliveView,
    *,
    allow_unclean: bool,
    preferred_master: bool = False,
    master_grace: bool = False,
) -> Result[Any]:
    """Decide any request; the single entry point the leader's proposer calls.

    `allow_unclean` is ``enableElectUncleanMaster`` and `preferred_master` ``enablePreferredMaster``;
    `master_grace` is true while this node's heartbeat table is younger than one heartbeat timeout
    (``presume_master``).
    """
    match request:
        case GetNextBrokerIdRequest():
            return get_next_broker_id(state, request)
        case ApplyBrokerIdRequest():
            return apply_broker_id(state, request, alive)
        case RegisterBrokerRequest():
            return register_broker(state, request, alive, master_grace=master_grace)
        case ElectMasterRequest():
            return elect_master(state, request, alive, allow_unclean=allow_unclean, preferred_master=preferred_master,
                                master_grace=master_grace)  # fmt: skip
        case AlterSyncStateSetRequest():
            return alter_sync_state_set(state, request, alive)
        case GetReplicaInfoRequest():
            return get_replica_info(state, request)
        case GetSyncStateDataRequest():
            return get_sync_state_data(state, request, alive)
        case CleanBrokerDataRequest():
            return clean_broker_data(state, request, alive)
        case AssignPreferredMasterRequest():
            return assign_preferred_master(state, request, alive, enabled=preferred_master)
        case TransferMasterRequest():
            return transfer_master(state, request, alive)
        case SetGroupConfigRequest():
            return set_group_config(state, request)
        case (
            UpdateTopicRequest()
            | DeleteTopicRequest()
            | UpdateSubscriptionGroupRequest()
            | DeleteSubscriptionGroupRequest()
            | GetMetadataRequest()
            | SetBrokerPermissionRequest()
        ):
            return compute_metadata(state, request)
        case _:
            assert_never(request)


# --- apply --------------------------------------------------------------------------------------
# Each transition maps one broker set (None: absent) to its next value (None: removed); returning
# the input unchanged is a no-op. Transitions never look at other sets.


def _apply_broker_id(bs: BrokerSet | None, e: ApplyBrokerId) -> BrokerSet | None:
    bs = bs or BrokerSet(cluster_name=e.cluster_name, broker_name=e.broker_name)
    if bs.replica(e.broker_id) is not None:
        return bs
    bs = bs.with_replica(Replica(e.broker_id, e.broker_address, e.register_check_code, e.ha_address))
    # Java adds one whatever id was applied; max() keeps next above every registered id.
    return replace(bs, next_broker_id=max(bs.next_broker_id + 1, e.broker_id + 1))


def _update_address(bs: BrokerSet | None, e: UpdateBrokerAddress) -> BrokerSet | None:
    replica = bs.replica(e.broker_id) if bs else None
    if bs is None or replica is None:
        return bs
    return bs.with_replica(replace(replica, address=e.broker_address, ha_address=e.ha_address))


def _elect(bs: BrokerSet | None, e: ElectMaster) -> BrokerSet | None:
    if bs is None or bs.master_epoch != e.expected_master_epoch:
        return bs
    if e.new_master_id is None:
        return replace(bs, master_id=None, master_epoch=bs.master_epoch + 1)
    if bs.replica(e.new_master_id) is None:
        return bs
    kept = (e.sync_state_set or frozenset()) & frozenset(bs.broker_ids)  # a clean may have won the race
    return replace(
        bs,
        master_id=e.new_master_id,
        master_epoch=bs.master_epoch + 1,
        sync_state_set=kept | {e.new_master_id},
        sync_state_set_epoch=bs.sync_state_set_epoch + 1,
    )


def _alter(bs: BrokerSet | None, e: AlterSyncStateSet) -> BrokerSet | None:
    if (
        bs is None
        or bs.master_epoch != e.expected_master_epoch
        or bs.sync_state_set_epoch != e.expected_sync_state_set_epoch
        # A clean may have removed a member since the alter was decided.
        or not e.new_sync_state_set <= frozenset(bs.broker_ids)
    ):
        return bs
    return replace(bs, sync_state_set=e.new_sync_state_set, sync_state_set_epoch=bs.sync_state_set_epoch + 1)


def _clean(bs: BrokerSet | None, e: CleanBrokerData) -> BrokerSet | None:
    if bs is None or not e.broker_ids:
        return None
    replicas = tuple(r for r in bs.replicas if r.broker_id not in e.broker_ids)
    if not replicas:
        return None
    master = None if bs.master_id in e.broker_ids else bs.master_id
    preferred = None if bs.preferred_id in e.broker_ids else bs.preferred_id
    sync_state_set = bs.sync_state_set - e.broker_ids
    # Every change of the SyncStateSet bumps its epoch (Java does not for a clean), so an
    # AlterSyncStateSet decided before the clean is fenced instead of re-adding a cleaned id.
    sse = bs.sync_state_set_epoch + (sync_state_set != bs.sync_state_set)
    return replace(
        bs,
        replicas=replicas,
        master_id=master,
        sync_state_set=sync_state_set,
        sync_state_set_epoch=sse,
        preferred_id=preferred,
    )


def _assign_preferred(bs: BrokerSet | None, e: AssignPreferredMaster) -> BrokerSet | None:
    if bs is None or bs.preferred_id == e.broker_id:
        return bs
    if e.broker_id is not None and bs.replica(e.broker_id) is None:
        return bs
    return replace(bs, preferred_id=e.broker_id)


def _set_config(state: ControllerState, e: SetGroupConfig) -> ControllerState:
    if state.config_version != e.expected_config_version:
        return state
    config = MappingProxyType({**state.config, **e.values})
    return replace(state, config=config, config_version=state.config_version + 1)


def _transition(bs: BrokerSet | None, event: BrokerSetEvent) -> BrokerSet | None:
    """One broker set's next value; exhaustive like ``compute``, so mypy fails on an event type left out."""
    match event:
        case ApplyBrokerId():
            return _apply_broker_id(bs, event)
        case UpdateBrokerAddress():
            return _update_address(bs, event)
        case ElectMaster():
            return _elect(bs, event)
        case AlterSyncStateSet():
            return _alter(bs, event)
        case CleanBrokerData():
            return _clean(bs, event)
        case AssignPreferredMaster():
            return _assign_preferred(bs, event)
        case _:
            assert_never(event)


def apply_event(state: ControllerState, event: Event) -> ControllerState:
    """Apply one committed event; a stale event (its preconditions no longer hold) is a no-op."""
    return apply_events(state, (event,))


def apply_events(state: ControllerState, events: Iterable[Event]) -> ControllerState:
    """Apply committed events in order, copying the set table once for the whole batch."""
    sets: dict[str, BrokerSet] | None = None
    for event in events:
        if isinstance(event, SetGroupConfig):
            state = _set_config(state, event)
            continue
        if isinstance(event, MetadataEvent):
            state = apply_metadata(state, event)
            continue
        if sets is None:
            sets = dict(state.broker_sets)
        name = event.broker_name
        before = sets.get(name)
        after = _transition(before, event)
        if after is None:
            sets.pop(name, None)
        elif after is not before:
            sets[name] = after
    return state if sets is None else replace(state, broker_sets=MappingProxyType(sets))
