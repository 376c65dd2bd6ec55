"""RIP-31 container commands: addBroker, removeBroker, listBrokers (against an agent's container port)."""

from __future__ import annotations

from typing import Annotated, TypedDict

import typer

from mqadmin_py.commands.common import INT64_MAX, address_option, agent_client, check, local_time
from mqadmin_py.options import OutputOpt, TimeoutOpt
from mqadmin_py.output import Output, emit, emit_table
from mqbase.errors import UsageError

ContainerOpt = Annotated[str, address_option("-c", "--brokerContainerAddr", help="The agent's container address.")]


class AddBrokerDoc(TypedDict):
    container: str
    brokerConfigPath: str
    remark: str


class RemoveBrokerDoc(TypedDict):
    container: str
    clusterName: str
    brokerName: str
    brokerId: int


class BrokerPlaceDoc(TypedDict):
    """Where a broker runs: what ``sandbox up/status`` lists per agent, and the start of a listBrokers row."""

    clusterName: str
    brokerName: str
    brokerId: int | None
    brokerAddress: str
    haAddress: str


class HostedBrokerDoc(BrokerPlaceDoc):
    """One broker in listBrokers."""

    role: str
    masterEpoch: int
    configPath: str
    error: str | None
    metadataVersion: int | None
    """The controller's topic and group metadata version the broker last learnt (null: none yet)."""
    topics: list[str]
    """The topics its broker set serves, as learnt."""
    subscriptionGroups: list[str]
    actingMaster: bool
    """RIP-32: this slave acts as its set's read-only master."""
    actingSince: int | None
    """Since when, epoch ms; null while it does not act."""
    preOnline: bool
    """RIP-32: this new master takes back its set's consumer state and serves no consumer yet."""


def add_broker(
    container: ContainerOpt,
    config_path: Annotated[
        str, typer.Option("-b", "--brokerConfigPath", help="Broker config file, a path on the agent's host.")
    ],
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 10.0,
) -> None:
    """Start a broker in a running agent from a config file on its host; it is remembered across restarts."""
    from mqbase.proto import agent_pb2 as pb

    with agent_client(timeout) as agents:
        r = check(agents.call(container, "AddBroker", pb.AddBrokerRequest(broker_config_path=config_path)))
    doc: AddBrokerDoc = {"container": container, "brokerConfigPath": config_path, "remark": r.remark}
    emit(
        doc,
        output,
        lambda d: typer.echo(f"{d['remark']} in {container}"),
        lambda _d: f"add broker to {container} success, config: {config_path}\n",
    )


def parse_broker_identity(text: str) -> tuple[str, str, int]:
    """``cluster:brokerName:brokerId`` → its parts (as Java's removeBroker -b). The id is one the controller
    assigned (1 or more), or -1: a hosted broker not registered yet; 0 is a Java master's id outside controller
    mode, which no broker here has."""
    parts = text.split(":")
    digits = parts[-1].removeprefix("-")
    if len(parts) != 3 or not all(parts) or not (digits.isascii() and digits.isdigit()) or int(digits) > INT64_MAX:
        raise UsageError(f"-b must be clusterName:brokerName:brokerId, e.g. DefaultCluster:broker-a:1; got {text!r}")
    if int(parts[2]) < 1 and int(parts[2]) != -1:
        raise UsageError(f"-b {text!r}: broker ids start at 1 (-1: a broker not registered yet); see listBrokers")
    return parts[0], parts[1], int(parts[2])


def remove_broker(
    container: ContainerOpt,
    broker: Annotated[str, typer.Option("-b", "--brokerIdentity", help="clusterName:brokerName:brokerId.")],
    output: OutputOpt = Output.table,
    timeout: TimeoutOpt = 10.0,
) -> None:
    """Stop a broker hosted by an agent and forget it (its store stays on disk)."""
    from mqbase.proto import agent_pb2 as pb

    cluster, name, broker_id = parse_broker_identity(broker)
    request = pb.RemoveBrokerRequest(cluster_name=cluster, broker_name=name, broker_id=broker_id)
    with agent_client(timeout) as agents:
        check(agents.call(container, "RemoveBroker", request))
    doc: RemoveBrokerDoc = {"container": container, "clusterName": cluster, "brokerName": name, "brokerId": broker_id}
    emit(
        doc,
        output,
        lambda _d: typer.echo(f"removed {broker} from {container}"),
        lambda _d: f"remove broker from {container} success, {broker}\n",
    )


def list_brokers(container: ContainerOpt, output: OutputOpt = Output.table, timeout: TimeoutOpt = 3.0) -> None:
    """List the brokers an agent hosts, with role, epoch and any start-up error."""
    from mqbase.proto import agent_pb2 as pb

    with agent_client(timeout) as agents:
        r = check(agents.call(container, "ListBrokers", pb.ListBrokersRequest()))
    docs: list[HostedBrokerDoc] = [
        {
            "clusterName": b.cluster_name,
            "brokerName": b.broker_name,
            "brokerId": b.broker_id if b.broker_id >= 0 else None,
            "brokerAddress": b.broker_address,
            "haAddress": b.ha_address,
            "role": b.role,
            "masterEpoch": b.master_epoch,
            "configPath": b.config_path,
            "error": b.error or None,
            "metadataVersion": b.metadata_version if b.metadata_version >= 0 else None,
            "topics": list(b.topics),
            "subscriptionGroups": list(b.subscription_groups),
            "actingMaster": b.acting_master,
            "actingSince": b.acting_since_millis or None,
            "preOnline": b.pre_online,
        }
        for b in r.brokers
    ]

    def table(ds: list[HostedBrokerDoc]) -> None:
        rows = [
            [
                d["clusterName"],
                d["brokerName"],
                d["brokerId"],
                d["brokerAddress"],
                d["role"],
                d["masterEpoch"],
                local_time(d["actingSince"]),
                d["error"],
            ]
            for d in ds
        ]
        columns = ["Cluster", "Broker set", "Id", "Address", "Role", "Epoch", "Acting master since", "Error"]
        emit_table(f"Brokers in {container}", columns, rows)

    emit(docs, output, table)
