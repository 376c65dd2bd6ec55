"""transactionStatus: the open transactions of a topic on each broker set serving it, as its master reads them.

A transaction is open from its half message's store until its end (commit or rollback), or until the master drops
it after ``transactionCheckMax`` check-backs; the count of check-backs is replicated, so a new master goes on from
it. The master reads its half queue on before it answers, so every half message confirmed is listed.
"""

from __future__ import annotations

import time
from typing import Annotated, TypedDict

import typer

from mqadmin_py.commands.common import agent_client, broker_name_option, checked, local_time
from mqadmin_py.commands.messages import _masters
from mqadmin_py.commands.topic import topic_name
from mqadmin_py.options import ControllerOpt, OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table
from mqbase.codes import ResponseCode
from mqbase.errors import MqError, OperationFailed


class OpenDoc(TypedDict):
    transactionId: str
    msgId: str
    storeTimestamp: int
    ageMs: int
    checks: int
    """Check-backs so far; the master drops the transaction at its next turn after transactionCheckMax."""


class SetDoc(TypedDict):
    brokerName: str
    masterAddress: str
    open: int | None
    """Null when the master did not answer (`error` says why)."""
    error: str | None
    transactions: list[OpenDoc]


class StatusDoc(TypedDict):
    topic: str
    open: int
    sets: list[SetDoc]


def transaction_status(
    controller: ControllerOpt,
    topic: Annotated[
        str, typer.Option("-t", "--topic", help="Topic (message.type TRANSACTION).", callback=checked(topic_name))
    ],
    broker_name: Annotated[
        str | None, broker_name_option("-b", "-bn", "--brokerName", help="One broker set (default: every set).")
    ] = None,
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 3.0,
) -> None:
    """List the open transactions of a topic: each one's id, message id, age and check-backs so far.

    Exits 1 when a set's master did not answer (the others are listed).
    """
    from mqbase.proto import agent_pb2 as pb

    now = int(time.time() * 1000)
    sets: list[SetDoc] = []
    with agent_client(timeout) as agents:
        for name, address in _masters(controller, timeout, broker_name, topic):
            request = pb.GetOpenTransactionsRequest(broker=pb.BrokerRef(broker_name=name), topic=topic)
            try:
                r = agents.call(address, "GetOpenTransactions", request)
            except MqError as exc:
                sets.append({"brokerName": name, "masterAddress": address, "open": None, "error": str(exc),
                             "transactions": []})  # fmt: skip
                continue
            if r.code != ResponseCode.SUCCESS:
                sets.append({"brokerName": name, "masterAddress": address, "open": None, "error": r.remark,
                             "transactions": []})  # fmt: skip
                continue
            found: list[OpenDoc] = [
                {"transactionId": t.transaction_id, "msgId": t.message_id, "storeTimestamp": t.store_timestamp,
                 "ageMs": max(0, now - t.store_timestamp), "checks": t.checks}
                for t in r.transactions
            ]  # fmt: skip
            sets.append({"brokerName": name, "masterAddress": address, "open": len(found), "error": None,
                         "transactions": found})  # fmt: skip
    doc: StatusDoc = {"topic": topic, "open": sum(s["open"] or 0 for s in sets), "sets": sets}
    emit(doc, output, _table)
    failed = [s for s in sets if s["error"] is not None]
    if failed:
        raise OperationFailed(-1, "UNREACHABLE", f"broker set {failed[0]['brokerName']}: {failed[0]['error']}; "
                              "the other sets are listed")  # fmt: skip


def _table(doc: StatusDoc) -> None:
    rows = [
        [s["brokerName"], t["transactionId"], t["msgId"], local_time(t["storeTimestamp"]), f"{t['ageMs'] / 1000:.1f}",
         t["checks"]]
        for s in doc["sets"] for t in s["transactions"]
    ]  # fmt: skip
    rows += [[s["brokerName"], "-", "-", "-", "-", f"error: {s['error']}"] for s in doc["sets"] if s["error"]]
    columns = ["Broker set", "TransactionId", "MsgId", "Stored", "Age (s)", "Checks"]
    emit_table(f"{doc['topic']}: {doc['open']} open transaction(s)", columns, rows)


COMMANDS = {"transactionStatus": transaction_status}
