"""The two product knobs the chaos harness relies on: ``brokerIP2`` (HA address behind a proxy) and the
``MQAGENT_TEST_FSYNC_DELAY_MS`` slow-disk knob."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.config import parse_broker
from agents.store import message_store
from agents.store.message_store import MessageStore
from agents.store.record import Message
from mqbase.configkeys import ConfigError
from tests.harness.processes import ROOT

REQUIRED = {"brokerName": "broker-a", "storePathRootDir": "/data/broker-a", "controllerAddr": "10.0.0.1:9876"}


def test_broker_ip2_names_the_ha_address_and_defaults_to_broker_ip1() -> None:
    plain = parse_broker({**REQUIRED, "brokerIP1": "10.0.0.5", "haListenPort": "20912"})
    assert plain.ha_address == "10.0.0.5:20912"
    assert plain.to_properties()["brokerIP2"] == ""
    behind = parse_broker({**REQUIRED, "brokerIP1": "10.0.0.5", "brokerIP2": "192.0.2.7", "haListenPort": "20912"})
    assert behind.ha_address == "192.0.2.7:20912"
    assert behind.broker_address == "10.0.0.5:10911"  # the gRPC address keeps brokerIP1
    assert parse_broker(behind.to_properties()) == behind


def test_a_bad_broker_ip2_is_refused() -> None:
    with pytest.raises(ConfigError, match="brokerIP2 must not contain"):
        parse_broker({**REQUIRED, "brokerIP2": "10.0 .1"})


def test_the_fsync_delay_is_read_from_the_environment_at_start() -> None:
    code = "from agents.store import message_store as m; print(m.FSYNC_DELAY_S)"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    delayed = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, "MQAGENT_TEST_FSYNC_DELAY_MS": "150"},
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert delayed.stdout.strip() == "0.15"
    env.pop("MQAGENT_TEST_FSYNC_DELAY_MS", None)
    plain = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    assert plain.stdout.strip() == "0.0"


def test_a_flush_waits_the_delay_before_it_syncs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(message_store, "FSYNC_DELAY_S", 0.2)
    monkeypatch.setattr("agents.store.message_store.time.sleep", lambda s: calls.append(f"sleep {s}"))
    monkeypatch.setattr("agents.store.message_store.os.fdatasync", lambda fd: calls.append("fdatasync"))
    store = MessageStore(tmp_path, 64 * 1024)
    try:
        store.put([Message("T", 0, b"x", {}, 0)])
        calls.clear()
        store.flush()
    finally:
        store.close()
    assert calls and calls[0] == "sleep 0.2", calls
