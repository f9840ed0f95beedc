#!/usr/bin/env python3
"""big_dirs.py — opens (open + close, no read) the files a list names, in
its order, under a folder; prints the seconds it took. The list is one
name a line. Used by bench/big_dirs.sh."""
import os
import sys
import time

def main():
    if len(sys.argv) != 3:
        print("usage: big_dirs.py FOLDER LIST", file=sys.stderr)
        return 2
    folder, lst = sys.argv[1], sys.argv[2]
    with open(lst) as f:
        names = [n.rstrip("\n") for n in f if n.strip()]
    t = time.monotonic()
    for n in names:
        os.close(os.open(os.path.join(folder, n), os.O_RDONLY))
    print("%.6f" % (time.monotonic() - t))
    return 0

if __name__ == "__main__":
    sys.exit(main())
