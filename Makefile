# Two commands on a fresh machine: `make run` and `make test`.
# Each sets itself up: a private virtualenv in .venv, installed from pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test unit integration lint bench setup sandbox redis postgresql deploy-tools chromium charts axe kit clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Bots run under bubblewrap (Debian package `bubblewrap`); install it when missing.
# Bots may import numpy: Debian's, built for the /usr/bin/python3 they run on.
sandbox:
	@deploy/apt-ensure.sh bwrap bubblewrap
	@deploy/apt-ensure.sh /usr/lib/python3/dist-packages/numpy python3-numpy

# The broker (Debian package `redis-server`); `make run` starts a private one under var/.
redis:
	@deploy/apt-ensure.sh redis-server redis-server

# PostgreSQL (Debian package `postgresql`): the tests start private clusters of their own
# under a temporary folder; no system service is used or started.
postgresql:
	@deploy/apt-ensure.sh '/usr/lib/postgresql/*/bin/postgres' postgresql

# What the deployment tests check the files in deploy/ with, and the multi-host test's
# network namespaces (iproute2).
deploy-tools:
	@deploy/apt-ensure.sh systemd-analyze systemd
	@deploy/apt-ensure.sh /usr/sbin/nginx nginx
	@deploy/apt-ensure.sh ip iproute2

# The charting library (uPlot, MIT) from the npm registry, pinned by version and by the
# sha512 of its tarball, unpacked into the gitignored ladder/static/vendor/. Pages show
# their tables without it, so a machine without npm still serves a working site.
UPLOT_VERSION := 1.6.32
UPLOT_SHA512 := 2883159c6ebccefbb95d751b0b82d010f9e1c0ec41b8bc96d401eda66e882935c89a46cb824332fa369b8cb8122cc6ac36e186cd09bf7a9ded3a4c93c6989023
VENDOR := ladder/static/vendor/uplot
UPLOT_JS := $(VENDOR)/uPlot.iife.min.js

charts: $(UPLOT_JS)

$(UPLOT_JS):
	@deploy/apt-ensure.sh npm npm
	rm -rf $(VENDOR).tmp && mkdir -p $(VENDOR).tmp
	cd $(VENDOR).tmp && npm pack --silent uplot@$(UPLOT_VERSION) >/dev/null
	echo "$(UPLOT_SHA512)  $(VENDOR).tmp/uplot-$(UPLOT_VERSION).tgz" | sha512sum --check --quiet
	tar -xzf $(VENDOR).tmp/uplot-$(UPLOT_VERSION).tgz -C $(VENDOR).tmp --strip-components=1 \
		package/LICENSE package/dist/uPlot.iife.min.js package/dist/uPlot.min.css
	mkdir -p $(VENDOR)
	mv $(VENDOR).tmp/LICENSE $(VENDOR).tmp/dist/uPlot.min.css $(VENDOR)/
	mv $(VENDOR).tmp/dist/uPlot.iife.min.js $(UPLOT_JS)
	rm -rf $(VENDOR).tmp

# The accessibility checker the browser tests inject into each page (axe-core, MPL-2.0),
# fetched like uPlot: pinned by version and tarball sha512, unpacked into a gitignored
# test-only folder that the site never serves.
AXE_VERSION := 4.14.1
AXE_SHA512 := 1477dafa598d8d065f273d6af302aa203c02e83131707b7fa648cd41bd3d6b734f8c22a0dab86ee6a6f64b8afbe804b214d36db85a2826965edfb3a0b9d546b5
AXE_DIR := tests/integration/browser/vendor/axe-core
AXE_JS := $(AXE_DIR)/axe.min.js

axe: $(AXE_JS)

$(AXE_JS):
	@deploy/apt-ensure.sh npm npm
	rm -rf $(AXE_DIR).tmp && mkdir -p $(AXE_DIR).tmp
	cd $(AXE_DIR).tmp && npm pack --silent axe-core@$(AXE_VERSION) >/dev/null
	echo "$(AXE_SHA512)  $(AXE_DIR).tmp/axe-core-$(AXE_VERSION).tgz" | sha512sum --check --quiet
	tar -xzf $(AXE_DIR).tmp/axe-core-$(AXE_VERSION).tgz -C $(AXE_DIR).tmp --strip-components=1 \
		package/LICENSE package/axe.min.js
	mkdir -p $(AXE_DIR)
	mv $(AXE_DIR).tmp/LICENSE $(AXE_DIR)/
	mv $(AXE_DIR).tmp/axe.min.js $(AXE_JS)
	rm -rf $(AXE_DIR).tmp

# Browser tests drive Debian's Chromium (never a browser downloaded by Playwright).
chromium:
	@deploy/apt-ensure.sh /usr/bin/chromium chromium

# The bot author's kit, the sdist and the wheel that the site offers at /download/ (see the
# bot guide, "Install the kit"), built afresh each run into the folder the site serves.
KIT_DIR ?= $(or $(LADDER_VAR),var)/kit

kit: setup
	@deploy/build-kit.sh $(KIT_DIR) $(BIN)/python >/dev/null

run: setup sandbox redis charts kit
	$(BIN)/ladder run

# The unit tests are CPU-bound and the integration tests mostly wait on processes they
# started, so the two suites run side by side (each with its own PostgreSQL, Redis and
# folders); --output-sync prints each suite's report whole when it ends.
test: setup sandbox redis postgresql deploy-tools charts axe chromium
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy engine/ workers/ ladder/
	$(MAKE) --no-print-directory -j2 --output-sync=target unit integration

unit: setup
	$(BIN)/python -m pytest tests/unit -q --durations=15

integration: setup sandbox redis postgresql deploy-tools charts axe chromium
	$(BIN)/python -m pytest tests/integration -q --durations=15

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy engine/ workers/ ladder/

bench: setup sandbox
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/protocol.py

clean:
	rm -rf $(VENV) var .pytest_cache ladder/static/vendor tests/integration/browser/vendor
