"""The consumer-group commands end to end: ``consumeMessage -g``, ``consumerProgress``,
``resetOffsetByTime`` and ``resetOffsetByOffset`` as real ``mqadmin`` processes against a sandbox of one controller
and one broker set of one replica. The topic and the group are created first (a send to an unknown topic is
refused), and the broker must have learnt them before it serves them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqadmin_py.sandbox import Sandbox
from tests.harness.sandbox import BROKER, Cli, learnt, serving_sandbox
from tests.harness.wait import wait_until

pytestmark = [pytest.mark.integration]

TOPIC = "CliOrders"
GROUP = "GID_cli"
QUEUES = 2
SENT = 6
INVISIBLE_MS = 10_000
"""The broker's shortest invisible duration: the --no-ack redelivery waits this long."""


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with serving_sandbox(Path(tmp_path_factory.mktemp("consumer-cli")), controllers=1, replicas=1) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def cli(box: Sandbox) -> Cli:
    run = Cli(box.dir, box.addresses())
    run.json("updateTopic", "-b", BROKER, "-t", TOPIC, "-r", str(QUEUES), "-w", str(QUEUES))
    made = run.json("updateSubGroup", "-b", BROKER, "-g", GROUP)
    wait_until(lambda: learnt(run, box, made["metadataVersion"]), 60, "the broker to learn the topic and the group")
    return run


def consume(cli: Cli, *extra: str) -> dict[str, Any]:
    """One ``consumeMessage -g`` run that must exit 0; `--wait 0`: nothing visible ends the run at once."""
    doc: dict[str, Any] = cli.json("consumeMessage", "-t", TOPIC, "-g", GROUP, "-c", "100", "--wait", "0", *extra)
    return doc


def progress(cli: Cli) -> dict[str, Any]:
    doc: dict[str, Any] = cli.json("consumerProgress", "-g", GROUP, "-t", TOPIC)
    return doc


def test_a_group_receives_each_message_once_and_resets_to_receive_them_again(cli: Cli) -> None:
    sent = cli.json("sendMessage", "-t", TOPIC, "-p", "m-{i}", "-c", "TagA", "-k", "order", "--count", str(SENT))
    ids = {r["msgId"] for r in sent["results"]}
    assert sent["sent"] == SENT and len(ids) == SENT

    first = consume(cli)
    assert (first["received"], first["acked"], first["ackFailed"]) == (SENT, SENT, 0)
    assert {m["msgId"] for m in first["messages"]} == ids
    assert {(m["deliveryAttempt"], m["tag"], m["keys"], m["acked"]) for m in first["messages"]} == {
        (1, "TagA", "order", True)}  # fmt: skip
    assert all(m["bodyDigest"] == hashlib.md5(m["body"].encode()).hexdigest().upper() for m in first["messages"])
    assert consume(cli)["received"] == 0  # acked: never delivered again

    queues = progress(cli)["queues"]
    assert len(queues) == QUEUES and sum(q["brokerOffset"] for q in queues) == SENT
    assert all(q["consumerOffset"] == q["brokerOffset"] and q["diff"] == 0 and q["inflight"] == 0 for q in queues)
    assert not any(q["belowMinOffset"] for q in queues)

    # Back to the first message's store time: every message is the group's again.
    since = str(min(m["storeTimestamp"] for m in first["messages"]))
    reset = cli.json("resetOffsetByTime", "-g", GROUP, "-t", TOPIC, "-s", since)
    [reset_set] = reset["brokerSets"]
    assert reset_set["reset"] and sorted((q["queueId"], q["offset"]) for q in reset_set["queues"]) == [(0, 0), (1, 0)]
    assert progress(cli)["diffTotal"] == SENT

    # Received without an ack: invisible for INVISIBLE_MS, then delivered again with attempt 2.
    held = consume(cli, "--no-ack", "--invisible-time", str(INVISIBLE_MS))
    assert (held["received"], held["acked"], held["ack"]) == (SENT, 0, False)
    assert {m["msgId"] for m in held["messages"]} == ids and all(m["deliveryAttempt"] == 1 for m in held["messages"])
    assert progress(cli)["inflightTotal"] == SENT
    again: list[dict[str, Any]] = []

    def back() -> bool | None:
        """Long polling waits for the invisibility to end; -c stops the run once every message is back."""
        left = str(SENT - len(again))
        again.extend(cli.json("consumeMessage", "-t", TOPIC, "-g", GROUP, "-c", left, "--wait", "20000")["messages"])
        return len(again) >= SENT or None

    wait_until(back, 90, "the unacked messages to come back")
    assert sorted(m["msgId"] for m in again) == sorted(ids)
    assert all(m["deliveryAttempt"] == 2 and m["acked"] for m in again)
    done = progress(cli)
    assert (done["diffTotal"], done["inflightTotal"]) == (0, 0)
    legacy = cli("consumerProgress", "-g", GROUP, "-t", TOPIC, "-o", "legacy").stdout.splitlines()
    assert legacy[0].split()[:4] == ["#Topic", "#Broker", "Name", "#QID"] and legacy[-2:] == [
        "Diff Total: 0", "Inflight Total: 0"]  # fmt: skip
    assert [line.split()[:3] for line in legacy[1 : 1 + QUEUES]] == [[TOPIC, BROKER, str(q)] for q in range(QUEUES)]

    # 'now' moves every queue to its end; one queue back to 0 makes its messages the group's again.
    [to_end] = cli.json("resetOffsetByTime", "-g", GROUP, "-t", TOPIC, "-s", "now")["brokerSets"]
    assert sorted((q["queueId"], q["offset"]) for q in to_end["queues"]) == [
        (q["queueId"], q["brokerOffset"]) for q in done["queues"]]  # fmt: skip
    moved = cli.json("resetOffsetByOffset", "-g", GROUP, "-t", TOPIC, "-b", BROKER, "-i", "0", "--offset", "0")
    assert (moved["queueId"], moved["offset"]) == (0, 0)
    [queue0] = [q for q in progress(cli)["queues"] if q["queueId"] == 0]
    assert queue0["consumerOffset"] == 0 and queue0["diff"] == queue0["brokerOffset"]
    table = cli("consumeMessage", "-t", TOPIC, "-g", GROUP, "-i", "0", "--wait", "0").stdout
    assert f"{TOPIC} for group {GROUP}: {queue0['brokerOffset']} received, {queue0['brokerOffset']} acked" in table
    assert consume(cli, "-i", "0")["received"] == 0


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("consumeMessage", "-t", TOPIC, "-g", "GID_unknown"), 1, "SUBSCRIPTION_GROUP_NOT_EXIST (26)"),
        (("consumeMessage", "-t", "NoSuchTopic", "-g", GROUP), 1, "TOPIC_NOT_EXIST (17)"),
        (("consumeMessage", "-t", TOPIC, "-g", GROUP, "-b", "broker-z"), 1, "does not serve topic"),
        (("consumerProgress", "-g", "GID_unknown"), 1, "SUBSCRIPTION_GROUP_NOT_EXIST (26)"),
        (("resetOffsetByTime", "-g", GROUP, "-t", "NoSuchTopic", "-s", "now"), 1, "TOPIC_NOT_EXIST (17)"),
    ],
)
def test_unknown_groups_topics_and_sets_exit_1_before_any_broker_is_asked(
    cli: Cli, args: tuple[str, ...], code: int, message: str
) -> None:
    result = cli(*args, ok=False)
    assert result.returncode == code and message in result.stderr, result.stderr


