#!/usr/bin/env bash
# The product's main job on a local default: a 3-node controller group on loopback,
# its metadata, a controller leader failover, and a clean teardown.
# Run it through `make demo` (which installs into .venv first).
set -euo pipefail
cd "$(dirname "$0")"
MQADMIN="${MQADMIN:-.venv/bin/mqadmin}"
DIR="$(mktemp -d -t mqadmin-demo.XXXXXX)"
export MQADMIN_SANDBOX_DIR="$DIR"
trap '"$MQADMIN" sandbox down >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "Start a 3-node controller group (Raft over TCP, gRPC API) in $DIR"
"$MQADMIN" sandbox up
MQADMIN_CONTROLLERS="$("$MQADMIN" sandbox status -o json | python3 -c 'import json,sys; print(";".join(c["address"] for c in json.load(sys.stdin)["controllers"]))')"
export MQADMIN_CONTROLLERS

step "Controller metadata: leader, peers, Raft health"
"$MQADMIN" getControllerMetaData

step "Same, as JSON for scripts"
"$MQADMIN" getControllerMetaData -o json | head -n 20

leader_id() { "$MQADMIN" getControllerMetaData -o json --timeout 1 2>/dev/null \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["controllerLeaderId"] or "")' 2>/dev/null || true; }

step "Kill the controller leader with SIGKILL"
old="$(leader_id)"
"$MQADMIN" sandbox kill leader
start=$(date +%s%N)
for _ in $(seq 100); do
  new="$(leader_id)"
  [ -n "$new" ] && [ "$new" != "$old" ] && break
  sleep 0.1
done
echo "leader $old -> ${new:-none} after $(( ($(date +%s%N) - start) / 1000000 )) ms (as seen by the CLI, polling)"

step "A new leader serves (the killed node shows as unreachable)"
"$MQADMIN" getControllerMetaData

step "Tear the sandbox down (stops exactly the processes it started)"
"$MQADMIN" sandbox down
