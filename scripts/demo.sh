#!/usr/bin/env bash
# The demo: the merge of the paper's Fig. 12 (Chockler et al. 2020, Sec. 5) on the automata
# of its four versions, computed with `mergelens automaton`: what the merge added that
# neither branch meant, and what it lost. Usage: scripts/demo.sh MERGELENS OUTDIR
set -euo pipefail
bin=$1
out=$2
case_dir=$(dirname "$0")/../tests/fixtures/fig12
mkdir -p "$out"
ml() { "$bin" automaton "$@"; }

"$bin" doctor
for v in base ours theirs merged; do cp "$case_dir/$v.json" "$out/$v.json"; done
ml difference "$out/merged.json" "$out/ours.json" -o "$out/merged_minus_ours.json"
ml difference "$out/merged.json" "$out/theirs.json" -o "$out/merged_minus_theirs.json"
ml symdiff "$out/ours.json" "$out/theirs.json" -o "$out/ours_symdiff_theirs.json"
# The expected merge: each branch's change and nothing else.
ml symdiff "$out/ours.json" "$out/base.json" -o "$out/ours_change.json"
ml intersect "$out/ours.json" "$out/ours_change.json" -o "$out/kept_from_ours.json"
ml difference "$out/theirs.json" "$out/ours_change.json" -o "$out/kept_from_theirs.json"
ml union "$out/kept_from_ours.json" "$out/kept_from_theirs.json" -o "$out/expected_merge.json"
ml difference "$out/merged.json" "$out/expected_merge.json" -o "$out/unexpected.json"
ml difference "$out/expected_merge.json" "$out/merged.json" -o "$out/lost.json"
for f in merged_minus_ours merged_minus_theirs ours_symdiff_theirs unexpected lost base ours theirs merged; do
    ml svg "$out/$f.json" -o "$out/$f.svg"
done

echo
echo "The merge of Fig. 12: ours adds funcZ around funcB, theirs adds a branch to funcC."
echo "Behaviour the merge has that neither branch's change explains (unexpected):"
ml words "$out/unexpected.json" --max-length 8 | sed 's/^/    /'
echo "Behaviour a branch meant that the merge lost:"
ml words "$out/lost.json" --max-length 8 | sed 's/^/    /'
echo "Ours against theirs (symmetric difference):"
ml words "$out/ours_symdiff_theirs.json" --max-length 8 | sed 's/^/    /'
echo
echo "Automata (mergelens-dfa/1 JSON) and drawings (SVG) are in $out/"
