"""The body of scripts/bench-libraries.sh: see there and benches/libraries.md."""
import glob
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import time

root, binary, work, inih, tinyexpr = sys.argv[1:6]
TIMEOUT = int(os.environ.get("BENCH_QUERY_TIMEOUT", "240"))

CASES = [
    # name, clone dir, library files, harness, entry, learn arguments
    ("inih", inih, ["ini.c", "ini.h"], "inih_harness.c", "parse_short",
     ["--unwind", "2", "--max-word-length", "10"]),
    ("tinyexpr", tinyexpr, ["tinyexpr.c", "tinyexpr.h"], "tinyexpr_harness.c", "eval_short",
     ["--only", "te_compile,te_eval,te_free", "--unwind", "1", "--max-word-length", "6",
      "--allocations", "succeed"]),
]


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd, cwd, env=None, timeout=None):
    """CPU seconds of `cmd` and its children, its exit code and standard output."""
    before = children_cpu()
    started = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout)
        code, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired:
        code, out = "timeout", b""
    return children_cpu() - before, time.monotonic() - started, code, out


def answers(stdout):
    """The failing properties of a --json-ui run, as a short digest."""
    try:
        messages = json.loads(stdout)
    except ValueError:
        return "no answer"
    fails = sorted(p["property"] for m in messages if "result" in m
                   for p in m["result"] if p["status"] == "FAILURE")
    return hashlib.sha256(" ".join(fails).encode()).hexdigest()[:8]


def learn(name, clone, files, harness, entry, args):
    case = os.path.join(work, name)
    os.makedirs(case)
    for f in files:
        shutil.copy(os.path.join(clone, f), case)
    shutil.copy(os.path.join(root, "benches/libraries", harness), case)
    kept = os.path.join(case, "queries")
    env = dict(os.environ, MERGELENS_KEEP_QUERIES=kept)
    stats = os.path.join(case, "stats.json")
    dfa = os.path.join(case, "dfa.json")
    cmd = [binary, "learn", harness, files[0], "--entry", entry, "--no-cache",
           "--query-timeout", str(TIMEOUT), "--time-budget", str(TIMEOUT),
           "--stats", stats, "-o", dfa, *args]
    cpu, wall, code, _ = run(cmd, case, env)
    result = "exit %s" % code
    if os.path.exists(stats):
        s = json.load(open(stats))
        learned = {}
        if os.path.exists(dfa):
            learned = json.load(open(dfa)).get("learned", {})
        partial = " (partial: %s)" % learned["stopped"] if learned.get("partial") else ""
        result = "%s states, %s CBMC runs, peak %s MiB%s" % (
            s.get("states"), s.get("cbmc_runs"), s.get("peak_memory_mib"), partial)
    print("| %s | `%s` | %s | %.1f | %.1f |" % (name, " ".join(args), result, cpu, wall))
    return kept


def compare(name, kept):
    for script in sorted(glob.glob(os.path.join(kept, "*.sh"))):
        text = open(script).read()
        if "--dimacs" in text:
            continue
        before = script + ".before"
        with open(before, "w") as f:
            f.write(text.replace(" --no-sat-preprocessor", ""))
        new = run(["sh", script], kept, timeout=TIMEOUT)
        old = run(["sh", before], kept, timeout=TIMEOUT)
        a, b = answers(new[3]), answers(old[3])
        same = "same" if a == b else "DIFFERENT"
        if a == b == "no answer":
            same = "none: both stopped at %d s" % TIMEOUT
        kind = "conjecture" if "--trace" in text else (
            "unwinding" if "--unwinding-assertions" in text else "membership")
        print("| %s | %s %s | %.1f | %.1f | %s |" % (
            name, os.path.basename(script), kind, old[0], new[0], same))


print("| library | bounds | learned | CPU s | wall s |")
print("|---|---|---|---|---|")
kept = {}
for name, clone, files, harness, entry, args in CASES:
    if clone == "-":
        continue
    kept[name] = learn(name, clone, files, harness, entry, args)
print()
print("| library | kept query | CPU s with the SAT preprocessor | CPU s without | answers |")
print("|---|---|---|---|---|")
for name, dirname in kept.items():
    compare(name, dirname)
