#!/usr/bin/env bash
# mount{ own_mem }: the part of the instance's memory the job holds itself.
# The page-cache model gets mem less it, as a real instance's page cache
# does (block mode's memory cgroup: the kernel takes it out itself). In
# virtual time, 24 batches of 8 over the 64 JPEGs of small.lua (7.3 MiB)
# in mem = 12 MiB: all but the first pass served from memory; with 6 MiB
# of it the job's own, the 6 MiB left cannot hold the dataset and the
# passes after the first go back to the device. own_mem >= mem is refused
# in one line naming the script and its line.
. "$(dirname "$0")/lib.sh"

figures() { # OWN -> "served_from_memory bytes_read" of the row
	"$tiersim" run "$here/small.lua" --virtual --json "$work/o.json" iterations=24 mount.mem=12MiB \
		mount.own_mem="$1" >"$work/o.out" 2>"$work/err" || fail "own_mem=$1 exited $?: $(cat "$work/err")"
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["rows"][0]
print("%.6f %d" % (r["served_from_memory"]["value"], r["bytes_read"]["value"]))' "$work/o.json"
}
read -r hit0 bytes0 <<<"$(figures 0)"
read -r hit6 bytes6 <<<"$(figures 6MiB)"
awk -v a="$hit0" -v b="$hit6" 'BEGIN { exit !(a > 70 && b < 40) }' ||
	fail "served from memory: $hit0% with own_mem 0, $hit6% with 6 MiB of 12 (want > 70 and < 40)"
[ "$bytes0" = "$bytes6" ] || fail "the job read $bytes0 and $bytes6 bytes: the job itself changed"
grep -q "page-cache model 12.00 MiB less the job's own 6.00 MiB" "$work/o.out" ||
	fail "the parts line does not say what the page cache got: $(grep parts "$work/o.out")"

"$tiersim" run "$here/small.lua" --virtual mount.mem=4MiB mount.own_mem=6MiB >/dev/null 2>"$work/err"
rc=$?
[ "$rc" = 1 ] || fail "own_mem > mem exited $rc"
grep -q "small.lua:16: mount: own_mem = 6291456 bytes needs a larger mem" "$work/err" ||
	fail "own_mem > mem: $(head -1 "$work/err")"
echo "ok: served from memory $hit0% -> $hit6% with 6 MiB of 12 the job's own"
