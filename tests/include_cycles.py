#!/usr/bin/python3
"""include_cycles.py — no circle inside a folder (DESIGN.md, "Layers of the code").

Builds, per folder, the graph of its C files from their #include lines:
file A depends on file B when A includes (directly or through another of
the folder's headers) a header of the same folder that declares a function
B defines, and A calls or takes that function (B.h declared in B.c is the
usual case; a shared header such as an "internal" one counts for every file
defining its functions; a header included for its types alone makes no
edge). A circle in
that graph (runner.c -> train.c -> runner.c) is two files that each need
the other: the folder's parts are not layered. Prints every circle found
and exits 1; 0 when there is none.

usage: include_cycles.py SOURCE_ROOT [--known FOLDER,...] [FOLDER...]
(default: every folder with C files, tests/ and build trees left out).
--known names folders whose circles are open work (issue 17): theirs are
printed and do not fail the run; one that has none left is said, so that
it comes off the list.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# a declaration or definition of a function at the start of a line:
# "TS_WUR int ts_x_y(" / "static void f(" / "struct ts_row *ts_report_add("
FUNC = re.compile(r'^(?!\s)(?!typedef|#|return\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(', re.M)
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def strip(text):
    return COMMENT.sub(lambda m: '\n' * m.group(0).count('\n'), text)


def declared(text):
    """Functions a header declares (prototypes ending with ';')."""
    names = set()
    for m in FUNC.finditer(text):
        rest = text[m.end():]
        depth, i = 1, 0
        while i < len(rest) and depth:
            depth += {'(': 1, ')': -1}.get(rest[i], 0)
            i += 1
        tail = rest[i:].lstrip()
        tail = re.sub(r'^(TS_\w+(\([^)]*\))?|__attribute__\(\([^)]*\)\))\s*', '', tail)
        if tail.startswith(';') or tail.startswith('TS_'):
            names.add(m.group(1))
    return names


def defined(text):
    """Functions a C file defines (a body follows the parameter list)."""
    names = set()
    for m in FUNC.finditer(text):
        rest = text[m.end():]
        depth, i = 1, 0
        while i < len(rest) and depth:
            depth += {'(': 1, ')': -1}.get(rest[i], 0)
            i += 1
        if rest[i:].lstrip().startswith('{'):
            names.add(m.group(1))
    return names


def folder_graph(root, folder):
    path = os.path.join(root, folder)
    files = sorted(f for f in os.listdir(path) if f.endswith(('.c', '.h')))
    text = {}
    for f in files:
        with open(os.path.join(path, f), encoding='utf-8', errors='replace') as fh:
            text[f] = strip(fh.read())
    owner = {}  # function -> the .c files of this folder defining it
    for f in files:
        if f.endswith('.c'):
            for name in defined(text[f]):
                owner.setdefault(name, set()).add(f)

    def local(inc):
        """The header an include names if it is one of this folder's."""
        base = os.path.basename(inc)
        if '/' in inc and os.path.normpath(os.path.dirname(inc)) != os.path.normpath(folder):
            return None
        return base if base in text else None

    def headers(f, seen):
        """Local headers @f includes, directly or through local headers."""
        for inc in INCLUDE.findall(text[f]):
            h = local(inc)
            if h and h not in seen:
                seen.add(h)
                headers(h, seen)
        return seen

    graph = {}
    for f in files:
        if not f.endswith('.c'):
            continue
        deps = set()
        used = set(re.findall(r'\b[A-Za-z_]\w*\b', text[f]))
        for h in headers(f, set()):
            for name in declared(text[h]) & used:
                deps |= owner.get(name, set())
        deps.discard(f)
        graph[f] = deps
    return graph


def cycles(graph):
    """Every strongly connected component of more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
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
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    root = sys.argv[1]
    args = sys.argv[2:]
    known = set()
    if len(args) >= 2 and args[0] == '--known':
        known = set(filter(None, args[1].split(',')))
        args = args[2:]
    folders = args or sorted(
        d for d in os.listdir(root)
        if os.path.isdir(os.path.join(root, d)) and not d.startswith(('.', 'build'))
        and d != 'tests' and any(f.endswith('.c') for f in os.listdir(os.path.join(root, d))))
    bad = 0
    for folder in folders:
        graph = folder_graph(root, folder)
        found = cycles(graph)
        for comp in found:
            bad += folder not in known
            edges = ', '.join(f'{a} -> {b}' for a in comp for b in sorted(graph[a]) if b in comp)
            print(f'{folder}/: {"known: " if folder in known else ""}a circle among '
                  f'{", ".join(comp)} ({edges})')
        if folder in known and not found:
            print(f'{folder}/: no circle left: take it off --known')
    clean = [f for f in folders if f not in known]
    if not bad:
        print(f'no circle inside {len(clean)} folders ({", ".join(clean)})')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
