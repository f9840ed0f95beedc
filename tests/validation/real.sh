#!/usr/bin/env bash
# real.sh — tiersim validate --real runs a disk case with fio through a
# tierfs mount and reports what the emulation achieved. Whether that is
# inside the tolerance is a wall-clock result, so this checks only that the
# case ran, reported its figures and left no mount behind.
set -u
build=${TS_BUILD_ROOT:?run through meson test}
tiersim=$build/cli/tiersim
[ -e /dev/fuse ] || { echo "no /dev/fuse"; exit 77; }
command -v fio >/dev/null || { echo "no fio"; exit 77; }
"$tiersim" validate --help | grep -q -- '--real' || { echo "no --real in this build"; exit 77; }
# A scratch TMPDIR of its own, so that another suite's --real run (same
# folder name pattern) cannot be taken for a mount this one left behind.
scratch=$(mktemp -d)
trap 'rmdir "$scratch" 2>/dev/null' EXIT
out=$(TMPDIR=$scratch "$tiersim" validate --real --real-runtime 2s --json ebs-gp2-8g-randwrite-4k-qd4 2>&1)
echo "$out" | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
s = j["summary"]
assert s["failed"] == 0 and s["checking_cases"] == 1, s
f = j["cases"][0]["figures"]
assert [x["metric"] for x in f] == ["iops", "lat_p50", "lat_p99"], f
assert all(x["emulated"] > 0 for x in f), f' || { echo "FAIL: --real did not run the case: $out" >&2; exit 1; }
if grep -qF " $scratch/" /proc/mounts; then
	echo "FAIL: a mount was left behind under $scratch" >&2
	exit 1
fi
if [ -n "$(ls -A "$scratch")" ]; then
	echo "FAIL: the scratch folder was left behind: $(ls -A "$scratch")" >&2
	exit 1
fi
echo ok
