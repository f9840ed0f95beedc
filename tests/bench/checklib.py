"""checklib.py — the tests of tests/bench: check(what, got, want) prints a
FAIL line for each difference; done() exits 1 if any, else 0."""
import sys

fails = 0


def check(what, got, want):
    global fails
    if got != want:
        print("FAIL %s: got %r, want %r" % (what, got, want))
        fails += 1


def done():
    sys.exit(1 if fails else 0)
