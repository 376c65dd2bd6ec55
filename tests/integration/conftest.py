"""Fixtures for the controller integration tests: a real 3-node group and fake brokers.

``sandbox`` starts three ``mqcontroller`` processes on loopback (module scope) and always stops them again
by pid; ``brokers`` makes ``FakeBroker``s (tests.harness.controllers) that are closed after each test.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import pytest

from mqadmin_py.sandbox import Sandbox
from tests.harness.controllers import CONTROLLER_CONFIG, Client, FakeBroker

# --- fixtures ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Sandbox:
    """A running 3-node controller group; stopped (by pid) when the module is done."""
    box = Sandbox(Path(tmp_path_factory.mktemp("controller-group")))
    request.addfinalizer(box.down)  # registered first: a half-started group is stopped too
    box.up(controllers=3, extra_config=dict(CONTROLLER_CONFIG), timeout=30.0)
    return box


@pytest.fixture(scope="module")
def client(sandbox: Sandbox) -> Iterator[Client]:
    with Client([c.address for c in sandbox.controllers()], timeout=3.0) as c:
        yield c


@pytest.fixture
def brokers(sandbox: Sandbox) -> Iterator[Callable[..., FakeBroker]]:
    """Factory of FakeBrokers (registered, heartbeating); all closed at the end of the test."""
    made: list[FakeBroker] = []

    def make(broker_name: str, **kwargs: Any) -> FakeBroker:
        fb = FakeBroker([c.address for c in sandbox.controllers()], broker_name, **kwargs)
        made.append(fb)
        fb.register()
        return fb.start()

    yield make
    for fb in made:
        fb.close()
