"""The ``-o json`` documents are typed (TypedDicts next to their commands), and the types say what docs/cli.md says.

mypy checks that every builder writes the keys its type names; these tests check the other side at run time: every
JSON example in docs/cli.md is an instance of the command's type (no key missing, none extra, each value of its
type), and so is what the builders make of protocol messages, whose fields mypy cannot see.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mqadmin_py.commands.broker import EpochDoc, HaDoc, HaUnreachableDoc, ResetFlushDoc
from mqadmin_py.commands.cluster import UpdateBrokerConfigDoc
from mqadmin_py.commands.connections import ConsumerConnectionDoc, ConsumerStatusDoc, ProducerConnectionDoc
from mqadmin_py.commands.container import HostedBrokerDoc
from mqadmin_py.commands.controller import (
    ConfigNodeDoc,
    ElectMasterDoc,
    MetadataDoc,
    SyncStateDoc,
    SyncStateViewDoc,
    UnreachableNodeDoc,
    UpdateConfigDoc,
    _sync_state_docs,
    with_acting,
)
from mqadmin_py.commands.epochs import CollectDoc, ServeDoc
from mqadmin_py.commands.group_offsets import CloneDoc
from mqadmin_py.commands.messages import ConsumeDoc, GroupConsumeDoc, SendDoc
from mqadmin_py.commands.offsets import ConsumerProgressDoc, ResetByOffsetDoc, ResetByTimeDoc
from mqadmin_py.commands.perm import OrderConfDoc, TopicClusterDoc, TopicPermDoc, WritePermDoc
from mqadmin_py.commands.preferred import PreferredDoc
from mqadmin_py.commands.query import ConsumeQueueDoc, MessagesDoc
from mqadmin_py.commands.sandbox import SandboxDoc
from mqadmin_py.commands.stats import BrokerStatusDoc, DeletedLogDoc, StatsAllDoc
from mqadmin_py.commands.topic import (
    DeletedDoc,
    GroupChangeDoc,
    GroupDoc,
    TopicChangeDoc,
    TopicListDoc,
    TopicRouteDoc,
    TopicStatusDoc,
)
from mqadmin_py.commands.transactions import StatusDoc
from mqadmin_py.commands.transfer import TransferMasterDoc
from mqadmin_py.commands.wait import WaitedLeaderDoc, WaitedSetDoc
from mqbase.proto import controller_pb2 as pb
from tests.harness.json_types import problems

CLI_MD = Path(__file__).resolve().parents[3] / "docs" / "cli.md"


def test_the_checker_sees_a_missing_an_extra_and_a_mistyped_key() -> None:
    doc = {"brokerAddress": "h:1", "offset": 1, "remark": "ok"}
    assert problems(doc, ResetFlushDoc) == []
    assert problems({**doc, "extra": 1}, ResetFlushDoc) == ["$.extra: not a key of ResetFlushDoc"]
    assert problems({"brokerAddress": "h:1", "offset": 1}, ResetFlushDoc) == ["$.remark: missing (ResetFlushDoc)"]
    assert problems({**doc, "offset": True}, ResetFlushDoc) == ["$.offset: True, want int"]
    assert problems([{"address": "a", "reachable": True, "error": "e"}], list[UnreachableNodeDoc]) == [
        "$[0].reachable: True is none of (False,)"
    ]


def _json_examples() -> dict[str, list[Any]]:
    """docs/cli.md's ```json blocks, by the heading above them."""
    examples: dict[str, list[Any]] = {}
    heading = ""
    for match in re.finditer(r"^(#+ [^\n]*)$|^```(\w*)\n(.*?)^```$", CLI_MD.read_text(), re.M | re.S):
        if match.group(1):
            heading = match.group(1)
        elif match.group(2) == "json":
            examples.setdefault(heading, []).append(json.loads(match.group(3)))
    return examples


