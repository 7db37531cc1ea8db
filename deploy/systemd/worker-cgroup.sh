#!/bin/sh
# Usage: worker-cgroup.sh COMMAND [ARG...]   (ExecStart= of tradewinds-worker.service
# and tradewinds-tables.service)
#
# Runs COMMAND (the worker) so that its bot sandboxes stay inside the unit's own
# control group, where a stop of the unit kills them. On cgroup v2 a group may hand
# memory and pids limits down to child groups only while it holds no process
# itself, so this moves itself into a "worker" child of the unit's delegated group
# (Delegate=yes) and names a sibling "sandboxes" as TRADEWINDS_CGROUP, under which
# workers/cgroups.py makes one group per sandbox. Anywhere else (cgroup v1, not run
# by systemd, nothing delegated, TRADEWINDS_CGROUP already set) COMMAND runs as is.
set -eu
# Tests point these two at a fake tree.
fs=${CGROUP_FS:-/sys/fs/cgroup}
membership=${CGROUP_MEMBERSHIP:-/proc/self/cgroup}

own=$(sed -n 's/^0:://p' "$membership")
unit=$fs$own
if [ -n "${INVOCATION_ID:-}" ] && [ -z "${TRADEWINDS_CGROUP:-}" ] \
    && [ -f "$fs/cgroup.controllers" ] && [ -n "$own" ] && [ "$own" != / ] \
    && grep -qw memory "$unit/cgroup.controllers" 2>/dev/null \
    && grep -qw pids "$unit/cgroup.controllers"; then
    mkdir -p "$unit/worker"
    echo $$ >"$unit/worker/cgroup.procs"
    TRADEWINDS_CGROUP=$unit/sandboxes
    export TRADEWINDS_CGROUP
fi
exec "$@"
