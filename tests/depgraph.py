#!/usr/bin/env python3
"""The library's module graph, from its object files: each object's undefined symbols resolved to the object
that defines them (nm), an edge from the user to the definer.  Prints the edges and every cycle (a strongly
connected set of two or more modules, with one cycle through it as an example); exits 1 when there is a
cycle.  usage: tests/depgraph.py OBJECT.o...   (make depgraph runs it on build/obj)"""
import os
import subprocess
import sys


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


def graph(objs):
    """{module: {module it uses: [symbols]}}, modules named by their object's base name."""
    name = {o: os.path.splitext(os.path.basename(o))[0] for o in objs}
    syms = {o: symbols(o) for o in objs}
    owner = {s: name[o] for o in objs for s in syms[o][0]}
    g = {name[o]: {} for o in objs}
    for o in objs:
        for s in sorted(syms[o][1]):
            if s in owner and owner[s] != name[o]:
                g[name[o]].setdefault(owner[s], []).append(s)
    return g


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


def main(argv):
    if not argv:
        print("usage: " + __doc__.split("usage: ")[1].strip(), file=sys.stderr)
        return 2
    if argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    g = graph(argv)
    for v in sorted(g):
        for w in sorted(g[v]):
            print(f"{v} -> {w}: {', '.join(g[v][w][:4])}{' ...' if len(g[v][w]) > 4 else ''}")
    found = cycles(g)
    for scc in found:
        print(f"cycle among {len(scc)} modules ({', '.join(scc)}), for example {' -> '.join(example_cycle(g, scc))}")
    print(f"{len(g)} modules, {sum(len(e) for e in g.values())} edges, {len(found)} cycles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
