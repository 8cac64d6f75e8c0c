#!/usr/bin/env python3
"""Real history: reviews the merge commits of C libraries the user has cloned, one
`mergelens review --commit` per merge at the default bounds under a time budget, and writes
the table of benches/real.md.

    python3 scripts/bench_real.py MERGELENS --repos DIR [--out FILE] [--budget S]
                                  [--per-repo N] [--only NAME,...]

DIR holds one git clone per library, named as its configuration under benches/real/
(`cJSON` is reviewed with benches/real/cJSON.toml, given as --config: the clones carry no
.mergelens.toml). A clone without a configuration is skipped, with a line saying so. Nothing
is fetched: the clones are the user's.

A merge is reviewed when the merge result differs from the merge base in the files the
configuration analyses (`files`): the merges that change analysed code, newest first, at
most N per library. Each row: the verdict; the changed hunks with code that some entry's
executions reach, of all such hunks; the wall time; the peak memory (the largest tool run
the document reports, or the largest process the review ran, whichever is larger); and
whether the verdict was confirmed by reading the diff, from benches/real-confirmed.json
(`{"cJSON 1a2b3c4": "yes: ..."}`), which a person writes.
"""

import argparse
import fnmatch
import json
import os
import tempfile
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "benches" / "real"
CONFIRMED = ROOT / "benches" / "real-confirmed.json"


def git(repo, *args):
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


def analysed(files, paths):
    """The paths the configuration's `files` globs select (every *.c file without any)."""
    patterns = files or ["*.c"]
    return [p for p in paths if any(fnmatch.fnmatchcase(p, g) for g in patterns)]


def sides(repo, files, merge):
    """How many branches changed analysed files since the merge base: 0, 1 or 2."""
    parents = git(repo, "rev-list", "--parents", "-n1", merge).split()[1:]
    base = git(repo, "merge-base", *parents).strip()
    return sum(bool(analysed(files, git(repo, "diff", "--name-only", base, p).split()))
               for p in parents)


def merges(repo, files, limit, two_sided=False):
    """Merge commits (two parents) whose result differs from their merge base in analysed
    files, newest first; with `two_sided`, only those where both branches changed them."""
    out = []
    for line in git(repo, "rev-list", "--merges", "--date-order", "HEAD").split():
        parents = git(repo, "rev-list", "--parents", "-n1", line).split()[1:]
        if len(parents) != 2:
            continue
        try:
            base = git(repo, "merge-base", *parents).strip()
        except subprocess.CalledProcessError:
            continue
        changed = git(repo, "diff", "--name-only", base, line).split()
        if analysed(files, changed) and (not two_sided or sides(repo, files, line) == 2):
            out.append(line)
        if len(out) == limit:
            break
    return out


def hunks_reached(doc):
    """(settled, total, judged) over the changed hunks with code: a hunk is settled when
    some entry's executions reach it or an entry judged it without executions; judged
    counts those settled by judging alone."""
    reached, judged, total = set(), set(), set()
    for entry in doc.get("entries", []) + doc.get("judged", []):
        for h in entry.get("coverage", {}).get("hunks", []):
            if h.get("code", True) is False:
                continue
            key = (h["side"], h["file"], h["start_line"], h["end_line"])
            total.add(key)
            if h.get("reached"):
                reached.add(key)
            if h.get("judged"):
                judged.add(key)
    return len(reached | judged), len(total), len(judged - reached)


def review(mergelens, repo, merge, config, budget, docs):
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen(
            [mergelens, "review", "--commit", merge, "--config", str(config),
             "--time-budget", str(budget), "--format", "json", "--no-cache"],
            cwd=repo, stdout=out, stderr=err,
        )
        # This review's own peak (its largest process), not the bench's running maximum.
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        run = subprocess.CompletedProcess(
            child.args, os.waitstatus_to_exitcode(status),
            out.read().decode(errors="replace"), err.read().decode(errors="replace"))
    rss_mib = usage.ru_maxrss >> 10
    if docs:
        docs.mkdir(parents=True, exist_ok=True)
        (docs / f"{repo.name}-{merge[:7]}.json").write_text(run.stdout)
        (docs / f"{repo.name}-{merge[:7]}.log").write_text(run.stderr)
    try:
        doc = json.loads(run.stdout)
    except json.JSONDecodeError:
        last = run.stderr.strip().splitlines()[-1:] or ["no output"]
        return {"verdict": f"error (exit {run.returncode}): {last[0][:120]}",
                "seconds": seconds, "peak_mib": rss_mib, "reached": (0, 0), "entries": []}
    return {
        "verdict": doc["verdict"],
        "seconds": seconds,
        "peak_mib": max(doc.get("peak_memory_mib") or 0, rss_mib),
        "reached": hunks_reached(doc)[:2],
        "judged": hunks_reached(doc)[2],
        "entries": [e["entry"] + ("*" if e.get("changed_function") else "")
                    for e in doc.get("entries", [])],
        "why": (doc.get("unfinished") or doc.get("inconclusive") or [""])[0][:160],
    }


