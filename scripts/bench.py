#!/usr/bin/env python3
"""`make bench`: the benchmark corpus of benches/programs/ (see benches/corpus.md), learned
in three modes side by side in one run -- the paper's baseline (`--baseline`: one CBMC run
per membership query, no pre-checks, no lazy learning), lazy learning as the paper's Sec. 6
describes it (`--paper-lazy`) and the default -- with a check that every mode's automaton is
equivalent to the default's, then the review of a merge in each program (learning against
the per-execution check). Prints figures; it is not a timed test.

Usage: bench.py MERGELENS [--limit S] [--jobs J] [--program NAME ...] [--no-review]
                 [--out DIR]

Writes DIR/summary.json (default target/bench):
  {"programs", "saved_cbmc_runs_vs_baseline", "speedup_vs_baseline", "precheck_share",
   "all_equivalent", "rows": [{"program", "mode", "bounds", "cbmc_runs",
   "membership_queries", "from_precheck", "from_concrete", "wall_seconds", "states",
   "equivalent", ...}]}
sums over the corpus; a run stopped at its time limit (`--time-budget`) counts at the
limit, is marked "timed_out": true, and its automaton is not compared. DIR/reviews.json
holds the reviews and DIR/summary.md the tables."""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = os.path.join(ROOT, "benches", "programs")
MODES = [("default", []), ("paper-lazy", ["--paper-lazy"]), ("baseline", ["--baseline"])]


def load_manifests(names):
    """Every benches/programs/*/bench.toml (or those named), by folder name."""
    out = {}
    for name in sorted(os.listdir(PROGRAMS)):
        path = os.path.join(PROGRAMS, name, "bench.toml")
        if os.path.isfile(path) and (not names or name in names):
            with open(path, "rb") as f:
                out[name] = tomllib.load(f)
    return out


def materialise(name, manifest, dest, variant="base"):
    """The program's files in `dest`: copied, or written by its generator."""
    os.makedirs(dest, exist_ok=True)
    src = os.path.join(PROGRAMS, name)
    for entry in os.listdir(src):
        if entry != "bench.toml":
            shutil.copy(os.path.join(src, entry), dest)
    if "generate" in manifest:
        subprocess.run([sys.executable, os.path.join(ROOT, manifest["generate"]),
                        os.path.join(dest, manifest["files"][0]), "--variant", variant],
                       check=True)


def program_args(manifest):
    args = list(manifest["files"])
    args += ["--entry", manifest.get("entry", "main")]
    for h in manifest.get("harness", []):
        args += ["--harness", h]
    for d in manifest.get("defines", []):
        args += ["-D", d]
    if "only" in manifest:
        args += ["--only", ",".join(manifest["only"])]
    return args


def bounds_of(manifest, command):
    return manifest.get(f"{command}_bounds", manifest["bounds"])


def run_one(binary, workdir, manifest, command, bounds, mode, extra, limit):
    """One learning run; returns its row (and the automaton's path, or None)."""
    unwind, length = bounds
    tag = f"{command}.{unwind}-{length}.{mode}"
    out = os.path.join(workdir, tag + ".json")
    stats_path = os.path.join(workdir, tag + ".stats.json")
    cmd = [binary, command, *program_args(manifest), "--unwind", str(unwind),
           "--max-word-length", str(length), "--no-cache", "--exact",
           "--time-budget", str(limit), "--stats", stats_path, "-o", out, *extra]
    started = time.monotonic()
    try:
        r = subprocess.run(cmd, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, timeout=limit + 120)
        code, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        code, err = None, "killed past the time budget"
    wall = time.monotonic() - started
    row = {"command": command, "mode": mode, "bounds": [unwind, length], "cbmc_runs": None,
           "membership_queries": None, "from_precheck": None, "from_concrete": 0,
           "wall_seconds": round(wall, 2), "states": None, "equivalent": None,
           "timed_out": False}
    if code != 0 or not os.path.isfile(stats_path):
        row["timed_out"] = code is None
        row["error"] = None if code is None else err.strip().splitlines()[-1:]
        if code is None:
            row["wall_seconds"] = float(limit)
        return row, None
    with open(stats_path) as f:
        stats = json.load(f)
    learn = stats.get("learn", stats)
    row.update(cbmc_runs=stats["cbmc_runs"], membership_queries=learn["membership_queries"],
               from_precheck=learn["from_precheck"], from_concrete=learn.get(
                   "from_concrete", stats.get("from_concrete", 0)),
               states=learn["states"])
    if "callback" in manifest:
        # Whether the learned language reaches the harness's callback (a word with it).
        words = subprocess.run([binary, "automaton", "words", out, "--max-length", str(length)],
                               capture_output=True, text=True).stdout.split("\n")
        row["callback_reached"] = any(manifest["callback"] in w.split() for w in words)
    partial = "PARTIAL" in err or "stopped early" in err
    if partial:
        row["timed_out"] = True
        row["wall_seconds"] = float(limit)
        return row, None
    return row, out


