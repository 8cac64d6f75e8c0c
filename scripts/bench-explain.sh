#!/usr/bin/env bash
# The explain benchmark of benches/explain.md: baseline against default, side by side.
# Usage: scripts/bench-explain.sh [MERGELENS]  (from the repository root)
set -euo pipefail
M=${1:-target/release/mergelens}
out=$(mktemp -d)
printf '| program | args | baseline runs | baseline s | default runs | default s | fewer runs | equivalent |\n|---|---|---|---|---|---|---|---|\n'
# The test cases, then larger bounds on two of them, where the pre-check admits more words
# than one batch holds and lazy learning's guesses do the work.
cases=()
for case in tests/fixtures/explain_*/; do
  cases+=("$(basename "$case")=$(grep -v '^#' "$case/explain.txt" | head -1)")
done
cases+=("explain_order_n12=tests/programs/explain_order.c --unwind 3 --max-word-length 12")
cases+=("explain_loop_k_b8=tests/programs/explain_loop_k.c --unwind 8 --max-word-length 12")
for entry in "${cases[@]}"; do
  name=${entry%%=*}
  args=${entry#*=}
  for mode in baseline default; do
    extra=(); [ $mode = baseline ] && extra=(--baseline)
    s=$(date +%s.%N)
    $M explain $args --no-cache "${extra[@]}" --stats "$out/$name.$mode.stats" -o "$out/$name.$mode.json" 2>/dev/null
    e=$(date +%s.%N)
    python3 -c "print($e - $s)" > "$out/$name.$mode.wall"
  done
  br=$(python3 -c "import json;print(json.load(open('$out/$name.baseline.stats'))['cbmc_runs'])")
  dr=$(python3 -c "import json;print(json.load(open('$out/$name.default.stats'))['cbmc_runs'])")
  bw=$(cat "$out/$name.baseline.wall"); dw=$(cat "$out/$name.default.wall")
  eq=$($M automaton equiv "$out/$name.baseline.json" "$out/$name.default.json" >/dev/null 2>&1 && echo yes || echo NO)
  # Nothing to learn (the target cannot fail) leaves no ratio to give.
  fewer=$(python3 -c "print(f'{round(100*(1-$dr/$br))}%' if $br else 'nothing to learn')")
  printf '| %s | `%s` | %s | %.2f | %s | %.2f | %s | %s |\n' "$name" "${args#tests/programs/}" "$br" "$bw" "$dr" "$dw" "$fewer" "$eq"
done
