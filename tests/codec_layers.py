#!/usr/bin/env python3
"""codec_layers.py SRC OBJ: no file of the codec (SRC, src/codec) calls or
includes its way back to itself.

Two graphs of the codec's files, each checked for a cycle:
- symbols: X.c -> Y.c when X's object (OBJ/X.o, as make built it) leaves
  undefined a symbol that Y's object defines (nm). Symbols defined outside
  the codec (gf_err, libspng) are not followed.
- includes: X -> H for each #include "H" of X (a .c or .h of SRC), where
  a header stands for the .c file of its name (registry.h is registry.c,
  common.h common.c): a file that includes it depends on that file.
  Headers of no file of their name (codec.h, formats.h) only lead on to
  what they include.
A cycle fails the test, named file by file (with the symbols that tie the
objects). Without one, the layers (each file above all that it uses) are
printed."""
import os
import re
import subprocess
import sys


def symbols(obj):
    """The (defined, undefined) external symbols of an object."""
    out = subprocess.run(["nm", "-P", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind == "U":
            undefined.add(name)
        elif kind.isupper() and kind not in "N":  # global: text, data, bss, read-only, weak
            defined.add(name)
    return defined, undefined


def symbol_graph(src, objdir):
    names = sorted(f[:-2] for f in os.listdir(src) if f.endswith(".c"))
    missing = [n for n in names if not os.path.exists(os.path.join(objdir, n + ".o"))]
    if missing:
        sys.exit("codec_layers: no object for %s in %s (build it first)"
                 % (", ".join(missing), objdir))
    syms = {n + ".c": symbols(os.path.join(objdir, n + ".o")) for n in names}
    owner = {}
    for f, (defined, _) in syms.items():
        for s in defined:
            owner.setdefault(s, f)
    graph = {f: {} for f in syms}
    for f, (_, undefined) in syms.items():
        for s in sorted(undefined):
            g = owner.get(s)
            if g and g != f:
                graph[f].setdefault(g, []).append(s)
    return graph


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def include_graph(src):
    files = sorted(f for f in os.listdir(src) if f.endswith((".c", ".h")))

    def node(f):  # a header of a file's name is that file: registry.h is registry.c
        return f[:-2] + ".c" if f.endswith(".h") and f[:-2] + ".c" in files else f

    graph = {node(f): {} for f in files}
    for f in files:
        with open(os.path.join(src, f), encoding="utf-8") as fh:
            for inc in INCLUDE.findall(fh.read()):
                # a file of the codec (not ../gf.h, third_party), not its own header
                if inc in files and node(inc) != node(f):
                    why = '#include "%s" in %s' % (inc, f)
                    graph[node(f)].setdefault(node(inc), []).append(why)
    return graph


def find_cycle(graph):
    """A cycle as a list of nodes (first == last), or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph[n]):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def layers(graph):
    """Each node's layer: 0 for those that use none, else 1 + the highest
    layer of those they use (graph without cycles)."""
    level = {}

    def depth(n):
        if n not in level:
            level[n] = 1 + max((depth(m) for m in graph[n]), default=-1)
        return level[n]

    for n in graph:
        depth(n)
    by = {}
    for n, d in level.items():
        by.setdefault(d, []).append(n)
    return [sorted(by[d]) for d in sorted(by)]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: codec_layers.py SRC_DIR OBJ_DIR")
    src, objdir = sys.argv[1], sys.argv[2]
    failed = False
    for what, graph in (("symbols", symbol_graph(src, objdir)), ("includes", include_graph(src))):
        cycle = find_cycle(graph)
        if cycle:
            failed = True
            steps = ["%s -> %s (%s)" % (a, b, ", ".join(graph[a][b][:3]))
                     for a, b in zip(cycle, cycle[1:])]
            print("codec_layers: FAIL: a cycle of %s in %s:\n  %s"
                  % (what, src, "\n  ".join(steps)))
        else:
            shown = [[n for n in layer if what == "symbols" or n.endswith(".c")]
                     for layer in layers(graph)]
            print("codec_layers: %s: no cycle; layers, lowest first: %s" %
                  (what, " | ".join(" ".join(layer) for layer in shown if layer)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
