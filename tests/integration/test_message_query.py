"""Message query against a real sandbox: by key, unique key, offset id and queue offset, printMsg and
queryCq, on the master, on a slave with --brokerAddr, and on the new master after a SIGKILL of the old one.

One sandbox (3 controllers, one broker set of 3 replicas) serves the module; the tests run in file order and the
failover test comes last but one, so each states what it relies on.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest

from mqadmin_py.message_id import decode_offset_id
from tests.harness.sandbox import BROKER, CLUSTER, Cli
from tests.harness.wait import wait_until

TOPIC = "Lookup"


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cli]:
    run = Cli(tmp_path_factory.mktemp("query") / "sandbox")
    up = run.json("sandbox", "up", "--timeout", "120")
    run.env["MQADMIN_CONTROLLERS"] = ";".join(c["address"] for c in up["controllers"])
    try:
        yield run
    finally:
        run.json("sandbox", "down")


@pytest.fixture(scope="module")
def sent(cli: Cli) -> list[dict[str, Any]]:
    """Three messages with the keys ``Order-1 shared`` and one with ``Other``, all PUT_OK."""
    cli.json("updateTopic", "-c", CLUSTER, "-t", TOPIC, "-r", "4", "-w", "4")
    keyed = cli.json("sendMessage", "-t", TOPIC, "-p", "body-{i}", "-k", "Order-1 shared", "-c", "TagA", "--count", "3")
    other = cli.json("sendMessage", "-t", TOPIC, "-p", "other", "-k", "Other", "-c", "TagB")
    results: list[dict[str, Any]] = keyed["results"] + other["results"]
    assert all(r["status"] == "PUT_OK" for r in results)
    return results


def sync_state(cli: Cli) -> dict[str, Any]:
    [doc] = cli.json("getSyncStateSet", "-b", BROKER)
    return doc  # type: ignore[no-any-return]


def where(m: dict[str, Any]) -> tuple[int, int, int]:
    return m["queueId"], m["queueOffset"], m["commitLogOffset"]


def test_query_by_key_finds_every_message_with_the_key_on_the_master(cli: Cli, sent: list[dict[str, Any]]) -> None:
    master = sync_state(cli)["masterAddress"]
    doc = cli.json("queryMsgByKey", "-t", TOPIC, "-k", "shared")
    found = doc["messages"]
    assert sorted(m["body"] for m in found) == ["body-0", "body-1", "body-2"]
    assert sorted(where(m) for m in found) == sorted(where(r) for r in sent[:3])
    assert [m["commitLogOffset"] for m in found] == sorted((m["commitLogOffset"] for m in found), reverse=True)
    for m in found:
        assert m["topic"] == TOPIC and m["storeHost"] == master and m["brokerName"] == BROKER
        assert m["keys"] == "Order-1 shared" and m["tags"] == "TagA" and m["properties"]["KEYS"] == "Order-1 shared"
        assert decode_offset_id(m["offsetMsgId"]) == (master, m["commitLogOffset"])
        assert m["msgId"] in {r["msgId"] for r in sent}
    assert [m["body"] for m in cli.json("queryMsgByKey", "-t", TOPIC, "-k", "Other")["messages"]] == ["other"]
    assert cli.json("queryMsgByKey", "-t", TOPIC, "-k", "Order-1 shared")["messages"] == []  # a key is one word
    assert len(cli.json("queryMsgByKey", "-t", TOPIC, "-k", "shared", "-m", "2")["messages"]) == 2
    future = cli.json("queryMsgByKey", "-t", TOPIC, "-k", "shared", "-b", "4102444800000")  # 2100-01-01
    assert future["messages"] == []
    legacy = cli("queryMsgByKey", "-t", TOPIC, "-k", "Other", "-o", "legacy").stdout
    assert legacy.splitlines()[0].split() == ["#Message", "ID", "#QID", "#Offset"]
    assert legacy.splitlines()[1].split() == [sent[3]["msgId"], str(sent[3]["queueId"]), str(sent[3]["queueOffset"])]


def test_unique_key_offset_id_and_queue_offset_find_the_same_message(cli: Cli, sent: list[dict[str, Any]]) -> None:
    first = sent[0]
    [by_unique] = cli.json("queryMsgByUniqueKey", "-t", TOPIC, "-i", first["msgId"])["messages"]
    assert by_unique["body"] == "body-0" and where(by_unique) == where(first)
    [by_id] = cli.json("queryMsgById", "-i", by_unique["offsetMsgId"])["messages"]
    assert by_id == by_unique
    args = ["-t", TOPIC, "-b", BROKER, "-i", str(first["queueId"]), "-o", str(first["queueOffset"])]
    [by_offset] = json.loads(cli("queryMsgByOffset", *args, "--output", "json").stdout)["messages"]  # -o: offset
    assert by_offset == by_unique
    hexed = cli.json("queryMsgById", "-i", by_unique["offsetMsgId"], "--body-format", "hex")["messages"][0]
    assert bytes.fromhex(hexed["body"]) == b"body-0" and hexed["bodyFormat"] == "hex"
    b64 = cli.json("queryMsgByUniqueKey", "-t", TOPIC, "-i", first["msgId"], "--body-format", "base64")["messages"]
    assert base64.b64decode(b64[0]["body"]) == b"body-0"
    legacy = cli("queryMsgById", "-i", by_unique["offsetMsgId"], "-o", "legacy").stdout
    assert (
        f"CommitLog Offset:    {first['commitLogOffset']}" in legacy
        and "Keys:                [Order-1 shared]" in legacy
    )
    table = cli("queryMsgById", "-i", by_unique["offsetMsgId"]).stdout
    assert "StoreTime" in table and "body-0" in table
    missing = cli("queryMsgByUniqueKey", "-t", TOPIC, "-i", "NOPE", ok=False)
    assert missing.returncode == 1 and "no message of Lookup has the unique key NOPE" in missing.stderr


def test_print_msg_and_query_cq_walk_the_queues(cli: Cli, sent: list[dict[str, Any]]) -> None:
    printed = cli.json("printMsg", "-t", TOPIC)["messages"]
    assert sorted(m["body"] for m in printed) == ["body-0", "body-1", "body-2", "other"]
    assert [m["body"] for m in cli.json("printMsg", "-t", TOPIC, "-s", "TagB")["messages"]] == ["other"]
    assert all(m["body"] is None for m in cli.json("printMsg", "-t", TOPIC, "-d", "false")["messages"])
    first = sent[0]
    queue = cli.json("printMsgByQueue", "-t", TOPIC, "-bn", BROKER, "-i", str(first["queueId"]), "-d", "true",
                     "-b", "0", "-e", "now")["messages"]  # fmt: skip
    assert {where(m) for m in queue} == {where(r) for r in sent if r["queueId"] == first["queueId"]}
    assert cli.json("printMsgByQueue", "-t", TOPIC, "-bn", BROKER, "-i", str(first["queueId"]),
                    "-e", "1000")["messages"] == []  # fmt: skip
    cq = cli.json("queryCq", "-t", TOPIC, "-q", str(first["queueId"]), "-bn", BROKER)
    assert cq["minOffset"] == 0 and cq["maxOffset"] == len(queue)
    assert [(e["queueOffset"], e["commitLogOffset"]) for e in cq["entries"]] == sorted(
        (m["queueOffset"], m["commitLogOffset"]) for m in queue
    )


def test_bad_input_is_a_usage_error(cli: Cli, sent: list[dict[str, Any]]) -> None:
    for args in (["queryMsgById", "-i", "XYZ"], ["queryMsgByKey", "-t", TOPIC, "-k", "k", "--body-format", "xml"],
                 ["queryMsgByKey", "-t", TOPIC, "-k", "k", "-b", "yesterday"], ["printMsg", "-t", TOPIC, "-d", "maybe"],
                 ["queryCq", "-t", TOPIC, "-q", "0"]):  # fmt: skip
        result = cli(*args, ok=False)
        assert result.returncode == 2, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_slave_answers_with_broker_addr(cli: Cli, sent: list[dict[str, Any]]) -> None:
    state = sync_state(cli)
    slave = next(r["brokerAddress"] for r in state["inSyncReplicas"] if r["brokerId"] != state["masterBrokerId"])

    def found_on_slave() -> list[dict[str, Any]] | None:  # the slave confirms a moment after the master
        found: list[dict[str, Any]] = cli.json("queryMsgByKey", "-t", TOPIC, "-k", "shared", "--brokerAddr", slave)[
            "messages"
        ]
        return found if len(found) == 3 else None

    found = wait_until(found_on_slave, 30, "the slave's index finds the three messages")
    assert sorted(where(m) for m in found) == sorted(where(r) for r in sent[:3])
    assert all(m["storeHost"] == slave for m in found)
    [by_id] = cli.json("queryMsgById", "-i", found[0]["offsetMsgId"], "--brokerAddr", slave)["messages"]
    assert where(by_id) == where(found[0])
    cq = cli.json("queryCq", "-t", TOPIC, "-q", str(sent[0]["queueId"]), "-b", slave)
    assert cq["brokerAddress"] == slave and cq["entries"]


def test_messages_found_before_a_sigkill_of_the_master_are_found_on_the_new_master(
    cli: Cli, sent: list[dict[str, Any]]
) -> None:
    before = cli.json("queryMsgByKey", "-t", TOPIC, "-k", "shared")["messages"]
    old_id = before[0]["offsetMsgId"]
    state = sync_state(cli)
    killed = cli.json("sandbox", "kill", "master", "-bn", BROKER)
    assert killed["brokerAddress"] == state["masterAddress"]
    after = cli.json("wait", "master", "-bn", BROKER, "--other-than", str(state["masterBrokerId"]), "--timeout", "30")
    try:
        found = cli.json("queryMsgByKey", "-t", TOPIC, "-k", "shared")["messages"]
        assert [where(m) for m in found] == [where(m) for m in before]
        assert all(m["storeHost"] == after["masterAddress"] for m in found)
        [by_id] = cli.json("queryMsgById", "-i", old_id)["messages"]  # the dead master's id: its set's new master
        assert where(by_id) == where(before[0]) and by_id["storeHost"] == after["masterAddress"]
        [by_unique] = cli.json("queryMsgByUniqueKey", "-t", TOPIC, "-i", before[0]["msgId"])["messages"]
        assert where(by_unique) == where(before[0])
    finally:
        cli("sandbox", "start", killed["id"])
        cli.json("wait", "insync", "-bn", BROKER, "--timeout", "60")