def equivalent(binary, a, b):
    return subprocess.run([binary, "automaton", "equiv", a, b], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def learn_config(binary, work, name, manifest, command, bounds, limit):
    """The three modes of one program, command and bounds pair, one after the other."""
    workdir = os.path.join(work, name)
    rows, outs = [], {}
    for mode, extra in MODES:
        row, out = run_one(binary, workdir, manifest, command, bounds, mode, extra, limit)
        row["program"] = name
        rows.append(row)
        outs[mode] = out
    for row in rows:
        if outs[row["mode"]] and outs["default"]:
            row["equivalent"] = equivalent(binary, outs[row["mode"]], outs["default"])
    return rows


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, stdout=subprocess.DEVNULL)


def apply_edits(path, edits):
    with open(path) as f:
        text = f.read()
    for old, new in edits:
        if text.count(old) != 1:
            raise SystemExit(f"{path}: the edit {old!r} does not match exactly once")
        text = text.replace(old, new)
    with open(path, "w") as f:
        f.write(text)


def variant(name, manifest, repo, side):
    """Writes the ours or theirs version of the review's file into `repo`."""
    review = manifest["review"]
    spec = review[side]
    target = os.path.join(repo, review["file"])
    if isinstance(spec, str):
        tmp = tempfile.mkdtemp()
        materialise(name, manifest, tmp, variant=spec.split()[-1])
        shutil.copy(os.path.join(tmp, review["file"]), target)
        shutil.rmtree(tmp)
    else:
        apply_edits(target, spec)


def review(binary, work, name, manifest, limit):
    """A merge in a fresh repository: base, ours on main, theirs on feature; one cold
    review; learning's cost against the per-execution check's."""
    spec = manifest["review"]
    repo = os.path.join(work, name + ".review")
    materialise(name, manifest, repo)
    unwind, length = spec["bounds"]
    config = [f"files = {json.dumps(manifest['files'])}",
              f"entries = [\"{manifest.get('entry', 'main')}\"]",
              f"unwind = {unwind}", f"max-word-length = {length}"]
    for key, field in (("harness", "harness"), ("defines", "defines"), ("only", "only")):
        if field in manifest:
            config.append(f"{key} = {json.dumps(manifest[field])}")
    with open(os.path.join(repo, ".mergelens.toml"), "w") as f:
        f.write("\n".join(config) + "\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "bench")
    git(repo, "config", "user.email", "bench@example.org")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "branch", "feature")
    variant(name, manifest, repo, "ours")
    git(repo, "commit", "-q", "-am", "ours")
    git(repo, "checkout", "-q", "feature")
    variant(name, manifest, repo, "theirs")
    git(repo, "commit", "-q", "-am", "theirs")
    git(repo, "checkout", "-q", "main")
    out = os.path.join(work, name + ".review.json")
    started = time.monotonic()
    try:
        r = subprocess.run([binary, "review", "main", "feature", "--no-cache", "--format", "json",
                            "--time-budget", str(limit), "-o", out], cwd=repo,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           timeout=limit + 120)
        code, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        code, err = None, "killed past the time budget"
    wall = time.monotonic() - started
    row = {"program": name, "bounds": [unwind, length], "wall_seconds": round(wall, 2),
           "exit": code}
    if code not in (0, 1) or not os.path.isfile(out):
        row["error"] = err.strip().splitlines()[-1:]
        return row
    with open(out) as f:
        doc = json.load(f)
    entry = doc["entries"][0]
    stats = entry.get("stats") or {}
    check = entry.get("execution_check") or {}
    row.update(verdict=doc.get("verdict"),
               learning_cbmc_runs=sum(s.get("cbmc_runs") or 0 for s in stats.values()),
               learning_seconds=round(sum(s.get("wall_seconds") or 0.0 for s in stats.values()), 2),
               check_cbmc_runs=check.get("cbmc_runs", 0),
               check_seconds=round(check.get("wall_seconds", 0.0), 2))
    return row


