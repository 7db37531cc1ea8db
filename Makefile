# Two commands on a fresh machine: `make run` and `make test`.
# Each sets itself up: a private virtualenv in .venv, installed from pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test unit integration lint bench setup sandbox redis clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Bots run under bubblewrap (Debian package `bubblewrap`); install it when missing.
# apt-get update only when the first install attempt cannot find the package.
sandbox:
	@command -v bwrap >/dev/null || apt-get install -y -q bubblewrap \
		|| (apt-get update -q && apt-get install -y -q bubblewrap)

# The broker (Debian package `redis-server`); `make run` starts a private one under var/.
redis:
	@command -v redis-server >/dev/null || apt-get install -y -q redis-server \
		|| (apt-get update -q && apt-get install -y -q redis-server)

run: setup sandbox redis
	$(BIN)/ladder run

test: setup sandbox redis
	$(BIN)/ruff check .
	$(BIN)/python -m pytest tests/unit tests/integration -q

unit: setup
	$(BIN)/python -m pytest -q

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: setup sandbox
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/protocol.py

clean:
	rm -rf $(VENV) var .pytest_cache
