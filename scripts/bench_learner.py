#!/usr/bin/env python3
"""AALpy's side of the learner benchmark, and the table (see benches/learner.md).

    bench_learner.py aalpy DIR [--algorithms lstar-rs,kv] [--row-budget SECONDS]
    bench_learner.py table OURS.jsonl AALPY.jsonl

`aalpy` learns every mergelens-dfa/1 target of DIR with AALpy and prints one JSON line per
target and algorithm, in the format of `cargo bench --bench learner -- run`. Queries are
counted the way a model checker is asked: a membership query is one whole word, counted once
however often it is asked (the SUL counts distinct words, with AALpy's cache off), and the
equivalence oracle returns a shortest counterexample (breadth first on the product of the
hypothesis and the target), as the mergelens teacher does.

A row (targets of one size) stops once its time budget is spent; the table then says on how
many targets its means are.
"""

import argparse
import collections
import json
import os
import sys
import time


class Timeout(Exception):
    pass


class Target:
    """A mergelens-dfa/1 automaton; a missing edge goes to a rejecting sink (None)."""

    def __init__(self, path):
        with open(path) as f:
            doc = json.load(f)
        assert doc["format"] == "mergelens-dfa/1", path
        self.alphabet = doc["alphabet"]
        self.initial = doc["initial"]
        self.accepting = set(doc["accepting"])
        self.delta = {}
        for t in doc["transitions"]:
            self.delta[(t["from"], t["letter"])] = t["to"]
        self.states = doc["states"]

    def step(self, state, letter):
        return None if state is None else self.delta.get((state, letter))

    def accepts(self, word):
        q = self.initial
        for a in word:
            q = self.delta.get((q, a))
            if q is None:
                return False
        return q in self.accepting


def make_sul_and_oracle(target, deadline):
    from aalpy.base import SUL, Oracle

    class WordSUL(SUL):
        """Answers whole words only; counts distinct words."""

        def __init__(self):
            super().__init__()
            self.words = set()

        def pre(self):
            pass

        def post(self):
            pass

        def step(self, letter):
            raise NotImplementedError("only whole words are asked")

        def query(self, word):
            if time.monotonic() > deadline:
                raise Timeout()
            word = tuple(word)
            self.words.add(word)
            self.num_queries += 1
            return [target.accepts(word)]

    class ShortestCounterexample(Oracle):
        """A shortest word on which the hypothesis and the target differ, or None."""

        def __init__(self, alphabet, sul):
            super().__init__(alphabet, sul)
            self.calls = 0

        def find_cex(self, hypothesis):
            self.calls += 1
            start = (hypothesis.initial_state, target.initial)
            parent = {start: None}
            queue = collections.deque([start])
            while queue:
                pair = queue.popleft()
                h, t = pair
                if h.is_accepting != (t is not None and t in target.accepting):
                    word = []
                    while parent[pair] is not None:
                        pair, letter = parent[pair]
                        word.append(letter)
                    return tuple(reversed(word))
                for a in self.alphabet:
                    nxt = (h.transitions[a], target.step(t, a))
                    if nxt not in parent:
                        parent[nxt] = (pair, a)
                        queue.append(nxt)
                if time.monotonic() > deadline:
                    raise Timeout()
            return None

    sul = WordSUL()
    return sul, ShortestCounterexample(target.alphabet, sul)


def learn_aalpy(target, algorithm, deadline):
    from aalpy.learning_algs import run_KV, run_Lstar

    sul, oracle = make_sul_and_oracle(target, deadline)
    started = time.perf_counter()
    if algorithm == "lstar-rs":
        model = run_Lstar(
            target.alphabet,
            sul,
            oracle,
            "dfa",
            cex_processing="rs",
            all_prefixes_in_obs_table=False,
            cache_and_non_det_check=False,
            print_level=0,
        )
    elif algorithm == "kv":
        model = run_KV(
            target.alphabet, sul, oracle, "dfa", cex_processing="rs", cache_and_non_det_check=False, print_level=0
        )
    else:
        raise SystemExit(f"unknown algorithm {algorithm}")
    seconds = time.perf_counter() - started
    # The result must be the target: the oracle found no difference, so only the size can
    # be off, and a learner's result is minimal.
    return {
        "membership": len(sul.words),
        "equivalence": oracle.calls,
        "seconds": seconds,
        "hypothesis_states": len(model.states),
    }


