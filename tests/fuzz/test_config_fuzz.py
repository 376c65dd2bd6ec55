"""The config parsers against arbitrary input: properties text, controller keys, broker and agent keys, files.

Each answers a config or its documented error (``PropertiesError`` for the text, ``ConfigError`` for keys and
values) with a message naming the key or the file, never another exception; loading a file never writes it.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from hypothesis import given
from hypothesis import strategies as st

import agents.config as agent_config
import controller.config as controller_config
from mqbase.configkeys import ConfigError
from mqbase.properties import PropertiesError, parse_properties
from tests.harness.fuzzing import files_state, fuzz, write_file

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

NUMBERS = st.sampled_from(["-1", "0", "1", "500", str(2**63 - 1), str(2**63), "9" * 30, "9" * 5000, "1e3", "²", "١٢"])
NASTY_VALUES = st.one_of(
    NUMBERS,
    st.sampled_from(
        [
            "",
            " ",
            "true",
            "TRUE",
            "yes",
            "0x10",
            "1_000",
            "\x00",
            "a;b",
            ";;",
            "n0-127.0.0.1:1:2",
            "n0-h:0:1",
            "n0-h:1:99999",
            "n0-:1:2",
            "-h:1:2",
            "127.0.0.1:1",
            "127.0.0.1:99999",
            "h:²",
            "/tmp",
            "relative/dir",
            "~nobody/x",
            "PROM",
            "DISABLE",
        ]
    ),
    st.text(max_size=30),
)


def values_for(keys: list[str]) -> st.SearchStrategy[dict[str, str]]:
    """Mostly known keys (so that the value parsers run), sometimes unknown ones."""
    key = st.one_of(st.sampled_from(keys), st.text(min_size=1, max_size=12))
    return st.dictionaries(key, NASTY_VALUES, max_size=3)


@fuzz(500)
@given(st.text(max_size=200))
def test_properties_text_parses_or_names_the_line(text: str) -> None:
    try:
        parsed = parse_properties(text, "f.properties")
    except PropertiesError as exc:
        assert str(exc).startswith("f.properties:")
        return
    assert all(key and key == key.strip() for key in parsed)


REQUIRED_CONTROLLER = {"controllerPeers": "n0-127.0.0.1:9878:9876", "controllerSelfId": "n0"}


@fuzz(500)
@given(values_for(sorted(controller_config.KEYS)), st.booleans())
def test_controller_keys_parse_or_raise_config_error(values: dict[str, str], with_required: bool) -> None:
    merged = {**REQUIRED_CONTROLLER, **values} if with_required else values
    try:
        config = controller_config.validate(
            controller_config.with_overrides(controller_config.ControllerConfig(), merged)
        )
    except ConfigError as exc:
        assert str(exc)
        return
    assert ints_fit_a_java_long(config)


def ints_fit_a_java_long(config: DataclassInstance) -> bool:
    """Durations and sizes are used as ``value / 1000`` (seconds): past a long they overflow float arithmetic."""
    return all(
        getattr(config, f.name) <= 2**63 - 1
        for f in dataclasses.fields(config)
        if isinstance(getattr(config, f.name), int)
    )


REQUIRED_BROKER = {"brokerName": "b", "storePathRootDir": "/tmp/fuzz-broker", "controllerAddr": "127.0.0.1:9876"}


@fuzz(500)
@given(values_for(sorted(agent_config.BROKER_KEYS)), st.booleans())
def test_broker_keys_parse_or_raise_config_error(values: dict[str, str], with_required: bool) -> None:
    merged = {**REQUIRED_BROKER, **values} if with_required else values
    try:
        config = agent_config.parse_broker(merged, Path("/base"))
    except ConfigError as exc:
        assert str(exc)
        return
    assert ints_fit_a_java_long(config)
    try:
        agent_config.with_overrides(config, values)
    except ConfigError as exc:
        assert str(exc)


@fuzz(400)
@given(values_for(sorted(agent_config.AGENT_KEYS) + sorted(controller_config.KEYS)))
def test_agent_keys_parse_or_raise_config_error(values: dict[str, str]) -> None:
    try:
        agent_config.parse_agent(values, Path("/base"))
    except ConfigError as exc:
        assert str(exc)


LOADERS = [controller_config.load, agent_config.load_broker, agent_config.load_agent]


@fuzz(300)
@given(
    st.one_of(st.binary(max_size=120), st.text(max_size=120).map(str.encode)),
    st.sampled_from(range(len(LOADERS))),
)
def test_loading_any_file_gives_a_config_or_a_config_error_and_writes_nothing(data: bytes, loader: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "fuzz.conf"
        write_file(path, data)
        before = files_state(Path(directory))
        try:
            LOADERS[loader](path)
        except ConfigError as exc:
            assert str(exc)
        assert files_state(Path(directory)) == before
