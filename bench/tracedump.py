"""tracedump.py — a trace's text form, read once for the bench scripts.

`tiersim trace dump TRACE` (traces/FORMAT.md, "The text form") writes one
line an item: the header (`header key=value...`), a request (`SUBMIT_NS
COMPLETE_NS OP FILE OFFSET LENGTH RESULT TID ...`), the CPU sample that
annotates the request before it (`cpu TID key=value...`), and the other
items (`path`, `end`, ...). items() runs the dump and yields them in its
order, parsed; the scripts keep their own rules for what a line means to
them. A dump that fails ends the script with one line: tiersim's own,
which names the trace.
"""
import collections
import subprocess
import sys

# One request line: its first eight fields as numbers (op as its name),
# and all of its words for the fields past them.
Req = collections.namedtuple("Req", "submit complete op file offset length result tid words")


def keyvals(words):
    """{key: value} of the words that hold key=value (values as text)."""
    return dict(w.split("=", 1) for w in words if "=" in w)


def items(tiersim, path):
    """Yields ("header", {key: value}), ("req", Req), ("cpu", tid, {key:
    value}) and ("other", words) for each line of `TIERSIM trace dump
    PATH` that is neither empty nor a comment, in the dump's order."""
    p = subprocess.Popen([tiersim, "trace", "dump", path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    for line in p.stdout:
        w = line.split()
        if not w or w[0].startswith("#"):
            continue
        if w[0] == "header":
            yield "header", keyvals(w[1:])
        elif w[0] == "cpu" and len(w) > 1:
            yield "cpu", int(w[1]), keyvals(w[2:])
        elif w[0].isdigit() and len(w) > 7:
            yield "req", Req(int(w[0]), int(w[1]), w[2], int(w[3]), int(w[4]), int(w[5]),
                             int(w[6]), int(w[7]), w)
        else:
            yield "other", w
    p.stdout.close()
    err = p.stderr.read().strip()
    if p.wait() != 0:
        sys.exit("%s: %s" % (sys.argv[0], err.splitlines()[-1] if err else
                             "%s: tiersim trace dump failed (exit %d)" % (path, p.returncode)))
