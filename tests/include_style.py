#!/usr/bin/python3
"""include_style.py — one include style (issue 17): a header of the tree is
named by its path from the source root ("core/opt.h", never "opt.h" nor
"../core/opt.h"), whichever folder includes it. Prints each include written
otherwise as FILE:LINE and exits 1; 0 when there is none.

usage: include_style.py SOURCE_ROOT
Headers meson generates in the build tree (ts_config.h, traces/wake_bpf.skel.h,
disk/issue_bpf.skel.h) are left out.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
GENERATED = {'ts_config.h', 'traces/wake_bpf.skel.h', 'disk/issue_bpf.skel.h'}


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    root = sys.argv[1]
    bad = 0
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith(('.', 'build')))
        for f in sorted(files):
            if not f.endswith(('.c', '.h', '.cu')):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, root)
            with open(path, encoding='utf-8', errors='replace') as fh:
                for n, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if not m or m.group(1) in GENERATED:
                        continue
                    inc = m.group(1)
                    if not os.path.isfile(os.path.join(root, inc)) or inc != os.path.normpath(inc):
                        print(f'{rel}:{n}: "{inc}": name the header by its path from the source root')
                        bad += 1
    if bad:
        print(f'{bad} include(s) not in the tree\'s style', file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
