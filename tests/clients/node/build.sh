#!/usr/bin/env bash
# Builds the Node.js driver (Apache RocketMQ 5 Node.js client, npm `rocketmq-client-nodejs`, pinned in
# package.json and package-lock.json) into OUT: OUT/node_modules from `npm ci` (skipped while OUT's lock
# equals this folder's and OUT/node_modules exists), OUT/driver.js, and the wrapper OUT/driver.
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: $0 OUT" >&2
    exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"

# Replaces $2 by $1 unless they are equal already (an unchanged tree leaves OUT untouched).
install_file() {
    if ! cmp -s "$1" "$2"; then
        cp -f "$1" "$2.tmp"
        mv -f "$2.tmp" "$2"
    fi
}

if ! cmp -s "$here/package-lock.json" "$out/package-lock.json" \
        || ! cmp -s "$here/package.json" "$out/package.json" || [ ! -d "$out/node_modules" ]; then
    install_file "$here/package.json" "$out/package.json"
    install_file "$here/package-lock.json" "$out/package-lock.json"
    if ! npm_log="$(cd "$out" && npm ci --no-audit --no-fund --loglevel=error 2>&1)"; then
        printf '%s\n' "$npm_log" >&2
        rm -rf "$out/node_modules"   # so that the next run installs again
        exit 1
    fi
fi
install_file "$here/driver.js" "$out/driver.js"

wrapper="$(printf '#!/bin/sh\nexec node "%s/driver.js" "$@"' "$out")"
if [ ! -x "$out/driver" ] || [ "$(cat "$out/driver")" != "$wrapper" ]; then
    printf '%s\n' "$wrapper" >"$out/driver.tmp"
    chmod +x "$out/driver.tmp"
    mv -f "$out/driver.tmp" "$out/driver"
fi
