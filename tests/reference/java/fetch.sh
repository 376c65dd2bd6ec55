#!/usr/bin/env bash
# Resolve the pinned Java RocketMQ 5 (namesrv, controller, broker, proxy, tools) from Maven Central
# into ~/.m2 (the cache) and write its runtime classpath to OUT/classpath.txt, the version to OUT/version.txt.
# Idempotent: when OUT already has the classpath of this very pom and every jar is still in ~/.m2, it returns at
# once; else Maven resolves it (offline first, so a warm ~/.m2 needs no network).
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 OUT" >&2; exit 2; fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$1"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
command -v mvn >/dev/null || { echo "fetch.sh: mvn not found" >&2; exit 3; }
command -v java >/dev/null || { echo "fetch.sh: java not found" >&2; exit 3; }
stamp="$(sha256sum < "$here/pom.xml" | cut -c1-64)"
if [ -s "$out/classpath.txt" ] && [ "$(cat "$out/pom.sha256" 2>/dev/null)" = "$stamp" ]; then
  ok=1
  IFS=: read -r -a jars < "$out/classpath.txt" || true
  for j in "${jars[@]}"; do [ -f "$j" ] || { ok=0; break; }; done
  if [ "$ok" = 1 ]; then echo "$out/classpath.txt"; exit 0; fi
fi
# -o (offline) first: quick when ~/.m2 already has it all; online otherwise.
if ! mvn -B -q -o -f "$here/pom.xml" dependency:build-classpath -Dmdep.includeScope=runtime \
      -Dmdep.outputFile="$out/classpath.txt" >"$out/mvn.log" 2>&1; then
  mvn -B -q -f "$here/pom.xml" dependency:build-classpath -Dmdep.includeScope=runtime \
      -Dmdep.outputFile="$out/classpath.txt" >"$out/mvn.log" 2>&1 || { cat "$out/mvn.log" >&2; exit 1; }
fi
sed -n 's:.*<rocketmq.version>\(.*\)</rocketmq.version>.*:\1:p' "$here/pom.xml" > "$out/version.txt"
echo "$stamp" > "$out/pom.sha256"
echo "$out/classpath.txt"
