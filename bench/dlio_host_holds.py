#!/usr/bin/env python3
# dlio_host_holds.py DIR [NAME] — bench/dlio_host_holds.sh's combine: the
# profiles `tiersim hosts measure` wrote in separate holds (DIR/hold-*.lua,
# each with its .info: start, end, load, command) as one host NAME in
# DIR/combined.lua. A line the measurement wrote (its label begins with
# "tiersim hosts measure"): the median of the holds' values (each the
# median of its rounds), low and high the least and most of the holds' low
# and high (their rounds' least and most). Any other line (carried, or
# constant): as the first hold wrote it. The holds must come from the same
# command (the same lines in the same order); the table it prints gives
# each figure's holds and the combined range.
import glob
import os
import re
import statistics
import sys

FIG = re.compile(r'^(\s*)([A-Za-z_][\w]*) = \{ ([-0-9.e+]+), "measured", "(.*)", '
                 r'low = ([-0-9.e+]+), high = ([-0-9.e+]+) \},$')
# "tiersim hosts measure STAMP, DLIO at VENV, tierfs on TIER, N rounds: WHAT (median ...)"
SRC = re.compile(r'^tiersim hosts measure .*?, \d+ rounds: (.*?)'
                 r'(?: \(median of the rounds; low, high: their least and most\))?$')


def info(path):
    d = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition(" ")
            d[k] = v
    return d


def fmt(v, like):
    dec = len(like.split(".")[1]) if "." in like else 0
    return "%.*f" % (dec, v)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: dlio_host_holds.py DIR [NAME]")
    top, name = sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "this-machine"
    holds = sorted(glob.glob(os.path.join(top, "hold-*.lua")))
    holds = [h for h in holds if os.path.exists(h[:-4] + ".info")]
    if not holds:
        sys.exit("dlio_host_holds.py: no hold-*.lua with its .info in %s" % top)
    texts = [open(h).read().split("\n") for h in holds]
    infos = [info(h[:-4] + ".info") for h in holds]
    if len({len(t) for t in texts}) != 1 or len({i.get("command") for i in infos}) != 1:
        sys.exit("dlio_host_holds.py: the holds differ in command or lines: combine holds of "
                 "one command only")
    when = ", ".join("%s-%s (load %s)" % (i["start"][:16].replace("T", " "), i["end"][11:16],
                                          i["load"].replace(" ", "-")) for i in infos)
    day = sorted({i["start"][:10] for i in infos})
    rounds = sum(int(i.get("rounds", 0)) for i in infos)
    src = ("bench/dlio_host_holds.sh: %d exclusive holds (q bench) of %s, %d rounds in all, "
           "UTC %s" % (len(holds), infos[0]["command"], rounds, when))
    out, table = [], []
    for n, lines in enumerate(zip(*texts)):
        ms = [FIG.match(x) for x in lines]
        if not all(ms) or not SRC.match(ms[0].group(4)):
            line = lines[0]
            if line.startswith("-- "):
                continue  # the holds' headers: written below
            out.append(line.replace('host "this-machine"', 'host "%s"' % name, 1))
            continue
        if len({m.group(2) for m in ms}) != 1:
            sys.exit("dlio_host_holds.py: line %d names %s in one hold, %s in another" %
                     (n + 1, ms[0].group(2), ms[1].group(2)))
        vals = [float(m.group(3)) for m in ms]
        lo = min(float(m.group(5)) for m in ms)
        hi = max(float(m.group(6)) for m in ms)
        med = statistics.median(vals)
        like = ms[0].group(3)
        what = SRC.match(ms[0].group(4)).group(1)
        label = ("%s: %s; the median of the holds' medians (%s); low, high: the least and most "
                 "round of any hold" % (src, what, ", ".join(fmt(v, like) for v in vals)))
        out.append('%s%s = { %s, "measured", "%s", low = %s, high = %s },' %
                   (ms[0].group(1), ms[0].group(2), fmt(med, like), label, fmt(lo, like),
                    fmt(hi, like)))
        table.append((ms[0].group(1).strip() or "", ms[0].group(2), vals, med, lo, hi, like))
    path = os.path.join(top, "combined.lua")
    with open(path, "w") as f:
        f.write("-- %s: DLIO's costs on this machine from %d holds (bench/dlio_host_holds.sh,\n"
                "-- %s), each figure the median of the holds' medians.\n" %
                (name, len(holds), " and ".join(day)))
        f.write("\n".join(out).rstrip("\n") + "\n")
    print("%s: %d holds: %s" % (path, len(holds), when))
    print("%-34s %-36s %-12s %-25s %s" % ("figure", "holds' medians", "combined",
                                          "[low..high]", "range / combined"))
    for _, key, vals, med, lo, hi, like in table:
        rel = "%+.0f%% %+.0f%%" % ((lo / med - 1) * 100, (hi / med - 1) * 100) if med else "-"
        print("%-34s %-36s %-12s %-25s %s" % (key, " ".join(fmt(v, like) for v in vals),
                                              fmt(med, like),
                                              "[%s..%s]" % (fmt(lo, like), fmt(hi, like)), rel))


if __name__ == "__main__":
    main()
