#!/usr/bin/env python3
"""benchstat.py — the figures bench/ scripts print for repeated runs.

A bench on a shared machine runs what it compares side by side, in rounds
(each round runs every side once, in an order that changes from round to
round), and takes each ratio within a round: the two runs of one round saw
about the same load, the rounds need not have. What it prints for a figure
or a ratio over the rounds is the median and the range: "M (LO..HI)".

The median of an even count is the mean of the two middle values. Words
that are not numbers (a "-", "timeout", "nan" of a round that has no
figure) are left out; with no number left the figure is "-".

From Python (the bench scripts' inline programs put bench/ on sys.path):
    median(v), summary(v) -> (median, lo, hi), show(v, fmt), ratios(a, b),
    median_interval(v, level) -> (lo, hi, coverage) or None
From the shell (bench/lib.sh wraps these):
    benchstat.py stat [-r] [-f FMT] [X ...]   X, or the words of stdin
    benchstat.py ratio [-r] [-f FMT] "A1 A2 .." "B1 B2 .."   A[i] / B[i] per round
    benchstat.py diff [-r] [-f FMT] "A1 A2 .." "B1 B2 .."    A[i] - B[i] per round
FMT is a printf format for one number (default %.3f); -r prints "M LO HI"
(for a script to read; "- - -" when there are no numbers).
"""
import math
import sys


def _num(x):
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def numbers(words):
    """The finite numbers among WORDS, in order."""
    return [v for v in (_num(w) for w in words) if v is not None]


def median(v):
    s = sorted(v)
    n = len(s)
    if not n:
        raise ValueError("median of no values")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def summary(v):
    """(median, min, max) of V."""
    return median(v), min(v), max(v)


def show(v, fmt="%.3f", raw=False):
    """ "M (LO..HI)" of the numbers in V, "-" when there are none; RAW:
    "M LO HI", "- - -" when there are none."""
    v = numbers(v)
    if not v:
        return "- - -" if raw else "-"
    m, lo, hi = (fmt % x for x in summary(v))
    return "%s %s %s" % (m, lo, hi) if raw else "%s (%s..%s)" % (m, lo, hi)


def median_interval(v, level=0.90):
    """(lo, hi, coverage) of the numbers in V: a distribution-free
    interval for their median, the order statistics of ranks k and n+1-k
    (from 1), k the largest with P(Binomial(n, 1/2) < k) <= (1 - LEVEL) / 2,
    and the coverage that gives (at least LEVEL); None where n is too
    small for any (fewer than 5 at 0.90)."""
    s, n = sorted(numbers(v)), len(numbers(v))
    tail, cdf, k = (1 - level) / 2, 0.0, 0
    while k + 1 <= (n + 1) // 2:
        p = cdf + math.comb(n, k) / 2 ** n
        if p > tail:
            break
        cdf, k = p, k + 1
    if k == 0:
        return None
    return s[k - 1], s[n - k], 1 - 2 * cdf


def _pairs(a, b):
    if len(a) != len(b):
        raise ValueError("%d rounds against %d" % (len(a), len(b)))
    for x, y in zip(a, b):
        x, y = _num(x), _num(y)
        if x is not None and y is not None:
            yield x, y


def ratios(a, b):
    """A[i] / B[i] for each round i with both figures and B[i] > 0."""
    return [x / y for x, y in _pairs(a, b) if y > 0]


def diffs(a, b):
    """A[i] - B[i] for each round i with both figures."""
    return [x - y for x, y in _pairs(a, b)]


def main(argv):
    if not argv or argv[0] not in ("stat", "ratio", "diff"):
        sys.exit("usage: benchstat.py stat|ratio|diff [-r] [-f FMT] ... (see its header)")
    what, args, fmt, raw = argv[0], argv[1:], "%.3f", False
    if args[:1] == ["-r"]:
        raw, args = True, args[1:]
    if args[:1] == ["-f"] and len(args) >= 2:
        fmt, args = args[1], args[2:]
    try:
        fmt % 1.0
    except (TypeError, ValueError):
        sys.exit("benchstat.py: -f '%s' is not a format for one number" % fmt)
    if what == "stat":
        print(show(args if args else sys.stdin.read().split(), fmt, raw))
        return
    if len(args) != 2:
        sys.exit("benchstat.py %s: two lists of figures, one a round each" % what)
    a, b = args[0].split(), args[1].split()
    try:
        v = ratios(a, b) if what == "ratio" else diffs(a, b)
    except ValueError as e:
        sys.exit("benchstat.py %s: %s" % (what, e))
    print(show(v, fmt, raw))


if __name__ == "__main__":
    main(sys.argv[1:])
