#!/bin/sh
# The bot author's kit: `deploy/build-kit.sh DIR [PYTHON]` builds the sdist from this
# checkout, then the wheel from that sdist (so the wheel holds exactly what the sdist ships,
# never a stale file of an earlier build), and puts both into DIR, replacing older ones.
# No download: PYTHON (default .venv/bin/python) builds with its own setuptools (70.1 or
# later, from the [dev] extra), without build isolation.
set -eu
out=${1:?usage: deploy/build-kit.sh DIR [PYTHON]}
python=${2:-.venv/bin/python}  # relative to the checkout
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
"$python" - <<'CHECK' || exit 1
import sys
from importlib.metadata import PackageNotFoundError, version

try:
    found = version("setuptools")
except PackageNotFoundError:
    found = "none"
parts = [int(p) if p.isdigit() else 0 for p in found.split(".")[:2]] if found != "none" else [0]
if parts < [70, 1]:
    sys.exit(
        f"build-kit: {sys.executable} has setuptools {found}; the kit needs 70.1 or later"
        " (`make setup` installs it, or `pip install 'setuptools>=70.1'`)"
    )
CHECK
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -c 'import sys; from setuptools import build_meta; build_meta.build_sdist(sys.argv[1])' \
    "$work/dist" >"$work/sdist.log" 2>&1 || { cat "$work/sdist.log" >&2; exit 1; }
tar -xzf "$work"/dist/*.tar.gz -C "$work"
"$python" -m pip wheel --quiet --no-deps --no-build-isolation --no-cache-dir \
    -w "$work/dist" "$work"/tradewinds-*/
rm -f "$out"/tradewinds-*.whl "$out"/tradewinds-*.tar.gz
mv "$work"/dist/tradewinds-*.whl "$work"/dist/tradewinds-*.tar.gz "$out"/
ls "$out"/tradewinds-*
