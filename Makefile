# Two commands on a fresh machine: `make run` and `make test`.
# Each sets itself up: a private virtualenv in .venv, installed from pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test unit integration lint bench setup clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: setup
	$(BIN)/ladder demo

test: setup
	$(BIN)/ruff check .
	$(BIN)/python -m pytest tests/unit tests/integration -q

unit: setup
	$(BIN)/python -m pytest -q

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: setup
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) var .pytest_cache
