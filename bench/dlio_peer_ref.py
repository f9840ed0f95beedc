#!/usr/bin/env python3
"""dlio_peer_ref.py [--rows ROW,...] [--run-numbers LIST] [--goal-au P]
                  [--goal-pct P] [--side NAME=FILE ...] DIR...

bench/dlio_peer.sh --reference: the real DLIO's runs of each row, kept
under the DIRs (any folder ROW-RUN with DLIO's dlio/summary.json in it, as
dlio_peer.sh's WORK/out holds them: ROW a row's name, RUN its number),
combined into one reference per row: the median of the runs' AU and
samples/s and their range [min-max]. DLIO's own figures move from hour to
hour on a shared host by more than the goal (one row's samples/s +15% and
+20% between two hours), so a row is judged against runs taken in several
holds, not one.

Each --side NAME=FILE (tiersim's virtual side, its real one, ...; lines
"ROW AU SAMPLES/S", "-" where it has none) is printed beside the reference
with its error against the median (AU points, samples/s %) and the range of
its errors against the runs one by one. A row's reference is "wider than
the goal" where some run lies farther from the median than the goal (AU
points, samples/s %): judged on that run alone, a side exactly at the
median would miss. A run is kept once where it is found in several DIRs
(the same row and DLIO start time); runs of one row that differ in
epochs, files or accelerators (summary.json) are named on a line of their
own.
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys

ROW = re.compile(r'^([a-z0-9]+-\d+-[a-z0-9]+)-(\d+)$')


def numbers(spec):
    """A set test for run numbers from 'A,B-C,...' (None: every run)."""
    if not spec:
        return None
    keep = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        try:
            keep.append((int(lo), int(hi or lo)))
        except ValueError:
            sys.exit("dlio_peer_ref.py: --run-numbers %s: not N or N-M" % part)
    return lambda n: any(a <= n <= b for a, b in keep)


def runs_in(dirs, rows, keep=None):
    """{row: [(run, start, au, smps, path, shape)]} from the DIRs'
    ROW-RUN/dlio/summary.json (shape: epochs, train files, accelerators)."""
    found, seen = {}, set()
    for top in dirs:
        if not os.path.isdir(top):
            sys.exit("dlio_peer_ref.py: %s: no such folder" % top)
        paths = set()
        for pat in ("dlio/summary.json", "*/dlio/summary.json", "*/*/dlio/summary.json"):
            paths.update(glob.glob(os.path.join(top, pat)))
        for p in sorted(paths):
            m = ROW.match(os.path.basename(os.path.dirname(os.path.dirname(p))))
            if not m or (rows and m.group(1) not in rows) or (keep and not keep(int(m.group(2)))):
                continue
            try:
                with open(p) as f:
                    j = json.load(f)
                met = j["metric"]
                au = float(met["train_au_mean_percentage"])
                smps = float(met["train_throughput_mean_samples_per_second"])
            except (OSError, ValueError, KeyError, TypeError) as e:
                print("dlio_peer_ref.py: %s: left out (%s)" % (p, e), file=sys.stderr)
                continue
            start = str(j.get("start", ""))
            shape = (j.get("epochs"), j.get("num_files_train"), j.get("num_accelerators"))
            key = (m.group(1), start)
            if start and key in seen:
                continue
            seen.add(key)
            found.setdefault(m.group(1), []).append((int(m.group(2)), start, au, smps, p, shape))
    for v in found.values():
        v.sort(key=lambda r: (r[1], r[0]))
    return found


def side_file(path):
    """{row: (au, smps)} from lines 'ROW AU SMPS' ('-' where none)."""
    out = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 3 or w[0].startswith("#"):
                continue
            try:
                out[w[0]] = (float(w[1]), float(w[2]))
            except ValueError:
                out[w[0]] = None
    return out


def mmm(v):
    return statistics.median(v), min(v), max(v)


def main():
    ap = argparse.ArgumentParser(prog="dlio_peer_ref.py")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--rows", default="")
    ap.add_argument("--run-numbers", default="")
    ap.add_argument("--goal-au", type=float, default=3.0)
    ap.add_argument("--goal-pct", type=float, default=5.0)
    ap.add_argument("--side", action="append", default=[])
    a = ap.parse_args()
    rows = [r for r in a.rows.split(",") if r]
    sides = []
    for s in a.side:
        name, eq, path = s.partition("=")
        if not eq or not name:
            sys.exit("dlio_peer_ref.py: --side %s: not NAME=FILE" % s)
        sides.append((name, side_file(path)))
    found = runs_in(a.dirs, set(rows), numbers(a.run_numbers))
    order = rows or sorted(found)
    if not any(found.get(r) for r in order):
        sys.exit("dlio_peer_ref.py: no DLIO run of %s under %s" %
                 (", ".join(order) if order else "any row", ", ".join(a.dirs)))
    print("DLIO reference per row: the median [min-max] of its runs; goal %g AU points, %g%% "
          "samples/s" % (a.goal_au, a.goal_pct))
    head = "%-11s %4s | %-22s %-28s |" % ("row", "runs", "DLIO AU %", "DLIO samples/s")
    for name, _ in sides:
        head += " %-9s %-44s |" % (name, "error vs median (vs each run)")
    print(head)
    wide = []
    for r in order:
        rs = found.get(r, [])
        if not rs:
            print("%-11s %4d | no DLIO run" % (r, 0))
            continue
        au, aulo, auhi = mmm([x[2] for x in rs])
        sp, splo, sphi = mmm([x[3] for x in rs])
        line = "%-11s %4d | %5.1f [%5.1f-%5.1f]    %6.1f [%6.1f-%6.1f] %+4.0f%% |" % (
            r, len(rs), au, aulo, auhi, sp, splo, sphi, (sphi - splo) / sp * 100)
        for name, vals in sides:
            v = vals.get(r)
            if not v:
                line += " %-9s %-44s |" % ("-", "-")
                continue
            ea = [v[0] - x[2] for x in rs]
            es = [(v[1] / x[3] - 1) * 100 for x in rs]
            ok = abs(v[0] - au) <= a.goal_au and abs(v[1] / sp - 1) * 100 <= a.goal_pct
            line += " %4.1f %6.1f %+5.1f %+5.1f%% (%+.1f..%+.1f, %+.1f..%+.1f%%) %s |" % (
                v[0], v[1], v[0] - au, (v[1] / sp - 1) * 100, min(ea), max(ea), min(es),
                max(es), "ok" if ok else "MISS")
        print(line)
        far_au = [x for x in rs if abs(x[2] - au) > a.goal_au]
        far_sp = [x for x in rs if abs(x[3] / sp - 1) * 100 > a.goal_pct]
        if far_au or far_sp:
            what = []
            if far_au:
                what.append("AU: run%s %s farther than %g points from the median" % (
                    "s" if len(far_au) > 1 else "", ", ".join("%d (%.1f)" % (x[0], x[2])
                                                             for x in far_au), a.goal_au))
            if far_sp:
                what.append("samples/s: run%s %s farther than %g%% from the median" % (
                    "s" if len(far_sp) > 1 else "", ", ".join(
                        "%d (%.1f, %+.1f%%)" % (x[0], x[3], (x[3] / sp - 1) * 100)
                        for x in far_sp), a.goal_pct))
            wide.append("%s: %s" % (r, "; ".join(what)))
    print("runs (number, DLIO's start UTC, AU, samples/s):")
    for r in order:
        if found.get(r):
            print("  %-11s %s" % (r, "; ".join("%d %s %.1f %.1f" % (
                x[0], x[1][:16].replace("T", " ") or "-", x[2], x[3]) for x in found[r])))
    for r in order:
        shapes = sorted({x[5] for x in found.get(r, [])}, key=str)
        if len(shapes) > 1:
            print("  %s: its runs differ in (epochs, files, accelerators): %s" % (
                r, ", ".join(str(x) for x in shapes)))
    if wide:
        print("reference wider than the goal (a side at the median would miss against one run):")
        for w in wide:
            print("  " + w)
    else:
        print("reference within the goal on every row")


if __name__ == "__main__":
    main()
