#!/usr/bin/env python3
"""Benchmark of `mergelens review` (not a test): a cold review, the same review again, and a
review after one more commit on one branch, on the merge of Fig. 12 and on a generated merge
of a 2,000-line C program. Usage: bench_review.py MERGELENS [--rounds N]. Prints a Markdown
table; benches/review.md keeps the figures."""

import argparse
import re
import os
import shutil
import subprocess
import sys
import tempfile
import time

HANDLERS = 10
HELPERS = 16


def helper(h, j, variant=0):
    # Straight-line integer work with one branch: code CBMC must reason about, but linear (no
    # multiplication or division, which make SAT formulas expensive), and no loops (a loop
    # longer than --unwind would cut the executions through it).
    k = (h * 31 + j * 7 + variant) % 97 + 1
    return f"""static int util_{h}_{j}(int x)
{{
    int y = x + {k} + state[{j % 8}];
    if ((y & {(j % 7) + 8}) == {j % 5})
        y = y - state[{(j + 1) % 8}];
    else
        y = y + {j + 3};
    state[{(j + 2) % 8}] ^= y & {0xff - j};
    state[{(j + 3) % 8}] += (y >> 3) - {h};
    return y & 1023;
}}
"""


def program(audit_in=None, fast_path=None, tweak=0):
    """The program; `audit_in` makes that handler call audit(), `fast_path` gives that
    handler a choice of fast(), `tweak` changes one helper's constant (no new behaviour)."""
    out = ["/* A generated request server for the mergelens review benchmark. */",
           "int nondet_int(void);", "int state[8];", "",
           "void init(void) { state[0] = 1; }", "void finish(void) { state[1] = 0; }",
           "void audit(void) { state[2]++; }", "void fast(void) { state[3]++; }", ""]
    for h in range(HANDLERS):
        for j in range(HELPERS):
            out.append(helper(h, j, tweak if (h, j) == (HANDLERS - 1, 0) else 0))
        body = [f"    int v = nondet_int() & 127;"]
        body += [f"    v = util_{h}_{j}(v);" for j in range(HELPERS)]
        if audit_in == h:
            body.append("    audit();")
        if fast_path == h:
            body.append("    if (v > 500)\n        fast();")
        out.append(f"void handle_{h}(void)\n{{\n" + "\n".join(body) + "\n}\n")
    dispatch = "\n".join(
        f"    {'if' if h == 0 else 'else if'} (n == {h})\n        handle_{h}();" for h in range(HANDLERS))
    out.append(f"int main(void)\n{{\n    init();\n    int n = nondet_int();\n{dispatch}\n    finish();\n    return 0;\n}}\n")
    return "\n".join(out)


CONFIG_LARGE = (
    "only = [\"init\", \"finish\", \"audit\", \"fast\", "
    + ", ".join(f'"handle_{h}"' for h in range(HANDLERS)) + "]\n")

# A harness-driven parser (issue 18): the library's input is an uninitialised harness buffer
# of at most 3 bytes, which the per-execution check shares among the four versions.
PARSER_HARNESS = """int parse(const char *s, unsigned long n);
unsigned nondet_uint(void);
int main(void)
{
    char buf[3];
    unsigned n = nondet_uint();
    if (n > 3)
        return 0;
    parse(buf, n);
    return 0;
}
"""


def parser(key_event="", value_event=""):
    """A key=value parser; `key_event` and `value_event` add calls where a key or a value
    ends."""
    return f"""/* A small key=value parser for the mergelens review benchmark. */
void on_key(void) {{}}
void on_value(void) {{}}
void on_empty(void) {{}}
void on_error(void) {{}}
void on_trace(void) {{}}

static int is_space(char c)
{{
    return c == ' ' || c == '\\t';
}}

int parse(const char *s, unsigned long n)
{{
    unsigned long i = 0;
    if (n == 0) {{
        on_empty();
        return 0;
    }}
    while (i < n && is_space(s[i]))
        i++;
    unsigned long key = i;
    while (i < n && s[i] != '=')
        i++;
    if (i == n) {{
        on_error();
        return -1;
    }}
    if (i > key) {{
        on_key();{key_event}
    }}
    i++;
    if (i < n) {{
        on_value();{value_event}
    }}
    return 1;
}}
"""


