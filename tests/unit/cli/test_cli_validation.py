"""Option validation: bad ids, durations and addresses are usage errors (exit 2), never a traceback
or an outage (exit 5). The validators are pure and tested as tables; a few CLI runs check the wiring."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from mqadmin_py.commands.common import (
    INT64_MAX,
    broker_address,
    broker_id_list,
    broker_name,
    broker_names,
    cluster_name,
    controller_addresses,
    finite_seconds,
    optional_controller_addresses,
)
from mqadmin_py.sandbox import exit_report
from mqbase.files import directory_problem
from tests.harness.processes import run_module, run_mqadmin


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1:9878", "127.0.0.1:9878"),
        (" h1:1 ; h2:2 ;", "h1:1;h2:2"),
        ("h1:1,h2:2", "h1:1;h2:2"),
        ("h1:1;h1:1", "h1:1"),
        ("[::1]:9878", "[::1]:9878"),
    ],
)
def test_controller_addresses_accepts_host_port_lists(text: str, expected: str) -> None:
    assert controller_addresses(text) == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("localhost", "is not host:port, got 'localhost'"),
        ("127.0.0.1:99999", "port 99999 out of range 1-65535"),
        ("127.0.0.1:0", "port 0 out of range 1-65535"),
        ("127.0.0.1:-1", "is not host:port, got '127.0.0.1:-1'"),
        ("127.0.0.1:abc", "is not host:port, got '127.0.0.1:abc'"),
        ("http://127.0.0.1:1", "is not host:port, got 'http://127.0.0.1:1'"),
        ("127.0.0.1:1 127.0.0.1:2", "is not host:port, got '127.0.0.1:1 127.0.0.1:2'"),
        ("h1:1;localhost", "got 'localhost'"),
        ("", "no controller address given, got ''"),
        (";;;", "no controller address given, got ';;;'"),
        ("  ", "no controller address given"),
    ],
)
def test_controller_addresses_names_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(ValueError, match="want host:port;host:port") as caught:
        controller_addresses(text)
    assert why in str(caught.value)


def test_optional_controller_addresses_allows_only_empty() -> None:
    assert optional_controller_addresses("") == ""
    assert optional_controller_addresses("h:1") == "h:1"
    with pytest.raises(ValueError):
        optional_controller_addresses(";")


@pytest.mark.parametrize("value", [None, 0.1, 3.0, 1e9])
def test_finite_seconds_accepts_finite_values(value: float | None) -> None:
    assert finite_seconds(value) == value


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_finite_seconds_refuses_nan_and_infinity(value: float) -> None:
    with pytest.raises(ValueError, match="is not a finite number of seconds"):
        finite_seconds(value)


@pytest.mark.parametrize(("value", "ok"), [(None, True), ("broker-a", True), ("", False), ("  ", False)])
def test_broker_name_refuses_an_empty_name(value: str | None, ok: bool) -> None:
    if ok:
        assert broker_name(value) == value
    else:
        with pytest.raises(ValueError, match="a broker set name cannot be empty"):
            broker_name(value)


@pytest.mark.parametrize(("value", "ok"), [(None, True), ("DefaultCluster", True), ("", False), ("  ", False)])
def test_cluster_name_refuses_an_empty_name(value: str | None, ok: bool) -> None:
    if ok:
        assert cluster_name(value) == value
    else:
        with pytest.raises(ValueError, match="a cluster name cannot be empty"):
            cluster_name(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), ("127.0.0.1:10911", "127.0.0.1:10911"), (" h:1 ", "h:1"), ("[::1]:1", "[::1]:1")],
)
def test_broker_address_accepts_one_host_port(value: str | None, expected: str | None) -> None:
    assert broker_address(value) == expected


@pytest.mark.parametrize(
    ("value", "why"),
    [("", "is not host:port"), ("h", "is not host:port"), ("h:0", "port 0 out of range"), ("http://h:1", "is not"),
     ("h:1;h:2", "is not host:port")],
)  # fmt: skip
def test_broker_address_names_what_is_wrong(value: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        broker_address(value)


@pytest.mark.parametrize(
    ("values", "ok"), [(None, True), (["broker-a", "b"], True), ([""], False), (["a", " "], False)]
)
def test_broker_names_refuses_an_empty_name(values: list[str] | None, ok: bool) -> None:
    if ok:
        assert broker_names(values) == values
    else:
        with pytest.raises(ValueError, match="a broker set name cannot be empty"):
            broker_names(values)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1", {1}), ("1;2;3", {1, 2, 3}), ("2;", {2}), (" 1 ; 2 ", {1, 2}), (str(INT64_MAX), {INT64_MAX})],
)
def test_broker_id_list_parses_ids(text: str, expected: set[int]) -> None:
    assert broker_id_list(text) == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "no broker id given"),
        (";", "no broker id given"),
        ("abc", "'abc' is not a broker id"),
        ("1;x", "'x' is not a broker id"),
        ("0", "'0' is not a broker id"),
        ("-1", "'-1' is not a broker id"),
        ("1;;2", "'' is not a broker id"),
        (str(INT64_MAX + 1), "is not a broker id (1..9223372036854775807)"),
        ("²", "'²' is not a broker id"),
    ],
)
def test_broker_id_list_refuses_empty_and_malformed_lists(text: str, why: str) -> None:
    with pytest.raises(ValueError) as caught:
        broker_id_list(text)
    assert why in str(caught.value)


# --- the wiring: every case above exits 2 with one Error line, before any connection -----------------------

A = ("-a", "127.0.0.1:1")


@pytest.mark.parametrize(
    "args",
    [
        ("electMaster", *A, "-c", "C", "-bn", "b", "-b", "9223372036854775808"),
        ("electMaster", *A, "-c", "C", "-bn", "b", "-b", "-1"),
        ("transferMaster", *A, "-c", "C", "-bn", "b", "-b", "99999999999999999999"),
        ("assign-preferred-master", *A, "-c", "C", "-bn", "b", "-b", "9223372036854775808"),
        ("cleanBrokerMetadata", *A, "-c", "C", "-bn", "b", "-b", "abc"),
        ("cleanBrokerMetadata", *A, "-c", "C", "-bn", "b", "-b", "", "-l"),
        ("cleanBrokerMetadata", *A, "-c", "C", "-bn", "b", "-l"),
        ("cleanBrokerMetadata", *A, "-c", "C", "-bn", "b", "-b", "1", "--wholeSet"),
        ("getSyncStateSet", *A, "-b", ""),
        ("electMaster", *A, "-c", "C", "-bn", "", "-b", "1"),
        ("transferMaster", *A, "-c", "C", "-bn", " ", "-b", "1"),
        ("wait", "master", *A, "-bn", "", "--timeout", "1"),
        ("sendMessage", *A, "-t", "T", "-bn", "", "-p", "x"),
        ("getSyncStateSet", *A, "--timeout", "nan"),
        ("getSyncStateSet", *A, "--timeout", "inf"),
        ("getSyncStateSet", *A, "--timeout", "-1"),
        ("getSyncStateSet", *A, "-i", "nan"),
        ("wait", "master", *A, "-bn", "b", "--timeout", "nan"),
        ("wait", "quorum", *A, "--timeout", "inf"),
        ("transferMaster", *A, "-c", "C", "-bn", "b", "-b", "2", "--timeout", "nan"),
        ("assign-preferred-master", *A, "-c", "C", "-bn", "b", "-b", "2", "--timeout", "nan"),
        ("sandbox", "up", "--dir", "/nonexistent/never", "--timeout", "nan"),
        *[("getSyncStateSet", "-a", bad) for bad in ("localhost", "127.0.0.1:99999", "127.0.0.1:-1", "127.0.0.1:abc",
                                                     "http://127.0.0.1:1", "127.0.0.1:1 127.0.0.1:2", "", ";;;")],
        ("wait", "quorum", "-a", "localhost", "--timeout", "1"),
        ("removeBroker", "-c", "127.0.0.1:1", "-b", "C:b:99999999999999999999"),
        ("resetMasterFlushOffset", "-b", "127.0.0.1:1", "--offset", "99999999999999999999"),
        ("consumeMessage", *A, "-b", "b", "-t", "T", "--offset", "99999999999999999999"),
        ("consumeMessage", *A, "-b", "b", "-t", "T", "-q", "99999999999"),
        ("sendMessage", *A, "-t", "T", "-q", "99999999999", "-p", "x"),
        ("sendMessage", *A, "-t", "T", "-p", "x", "--property", "novalue"),  # before any controller is asked
        ("sendMessage", *A, "-t", "T", "-p", "x", "--property", "=v"),
        ("sendMessage", *A, "-t", "T", "-p", "x", "--message-group", " "),
        *[("sendMessage", *A, "-t", "T", "-p", "x", "--delay", bad) for bad in ("nan", "inf", "-1", "1e300")],
        ("sendMessage", *A, "-t", "T", "-p", "x", "--delay", "1", "--deliverTime", "1"),
        ("topicStatus", *A, "-t", "bad topic"),
        *[("updateSubGroup", *A, "-c", "C", "-g", "G", "-q", bad) for bad in (
            "{", '{"type": "LINEAR"}', '{"type": "CUSTOMIZED", "customizedRetryPolicy": {"next": [0]}}',
            '{"type": "EXPONENTIAL", "exponentialRetryPolicy": {"initial": 2000, "max": 1000, "multiplier": 2}}')],
        ("haStatus", "-a", "localhost"),
        *[("haStatus", "-b", bad) for bad in ("localhost", "", "127.0.0.1:0", "http://127.0.0.1:1")],
        ("resetMasterFlushOffset", "-b", "h", "--offset", "1"),
        ("listBrokers", "-c", "127.0.0.1"),
        ("getBrokerConfig", "-b", "127.0.0.1:abc"),
        ("consumeMessage", *A, "-b", "b", "-t", "T", "--brokerAddr", "x"),
        *[(*cmd, "-c", "") for cmd in (("getSyncStateSet", *A), ("haStatus", *A), ("clusterList", *A),
                                      ("getBrokerConfig", *A))],
        ("electMaster", *A, "-c", " ", "-bn", "b", "-b", "1"),
        ("transferMaster", *A, "-c", "", "-bn", "b", "-b", "1"),
        ("assign-preferred-master", *A, "-c", "", "-bn", "b", "-b", "1"),
        ("cleanBrokerMetadata", *A, "-c", "", "-bn", "b", "-b", "1"),
    ],
)  # fmt: skip
def test_bad_input_is_a_usage_error_with_one_error_line(args: tuple[str, ...]) -> None:
    result = run_mqadmin(*args)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith(("Error:", "mqadmin:"))]
    assert len(errors) == 1, result.stderr


# --- store and sandbox directories: checked at start, one line, exit 2 ----------------------------------------


def test_directory_problem_accepts_a_new_or_existing_writable_directory(tmp_path: Path) -> None:
    assert directory_problem(tmp_path) is None
    assert directory_problem(tmp_path / "a" / "b") is None
    assert (tmp_path / "a" / "b").is_dir()


@pytest.mark.parametrize(
    ("where", "why"),
    [
        ("file", "is not a directory"),
        ("file/below", "is not a writable directory (Not a directory)"),
        ("/proc/mqadmin-test", "is not a writable directory (No such file or directory)"),
        ("/proc/self", "is not a writable directory"),
    ],
)
def test_directory_problem_names_the_path_and_the_reason(tmp_path: Path, where: str, why: str) -> None:
    (tmp_path / "file").write_text("")
    path = tmp_path / where  # an absolute `where` replaces tmp_path
    assert (directory_problem(path) or "").startswith(f"{path} {why}")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
def test_directory_problem_of_a_read_only_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o555)
    assert "is not a writable directory (Permission denied)" in (directory_problem(folder / "store") or "")


@pytest.mark.parametrize("store", ["file", "file/below", "/proc/mqadmin-test"])
def test_mqcontroller_refuses_a_bad_store_path_in_one_line(tmp_path: Path, store: str) -> None:
    (tmp_path / "file").write_text("")
    conf = tmp_path / "c.conf"
    conf.write_text(f"controllerPeers=n0-127.0.0.1:1:2\ncontrollerSelfId=n0\ncontrollerStorePath={tmp_path / store}\n")
    result = run_module("mqadmin_py.mqcontroller", "-c", str(conf))
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("mqcontroller: bad configuration: controllerStorePath: ")
    assert len(result.stderr.splitlines()) == 1, result.stderr


@pytest.mark.parametrize("directory", ["file", "file/below", "/proc/mqadmin-test"])
def test_sandbox_up_refuses_a_bad_directory_in_one_line(tmp_path: Path, directory: str) -> None:
    (tmp_path / "file").write_text("")
    result = run_mqadmin("sandbox", "up", "--dir", str(tmp_path / directory), "--timeout", "5")
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("mqadmin: sandbox directory: ")
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_exit_report_quotes_the_last_lines_of_each_dead_process() -> None:
    log = "\n".join(f"line {i}" for i in range(10)) + "\n\nmqcontroller: cannot start: port in use\n"
    report = exit_report([("n0", 1, "/s/logs/n0.log", log), ("a1", -9, "/s/logs/a1.log", "")])
    assert report.splitlines() == [
        "n0 exited with code 1 at start; last lines of /s/logs/n0.log:",
        *(f"  line {i}" for i in range(6, 10)),
        "  mqcontroller: cannot start: port in use",
        "a1 exited with code -9 at start; last lines of /s/logs/a1.log:",
        "  (empty log)",
        "stop the rest with 'mqadmin sandbox down'",
    ]
