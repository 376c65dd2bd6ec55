"""The import graph reads bottom-up: mqbase → controller, agents → spark → the CLI and the entry points.

Every ``import`` counts, wherever it is written (module top, inside a function, under ``TYPE_CHECKING``), since a
lazy import is still a dependency a reader has to follow. docs/architecture.md draws the layers; decisions.md says
why the floor is a sibling package, why the daemons' command lines live in the CLI package (they compose the
embedded controller there) and why the agent's configuration alone may import the controller's.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("mqbase", "controller", "agents", "spark", "mqadmin_py")
BELOW_THE_CLI = ("mqbase", "controller", "agents", "spark")
EMBEDDED_CONTROLLER = {"agents.config": frozenset({"controller.config"})}
"""``enableControllerInAgent``: agent.conf holds the embedded node's keys, so the agent's config parses them into a
ControllerConfig; nothing else of the agent imports the controller (``mqadmin_py/mqagent.py`` composes the node)."""
STORE_READERS = ("agents.store.", "agents.identity", "agents.errors")
"""What spark may take from agents: the store formats it reads in place (no threads, sockets or roles)."""
UI_LIBRARIES = ("typer", "rich", "click")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "_pb2" not in path.name:
                found[_module_name(path)] = path
    return found


MODULES = _modules()


def _imported_names(module: str, path: Path) -> Iterator[str]:
    """Every dotted name `module` imports (``from a import b`` yields ``a.b``, resolved later)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    yield from _names_in(ast.parse(path.read_text(), str(path)), package)


def _names_in(tree: ast.AST, package: str) -> Iterator[str]:
    """Every dotted name the imports in `tree` name, relative ones resolved against `package`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def _resolve(name: str) -> str | None:
    """The project module a dotted name lives in (the longest known prefix), None for third-party names."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _edges() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        targets = {_resolve(name) for name in _imported_names(module, path)}
        graph[module] = {t for t in targets if t is not None and t != module and not module.startswith(t + ".")}
    return graph


EDGES = _edges()


def _third_party(module: str) -> set[str]:
    return {name.partition(".")[0] for name in _imported_names(module, MODULES[module]) if _resolve(name) is None}


def layer(module: str) -> str:
    """mqbase, controller, agents, spark or cli (the CLI, the sandbox and the daemons' entry points)."""
    if module == "mqadmin_py" or module.startswith("mqadmin_py."):
        return "cli"
    return module.partition(".")[0]


ALLOWED = {
    "mqbase": {"mqbase"},
    "controller": {"mqbase", "controller"},
    "agents": {"mqbase", "agents"},
    "spark": {"mqbase", "spark", "agents"},
    "cli": {"mqbase", "controller", "agents", "spark", "cli"},
}


def _allowed(source: str, target: str) -> bool:
    src, dst = layer(source), layer(target)
    if src == "agents" and dst == "controller":
        return target in EMBEDDED_CONTROLLER.get(source, ())
    if src == "spark" and dst == "agents":
        return target.startswith(STORE_READERS)
    return dst in ALLOWED[src]


def test_the_graph_covers_every_package() -> None:
    assert {layer(m) for m in MODULES} == {"mqbase", "controller", "agents", "spark", "cli"}
    assert "controller.embedded" in EDGES["mqadmin_py.mqagent"]  # the resolver sees real edges
    assert "controller.config" in EDGES["agents.config"]


@pytest.mark.parametrize("source", sorted(MODULES))
def test_imports_only_lower_layers(source: str) -> None:
    wrong = sorted(t for t in EDGES[source] if not _allowed(source, t))
    assert not wrong, f"{source} ({layer(source)}) must not import {wrong}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer(m) in BELOW_THE_CLI))
def test_nothing_below_the_cli_imports_it(module: str) -> None:
    """No arrow points up to the CLI package: the daemons' command lines and their shared start-up live in it and
    compose the packages below, never the other way round (and so no daemon module is an entry point)."""
    upward = sorted(t for t in EDGES[module] if layer(t) == "cli")
    assert not upward, f"{module} imports {upward} of the CLI package"
    assert not module.endswith(".__main__"), f"{module}: a command line belongs in mqadmin_py/"


def test_the_entry_points_compose_the_embedded_controller() -> None:
    """The agent takes its controller node from the entry point: no module of the running agent imports the
    controller, and the one module that may (its config) takes only the controller's configuration."""
    reached = {m: sorted(t for t in EDGES[m] if layer(t) == "controller") for m in MODULES if layer(m) == "agents"}
    allowed = {m: sorted(t) for m, t in EMBEDDED_CONTROLLER.items()}
    assert {m: t for m, t in reached.items() if t} == allowed, "the agent imports the controller beyond its config"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer(m) != "cli"))
