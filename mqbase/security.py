"""TLS and signed admin requests for every gRPC server and client: controller, agent and ``mqadmin``.

One module so that the three processes cannot drift apart: the config keys (``SecurityConfig``, the same
Java-style names in ``controller.conf`` and ``agent.conf``), the request signature (HMAC-SHA256, RocketMQ
ACL-style access key + secret key; the secret never travels), the server side (TLS credentials and an
interceptor that answers a refused call with ``NO_PERMISSION`` and never runs it) and the client side (TLS
channels that sign every call). See docs/security.md for the threat model.

Signature: ``hex(HMAC-SHA256(secret, "MQ-HMAC-SHA256\\n" + method + "\\n" + timestamp_ms + "\\n" +
hex(SHA-256(body))))``, where ``method`` is the gRPC path and ``body`` the request's deterministic protobuf
serialization (empty for a stream). It is sent as metadata next to the access key and the timestamp; a
server accepts it within ``MAX_SKEW_MS`` of its own clock.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import stat
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any, NamedTuple

import grpc
from google.protobuf import message_factory  # type: ignore[import-untyped]

from mqbase.codes import ResponseCode
from mqbase.configkeys import ConfigError, format_value, java_keys, parse_bool, parse_fields, parse_str
from mqbase.errors import MqBaseError
from mqbase.properties import PropertiesError, read_properties

log = logging.getLogger(__name__)

ACCESS_KEY_HEADER = "x-mq-access-key"
TIMESTAMP_HEADER = "x-mq-timestamp"
SIGNATURE_HEADER = "x-mq-signature"
MAX_SKEW_MS = 300_000
"""How far a request's timestamp may be from the server's clock (it bounds how long a captured call replays)."""
MIN_SECRET_LENGTH = 16
MASK = "******"
SECRET_KEYS = frozenset({"adminSecretKey", "brokerSecretKey", "raftPassword"})
"""Config keys whose values are secrets: printed and served as MASK, never logged."""
CREDENTIALS_FILE_KEYS = ("accessKey", "secretKey", "tlsCaFile", "tlsCertFile", "tlsKeyFile")


class SecurityError(MqBaseError, ValueError):
    """Credentials or TLS material that cannot be used; the message says which file or key and why."""


# --- configuration (controller.conf and agent.conf) ----------------------------------------------


@dataclass(frozen=True, slots=True)
class SecurityConfig:
    """TLS and access control of one process; every field is a key of its config file (``SECURITY_KEYS``)."""

    tls_enable: bool = False
    tls_cert_path: str = ""
    tls_key_path: str = ""
    tls_ca_path: str = ""
    tls_client_auth: bool = False
    acl_enable: bool = False
    admin_access_key: str = ""
    admin_secret_key: str = field(default="", repr=False)
    broker_access_key: str = ""
    broker_secret_key: str = field(default="", repr=False)

    @property
    def broker_credential(self) -> Credential | None:
        """What this process signs its calls to other cluster members with (None: it does not sign)."""
        if not self.broker_access_key:
            return None
        return Credential(self.broker_access_key, self.broker_secret_key)

    def client(self) -> ClientSecurity:
        """How this process calls the other members: its TLS files (its certificate is its client certificate)."""
        return ClientSecurity(
            self.tls_enable, self.tls_ca_path, self.tls_cert_path, self.tls_key_path, self.broker_credential
        )


SECURITY_KEYS: dict[str, str] = java_keys(SecurityConfig)
"""Java-style key → SecurityConfig field name."""
_PATH_FIELDS = ("tls_cert_path", "tls_key_path", "tls_ca_path")


def parse_security(base: SecurityConfig, values: Mapping[str, str]) -> SecurityConfig:
    """`base` with the security keys of `values` parsed (not validated: see ``validate_security``)."""
    return replace(base, **parse_fields(SecurityConfig, values, {"bool": parse_bool, "str": parse_str}))


def resolve_paths(s: SecurityConfig, base_dir: Path) -> SecurityConfig:
    """Relative TLS paths resolved against `base_dir` (the directory of the config file that named them)."""
    resolved: dict[str, Any] = {n: str(base_dir / Path(v).expanduser()) for n in _PATH_FIELDS if (v := getattr(s, n))}
    return replace(s, **resolved)


def validate_security(s: SecurityConfig) -> SecurityConfig:
    """Refuse half-configured security: a switch without what it needs, a key without its secret."""
    if s.tls_enable and not (s.tls_cert_path and s.tls_key_path):
        raise ConfigError("tlsEnable=true needs tlsCertPath and tlsKeyPath (this process's certificate and key)")
    if s.tls_client_auth and not (s.tls_enable and s.tls_ca_path):
        raise ConfigError("tlsClientAuth=true needs tlsEnable=true and tlsCaPath (the CA that signs client certs)")
    for key, name in SECURITY_KEYS.items():
        path = getattr(s, name)
        if name in _PATH_FIELDS and path and not Path(path).expanduser().is_file():
            raise ConfigError(f"{key} {path} is not a readable file")
    for role in ("admin", "broker"):
        access, secret = getattr(s, f"{role}_access_key"), getattr(s, f"{role}_secret_key")
        if bool(access) != bool(secret):
            raise ConfigError(f"{role}AccessKey and {role}SecretKey go together: set both or neither")
        if secret and len(secret) < MIN_SECRET_LENGTH:
            raise ConfigError(f"{role}SecretKey must be at least {MIN_SECRET_LENGTH} characters")
        if access and any(c.isspace() or not c.isprintable() for c in access):
            raise ConfigError(f"{role}AccessKey must not contain whitespace or control characters")
    if s.acl_enable and not (s.admin_access_key and s.broker_access_key):
        raise ConfigError(
            "aclEnable=true needs adminAccessKey/adminSecretKey (mqadmin) and brokerAccessKey/brokerSecretKey "
            "(brokers and controllers calling each other)"
        )
    if s.admin_access_key and s.admin_access_key == s.broker_access_key:
        raise ConfigError("adminAccessKey and brokerAccessKey must differ: each names one role")
    return s


def security_properties(s: SecurityConfig) -> dict[str, str]:
    """Java-named text of every security key, secrets masked (for -p, GetControllerConfig and the like)."""
    return mask_secrets({key: format_value(getattr(s, name)) for key, name in SECURITY_KEYS.items()})


def mask_secrets(props: Mapping[str, str]) -> dict[str, str]:
    """`props` with the value of every set secret key replaced by MASK."""
    return {k: MASK if k in SECRET_KEYS and v else v for k, v in props.items()}


# --- signatures (pure) ----------------------------------------------------------------------------


class Role(Enum):
    """Who may call what: administrators (mqadmin) and cluster members (brokers, controllers calling agents)."""

    ADMIN = "admin"
    BROKER = "broker"


@dataclass(frozen=True, slots=True)
class Credential:
    """An access key and its secret; the secret never appears in a repr or a log line."""

    access_key: str
    secret_key: str = field(repr=False)


def signature(secret_key: str, method: str, timestamp_ms: int, body: bytes) -> str:
    text = f"MQ-HMAC-SHA256\n{method}\n{timestamp_ms}\n{hashlib.sha256(body).hexdigest()}"
    return hmac.new(secret_key.encode(), text.encode(), hashlib.sha256).hexdigest()


def sign(credential: Credential, method: str, timestamp_ms: int, body: bytes) -> list[tuple[str, str]]:
    """The metadata that authenticates one call."""
    return [
        (ACCESS_KEY_HEADER, credential.access_key),
        (TIMESTAMP_HEADER, str(timestamp_ms)),
        (SIGNATURE_HEADER, signature(credential.secret_key, method, timestamp_ms, body)),
    ]


def accounts(s: SecurityConfig) -> dict[str, tuple[str, Role]]:
    """Access key → (secret, role) of the credentials a server accepts."""
    out = {}
    if s.admin_access_key:
        out[s.admin_access_key] = (s.admin_secret_key, Role.ADMIN)
    if s.broker_access_key:
        out[s.broker_access_key] = (s.broker_secret_key, Role.BROKER)
    return out


def refusal(
    metadata: Mapping[str, str],
    method: str,
    body: bytes,
    now_ms: int,
    known: Mapping[str, tuple[str, Role]],
    allowed: frozenset[Role],
) -> str | None:
    """Why a call to `method` carrying `metadata` is refused, or None when its signature and role pass."""
    access_key = metadata.get(ACCESS_KEY_HEADER)
    if not access_key:
        return "no credentials sent"
    account = known.get(access_key)
    if account is None:
        return f"unknown access key {access_key!r}"
    try:
        timestamp_ms = int(metadata.get(TIMESTAMP_HEADER, ""))
    except ValueError:
        return "malformed request timestamp"
    if abs(now_ms - timestamp_ms) > MAX_SKEW_MS:
        return (
            f"request timestamp is {abs(now_ms - timestamp_ms) / 1000:.0f} s away from the server clock "
            f"(allowed: {MAX_SKEW_MS // 1000} s); synchronise the clocks"
        )
    secret, role = account
    if not hmac.compare_digest(signature(secret, method, timestamp_ms, body), metadata.get(SIGNATURE_HEADER, "")):
        return f"signature of access key {access_key!r} does not match (wrong secret key?)"
    if role not in allowed:
        return f"access key {access_key!r} has the {role.value} role"
    return None


def private_file_problem(mode: int, owner: int, uid: int) -> str | None:
    """Why a file with this mode and owner must not hold secrets (as ssh refuses a readable private key)."""
    if owner != uid:
        return f"is owned by uid {owner}, not by you (uid {uid})"
    if mode & 0o077:
        return f"is accessible by group or others (mode {stat.S_IMODE(mode):04o}); run chmod 600 on it"
    return None


def read_credentials_file(path: Path) -> dict[str, str]:
    """The keys of a credentials file (``CREDENTIALS_FILE_KEYS``); refused unless only its owner can read it."""
    try:
        st = path.stat()
    except OSError as exc:
        raise SecurityError(f"cannot read credentials file {path}: {exc.strerror}") from exc
    problem = private_file_problem(st.st_mode, st.st_uid, os.getuid())
    if problem:
        raise SecurityError(f"credentials file {path} {problem}")
    try:
        values = read_properties(path)
    except PropertiesError as exc:
        raise SecurityError(str(exc)) from exc
    unknown = sorted(values.keys() - set(CREDENTIALS_FILE_KEYS))
    if unknown:
        raise SecurityError(f"credentials file {path}: unknown key(s) {', '.join(unknown)}; "
                            f"known: {', '.join(CREDENTIALS_FILE_KEYS)}")  # fmt: skip
    return {k: v for k, v in values.items() if v}


# --- clients ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClientSecurity:
    """How a client reaches servers: TLS (with a CA file, or the system roots), a client certificate, a credential."""

    tls: bool = False
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""
    credential: Credential | None = None


PLAINTEXT = ClientSecurity()
"""No TLS and no signature: what every client does unless configured otherwise."""


def client_security(explicit: Mapping[str, str], tls: bool, credentials_file: Path | None) -> ClientSecurity:
    """mqadmin's security from `explicit` values (options or env, keyed as CREDENTIALS_FILE_KEYS) over the file's.

    The credentials file fills in what options and environment leave unset; it is read only when it exists.
    """
    values = {k: v for k, v in explicit.items() if v}
    if credentials_file is not None and credentials_file.exists():
        values = read_credentials_file(credentials_file) | values
    access, secret = values.get("accessKey", ""), values.get("secretKey", "")
    if bool(access) != bool(secret):
        raise SecurityError("an access key needs its secret key and the other way round (options, env or file)")
    ca, cert, key = (values.get(k, "") for k in ("tlsCaFile", "tlsCertFile", "tlsKeyFile"))
    if bool(cert) != bool(key):
        raise SecurityError("a TLS client certificate needs its key and the other way round")
    for path in (ca, cert, key):
        if path and not Path(path).expanduser().is_file():
            raise SecurityError(f"TLS file {path} is not a readable file")
    credential = Credential(access, secret) if access else None
    return ClientSecurity(tls or bool(ca or cert), ca, cert, key, credential)


def _read(path: str) -> bytes | None:
    if not path:
        return None
    try:
        return Path(path).expanduser().read_bytes()
    except OSError as exc:
        raise SecurityError(f"cannot read TLS file {path}: {exc.strerror}") from exc


class _CallDetails(NamedTuple):
    """The fields of grpc.ClientCallDetails (a NamedTuple cannot also derive from grpc's ABC: see below)."""

    method: str
    timeout: float | None
    metadata: Sequence[tuple[str, str]] | None
    credentials: grpc.CallCredentials | None
    wait_for_ready: bool | None
    compression: Any


class _Signer(grpc.UnaryUnaryClientInterceptor, grpc.StreamStreamClientInterceptor):  # type: ignore[misc]
    """Adds the signature metadata to every call of a channel (streams sign an empty body)."""

    def __init__(self, credential: Credential, clock: Callable[[], float] = time.time) -> None:
        self._credential = credential
        self._clock = clock

    def _details(self, details: Any, body: bytes) -> grpc.ClientCallDetails:
        signed = sign(self._credential, details.method, int(self._clock() * 1000), body)
        return _ClientCallDetails(
            details.method, details.timeout, [*(details.metadata or ()), *signed], details.credentials,
            details.wait_for_ready, details.compression,
        )  # fmt: skip

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details, request.SerializeToString(deterministic=True)), request)

    def intercept_stream_stream(self, continuation: Any, details: Any, request_iterator: Any) -> Any:
        return continuation(self._details(details, b""), request_iterator)


