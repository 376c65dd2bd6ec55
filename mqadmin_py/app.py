"""The ``mqadmin`` command tree. Heavy imports (grpc, rich, stubs) happen inside commands."""

from __future__ import annotations

import typer

from mqadmin_py.commands import (
    broker,
    cluster,
    connections,
    container,
    controller,
    epochs,
    group_offsets,
    messages,
    offsets,
    perm,
    preferred,
    query,
    sandbox,
    stats,
    topic,
    transactions,
    transfer,
    wait,
)
from mqadmin_py.commands.common import AliasGroup, add_commands
from mqadmin_py.options import (
    DEFAULT_CREDENTIALS_FILE,
    AccessKeyOpt,
    CredentialsOpt,
    SecretKeyOpt,
    TlsCaOpt,
    TlsCertOpt,
    TlsKeyOpt,
    TlsOpt,
)
from mqadmin_py.version import VersionOpt

app = typer.Typer(
    name="mqadmin",
    cls=AliasGroup,
    add_completion=False,  # completions/ holds static scripts; typer's would start Python on every TAB
    help="Admin toolkit for RocketMQ controller mode: controller group, broker sets, SyncStateSet, elections.\n\n"
    "Every command also answers to its kebab-case spelling (get-sync-state-set). Controllers: -a or "
    "MQADMIN_CONTROLLERS. Output: -o table|json|legacy. TLS and credentials: the options below, before the "
    "command, their env vars, or ~/.mqadmin/credentials (docs/security.md).\n\n"
    "Exit codes: 0 ok or no-op, 1 operation failed, 2 usage, 3 timed out, 4 refused, 5 no leader/unreachable, "
    "130 Ctrl-C.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},  # Java mqadmin's -h; inherited by every command
)


@app.callback()
def security(
    ctx: typer.Context,
    access_key: AccessKeyOpt = "",
    secret_key: SecretKeyOpt = "",
    credentials_file: CredentialsOpt = DEFAULT_CREDENTIALS_FILE,
    tls: TlsOpt = False,
    tls_ca_file: TlsCaOpt = "",
    tls_cert_file: TlsCertOpt = "",
    tls_key_file: TlsKeyOpt = "",
    _version: VersionOpt = False,
) -> None:
    """Kept raw: a command's first client reads the credentials file (commands without one never do)."""
    explicit = {"accessKey": access_key, "secretKey": secret_key, "tlsCaFile": tls_ca_file,
                "tlsCertFile": tls_cert_file, "tlsKeyFile": tls_key_file}  # fmt: skip
    ctx.obj = {"explicit": explicit, "tls": tls, "credentialsFile": credentials_file}


controller.register(app)
add_commands(
    app,
    {
        "getBrokerEpoch": broker.get_broker_epoch,
        "haStatus": broker.ha_status,
        "resetMasterFlushOffset": broker.reset_master_flush_offset,
        "sendMessage": messages.send_message,
        "consumeMessage": messages.consume_message,
        "addBroker": container.add_broker,
        "removeBroker": container.remove_broker,
        "listBrokers": container.list_brokers,
        "transferMaster": transfer.transfer_master,
        "clusterList": cluster.cluster_list,
        "getBrokerConfig": cluster.get_broker_config,
        "updateBrokerConfig": cluster.update_broker_config,
    },
)
add_commands(app, topic.COMMANDS)
add_commands(app, offsets.COMMANDS)
add_commands(app, query.COMMANDS)
add_commands(app, transactions.COMMANDS)
add_commands(
    app,
    {  # the rest of Java's commands (assign-preferred-master is the kebab-case alias of the last)
        "brokerStatus": stats.broker_status,
        "statsAll": stats.stats_all,
        "deleteExpiredCommitLog": stats.delete_expired_commit_log,
        "consumerConnection": connections.consumer_connection,
        "producerConnection": connections.producer_connection,
        "consumerStatus": connections.consumer_status,
        "topicClusterList": perm.topic_cluster_list,
        "updateTopicPerm": perm.update_topic_perm,
        "wipeWritePerm": perm.wipe_write_perm,
        "addWritePerm": perm.add_write_perm,
        "updateOrderConf": perm.update_order_conf,
        "cloneGroupOffset": group_offsets.clone_group_offset,
        "skipAccumulatedMessage": group_offsets.skip_accumulated_message,
        "assignPreferredMaster": preferred.assign_preferred_master,
    },
)
app.add_typer(wait.app, name="wait")
app.add_typer(sandbox.app, name="sandbox")
app.add_typer(epochs.app, name="epochs")