CONFIG_PARSER = {"harness.c": PARSER_HARNESS, ".mergelens.toml": 'harness = ["harness.c"]\n'}

FIG12 = {}


def git(repo, *args, env):
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, stdout=subprocess.DEVNULL)


def commit(repo, path, text, message, env):
    full = os.path.join(repo, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
    git(repo, "add", path, env=env)
    git(repo, "commit", "-q", "-m", message, env=env)


def scenario(root, name, base, ours, theirs, theirs2, config, env):
    repo = os.path.join(root, name)
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main", env=env)
    git(repo, "config", "user.name", "bench", env=env)
    git(repo, "config", "user.email", "bench@example.org", env=env)
    if isinstance(config, dict):
        for path, text in config.items():
            commit(repo, path, text, f"add {path}", env)
    elif config:
        commit(repo, ".mergelens.toml", config, "config", env)
    commit(repo, "src/server.c", base, "base", env)
    git(repo, "branch", "feature", env=env)
    commit(repo, "src/server.c", ours, "ours", env)
    git(repo, "checkout", "-q", "feature", env=env)
    commit(repo, "src/server.c", theirs, "theirs", env)
    git(repo, "checkout", "-q", "main", env=env)
    return repo, theirs2


def timed(binary, repo, env):
    start = time.perf_counter()
    r = subprocess.run([binary, "review", "main", "feature", "--format", "json", "-o",
                        os.path.join(repo, "..", os.path.basename(repo) + ".json")],
                       cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if r.returncode not in (0, 1):
        sys.exit(f"review failed ({r.returncode}): {r.stderr}")
    import json
    with open(os.path.join(repo, "..", os.path.basename(repo) + ".json")) as f:
        doc = json.load(f)
    entry = doc["entries"][0]
    learned = [v for v, s in entry["stats"].items() if "reused" not in s]
    # The learning's cost and the per-execution check's, side by side.
    learning = (sum(s.get("cbmc_runs") or 0 for s in entry["stats"].values()),
                sum(s.get("wall_seconds") or 0.0 for s in entry["stats"].values()))
    c = entry.get("execution_check") or {}
    check = (c.get("cbmc_runs", 0), c.get("wall_seconds", 0.0), c.get("quadruples", 0),
             c.get("from_cache", False))
    timed.costs.append((repo, learning, check, doc["verdict"]))
    return elapsed, doc["verdict"], learned


timed.costs = []


def timed_plain(binary, repo, env):
    """A cold review (`--no-cache`): its wall time and verdict."""
    out = os.path.join(repo, "..", os.path.basename(repo) + ".json")
    start = time.perf_counter()
    r = subprocess.run([binary, "review", "main", "feature", "--no-cache", "--format", "json",
                        "-o", out], cwd=repo, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if r.returncode not in (0, 1):
        sys.exit(f"review failed ({r.returncode}): {r.stderr}")
    import json
    with open(out) as f:
        return elapsed, json.load(f)["verdict"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mergelens")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    binary = os.path.abspath(args.mergelens)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    demo_src = open(os.path.join(here, "..", "src", "review", "fig12.rs")).read()

    def const(name):
        # The demo's sources, as src/review/fig12.rs has them (plain strings, no escapes).
        start = re.search(rf'pub const {name}: &str =\s*"', demo_src).end()
        return demo_src[start:demo_src.index('";\n', start)]

    base, ours, theirs = const("BASE"), const("OURS"), const("THEIRS")
    rows = []
    with tempfile.TemporaryDirectory() as root:
        env = {"PATH": os.environ["PATH"], "HOME": root, "GIT_CONFIG_NOSYSTEM": "1"}
        cbmc = subprocess.run([binary, "doctor"], capture_output=True, text=True).stdout
        for line in cbmc.splitlines():
            # `cbmc  /path/to/cbmc (6.6.0)`, not `cbmc chosen by ...`.
            if line.startswith("cbmc ") and line.split()[1].startswith("/"):
                env["MERGELENS_CBMC"] = line.split()[1]
                break
        lines = program(audit_in=2, fast_path=5).count("\n")
        cases = [
            # Theirs gets two more commits: one that only edits a comment, one that changes
            # code (but no behaviour: the verdict stays).
            ("Fig. 12 (demo)", "fig12", base, ours, theirs,
             theirs.replace("void funcC(void) {}", "void funcC(void) { /* fast */ }"),
             theirs.replace("void funcC(void) {}", "void funcC(void) { int spare = 0; (void)spare; }"),
             None),
            (f"generated, {lines} lines", "large", program(), program(audit_in=2),
             program(fast_path=5), program(fast_path=5).replace("int state[8];", "int state[8]; /* shared */"),
             program(fast_path=5, tweak=1), CONFIG_LARGE),
            ("parser with a harness buffer", "parser", parser(), parser(key_event="\n        on_trace();"),
             parser(value_event="\n        on_trace();"),
             parser(value_event="\n        on_trace();").replace("/* A small", "/* A tiny"),
             parser(value_event="\n        on_trace();\n        on_trace();"), CONFIG_PARSER),
        ]
        cold_costs = []
        no_code = []
        for label, name, b, o, t, t_comment, t_code, config in cases:
            # A merge whose branches change comments only: nothing to learn (issue 24).
            for r in range(args.rounds):
                repo, _ = scenario(root, f"{name}-nocode{r}", b, "/* ours */\n" + b,
                                   b + "/* theirs */\n", b, config, env)
                no_code.append((label, r, timed_plain(binary, repo, env)))
            for r in range(args.rounds):
                repo, _ = scenario(root, f"{name}{r}", b, o, t, t_code, config, env)
                cold, verdict, learned_cold = timed(binary, repo, env)
                cold_costs.append((label, r, timed.costs[-1]))
                warm, _, learned_warm = timed(binary, repo, env)
                after = []
                for text, message in ((t_comment, "theirs: a comment"), (t_code, "theirs: code")):
                    git(repo, "checkout", "-q", "feature", env=env)
                    commit(repo, "src/server.c", text, message, env)
                    git(repo, "checkout", "-q", "main", env=env)
                    after.append(timed(binary, repo, env))
                rows.append((label, r, cold, warm, after, verdict, learned_cold, learned_warm))
    print("| program | run | cold review | same review again | after a comment-only commit on theirs | after a code commit on theirs | ratio (code commit / cold) | verdict | learned (cold / again / comment / code) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---|")
    names = lambda learned: ','.join(learned) or '–'
    for label, r, cold, warm, after, verdict, lc, lw in rows:
        (comment, _, l_comment), (code, _, l_code) = after
        print(f"| {label} | {r + 1} | {cold:.2f} s | {warm:.2f} s | {comment:.2f} s | {code:.2f} s | {code / cold:.2f} | {verdict} | "
              f"{names(lc)} / {names(lw)} / {names(l_comment)} / {names(l_code)} |")
    print()
    print("A merge whose branches change only comments, reviewed cold (`--no-cache`): no version's program differs from the base's, so nothing is learned (issue 24).")
    print()
    print("| program | run | review | verdict |")
    print("|---|---:|---:|---|")
    for label, r, (elapsed, verdict) in no_code:
        print(f"| {label} | {r + 1} | {elapsed:.2f} s | {verdict} |")
    print()
    print("Cold review: the learning of the four versions against the per-execution check (issue 12).")
    print()
    print("| program | run | learning: CBMC runs | learning: seconds | check: CBMC runs | check: seconds | check / learning (seconds) | executions enumerated | verdict |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for label, r, (_, (l_runs, l_secs), (c_runs, c_secs, quads, _), verdict) in cold_costs:
        ratio = c_secs / l_secs if l_secs else float("nan")
        print(f"| {label} | {r + 1} | {l_runs} | {l_secs:.2f} | {c_runs} | {c_secs:.2f} | {ratio:.2f} | {quads} | {verdict} |")


if __name__ == "__main__":
    main()