def cmd_aalpy(args):
    """Times are the least of --repeat runs, as the machine's other work only adds to them."""
    files = sorted(
        (f for f in os.listdir(args.dir) if f.endswith(".json")),
        key=lambda f: (int(f.split("_")[0][1:]), int(f.split("_")[1][1:]), f),
    )
    rows = collections.OrderedDict()
    for f in files:
        rows.setdefault(tuple(f.split("_")[:2]), []).append(f)
    for algorithm in args.algorithms.split(","):
        for row, names in rows.items():
            row_deadline = time.monotonic() + args.row_budget
            for name in names:
                target = Target(os.path.join(args.dir, name))
                line = {
                    "tool": "aalpy",
                    "algorithm": algorithm,
                    "file": name,
                    "states": target.states,
                    "letters": len(target.alphabet),
                }
                try:
                    for _ in range(args.repeat):
                        result = learn_aalpy(target, algorithm, row_deadline)
                        result["seconds"] = min(result["seconds"], line.get("seconds", result["seconds"]))
                        line.update(result)
                except Timeout:
                    if "seconds" not in line:
                        line["timeout"] = args.row_budget
                print(json.dumps(line), flush=True)
                if "timeout" in line:
                    break


def mean(values):
    return sum(values) / len(values)


def cmd_table(args):
    lines = []
    for path in args.files:
        with open(path) as f:
            lines.extend(json.loads(l) for l in f if l.strip())
    columns = [
        ("mergelens", "rs", "ours L*-RS"),
        ("mergelens", "rs-all", "ours L*-RS, 1 batch/cex"),
        ("mergelens", "angluin", "ours L*-Angluin"),
        ("mergelens", "mp", "ours L*-MP"),
        ("aalpy", "lstar-rs", "AALpy L*-RS"),
        ("aalpy", "kv", "AALpy KV"),
    ]
    present = [c for c in columns if any(l["tool"] == c[0] and l["algorithm"] == c[1] for l in lines)]
    rows = sorted({(l["states"], l["letters"]) for l in lines})
    ratio = ("mergelens", "rs") in [c[:2] for c in present] and ("aalpy", "lstar-rs") in [c[:2] for c in present]
    head = "| states | letters | " + " | ".join(c[2] + " MQ / EQ / time" for c in present)
    head += " | time AALpy L*-RS / ours L*-RS |" if ratio else " |"
    print(head)
    print("|---:|---:|" + "---:|" * (len(present) + ratio))
    notes = []
    for states, letters in rows:
        cells = []
        times = {}
        for tool, algorithm, label in present:
            done = [
                l
                for l in lines
                if l["tool"] == tool
                and l["algorithm"] == algorithm
                and (l["states"], l["letters"]) == (states, letters)
            ]
            finished = [l for l in done if "timeout" not in l]
            if not finished:
                cells.append("timeout" if done else "-")
                continue
            times[(tool, algorithm)] = mean([l["seconds"] for l in finished])
            cell = "{:,.0f} / {:.1f} / {}".format(
                mean([l["membership"] for l in finished]),
                mean([l["equivalence"] for l in finished]),
                seconds(mean([l["seconds"] for l in finished])),
            )
            if len(finished) < len(done) or len(finished) < 10:
                cell += f" ({len(finished)})"
                notes.append((states, letters, label, len(finished)))
            cells.append(cell)
        if ratio:
            ours, theirs = times.get(("mergelens", "rs")), times.get(("aalpy", "lstar-rs"))
            cells.append(f"{theirs / ours:.0f}x" if ours and theirs else "-")
        print(f"| {states} | {letters} | " + " | ".join(cells) + " |")
    if notes:
        print()
        print("(n): mean over the n targets done before the row's time budget ran out.")


def seconds(s):
    if s < 0.01:
        return f"{s * 1000:.2f} ms"
    if s < 1:
        return f"{s * 1000:.0f} ms"
    return f"{s:.1f} s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("aalpy")
    a.add_argument("dir")
    a.add_argument("--algorithms", default="lstar-rs,kv")
    a.add_argument("--row-budget", type=float, default=600.0, help="seconds per row and algorithm")
    a.add_argument("--repeat", type=int, default=3, help="runs per target; the least time counts")
    t = sub.add_parser("table")
    t.add_argument("files", nargs="+")
    args = parser.parse_args()
    {"aalpy": cmd_aalpy, "table": cmd_table}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
