#!/usr/bin/env bash
# Libraries as they are (benches/libraries.md): learns a short-input harness of each library
# from clones the user provides (never fetched here), keeping every CBMC query
# (MERGELENS_KEEP_QUERIES), then runs each kept query again with and without
# `--no-sat-preprocessor` and checks that the answers agree.
#
#   scripts/bench-libraries.sh INIH_DIR TINYEXPR_DIR [MERGELENS_BINARY]
#
# INIH_DIR holds ini.c and ini.h (benhoyt/inih), TINYEXPR_DIR tinyexpr.c and tinyexpr.h
# (codeplea/tinyexpr); either may be "-" to skip that library. Prints a Markdown table.
# Builds the release binary unless one is given. Times are CPU seconds (user + system of
# mergelens and every CBMC it ran), which a busy machine disturbs less than wall time.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
if [[ $# -lt 2 ]]; then
    echo "usage: $0 INIH_DIR TINYEXPR_DIR [MERGELENS_BINARY]" >&2
    exit 2
fi
inih="$1"
tinyexpr="$2"
bin="${3:-}"
if [[ -z "$bin" ]]; then
    cargo build --release --quiet --manifest-path "$root/Cargo.toml"
    bin="${CARGO_TARGET_DIR:-$root/target}/release/mergelens"
fi
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 "$root/scripts/bench_libraries.py" "$root" "$bin" "$work" "$inih" "$tinyexpr"