def judged_text(row):
    return f" ({row['judged']})" if row.get("judged") else ""


def decisive(row):
    reached, total = row["reached"]
    return row["verdict"] in ("clean", "unexpected", "overlapping") and reached == total


def table(rows, confirmed, budget):
    lines = [
        "| project | merge | branches changing analysed code | verdict | hunks reached (judged) | time (s) | peak MiB | entries (* changed function) | confirmed by reading the diff |",
        "|---|---|---:|---|---:|---:|---:|---|---|",
    ]
    for r in rows:
        reached, total = r["reached"]
        key = f"{r['project']} {r['merge'][:7]}"
        verdict = r["verdict"]
        if r.get("why") and verdict in ("unfinished", "inconclusive"):
            verdict += f": {r['why']}"
        lines.append(
            f"| {r['project']} | {r['merge'][:7]} | {r['sides']} | {verdict.replace('|', '/')} | {reached}/{total}{judged_text(r)} | "
            f"{r['seconds']:.0f} | {r['peak_mib']} | {', '.join(r['entries'])} | {confirmed.get(key, 'not yet')} |"
        )
    n = len(rows)
    good = sum(decisive(r) for r in rows)
    within = sum(decisive(r) and r["seconds"] <= budget and r["peak_mib"] <= 4096 for r in rows)
    counts = {}
    for r in rows:
        counts[r["verdict"].split(":")[0]] = counts.get(r["verdict"].split(":")[0], 0) + 1
    summary = [
        f"{n} merges that change analysed code; {good} ({100 * good / max(n, 1):.0f}%) "
        f"`clean`, `unexpected` or `overlapping` with every changed hunk reached, "
        f"{within} of them within {budget:.0f} s and 4 GiB.",
        "Verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + ".",
    ]
    return "\n".join(summary + [""] + lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mergelens")
    ap.add_argument("--repos", required=True, type=Path)
    ap.add_argument("--out", type=Path, default=ROOT / "target" / "bench" / "real.md")
    ap.add_argument("--budget", type=float, default=240.0)
    ap.add_argument("--per-repo", type=int, default=10)
    ap.add_argument("--only", default="")
    ap.add_argument("--two-sided", action="store_true",
                    help="only merges where both branches changed analysed files")
    ap.add_argument("--docs", type=Path, default=ROOT / "target" / "bench" / "real",
                    help="where each review's JSON document and progress log go")
    args = ap.parse_args()
    confirmed = json.loads(CONFIRMED.read_text()) if CONFIRMED.exists() else {}
    only = [o for o in args.only.split(",") if o]
    rows = []
    for repo in sorted(p for p in args.repos.iterdir() if (p / ".git").exists()):
        if only and repo.name not in only:
            continue
        config = CONFIGS / f"{repo.name}.toml"
        if not config.exists():
            print(f"bench-real: {repo.name}: no {config.relative_to(ROOT)}, skipped", file=sys.stderr)
            continue
        files = tomllib.loads(config.read_text()).get("files", [])
        for merge in merges(repo, files, args.per_repo, args.two_sided):
            print(f"bench-real: {repo.name} {merge[:7]} ...", file=sys.stderr, flush=True)
            row = review(args.mergelens, repo, merge, config, args.budget, args.docs)
            row.update(project=repo.name, merge=merge, sides=sides(repo, files, merge))
            print(f"bench-real: {repo.name} {merge[:7]}: {row['verdict']} "
                  f"{row['reached'][0]}/{row['reached'][1]} {row['seconds']:.0f} s "
                  f"{row['peak_mib']} MiB", file=sys.stderr, flush=True)
            rows.append(row)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(table(rows, confirmed, args.budget))
    if not rows:
        print("bench-real: no merge reviewed (no clone with a configuration under --repos)", file=sys.stderr)
        return 2
    print(table(rows, confirmed, args.budget))
    return 0


if __name__ == "__main__":
    sys.exit(main())
