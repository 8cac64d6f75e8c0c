#!/usr/bin/env bash
# The learner benchmark: mergelens's L* against AALpy's L* (Rivest-Schapire) and KV on the
# same random minimal DFAs, counted the way a model checker is asked. Prints a markdown
# table; benches/learner.md explains it and holds the last measured one.
#
#   scripts/bench-learner.sh                      # the full grid (long: AALpy is slow)
#   GRID=quick scripts/bench-learner.sh           # four small rows
#   ROW_BUDGET=60 scripts/bench-learner.sh        # seconds per row and AALpy algorithm
#   REPEAT=1 scripts/bench-learner.sh             # runs per target (the least time counts)
#
# Everything goes under target/bench-learner/: the targets (generated once, then reused),
# the per-target results as JSON lines, and AALpy in a virtual environment.
set -euo pipefail
cd "$(dirname "$0")/.."

GRID=${GRID:-full}
ROW_BUDGET=${ROW_BUDGET:-600}
REPEAT=${REPEAT:-3}
OUT=target/bench-learner
TARGETS=$OUT/targets-$GRID
VENV=target/aalpy-venv

mkdir -p "$OUT"
cargo bench --bench learner --no-run
echo "targets: $TARGETS" >&2
cargo bench -q --bench learner -- generate "$TARGETS" --grid "$GRID"

echo "mergelens: learning every target in every mode" >&2
cargo bench -q --bench learner -- run "$TARGETS" --modes rs,rs-all,angluin,mp --repeat "$REPEAT" \
    >"$OUT/mergelens-$GRID.jsonl"

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import aalpy' 2>/dev/null; then
    echo "installing AALpy into $VENV" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet aalpy
fi
echo "AALpy $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("aalpy"))'):" \
    "L*-RS and KV, at most ${ROW_BUDGET}s per row and algorithm" >&2
"$VENV/bin/python" scripts/bench_learner.py aalpy "$TARGETS" --row-budget "$ROW_BUDGET" --repeat "$REPEAT" \
    >"$OUT/aalpy-$GRID.jsonl"

python3 scripts/bench_learner.py table "$OUT/mergelens-$GRID.jsonl" "$OUT/aalpy-$GRID.jsonl"

echo >&2
echo "batching the Rivest-Schapire search, long counterexamples (mergelens only):" >&2
echo
cargo bench -q --bench learner -- batching "$TARGETS"
