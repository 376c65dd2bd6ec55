#!/usr/bin/env bash
# Builds the Go driver (tests/clients/README.md) into OUT/driver, with the client pinned by go.mod/go.sum.
set -euo pipefail
if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: $0 OUT" >&2
    exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
cd "$here"
# go.sum as committed is what is used; the machine's own Go, never a downloaded toolchain.
export GOFLAGS="-mod=readonly -buildvcs=false"
export GOTOOLCHAIN=local
# Nothing changed since the last build into OUT: done (go build would relink, ~10 s).
stamp="$( { go version; cat go.mod go.sum build.sh ./*.go; } | sha256sum | cut -d' ' -f1)"
if [ -x "$out/driver" ] && [ "$(cat "$out/.stamp" 2>/dev/null || true)" = "$stamp" ]; then
    exit 0
fi
go build -o "$out/driver.tmp" .
mv -f "$out/driver.tmp" "$out/driver"
printf '%s\n' "$stamp" > "$out/.stamp"
