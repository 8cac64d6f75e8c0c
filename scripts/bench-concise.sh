#!/usr/bin/env bash
# The concise-automaton measurement of benches/README.md: for every learn and explain
# fixture (the programs of `make bench-learn` and `make bench-explain`), the states of the
# exact automaton against the concise one, how it was found, and the time it took (the
# note `mergelens` prints on standard error).
#
#   scripts/bench-concise.sh [MERGELENS_BINARY]
#
# Prints a Markdown table. Builds the release binary unless one is given.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-}"
if [[ -z "$bin" ]]; then
    cargo build --release --quiet --manifest-path "$root/Cargo.toml"
    bin="${CARGO_TARGET_DIR:-$root/target}/release/mergelens"
fi

python3 - "$root" "$bin" <<'PY'
import json, os, re, subprocess, sys

root, binary = sys.argv[1:3]
fixtures = os.path.join(root, "tests/fixtures")

def first_line(path):
    with open(path) as f:
        return next(l.strip() for l in f if l.strip() and not l.startswith("#")).split()

cases = []
for case in sorted(os.listdir(fixtures)):
    for command, key in (("learn", "learned"), ("explain", "explained")):
        spec = os.path.join(fixtures, case, command + ".txt")
        if os.path.isfile(spec):
            cases.append((case, command, key, first_line(spec)))

print("| program | command | bounds | exact states | concise states | saved | method | minimal | seconds |")
print("|---|---|---|---:|---:|---:|---|---|---:|")
total_exact = total_concise = 0
for case, command, key, args in cases:
    run = subprocess.run([binary, command, *args, "--no-cache"], cwd=root,
                         capture_output=True, text=True)
    if run.returncode != 0:
        print(f"| {case} | {command} | failed: {run.stderr.strip().splitlines()[-1]} |||||||")
        continue
    doc = json.loads(run.stdout)
    concise = doc.get(key, {}).get("concise")
    bounds = " ".join(args[1:])
    if concise is None:
        print(f"| {case} | {command} | `{bounds}` | {doc['states']} | none (empty or partial) | | | | |")
        continue
    took = re.search(r"concise automaton: .*, ([0-9.]+) s\)", run.stderr)
    total_exact += concise["exact_states"]
    total_concise += concise["states"]
    print(f"| {case} | {command} | `{bounds}` | {concise['exact_states']} | {concise['states']} | "
          f"{concise['states_saved']} | {concise['method']} | {'yes' if concise['minimal'] else 'no'} | "
          f"{took.group(1) if took else '?'} |")
if total_exact:
    print(f"\nIn all: {total_exact} exact states, {total_concise} concise "
          f"({100 * (total_exact - total_concise) / total_exact:.0f}% fewer).")
PY
