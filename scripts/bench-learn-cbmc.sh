#!/usr/bin/env bash
# The speed benchmark of `mergelens learn` (see benches/cbmc.md): for every learn fixture
# (tests/fixtures/learn_*/learn.txt), CBMC runs and wall time of the paper's baseline (one
# CBMC run per membership query, no pre-checks, no lazy learning, no batches, no cache)
# against the default (batches, pre-checks, lazy learning, the cache: cold, then warm),
# side by side in one run, with a check that the automata are equivalent.
#
#   scripts/bench-learn-cbmc.sh [MERGELENS_BINARY]
#
# Prints a Markdown table. Builds the release binary unless one is given.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-}"
if [[ -z "$bin" ]]; then
    cargo build --release --quiet --manifest-path "$root/Cargo.toml"
    bin="${CARGO_TARGET_DIR:-$root/target}/release/mergelens"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$root" "$bin" "$work" <<'EOF'
import json, os, subprocess, sys, time

root, binary, work = sys.argv[1:4]
fixtures = os.path.join(root, "tests/fixtures")

def args_of(case):
    with open(os.path.join(fixtures, case, "learn.txt")) as f:
        lines = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    return lines[0].split()

def learn(case, tag, extra):
    out = os.path.join(work, f"{case}.{tag}.json")
    stats = os.path.join(work, f"{case}.{tag}.stats.json")
    started = time.monotonic()
    subprocess.run([binary, "learn", *args_of(case), "-o", out, "--stats", stats, *extra],
                   cwd=root, check=True, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - started
    with open(stats) as f:
        s = json.load(f)
    return out, s["cbmc_runs"], wall

def equivalent(a, b):
    return subprocess.run([binary, "automaton", "equiv", a, b], cwd=root,
                          stdout=subprocess.DEVNULL).returncode == 0

cases = sorted(c for c in os.listdir(fixtures)
               if os.path.isfile(os.path.join(fixtures, c, "learn.txt")))
print("| program | bounds | baseline runs | baseline s | default runs | default s | fewer runs | warm runs | warm s | equivalent |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
for case in cases:
    cache = os.path.join(work, case + ".cache")
    base_out, base_runs, base_wall = learn(case, "baseline", ["--baseline"])
    cold_out, cold_runs, cold_wall = learn(case, "cold", ["--cache-dir", cache])
    warm_out, warm_runs, warm_wall = learn(case, "warm", ["--cache-dir", cache])
    same = equivalent(base_out, cold_out) and equivalent(cold_out, warm_out)
    a = args_of(case)
    program = os.path.basename(a[0])
    bounds = " ".join(a[1:])
    fewer = 100.0 * (1 - cold_runs / base_runs) if base_runs else 0.0
    print(f"| {program} | `{bounds}` | {base_runs} | {base_wall:.2f} | {cold_runs} | {cold_wall:.2f} "
          f"| {fewer:.0f}% | {warm_runs} | {warm_wall:.2f} | {'yes' if same else 'NO'} |")
EOF
