#!/usr/bin/env python3
"""Writes the generated program of the benchmark corpus (benches/programs/generated):
a request server of HANDLERS handlers, each running HELPERS helpers of straight-line
integer code, dispatched from a loop over nondeterministic requests. The output is the
same on every run (no randomness). Usage: gen_corpus_program.py OUT.c [--variant ours|theirs]

`--variant ours` makes handle_2 call audit() as well; `--variant theirs` gives handle_5 a
fast path. The events depend on nondeterministic request flags only. audit() asserts that it runs at most once per session: the assertion of the
`explain` mode, which fails once two audited requests are served."""

import argparse

HANDLERS = 8
HELPERS = 16


def helper(h, j):
    # Straight-line work with a branch or two: code CBMC must reason about, without loops
    # (a loop longer than --unwind would cut the executions through it) and without
    # multiplication or division (expensive formulas).
    k = (h * 31 + j * 7) % 97 + 1
    return f"""/* Helper {j} of handler {h}. */
static int util_{h}_{j}(int x)
{{
    int y = x + {k} + state[{j % 8}];
    if ((y & {(j % 7) + 8}) == {j % 5}) {{
        y = y - state[{(j + 1) % 8}];
        state[{(j + 4) % 8}] += 1;
    }} else {{
        y = y + {j + 3};
    }}
    if (y > {200 + k})
        y = y - {k};
    state[{(j + 2) % 8}] ^= y & {0xff - j};
    state[{(j + 3) % 8}] += (y >> 3) - {h};
    y = y & 1023;
    return y;
}}
"""


def program(variant):
    out = ["/* mergelens benchmark corpus: a generated request server (scripts/gen_corpus_program.py). */",
           "int nondet_int(void);", "", "static int state[8];", "static int audits;", "",
           "void init(void) { state[0] = 1; }", "",
           "void finish(void) { state[1] = 0; }", "",
           "void audit(void)", "{",
           "    audits++;",
           '    __CPROVER_assert(audits < 2, "at most one audit per session");',
           "}", "", "void fast(void) { state[3]++; }", ""]
    audited = {0, 3}
    if variant == "ours":
        audited.add(2)
    for h in range(HANDLERS):
        for j in range(HELPERS):
            out.append(helper(h, j))
        body = ["    int v = nondet_int() & 127;"]
        body += [f"    v = util_{h}_{j}(v);" for j in range(HELPERS)]
        # The events depend on a request flag, not on the helpers' arithmetic: CBMC's
        # slicing drops the arithmetic, so the program's size costs the front end and the
        # symbolic execution but not the formula.
        if h in audited or (variant == "theirs" and h == 5):
            body.append("    int flag = nondet_int();")
        if h in audited:
            body.append("    if (flag & 1)\n        audit();")
        if variant == "theirs" and h == 5:
            body.append("    if (flag & 2)\n        fast();")
        out.append(f"/* Handler {h}. */\nvoid handle_{h}(void)\n{{\n" + "\n".join(body) + "\n}\n")
    dispatch = "\n".join(
        f"        {'if' if h == 0 else 'else if'} (request == {h})\n            handle_{h}();"
        for h in range(HANDLERS))
    out.append("int main(void)\n{\n    init();\n    for (;;) {\n        int request = nondet_int();\n"
               f"{dispatch}\n        else\n            break;\n    }}\n    finish();\n    return 0;\n}}\n")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--variant", choices=["base", "ours", "theirs"], default="base")
    args = parser.parse_args()
    with open(args.out, "w") as f:
        f.write(program(args.variant))


if __name__ == "__main__":
    main()
