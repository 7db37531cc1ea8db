#!/usr/bin/env bash
# Usage: apt-ensure.sh PATH-OR-COMMAND DEBIAN-PACKAGE
# Installs the Debian package when the command is missing: as root with apt-get
# (updating the package lists only if the first attempt fails); otherwise it
# says exactly what to install and fails.
set -euo pipefail
need=$1 package=$2
if [[ $need == /* ]] && [ -x "$need" ]; then exit 0; fi
if [[ $need != /* ]] && command -v "$need" >/dev/null; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
    echo "$need is missing: install the Debian package with 'sudo apt-get install $package', then run make again." >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q "$package" || { apt-get update -q && apt-get install -y -q "$package"; }
