# Two entry points: `make demo` runs the product's main job, `make test` runs the whole suite.
# Both create .venv and install the project into it first (Python 3.11+ as python3).
# `make check` is the developer's edit loop: lint, types, unit and fuzz tests (no multi-process tests).
# `make test` runs two pytest-xdist workers (each test file whole on one): see docs/benchmarks.md.
# `make clients` builds the official RocketMQ 5 clients' drivers (tests/clients/README.md); `make test` does it first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test check lint clients stubs completions clean

$(STAMP): pyproject.toml setup.py agents/store/_fastscan.c
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,spark]'
	touch $(STAMP)

demo: $(STAMP)
	MQADMIN=$(VENV)/bin/mqadmin ./demo.sh

test: lint clients
	GRPC_VERBOSITY=ERROR $(PY) -m pytest -n 2 --dist loadfile --no-loadscope-reorder --durations=15 $(PYTEST_ARGS)

check: lint
	GRPC_VERBOSITY=ERROR $(PY) -m pytest -q tests/unit tests/fuzz

lint: $(STAMP)
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check . && $(VENV)/bin/mypy

clients: $(STAMP)
	$(PY) -m tests.harness.client_build

stubs: $(STAMP)
	$(PY) -m mqbase.proto.generate

completions: $(STAMP)
	$(PY) -m mqadmin_py.completions

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info agents/store/_fastscan*.so
