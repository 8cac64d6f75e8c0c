#!/usr/bin/env python3
"""`make bench-remote`: the benchmark corpus of benches/programs/ (each program at its first
bounds, `learn --exact --no-cache`) learned on this machine and through a REAPI engine on this
machine (scripts/reapi_stack.py: BuildGrid and N workers of scripts/reapi_worker.py) with 1, 2
and 4 workers, each with an empty action cache, and once more with 4 workers on the filled
cache. Programs run J at a time (J = the workers, 2 locally: the machine's cores).

Usage: bench_remote.py MERGELENS [--program NAME ...] [--limit S] [--out FILE]

Prints one row per configuration: wall seconds, CBMC runs, actions executed, cache hits,
local fallbacks, the seconds the workers spent in actions, and the speed-up with W workers
that the action times project on a machine with a core per worker (Amdahl: the local wall
time less the action time of one worker alone, plus that action time over W). Writes FILE (default
target/bench/remote.json). Prints figures; it is not a test.
"""

import argparse
import concurrent.futures
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (the corpus: manifests, files, arguments)

ROOT = bench.ROOT


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Engine:
    def __init__(self, workers, work):
        self.dir = os.path.join(work, f"engine-{workers}")
        os.makedirs(self.dir, exist_ok=True)
        self.executions = os.path.join(self.dir, "executions.txt")
        port = free_port()
        self.url = f"grpc://127.0.0.1:{port}"
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "scripts", "reapi_stack.py"), "--dir", self.dir,
             "--port", str(port), "--workers", str(workers), "--executions", self.executions],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self.proc.stdout.readline().strip() != "ready":
            sys.exit("bench-remote: the engine did not start (see its stack.log)")

    def action_seconds(self):
        try:
            with open(self.executions + ".times") as f:
                return sum(float(line.split()[1]) for line in f if line.strip())
        except OSError:
            return 0.0

    def stop(self):
        self.proc.stdin.close()
        self.proc.wait()


def learn(binary, work, name, manifest, extra, limit):
    d = os.path.join(work, name)
    if not os.path.isdir(d):
        bench.materialise(name, manifest, d)
    unwind, length = bench.bounds_of(manifest, "learn")[0]
    stats_path = os.path.join(d, "stats.json")
    cmd = [binary, "learn", *bench.program_args(manifest), "--unwind", str(unwind),
           "--max-word-length", str(length), "--no-cache", "--exact", "--time-budget", str(limit),
           "--stats", stats_path, "-o", os.path.join(d, "dfa.json"), *extra]
    r = subprocess.run(cmd, cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        return {"program": name, "error": r.stderr.strip().splitlines()[-1:]}
    with open(stats_path) as f:
        stats = json.load(f)
    with open(os.path.join(d, "dfa.json")) as f:
        dfa = f.read()
    return {"program": name, "cbmc_runs": stats["cbmc_runs"], "remote": stats.get("remote"),
            "dfa": dfa}


def configuration(binary, manifests, label, jobs, extra, limit, work):
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        rows = list(pool.map(lambda n: learn(binary, work, n, manifests[n], extra, limit),
                             manifests))
    wall = time.monotonic() - started
    total = {"config": label, "wall_seconds": round(wall, 1), "errors": [r for r in rows if "error" in r],
             "cbmc_runs": sum(r.get("cbmc_runs", 0) for r in rows)}
    for key in ("executed", "cache_hits", "local_fallbacks"):
        total[key] = sum((r.get("remote") or {}).get(key, 0) for r in rows)
    return total, {r["program"]: r.get("dfa") for r in rows}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--program", action="append", default=[])
    parser.add_argument("--limit", type=int, default=120)
    parser.add_argument("--out", default=os.path.join(ROOT, "target", "bench", "remote.json"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    manifests = {n: m for n, m in bench.load_manifests(args.program).items()}
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-remote-") as work:
        os.chmod(work, 0o755)  # PostgreSQL's own user opens the engines' directories
        local, reference = configuration(binary, manifests, "local", 2, [], args.limit,
                                         os.path.join(work, "local"))
        results.append(local)
        print_row(local)
        alone = None
        for workers in (1, 2, 4):
            engine = Engine(workers, work)
            flags = ["--remote", engine.url, "--remote-instance", "main"]
            passes = [("cold", "")] + ([("warm", " (cache)")] if workers == 4 else [])
            # One directory for every remote pass: the paths goto binaries record are part of
            # each action, so the warm pass must learn the same files at the same paths.
            for tag, suffix in passes:
                row, dfas = configuration(binary, manifests, f"{workers} worker(s){suffix}", workers,
                                          flags, args.limit, os.path.join(work, "remote"))
                if tag == "cold":
                    row["action_seconds"] = round(engine.action_seconds(), 1)
                    # The action time of one worker alone is the least shared with the rest
                    # of this machine's work: the part that more workers divide.
                    alone = alone or row["action_seconds"]
                    serial = max(local["wall_seconds"] - alone, 0)
                    row["projected_speedup"] = round(
                        local["wall_seconds"] / max(serial + alone / workers, 1e-3), 2)
                row["same_automata"] = dfas == reference
                results.append(row)
                print_row(row)
            engine.stop()
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)


def print_row(r):
    print(f"{r['config']:<22} wall {r['wall_seconds']:>7.1f} s  cbmc runs {r['cbmc_runs']:>5}  "
          f"executed {r['executed']:>5}  cache hits {r['cache_hits']:>5}  "
          f"local {r['local_fallbacks']:>3}  action s {r.get('action_seconds', '-')!s:>6}  "
          f"projected x{r.get('projected_speedup', '-')}  same automata {r.get('same_automata', '-')}"
          + (f"  ERRORS {len(r['errors'])}" if r["errors"] else ""), flush=True)


if __name__ == "__main__":
    main()
