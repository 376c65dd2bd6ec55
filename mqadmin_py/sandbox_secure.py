"""Key material of a ``mqadmin sandbox up --secure`` cluster, made on the spot and kept under the sandbox directory.

A local CA signs one certificate that every controller and agent uses (server, and client for their calls to each
other) and one for ``mqadmin``; both name ``localhost`` and ``127.0.0.1``. Random admin and broker credentials
and a Raft password complete it. Every file is written with mode 0600 in a 0700 directory; ``credentials`` is
an ``mqadmin`` credentials file (``MQADMIN_CREDENTIALS_FILE``) that reaches the sandbox with TLS and the admin key.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from mqbase.properties import dump_properties
from mqbase.security import Credential

TLS_DIR = "tls"
CREDENTIALS_FILE = "credentials"
VALID_DAYS = 365


@dataclass(frozen=True, slots=True)
class SecureMaterial:
    """Where the sandbox's TLS files are, and the secrets its configs carry."""

    tls_dir: Path
    admin: Credential
    broker: Credential
    raft_password: str

    @property
    def ca(self) -> Path:
        return self.tls_dir / "ca.pem"

    def cert(self, name: str) -> Path:
        return self.tls_dir / f"{name}.pem"

    def key(self, name: str) -> Path:
        return self.tls_dir / f"{name}.key"

    def process_keys(self) -> dict[str, str]:
        """Config keys of every controller and agent: TLS with client certificates required, and the ACL."""
        return {
            "tlsEnable": "true",
            "tlsCertPath": str(self.cert("server")),
            "tlsKeyPath": str(self.key("server")),
            "tlsCaPath": str(self.ca),
            "tlsClientAuth": "true",
            "aclEnable": "true",
            "adminAccessKey": self.admin.access_key,
            "adminSecretKey": self.admin.secret_key,
            "brokerAccessKey": self.broker.access_key,
            "brokerSecretKey": self.broker.secret_key,
        }

    def credentials(self) -> dict[str, str]:
        """The mqadmin credentials file: the admin key and the client certificate."""
        return {
            "accessKey": self.admin.access_key,
            "secretKey": self.admin.secret_key,
            "tlsCaFile": str(self.ca),
            "tlsCertFile": str(self.cert("client")),
            "tlsKeyFile": str(self.key("client")),
        }


def write_private(path: Path, data: bytes) -> None:
    """Create (or replace) `path` readable by its owner only, from the first byte on."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(path, 0o600)  # an existing file keeps its mode through O_CREAT


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())  # fmt: skip


def _certificate(
    subject: str, key: ec.EllipticCurvePrivateKey, issuer: tuple[x509.Name, ec.EllipticCurvePrivateKey] | None,
    usages: list[x509.ObjectIdentifier],
) -> x509.Certificate:  # fmt: skip
    """A CA certificate (`issuer` None: self-signed) or a leaf for localhost/127.0.0.1 with these key usages."""
    now = datetime.datetime.now(datetime.UTC)
    issuer_name, signing_key = issuer or (_name(subject), key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True)
    )
    if issuer is None:
        usage = x509.KeyUsage(False, False, False, False, False, True, True, False, False)  # cert and CRL signing
        builder = builder.add_extension(usage, critical=True)
    else:
        san = x509.SubjectAlternativeName(
            [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        )
        builder = builder.add_extension(san, critical=False).add_extension(
            x509.ExtendedKeyUsage(usages), critical=False
        )
    return builder.sign(signing_key, hashes.SHA256())


def create(directory: Path) -> SecureMaterial:
    """Make the CA, the two certificates, the secrets and the credentials file under `directory`."""
    tls_dir = directory / TLS_DIR
    tls_dir.mkdir(parents=True, mode=0o700, exist_ok=True)
    material = SecureMaterial(
        tls_dir,
        Credential(f"admin-{secrets.token_hex(4)}", secrets.token_urlsafe(32)),
        Credential(f"broker-{secrets.token_hex(4)}", secrets.token_urlsafe(32)),
        secrets.token_urlsafe(32),
    )
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _certificate("mqadmin sandbox CA", ca_key, None, [])
    write_private(material.ca, ca.public_bytes(serialization.Encoding.PEM))
    both = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
    for name, usages in (("server", both), ("client", [ExtendedKeyUsageOID.CLIENT_AUTH])):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _certificate(f"mqadmin sandbox {name}", key, (ca.subject, ca_key), usages)
        write_private(material.key(name), _pem_key(key))
        write_private(material.cert(name), cert.public_bytes(serialization.Encoding.PEM))
    header = "# mqadmin credentials of the sandbox: export MQADMIN_CREDENTIALS_FILE=<this file>\n"
    write_private(directory / CREDENTIALS_FILE, (header + dump_properties(material.credentials())).encode())
    return material