def summarise(manifests, rows, limit):
    # The default is the reference: its row says whether every other mode's automaton of
    # the same program, command and bounds matched it (null when none could be compared).
    for d in rows:
        if d["mode"] == "default":
            others = [r["equivalent"] for r in rows if r["mode"] != "default"
                      and (r["program"], r["command"], r["bounds"]) == (d["program"], d["command"], d["bounds"])
                      and r["equivalent"] is not None]
            d["equivalent"] = all(others) if others else None
    by_mode = {m: [r for r in rows if r["mode"] == m] for m, _ in MODES}

    def total(mode, key):
        return sum(r[key] or 0 for r in by_mode[mode])

    base_runs, base_wall = total("baseline", "cbmc_runs"), total("baseline", "wall_seconds")
    runs, wall = total("default", "cbmc_runs"), total("default", "wall_seconds")
    queries, precheck = total("default", "membership_queries"), total("default", "from_precheck")
    # A run stopped at its limit has no automaton to compare; the rows say which.
    compared = [r["equivalent"] for r in rows
                if r["mode"] != "default" and r["equivalent"] is not None]
    return {
        "programs": len(manifests),
        "saved_cbmc_runs_vs_baseline": round(1 - runs / base_runs, 4) if base_runs else None,
        "speedup_vs_baseline": round(base_wall / wall, 2) if wall else None,
        "precheck_share": round(precheck / queries, 4) if queries else None,
        "all_equivalent": bool(compared) and all(compared),
        "rows": rows,
    }