def test_only_the_cli_uses_terminal_libraries(module: str) -> None:
    assert not _third_party(module) & set(UI_LIBRARIES), f"{module} imports typer/rich/click: it belongs to the CLI"


ACCESS_SEES_OF_THE_BROKER = frozenset({"agents.broker.api", "agents.broker.convert"})
"""What the access point may import of ``agents.broker``: the typed API it calls and the edge conversions, never a
concrete broker class (it reaches hosted brokers through Protocols, decisions.md "A typed API between access point
and broker")."""


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("agents.access")))
def test_the_access_point_uses_the_broker_only_through_its_api(module: str) -> None:
    wrong = sorted(t for t in EDGES[module] if t.startswith("agents.broker") and t not in ACCESS_SEES_OF_THE_BROKER)
    assert not wrong, f"{module} must reach the broker through agents.broker.api, not {wrong}"


def test_spark_reaches_no_running_agent_code() -> None:
    """Transitively too: a store reader that pulled in roles or sockets would drag them into Spark's workers."""
    seen: set[str] = set()
    todo = [m for m in MODULES if layer(m) == "spark"]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(EDGES[module])
    assert {layer(m) for m in seen} <= {"mqbase", "spark", "agents"}
    assert all(m.startswith(STORE_READERS) for m in seen if layer(m) == "agents"), sorted(seen)


def _cycles() -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(EDGES):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(EDGES[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(EDGES[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles() -> None:
    assert _cycles() == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    EDGES["mqbase.codes"].add("mqbase.errors")
    EDGES["mqbase.errors"].add("mqbase.codes")
    try:
        assert ["mqbase.codes", "mqbase.errors"] in _cycles()
    finally:
        EDGES["mqbase.codes"].discard("mqbase.errors")
        EDGES["mqbase.errors"].discard("mqbase.codes")


def test_test_support_code_lives_in_the_harness() -> None:
    """Outside ``tests/harness/`` a test folder holds test modules, conftest fixtures and package markers only, so
    no test imports helpers from another test module (decisions.md, "One test harness"); the official clients'
    driver programs (``tests/clients/<language>/``, run as processes, imported by nothing) are no helpers."""
    tests = ROOT / "tests"
    allowed = {"conftest.py", "__init__.py"}
    drivers = [p for p in (tests / "clients").iterdir() if p.is_dir()]
    stray = sorted(
        str(p.relative_to(ROOT))
        for p in tests.rglob("*.py")
        if tests / "harness" not in p.parents
        and not any(d in p.parents for d in drivers)
        and not p.name.startswith("test_")
        and p.name not in allowed
    )
    assert stray == []


def _test_code_imports(tree: ast.AST, package: str) -> list[str]:
    """The test modules (``test_*``) and conftest files of tests/ that the imports in `tree` name."""
    found = set()
    for name in _names_in(tree, package):
        parts = name.split(".")
        if parts[0] in ("tests", "conftest") or parts[0].startswith("test_"):
            cut = next((i for i, p in enumerate(parts) if p.startswith("test_") or p == "conftest"), None)
            if cut is not None:
                found.add(".".join(parts[: cut + 1]))
    return sorted(found)


def test_no_test_imports_a_test_module_or_a_conftest() -> None:
    """What more than one test module uses lives in ``tests/harness/``: no file of tests/ or bench/ imports a test
    module (one test file's helpers would be another's dependency) or a conftest (pytest loads those itself; what a
    test needs of one lives in the harness), decisions.md "One test harness"."""
    wrong = {}
    for path in sorted([*(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]):
        module = _module_name(path)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        named = _test_code_imports(ast.parse(path.read_text(), str(path)), package)
        if named:
            wrong[str(path.relative_to(ROOT))] = named
    assert wrong == {}


@pytest.mark.parametrize(
    "source",
    [
        "from tests.integration.test_x import helper",
        "import tests.unit.cli.test_x",
        "from tests.unit import test_x",
        "from .test_x import helper",
        "from . import test_x",
        "from ..integration.test_x import helper",
        "from tests.spark.conftest import TEST_CONF",
        "def f() -> None:\n    from tests.integration.test_x import helper",
    ],
)
def test_the_test_import_finder_sees_every_form(source: str) -> None:
    named = _test_code_imports(ast.parse(source), "tests.integration")
    assert len(named) == 1 and named[0].startswith("tests."), named
    assert not _test_code_imports(ast.parse("from tests.harness.wait import wait_until\nimport unittest"), "tests")