class _ClientCallDetails(_CallDetails, grpc.ClientCallDetails):  # type: ignore[misc]
    """grpc wants an instance of its ABC; the named tuple carries the fields."""


RECONNECT_OPTIONS = (("grpc.initial_reconnect_backoff_ms", 250), ("grpc.max_reconnect_backoff_ms", 1000))
"""gRPC's reconnect backoff grows to 120 s, and every channel of the process to one address shares it (the global
subchannel pool): a peer that was down for a minute stayed unreachable for up to as long again after it came back,
to a new channel too. Capped at 1 s, a restarted agent or controller is reached within a second."""


def open_channel(address: str, security: ClientSecurity, options: Sequence[tuple[str, Any]] = ()) -> grpc.Channel:
    """A channel to `address`: TLS or plaintext as `security` says, signing every call when it has a credential,
    retrying a lost connection at least every second (`RECONNECT_OPTIONS`; `options` may override them)."""
    options = list((dict(RECONNECT_OPTIONS) | dict(options)).items())
    if security.tls:
        credentials = grpc.ssl_channel_credentials(
            root_certificates=_read(security.ca_file),
            private_key=_read(security.key_file),
            certificate_chain=_read(security.cert_file),
        )
        channel = grpc.secure_channel(address, credentials, options=list(options))
    else:
        channel = grpc.insecure_channel(address, options=list(options))
    if security.credential is not None:
        channel = grpc.intercept_channel(channel, _Signer(security.credential))
    return channel