def fmt(v, digits=1):
    if v is None:
        return "–"
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def markdown(summary, reviews, limit, jobs):
    rows = summary["rows"]
    keyed = {(r["program"], r["command"], tuple(r["bounds"]), r["mode"]): r for r in rows}
    configs = sorted({k[:3] for k in keyed}, key=lambda k: (k[0], k[1], k[2]))
    lines = [f"Time limit {limit} s per run (a run stopped there counts at the limit, marked ⏱), "
             f"{jobs} configuration(s) at a time, `--no-cache --exact` in every mode.", "",
             "| program | command | bounds | baseline runs | baseline s | paper-lazy runs | paper-lazy s "
             "| default runs | default s | default states | pre-check share | fewer runs | speedup | equivalent |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for prog, command, bounds in configs:
        b = keyed.get((prog, command, bounds, "baseline"))
        p = keyed.get((prog, command, bounds, "paper-lazy"))
        d = keyed.get((prog, command, bounds, "default"))

        def cell(r, key):
            mark = " ⏱" if r and r["timed_out"] and key == "wall_seconds" else ""
            return (fmt(r[key]) + mark) if r else "–"

        fewer = (f"{100 * (1 - d['cbmc_runs'] / b['cbmc_runs']):.0f}%"
                 if b and d and b["cbmc_runs"] and d["cbmc_runs"] is not None else "–")
        speed = (f"{b['wall_seconds'] / d['wall_seconds']:.1f}×{'+' if b['timed_out'] else ''}"
                 if b and d and d["wall_seconds"] else "–")
        share = (f"{100 * d['from_precheck'] / d['membership_queries']:.0f}%"
                 if d and d["membership_queries"] else "–")
        eq = ", ".join(f"{r['mode']} {'yes' if r['equivalent'] else ('not compared' if r['equivalent'] is None else 'NO')}"
                       for r in (b, p) if r)
        lines.append(f"| {prog} | {command} | `--unwind {bounds[0]} --max-word-length {bounds[1]}` "
                     f"| {cell(b, 'cbmc_runs')} | {cell(b, 'wall_seconds')} | {cell(p, 'cbmc_runs')} "
                     f"| {cell(p, 'wall_seconds')} | {cell(d, 'cbmc_runs')} | {cell(d, 'wall_seconds')} "
                     f"| {cell(d, 'states')} | {share} | {fewer} | {speed} | {eq} |")
    s = summary
    lines += [""]
    for mode, _ in MODES:
        mine = [r for r in rows if r["mode"] == mode]
        lines.append(f"* {mode}: {sum(r['cbmc_runs'] or 0 for r in mine)} CBMC runs, "
                     f"{sum(r['wall_seconds'] for r in mine):.1f} s, "
                     f"{sum(1 for r in mine if r['timed_out'])} of {len(mine)} runs stopped at the limit")
    not_compared = sum(1 for r in rows if r["mode"] != "default" and r["equivalent"] is None)
    lines += ["", f"{not_compared} automata not compared (a run stopped at its limit).",
              "", f"Over the corpus ({s['programs']} programs): "
              f"saved CBMC runs vs baseline {fmt(s['saved_cbmc_runs_vs_baseline'], 3)}, "
              f"speedup vs baseline {fmt(s['speedup_vs_baseline'], 2)}×, "
              f"pre-check share {fmt(s['precheck_share'], 3)}, all equivalent: {s['all_equivalent']}."]
    if reviews:
        lines += ["", "| review | bounds | wall s | verdict | learning runs | learning s "
                  "| per-execution check runs | check s | check / learning |",
                  "|---|---|---:|---|---:|---:|---:|---:|---:|"]
        for r in reviews:
            if "error" in r:
                lines.append(f"| {r['program']} | `{r['bounds']}` | {fmt(r['wall_seconds'])} "
                             f"| failed (exit {r['exit']}): {' '.join(r['error'])} | | | | | |")
                continue
            ratio = (f"{r['check_seconds'] / r['learning_seconds']:.2f}"
                     if r["learning_seconds"] else "–")
            lines.append(f"| {r['program']} | `--unwind {r['bounds'][0]} --max-word-length "
                         f"{r['bounds'][1]}` | {fmt(r['wall_seconds'])} | {r['verdict']} "
                         f"| {r['learning_cbmc_runs']} | {fmt(r['learning_seconds'])} "
                         f"| {r['check_cbmc_runs']} | {fmt(r['check_seconds'])} | {ratio} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--limit", type=float, default=60.0,
                        help="time budget of one run in seconds (default 60)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="configurations run at once (default 1)")
    parser.add_argument("--program", action="append", default=[])
    parser.add_argument("--no-review", action="store_true")
    parser.add_argument("--out", default=os.path.join(ROOT, "target", "bench"))
    parser.add_argument("--reviews-only", action="store_true",
                        help="keep the rows of OUT/summary.json and run the reviews only")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    manifests = load_manifests(args.program)
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="mergelens-bench-")
    if args.reviews_only:
        with open(os.path.join(args.out, "summary.json")) as f:
            rows = json.load(f)["rows"]
        run_reviews_and_report(binary, work, manifests, rows, args)
        return
    for name, manifest in manifests.items():
        materialise(name, manifest, os.path.join(work, name))
    configs = [(name, m, command, tuple(b)) for name, m in manifests.items()
               for command in m["modes"] for b in bounds_of(m, command)]
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(learn_config, binary, work, n, m, c, b, args.limit): (n, c, b)
                   for n, m, c, b in configs}
        for future in concurrent.futures.as_completed(futures):
            got = future.result()
            rows.extend(got)
            for r in got:
                print(f"{r['program']:11} {r['command']:8} {str(r['bounds']):9} {r['mode']:10} "
                      f"runs {fmt(r['cbmc_runs']):>5}  {r['wall_seconds']:7.1f} s"
                      f"{'  TIMED OUT' if r['timed_out'] else ''}  equivalent {r['equivalent']}",
                      flush=True)
    run_reviews_and_report(binary, work, manifests, rows, args)


def run_reviews_and_report(binary, work, manifests, rows, args):
    order = {m: i for i, (m, _) in enumerate(MODES)}
    rows.sort(key=lambda r: (r["program"], r["command"], r["bounds"], order[r["mode"]]))
    summary = summarise(manifests, rows, args.limit)
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    reviews = []
    if not args.no_review:
        for name, manifest in manifests.items():
            if "review" in manifest:
                r = review(binary, work, name, manifest, args.limit * 2)
                print(f"review {name}: {r}", flush=True)
                reviews.append(r)
        with open(os.path.join(args.out, "reviews.json"), "w") as f:
            json.dump(reviews, f, indent=2)
            f.write("\n")
    table = markdown(summary, reviews, args.limit, args.jobs)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(table)
    print(table)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
