#!/usr/bin/env python3
"""The house rules of src/, checked: `make test` runs this before the tests.

1. The library's modules import downwards only, in the order of LAYERS (a module may use
   the ones listed before it, never one listed after it).
2. No import cycle between the files of src/ (a child file using its parent's items while
   the parent uses the child's is a cycle too; unit tests at the end of a file are skipped).
3. No file under src/ is longer than 900 lines.
4. No library file names an exit code: those live in the binary's src/exit.rs.

It reads `use` trees and inline `crate::`, `super::` and child-module paths of every file,
with comments and string literals removed, and resolves each to the file that defines the
module it names. Run it as `python3 scripts/check-layers.py [--graph]`.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "src"
MAX_LINES = 900

# The library's top-level modules, lowest first. Modules on one line are one layer: they
# may not use each other.
LAYERS = [
    ["bounds", "failure", "fingerprint", "sandbox", "stop"],
    ["limits", "process", "remote"],
    ["cache_mac"],
    ["automaton"],
    ["document", "learn"],
    ["cprog"],
    ["cbmc"],
    ["git"],
    ["config"],
    ["trust"],
    ["language"],
    ["setup"],
    ["review"],
    ["report"],
]
# The binary's own files: the command line, the commands, the exit codes.
BINARY = {"main", "cli", "commands", "exit"}


def module_path(file: Path) -> tuple:
    rel = file.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "mod":
        parts.pop()
    if parts in (["lib"], ["main"]):
        return ()
    return tuple(parts)


def strip(text: str) -> str:
    """Removes comments, string and char literals, and a trailing `mod tests`."""
    m = re.search(r"#\[cfg\(test\)\]\s*mod tests\s*\{", text)
    if m:
        text = text[: m.start()]
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "r" and re.match(r'r#*"', text[i:]) and not re.match(r"\w", text[i - 1 : i] or " "):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = '"' + hashes
            j = text.find(end, i + 2 + len(hashes))
            i = n if j < 0 else j + len(end)
            out.append('""')
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            out.append('""')
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i : i + 4] + "    "):
            m2 = re.match(r"'(\\[^']*|[^\\'])'", text[i:])
            i += len(m2.group(0)) if m2 else 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def expand_use(tree: str) -> list:
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e]."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)
    m = re.match(r"^(.*?)\{(.*)\}$", tree)
    if not m:
        return [tree]
    prefix, inner = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    if cur:
        parts.append(cur)
    paths = []
    for p in parts:
        for sub in expand_use(p):
            paths.append(prefix + sub if sub not in ("self",) else prefix.rstrip(":"))
    return paths


def main() -> int:
    files = sorted(ROOT.rglob("*.rs"))
    modules = {module_path(f): f for f in files if f.name not in ("lib.rs", "main.rs")}
    roots = {"library": ROOT / "lib.rs", "binary": ROOT / "main.rs"}
    problems = []

    def in_binary(f: Path) -> bool:
        mp = module_path(f)
        return (mp and mp[0] in BINARY) or f.name == "main.rs"

    def resolve(root: str, path: list):
        """The file of the longest module prefix of `path` (absolute module segments) in
        the library or the binary crate."""
        for k in range(len(path), 0, -1):
            if tuple(path[:k]) in modules:
                return modules[tuple(path[:k])]
        return roots[root]

    edges = {}
    for f in files:
        binary = in_binary(f)
        mp = module_path(f)
        text = f.read_text()
        if len(text.splitlines()) > MAX_LINES:
            problems.append(f"{f.relative_to(ROOT.parent)}: {len(text.splitlines())} lines (at most {MAX_LINES})")
        code = strip(text)
        if not binary and re.search(r"\b(ExitCode|process::exit|exit::)", code):
            problems.append(f"{f.relative_to(ROOT.parent)}: names an exit code outside the binary")
        children = {m[len(mp)] for m in modules if len(m) == len(mp) + 1 and m[: len(mp)] == mp}
        paths = []
        for m in re.finditer(r"\buse\s+([^;]+);", code):
            paths.extend(expand_use(m.group(1)))
        for m in re.finditer(r"(?<![\w:])((?:crate|super|self|[a-z_][a-z0-9_]*)(?:::[A-Za-z_][A-Za-z0-9_]*)+)", code):
            paths.append(m.group(1))
        targets = set()
        for p in paths:
            segs = [s for s in p.split("::") if s]
            if not segs:
                continue
            root = "binary" if binary else "library"
            if segs[0] == "mergelens":
                root = "library"
            if segs[0] == "crate":
                if binary:
                    absolute = segs[1:]
                else:
                    absolute = segs[1:]
            elif segs[0] == "super":
                base = list(mp)
                while segs and segs[0] == "super":
                    base = base[:-1]
                    segs = segs[1:]
                absolute = base + segs
            elif segs[0] == "self":
                absolute = list(mp) + segs[1:]
            elif segs[0] in children:
                absolute = list(mp) + segs
            elif segs[0] == "mergelens":
                absolute = segs[1:]
            else:
                continue
            if binary and segs[0] == "crate" and absolute and absolute[0] not in BINARY:
                continue
            t = resolve(root, absolute)
            if t is not None and t != f:
                targets.add(t)
        edges[f] = targets

    # 1. Layers.
    rank = {m: i for i, layer in enumerate(LAYERS) for m in layer}
    for f, targets in edges.items():
        if in_binary(f):
            continue
        mp = module_path(f)
        if not mp:
            continue
        top = mp[0]
        if top not in rank:
            problems.append(f"src/{top}: a module missing from LAYERS in scripts/check-layers.py")
            continue
        for t in targets:
            tmp = module_path(t)
            if not tmp or in_binary(t):
                continue
            other = tmp[0]
            if other != top and rank.get(other, -1) >= rank[top]:
                problems.append(
                    f"{f.relative_to(ROOT.parent)} uses {t.relative_to(ROOT.parent)}: `{top}` may not use `{other}`"
                )

    # 2. File cycles (Tarjan's strongly connected components).
    index, low, stack, on, sccs = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(comp)

    sys.setrecursionlimit(10000)
    for v in files:
        if v not in index:
            visit(v)
    for comp in sccs:
        names = sorted(str(c.relative_to(ROOT.parent)) for c in comp)
        problems.append("import cycle between files: " + ", ".join(names))

    if "--graph" in sys.argv:
        for f, targets in sorted(edges.items()):
            for t in sorted(targets):
                print(f"{f.relative_to(ROOT.parent)} -> {t.relative_to(ROOT.parent)}")
    for p in problems:
        print(f"check-layers: {p}", file=sys.stderr)
    if not problems:
        print(f"check-layers: {len(files)} files, layers one-way, no cycles, none over {MAX_LINES} lines")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
