"""Helpers every command module uses: clients, response checks, and the ``-i`` repeat loop."""

from __future__ import annotations

import json
import math
import re
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Annotated, Any, TypeVar

import typer
from typer.core import TyperGroup, TyperOption

from mqadmin_py.output import Doc, Output, complain, emit
from mqadmin_py.typer_private import Command, Context, get_current_context
from mqbase.codes import ResponseCode
from mqbase.errors import MqError, OperationFailed, OperationRefused, RequestInvalid, UsageError

INT64_MAX = 2**63 - 1
"""Broker ids and offsets are int64 on the wire (Java's long): larger is a usage error, not a protobuf traceback."""
INT32_MAX = 2**31 - 1
"""Queue ids are int32 on the wire."""


# --- option validators: pure, raising ValueError; `checked` turns them into click callbacks (exit 2) ---------


def controller_addresses(text: str) -> str:
    """A ``host:port;host:port`` list, checked: a malformed ``-a`` is a usage error, never "no leader reachable"."""
    return address_list(text, "controller")


def address_list(text: str, what: str) -> str:
    """`text` as a checked ``host:port`` list (``;`` or ``,`` between entries) of `what` (controller, name server).

    Returns the addresses re-joined by ``;`` (blanks dropped). ValueError names the first bad entry.
    """
    from mqbase.configkeys import address_problem

    addresses = [token.strip() for token in text.replace(",", ";").split(";") if token.strip()]
    if not addresses:
        raise ValueError(f"no {what} address given, got {text!r} (want host:port;host:port)")
    for address in addresses:
        if problem := address_problem(address):
            raise ValueError(f"entry {problem} (want host:port;host:port)")
    return ";".join(dict.fromkeys(addresses))


def optional_controller_addresses(text: str) -> str:
    """Like `controller_addresses`, for commands that do not always need the controllers (empty is allowed)."""
    return controller_addresses(text) if text else text


MAX_SECONDS = 1e9
"""The longest wait a timeout or interval option gives (~31 years): larger ones are clamped to it, since a gRPC
deadline of now + 1e10 s overflows (the call then fails at once as "timed out") and ``time.sleep`` refuses more
than ~9.2e9 s."""


def finite_seconds(value: float | None) -> float | None:
    """A duration option's value, refused when NaN or infinite (click's range check lets both through)."""
    if value is not None and not math.isfinite(value):
        raise ValueError(f"{value} is not a finite number of seconds")
    return value


def wait_seconds(value: float | None) -> float | None:
    """A timeout's or interval's value: finite, and at most MAX_SECONDS (``--timeout 1e20`` means "no limit",
    never "fail at once")."""
    finite = finite_seconds(value)
    return finite if finite is None else min(finite, MAX_SECONDS)


def not_empty(value: str | None, what: str) -> str | None:
    """`value`, refused when empty or blank (an unset shell variable): no empty name may select "everything"."""
    if value is not None and not value.strip():
        raise ValueError(f"a {what} cannot be empty, got {value!r}")
    return value


def message_body(value: str) -> str:
    """A message body, refused when empty: Java's producer refuses one ("the message body length is zero")."""
    if not value:
        raise ValueError("the message body is empty (Java's producer refuses an empty body too)")
    return value


def broker_name(value: str | None) -> str | None:
    """A broker set name, refused when empty (``-bn ''`` from an unset shell variable)."""
    return not_empty(value, "broker set name")


def cluster_name(value: str | None) -> str | None:
    """A cluster name, refused when empty (``-c ''``), which would otherwise reach the server as a bad request."""
    return not_empty(value, "cluster name")


def broker_address(value: str | None) -> str | None:
    """One broker's or agent's ``host:port`` (``-b brokerAddr``, ``--brokerAddr``, a container's ``-c``)."""
    from mqbase.configkeys import address_problem

    if value is not None and (problem := address_problem(value.strip())):
        raise ValueError(f"the address {problem} (want host:port)")
    return value if value is None else value.strip()


def broker_names(values: list[str] | None) -> list[str] | None:
    """Repeated ``-b`` broker set names, each as `broker_name` checks it."""
    for name in values or []:
        broker_name(name)
    return values


