#!/usr/bin/env bash
# record.sh — tierfs -o trace=FILE records what it serves: fio's reads and
# writes through a real mount arrive in the trace with their offsets and
# sizes, the header carries the tier and the model options (the measured
# floor included) as fields, a fallocate its mode, nothing is dropped, the unmount reports it, and the
# trace replays (virtually) on the recorded tier.
. "${TS_SOURCE_ROOT:?}/tests/fs/lib.sh"
B=$TS_BUILD_ROOT/cli/tiersim
command -v fio >/dev/null || { echo "SKIP: fio is not installed"; exit 77; }

head -c $((1024 * 1024)) /dev/urandom > "$BACKING/data"
tfs_mount "tier=ssd-cloud,capacity=100GiB,seed=7,trace=$TMPD/run.trace"
fio --name=r --filename="$MNT/data" --rw=randread --bs=4k --io_size=256k --size=1m \
	--ioengine=psync --randseed=3 --write_iolog="$TMPD/fio.log" --output=/dev/null ||
	fail "fio through the mount failed"
fio --name=w --filename="$MNT/out" --rw=write --bs=64k --size=256k --ioengine=psync \
	--end_fsync=1 --output=/dev/null || fail "fio write through the mount failed"
# a punched hole: the trace keeps the fallocate's mode (aux), which replay
# needs to drop the hole from the model as tierfs did
fallocate --punch-hole --offset 65536 --length 65536 "$MNT/out" || fail "punching a hole failed"
tfs_umount
grep -q "trace $TMPD/run.trace written, no records dropped" "$LOG" ||
	fail "the unmount did not report the trace"
grep -v "trace $TMPD/run.trace written" "$LOG" > "$LOG.rest"; mv "$LOG.rest" "$LOG"
check_log

"$B" trace stats --json "$TMPD/run.trace" > "$TMPD/s.json" || fail "trace stats failed"
j() { python3 -c "import json,sys; v=json.load(open('$TMPD/s.json'))
for k in sys.argv[1].split('.'): v=v[int(k)] if isinstance(v,list) else v[k]
print(v)" "$1"; }
[ "$(j truncated)" = False ] || fail "trace has no trailer"
[ "$(j dropped)" = 0 ] || fail "records were dropped"
[ "$(j tier)" = ssd-cloud ] || fail "header tier is $(j tier)"
[ "$(j ops.read.count)" -ge 64 ] || fail "expected 64 reads, trace has $(j ops.read.count)"
[ "$(j ops.write.bytes)" -ge 262144 ] || fail "written bytes: $(j ops.write.bytes)"
[ "$(j ops.fsync.count)" -ge 1 ] || fail "no fsync recorded"
"$B" trace dump "$TMPD/run.trace" > "$TMPD/run.txt"
grep -q 'mount_opts="tier=ssd-cloud,capacity=107374182400,mem=0,seed=7,floor=[0-9]*ns' "$TMPD/run.txt" ||
	fail "header lacks the model options: $(grep ^header "$TMPD/run.txt")"
grep -q '^header version=12 .* model=2303 seed=7 floor_ns=[0-9]* dirty_limit=0 ra_max=0 mem_bps=0 ebs_iops=0 ebs_max_iops=0 ebs_bps=0 ebs_max_bps=0 ebs_burst_s=0$' \
	"$TMPD/run.txt" || fail "header lacks the model fields: $(grep ^header "$TMPD/run.txt")"
# fallocate's aux: FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE (3)
awk '$3=="fallocate" && $5==65536 && $6==65536 && $10==3 {n++} END {exit n != 1}' \
	"$TMPD/run.txt" || fail "the punched hole's mode is not in the trace: $(grep fallocate "$TMPD/run.txt")"
# every 4 KiB read fio issued is in the trace, at its offset, on /data
grep -E ' read [0-9]+ 4096$' "$TMPD/fio.log" | awk '{print $4}' | sort -n > "$TMPD/want"
id=$(awk '$1=="path" && $3=="\"/data\"" {print $2}' "$TMPD/run.txt")
awk -v id="$id" '$3=="read" && $4==id && $6==4096 {print $5}' "$TMPD/run.txt" | sort -n > "$TMPD/got"
cmp -s "$TMPD/want" "$TMPD/got" || fail "recorded read offsets differ from fio's"
# every read fio made carries its thread's CPU sample, and in submit order
# a thread's CPU clock, where it was read, never runs backwards (records are
# in completion order; flags=1: left unread, 0 in the file)
awk '$3=="read" {s=$1; want=$8; next} want!="" && $1=="cpu" && $2==want {
	n++; if ($NF != "flags=1") { split($5, a, "="); print s, want, a[2] } }
	{want=""} END {exit n < 64}' "$TMPD/run.txt" > "$TMPD/clocks" ||
	fail "reads without their CPU samples: $(grep -c '^cpu ' "$TMPD/run.txt") cpu lines"
