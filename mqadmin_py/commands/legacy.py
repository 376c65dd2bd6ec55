"""``-o legacy`` for the commands whose Java text is not a ``#Key\\tvalue`` list: clusterList's columns,
topicRoute's JSON, updateTopic's and getConsumerConfig's lines, laid out as Java's mqadmin prints them so that
scripts written against it (``awk '{print $4}'``, ``grep success``) read ours unchanged.

Each renderer takes the command's own document (clusterList's ClusterListDoc list, TopicRouteDoc, TopicChangeDoc,
GroupDoc); a value Java prints that we do not measure is ``-``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

Doc = Mapping[str, Any]
"""A command's document (its TypedDict): typed loosely here, since the command modules import this one."""

CLUSTER_LIST_FORMAT = "{:<22}  {:<22}  {:<4}  {:<22} {:<16}  {:>16}  {:>30}  {:<22}  {:<11}  {:<12}  {:<8}  {:<10}\n"
"""ClusterListSubCommand's printf widths."""
MASTER_ID = 0
"""Java's ``MixAll.MASTER_ID``: routes and clusterList name a set's master by id 0, whatever id the controller gave
it (a Java broker in controller mode takes id 0 when it becomes master)."""


def perm_text(perm: int) -> str:
    """Java's ``PermName.perm2String``: 6 → ``RW-``, 4 → ``R--``, 2 → ``-W-`` (X: inherited, bit 1)."""
    return "".join(flag if perm & bit else "-" for flag, bit in (("R", 4), ("W", 2), ("X", 1)))


def cluster_list(docs: Sequence[Doc]) -> str:
    """One line per replica under Java's header: a master's #BID is 0, as a Java broker in controller mode
    registers it; #InTPS/#OutTPS are its puts and gets per second (without Java's thread-pool figures);
    #ACTIVATED is whether it serves as master (elected or acting)."""
    header = ("#Cluster Name", "#Broker Name", "#BID", "#Addr", "#Version", "#InTPS(LOAD)", "#OutTPS(LOAD)",
              "#Timer(Progress)", "#PCWait(ms)", "#Hour", "#SPACE", "#ACTIVATED")  # fmt: skip
    lines = [CLUSTER_LIST_FORMAT.format(*header)]
    for d in docs:
        active = d["alive"] if d["role"] == "master" else bool(d["actingMaster"])
        bid = MASTER_ID if d["role"] == "master" else d["brokerId"]
        tps = ["-" if d.get(key) is None else f"{d[key]:9.2f}" for key in ("putTps", "getTps")]
        cells = [d["clusterName"], d["brokerName"], bid, d["brokerAddress"], d.get("version") or "-", *tps]
        lines.append(CLUSTER_LIST_FORMAT.format(*cells, *["-"] * 4, str(active).lower()))
    return "".join(lines)


def topic_route(doc: Doc) -> str:
    """TopicRouteData's JSON, as ``topicRoute`` prints it (``toJson(true)``): the sets' masters under id 0."""
    route = {
        "brokerDatas": [
            {"brokerAddrs": {} if s["masterAddress"] is None else {str(MASTER_ID): s["masterAddress"]},
             "brokerName": s["brokerName"], "cluster": doc["clusterName"], "enableActingMaster": False}
            for s in doc["brokerSets"]
        ],
        "filterServerTable": {},
        "queueDatas": [
            {"brokerName": s["brokerName"], "perm": s["perm"], "readQueueNums": s["readQueueNums"], "topicSysFlag": 0,
             "writeQueueNums": s["writeQueueNums"]}
            for s in doc["brokerSets"]
        ],
    }  # fmt: skip
    return json.dumps(route, indent="\t", separators=(",", ":")) + "\n"


def update_topic(doc: Doc) -> str:
    """``create topic to <set> success.`` per broker set, then Java's ``TopicConfig.toString``."""
    t = doc["topic"]
    attributes = "" if t["messageType"] == "NORMAL" else f"+message.type={t['messageType']}"
    config = (f"TopicConfig [topicName={t['topicName']}, readQueueNums={t['readQueueNums']}, "
              f"writeQueueNums={t['writeQueueNums']}, perm={perm_text(t['perm'])}, topicFilterType=SINGLE_TAG, "
              f"topicSysFlag=0, order=false, attributes={{{attributes}}}]\n")  # fmt: skip
    return "".join(f"create topic to {name} success.\n" for name in t["brokerNames"]) + config


def consumer_config(doc: Doc) -> str:
    """Per broker set serving the group, its ``SubscriptionGroupConfig`` fields as ``name  =  value`` lines."""
    fields = {
        "groupName": doc["groupName"],
        "consumeEnable": str(doc["consumeEnable"]).lower(),
        "consumeMessageOrderly": str(doc["consumeOrderly"]).lower(),
        "retryMaxTimes": doc["retryMaxTimes"],
        "groupRetryPolicy": json.dumps(doc["groupRetryPolicy"], separators=(",", ":")),
    }
    body = "".join(f"{name:<40}=  {value}\n" for name, value in fields.items())
    return "".join(f"============================={doc['clusterName']}:{name}=============================\n{body}"
                   for name in doc["brokerNames"])  # fmt: skip
