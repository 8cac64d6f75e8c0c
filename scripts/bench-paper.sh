#!/usr/bin/env bash
# The paper's programs (martinchapman/learning-errors, paper_demos/) at their largest
# published bounds, explained by mergelens; the table of benches/paper.md.
# Usage: scripts/bench-paper.sh PAPER_DEMOS [MERGELENS] [OTHER_MERGELENS]
#   PAPER_DEMOS      the paper_demos directory of a checkout of that repository (this
#                    script fetches nothing)
#   MERGELENS        the binary measured (default target/release/mergelens)
#   OTHER_MERGELENS  optional: a second binary (e.g. a build of an older commit), run on
#                    each program right before the first, side by side
# Environment: ONLY="schedule merge_sort_false" runs those rows only; LIMIT (seconds, default
# 600) stops a run that takes longer (the row says so: a stopped run is no timing);
# READING=literal runs `--unwind u` for the paper's bound u-n instead of the default `paper`.
#
# The paper's bound "u-n" is its tool's `--user-unwind u`, which it passed to CBMC as
# `--unwind u` (libalf/examples/online.cpp of that repository): loop bodies run at most u-1
# times, as its *.smid.c files spell out (`++count < limit`). mergelens's `--unwind b` lets
# them run b times (CBMC `--unwind b+1`), so the paper's u-n is `--unwind u-1
# --max-word-length n` (READING=paper). READING=literal takes u as mergelens's b: one more
# iteration of every loop than the paper explored.
set -euo pipefail
demos=${1:-}
if [ -z "$demos" ] || [ ! -d "$demos/schedule" ]; then
  echo "usage: $0 PAPER_DEMOS [MERGELENS] [OTHER_MERGELENS]" >&2
  echo "PAPER_DEMOS is the paper_demos/ directory of github.com/martinchapman/learning-errors;${demos:+ $demos has no schedule/ in it;} fetch it yourself, this script fetches nothing" >&2
  exit 2
fi
demos=$(cd "$demos" && pwd)
M=$(realpath "${2:-target/release/mergelens}")
OTHER=${3:+$(realpath "$3")}
LIMIT=${LIMIT:-600}
READING=${READING:-paper}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The programs call the paper's `_Learn_assert(cond)`, which its tool defined; here it is a
# plain CBMC assertion in a harness file. DockingApproachExample_Ext declares it with _Bool.
printf 'void _Learn_assert(int cond) { __CPROVER_assert(cond, "Learn_Assert"); }\n' >"$out/la_int.c"
printf 'void _Learn_assert(_Bool cond) { __CPROVER_assert(cond, "Learn_Assert"); }\n' >"$out/la_bool.c"

# name | file | harness | unwind-length | alphabet. The alphabet is the paper's: its .f file
# where the program has one, else the letters of the automaton it published at that bound
# (its tool took every function, `--auto f`; a function on no failing run adds no letter to
# the language, only queries to the learner).
rows=(
  "merge_sort_false|merge_sort_false/merge_sort_false.c|la_int|3-15|inspect_after,inspect_before,merge_pair,merge_single_node,seq_sort_core"
  "schedule|schedule/schedule.c|la_int|2-13|$(paste -sd, "$demos/schedule/schedule.f")"
  "bubble_sort_linux_false|bubble_sort_linux_false/bubble_sort_linux_false.c|la_int|3-22|__list_add,__list_del,gl_insert,gl_read,gl_sort,gl_sort_pass,inspect,list_add,list_move,val_from_node"
  "DockingApproachExample_Ext|DockingApproachExample_Ext/DockingApproachExample_Ext.c|la_bool|4-15|$(paste -sd, "$demos/DockingApproachExample_Ext/DockingApproachExample_Ext.f")"
  "tree_false|tree_false/tree_false.c|la_int|3-24|create_tree,free_tree,inspect"
  "tcas_auto_instrumented|tcas_auto_instrumented/tcas_auto_instrumented.c|la_int|1-25|ALIM,Inhibit_Biased_Climb,Non_Crossing_Biased_Climb,Non_Crossing_Biased_Descend,Own_Above_Threat,Own_Below_Threat,alt_sep_test,fake1,initialize"
  "sll_to_dll_rev_false|sll_to_dll_rev_false/sll_to_dll_rev_false.c|la_int|3-30|chain_node,check_seq_next,check_seq_prev,create_sll,init_back_link,remove_fw_link,reverse_dll"
  "ifstofunctions_defroster_min|ifstofunctions_defroster/ifstofunctions_defroster_min.c|la_int|1-28|Exception_handler,else_line_106,else_line_113,else_line_66,else_line_76,else_line_99,if_line_100,if_line_101,if_line_114,if_line_115,if_line_68,if_line_71,if_line_72,if_line_73,if_line_77,if_line_81"
)