sort -n "$TMPD/clocks" | awk '$3 < last[$2] {exit 1} {last[$2]=$3}' ||
	fail "a thread's CPU clock ran backwards between its reads"
"$B" replay "$TMPD/run.trace" --virtual --tier ssd-cloud --json > "$TMPD/v.json" ||
	fail "virtual replay failed"

# The clocks left unread obey traces/FORMAT.md's rule ("Samples left
# unread"), as tierfs measures gaps (1.024 us units, hence one unit of
# slack per gap, the trace's times being relative to its start): in each
# thread's submit order (every request with a sample, not only reads),
# a clock is left unread (flags=1) only after a reply
# of the thread's (never on its first request), with the gap since it
# within the limit (8 thresholds of two round trips, 2 floor_ns each),
# and the run of unread clocks since the thread's last read one within
# the budget (32 thresholds, at most 4095 units); a read clock marked
# flags=2 had a gap within the limit.
# No latency (unlimited), so the clock is read, or not, just before the
# reply; 1,024 back-to-back reads, enough to spend the budget when the
# gaps are short.
tfs_mount "tier=unlimited,trace=$TMPD/gaps.trace"
fio --name=g --filename="$MNT/data" --rw=randread --bs=4k --io_size=4m --size=1m \
	--ioengine=psync --direct=1 --randseed=5 --output=/dev/null || fail "fio through the mount failed"
tfs_umount
"$B" trace dump "$TMPD/gaps.trace" > "$TMPD/gaps.txt" || fail "trace dump failed"
floor=$(sed -n 's/^header .* floor_ns=\([0-9]*\) .*/\1/p' "$TMPD/gaps.txt")
[ "${floor:-0}" -gt 0 ] || fail "no floor_ns in the header"
awk '$1 ~ /^[0-9]+$/ {s=$1; c=$2; want=$8; next}
	want!="" && $1=="cpu" && $2==want { f = $NF ~ /^flags=/ ? substr($NF, 7) : 0; print s, c, want, f }
	{want=""}' "$TMPD/gaps.txt" | sort -n > "$TMPD/gaps.rows"
