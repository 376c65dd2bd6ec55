"""The two-phase brokerIdentity files: round trips, crashes between phases, damaged files never taken as missing."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.identity import IDENTITY_FILE, TEMP_FILE, Identity, IdentityError, IdentityFiles, TempIdentity, check

ME = Identity("DefaultCluster", "broker-a", 3)


def test_commit_writes_javas_format_and_loads_back(tmp_path: Path) -> None:
    files = IdentityFiles(tmp_path / "store")
    assert files.load() is None
    assert files.load_temp() is None
    files.commit(ME)
    assert (tmp_path / "store" / IDENTITY_FILE).read_text() == "DefaultCluster#broker-a#3"
    assert files.load() == ME


def test_temp_file_carries_the_register_check_code(tmp_path: Path) -> None:
    files = IdentityFiles(tmp_path)
    temp = files.write_temp(ME, "10.0.0.5:10911", epoch_millis=1_700_000_000_000)
    assert temp.register_check_code == "10.0.0.5:10911;1700000000000"
    assert (tmp_path / TEMP_FILE).read_text() == "DefaultCluster#broker-a#3#10.0.0.5:10911;1700000000000"
    assert files.load_temp() == temp
    assert files.load() is None


def test_check_code_defaults_to_the_current_time(tmp_path: Path) -> None:
    temp = IdentityFiles(tmp_path).write_temp(ME, "h:1")
    millis = int(temp.register_check_code.split(";")[1])
    assert millis > 1_600_000_000_000


def test_crash_between_phases_leaves_the_temp_file_to_apply_again(tmp_path: Path) -> None:
    temp = IdentityFiles(tmp_path).write_temp(ME, "h:1", epoch_millis=5)
    restarted = IdentityFiles(tmp_path)
    assert restarted.load() is None
    assert restarted.load_temp() == temp


def test_commit_removes_the_temp_file(tmp_path: Path) -> None:
    files = IdentityFiles(tmp_path)
    temp = files.write_temp(ME, "h:1", epoch_millis=5)
    files.commit(temp.identity)
    assert files.load() == ME
    assert files.load_temp() is None
    assert sorted(p.name for p in tmp_path.iterdir()) == [IDENTITY_FILE]


def test_committed_identity_wins_over_a_leftover_temp_file(tmp_path: Path) -> None:
    files = IdentityFiles(tmp_path)
    files.commit(ME)
    files.write_temp(Identity("DefaultCluster", "broker-a", 4), "h:1", epoch_millis=5)
    assert files.load() == ME
    files.clear_temp()
    files.clear_temp()  # idempotent
    assert files.load_temp() is None


def test_commit_never_replaces_a_different_identity(tmp_path: Path) -> None:
    files = IdentityFiles(tmp_path)
    files.commit(ME)
    files.commit(ME)  # the same one again is fine
    with pytest.raises(IdentityError, match="already holds 'DefaultCluster#broker-a#3'; refusing to replace it"):
        files.commit(Identity("DefaultCluster", "broker-a", 4))
    assert files.load() == ME


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "expected 'cluster#broker#id', got ''"),
        (b"c#b", "expected 'cluster#broker#id', got 'c#b'"),
        (b"c#b#3#h:1;5", "expected 'cluster#broker#id'"),
        (b"c#b#x", "broker id must be a positive 64-bit integer, got 'x'"),
        (b"c#b#0", "broker id must be a positive 64-bit integer, got '0'"),
        (b"c#b#-1", "broker id must be a positive 64-bit integer"),
        (b"c#b#99999999999999999999", "broker id must be a positive 64-bit integer"),
        (b"#b#3", "cluster name is empty"),
        (b"c# b#3", "broker name must not contain '#', ';', whitespace or control characters"),
        (b"c#b#3\xff", "not UTF-8 text"),
    ],
)
def test_damaged_identity_raises_and_is_left_alone(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / IDENTITY_FILE
    path.write_bytes(content)
    with pytest.raises(IdentityError, match=re.escape(f"broker identity file {path} is damaged: {reason}")):
        IdentityFiles(tmp_path).load()
    assert path.read_bytes() == content


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"c#b#3", "expected 'cluster#broker#id#<brokerAddress>;<epochMillis>', got 'c#b#3'"),
        (b"c#b#3#", "register check code must be <brokerAddress>;<epochMillis>, got ''"),
        (b"c#b#3#h:1", "register check code must be <brokerAddress>;<epochMillis>, got 'h:1'"),
        (b"c#b#3#h:1;x", "register check code must be <brokerAddress>;<epochMillis>"),
        (b"c#b#3#h;5", "register check code address is not host:port, got 'h'"),
        (b"c#b#3#h:0;5", "register check code address has port 0 out of range 1-65535"),
        (b"c#b#0#h:1;5", "broker id must be a positive 64-bit integer, got '0'"),
    ],
)
def test_damaged_temp_identity_raises_and_is_left_alone(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / TEMP_FILE
    path.write_bytes(content)
    with pytest.raises(IdentityError, match=re.escape(f"broker identity file {path} is damaged: {reason}")):
        IdentityFiles(tmp_path).load_temp()
    assert path.read_bytes() == content


def test_unreadable_identity_is_an_error_not_missing(tmp_path: Path) -> None:
    (tmp_path / IDENTITY_FILE).mkdir()
    with pytest.raises(IdentityError, match=f"cannot read broker identity file {tmp_path / IDENTITY_FILE}: "):
        IdentityFiles(tmp_path).load()


def test_surrounding_whitespace_is_tolerated(tmp_path: Path) -> None:
    (tmp_path / IDENTITY_FILE).write_text("DefaultCluster#broker-a#3\n")
    assert IdentityFiles(tmp_path).load() == ME


def test_bad_values_are_refused_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(IdentityError, match="broker name must not contain '#'"):
        Identity("c", "a#b", 1)
    with pytest.raises(IdentityError, match="broker id must be a positive 64-bit integer, got 0"):
        Identity("c", "b", 0)
    with pytest.raises(IdentityError, match="register check code address is not host:port"):
        IdentityFiles(tmp_path).write_temp(ME, "no-port", epoch_millis=1)
    assert list(tmp_path.iterdir()) == []


def test_check_accepts_matching_names_and_refuses_others() -> None:
    check(ME, "DefaultCluster", "broker-a")
    with pytest.raises(
        IdentityError,
        match=re.escape(
            "the store holds broker id 3 of DefaultCluster#broker-a, but the config says "
            "brokerClusterName=DefaultCluster brokerName=broker-b"
        ),
    ):
        check(ME, "DefaultCluster", "broker-b")
    with pytest.raises(IdentityError, match="brokerClusterName=Other brokerName=broker-a"):
        check(ME, "Other", "broker-a")


# --- fuzz ------------------------------------------------------------------------------------------

_text = st.text(st.characters(codec="utf-8"), max_size=60) | st.from_regex(
    r"[a-z]{1,3}#[a-z]{1,3}#[0-9]{1,20}(#[a-z:0-9;]{0,12})?", fullmatch=True
)


@settings(max_examples=300, deadline=None)
@given(_text)
def test_fuzz_decoders_give_an_identity_or_an_identity_error(text: str) -> None:
    for decode in (Identity.decode, TempIdentity.decode):
        try:
            decoded = decode(text)
        except IdentityError:
            continue
        assert decode(decoded.encode()) == decoded  # ids may carry leading zeros, as Java's Long.valueOf allows


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=60))
def test_fuzz_file_bytes_give_an_identity_none_or_an_identity_error(tmp_path: Path, content: bytes) -> None:
    for name in (IDENTITY_FILE, TEMP_FILE):
        (tmp_path / name).write_bytes(content)
    files = IdentityFiles(tmp_path)
    for load in (files.load, files.load_temp):
        with contextlib.suppress(IdentityError):
            assert load() is not None
