#!/usr/bin/env bash
# Concrete runs as a second teacher, and --mode pac, measured (see benches/concrete.md): for
# each case, `learn` or `explain` without concrete runs (--concrete-runs 0), with them
# (--concrete-runs 200), and in PAC mode with them, side by side in one run and cold (--no-cache): CBMC
# runs, wall time, words CBMC checked, answers from concrete runs, and whether the automata
# are equivalent (`mergelens automaton equiv`; a PAC result may differ and is reported, not
# required to match).
#
#   scripts/bench-concrete.sh [MERGELENS_BINARY] [EXTRA_CASES_FILE]
#
# EXTRA_CASES_FILE holds more cases, one a line: `learn|explain ARGS...` (e.g. the paper's
# programs from a checkout of martinchapman/learning-errors, which is never vendored here).
# Prints a Markdown table. Builds the release binary unless one is given.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-}"
extra="${2:-}"
if [[ -z "$bin" ]]; then
    cargo build --release --quiet --manifest-path "$root/Cargo.toml"
    bin="${CARGO_TARGET_DIR:-$root/target}/release/mergelens"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$root" "$bin" "$work" "$extra" <<'EOF'
import json, os, subprocess, sys, time

root, binary, work, extra = sys.argv[1:5]
cases = [] if os.environ.get("ONLY_EXTRA") else [
    "learn tests/fixtures/learn_choices/choices.c --unwind 3 --max-word-length 14",
    "learn tests/programs/hash_loop.c --unwind 3 --max-word-length 14",
    "learn tests/programs/explain_order.c --unwind 3 --max-word-length 14",
    "learn tests/programs/loop_calls.c --unwind 6 --max-word-length 30",
    "learn tests/programs/recursion.c --unwind 3 --max-word-length 14",
    "explain tests/programs/explain_order.c --unwind 3 --max-word-length 12",
    "explain tests/programs/explain_loop_k.c --unwind 8 --max-word-length 12",
    "learn benches/concrete/controller.c --unwind 5 --max-word-length 12",
    "learn benches/concrete/tokens.c --unwind 4 --max-word-length 8",
]
if extra:
    with open(extra) as f:
        cases += [l.strip() for l in f if l.strip() and not l.startswith("#")]

def run(i, case, tag, flags):
    command, *args = case.split()
    out = os.path.join(work, f"{i}.{tag}.json")
    stats = os.path.join(work, f"{i}.{tag}.stats.json")
    started = time.monotonic()
    done = subprocess.run([binary, command, *args, "--no-cache", "-o", out, "--stats", stats, *flags],
                          cwd=root, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - started
    if done.returncode != 0:
        return None
    with open(stats) as f:
        s = json.load(f)
    learner = s["learn"] if command == "explain" else s
    t = s["teacher"]
    return {"out": out, "runs": s["cbmc_runs"], "wall": wall, "words": t["words_to_cbmc"],
            "from_concrete": learner["from_concrete"], "cex": t["concrete_counterexamples"],
            "cwords": t["concrete_words"], "discarded": t["concrete_discarded"],
            "concrete_runs": t["concrete_runs"], "note": t["concrete_note"]}

def equivalent(a, b):
    return subprocess.run([binary, "automaton", "equiv", a, b], cwd=root,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0

print("| case | CBMC runs off → on | wall s off → on | words to CBMC off → on | from_concrete (+ free cex) | concrete words / discarded runs | equivalent | PAC runs, wall s, same automaton |")
print("|---|---:|---:|---:|---:|---:|---|---|")
total = {"off_runs": 0, "on_runs": 0, "off_wall": 0.0, "on_wall": 0.0}
for i, case in enumerate(cases):
    off = run(i, case, "off", ["--concrete-runs", "0"])
    on = run(i, case, "on", ["--concrete-runs", "200"])
    pac = run(i, case, "pac", ["--mode", "pac"])
    if off is None or on is None:
        print(f"| `{case}` | failed | | | | | | |")
        continue
    for k in ("runs", "wall"):
        total[f"off_{k}"] += off[k]
        total[f"on_{k}"] += on[k]
    same = "yes" if equivalent(off["out"], on["out"]) else "**NO**"
    concrete = (f"{on['cwords']} / {on['discarded']} of {on['concrete_runs']}"
                if on["concrete_runs"] else f"none ({(on['note'] or 'not needed: the prefetch answered all')[:60]})")
    pac_text = "failed" if pac is None else \
        f"{pac['runs']}, {pac['wall']:.1f}, {'yes' if equivalent(off['out'], pac['out']) else 'no'}"
    print(f"| `{case}` | {off['runs']} → {on['runs']} | {off['wall']:.1f} → {on['wall']:.1f} | "
          f"{off['words']} → {on['words']} | {on['from_concrete']} (+{on['cex']}) | {concrete} | {same} | {pac_text} |")
print()
print(f"Total: CBMC runs {total['off_runs']} → {total['on_runs']}, wall {total['off_wall']:.1f} s → {total['on_wall']:.1f} s.")
EOF
