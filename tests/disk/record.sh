#!/usr/bin/env bash
# record.sh — tiersim record --fs: the directory copied into an image,
# mounted in block mode, the command run in a memory cgroup, the device's
# requests recorded; bad input refused in one line; nothing left behind.
. "$(dirname "$0")/lib.sh"
export TMPDIR=$TMPD

head -c $((24 << 20)) /dev/urandom >"$TMPD/data/big"
out=$("$TIERSIM" record --fs btrfs --data "$TMPD/data" --out "$TMPD/x.trace" -- true 2>&1 >/dev/null) &&
	fail "record --fs btrfs ran"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && case "$out" in *"unknown file system 'btrfs'"*) ;; *) false ;; esac ||
	fail "record --fs btrfs: $out"
echo "ok: $out"
# Read twice in a 64 MiB cgroup: the device serves the file once; the
# command's status is record's.
"$TIERSIM" record --fs ext4 --data "$TMPD/data" --tier aws-gp3 --mem 64MiB --out "$TMPD/rec.trace" \
	--no-wakes --predict ssd-cloud -- sh -c 'cat {}/big >/dev/null && cat "$TIERSIM_MOUNT/big" >/dev/null && exit 3' \
	>"$TMPD/rec.out" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "record exit status $rc, the command's was 3: $(tail -3 "$TMPD/rec.out")"
check_clean "record --fs"
ls -d "$TMPD"/tiersim-record.* 2>/dev/null && fail "record left its scratch directory"
grep -q "ssd-cloud" "$TMPD/rec.out" || fail "no prediction for ssd-cloud"
bytes=$(trace_read_bytes "$TMPD/rec.trace")
echo "device read $bytes bytes for a $((24 << 20))-byte file read twice in 64 MiB"
[ "$bytes" -ge $((24 << 20)) ] && [ "$bytes" -lt $(((24 << 20) * 3 / 2)) ] || fail "the device read $bytes bytes"
"$TIERSIM" trace stats --json "$TMPD/rec.trace" | /usr/bin/python3 -c '
import json, sys
f = json.load(sys.stdin)["files"]
assert f[0]["path"] == "/data.ext4", f' || fail "the trace's reads are not of the image"
# With the wake file: the command's sleeps in state D that the device's
# completions ended are in it, and the replay ties requests to them (the
# first read of a cold file waits for its request).
"$TIERSIM" record --fs ext4 --data "$TMPD/data" --tier aws-gp3 --out "$TMPD/w.trace" \
	-- cat {}/big >"$TMPD/w.out" 2>&1 || fail "record --fs with wakes: $(tail -3 "$TMPD/w.out")"
check_clean "record --fs with wakes"
if [ -f "$TMPD/w.trace.wakes" ]; then
	sleeps=$(grep -c '^S ' "$TMPD/w.trace.wakes")
	[ "$sleeps" -ge 1 ] || fail "no IO sleep in the wake file"
	"$TIERSIM" replay "$TMPD/w.trace" --virtual --tier ssd-cloud --json >"$TMPD/w.json" ||
		fail "replay of the block-mode trace"
	tied=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["results"][1].get("tied", 0))' "$TMPD/w.json")
	echo "block mode: $sleeps IO sleeps, $tied requests tied to them"
	[ "$tied" -ge 1 ] || fail "no request tied to the command's waits"
else
	echo "skip: no wake file (tracefs not available): $(grep -i wake "$TMPD/w.out" | head -1)"
fi
exit 0
