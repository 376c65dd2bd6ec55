"""Moving a group's offsets wholesale: cloneGroupOffset and skipAccumulatedMessage, Java's names.

Both work like resetOffsetByTime (``offsets.py``): the controllers say which broker sets serve the topic and where
their masters are, each master changes the group's committed offsets (replicated with its messages), and the
group and topic must exist in the controllers' metadata so that a mistyped name changes nothing.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

import typer

from mqadmin_py.commands.common import agent_client, check, checked, cluster_name_option, controller_client
from mqadmin_py.commands.messages import call_master
from mqadmin_py.commands.offsets import ResetQueueDoc, _force, reset_offset_by_time
from mqadmin_py.commands.perm import scope_problem
from mqadmin_py.commands.topic import GroupOpt, TopicOpt, find_group, find_topic, group_name, metadata_of, set_masters
from mqadmin_py.options import ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table
from mqbase.codes import ResponseCode
from mqbase.errors import MqError, OperationFailed, Refused

# --- skipAccumulatedMessage ---------------------------------------------------------------------


def skip_accumulated_message(
    controller: ControllerOpt,
    group: GroupOpt,
    topic: TopicOpt,
    force: Annotated[
        str | None,
        typer.Option(
            "-f", "--force", help="Java's switch: only true (its default).", metavar="true", callback=checked(_force)
        ),
    ] = None,
    cluster_name: Annotated[
        str | None, cluster_name_option("-c", "--cluster", help="The topic's cluster (checked).")
    ] = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 5.0,
) -> None:
    """Skip every message a group has not consumed on a topic: its offsets move to the end of every queue, on
    every broker set serving it (resetOffsetByTime -s now; same output, same exit codes).

    A -c other than the topic's cluster is exit 1 (2008) and nothing changes.
    """
    if cluster_name is not None:
        with controller_client(controller, timeout) as client:
            if problem := scope_problem(find_topic(metadata_of(client), topic), cluster_name, None):
                code = ResponseCode.CONTROLLER_BROKER_METADATA_NOT_EXIST
                raise OperationFailed(code, code.name, problem)
    reset_offset_by_time(controller, group, topic, "now", force, None, output, timeout)


# --- cloneGroupOffset ---------------------------------------------------------------------------


class CloneSetDoc(TypedDict):
    """One broker set: the offsets written for the destination group, or why not (then `queues` is empty)."""

    brokerName: str
    brokerAddress: str | None
    cloned: bool
    error: str | None
    queues: list[ResetQueueDoc]


class CloneDoc(TypedDict):
    srcGroup: str
    destGroup: str
    topic: str
    brokerSets: list[CloneSetDoc]


def _clone_on(agents: Any, name: str, address: str, src: str, dest: str, topic: str, timeout: float) -> CloneSetDoc:
    """Copy `src`'s committed offsets of `topic` on one set's master to `dest`."""
    from mqbase.proto import agent_pb2 as pb

    doc: CloneSetDoc = {"brokerName": name, "brokerAddress": address, "cloned": False, "error": None, "queues": []}
    ref = pb.BrokerRef(broker_name=name)
    try:
        request = pb.GetConsumerProgressRequest(broker=ref, group=src, topic=topic)
        r, master, _ = call_master(agents, address, "GetConsumerProgress", request, timeout)
        doc["brokerAddress"] = master
        check(r)
        for q in sorted(r.queues, key=lambda q: q.queue_id):
            update = pb.UpdateConsumerOffsetRequest(broker=ref, group=dest, topic=topic, queue_id=q.queue_id,
                                                    offset=q.consumer_offset)  # fmt: skip
            check(agents.call(master, "UpdateConsumerOffset", update))
            doc["queues"].append({"queueId": q.queue_id, "offset": q.consumer_offset})
    except MqError as exc:
        doc["error"] = str(exc)
        return doc
    doc["cloned"] = True
    return doc


def clone_group_offset(
    controller: ControllerOpt,
    src_group: Annotated[
        str, typer.Option("-s", "--srcGroup", help="The group to copy from.", callback=checked(group_name))
    ],
    dest_group: Annotated[
        str, typer.Option("-d", "--destGroup", help="The group to copy to.", callback=checked(group_name))
    ],
    topic: TopicOpt,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 5.0,
) -> None:
    """Give a group the committed offsets another group has on a topic, queue by queue on every broker set serving
    it: the destination then consumes from where the source is. Its inflight messages of those queues are dropped.

    Both groups and the topic must exist (exit 1 otherwise); every set must have a master first (exit 4, nothing
    changed). A set that fails is listed with its error and the command exits with it after the others.
    Java's -o (offline) is not taken: -o is the output format, and the offsets are copied the same way.
    """
    if src_group == dest_group:
        raise typer.BadParameter("the source and destination groups are the same", param_hint="'-d'")
    with controller_client(controller, timeout) as client:
        metadata_ = metadata_of(client)
        find_group(metadata_, src_group)
        find_group(metadata_, dest_group)
        masters = set_masters(client, find_topic(metadata_, topic).broker_names)
    if masterless := [name for name, address in masters.items() if address is None]:
        raise Refused(f"broker set(s) {', '.join(masterless)} have no master now: nothing was cloned; wait for one "
                      "('mqadmin wait master -bn NAME')")  # fmt: skip
    with agent_client(timeout) as agents:
        sets = [_clone_on(agents, name, address or "", src_group, dest_group, topic, timeout)
                for name, address in masters.items()]  # fmt: skip
    doc: CloneDoc = {"srcGroup": src_group, "destGroup": dest_group, "topic": topic, "brokerSets": sets}

    def table(d: CloneDoc) -> None:
        rows: list[list[object]] = [[s["brokerName"], q["queueId"], q["offset"]] for s in d["brokerSets"]
                                    for q in s["queues"]]  # fmt: skip
        rows += [[s["brokerName"], None, s["error"]] for s in d["brokerSets"] if not s["cloned"]]
        emit_table(f"Offsets of {d['srcGroup']} on {d['topic']} cloned to {d['destGroup']}",
                   ["Broker set", "QID", "Offset"], rows)  # fmt: skip

    def legacy(d: CloneDoc) -> str:
        return (f"clone group offset success. srcGroup[{d['srcGroup']}], destGroup=[{d['destGroup']}], "
                f"topic[{d['topic']}]\n")  # fmt: skip

    emit(doc, output, table, legacy)
    failed = [s for s in sets if not s["cloned"]]
    if failed:
        raise OperationFailed(-1, "FAILED", f"{failed[0]['brokerName']} not cloned: {failed[0]['error']}")
