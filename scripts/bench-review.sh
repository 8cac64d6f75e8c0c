#!/usr/bin/env bash
# The review benchmark (benches/review.md): cold review, the same review again, and a review
# after one more commit on one branch, on Fig. 12 and on a generated 2,000-line program.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
python3 scripts/bench_review.py target/release/mergelens "$@"
