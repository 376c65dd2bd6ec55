"""The pure parts of security: request signatures, the credentials file check, config parsing and masking,
the mqadmin resolution of options / env / file, HA admission, and the sandbox's key material."""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from cryptography import x509

from agents.config import parse_agent
from agents.ha.master_session import admit_slave
from controller import config as controller_config
from controller.config import ControllerConfig, validate, with_overrides
from mqadmin_py.sandbox_secure import create
from mqbase.configkeys import ConfigError
from mqbase.proto import controller_pb2 as pb
from mqbase.security import (
    ACCESS_KEY_HEADER,
    MASK,
    MAX_SKEW_MS,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    Credential,
    Guard,
    Role,
    SecurityConfig,
    SecurityError,
    accounts,
    client_security,
    private_file_problem,
    read_credentials_file,
    refusal,
    sign,
    validate_security,
)

PEERS = "n0-127.0.0.1:9878:9876"
ADMIN = Credential("admin-ak", "admin-secret-0123456789")
BROKER = Credential("broker-ak", "broker-secret-0123456789")
SECURE = SecurityConfig(
    acl_enable=True,
    admin_access_key=ADMIN.access_key,
    admin_secret_key=ADMIN.secret_key,
    broker_access_key=BROKER.access_key,
    broker_secret_key=BROKER.secret_key,
)
KNOWN = accounts(SECURE)
METHOD = "/mqadmin.controller.v1.ControllerService/ElectMaster"
NOW = 1_800_000_000_000
BODY = pb.ElectMasterRequest(cluster_name="c", broker_name="b", broker_id=2).SerializeToString(deterministic=True)
ADMINS = frozenset({Role.ADMIN})


def signed(
    credential: Credential = ADMIN, *, at: int = NOW, body: bytes = BODY, method: str = METHOD
) -> dict[str, str]:
    return dict(sign(credential, method, at, body))


# --- signatures ----------------------------------------------------------------------------------


def test_signature_is_hmac_sha256_over_method_timestamp_and_body_hash() -> None:
    text = f"MQ-HMAC-SHA256\n{METHOD}\n{NOW}\n{hashlib.sha256(BODY).hexdigest()}".encode()
    expected = hmac.new(ADMIN.secret_key.encode(), text, hashlib.sha256).hexdigest()
    metadata = signed()
    assert metadata == {ACCESS_KEY_HEADER: "admin-ak", TIMESTAMP_HEADER: str(NOW), SIGNATURE_HEADER: expected}
    assert ADMIN.secret_key not in metadata.values()


def test_a_correctly_signed_call_passes() -> None:
    assert refusal(signed(), METHOD, BODY, NOW, KNOWN, ADMINS) is None
    assert refusal(signed(at=NOW - MAX_SKEW_MS), METHOD, BODY, NOW, KNOWN, ADMINS) is None


@pytest.mark.parametrize(
    ("metadata", "body", "now", "reason"),
    [
        ({}, BODY, NOW, "no credentials sent"),
        (signed(Credential("stranger", ADMIN.secret_key)), BODY, NOW, "unknown access key 'stranger'"),
        (signed(Credential("admin-ak", "not-the-secret-0000")), BODY, NOW, "does not match"),
        (signed(), BODY + b"\x08\x03", NOW, "does not match"),  # a changed request (another broker id)
        (signed(method=METHOD + "x"), BODY, NOW, "does not match"),  # replayed to another method
        (signed(at=NOW - MAX_SKEW_MS - 1), BODY, NOW, "away from the server clock"),
        (signed(at=NOW + MAX_SKEW_MS + 1), BODY, NOW, "away from the server clock"),
        ({**signed(), TIMESTAMP_HEADER: "soon"}, BODY, NOW, "malformed request timestamp"),
        (signed(BROKER), BODY, NOW, "'broker-ak' has the broker role"),
    ],
)
def test_refusals_say_why(metadata: dict[str, str], body: bytes, now: int, reason: str) -> None:
    refused = refusal(metadata, METHOD, body, now, KNOWN, ADMINS)
    assert refused is not None and reason in refused


def test_guard_refuses_a_policy_naming_no_method_of_the_service() -> None:
    service = pb.DESCRIPTOR.services_by_name["ControllerService"]
    with pytest.raises(ValueError, match="ElectMastr"):
        Guard(SECURE, service, {"ElectMastr": ADMINS}, lambda: 0.0)


