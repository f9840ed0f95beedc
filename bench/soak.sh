#!/usr/bin/env bash
# soak.sh BUILD_DIR [SECONDS] — many clients on one tierfs mount for a
# bounded time while the tier is switched, fault rules are set and cleared
# and a small page-cache model is under pressure; then a daemon killed with
# kill -9 in the middle of writes. Default 600 s; to try it:
#   IMAGES=200 bench/soak.sh build 60
#
# Clients, all at once on one mount (tier=unlimited at first, mem=$MEM):
#   fio       rounds of 2 jobs x 32 MiB random writes (4-64 KiB, io_uring,
#             O_DIRECT, QD 8) read back with crc32c verify, verify_fatal
#   loader    the loader (bench/pipeline_reader loader, decode=none) over a
#             JPEG tree from 'tiersim dataset make imagenet-jpeg', again and
#             again; every pass must deliver every image
#   lmdb-w    mdb_load of a reference dump into a new environment, then
#             mdb_dump of it compared with the reference, round after round
#   lmdb-r    mdb_dump of one environment loaded at the start, compared with
#             the reference, again and again
#   churn     create/rename/link/unlink/read-back (bench/soak_client churn)
#   probe     4 KiB reads and writes of the only files the fault rules name
#             (soak_client probe): every failure must be the rule's errno
# Every $STEP s the control file gets the next tier (unlimited, nvme-local,
# ssd-cloud, aws-gp3) and, every other step, fault rules for the probe's
# files (read:EIO and write:ENOSPC, each with probability 0.5) or
# fault=clear. The daemon's VmRSS, threads and open descriptors are sampled
# every 5 s.
#
# Passes when: no fio verify failure, no LMDB dump differing or failing, no
# loader pass short of images or reporting errors, no churn error, every
# probe failure the rule's errno and as many as the daemon says it injected,
# RSS at the end within $RSS_SLACK % of its level after warm-up (the first
# fifth of the run, at least a minute), no more threads or descriptors at
# the end than after warm-up, as many descriptors on files held by the idle
# daemon after the clients as before them, a clean unmount (exit 0, no error line in the daemon's log);
# then, after kill -9 during writes, every file the durable client had
# fsync'd or closed is in BACKING with its bytes.
#
# Environment: MEM (default 32MiB), STEP (4), IMAGES (2000), RSS_SLACK (10).
set -u

