"""``mqadmin transferMaster`` and the producer side of a transfer, without a cluster.

The command runs against a scripted stand-in for the controller client (its answers are hand-built
TransferMasterResponse protos); sendMessage's retry loop (``_send_one``) against a scripted agent client and a
fake clock, so retries are counted exactly and nothing sleeps.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from typing import Any

import pytest
from typer.testing import CliRunner

from mqadmin_py.app import app
from mqadmin_py.commands import messages
from mqadmin_py.commands import transfer as transfer_cmd
from mqadmin_py.commands.messages import Locate, SendOutcomeDoc
from mqadmin_py.commands.transfer import TransferMasterDoc, _legacy, _table, transfer_doc, transfer_summary
from mqbase.errors import BrokerUnavailable, MqError, OperationFailed, Refused, TimedOut
from mqbase.ports import free_ports
from mqbase.proto import agent_pb2
from mqbase.proto import controller_pb2 as pb
from tests.harness.processes import run_mqadmin

DONE = pb.TransferRecord(
    state="done", trigger="admin", from_broker_id=1, to_broker_id=2, from_master_epoch=1, to_master_epoch=2,
    started_at_millis=1_795_357_373_129, duration_millis=11, writes_paused_millis=9, final_offset=990,
)  # fmt: skip
ABORTED = pb.TransferRecord(
    state="aborted", trigger="preferred", from_broker_id=1, to_broker_id=3, from_master_epoch=4,
    reason="broker 3 acknowledged 10, not the final offset 990, within 3000 ms", started_at_millis=5,
    duration_millis=3004, writes_paused_millis=3001, final_offset=990,
)  # fmt: skip
REFUSED = pb.TransferRecord(
    state="refused", trigger="admin", from_broker_id=-1, to_broker_id=2, from_master_epoch=0,
    reason="broker set b has no master; elect one first (mqadmin electMaster)", started_at_millis=7,
    final_offset=-1,
)  # fmt: skip


# --- transfer_doc / transfer_summary ------------------------------------------------------------


def test_transfer_doc_of_a_done_transfer_is_the_documented_schema() -> None:
    assert transfer_doc(DONE) == {
        "state": "done", "trigger": "admin", "fromBrokerId": 1, "toBrokerId": 2, "fromMasterEpoch": 1,
        "toMasterEpoch": 2, "reason": None, "startedAtMillis": 1_795_357_373_129, "durationMillis": 11,
        "writesPausedMillis": 9, "finalOffset": 990,
    }  # fmt: skip


def test_transfer_doc_turns_the_proto_sentinels_into_null() -> None:
    doc = transfer_doc(REFUSED)
    assert (doc["fromBrokerId"], doc["toMasterEpoch"], doc["finalOffset"]) == (None, None, None)
    assert doc["reason"] == REFUSED.reason
    assert (doc["durationMillis"], doc["writesPausedMillis"]) == (0, 0)
    assert transfer_doc(pb.TransferRecord(from_broker_id=0, final_offset=0))["finalOffset"] == 0, "0 is an offset"


@pytest.mark.parametrize(
    ("record", "line"),
    [
        pytest.param(DONE, "1 -> 2 done (masterEpoch 1 -> 2), writes paused 9 ms, final offset 990", id="done"),
        pytest.param(ABORTED, f"1 -> 3 aborted: {ABORTED.reason}", id="aborted"),
        pytest.param(REFUSED, f"null -> 2 refused: {REFUSED.reason}", id="refused_without_master"),
        pytest.param(
            pb.TransferRecord(state="running", from_broker_id=1, to_broker_id=2, final_offset=-1),
            "1 -> 2 running",
            id="running",
        ),
    ],
)
def test_transfer_summary(record: pb.TransferRecord, line: str) -> None:
    assert transfer_summary(transfer_doc(record)) == line


# --- the command against a scripted controller ------------------------------------------------------


class ScriptedController:
    """Stands in for ControllerClient: records the calls and answers with the scripted response."""

    def __init__(self, response: pb.TransferMasterResponse) -> None:
        self.response = response
        self.calls: list[tuple[str, Any]] = []
        self.timeouts: list[float] = []

    def __enter__(self) -> ScriptedController:
        return self

    def __exit__(self, *_exc: object) -> None:
        pass

    def call(self, method: str, request: Any) -> Any:
        self.calls.append((method, request))
        return self.response


def answer(
    *,
    code: int = 0,
    remark: str = "",
    transfer: pb.TransferRecord | None = None,
    dry_run: bool = False,
    allowed: bool = True,
    warnings: Iterable[str] = (),
    master: int | None = 2,
    preferred: int | None = None,
) -> pb.TransferMasterResponse:
    r = pb.TransferMasterResponse(
        code=code, remark=remark, cluster_name="c", broker_name="b", dry_run=dry_run, allowed=allowed,
        warnings=list(warnings), master_epoch=2, master_max_offset=990, target_max_offset=-1,
    )  # fmt: skip
    if transfer is not None:
        r.transfer.CopyFrom(transfer)
    if master is not None:
        r.master_broker_id = master
    if preferred is not None:
        r.preferred_broker_id = preferred
    return r


def invoke(
    monkeypatch: pytest.MonkeyPatch, response: pb.TransferMasterResponse, *extra: str
) -> tuple[Any, ScriptedController]:
    client = ScriptedController(response)

    def controller_client(addresses: str, timeout: float) -> ScriptedController:
        assert addresses == "h:1"
        client.timeouts.append(timeout)
        return client

    monkeypatch.setattr(transfer_cmd, "controller_client", controller_client)
    args = ["transferMaster", "-a", "h:1", "-c", "c", "-bn", "b", "-b", "2", *extra]
    return CliRunner().invoke(app, args), client


def test_a_done_transfer_prints_the_documented_json_and_exits_0(monkeypatch: pytest.MonkeyPatch) -> None:
    result, client = invoke(monkeypatch, answer(transfer=DONE), "-o", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "clusterName": "c", "brokerName": "b", "brokerId": 2, "dryRun": False, "allowed": True,
        "alreadyMaster": False, "state": "done", "reason": None, "warnings": [], "masterBrokerId": 2,
        "masterEpoch": 2, "preferredBrokerId": None, "masterMaxOffset": 990, "targetMaxOffset": None,
        "transfer": transfer_doc(DONE),
    }  # fmt: skip
    ((method, request),) = client.calls
    assert method == "TransferMaster"
    assert request == pb.TransferMasterRequest(cluster_name="c", broker_name="b", broker_id=2)
    assert client.timeouts == [transfer_cmd.DEFAULT_BUDGET_S + transfer_cmd.RPC_MARGIN_S]


def test_the_timeout_becomes_milliseconds_and_widens_the_rpc_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    result, client = invoke(monkeypatch, answer(transfer=DONE), "--timeout", "2.5", "-o", "json")
    assert result.exit_code == 0, result.output
    assert client.calls[0][1].timeout_millis == 2500
    assert client.timeouts == [2.5 + transfer_cmd.RPC_MARGIN_S]


@pytest.mark.parametrize("timeout", ["0.05", "61", "0"])
def test_a_timeout_out_of_range_is_a_usage_error(monkeypatch: pytest.MonkeyPatch, timeout: str) -> None:
    result, client = invoke(monkeypatch, answer(transfer=DONE), "--timeout", timeout)
    assert result.exit_code == 2
    assert client.calls == []


def test_a_done_transfer_in_table_and_legacy_form(monkeypatch: pytest.MonkeyPatch) -> None:
    result, _ = invoke(monkeypatch, answer(transfer=DONE, preferred=2))
    assert result.exit_code == 0, result.output
    assert "b: master 1 -> 2 done (masterEpoch 1 -> 2), writes paused 9 ms, final offset 990" in result.stdout
    assert "MasterMaxOffset" in result.stdout
    result, _ = invoke(monkeypatch, answer(transfer=DONE), "-o", "legacy")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "#ClusterName\tc\n#BrokerName\tb\n#TargetBrokerId\t2\n#DryRun\tfalse\n#Allowed\ttrue\n#State\tdone\n"
        "#Reason\tnull\n#MasterBrokerId\t2\n#MasterEpoch\t2\n#WritesPausedMillis\t9\n#FinalOffset\t990\n"
    )


def test_an_allowed_dry_run_exits_0_and_shows_the_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    response = answer(dry_run=True, master=1, warnings=["broker 1 is the preferred master; the scan moves it back"])
    result, client = invoke(monkeypatch, response, "--dry-run")
    assert result.exit_code == 0, result.output
    assert client.calls[0][1].dry_run is True
    assert "b: dry run, master 1 -> 2 allowed" in result.stdout
    assert "mqadmin: note: broker 1 is the preferred master; the scan moves it back" in result.stderr
    result, _ = invoke(monkeypatch, response, "--dry-run", "-o", "legacy")
    assert "#DryRun\ttrue\n#Allowed\ttrue\n#State\tnull\n" in result.stdout
    assert "#WritesPausedMillis\tnull\n#FinalOffset\tnull\n" in result.stdout


@pytest.mark.parametrize("extra", [(), ("--dry-run",)])
def test_a_target_that_already_is_master_is_a_no_op_with_exit_0(
    monkeypatch: pytest.MonkeyPatch, extra: tuple[str, ...]
) -> None:
    """Like electMaster, so a runbook under set -e can run it again (it once exited 4)."""
    remark = "broker 2 is already the master of b (masterEpoch 2); nothing to do"
    response = answer(remark=remark, master=2, dry_run=bool(extra))
    result, _ = invoke(monkeypatch, response, *extra)
    assert result.exit_code == 0, result.output
    assert "b: broker 2 already master (no change)" in result.stdout
    result, _ = invoke(monkeypatch, response, *extra, "-o", "json")
    doc = json.loads(result.stdout)
    assert (doc["alreadyMaster"], doc["state"], doc["reason"], doc["transfer"]) == (True, None, remark, None)


def test_a_dry_run_that_would_be_refused_exits_4_after_printing(monkeypatch: pytest.MonkeyPatch) -> None:
    reason = "broker 2 is not in the SyncStateSet of b (1); it must catch up with the master first"
    result, _ = invoke(monkeypatch, answer(dry_run=True, allowed=False, remark=reason, master=1), "--dry-run")
    assert isinstance(result.exception, Refused) and result.exception.exit_code == 4
    assert reason in str(result.exception)
    assert f"b: dry run, master 1 -> 2 not allowed: {reason}" in " ".join(result.stdout.split())
    result, _ = invoke(
        monkeypatch, answer(dry_run=True, allowed=False, remark=reason, master=1), "--dry-run", "-o", "json"
    )
    doc = json.loads(result.stdout)
    assert (doc["dryRun"], doc["allowed"], doc["state"], doc["reason"], doc["transfer"]) == (
        True, False, None, reason, None
    )  # fmt: skip


def test_a_refused_transfer_exits_4(monkeypatch: pytest.MonkeyPatch) -> None:
    result, _ = invoke(monkeypatch, answer(code=2012, remark=REFUSED.reason, transfer=REFUSED, master=None))
    assert isinstance(result.exception, Refused) and result.exception.exit_code == 4
    assert "b: master null -> 2 refused: broker set b has no master" in " ".join(result.stdout.split())


def test_an_aborted_transfer_exits_1_with_the_code_and_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    result, _ = invoke(monkeypatch, answer(code=2012, remark=ABORTED.reason, transfer=ABORTED, master=1), "-o", "json")
    error = result.exception
    assert isinstance(error, OperationFailed) and error.exit_code == 1
    assert (error.code, error.code_name) == (2012, "CONTROLLER_ELECT_MASTER_FAILED")
    assert str(error).endswith(f"transfer of b aborted: {ABORTED.reason}")
    doc = json.loads(result.stdout)
    assert (doc["state"], doc["reason"], doc["transfer"]["state"]) == ("aborted", ABORTED.reason, "aborted")


@pytest.mark.parametrize(
    ("code", "name", "exit_code"),
    [(2008, "CONTROLLER_BROKER_METADATA_NOT_EXIST", 1), (2005, "CONTROLLER_INVALID_REQUEST", 2)],
)
def test_a_request_refused_before_any_check_exits_1_or_2_and_prints_nothing(
    monkeypatch: pytest.MonkeyPatch, code: int, name: str, exit_code: int
) -> None:
    result, _ = invoke(monkeypatch, answer(code=code, remark="no such set", master=None))
    error = result.exception
    assert isinstance(error, OperationFailed) and error.exit_code == exit_code
    assert (error.code, error.code_name, error.remark) == (code, name, "no such set")
    assert result.stdout == ""


def cells(line: str, separator: str) -> list[str]:
    """The cells of one line of a rich table."""
    return [cell.strip() for cell in line.strip().strip(separator).split(separator)]


def test_table_and_legacy_renderers_take_the_command_doc(capsys: pytest.CaptureFixture[str]) -> None:
    doc: TransferMasterDoc = {
        "clusterName": "c", "brokerName": "b", "brokerId": 3, "dryRun": False, "allowed": True,
        "alreadyMaster": False, "state": "aborted",
        "reason": ABORTED.reason, "warnings": [], "masterBrokerId": 1, "masterEpoch": 4, "preferredBrokerId": 3,
        "masterMaxOffset": 990, "targetMaxOffset": 10, "transfer": transfer_doc(ABORTED),
    }  # fmt: skip
    _table(doc)
    out = capsys.readouterr().out
    assert f"b: master 1 -> 3 aborted: {ABORTED.reason}" in " ".join(out.split())
    lines = out.splitlines()
    header = cells(next(line for line in lines if "┃" in line and "Master" in line), "┃")
    row = cells(next(line for line in lines if "│" in line and "990" in line), "│")
    assert dict(zip(header, row, strict=True)) == {
        "Master": "1", "Target": "3", "MasterEpoch": "4", "Preferred": "3", "MasterMaxOffset": "990",
        "TargetMaxOffset": "10",
    }  # fmt: skip
    assert _legacy(doc).splitlines() == [
        "#ClusterName\tc", "#BrokerName\tb", "#TargetBrokerId\t3", "#DryRun\tfalse", "#Allowed\ttrue",
        "#State\taborted", f"#Reason\t{ABORTED.reason}", "#MasterBrokerId\t1", "#MasterEpoch\t4",
        "#WritesPausedMillis\t3001", "#FinalOffset\t990",
    ]  # fmt: skip


# --- the real binary ----------------------------------------------------------------------------


def test_help_mentions_dry_run_and_timeout() -> None:
    result = CliRunner().invoke(app, ["transferMaster", "--help"])
    assert result.exit_code == 0
    for option in ("--dry-run", "--timeout", "--brokerId", "--brokerName", "--clusterName"):
        assert option in result.output
    kebab = CliRunner().invoke(app, ["transfer-master", "--help"])
    assert kebab.exit_code == 0 and "--dry-run" in kebab.output


def test_transfer_master_against_nothing_exits_5_without_a_traceback() -> None:
    port = free_ports(1)[0]
    result = run_mqadmin(
        "transferMaster", "-a", f"127.0.0.1:{port}", "-c", "c", "-bn", "b", "-b", "2", "--timeout", "1"
    )
    assert result.returncode == 5, result
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("mqadmin: ")


# --- sendMessage's retries ----------------------------------------------------------------------


class FakeClock:
    """time.monotonic and time.sleep for messages._send_one: sleeping advances the clock; so does each call."""

    def __init__(self, per_call_s: float = 0.0) -> None:
        self.now = 100.0
        self.per_call_s = per_call_s
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class ScriptedAgents:
    """Stands in for AgentClient: each address answers from its own queue (the last answer repeats)."""

    def __init__(self, clock: FakeClock, **queues: list[agent_pb2.SendMessageResponse | MqError]) -> None:
        self.clock = clock
        self.queues = {address.replace("_", ":"): deque(q) for address, q in queues.items()}
        self.calls: list[tuple[str, str, Any]] = []

    def call(self, address: str, method: str, request: Any) -> agent_pb2.SendMessageResponse:
        self.calls.append((address, method, request))
        self.clock.now += self.clock.per_call_s
        queue = self.queues[address]
        answer = queue.popleft() if len(queue) > 1 else queue[0]
        if isinstance(answer, MqError):  # the broker did not answer (SIGKILLed: connection refused, or a timeout)
            raise answer
        return answer


def put_ok(queue_offset: int = 7) -> agent_pb2.SendMessageResponse:
    r = agent_pb2.SendMessageResponse(code=0, status="PUT_OK", broker_id=2, master_epoch=2)
    r.results.add(queue_id=1, queue_offset=queue_offset, commit_log_offset=990)
    return r


def refusal(code: int, status: str, master_address: str = "") -> agent_pb2.SendMessageResponse:
    return agent_pb2.SendMessageResponse(
        code=code, status=status, remark="retry", broker_id=1, master_epoch=1, master_address=master_address
    )


TRANSFERRING = refusal(14, "MASTER_TRANSFERRING", "h:2")
MESSAGE = agent_pb2.Message(topic="Orders", queue_id=1, body=b"x")


def send(
    monkeypatch: pytest.MonkeyPatch, agents: ScriptedAgents, budget_s: float = 10.0, locate: Locate | None = None
) -> tuple[SendOutcomeDoc, str]:
    monkeypatch.setattr(messages, "time", agents.clock)
    return messages._send_one(agents, "b", "h:1", MESSAGE, budget_s, locate)


def test_master_transferring_follows_the_hint_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    agents = ScriptedAgents(clock, h_1=[TRANSFERRING], h_2=[put_ok()])
    result, address = send(monkeypatch, agents)
    assert address == "h:2"
    assert [a for a, _, _ in agents.calls] == ["h:1", "h:2"]
    assert {m for _, m, _ in agents.calls} == {"SendMessage"}
    assert clock.sleeps == [], "a hint to another address is followed without a pause"
    assert result == {
        "brokerName": "b", "brokerAddress": "h:2", "brokerId": 2, "masterEpoch": 2, "status": "PUT_OK", "code": 0,
        "remark": None, "queueId": 1, "queueOffset": 7, "commitLogOffset": 990, "attempts": 2, "unanswered": 0,
    }  # fmt: skip
    request = agents.calls[0][2]
    assert request.broker.broker_name == "b" and request.message == MESSAGE
    assert agents.calls[1][2] == request, "the retry sends the same request"


def test_slave_not_available_is_retried_until_put_ok(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    agents = ScriptedAgents(clock, h_1=[refusal(11, "SLAVE_NOT_AVAILABLE"), refusal(14, "SERVICE_NOT_AVAILABLE"),
                                        put_ok()])  # fmt: skip
    result, address = send(monkeypatch, agents)
    assert (result["status"], result["attempts"], address) == ("PUT_OK", 3, "h:1")
    assert len(clock.sleeps) == 2, "without a new address the retry pauses first"
    assert all(0 < s <= 0.2 for s in clock.sleeps)


def test_a_hint_pointing_at_the_same_address_pauses_before_retrying(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    agents = ScriptedAgents(clock, h_1=[refusal(14, "MASTER_TRANSFERRING", "h:1"), put_ok()])
    result, address = send(monkeypatch, agents)
    assert (result["attempts"], address, len(clock.sleeps)) == (2, "h:1", 1)


def test_retries_stop_at_the_budget_and_report_the_last_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock(per_call_s=0.25)
    agents = ScriptedAgents(clock, h_1=[refusal(14, "SERVICE_NOT_AVAILABLE")])
    result, address = send(monkeypatch, agents, budget_s=1.0)
    assert result["attempts"] == len(agents.calls) > 1
    assert (result["status"], result["code"], result["remark"], address) == (
        "SERVICE_NOT_AVAILABLE",
        14,
        "retry",
        "h:1",
    )
    assert clock.now - 100.0 < 1.0 + 0.25 + 0.2, "no attempt starts after the budget"
    assert result["queueId"] is None and result["commitLogOffset"] is None


def test_no_budget_means_one_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    agents = ScriptedAgents(clock, h_1=[TRANSFERRING], h_2=[put_ok()])
    result, address = send(monkeypatch, agents, budget_s=0.0)
    assert (result["attempts"], result["status"], result["code"], address) == (1, "MASTER_TRANSFERRING", 14, "h:1")
    assert [a for a, _, _ in agents.calls] == ["h:1"]


def test_hints_bouncing_between_brokers_still_end_at_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock(per_call_s=0.1)
    agents = ScriptedAgents(clock, h_1=[TRANSFERRING], h_2=[refusal(11, "SLAVE_NOT_AVAILABLE", "h:1")])
    result, _ = send(monkeypatch, agents, budget_s=1.0)
    attempts = result["attempts"]
    assert attempts is not None and 1 < attempts == len(agents.calls) <= 11
    assert result["code"] in (11, 14)


@pytest.mark.parametrize(
    "refused",
    [
        pytest.param(refusal(12, "FLUSH_SLAVE_TIMEOUT", "h:2"), id="flush_slave_timeout_may_be_stored"),
        pytest.param(refusal(1, "IN_SYNC_REPLICAS_NOT_ENOUGH"), id="system_error"),
        pytest.param(refusal(13, ""), id="message_illegal"),
    ],
)
def test_answers_that_may_have_stored_or_cannot_change_are_not_retried(
    monkeypatch: pytest.MonkeyPatch, refused: agent_pb2.SendMessageResponse
) -> None:
    clock = FakeClock()
    agents = ScriptedAgents(clock, h_1=[refused, put_ok()], h_2=[put_ok()])
    result, address = send(monkeypatch, agents)
    assert (result["attempts"], result["code"], address) == (1, refused.code, "h:1")
    assert len(agents.calls) == 1 and clock.sleeps == []
    assert result["status"] == (refused.status or "MESSAGE_ILLEGAL")


def test_retriable_codes_are_exactly_the_ones_that_store_nothing() -> None:
    from mqbase.codes import ResponseCode

    assert {ResponseCode.SLAVE_NOT_AVAILABLE, ResponseCode.SERVICE_NOT_AVAILABLE} == messages.RETRIABLE
    assert ResponseCode.FLUSH_SLAVE_TIMEOUT not in messages.RETRIABLE


# --- sendMessage through a failover -------------------------------------------------------------------------------

DEAD = BrokerUnavailable("broker h:1 unreachable (UNAVAILABLE)")


def controllers_naming(*answers: str | None) -> tuple[Locate, list[str | None]]:
    """A `locate` that gives `answers` in turn (the last repeats), as the controllers name the master while a
    failover runs; and the list of what it gave."""
    given: list[str | None] = []
    pending = deque(answers)

    def locate() -> str | None:
        given.append(pending.popleft() if len(pending) > 1 else pending[0])
        return given[-1]

    return locate, given


def test_a_dead_master_is_left_for_the_one_the_controllers_elect(monkeypatch: pytest.MonkeyPatch) -> None:
    """The old loop gave up at the first unanswered send: "364 of 600 not acknowledged" after a SIGKILL."""
    clock = FakeClock(per_call_s=0.01)
    agents = ScriptedAgents(clock, h_1=[DEAD], h_2=[put_ok()])
    locate, given = controllers_naming("h:1", None, "h:2")  # still the dead one, then none, then the new master
    result, address = send(monkeypatch, agents, locate=locate)
    assert (result["status"], result["brokerAddress"], address) == ("PUT_OK", "h:2", "h:2")
    assert [a for a, _, _ in agents.calls] == ["h:1", "h:1", "h:1", "h:2"] and given == ["h:1", None, "h:2"]
    assert (result["attempts"], result["unanswered"]) == (4, 3), "three sends got no answer: each may be stored"
    assert all(request == agents.calls[0][2] for _, _, request in agents.calls), "the same message, the same id"
    assert clock.sleeps and all(0 < s <= 0.2 for s in clock.sleeps)


def test_an_unanswered_send_is_resent_once_then_counted_as_a_possible_duplicate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The ambiguous case: the send timed out (its answer lost); it is resent, as a Java producer resends it."""
    clock = FakeClock()
    agents = ScriptedAgents(clock, h_1=[TimedOut("SendMessage to broker h:1 timed out after 3 s"), put_ok()])
    locate, _ = controllers_naming("h:1")
    result, _ = send(monkeypatch, agents, locate=locate)
    assert (result["status"], result["attempts"], result["unanswered"]) == ("PUT_OK", 2, 1)


