#!/usr/bin/env bash
# The product's main job on a local default: a sandbox cluster on loopback (3 controllers, 3 broker agents
# hosting one broker set), messages in, the master killed, the failover seen through getSyncStateSet and
# getBrokerEpoch before and after, every message read back, a graceful switchover back, and a clean teardown.
# Throughout the failover the official RocketMQ 5 Python client (examples/rocketmq5_client.py) sends through the
# agents' access points; afterwards it consumes everything back.
# Run it through `make demo` (which installs into .venv first).
set -euo pipefail
cd "$(dirname "$0")"
MQADMIN="${MQADMIN:-.venv/bin/mqadmin}"
CLIENT_PYTHON="${CLIENT_PYTHON:-$(dirname "$MQADMIN")/python}"  # the venv that has rocketmq-python-client
DIR="$(mktemp -d -t mqadmin-demo.XXXXXX)"
export MQADMIN_SANDBOX_DIR="$DIR"
producer=""
trap '[ -z "$producer" ] || kill "$producer" 2>/dev/null || true; "$MQADMIN" sandbox down --purge >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

step "Start the sandbox: 3 controllers (Raft) and 3 agents, one broker set of 3 replicas, in $DIR"
"$MQADMIN" sandbox up
MQADMIN_CONTROLLERS="$("$MQADMIN" sandbox status -o json | python3 -c 'import json,sys; print(";".join(c["address"] for c in json.load(sys.stdin)["controllers"]))')"
export MQADMIN_CONTROLLERS

step "Controller group: leader, Raft term and quorum"
"$MQADMIN" getControllerMetaData

step "Create the topic (brokers refuse a send to a topic the controller does not have: TOPIC_NOT_EXIST)"
"$MQADMIN" updateTopic -c DefaultCluster -t DemoTopic -r 4 -w 4
"$MQADMIN" updateTopic -c DefaultCluster -t ClientTopic -r 4 -w 4 >/dev/null  # and one for the RocketMQ 5 client
"$MQADMIN" updateSubGroup -c DefaultCluster -g ClientGroup >/dev/null

step "Send 20 messages (acknowledged by every in-sync replica: allAckInSyncStateSet)"
"$MQADMIN" sendMessage -t DemoTopic -p 'before-failover-{i}' --count 20 -o json | field '["sent"]' | sed 's/^/sent: /'

step "A consumer group receives and acks 12 of them (POP: every ack is a record replicated like the messages)"
"$MQADMIN" updateSubGroup -c DefaultCluster -g DemoGroup
"$MQADMIN" consumeMessage -t DemoTopic -g DemoGroup -c 12 -o json | field '["acked"]' | sed 's/^/acked: /'
"$MQADMIN" consumerProgress -g DemoGroup -t DemoTopic

step "Before: the SyncStateSet and every replica's epochs"
"$MQADMIN" getSyncStateSet -b broker-a
"$MQADMIN" getBrokerEpoch -b broker-a
old_master="$("$MQADMIN" getSyncStateSet -b broker-a -o json | field '[0]["masterBrokerId"]')"

step "A RocketMQ 5 client (the official Python Producer) starts sending to ClientTopic through the access points"
endpoints="$("$MQADMIN" sandbox status -o json | field '["proxyEndpoints"]')"
echo "endpoints: $endpoints"
"$CLIENT_PYTHON" examples/rocketmq5_client.py produce "$endpoints" ClientTopic "$DIR/client-ids.json" \
  --ready "$DIR/client-ready" &
producer=$!
until [ -e "$DIR/client-ready" ]; do kill -0 "$producer"; sleep 0.2; done  # its first sends are acknowledged
echo "sending (one message every 50 ms)"

step "Kill the master's agent with SIGKILL (the client keeps sending)"
"$MQADMIN" sandbox kill master -bn broker-a

step "Wait for a new master (exit 3 if none within 30 s)"
"$MQADMIN" wait master -bn broker-a --other-than "$old_master" --timeout 30

step "After: the new master, a higher masterEpoch, the dead replica out of the SyncStateSet"
"$MQADMIN" getSyncStateSet -b broker-a
"$MQADMIN" getBrokerEpoch -b broker-a

step "Stop the RocketMQ 5 client's sends: how many were acknowledged, how many failed"
kill -TERM "$producer"
wait "$producer"
producer=""

step "The official SimpleConsumer receives and acks ClientTopic back: every acknowledged send, exactly once"
alive="$("$MQADMIN" sandbox status -o json | python3 -c 'import json,sys; print(";".join(a["proxyAddress"] for a in json.load(sys.stdin)["agents"] if a["pid"]))')"
"$CLIENT_PYTHON" examples/rocketmq5_client.py consume "$alive" ClientTopic ClientGroup "$DIR/client-ids.json"

step "Send 5 more to the new master, then read everything back (only confirmed messages are visible)"
"$MQADMIN" sendMessage -t DemoTopic -p 'after-failover-{i}' --count 5 -o json | field '["sent"]' | sed 's/^/sent: /'
"$MQADMIN" consumeMessage -t DemoTopic -b broker-a -c 100 -o json \
  | python3 -c 'import json,sys; b=[m["body"] for m in json.load(sys.stdin)["messages"]]; print(f"read {len(b)} messages:", sum(x.startswith("before") for x in b), "from before,", sum(x.startswith("after") for x in b), "from after the failover")'

step "The group resumes on the new master exactly where it was: the 8 it had not acked and the 5 new, nothing twice"
"$MQADMIN" consumeMessage -t DemoTopic -g DemoGroup -c 100 -o json \
  | python3 -c 'import json,sys; d=json.load(sys.stdin); b=[m["body"] for m in d["messages"]]; print("received", d["received"], "acked", d["acked"], ":", sum(x.startswith("before") for x in b), "from before,", sum(x.startswith("after") for x in b), "from after the failover")'
"$MQADMIN" consumerProgress -g DemoGroup -t DemoTopic

step "Restart the killed agent: it rejoins as a slave, truncates nothing it should keep, and catches up"
killed="$("$MQADMIN" sandbox status -o json | python3 -c 'import json,sys; print(next(a["id"] for a in json.load(sys.stdin)["agents"] if not a["pid"]))')"
"$MQADMIN" sandbox start "$killed"
"$MQADMIN" wait insync -bn broker-a --timeout 60
"$MQADMIN" getBrokerEpoch -b broker-a

step "Planned switchover: hand the master role back to broker $old_master gracefully (no crash, nothing truncated)"
"$MQADMIN" transferMaster -c DefaultCluster -bn broker-a -b "$old_master" --dry-run
"$MQADMIN" transferMaster -c DefaultCluster -bn broker-a -b "$old_master"
"$MQADMIN" sendMessage -t DemoTopic -p 'after-transfer-{i}' --count 5 -o json | field '["sent"]' | sed 's/^/sent: /'
"$MQADMIN" getSyncStateSet -b broker-a

step "Tear the sandbox down (stops exactly the processes it started)"
"$MQADMIN" sandbox down --purge