def test_a_disabled_group_and_an_unreadable_topic_are_refused_and_nothing_is_delivered(box: Sandbox, cli: Cli) -> None:
    cli.json("updateTopic", "-b", BROKER, "-t", "CliWriteOnly", "-r", "1", "-w", "1", "-p", "2")
    made = cli.json("updateSubGroup", "-b", BROKER, "-g", "GID_cli_off", "--consume-enable", "false")
    wait_until(lambda: learnt(cli, box, made["metadataVersion"]), 60, "the broker to learn the topic and the group")
    cli.json("sendMessage", "-t", "CliWriteOnly", "-p", "w-{i}", "--count", "2")
    sent = cli.json("sendMessage", "-t", TOPIC, "-p", "off-{i}", "--count", "2")
    assert sent["sent"] == 2

    off = cli("consumeMessage", "-t", TOPIC, "-g", "GID_cli_off", "--wait", "0", ok=False)
    assert off.returncode == 4 and "NO_PERMISSION (16)" in off.stderr and "consumeEnable=false" in off.stderr
    unreadable = cli("consumeMessage", "-t", "CliWriteOnly", "-g", GROUP, "--wait", "0", ok=False)
    assert unreadable.returncode == 4 and "NO_PERMISSION (16)" in unreadable.stderr, unreadable.stderr
    assert "not readable" in unreadable.stderr

    # Enabled again, the group gets what was sent while it was refused: the refusals changed nothing.
    made = cli.json("updateSubGroup", "-b", BROKER, "-g", "GID_cli_off", "--consume-enable", "true")
    wait_until(lambda: learnt(cli, box, made["metadataVersion"]), 60, "the broker to learn the enabled group")
    doc = cli.json("consumeMessage", "-t", TOPIC, "-g", "GID_cli_off", "-c", "1000", "--wait", "0")
    assert {r["msgId"] for r in sent["results"]} <= {m["msgId"] for m in doc["messages"]}
    assert all(m["deliveryAttempt"] == 1 for m in doc["messages"])


def test_a_topic_made_again_starts_after_the_old_ones_end_so_its_groups_progress_shows_nothing_to_replay(
    box: Sandbox, cli: Cli
) -> None:
    topic, group = "CliDeleted", "GID_cli_deleted"
    cli.json("updateTopic", "-b", BROKER, "-t", topic, "-r", "1", "-w", "1")
    made = cli.json("updateSubGroup", "-b", BROKER, "-g", group)
    wait_until(lambda: learnt(cli, box, made["metadataVersion"]), 60, "the broker to learn the topic and the group")
    ids = {r["msgId"] for r in cli.json("sendMessage", "-t", topic, "-p", "d-{i}", "--count", "3")["results"]}
    first = cli.json("consumeMessage", "-t", topic, "-g", group, "-c", "100", "--wait", "0")
    assert {m["msgId"] for m in first["messages"]} == ids and first["acked"] == 3
    [before] = cli.json("consumerProgress", "-g", group, "-t", topic)["queues"]
    assert (before["consumerOffset"], before["brokerOffset"]) == (3, 3)

    deleted = cli.json("deleteTopic", "-c", "DefaultCluster", "-t", topic)
    assert deleted["changed"]
    wait_until(lambda: learnt(cli, box, deleted["metadataVersion"]), 60, "the broker to learn the deletion")
    made = cli.json("updateTopic", "-b", BROKER, "-t", topic, "-r", "1", "-w", "1")
    wait_until(lambda: learnt(cli, box, made["metadataVersion"]), 60, "the broker to learn the topic again")

    [after] = cli.json("consumerProgress", "-g", group, "-t", topic)["queues"]
    assert (after["consumerOffset"], after["brokerOffset"], after["diff"]) == (3, 3, 0)
    again = cli.json("consumeMessage", "-t", topic, "-g", group, "-c", "100", "--wait", "0")
    assert again["messages"] == [] and again["acked"] == 0