[ "$(wc -l < "$TMPD/gaps.rows")" -ge 1024 ] || fail "reads without their CPU samples in gaps.trace"
awk -v floor="$floor" 'BEGIN { thr = int(2 * floor / 1024); budget = 32 * thr; if (budget > 4095) budget = 4095
		lim = 8 * thr; if (lim > budget) lim = budget }
	{ s = $1; c = $2; t = $3; f = $4
	  g = (t in last) ? int(s / 1024) - int(last[t] / 1024) : -1
	  if (f == 1) {
		unread++
		if (!(t in last)) { bad = "unread on its thread'"'"'s first request: " $0; exit 1 }
		if (g < -1 || g > lim + 1) { bad = "unread after a gap of " g " units (limit " lim "): " $0; exit 1 }
		owed[t] += g; n[t]++
		if (owed[t] > budget + n[t]) { bad = "a run of " owed[t] " units unread (budget " budget "): " $0; exit 1 }
	  } else {
		if (f == 2 && (g < -1 || g > lim + 1)) { bad = "flags=2 after a gap of " g " units (limit " lim "): " $0; exit 1 }
		owed[t] = 0; n[t] = 0
	  }
	  last[t] = c > s ? c : s }
	END { if (bad != "") print bad; else printf "%d of %d clocks left unread\n", unread, NR }' "$TMPD/gaps.rows" > "$TMPD/gaps.out" ||
	fail "the unread clocks break the rule: $(tail -1 "$TMPD/gaps.out")"
echo "gaps.trace: $(cat "$TMPD/gaps.out")"

# A read clock is the thread's CPU time when its request arrived: a
# Python loader spins for a known CPU time (0 to 5 ms, so that some gaps
# pass the limit and some do not) before each of 200 O_DIRECT reads, and
# notes its own thread CPU clock just before and just after each read.
# Every read carries a sample of its own process, and every clock tierfs
# read (not flags=1) lies between those two notes: it was read while the
# thread was blocked in that request, from that thread. The round trip is
# set, not measured (calib=false, floor=50us), so the limit is 800 us of
# wall time: the 1.5 and 5 ms spins pass it on any machine (a gap is at
# least its spin), at least 57 of the 200 clocks are read, and a slow
# mount's larger round trip cannot raise the limit past them.
tfs_mount "tier=unlimited,calib=false,floor=50us,trace=$TMPD/clk.trace"
python3 - "$MNT/data" > "$TMPD/clk.notes" <<'PY' || fail "the clock loader failed"
import mmap, os, sys, threading, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
tid, pid = threading.get_native_id(), os.getpid()
for i in range(200):
    spin = (0, 0, 30, 150, 600, 1500, 5000)[i % 7] * 1000
    t = time.thread_time_ns()
    while time.thread_time_ns() - t < spin:
        pass
    a = time.thread_time_ns()
    if os.preadv(fd, [buf], (i * 4096) % (1024 * 1024)) != 4096:
        sys.exit("short read")
    b = time.thread_time_ns()
    print(tid, pid, (i * 4096) % (1024 * 1024), a, b)
PY
tfs_umount
"$B" trace dump "$TMPD/clk.trace" > "$TMPD/clk.txt" || fail "trace dump failed"
awk 'FNR == NR { a[$3] = $4; b[$3] = $5; pid = $2; tid = $1; next }
	$3 == "read" && $8 == tid { off = $5; next }
	off != "" && $1 == "cpu" && $2 == tid {
		n++; split($3, p, "="); split($5, o, "=")
		if (p[2] != pid) { bad = "pid " p[2] ", not " pid ": " $0; exit 1 }
		if ($NF != "flags=1") {
			read++
			if (o[2] < a[off] || o[2] > b[off]) {
				bad = "clock " o[2] " at offset " off " outside the loader'"'"'s " a[off] ".." b[off]; exit 1 }
		} }
	{ off = "" }
	END { if (bad != "") print bad; else if (n != 200 || read < 50) print n " reads with a sample, " read " clocks read"; else print read " of " n " clocks read" }' \
	"$TMPD/clk.notes" "$TMPD/clk.txt" > "$TMPD/clk.out"
grep -q '^[0-9]* of 200 clocks read$' "$TMPD/clk.out" || fail "CPU samples: $(cat "$TMPD/clk.out")"
echo "clk.trace: $(cat "$TMPD/clk.out")"

# Each requesting thread's /proc files are opened once for the mount, not
# once per FUSE worker that serves it: 8 threads read at once, every clock
# read (trace_cpu_every), and the daemon's opens are counted (strace).
if command -v strace >/dev/null; then
	# LeakSanitizer cannot run under ptrace: its check at exit is off here
	env --default-signal=INT ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=openat -o "$TMPD/open.strace" "$TIERFS" -f \
		-o "tier=unlimited,trace=$TMPD/open.trace,trace_cpu_every=true" "$BACKING" "$MNT" \
		2>>"$LOG" &
	DAEMON_PID=$!
	wait_ready "$MNT" "$DAEMON_PID"
	fio --name=r --filename="$MNT/data" --rw=randread --bs=4k --io_size=128k --size=1m \
		--ioengine=psync --direct=1 --numjobs=8 --thread --randseed=3 --output=/dev/null ||
		fail "fio through the mount failed"
	tfs_umount
	"$B" trace dump "$TMPD/open.trace" > "$TMPD/open.txt" || fail "trace dump failed"
	tids=$(awk '$3 == "read" { t[$8] = 1 } END { print length(t) }' "$TMPD/open.txt")
	grep -o '"/proc/[0-9]*/status"' "$TMPD/open.strace" | sort | uniq -c |
		awk -v tids="$tids" '{ n++; if ($1 > 1) bad = bad " " $2 " " $1 " times" }
			END { if (bad != "" || n < tids || tids < 8) { print n " threads opened for " tids " reading:" bad; exit 1 } }' \
		> "$TMPD/open.out" || fail "/proc files opened more than once per thread: $(cat "$TMPD/open.out")"
	cpus=$(grep -c '^cpu ' "$TMPD/open.txt")
	[ "$cpus" -ge 256 ] || fail "open.trace: $cpus CPU samples for 256 reads"
else
	echo "strace is not installed: the count of /proc opens per thread is not checked"
fi

# trace_cpu=false: the same reads, recorded without CPU samples
tfs_mount "tier=ssd-cloud,capacity=100GiB,seed=7,trace=$TMPD/nocpu.trace,trace_cpu=false"
fio --name=r --filename="$MNT/data" --rw=randread --bs=4k --io_size=256k --size=1m \
	--ioengine=psync --randseed=3 --output=/dev/null || fail "fio through the mount failed"
tfs_umount
"$B" trace dump "$TMPD/nocpu.trace" > "$TMPD/nocpu.txt" || fail "trace dump failed"
awk '$3=="read" && $6==4096 {print $5}' "$TMPD/nocpu.txt" | sort -n > "$TMPD/got2"
cmp -s "$TMPD/want" "$TMPD/got2" || fail "trace_cpu=false: read offsets differ from fio's"
! grep -q '^cpu ' "$TMPD/nocpu.txt" || fail "trace_cpu=false: the trace has CPU samples"

# an instance's EBS limits (ebs_*) are in the header as fields, in the
# model's units (bytes/s, seconds), and a replay on the tier runs under them
tfs_mount "tier=aws-gp3,ebs_iops=2000,ebs_max_iops=11800,ebs_mbps=43.43,ebs_max_mbps=260.57,ebs_burst=30min,trace=$TMPD/ebs.trace"
fio --name=r --filename="$MNT/data" --rw=randread --bs=4k --io_size=64k --size=1m \
	--ioengine=psync --randseed=3 --output=/dev/null || fail "fio through the mount failed"
tfs_umount
"$B" trace dump "$TMPD/ebs.trace" > "$TMPD/ebs.txt" || fail "trace dump failed"
grep -q '^header version=12 .* model=2303 .* ebs_iops=2000 ebs_max_iops=11800 ebs_bps=43430000 ebs_max_bps=260570000 ebs_burst_s=1800$' \
	"$TMPD/ebs.txt" || fail "header lacks the EBS limits: $(grep ^header "$TMPD/ebs.txt")"
"$B" replay "$TMPD/ebs.trace" --virtual --tier aws-gp3 > "$TMPD/ebs.out" || fail "replay failed"
grep -q "EBS limits (the recording's) on the aws-\* tiers: 2000 IOPS, 43.43 MB/s" "$TMPD/ebs.out" ||
	fail "the replay did not take the recorded EBS limits: $(head -3 "$TMPD/ebs.out")"
exit 0