def broker_id_list(text: str) -> frozenset[int]:
    """``"1;2;3"`` → ids (each 1..int64 max); an empty list is refused: "no ids" must never mean "every id"."""
    tokens = [token.strip() for token in text.split(";")]
    while tokens and not tokens[-1]:
        tokens.pop()  # Java's split drops a trailing ';'
    if not tokens:
        raise ValueError(f"no broker id given, got {text!r} (want ids like '1;2'; --wholeSet cleans the whole set)")
    for token in tokens:
        if not (token.isascii() and token.isdigit() and 1 <= int(token) <= INT64_MAX):
            raise ValueError(f"{token!r} is not a broker id (1..{INT64_MAX}), in {text!r}")
    return frozenset(int(token) for token in tokens)


def checked(validate: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A click callback running `validate` on the option's value: its ValueError becomes a usage error (exit 2)."""

    def callback(value: Any) -> Any:
        try:
            return validate(value)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from exc

    return callback


def seconds_option(
    *names: str, help: str, minimum: float = 0.1, maximum: float | None = None, clamp: bool = True
) -> Any:
    """A duration option: at least `minimum` (and at most `maximum`), finite; with `clamp` (a wait) a huge value
    is MAX_SECONDS (`wait_seconds`), without (a time to come, ``--delay``) the command checks its range."""
    validate = wait_seconds if clamp else finite_seconds
    return typer.Option(*names, help=help, min=minimum, max=maximum, callback=checked(validate))


def broker_name_option(*names: str, help: str) -> Any:
    """A broker set name option: not empty."""
    return typer.Option(*names, help=help, callback=checked(broker_name))


def cluster_name_option(*names: str, help: str) -> Any:
    """A cluster name option: not empty."""
    return typer.Option(*names, help=help, callback=checked(cluster_name))


def address_option(*names: str, help: str) -> Any:
    """One broker's or agent's address option: ``host:port``."""
    return typer.Option(*names, help=help, callback=checked(broker_address))


def broker_id_option(*names: str, help: str) -> Any:
    """A broker id option: 1..int64 max (controller-assigned ids start at 1, ``FIRST_BROKER_ID``)."""
    return typer.Option(*names, help=help, min=1, max=INT64_MAX)


IntervalOpt = Annotated[
    float | None, seconds_option("-i", "--interval", help="Repeat every N seconds until Ctrl-C (or --count runs).")
]
CountOpt = Annotated[int | None, typer.Option("--count", help="With -i: stop after this many runs.", min=1)]


def kebab(name: str) -> str:
    """``getSyncStateSet`` → ``get-sync-state-set``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


class AliasGroup(TyperGroup):
    """A command group that also answers to each command's kebab-case spelling (``get-sync-state-set``).

    Aliases are resolved by name instead of being registered as hidden twins: typer builds every registered
    command at each start, and twins cost every invocation ~40 ms.
    """

    @property
    def aliases(self) -> dict[str, str]:
        """kebab-case spelling → command name, for every command whose name is not already kebab-case."""
        return {kebab(name): name for name in self.commands if kebab(name) != name}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for command in self.commands.values():
            if not isinstance(command, TyperGroup) and not any("-n" in p.opts for p in command.params):
                command.params.append(namesrv_option())

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        return super().get_command(ctx, self.aliases.get(cmd_name, cmd_name))


def namesrv_option() -> TyperOption:
    """``-n/--namesrvAddr``, which every Java mqadmin command takes: accepted so Java scripts run unchanged, checked
    to be an address list, and not used (this tool finds brokers through the controllers, ``-a``)."""
    return TyperOption(
        param_decls=["-n", "--namesrvAddr"],
        expose_value=False,
        callback=_check_namesrv,
        metavar="HOST:PORT;...",
        help="Name server addresses, as Java mqadmin scripts pass them: accepted and ignored (brokers are found "
        "through the controllers, -a).",
    )


def _check_namesrv(ctx: typer.Context, _param: typer.CallbackParam, value: str | None) -> None:
    """A usage error unless `value` is a ``host:port`` list: ``sendMessage -n 10`` from before -n meant the name
    server must not silently send one message."""
    if value is None:
        return
    try:
        address_list(value, "name server")
    except ValueError as exc:
        hint = "; the number of messages is --count" if ctx.command.name in ("sendMessage", "consumeMessage") else ""
        raise typer.BadParameter(f"{exc}{hint}") from exc


def add_commands(app: typer.Typer, commands: dict[str, Callable[..., None]]) -> None:
    """Register commands under their RocketMQ names (an AliasGroup app resolves the kebab-case spellings)."""
    for name, fn in commands.items():
        app.command(name)(fn)


def client_security() -> Any:
    """The TLS and credential the root options, their env vars and the credentials file give (once per run)."""
    from pathlib import Path

    from mqbase.security import PLAINTEXT, SecurityError, client_security

    ctx = get_current_context(silent=True)
    root = ctx.find_root().obj if ctx is not None else None
    if not isinstance(root, dict):  # not run through the root command (a test calling a command directly)
        return PLAINTEXT
    if "resolved" not in root:
        try:
            root["resolved"] = client_security(root["explicit"], root["tls"], Path(root["credentialsFile"]))
        except SecurityError as exc:
            raise UsageError(str(exc)) from exc
    return root["resolved"]


def controller_client(addresses: str, timeout: float) -> Any:
    from mqbase.client import ControllerClient

    return ControllerClient(addresses, timeout, client_security())


def agent_client(timeout: float) -> Any:
    from mqbase.client import AgentClient

    return AgentClient(timeout, client_security())


Item = TypeVar("Item")
Result = TypeVar("Result")


def each_concurrently(items: list[Item], fn: Callable[[Item], Result]) -> list[Result]:
    """`fn` over `items` on a few threads (one slow broker must not serialise the rest), results in order."""
    if len(items) <= 1:
        return [fn(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(16, len(items))) as pool:
        return list(pool.map(fn, items))


def key_values(values: list[str] | None, option: str) -> dict[str, str]:
    """The ``key=value`` items of a repeatable `option` as a dict (later keys win); UsageError naming the option
    for an item without ``=`` or key."""
    out = {}
    for item in values or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{option} takes key=value, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def local_time(ms: int | None) -> str:
    """Epoch ms as the tables print a time (local, as Java's consumerProgress); empty for none."""
    return "" if ms is None else datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S")


def code_name(code: int) -> str:
    try:
        return ResponseCode(code).name
    except ValueError:
        return "UNKNOWN"


REFUSALS = frozenset(
    {
        ResponseCode.NO_PERMISSION,
        ResponseCode.CONTROLLER_ELECT_MASTER_FAILED,  # electMaster -b: the broker is not eligible (the remark: why)
        ResponseCode.CONTROLLER_INVALID_CLEAN_BROKER_METADATA,  # cleanBrokerMetadata: alive, or nothing to clean
    }
)
"""The codes by which a server declines a well-formed request: exit 4 (docs/cli.md, "Exit codes")."""


def check(response: Any, allow: tuple[int, ...] = ()) -> Any:
    """Return `response` when its code is SUCCESS (or allowed); otherwise raise OperationFailed (exit 1).

    A refusal (REFUSALS) raises OperationRefused (exit 4): retrying cannot help; CONTROLLER_INVALID_REQUEST
    raises RequestInvalid (exit 2): an argument is wrong.
    """
    if response.code != 0 and response.code not in allow:
        error = (
            OperationRefused
            if response.code in REFUSALS
            else RequestInvalid
            if response.code == ResponseCode.CONTROLLER_INVALID_REQUEST
            else OperationFailed
        )
        raise error(response.code, code_name(response.code), response.remark)
    return response


def opt(message: Any, field: str) -> Any:
    """A proto3 optional field's value, or None when unset."""
    return getattr(message, field) if message.HasField(field) else None


def run(
    fetch: Callable[[], Doc],
    output: Output,
    table: Callable[[Doc], None],
    legacy: Callable[[Doc], str] | None,
    interval: float | None = None,
    count: int | None = None,
) -> None:
    """Fetch and print once, or every `interval` seconds (``-i``) until Ctrl-C or `count` runs.

    In ``-i`` mode a failed run does not end the watch (a failover makes some runs fail): its error goes to
    stderr and the loop goes on; the exit code is that of the last run. JSON prints one document per line;
    a table on a terminal is redrawn in place.
    """
    if interval is None:
        emit(fetch(), output, table, legacy)
        return
    from rich.console import Console

    console = Console()
    redraw = output == Output.table and console.is_terminal
    runs, last_error = 0, None
    try:
        while count is None or runs < count:
            if runs:
                time.sleep(interval)
            runs += 1
            try:
                doc = fetch()
                last_error = None
            except MqError as exc:
                last_error = exc
                complain(exc)
                continue
            if redraw:
                console.clear()
            if output == Output.json:
                sys.stdout.write(json.dumps(doc, separators=(",", ":")) + "\n")
            else:
                emit(doc, output, table, legacy)
            sys.stdout.flush()
    except KeyboardInterrupt:
        return
    if last_error is not None:  # already printed: only the exit code is left to give
        raise typer.Exit(last_error.exit_code)
