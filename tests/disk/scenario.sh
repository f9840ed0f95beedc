#!/usr/bin/env bash
# scenario.sh — mount{ fs = "ext4" } in a real-time scenario: the dataset in
# a fresh ext4 image per row, mounted through a loop device over tierfs, the
# loader in a memory cgroup; the row's reads are the device's (tierfs under
# the loop device counted them), its parts say block mode, and nothing is
# left mounted, attached or on disk. An unknown file system is refused in
# one line (the cache states: cache.sh).
. "$(dirname "$0")/lib.sh"
SMALL=$(dirname "$0")/../cli/small.lua
export TIERSIM_WORKDIR=$TMPD/work

"$TIERSIM" run "$SMALL" mount.fs=ext4 mount.mem=64MiB pipeline.decode=none --json "$TMPD/r.json" \
	--quiet >"$TMPD/out" 2>&1 &
pid=$!
wait $pid || fail "block-mode scenario: $(tail -3 "$TMPD/out")"
/usr/bin/python3 - "$TMPD/r.json" <<'EOF' || fail "block-mode row: $(cat "$TMPD/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
assert not r.get("error"), r
assert r["throughput"]["value"] > 0, r
assert "ext4 on a loop device over tierfs real, block mode" in r["parts"], r["parts"]
assert "memory cgroup 64.00 MiB" in r["parts"], r["parts"]
# the device read at least the dataset's JPEGs (64 of them, a few KiB each)
assert r["read_rate"]["value"] > 0 and r["device_read_rate"]["value"] > 0, r
# the job's own memory in its cgroup, measured (mount{ own_mem = } for a
# virtual run): more than nothing, less than the cgroup
own = r["own_memory"]
assert own["unit"] == "MiB" and 0 < own["value"] < 64, own
print("own memory %.1f MiB" % own["value"])
EOF
check_clean "block-mode scenario"
ls "$TIERSIM_WORKDIR"/disk-* 2>/dev/null && fail "the row's image was left behind"
# the process left its memory cgroup with the row (named after its pid)
for f in /sys/fs/cgroup/memory/tiersim/scenario-$pid-* /sys/fs/cgroup/tiersim/scenario-$pid-*; do
	[ -e "$f" ] && fail "memory cgroup $f left behind"
done

out=$("$TIERSIM" run "$SMALL" mount.fs=btrfs --quiet 2>&1 >/dev/null) && fail "fs=btrfs ran"
case "$out" in *"btrfs"*) ;; *) fail "fs=btrfs: $out" ;; esac
echo "ok: $out"
check_clean "refused scenarios"
exit 0