# --- the credentials file ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "owner", "problem"),
    [
        (0o600, 1000, None),
        (0o400, 1000, None),
        (0o640, 1000, "mode 0640"),
        (0o604, 1000, "mode 0604"),
        (0o610, 1000, "mode 0610"),
        (0o600, 0, "owned by uid 0"),
    ],
)
def test_private_file_problem(mode: int, owner: int, problem: str | None) -> None:
    found = private_file_problem(stat.S_IFREG | mode, owner, 1000)
    assert found == problem if problem is None else problem in (found or "")


def write(path: Path, text: str, mode: int) -> Path:
    path.write_text(text)
    path.chmod(mode)
    return path


def test_a_readable_credentials_file_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "credentials", "accessKey=ak\nsecretKey=sk-0123456789abcdef\n", 0o644)
    with pytest.raises(SecurityError, match="chmod 600"):
        read_credentials_file(path)
    path.chmod(0o600)
    assert read_credentials_file(path) == {"accessKey": "ak", "secretKey": "sk-0123456789abcdef"}


def test_credentials_file_unknown_keys_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "credentials", "accesKey=ak\n", 0o600)
    with pytest.raises(SecurityError, match=r"unknown key.*accesKey"):
        read_credentials_file(path)


def test_options_and_env_win_over_the_file_which_fills_the_rest(tmp_path: Path) -> None:
    ca = write(tmp_path / "ca.pem", "x", 0o644)
    path = write(tmp_path / "c", f"accessKey=file-ak\nsecretKey=file-sk\ntlsCaFile={ca}\n", 0o600)
    s = client_security({"accessKey": "opt-ak", "secretKey": "opt-sk", "tlsCaFile": ""}, False, path)
    assert s.credential == Credential("opt-ak", "opt-sk")
    assert (s.tls, s.ca_file) == (True, str(ca))  # a CA file implies TLS
    assert "opt-sk" not in repr(s)


def test_client_security_without_anything_is_plaintext(tmp_path: Path) -> None:
    s = client_security({}, False, tmp_path / "missing")
    assert (s.tls, s.credential) == (False, None)
    assert client_security({}, True, None).tls


@pytest.mark.parametrize(
    ("explicit", "match"),
    [
        ({"accessKey": "ak"}, "access key needs its secret"),
        ({"tlsCertFile": "/c.pem"}, "certificate needs its key"),
        ({"tlsCaFile": "/nonexistent/ca.pem"}, "TLS file /nonexistent/ca.pem is not a readable file"),
    ],
)
def test_half_a_pair_is_refused(explicit: dict[str, str], match: str) -> None:
    with pytest.raises(SecurityError, match=match):
        client_security(explicit, False, None)


# --- config keys, validation and masking --------------------------------------------------------------


def test_controller_parses_the_security_keys_and_masks_secrets() -> None:
    values = {
        "controllerPeers": PEERS,
        "controllerSelfId": "n0",
        "aclEnable": "true",
        "adminAccessKey": ADMIN.access_key,
        "adminSecretKey": ADMIN.secret_key,
        "brokerAccessKey": BROKER.access_key,
        "brokerSecretKey": BROKER.secret_key,
        "raftPassword": "raft-password-42",
    }
    c = validate(with_overrides(ControllerConfig(), values))
    assert c.security == SECURE and c.raft_password == "raft-password-42"
    props = controller_config.to_properties(c)
    assert props["adminSecretKey"] == props["brokerSecretKey"] == props["raftPassword"] == MASK
    assert props["adminAccessKey"] == ADMIN.access_key and props["aclEnable"] == "true"
    text = repr(c) + str(props)
    for secret in (ADMIN.secret_key, BROKER.secret_key, "raft-password-42"):
        assert secret not in text


def test_unset_secrets_print_empty_and_defaults_are_off() -> None:
    props = controller_config.to_properties(ControllerConfig())
    assert props["adminSecretKey"] == props["raftPassword"] == ""
    assert props["tlsEnable"] == props["aclEnable"] == props["tlsClientAuth"] == "false"


def test_a_misspelt_security_key_is_refused_with_a_hint() -> None:
    with pytest.raises(ConfigError, match="did you mean 'tlsEnable'"):
        with_overrides(ControllerConfig(), {"tlsEnabled": "true"})


