"""The broker's persistent controller id: the two-phase ``brokerIdentity`` files (Java's ``BrokerMetadata``).

A new broker asks the controller for the next free id, writes ``brokerIdentity-temp`` holding
``cluster#broker#id#<brokerAddress>;<epochMillis>``, applies the id with that register check code, and only then
writes ``brokerIdentity`` holding ``cluster#broker#id`` and deletes the temp file. After a crash the files say
how far it got: ``brokerIdentity`` present → the id is ours; only the temp file → apply it again with the same
check code (the controller accepts a repeated apply with the same code); neither → start over.

A file that exists but does not parse raises IdentityError and is left untouched: treating it as missing would
register the broker a second time under a new id. Both files are replaced atomically, so a crash never leaves
half a file (hence no ``.bak``; see docs/decisions.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from agents.errors import AgentError
from mqbase.configkeys import address_problem, name_problem
from mqbase.files import atomic_write, fsync_dir

IDENTITY_FILE = "brokerIdentity"
TEMP_FILE = "brokerIdentity-temp"
_INT64_MAX = 2**63 - 1
_T = TypeVar("_T")


class IdentityError(AgentError, ValueError):
    """Identity files that cannot be trusted, or an identity that does not belong to this broker's config."""


def _broker_id(text: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 19) or not 1 <= int(text) <= _INT64_MAX:
        raise IdentityError(f"broker id must be a positive 64-bit integer, got {text[:40]!r}")
    return int(text)


@dataclass(frozen=True, slots=True)
class Identity:
    """What ``brokerIdentity`` holds: the id the controller gave this broker, and the names it was given for."""

    cluster_name: str
    broker_name: str
    broker_id: int

    def __post_init__(self) -> None:
        for field, value in (("cluster name", self.cluster_name), ("broker name", self.broker_name)):
            if problem := name_problem(value):
                raise IdentityError(f"{field} {problem}")
        if not 1 <= self.broker_id <= _INT64_MAX:
            raise IdentityError(f"broker id must be a positive 64-bit integer, got {self.broker_id}")

    def encode(self) -> str:
        return f"{self.cluster_name}#{self.broker_name}#{self.broker_id}"

    @classmethod
    def decode(cls, text: str) -> Identity:
        parts = text.strip().split("#")
        if len(parts) != 3:
            raise IdentityError(f"expected 'cluster#broker#id', got {text[:80]!r}")
        return cls(parts[0], parts[1], _broker_id(parts[2]))


@dataclass(frozen=True, slots=True)
class TempIdentity:
    """What ``brokerIdentity-temp`` holds: an id being applied, with the check code that proves it is ours."""

    identity: Identity
    register_check_code: str

    def __post_init__(self) -> None:
        address, sep, millis = self.register_check_code.rpartition(";")
        if not sep or not (millis.isascii() and millis.isdigit() and len(millis) <= 19):
            raise IdentityError(
                f"register check code must be <brokerAddress>;<epochMillis>, got {self.register_check_code[:80]!r}"
            )
        if problem := address_problem(address):
            raise IdentityError(f"register check code address {problem}")

    def encode(self) -> str:
        return f"{self.identity.encode()}#{self.register_check_code}"

    @classmethod
    def decode(cls, text: str) -> TempIdentity:
        parts = text.strip().split("#")
        if len(parts) != 4:
            raise IdentityError(f"expected 'cluster#broker#id#<brokerAddress>;<epochMillis>', got {text[:80]!r}")
        return cls(Identity(parts[0], parts[1], _broker_id(parts[2])), parts[3])


def check(identity: Identity, cluster_name: str, broker_name: str) -> None:
    """Refuse an identity recorded for other names (Java ``checkMetadataValid``): the store is another broker's."""
    if (identity.cluster_name, identity.broker_name) != (cluster_name, broker_name):
        raise IdentityError(
            f"the store holds broker id {identity.broker_id} of {identity.cluster_name}#{identity.broker_name}, "
            f"but the config says brokerClusterName={cluster_name} brokerName={broker_name}: "
            "restore the names, or give the new broker its own storePathRootDir"
        )


class IdentityFiles:
    """The identity files under a broker's ``storePathRootDir``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.path = self.root / IDENTITY_FILE
        self.temp_path = self.root / TEMP_FILE

    def load(self) -> Identity | None:
        """The committed identity; None when there is none yet. It wins over a leftover temp file."""
        text = _read(self.path)
        return None if text is None else _decoded(self.path, text, Identity.decode)

    def load_temp(self) -> TempIdentity | None:
        """The identity being applied; None when no apply is in progress."""
        text = _read(self.temp_path)
        return None if text is None else _decoded(self.temp_path, text, TempIdentity.decode)

    def write_temp(self, identity: Identity, broker_address: str, epoch_millis: int | None = None) -> TempIdentity:
        """Record the id about to be applied; the returned check code goes into ApplyBrokerId."""
        millis = time.time_ns() // 1_000_000 if epoch_millis is None else epoch_millis
        temp = TempIdentity(identity, f"{broker_address};{millis}")
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write(self.temp_path, temp.encode().encode())
        return temp

    def commit(self, identity: Identity) -> None:
        """Make `identity` this broker's for good, then drop the temp file.

        A different committed identity is never replaced: a broker's id does not change.
        """
        current = self.load()
        if current is not None and current != identity:
            raise IdentityError(
                f"{self.path} already holds {current.encode()!r}; refusing to replace it with {identity.encode()!r}"
            )
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, identity.encode().encode())
        self.clear_temp()

    def clear_temp(self) -> None:
        """Forget an apply (failed, or done): the next registration starts over or uses the committed id."""
        try:
            self.temp_path.unlink()
        except FileNotFoundError:
            return
        fsync_dir(self.root)


def _read(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise IdentityError(f"cannot read broker identity file {path}: {exc.strerror}") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IdentityError(f"broker identity file {path} is damaged: not UTF-8 text") from exc


def _decoded(path: Path, text: str, decode: Callable[[str], _T]) -> _T:
    try:
        return decode(text)
    except IdentityError as exc:
        raise IdentityError(f"broker identity file {path} is damaged: {exc}") from exc