# run BINARY TAG NAME FILE HARNESS UNWIND LENGTH ALPHABET: one cold explain; prints
# "runs seconds states" ("- LIMIT+ -" when stopped at the limit).
run() {
  local bin=$1 tag=$2 name=$3 file=$4 harness=$5 unwind=$6 length=$7 only=$8
  local stats="$out/$name.$tag.stats" json="$out/$name.$tag.json"
  local s e rc=0
  s=$(date +%s.%N)
  # CPU time (mergelens and the CBMC runs it waited for) beside wall time: on a machine
  # shared with other work the wall time says more about the load than about mergelens.
  /usr/bin/time -f '%U %S' -o "$out/$name.$tag.cpu" \
    timeout --signal=INT --kill-after=30 "$LIMIT" "$bin" explain "$demos/$file" --harness "$out/$harness.c" \
    --only "$only" --unwind "$unwind" --max-word-length "$length" --no-cache \
    --stats "$stats" -o "$json" 2>"$out/$name.$tag.err" || rc=$?
  e=$(date +%s.%N)
  local wall
  wall=$(python3 -c "print(f'{$e - $s:.1f}')")
  if [ "$rc" -ne 0 ] || grep -q partial "$out/$name.$tag.err"; then
    echo "- >$LIMIT - -"
    return
  fi
  python3 - "$stats" "$json" "$wall" "$out/$name.$tag.cpu" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
runs = stats["cbmc_runs"] + stats.get("selection_cbmc_runs", 0)
cpu = sum(float(x) for x in open(sys.argv[4]).read().split()[-2:])
print(runs, sys.argv[3], f"{cpu:.1f}", doc["states"])
PY
}

if [ -n "$OTHER" ]; then
  printf '| program | paper bounds | mergelens bounds | CBMC runs (other) | wall s (other) | CPU s (other) | CBMC runs | wall s | CPU s | states | equivalent |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n'
else
  printf '| program | paper bounds | mergelens bounds | CBMC runs | wall s | CPU s | states |\n|---|---|---|---:|---:|---:|---:|\n'
fi
for row in "${rows[@]}"; do
  IFS='|' read -r name file harness bounds only <<<"$row"
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
  unwind=${bounds%-*}; length=${bounds#*-}
  [ "$READING" = paper ] && unwind=$((unwind - 1))
  if [ -n "$OTHER" ]; then
    read -r oruns owall ocpu _ <<<"$(run "$OTHER" other "$name" "$file" "$harness" "$unwind" "$length" "$only")"
  fi
  read -r runs wall cpu states <<<"$(run "$M" this "$name" "$file" "$harness" "$unwind" "$length" "$only")"
  if [ -n "$OTHER" ]; then
    eq=n/a
    if [ -s "$out/$name.other.json" ] && [ -s "$out/$name.this.json" ] && [ "$owall" != ">$LIMIT" ] && [ "$wall" != ">$LIMIT" ]; then
      eq=$("$M" automaton equiv "$out/$name.other.json" "$out/$name.this.json" >/dev/null 2>&1 && echo yes || echo NO)
    fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$bounds" "\`--unwind $unwind --max-word-length $length\`" "$oruns" "$owall" "$ocpu" "$runs" "$wall" "$cpu" "$states" "$eq"
  else
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$bounds" "\`--unwind $unwind --max-word-length $length\`" "$runs" "$wall" "$cpu" "$states"
  fi
done
