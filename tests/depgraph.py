#!/usr/bin/env python3
"""The library's module graph, from its object files, checked against its layers. Each object's undefined symbols
are resolved to the object that defines them (nm), an edge from the user to the definer; a module is named by
its object's path under the root without .o ("core/life", "families/blas/blas"), and its layer is the first
folder of that path. The C library's and CUDA's functions gpushim interposes (GS_MEMORY_HOOKS and
GS_CUDA_ALLOC_HOOKS, read from src/core/gs_table.h) count as the C library's: a call to free() is no edge to
memory/hostreg, nor one to dlsym to dispatch/yield. Prints the edges, every layer violation (an edge from a
lower layer to a higher one) and every cycle (a strongly connected set of two or more modules, with one cycle
through it as an example); exits 1 when there is any, or when an object is missing, lies outside the root or
in a folder that is no layer.
usage: tests/depgraph.py [--root DIR] [--hooks HEADER] OBJECT.o...
  --root DIR       where the objects' paths start (default build/obj; make depgraph runs it on build/obj)
  --hooks HEADER   the header that defines those lists (default src/core/gs_table.h)"""
import os
import re
import subprocess
import sys

# The layers, lowest first (issue 18): a module may use modules of its own layer or of lower ones only.
RANKS = {
    "core": 0,      # state, clock, options, messages, the routine table, policy, the call's steps
    "log": 1,       # the offload log, its call sites and the exit summary
    "cuda": 2,      # loading the CUDA libraries, per-device state
    "memory": 3,    # transfers, host registration and the memory hooks, residency cache, write protection
    "backend": 4,   # the CUDA backend: cuBLAS, GEMM tiling, cuSOLVER
    "dispatch": 5,  # the dispatcher and the GPU's bring-up
    "families": 6,  # BLAS and LAPACK: normalisation and the entry points
}
HERE = os.path.dirname(os.path.abspath(__file__))


def interposed(header):
    """The names GS_MEMORY_HOOKS(X) and GS_CUDA_ALLOC_HOOKS(X) list in header: X(free) X(realloc) ..."""
    text = open(header).read()
    names = set()
    for macro in ("GS_MEMORY_HOOKS", "GS_CUDA_ALLOC_HOOKS"):
        m = re.search(r"#define\s+" + macro + r"\(X\)((?:[^\n]*\\\n)*[^\n]*)", text)
        found = re.findall(r"\bX\((\w+)\)", m.group(1)) if m else []
        if not found:
            raise SystemExit(f"depgraph: no {macro}(X) with names in {header}")
        names.update(found)
    return names


def symbols(obj):
    """(defined, undefined) global symbol names of one object file."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        (undefined if f[1] == "U" else defined if f[1] in "TDBRVWGS" else set()).add(f[0])
    return defined, undefined


def module_name(obj, root):
    """"core/life" for root/core/life.o, or None when obj is not under root."""
    rel = os.path.relpath(os.path.abspath(obj), os.path.abspath(root))
    if rel.startswith(os.pardir + os.sep) or rel == os.pardir or os.path.isabs(rel):
        return None
    return os.path.splitext(rel)[0].replace(os.sep, "/")


def layer(module):
    return module.split("/")[0] if "/" in module else ""


def graph(objs, names, libc):
    """{module: {module it uses: [symbols]}}; symbols in libc are the C library's, whoever defines them."""
    syms = {o: symbols(o) for o in objs}
    owner = {s: names[o] for o in objs for s in syms[o][0] if s not in libc}
    g = {names[o]: {} for o in objs}
    for o in objs:
        for s in sorted(syms[o][1]):
            if s in owner and owner[s] != names[o]:
                g[names[o]].setdefault(owner[s], []).append(s)
    return g


def violations(g):
    """The edges (user, definer) from a lower layer to a higher one."""
    return [(v, w) for v in sorted(g) for w in sorted(g[v]) if RANKS[layer(v)] < RANKS[layer(w)]]


def cycles(g):
    """The strongly connected sets of two or more modules (Tarjan's algorithm), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                out.append(sorted(scc))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def example_cycle(g, scc):
    """One cycle through the first module of scc, inside scc (breadth-first back to it)."""
    start, inside = scc[0], set(scc)
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(g[v]):
                if w == start:
                    path = [v]
                    while prev[path[-1]]:
                        path.append(prev[path[-1]])
                    return [start] + path[::-1][1:] + [start] if len(path) > 1 else [start, v, start]
                if w in inside and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return scc


def some(syms):
    return f"{', '.join(syms[:4])}{' ...' if len(syms) > 4 else ''}"


def parse(argv):
    """(root, hooks header, objects), or an exit status for usage and help."""
    usage = "usage: " + __doc__.split("usage: ")[1].strip()
    opts = {"--root": os.path.join(HERE, "..", "build", "obj"),
            "--hooks": os.path.join(HERE, "..", "src", "core", "gs_table.h")}
    objs = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a in opts:
            if i + 1 == len(argv):
                print(usage, file=sys.stderr)
                return 2
            opts[a] = argv[i + 1]
            i += 2
            continue
        if a.startswith("-"):
            print(f"depgraph: unknown option {a}\n{usage}", file=sys.stderr)
            return 2
        objs.append(a)
        i += 1
    if not objs:
        print(usage, file=sys.stderr)
        return 2
    return opts["--root"], opts["--hooks"], objs


def main(argv):
    args = parse(argv)
    if isinstance(args, int):
        return args
    root, hooks, objs = args
    names, bad = {}, 0
    for o in objs:
        names[o] = module_name(o, root)
        if not os.path.isfile(o):
            print(f"no such object: {o}")
            bad += 1
        elif names[o] is None:
            print(f"not under {root}: {o}")
            bad += 1
        elif layer(names[o]) not in RANKS:
            print(f"unknown layer: {names[o]} is in no folder of {', '.join(RANKS)}")
            bad += 1
    if bad:
        return 1
    g = graph(objs, names, interposed(hooks))
    for v in sorted(g):
        for w in sorted(g[v]):
            print(f"{v} -> {w}: {some(g[v][w])}")
    up = violations(g)
    for v, w in up:
        print(f"layer violation: {v} ({layer(v)}) -> {w} ({layer(w)}): {some(g[v][w])}")
    found = cycles(g)
    for scc in found:
        print(f"cycle among {len(scc)} modules ({', '.join(scc)}), for example {' -> '.join(example_cycle(g, scc))}")
    print(f"{len(g)} modules, {sum(len(e) for e in g.values())} edges, {len(up)} layer violations, "
          f"{len(found)} cycles")
    return 1 if found or up else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