def transport_hint(security: ClientSecurity) -> str:
    """What to check when a server cannot be reached: most often TLS on one side only."""
    if security.tls:
        return "is it serving TLS, with a certificate the CA file trusts (and does it want a client certificate)?"
    return "if it serves TLS, connect with --tls/--tlsCaFile (env MQADMIN_TLS_CA_FILE)"


# --- servers ----------------------------------------------------------------------------------------


def add_port(server: Any, address: str, s: SecurityConfig) -> int:
    """Bind `address` on a grpc or grpc.aio server: TLS when configured; returns the port (0: not bound)."""
    if not s.tls_enable:
        return int(server.add_insecure_port(address))
    key, cert = _read(s.tls_key_path), _read(s.tls_cert_path)
    assert key is not None and cert is not None  # validate_security: tlsEnable needs both
    credentials = grpc.ssl_server_credentials(
        [(key, cert)],
        root_certificates=_read(s.tls_ca_path) if s.tls_client_auth else None,
        require_client_auth=s.tls_client_auth,
    )
    return int(server.add_secure_port(address, credentials))


class Guard:
    """Decides the calls of one service that need a credential; `policy` maps method names to the roles allowed."""

    def __init__(
        self, s: SecurityConfig, service: Any, policy: Mapping[str, frozenset[Role]], clock: Callable[[], float]
    ) -> None:
        """`service`: the protobuf ServiceDescriptor (its output types are what a refusal answers with)."""
        unknown = set(policy) - {m.name for m in service.methods}
        if unknown:
            raise ValueError(f"policy names methods {service.full_name} does not have: {sorted(unknown)}")
        self._accounts = accounts(s)
        self._clock = clock
        prefix = f"/{service.full_name}/"
        self._policy = {prefix + name: roles for name, roles in policy.items()}
        self._responses = {prefix + m.name: message_factory.GetMessageClass(m.output_type) for m in service.methods}

    def guards(self, method: str) -> bool:
        return method in self._policy

    def check(self, details: Any, body: bytes) -> str | None:
        """The remark of a refusal of this call, or None to let it run."""
        method = details.method
        allowed = self._policy[method]
        metadata = {k: v for k, v in details.invocation_metadata or () if isinstance(v, str)}
        reason = refusal(metadata, method, body, int(self._clock() * 1000), self._accounts, allowed)
        if reason is None:
            return None
        name = method.rpartition("/")[2]
        log.warning("refused %s: %s", name, reason)
        if Role.ADMIN in allowed:
            how = ("give admin credentials with --accessKey/--secretKey, MQADMIN_ACCESS_KEY/MQADMIN_SECRET_KEY "
                   "or a credentials file (docs/security.md)")  # fmt: skip
        else:
            how = "set brokerAccessKey/brokerSecretKey in the caller's config to this cluster's broker credential"
        return f"{name} needs {' or '.join(sorted(r.value for r in allowed))} credentials: {reason}; {how}"

    def refused(self, method: str, remark: str) -> Any:
        return self._responses[method](code=ResponseCode.NO_PERMISSION, remark=remark)


