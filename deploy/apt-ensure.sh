#!/usr/bin/env bash
# Usage: apt-ensure.sh PATH-OR-COMMAND DEBIAN-PACKAGE
# Installs the Debian package when the command is missing: as root with apt-get
# (updating the package lists only if the first attempt fails); otherwise it
# says exactly what to install and fails. A PATH may be a glob
# (/usr/lib/postgresql/*/bin/postgres). Packages that ship a service (postgresql,
# nginx) are installed without starting it: the project starts its own servers.
set -euo pipefail
need=$1 package=$2
if [[ $need == /* ]] && compgen -G "$need" >/dev/null; then
    for found in $need; do [ -x "$found" ] && exit 0; done
fi
if [[ $need != /* ]] && command -v "$need" >/dev/null; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
    echo "$need is missing: install the Debian package with 'sudo apt-get install $package', then run make again." >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    # Tell the package scripts not to start services, for this install only.
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy"
    trap 'rm -f "$policy"' EXIT
fi
apt-get install -y -q "$package" || { apt-get update -q && apt-get install -y -q "$package"; }