[ $# -ge 1 ] || { echo "usage: bench/soak.sh BUILD_DIR [SECONDS]" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "soak: no build directory '$1'" >&2; exit 1; }
SECS=${2:-600}
SRC=$(cd "$(dirname "$0")/.." && pwd)
export TIERSIM_DATADIR=${TIERSIM_DATADIR:-$SRC}
TIERFS=$BUILD/fs/tierfs
TIERSIM=$BUILD/cli/tiersim
CLIENT=$BUILD/bench/soak_client
READER=$BUILD/bench/pipeline_reader
MEM=${MEM:-32MiB}
STEP=${STEP:-4}
IMAGES=${IMAGES:-2000}
RSS_SLACK=${RSS_SLACK:-10}
for x in "$TIERFS" "$TIERSIM" "$CLIENT" "$READER"; do
	[ -x "$x" ] || { echo "soak: $x is not built (ninja -C $BUILD)" >&2; exit 1; }
done
for x in fio mdb_load mdb_dump; do
	command -v $x >/dev/null || { echo "soak: $x is not installed (fio, lmdb-utils)" >&2; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tierfs-soak.XXXXXX")
BACKING=$WORK/backing
MNT=$WORK/mnt
OUT=$WORK/out
LOG=$WORK/tierfs.log
mkdir -p "$BACKING" "$MNT" "$OUT"
PID=
cleanup() {
	kill $(jobs -p) 2>/dev/null
	if awk -v m="$MNT" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT"
	fi
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
FAILED=0
fail() { echo "soak: FAIL: $*"; FAILED=1; }
now() { date +%s.%N; }

mount_it() { # OPTIONS
	env --default-signal=INT "$TIERFS" -f -o "$1" "$BACKING" "$MNT" 2>>"$LOG" &
	PID=$!
	for _ in $(seq 400); do
		grep -q '"calibrated": true' "$MNT/.tierfs/stats" 2>/dev/null && return 0
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "soak: the mount did not come up: $(cat "$LOG")" >&2
	exit 1
}
stat_get() { # DOTTED.PATH
	/usr/bin/python3 - "$1" "$MNT/.tierfs/stats" <<'EOF'
import json, sys
v = json.load(open(sys.argv[2]))
for k in sys.argv[1].split('.'):
    v = v[k]
print(v)
EOF
}
# -> "rss_kib threads fds files": files are the descriptors on files and
# directories (the rest are /dev/fuse, and libfuse's splice pipe pair of
# each worker thread, which lives as long as the thread).
sample() {
	local rss thr fds files
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$PID/status")
	thr=$(awk '/^Threads:/ { print $2 }' "/proc/$PID/status")
	fds=$(ls "/proc/$PID/fd" | wc -l)
	files=$(find "/proc/$PID/fd" -mindepth 1 -printf '%l\n' 2>/dev/null | grep -c '^/')
	echo "$rss $thr $fds $files"
}

echo "soak: preparing (a $IMAGES-image JPEG tree, an LMDB reference dump)"
"$TIERSIM" dataset make imagenet-jpeg --count "$IMAGES" --out "$BACKING/jpeg" --quiet ||
	{ echo "soak: tiersim dataset make failed" >&2; exit 1; }
mkdir -p "$BACKING/fio" "$BACKING/lmdb" "$BACKING/churn" "$BACKING/fprobe" "$BACKING/durable"
for i in $(seq 0 7); do head -c 4096 /dev/zero >"$BACKING/fprobe/p$i"; done
# 40000 records of 600 bytes (~30 MiB of database): bigger than the
# page-cache model, so its evictions invalidate LMDB's mapped pages.
/usr/bin/python3 - "$WORK/plain.txt" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("VERSION=3\nformat=print\ntype=btree\nmapsize=268435456\nHEADER=END\n")
    for i in range(40000):
        f.write(" key%08d\n %s\n" % (i, ("v%08d" % i) * 66))
    f.write("DATA=END\n")
EOF
mkdir -p "$WORK/refdb"
mdb_load -f "$WORK/plain.txt" "$WORK/refdb" && mdb_dump "$WORK/refdb" >"$WORK/ref.dump" ||
	{ echo "soak: cannot make the LMDB reference" >&2; exit 1; }

mount_it "tier=unlimited,mem=$MEM"
# (lmdb-utils' mdb_load warns about mdb_dump's own db_pagesize line.)
mkdir -p "$MNT/lmdb/ro" && mdb_load -f "$WORK/ref.dump" "$MNT/lmdb/ro" 2>/dev/null ||
	{ echo "soak: mdb_load through the mount failed" >&2; exit 1; }

quiet0=$(sample)
T0=$(now)
END=$(echo "$T0 + $SECS" | bc)
left() { echo "$END - $(now)" | bc; }
alive() { [ "$(echo "$(now) < $END" | bc)" = 1 ]; }

fio_loop() {
	local r=0 bytes=0 bad=0 b
	while alive; do
		rm -f "$MNT"/fio/*
		if fio --name=v --directory="$MNT/fio" --size=32M --numjobs=2 --rw=randwrite \
			--bsrange=4k-64k --ioengine=io_uring --iodepth=8 --direct=1 --verify=crc32c \
			--do_verify=1 --verify_fatal=1 --verify_state_save=0 --output-format=json --output="$OUT/fio.json" \
			>/dev/null 2>"$OUT/fio.err"; then
			b=$(/usr/bin/python3 -c 'import json,sys; print(sum(j["read"]["io_bytes"] for j in json.load(open(sys.argv[1]))["jobs"]))' "$OUT/fio.json")
			bytes=$((bytes + b))
		else
			bad=$((bad + 1))
			sed 's/^/  fio: /' "$OUT/fio.err" | head -5
		fi
		r=$((r + 1))
	done
	echo "fio rounds=$r verified_bytes=$bytes failed_rounds=$bad"
}
loader_loop() {
	local r=0 samples=0 bytes=0 bad=0 out s b
	while alive; do
		out=$("$READER" loader "$MNT/jpeg/train" 32 2>"$OUT/loader.err")
		read -r s b _ <<<"$out"
		if [ "${s:-0}" != "$IMAGES" ] || ! grep -q '^loader: 0 errors' "$OUT/loader.err"; then
			bad=$((bad + 1))
			echo "  loader: '$out' $(head -2 "$OUT/loader.err")"
		fi
		samples=$((samples + ${s:-0}))
		bytes=$((bytes + ${b:-0}))
		r=$((r + 1))
	done
	echo "loader passes=$r samples=$samples bytes=$bytes bad_passes=$bad"
}
lmdb_writer() {
	local r=0 bad=0 d
	while alive; do
		d=$MNT/lmdb/w$r
		mkdir -p "$d"
		if ! mdb_load -f "$WORK/ref.dump" "$d" 2>"$OUT/lmdbw.err" ||
			! mdb_dump "$d" 2>>"$OUT/lmdbw.err" | cmp -s - "$WORK/ref.dump"; then
			bad=$((bad + 1))
			echo "  lmdb-w round $r: $(head -1 "$OUT/lmdbw.err")"
		fi
		[ $r -ge 2 ] && rm -rf "$MNT/lmdb/w$((r - 2))"
		r=$((r + 1))
	done
	echo "lmdb-w rounds=$r records=$((r * 40000)) errors=$bad"
}
lmdb_reader() {
	local r=0 bad=0
	while alive; do
		if ! mdb_dump "$MNT/lmdb/ro" 2>"$OUT/lmdbr.err" | cmp -s - "$WORK/ref.dump"; then
			bad=$((bad + 1))
			echo "  lmdb-r round $r: $(head -1 "$OUT/lmdbr.err")"
		fi
		r=$((r + 1))
	done
	echo "lmdb-r rounds=$r records=$((r * 40000)) errors=$bad"
}

echo "soak: $SECS s, mem=$MEM, tier and faults changed every $STEP s"
clients=()
fio_loop >"$OUT/fio.txt" & clients+=($!)
loader_loop >"$OUT/loader.txt" & clients+=($!)
lmdb_writer >"$OUT/lmdbw.txt" & clients+=($!)
lmdb_reader >"$OUT/lmdbr.txt" & clients+=($!)
"$CLIENT" churn "$MNT/churn" "$SECS" >"$OUT/churn.txt" 2>&1 & clients+=($!)
"$CLIENT" probe "$MNT/fprobe" "$SECS" >"$OUT/probe.txt" 2>&1 & clients+=($!)

tiers=(unlimited nvme-local ssd-cloud aws-gp3)
step=0 switches=0 fault_sets=0 ctl_errors=0
# Warm-up: a fifth of the run, at least a minute (half of a short run);
# the worker pool grows to the run's peak concurrency by then.
w=$((SECS / 5 > 60 ? SECS / 5 : (SECS / 2 < 60 ? SECS / 2 : 60)))
WARM=$(echo "$T0 + $w" | bc)
warm=
last_sample=0
: >"$OUT/samples"
while alive; do
	sleep "$STEP"
	step=$((step + 1))
	t=${tiers[$((step % ${#tiers[@]}))]}
	if echo "tier=$t" >"$MNT/.tierfs/control"; then switches=$((switches + 1)); else ctl_errors=$((ctl_errors + 1)); fi
	if [ $((step % 2)) = 1 ]; then
		cmd='fault=read:EIO:0.5:path=*/fprobe/*;write:ENOSPC:0.5:path=*/fprobe/*'
		fault_sets=$((fault_sets + 1))
	else
		cmd=fault=clear
	fi
	echo "$cmd" >"$MNT/.tierfs/control" || ctl_errors=$((ctl_errors + 1))
	el=$(echo "$(now) - $T0" | bc)
	if [ "$(echo "$el - $last_sample >= 5" | bc)" = 1 ]; then
		echo "$el $(sample)" >>"$OUT/samples"
		last_sample=$el
		if [ -z "$warm" ] && [ "$(echo "$(now) >= $WARM" | bc)" = 1 ]; then
			warm=$(sample)
			warm_t=$el
		fi
	fi
done
end_sample=$(sample)
echo "fault=clear" >"$MNT/.tierfs/control"
wait "${clients[@]}"
injected=$(stat_get model.faults.injected)
sleep 1
quiet1=$(sample)
echo "soak: clients done after $(echo "$(now) - $T0" | bc | cut -d. -f1) s"

for f in fio loader lmdbw lmdbr churn probe; do sed 's/^/  /' "$OUT/$f.txt"; done
echo "  control: $switches tier switches, $fault_sets fault-rule sets, $ctl_errors rejected commands"
read -r rss0 thr0 fd0 _ <<<"${warm:-$end_sample}"
read -r rss1 thr1 fd1 _ <<<"$end_sample"
echo "  daemon after warm-up (${warm_t%.*} s): VmRSS ${rss0} KiB, $thr0 threads, $fd0 fds"
echo "  daemon at the end:          VmRSS ${rss1} KiB, $thr1 threads, $fd1 fds"
read -r _ _ _ qfd0 <<<"$quiet0"
read -r _ _ _ qfd1 <<<"$quiet1"
echo "  daemon idle before / after the clients: $quiet0 / $quiet1 (VmRSS KiB, threads, fds, of them on files)"
echo "  (samples every 5 s: elapsed rss_kib threads fds files in $OUT/samples: min/max RSS $(awk '{print $2}' "$OUT/samples" | sort -n | sed -n '1p;$p' | paste -sd/))"

grep -q 'failed_rounds=0$' "$OUT/fio.txt" || fail "fio verify"
grep -q 'bad_passes=0$' "$OUT/loader.txt" || fail "loader passes"
grep -q 'errors=0$' "$OUT/lmdbw.txt" || fail "LMDB writer"
grep -q 'errors=0$' "$OUT/lmdbr.txt" || fail "LMDB reader"
grep -q 'errors=0 mismatches=0$' "$OUT/churn.txt" || fail "churn"
grep -q 'unexpected=0$' "$OUT/probe.txt" || fail "probe saw an errno no rule injects"
seen=$(awk '/^probe/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "read_eio" || kv[1] == "write_enospc") s += kv[2] } } END { print s + 0 }' "$OUT/probe.txt")
echo "  faults: $injected injected by the daemon, $seen reported to the probe"
[ "$seen" = "$injected" ] || fail "the probe saw $seen faults, the daemon injected $injected"
[ "$seen" -gt 0 ] || fail "no fault was injected"
[ "$ctl_errors" = 0 ] || fail "$ctl_errors control commands were rejected"
[ "$rss1" -le $((rss0 + rss0 * RSS_SLACK / 100)) ] || fail "RSS grew from $rss0 to $rss1 KiB after warm-up"
[ "$thr1" -le "$thr0" ] || fail "threads grew from $thr0 to $thr1 after warm-up"
[ "$fd1" -le "$fd0" ] || fail "descriptors grew from $fd0 to $fd1 after warm-up"
[ "$qfd1" = "$qfd0" ] || fail "the idle daemon held $qfd0 descriptors on files before the clients, $qfd1 after"

fusermount3 -u "$MNT" || fail "fusermount3 -u"
wait "$PID"
rc=$?
PID=
[ "$rc" = 0 ] || fail "the daemon exited $rc at unmount"
bad=$(grep -Ev '^tierfs: (FUSE round trip .*|.* mounted on .*|.* unmounted|tier switched to .*|fault rules: .*|fault rules cleared|warning: .* is below the FUSE round trip .*)$' "$LOG")
[ -z "$bad" ] || fail "daemon log: $bad"
echo "  clean unmount: daemon exit $rc"

# kill -9 while the durable client and fio write.
mount_it "tier=ssd-cloud,mem=$MEM"
"$CLIENT" durable "$MNT/durable" "$WORK/manifest" 60 >"$OUT/durable.txt" 2>&1 &
dpid=$!
fio --name=k --directory="$MNT/fio" --size=32M --numjobs=2 --rw=randwrite --bs=64k \
	--ioengine=io_uring --iodepth=8 --direct=1 --time_based --runtime=60 >/dev/null 2>&1 &
fpid=$!
sleep 5
{
	kill -9 "$PID"
	wait "$PID"
} 2>/dev/null
PID=
wait "$dpid" "$fpid"
fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT"
sed 's/^/  /' "$OUT/durable.txt"
"$CLIENT" check "$BACKING/durable" "$WORK/manifest" >"$OUT/check.txt" 2>&1 || fail "data lost after kill -9"
echo "  after kill -9: $(cat "$OUT/check.txt")"

if [ "$FAILED" = 0 ]; then echo "soak: PASS"; else echo "soak: FAILED"; fi
exit "$FAILED"