def test_a_put_ok_is_never_resent(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    agents = ScriptedAgents(clock, h_1=[put_ok(), DEAD])
    locate, given = controllers_naming("h:2")
    result, _ = send(monkeypatch, agents, locate=locate)
    assert (result["status"], len(agents.calls), result["unanswered"], given) == ("PUT_OK", 1, 0, [])


def test_no_master_within_the_budget_is_unreachable_with_the_last_error(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock(per_call_s=0.1)
    agents = ScriptedAgents(clock, h_1=[DEAD])
    locate, _ = controllers_naming(None)
    result, address = send(monkeypatch, agents, budget_s=1.0, locate=locate)
    assert (result["status"], result["code"], result["remark"], address) == ("UNREACHABLE", None, str(DEAD), "h:1")
    assert result["attempts"] == result["unanswered"] == len(agents.calls) > 1
    assert result["brokerId"] is None and result["queueOffset"] is None
    assert clock.now - 100.0 < 1.0 + 0.1 + 0.2, "no attempt starts after the budget"


def test_without_the_controllers_an_unanswered_send_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chaos workload's producer handles an unreachable master itself (it asks the controllers)."""
    agents = ScriptedAgents(FakeClock(), h_1=[DEAD])
    with pytest.raises(BrokerUnavailable):
        send(monkeypatch, agents)
    assert len(agents.calls) == 1


def test_a_refusal_without_a_hint_asks_the_controllers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fenced old master (SERVICE_NOT_AVAILABLE, no master known to it): the controllers name the new one."""
    clock = FakeClock()
    agents = ScriptedAgents(clock, h_1=[refusal(14, "SERVICE_NOT_AVAILABLE")], h_2=[put_ok()])
    locate, given = controllers_naming("h:2")
    result, address = send(monkeypatch, agents, locate=locate)
    assert (result["status"], result["unanswered"], address, given) == ("PUT_OK", 0, "h:2", ["h:2"])
