"""Options shared by every command, defined once."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from mqadmin_py.commands.common import broker_names, checked, cluster_name_option, controller_addresses, seconds_option
from mqadmin_py.output import Output

ControllerOpt = Annotated[
    str,
    typer.Option(
        "-a",
        "--controllerAddress",
        envvar="MQADMIN_CONTROLLERS",
        help="Controller gRPC addresses, ';'-separated (env MQADMIN_CONTROLLERS).",
        show_default=False,
        callback=checked(controller_addresses),
    ),
]
OutputOpt = Annotated[Output, typer.Option("-o", "--output", help="table, json or legacy (the Java tool's text).")]
TimeoutOpt = Annotated[float, seconds_option("--timeout", help="Seconds allowed for each RPC.")]
SandboxDirOpt = Annotated[
    str,
    typer.Option("--dir", envvar="MQADMIN_SANDBOX_DIR", help="Sandbox directory (env MQADMIN_SANDBOX_DIR)."),
]
DEFAULT_SANDBOX_DIR = os.path.join(os.path.expanduser("~"), ".mqadmin", "sandbox")
DEFAULT_CREDENTIALS_FILE = os.path.join(os.path.expanduser("~"), ".mqadmin", "credentials")


def _global(name: str, env: str, help_text: str, metavar: str | None = None) -> Any:
    return typer.Option(name, envvar=env, help=f"{help_text}.", show_default=False, metavar=metavar)


# Options of the root command (``mqadmin --accessKey K electMaster ...``): they apply to every command's calls.
AccessKeyOpt = Annotated[str, _global("--accessKey", "MQADMIN_ACCESS_KEY", "Access key of the admin credential", "KEY")]
SecretKeyOpt = Annotated[
    str, _global("--secretKey", "MQADMIN_SECRET_KEY", "Its secret key (visible in ps: prefer the env or file)", "KEY")
]
CredentialsOpt = Annotated[
    str,
    _global("--credentialsFile", "MQADMIN_CREDENTIALS_FILE", "Credentials file, mode 0600 [~/.mqadmin/credentials]",
            "FILE"),
]  # fmt: skip
TlsOpt = Annotated[bool, _global("--tls", "MQADMIN_TLS", "Connect with TLS (implied by --tlsCaFile/--tlsCertFile)")]
TlsCaOpt = Annotated[str, _global("--tlsCaFile", "MQADMIN_TLS_CA_FILE", "CA certificate(s) to trust servers", "FILE")]
TlsCertOpt = Annotated[str, _global("--tlsCertFile", "MQADMIN_TLS_CERT_FILE", "Client certificate (mTLS)", "FILE")]
TlsKeyOpt = Annotated[str, _global("--tlsKeyFile", "MQADMIN_TLS_KEY_FILE", "The client certificate's key", "FILE")]
BrokerNamesOpt = Annotated[
    list[str] | None, typer.Option("-b", "--brokerName", help="Broker set name(s).", callback=checked(broker_names))
]
ClusterNameOpt = Annotated[str | None, cluster_name_option("-c", "--clusterName", help="Every set of a cluster.")]