class ServerGuard(grpc.ServerInterceptor):  # type: ignore[misc]
    """The Guard on a synchronous grpc server (the agent): a refused unary call is answered, not run."""

    def __init__(self, guard: Guard) -> None:
        self._guard = guard

    def intercept_service(self, continuation: Callable[[Any], Any], details: Any) -> Any:
        handler = continuation(details)
        guard = self._guard
        if handler is None or not guard.guards(details.method):
            return handler
        if handler.unary_unary is None:
            raise TypeError(f"{details.method}: only unary calls can be guarded on a synchronous server")
        inner = handler.unary_unary

        def checked(request: Any, context: Any) -> Any:
            remark = guard.check(details, request.SerializeToString(deterministic=True))
            return inner(request, context) if remark is None else guard.refused(details.method, remark)

        return grpc.unary_unary_rpc_method_handler(
            checked, request_deserializer=handler.request_deserializer, response_serializer=handler.response_serializer
        )


class AioServerGuard(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """The Guard on a grpc.aio server (the controller); a refused stream ends with PERMISSION_DENIED."""

    def __init__(self, guard: Guard) -> None:
        self._guard = guard

    async def intercept_service(self, continuation: Callable[[Any], Any], details: Any) -> Any:
        handler = await continuation(details)
        guard = self._guard
        if handler is None or not guard.guards(details.method):
            return handler
        if handler.unary_unary is not None:
            unary = handler.unary_unary

            async def checked(request: Any, context: Any) -> Any:
                remark = guard.check(details, request.SerializeToString(deterministic=True))
                return await unary(request, context) if remark is None else guard.refused(details.method, remark)

            return grpc.unary_unary_rpc_method_handler(
                checked, request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )  # fmt: skip
        if handler.stream_stream is None:
            raise TypeError(f"{details.method}: only unary and bidirectional calls can be guarded")
        stream = handler.stream_stream

        async def checked_stream(request_iterator: Any, context: Any) -> Any:
            remark = guard.check(details, b"")
            if remark is not None:
                await context.abort(
                    grpc.StatusCode.PERMISSION_DENIED, f"NO_PERMISSION ({ResponseCode.NO_PERMISSION:d}): {remark}"
                )
            return await stream(request_iterator, context)

        return grpc.stream_stream_rpc_method_handler(
            checked_stream, request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )  # fmt: skip