@pytest.mark.parametrize(
    ("config", "match"),
    [
        (SecurityConfig(tls_enable=True), "tlsEnable=true needs tlsCertPath and tlsKeyPath"),
        (SecurityConfig(tls_client_auth=True), "tlsClientAuth=true needs tlsEnable=true and tlsCaPath"),
        (SecurityConfig(tls_ca_path="/nonexistent/ca.pem"), "tlsCaPath /nonexistent/ca.pem is not a readable file"),
        (SecurityConfig(admin_access_key="ak"), "adminAccessKey and adminSecretKey go together"),
        (SecurityConfig(broker_access_key="bk", broker_secret_key="short"), "brokerSecretKey must be at least 16"),
        (SecurityConfig(admin_access_key="a k", admin_secret_key="s" * 16), "must not contain whitespace"),
        (SecurityConfig(acl_enable=True), "aclEnable=true needs adminAccessKey"),
        (replace(SECURE, broker_access_key=ADMIN.access_key), "must differ"),
    ],
)
def test_half_configured_security_is_refused(config: SecurityConfig, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        validate_security(config)


def test_agent_security_paths_are_relative_to_its_file_and_shared_by_an_embedded_controller(tmp_path: Path) -> None:
    for name in ("cert.pem", "key.pem", "ca.pem"):
        (tmp_path / name).write_text("x")
    values = {
        "tlsEnable": "true",
        "tlsCertPath": "cert.pem",
        "tlsKeyPath": "key.pem",
        "tlsCaPath": "ca.pem",
        "tlsClientAuth": "true",
        "brokerAccessKey": BROKER.access_key,
        "brokerSecretKey": BROKER.secret_key,
        "enableControllerInAgent": "true",
        "controllerPeers": PEERS,
        "controllerSelfId": "n0",
        "raftPassword": "raft-password-42",
    }
    c = parse_agent(values, tmp_path)
    assert c.security.tls_cert_path == str(tmp_path / "cert.pem")
    assert c.controller_config is not None and c.controller_config.security == c.security
    assert c.controller_config.raft_password == "raft-password-42"
    props = c.to_properties()
    assert props["brokerSecretKey"] == props["raftPassword"] == MASK
    assert BROKER.secret_key not in repr(c)


def test_raft_password_needs_an_embedded_controller(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="raftPassword: controller keys need enableControllerInAgent=true"):
        parse_agent({"raftPassword": "x"}, tmp_path)


# --- HA admission ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("slave", "registered", "reason"),
    [
        (2, frozenset({1, 2, 3}), None),
        (7, frozenset({1, 2, 3}), "broker id 7 is not registered in this broker set (registered: [1, 2, 3])"),
        (1, frozenset({1, 2}), "broker id 1 is this master's own id"),
        (2, None, "not yet learnt"),
    ],
)
def test_admit_slave(slave: int, registered: frozenset[int] | None, reason: str | None) -> None:
    found = admit_slave(slave, 1, registered)
    assert found == reason if reason is None else reason in (found or "")


# --- the sandbox's material -------------------------------------------------------------------------


def test_sandbox_material_is_private_and_names_loopback(tmp_path: Path) -> None:
    material = create(tmp_path)
    assert stat.S_IMODE(os.stat(material.tls_dir).st_mode) == 0o700
    files = [*material.tls_dir.iterdir(), tmp_path / "credentials"]
    assert len(files) == 6
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)
    cert = x509.load_pem_x509_certificate(material.cert("server").read_bytes())
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(ip) for ip in san.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"]
    assert san.get_values_for_type(x509.DNSName) == ["localhost"]
    ca = x509.load_pem_x509_certificate(material.ca.read_bytes())
    cert.verify_directly_issued_by(ca)
    resolved = client_security({}, False, tmp_path / "credentials")
    assert resolved.credential == material.admin and resolved.tls
    validate_security(SecurityConfig(  # the keys every process gets form a valid configuration
        tls_enable=True, tls_cert_path=str(material.cert("server")), tls_key_path=str(material.key("server")),
        tls_ca_path=str(material.ca), tls_client_auth=True, acl_enable=True,
        admin_access_key=material.admin.access_key, admin_secret_key=material.admin.secret_key,
        broker_access_key=material.broker.access_key, broker_secret_key=material.broker.secret_key,
    ))  # fmt: skip