DOCUMENTED: dict[str, Any] = {
    "getControllerMetaData": MetadataDoc,
    "getSyncStateSet": list[SyncStateViewDoc],
    "getBrokerEpoch": list[EpochDoc],
    "electMaster": ElectMasterDoc,
    "getControllerConfig": list[ConfigNodeDoc | UnreachableNodeDoc],
    "updateControllerConfig": UpdateConfigDoc,
    "haStatus": list[HaDoc | HaUnreachableDoc],
    "updateBrokerConfig": UpdateBrokerConfigDoc,
    "resetMasterFlushOffset": ResetFlushDoc,
    "sendMessage": SendDoc,
    "transactionStatus": StatusDoc,
    "consumeMessage": ConsumeDoc,
    "consumeMessage -a ADDRS -t topic -g": GroupConsumeDoc,
    "Container": list[HostedBrokerDoc],  # listBrokers
    "Waiting": WaitedSetDoc,  # wait master / insync
    "assign-preferred-master": PreferredDoc,
    "transferMaster": TransferMasterDoc,
    "Sandbox": SandboxDoc,  # sandbox up / status
    "epochs collect": CollectDoc,
    "epochs serve": ServeDoc,
    "updateTopic": TopicChangeDoc,
    "updateSubGroup": GroupChangeDoc,
    "deleteTopic": DeletedDoc,
    "topicList": TopicListDoc,
    "topicRoute": TopicRouteDoc,
    "topicStatus": TopicStatusDoc,
    "getConsumerConfig": GroupDoc,
    "consumerProgress": ConsumerProgressDoc,
    "resetOffsetByTime": ResetByTimeDoc,
    "resetOffsetByOffset": ResetByOffsetDoc,
    "queryMsgByKey": MessagesDoc,  # the message query commands share one document
    "queryCq": ConsumeQueueDoc,
    "brokerStatus": list[BrokerStatusDoc],
    "statsAll": StatsAllDoc,
    "deleteExpiredCommitLog": list[DeletedLogDoc],
    "consumerConnection": ConsumerConnectionDoc,
    "producerConnection": ProducerConnectionDoc,
    "consumerStatus": ConsumerStatusDoc,
    "topicClusterList": TopicClusterDoc,
    "updateTopicPerm": TopicPermDoc,
    "wipeWritePerm": WritePermDoc,
    "updateOrderConf": OrderConfDoc,
    "cloneGroupOffset": CloneDoc,
}


def _command_of(heading: str) -> str | None:
    """The documented command a heading is about: the longest DOCUMENTED key it names (``consumeMessage ... -g``
    is not ``consumeMessage``)."""
    named = [command for command in DOCUMENTED if command in heading]
    return max(named, key=len) if named else None


@pytest.mark.parametrize("command", DOCUMENTED)
def test_the_documented_json_example_is_an_instance_of_the_commands_type(command: str) -> None:
    examples = [doc for heading, docs in _json_examples().items() if _command_of(heading) == command for doc in docs]
    assert len(examples) == 1, f"want one json example under a docs/cli.md heading naming {command}"
    assert problems(examples[0], DOCUMENTED[command]) == []


def test_the_documented_wait_quorum_json_is_an_instance_of_its_type() -> None:
    match = re.search(r"JSON of `quorum`: `(\{.*?\})`", CLI_MD.read_text(), re.S)
    assert match is not None
    assert problems(json.loads(match.group(1)), WaitedLeaderDoc) == []


def test_every_documented_json_example_has_a_type() -> None:
    headings = [h for h in _json_examples() if _command_of(h) is None]
    assert headings == []


def _transfer(state: str) -> pb.TransferRecord:
    return pb.TransferRecord(state=state, trigger="admin", from_broker_id=-1, to_broker_id=2, final_offset=-1)


def test_sync_state_documents_built_from_the_wire_are_instances_of_their_type() -> None:
    replica = pb.ReplicaIdentity(broker_id=1, broker_address="h:1", ha_address="h:2", alive=True)
    full = pb.ReplicasInfo(cluster_name="c", broker_name="b", master_broker_id=1, master_address="h:1",
                           master_epoch=3, sync_state_set_epoch=4, preferred_broker_id=1, in_sync_replicas=[replica],
                           last_transfer=_transfer("done"), last_refusal=_transfer("refused"),
                           preferred_master_blocked_by="not in sync")  # fmt: skip
    empty = pb.ReplicasInfo(cluster_name="c", broker_name="e")  # no master, no preference, no transfer
    docs = _sync_state_docs(pb.GetSyncStateDataResponse(replicas_info=[full, empty]))
    assert docs[0]["lastTransfer"] is not None and docs[1]["masterBrokerId"] is None  # both shapes are exercised
    assert problems(json.loads(json.dumps(docs)), list[SyncStateDoc]) == []
    views = [with_acting(docs[0], {1: 0}), with_acting(docs[1], {1: 1_700_000_000_000, 2: None})]
    assert views[1]["actingMaster"] == 1 and views[0]["actingMaster"] is None  # both shapes are exercised
    assert problems(json.loads(json.dumps(views)), list[SyncStateViewDoc]) == []
