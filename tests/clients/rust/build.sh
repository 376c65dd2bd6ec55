#!/usr/bin/env bash
# Builds the Rust driver (Apache RocketMQ 5 Rust client, crate `rocketmq`, pinned in Cargo.toml/Cargo.lock)
# into OUT: the cargo target dir is OUT/target (outside the clone), the binary is OUT/driver.
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: $0 OUT" >&2
    exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
export CARGO_TARGET_DIR="$out/target"
cargo build -q --release --locked --manifest-path "$here/Cargo.toml"
bin="$CARGO_TARGET_DIR/release/driver"
if [ ! -e "$out/driver" ] || ! cmp -s "$bin" "$out/driver"; then
    cp -f "$bin" "$out/driver.tmp"
    mv -f "$out/driver.tmp" "$out/driver"
fi
