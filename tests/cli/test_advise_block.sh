#!/usr/bin/env bash
# tiersim advise --real mount.fs=ext4: the grid in block mode. The override
# reaches every point's run (and the reruns for the spread): each row is
# the dataset in an ext4 image on a loop device over tierfs, the loader in
# a memory cgroup of the grid's memory, and the device served its reads.
# Timings vary, so only that is checked, and that nothing is left mounted,
# attached or in a cgroup. Needs root and loop devices, else it skips.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "no python3 to read the JSON"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: block mode needs root (loop devices, mount)"; exit 77; }
[ -c /dev/loop-control ] || { echo "SKIP: no loop device support (/dev/loop-control)"; exit 77; }
export TIERSIM_DISK_STATE=$work/state

"$tiersim" advise "$here/small.lua" --real mount.fs=ext4 pipeline.decode=none \
	--tiers ultra-cloud,unlimited --vcpus 1 --mem 64MiB --repeats 1 --json "$work/r.json" \
	>"$work/r.txt" 2>"$work/r.err" &
bg=$!
wait $bg || fail "advise --real mount.fs=ext4 exits $?: $(tail -3 "$work/r.err")"
pid=$bg
bg=
check_clean "advise --real mount.fs=ext4"
for f in /sys/block/loop*/loop/backing_file; do
	[ -r "$f" ] || continue
	case "$(cat "$f" 2>/dev/null)" in "$work"/*) fail "loop device ${f%/loop/backing_file} left attached" ;; esac
done
for f in /sys/fs/cgroup/memory/tiersim/scenario-$pid-* /sys/fs/cgroup/tiersim/scenario-$pid-*; do
	[ -e "$f" ] && fail "memory cgroup $f left behind"
done
ls "$work"/disk-* >/dev/null 2>&1 && fail "a row's image was left behind"
grep -q 'real time' "$work/r.txt" || fail "the table does not say real time"
python3 - "$work/r.json" <<'PY' || fail "block-mode rows: $(head -c 2000 "$work/r.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["clock"] == "real", d["clock"]
rows = d["rows"]
assert sorted(r["config"]["mount.tier"] for r in rows) == ["ultra-cloud", "unlimited"], rows
for r in rows:
    assert not r.get("error"), r["error"]
    assert "ext4 on a loop device over tierfs real, block mode" in r["parts"], r["parts"]
    assert "memory cgroup 64.00 MiB" in r["parts"], r["parts"]
    assert r["device_read_rate"]["value"] > 0, r["device_read_rate"]
    assert 0 < r["own_memory"]["value"] < 64, r["own_memory"]
assert sum("recommended" in r["config"].get("advise.choice", "") for r in rows) == 1, rows
assert all(r["config"]["advise.spread"] != "-" for r in rows), "spread not measured"
PY
exit 0
