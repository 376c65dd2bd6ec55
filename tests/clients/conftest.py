"""One sandbox per language's scenario class (tests/harness/client_scenarios.py), and that language's driver."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mqadmin_py.sandbox import Sandbox
from tests.harness.client_scenarios import Driver, driver_for, scenario_sandbox
from tests.harness.sandbox import Cli, Cluster


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A scenario a client's bug makes fail is expected to fail, strictly (``ClientScenarios.client_bugs``)."""
    for item in items:
        bugs = getattr(getattr(item, "cls", None), "client_bugs", {})
        if item.name in bugs:
            item.add_marker(pytest.mark.xfail(strict=True, reason=bugs[item.name]))


@pytest.fixture(scope="class")
def driver(request: pytest.FixtureRequest) -> Driver:
    return driver_for(request.cls.language)


@pytest.fixture(scope="class")
def box(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, driver: Driver) -> Iterator[Sandbox]:
    yield from scenario_sandbox(Path(tmp_path_factory.mktemp(f"client-{request.cls.language}")))


@pytest.fixture(scope="class")
def cluster(box: Sandbox) -> Iterator[Cluster]:
    view = Cluster(Cli(box.dir, box.addresses()), box.addresses())
    try:
        yield view
    finally:
        view.close()
