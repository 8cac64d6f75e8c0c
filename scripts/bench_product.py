#!/usr/bin/env python3
"""Benchmark of the per-execution check on real merges (not a test): every two-sided merge of
a cJSON clone the user provides (both parents changed cJSON.c since the merge base), reviewed
with `review --commit` by two builds side by side, the learning cached (warmed once) and the
per-execution check run cold each time (its cache removed before every run).

Usage: bench_product.py --repo CJSON_CLONE --new BIN [--old BIN] [--merges M1,M2,...]
                        [--budget S]
Prints a Markdown table (merge, build, check seconds, CBMC runs, peak memory of a CBMC run,
verdict); benches/review.md keeps the figures. The harness is our own: it parses a
nondeterministic 4-byte string and frees what it parsed."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HARNESS = """#include "cJSON.h"
char nondet_char(void);
void parse4(void)
{
    char s[5];
    s[0] = nondet_char(); s[1] = nondet_char(); s[2] = nondet_char(); s[3] = nondet_char();
    s[4] = 0;
    cJSON *j = cJSON_Parse(s);
    cJSON_Delete(j);
}
"""


def git(repo, *args, check=True):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=check)


def two_sided(repo, path="cJSON.c"):
    """The merges (first 10 hex digits) whose parents both changed `path` since their base."""
    out = []
    for m in git(repo, "rev-list", "--merges", "HEAD").stdout.split():
        p1, p2 = f"{m}^1", f"{m}^2"
        base = git(repo, "merge-base", p1, p2, check=False).stdout.strip()
        if not base:
            continue
        if all(git(repo, "diff", "--quiet", base, p, "--", path, check=False).returncode == 1
               for p in (p1, p2)):
            out.append(m[:10])
    return out


def review(binary, repo, merge, harness, budget):
    """One review of `merge`, its per-execution cache removed first: (seconds of the check,
    CBMC runs, peak MiB, verdict, complete)."""
    shutil.rmtree(os.path.join(repo, ".git", "mergelens", "executions"), ignore_errors=True)
    with tempfile.TemporaryDirectory() as out_dir:
        doc = os.path.join(out_dir, "review.json")
        cmd = [binary, "review", "--commit", merge, "--files", "cJSON.c", "--harness", harness,
               "--entry", "parse4", "-I", ".", "--format", "json", "-o", doc]
        if budget:
            cmd += ["--time-budget", str(budget)]
        started = time.monotonic()
        subprocess.run(cmd, cwd=repo, capture_output=True, check=False)
        wall = time.monotonic() - started
        try:
            with open(doc) as f:
                d = json.load(f)
        except (OSError, ValueError):
            return (wall, 0, 0, "failed", False)
    checks = [e.get("execution_check") or {} for e in d.get("entries", [])]
    seconds = sum(c.get("wall_seconds", 0.0) for c in checks)
    runs = sum(c.get("cbmc_runs", 0) for c in checks)
    complete = all(c.get("complete", False) for c in checks) and bool(checks)
    return (seconds, runs, d.get("peak_memory_mib", 0), d.get("verdict", "?"), complete)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--old")
    ap.add_argument("--merges")
    ap.add_argument("--budget", type=int, default=0)
    a = ap.parse_args()
    repo = os.path.abspath(a.repo)
    merges = a.merges.split(",") if a.merges else two_sided(repo)
    builds = [("new", os.path.abspath(a.new))] + ([("old", os.path.abspath(a.old))] if a.old else [])
    with tempfile.TemporaryDirectory() as hdir:
        harness = os.path.join(hdir, "harness.c")
        with open(harness, "w") as f:
            f.write(HARNESS)
        print("| merge | build | check s | CBMC runs | peak MiB | verdict | check complete |")
        print("|---|---|---:|---:|---:|---|---|")
        for m in merges:
            # Warm the learning's cache once, with the first build.
            review(builds[0][1], repo, m, harness, a.budget)
            for name, binary in builds:
                s, runs, peak, verdict, complete = review(binary, repo, m, harness, a.budget)
                print(f"| {m} | {name} | {s:.1f} | {runs} | {peak} | {verdict} | "
                      f"{'yes' if complete else 'no'} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
