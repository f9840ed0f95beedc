#!/bin/sh
# wakes.sh — the wake rule, exactly, in virtual time, and the wake file
# `tiersim record` writes.
#
# A worker (thread 20) reads three blocks back to back, 100us each as
# recorded (IO-bound); a consumer (thread 10, no IO of its own) is woken by
# the worker just after each read (at 101, 201 and 301us), steps 30us and
# sleeps again; it ends at 340us. The consumer is only in the wake file.
# Replayed on a tier whose reads take 60us, the consumer follows the
# worker's replayed reads: woken at 61, 121 and 181us, it ends at 220us.
# On a tier without latency the worker no longer holds it back: each step
# follows the last (1, 31, 61us) and it ends at 100us, the consumer's own
# pace. Without the wake file the consumer is not in the replay at all.
. "${TS_SOURCE_ROOT:?}/tests/traces/lib.sh"

reads_trace c 20 20:10 0-100000 100000-200000 200000-300000
wakes_file c <<'X'
span 1000000 1340000
T 10 10 0 1000000 1340000 0 0 consumer
T 20 20 10 1000000 1300000 0 0 worker
W 1101000 1000000 10 20
W 1201000 1131000 10 20
W 1301000 1231000 10 20
X
fixed_tiers "$T/fixed.lua"
"$B" replay "$T/c.trace" --virtual --tier fixed100 --tier fixed60 --tier unlimited \
	--profile "$T/fixed.lua" --json > "$T/w.json" 2> "$T/w.err"
check "wake: no notice" test ! -s "$T/w.err"
check "wake: recorded to the consumer's end" test "$(j "$T/w.json" '.results[0].total_ns')" = 340000
check "wake: recorded ops are the reads" test "$(j "$T/w.json" '.results[0].ops')" = 3
check "wake: recorded waiting" test "$(j "$T/w.json" '.results[0].waited_ns')" = 241000
check "wake: same tier, same run" test "$(j "$T/w.json" '.results[1].total_ns')" = 340000
check "wake: 60us reads" test "$(j "$T/w.json" '.results[2].total_ns')" = 220000
check "wake: no latency, the consumer's pace" test "$(j "$T/w.json" '.results[3].total_ns')" = 100000
check "wake: ops are the reads" test "$(j "$T/w.json" '.results[3].ops')" = 3
"$B" replay "$T/c.trace" --virtual --tier unlimited --no-wakes --json > "$T/n.json"
check "no wakes: the reads alone" test "$(j "$T/n.json" '.results[1].total_ns')" = 0
check "no wakes: recorded span" test "$(j "$T/n.json" '.results[0].total_ns')" = 300000
"$B" replay "$T/c.trace" --virtual --tier unlimited --closed-loop --json > "$T/cl.json"
check "closed loop ignores the wake file" test "$(j "$T/cl.json" '.results[0].total_ns')" = 300000
"$B" replay "$T/c.trace" --virtual --tier unlimited > "$T/t.out"
check "table names the wake rule" grep -q "the wake rule" "$T/t.out"

# Requests outside the command's span are not the command's: block mode's
# mount reads the file system before the command starts (here at 0-50us,
# the command starting at 200us) and its unmount writes after the last
# thread ended (here at 700us). The same trace as above, shifted by 200us,
# with those two around it, and a getattr of a process outside the command
# (block mode's tools look at the image): they are left out, and the spans
# match.
mktrace o <<'X'
header version=2 start_mono_ns=1000000
path 1 "/f"
0 50000 read 1 65536 4096 4096 33 12288 0 0
cpu 33 pid=33 ppid=2 on_ns=1000 runq_ns=0
200000 300000 read 1 0 4096 4096 20 12288 0 0
cpu 20 pid=20 ppid=10 on_ns=1000 runq_ns=0
300000 400000 read 1 4096 4096 4096 20 12288 0 0
cpu 20 pid=20 ppid=10 on_ns=2000 runq_ns=0
400000 500000 read 1 8192 4096 4096 20 12288 0 0
cpu 20 pid=20 ppid=10 on_ns=3000 runq_ns=0
520000 530000 getattr 1 0 0 0 44 12288 0 4
cpu 44 pid=44 ppid=9 on_ns=1000 runq_ns=0
700000 710000 write 1 65536 4096 4096 33 12288 0 0
cpu 33 pid=33 ppid=2 on_ns=2000 runq_ns=0
end drops=0 records=6 t=710000
X
cat > "$T/o.trace.wakes" <<'X'
tiersim-wakes 1
span 1200000 1540000
T 10 10 0 1200000 1540000 0 0 consumer
T 20 20 10 1200000 1500000 0 0 worker
W 1301000 1200000 10 20
W 1401000 1331000 10 20
W 1501000 1431000 10 20
X
"$B" replay "$T/o.trace" --virtual --tier fixed100 --tier fixed60 --profile "$T/fixed.lua" \
	--json > "$T/o.json"
check "span: recorded from the command's start" test "$(j "$T/o.json" '.results[0].total_ns')" = 340000
check "span: the mount's requests left out" test "$(j "$T/o.json" '.results[0].ops')" = 3
check "span: 60us reads as without them" test "$(j "$T/o.json" '.results[2].total_ns')" = 220000
check "span: the three counted" test "$(j "$T/o.json" '[.results[].outside] | unique | join(",")')" = 3
"$B" replay "$T/o.trace" --virtual --tier fixed60 --profile "$T/fixed.lua" > "$T/o.out"
check "span: the table says so" grep -q "^left out (not the command's) *3 *3" "$T/o.out"

# Block mode: every request the kernel's (the loop device's worker, its
# parent kthreadd), none the command's. The mount's read before the command
# and the unmount's write after it are left out; the wake records are not
# added (nothing ties the command's waits to the device), so the stream
# rule alone paces the two reads the command caused: 100us recorded, on
# fixed60 60us (the second read issues 5us after the first's completion).
mktrace k <<'X'
header version=2 start_mono_ns=1000000
path 1 "/data.ext4"
0 50000 read 1 65536 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=1000 runq_ns=0
200000 240000 read 1 0 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=2000 runq_ns=0
245000 300000 read 1 1048576 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=3000 runq_ns=0
700000 710000 write 1 65536 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=4000 runq_ns=0
end drops=0 records=4 t=710000
X
cat > "$T/k.trace.wakes" <<'X'
tiersim-wakes 1
span 1200000 1400000
T 10 10 0 1200000 1400000 0 0 reader
X
"$B" replay "$T/k.trace" --virtual --tier fixed60 --profile "$T/fixed.lua" --json > "$T/k.json"
check "block: the command's two reads" test "$(j "$T/k.json" '.results[0].ops')" = 2
check "block: two left out" test "$(j "$T/k.json" '[.results[].outside] | unique | join(",")')" = 2
check "block: recorded span" test "$(j "$T/k.json" '.results[0].total_ns')" = 100000
check "block: the stream on fixed60" test "$(j "$T/k.json" '.results[1].total_ns')" = 125000

# Block mode with the command's IO sleeps (S lines: asleep in state D, woken
# from outside the command). A loader's worker (20) and its consumer (10),
# both from 200us; the loop device's worker (33) sends every request,
# recorded on a 100us tier:
#   - the worker sleeps in D from 205us; request 1 is issued at 210us and
#     completes at 310us; the worker is woken at 315us: request 1, issued
#     since the worker last woke, is its own demand read and moves to its
#     op list;
#   - it hands the batch over (wakes the consumer at 320us) and waits; the
#     consumer steps 100us and wakes it at 420us;
#   - a readahead, request 3, issued at 415us (before the worker woke), is
#     in flight when the worker needs it: it sleeps from 425us until 5us
#     after its completion (515us). Request 3 stays in the stream (105us
#     after request 1's completion); the worker waits for it;
#   - the worker wakes the consumer at 540us and ends at 541us; the consumer
#     steps 100us and ends at 640us.
# On fixed60: request 1 210-270us, the consumer at 280-380us, request 3
# 375-435us, the worker woken at 440us, the consumer at 460us, done at
# 560us: 360us from the command's start. On a tier without latency the
# consumer's steps set the pace: 245us. The stream rule alone (no S lines,
# the case above) would replay the two requests only (305us recorded,
# 225us on fixed60), the consumer's steps nowhere in it.
mktrace d <<'X'
header version=2 start_mono_ns=1000000
path 1 "/data.ext4"
0 50000 read 1 65536 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=1000 runq_ns=0
210000 310000 read 1 0 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=2000 runq_ns=0
415000 515000 read 1 8192 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=3000 runq_ns=0
900000 910000 write 1 65536 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=4000 runq_ns=0
end drops=0 records=4 t=910000
X
cat > "$T/d.trace.wakes" <<'X'
tiersim-wakes 1
span 1200000 1640000
T 10 10 0 1200000 1640000 0 0 consumer
T 20 20 10 1200000 1541000 0 0 worker
W 1320000 1200000 10 20
W 1420000 1321000 20 10
W 1540000 1421000 10 20
S 1315000 1205000 20 0
S 1520000 1425000 20 0
X
"$B" replay "$T/d.trace" --virtual --tier fixed100 --tier fixed60 --tier unlimited \
	--profile "$T/fixed.lua" --json > "$T/d.json"
check "block waits: recorded from the command's start" test "$(j "$T/d.json" '.results[0].total_ns')" = 440000
check "block waits: same tier, same run" test "$(j "$T/d.json" '.results[1].total_ns')" = 440000
check "block waits: 60us reads" test "$(j "$T/d.json" '.results[2].total_ns')" = 360000
check "block waits: no latency, the consumer's pace" test "$(j "$T/d.json" '.results[3].total_ns')" = 245000
check "block waits: the two reads" test "$(j "$T/d.json" '[.results[].ops] | unique | join(",")')" = 2
check "block waits: both tied" test "$(j "$T/d.json" '[.results[].tied] | unique | join(",")')" = 2
check "block waits: 10us before the first request" test "$(j "$T/d.json" '[.results[].lead_ns] | unique | join(",")')" = 10000
"$B" replay "$T/d.trace" --virtual --tier fixed60 --profile "$T/fixed.lua" > "$T/d.out"
check "block waits: the table says so" grep -q "^tied to its waits *2 *2" "$T/d.out"
# without its sleeps: the stream rule alone, as above
grep -v '^S ' "$T/d.trace.wakes" > "$T/d.nos.wakes"
"$B" replay "$T/d.trace" --virtual --tier fixed60 --profile "$T/fixed.lua" \
	--wakes "$T/d.nos.wakes" --json > "$T/dn.json"
check "block waits: without them, the stream" test "$(j "$T/dn.json" '.results[0].total_ns'),$(j "$T/dn.json" '.results[1].total_ns')" = 305000,225000
# Two threads waiting at once: a (20) reads request 0 (202-250us) and
# then request 1 (256-350us); b (21) request 2 (257-351us); a is woken at
# 353us, after request 2's completion, b at 354us. The latest completion in
# a's sleep is b's request: a takes it (both were issued since a last woke),
# and b, finding it taken, takes the latest of the others issued since it
# last woke, request 1, not a wait on a's. So b's time follows its own
# request, not a's chain: on fixed60 b ends at 416us (its read 256-316us,
# then its 100us), where a wait on request 2 (issued after a's first read,
# 269-329us) would end it at 428us.
mktrace two <<'X'
header version=2 start_mono_ns=1000000
path 1 "/data.ext4"
202000 250000 read 1 0 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=1000 runq_ns=0
256000 350000 read 1 8192 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=2000 runq_ns=0
257000 351000 read 1 16384 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=3000 runq_ns=0
end drops=0 records=3 t=351000
X
cat > "$T/two.trace.wakes" <<'X'
tiersim-wakes 1
span 1200000 1450000
T 20 20 0 1200000 1400000 0 0 a
T 21 21 20 1200000 1450000 0 0 b
S 1251000 1201000 20 0
S 1353000 1255000 20 0
S 1354000 1256000 21 0
X
"$B" replay "$T/two.trace" --virtual --tier fixed60 --tier unlimited --profile "$T/fixed.lua" \
	--json > "$T/two.json"
check "two waiting: recorded" test "$(j "$T/two.json" '.results[0].total_ns')" = 250000
check "two waiting: each its own request on fixed60" test "$(j "$T/two.json" '.results[1].total_ns')" = 216000
check "two waiting: no latency" test "$(j "$T/two.json" '.results[2].total_ns')" = 156000

# The wake-up rule: the gap after a request the command slept in changes
# by --wake-cost times ln((t' + rt) / (t + rt)), t and t' the request's
# recorded and replayed time at tierfs, rt the recording's round trip
# (20us here, also taken off each modeled latency). A reader (10) sleeps in
# the two reads the loop worker sends (both move to it), 100us each as
# recorded, each followed by a gap (100us, then 90us to its end). fixed300
# serves them in 280us: each gap grows by 34us * ln(300/120) = 31154ns,
# 822308ns from the command's start against 760000 with the gaps as
# recorded; fixed60 in 40us: each shrinks by 34us * ln(120/60) = 23567ns,
# 232866 against 280000; --wake-cost 10us on fixed300: 9163ns each.
mktrace u <<'X'
header version=3 start_mono_ns=1000000 model=8 floor_ns=20000
path 1 "/data.ext4"
210000 310000 read 1 0 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=1000 runq_ns=0
410000 510000 read 1 8192 4096 4096 33 4194304 0 0
cpu 33 pid=33 ppid=2 on_ns=2000 runq_ns=0
end drops=0 records=2 t=510000
X
cat > "$T/u.trace.wakes" <<'X'
tiersim-wakes 1
span 1200000 1600000
T 10 10 0 1200000 1600000 0 0 reader
S 1315000 1205000 10 0
S 1515000 1405000 10 0
X
cp "$T/fixed.lua" "$T/u.lua"
echo 'tier "fixed300" { desc = "test", source = "test", latency = { read = { fixed = "300us" } } }' \
	>> "$T/u.lua"
up() { "$B" replay "$T/u.trace" --virtual --tier fixed300 --tier fixed60 --profile "$T/u.lua" --json "$@"; }
up > "$T/u.json"
check "wake-up: both reads moved" test "$(j "$T/u.json" '.results[1].tied')" = 2
check "wake-up: recorded" test "$(j "$T/u.json" '.results[0].total_ns')" = 400000
check "wake-up: a slower tier, longer gaps" test "$(j "$T/u.json" '.results[1].total_ns')" = 822308
check "wake-up: a faster tier, shorter gaps" test "$(j "$T/u.json" '.results[2].total_ns')" = 232866
up --wake-cost 0 > "$T/u0.json"
check "wake-up: off, the gaps as recorded" test "$(j "$T/u0.json" '[.results[1,2].total_ns] | join(",")')" = 760000,280000
up --wake-cost 10us > "$T/u10.json"
check "wake-up: 10us an e-fold" test "$(j "$T/u10.json" '.results[1].total_ns')" = 778326
sed 's/ model=8 floor_ns=20000//' "$T/u.txt" > "$T/un.txt"
"$B" trace undump "$T/un.txt" -o "$T/un.trace"
cp "$T/u.trace.wakes" "$T/un.trace.wakes"
"$B" replay "$T/un.trace" --virtual --tier fixed300 --profile "$T/u.lua" --json > "$T/un.json"
check "wake-up: no round trip recorded, off" test "$(j "$T/un.json" '.results[1].total_ns')" = 800000
# The cost is the recording host's profile's (replay_wake_cost_ns): a host
# file of this machine's that measured 10us gives the --wake-cost 10us
# figure; a host without one, or none, is refused in one line, as is a cost
# above 10ms (a bare 34 is 34 s) and a cost or host where no wake file is
# read (no rule to apply).
cat > "$T/host.lua" <<'X'
host "this-machine" { cpu = "test",
  dlio_sample_ns = { 1, "measured", "test" },
  replay_wake_cost_ns = { 10000, "measured", "test" } }
X
TIERSIM_HOST_FILE="$T/host.lua" up --host this-machine > "$T/uh.json"
check "wake-up: the host's cost" test "$(j "$T/uh.json" '.results[1].total_ns')" = 778326
refused() { # refused WHAT PATTERN ARGS...: exit 2 and one line matching PATTERN
	w=$1 p=$2
	shift 2
	"$B" replay "$T/u.trace" --tier fixed300 --profile "$T/u.lua" "$@" > /dev/null 2> "$T/r.err"
	rc=$?
	check "$w: exit 2 (was $rc)" test "$rc" = 2
	check "$w: one line" test "$(wc -l < "$T/r.err")" = 1
	check "$w: says so" grep -q -- "$p" "$T/r.err"
}
refused "wake cost 34 (s)" "--wake-cost 34: at most 10ms" --virtual --wake-cost 34
refused "wake cost 11ms" "--wake-cost 11ms: at most 10ms" --virtual --wake-cost 11ms
refused "wake cost not a duration" "--wake-cost fast: expected a duration" --virtual --wake-cost fast
refused "wake cost with --no-wakes" "--wake-cost 10us: .*not with --no-wakes" --virtual \
	--no-wakes --wake-cost 10us
refused "wake cost with --closed-loop" "--wake-cost 10us: .*not with --closed-loop" --virtual \
	--closed-loop --wake-cost 10us
refused "wake cost with --target" "--wake-cost 10us: .*not with --target" --target "$T" \
	--wake-cost 10us
refused "host with --no-wakes" "--host build-host: .*not with --no-wakes" --virtual \
	--no-wakes --host build-host
refused "host without a cost" "host 'epyc-zen5' has no replay_wake_cost_ns" --virtual \
	--host epyc-zen5
refused "unknown host" "host 'nosuch' is not a host profile" --virtual --host nosuch
up --wake-cost 10ms > /dev/null
check "wake-up: 10ms accepted" test $? = 0

# The memory-served rule: a FUSE-mode recording (round trip 20us, no page
# cache) of a reader (10) that reads a 4 KiB file twice, 100us each at
# tierfs, then flushes, 100us and 90us after (the flush without a CPU
# sample). --kernel-fs with a page cache on fixed60: the first read misses
# (60us, the model's whole latency) and its gap loses the round trip like
# every other (80us: block mode charges the read from the loop device's
# issue); the second is served from memory (409ns to copy), where the
# kernel never sleeps: no tierfs behind it (its syscall, 5us, and its
# wake-up, 3us, are not added), and its gap loses the round trip and the
# wake-up share of its recorded sleep, 34us * ln((100 + 20) / 20) =
# 60920ns: 9080ns. The flush is the kernel's: 149489 in all (169489 with
# --loop-issue=off, where the first read's gap keeps the round trip: the
# loop rule; before the memory-served rule 198000). With --wake-cost 0
# only the gap's round trip goes (210409); without a page cache, both
# reads miss, the second's lateness (3us) not paid either: tierfs takes
# its mean lateness off a reply charged from the issue (270000). With the flush's CPU sample (on a CPU 1us after
# the second read) the in-kernel rule takes that gap instead: the
# thread's 1us on a CPU (141409), whatever the wake-up cost.
mktrace ms <<'X'
header version=3 start_mono_ns=1000000 mem=0 model=10 floor_ns=20000
path 1 "/f"
0 100000 read 1 0 4096 4096 10 4096 0 0
cpu 10 pid=10 ppid=1 on_ns=1000 runq_ns=0 sys_ns=5000 late_ns=0
200000 300000 read 1 0 4096 4096 10 4096 0 0
cpu 10 pid=10 ppid=1 on_ns=2000 runq_ns=0 sys_ns=5000 late_ns=3000
390000 391000 flush 1 0 0 0 10 4096 0 4
end drops=0 records=3 t=391000
X
mktrace msc <<'X'
header version=3 start_mono_ns=1000000 mem=0 model=10 floor_ns=20000
path 1 "/f"
0 100000 read 1 0 4096 4096 10 4096 0 0
cpu 10 pid=10 ppid=1 on_ns=1000 runq_ns=0 sys_ns=5000 late_ns=0
200000 300000 read 1 0 4096 4096 10 4096 0 0
cpu 10 pid=10 ppid=1 on_ns=2000 runq_ns=0 sys_ns=5000 late_ns=3000
390000 391000 flush 1 0 0 0 10 4096 0 4
cpu 10 pid=10 ppid=1 on_ns=3000 runq_ns=0 sys_ns=1000 late_ns=0
end drops=0 records=3 t=391000
X
# (the reader started 1us before its first read)
cat > "$T/ms.trace.wakes" <<'X'
tiersim-wakes 1
span 999000 1400000
T 10 10 1 999000 1400000 0 0 reader
X
ms() { "$B" replay "$T/ms.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/fixed.lua" \
	--json "$@" | jq -r '.results[1] | "\(.total_ns) \(.think_ns) \(.io_wait_ns)"'; }
check "memory-served: total, think, io" test "$(ms --mem 1MiB --wake-cost 34us)" = "149489 89080 60409"
check "memory-served: --loop-issue=off" test \
	"$(ms --mem 1MiB --wake-cost 34us --loop-issue=off)" = "169489 109080 60409"
check "memory-served: --wake-cost 0" test "$(ms --mem 1MiB --wake-cost 0)" = "210409 150000 60409"
check "memory-served: no page cache" test "$(ms --wake-cost 34us)" = "270000 150000 120000"
cp "$T/ms.trace.wakes" "$T/msc.trace.wakes"
msc() { "$B" replay "$T/msc.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/fixed.lua" \
	--json "$@" | jq -r '.results[1] | "\(.total_ns) \(.think_ns) \(.io_wait_ns)"'; }
check "in-kernel: total, think, io" test "$(msc --mem 1MiB --wake-cost 34us)" = "141409 81000 60409"
check "in-kernel: --wake-cost 0" test "$(msc --mem 1MiB --wake-cost 0)" = "141409 81000 60409"

# A pause: the reader slept 60us between the second read and the flush
# (a training step's sleep, 320-380us), and an interrupt (its timer)
# woke it: the wake file's P line. A FUSE reply would have come from
# tierfs's thread, so the in-kernel rule adds the pause to the thread's
# 1us on a CPU: 61us of the gap (70us less the round trip) instead of
# 1us, 201409 in all. Its pause outside the gap (before the first read)
# adds nothing. Without the P line (a file captured before pauses were)
# or with --no-wakes, the sleep goes out with the hand-offs (141409,
# above); --keep-gaps keeps the whole gap either way.
cp "$T/msc.trace" "$T/msp.trace"
cat > "$T/msp.trace.wakes" <<'X'
tiersim-wakes 1
span 999000 1400000
T 10 10 1 999000 1400000 0 0 reader
P 999500 999200 10
P 1380000 1320000 10
X
msp() { "$B" replay "$T/msp.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/fixed.lua" \
	--json "$@" | jq -r '.results[1] | "\(.total_ns) \(.think_ns) \(.io_wait_ns)"'; }
check "in-kernel, a pause: total, think, io" test "$(msp --mem 1MiB --wake-cost 34us)" = "201409 141000 60409"
check "in-kernel, a pause: --keep-gaps" test \
	"$(msp --mem 1MiB --wake-cost 0 --keep-gaps)" = "$(msc --mem 1MiB --wake-cost 0 --keep-gaps)"
check "in-kernel, a pause: --no-wakes takes it out" test "$(msp --mem 1MiB --no-wakes)" = "141409 81000 60409"
# Another thread's pause in the same gap (thread 11, 310-330us) is not
# the reader's: its think stays 1us on a CPU (thread 11, without
# requests, ends at its recorded 340us, which the total then is).
cp "$T/msc.trace" "$T/msq.trace"
cat > "$T/msq.trace.wakes" <<'X'
tiersim-wakes 1
span 999000 1400000
T 10 10 1 999000 1400000 0 0 reader
T 11 10 10 999500 1340000 0 0 other
P 1330000 1310000 11
X
check "in-kernel, another thread's pause: think" test "$("$B" replay "$T/msq.trace" --virtual \
	--kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/fixed.lua" --mem 1MiB --json |
	jq -r '.results[1].think_ns')" = 81000
# The pauses of two threads interleave in the file's (end) order: 11's
# (390.5-391us) ends before the reader's (320-392us, 2us past the flush's
# arrival), and begins after the gap. The reader's pause still counts, up
# to the gap's end: 70us, with its 1us on a CPU 71us, within the 90us gap
# (think 151us; the rule once capped it at the gap less the round trip,
# 150us: the in-kernel rule in rules.c).
cp "$T/msc.trace" "$T/msr.trace"
cat > "$T/msr.trace.wakes" <<'X'
tiersim-wakes 1
span 999000 1400000
T 10 10 1 999000 1400000 0 0 reader
T 11 10 10 999500 1395000 0 0 other
P 1391000 1390500 11
P 1392000 1320000 10
X
check "in-kernel, interleaved pauses: think" test "$("$B" replay "$T/msr.trace" --virtual \
	--kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/fixed.lua" --mem 1MiB --json |
	jq -r '.results[1].think_ns')" = 151000

# The CPU model. One CPU (cpus 1, nothing else busy). Threads 20 and 30
# start at 0 and 10us later thread 20 reads and thread 30 writes, 100us
# each as recorded; between its two requests each computed 100us, at the
# same time, so each also queued 100us for the CPU. On a tier whose writes
# take 300us, 20 computes alone from 110us (its read done) and 30 from
# 310us: neither queues. 20 is done at 310us, 30 writes again at 410us and
# is done at 710us; the parent, woken by 30's end, ends 1us later: 711us.
# Keeping the recorded queueing (the default, without --cpu-model) puts
# 30's second write at 510us: 811us.
mktrace m <<'X'
header version=2 start_mono_ns=1000000
path 1 "/f"
path 2 "/g"
10000 110000 read 1 0 4096 4096 20 8192 0 0
cpu 20 pid=20 ppid=10 on_ns=0 runq_ns=0
10000 110000 write 2 0 4096 4096 30 4096 0 0
cpu 30 pid=30 ppid=10 on_ns=0 runq_ns=0
310000 410000 read 1 4096 4096 4096 20 8192 0 0
cpu 20 pid=20 ppid=10 on_ns=100000 runq_ns=100000
310000 410000 write 2 4096 4096 4096 30 8192 0 0
cpu 30 pid=30 ppid=10 on_ns=100000 runq_ns=100000
end drops=0 records=4 t=410000
X
cat > "$T/m.trace.wakes" <<'X'
tiersim-wakes 1
span 1000000 1411000
cpus 1 0
T 10 10 0 1000000 1411000 0 0 parent
T 20 20 10 1000000 1410000 100000 100000 reader
T 30 30 10 1000000 1410000 100000 100000 writer
W 1410000 1000000 10 30
X
cat >> "$T/fixed.lua" <<'X'
tier "rw100" { desc = "test", source = "test",
	latency = { read = { fixed = "100us" }, write = { fixed = "100us" } } }
tier "w300" { desc = "test", source = "test",
	latency = { read = { fixed = "100us" }, write = { fixed = "300us" } } }
X
"$B" replay "$T/m.trace" --virtual --tier rw100 --tier w300 --profile "$T/fixed.lua" \
	--cpu-model --json > "$T/m.json"
check "cpu: recorded" test "$(j "$T/m.json" '.results[0].total_ns')" = 411000
check "cpu: same tier, same run" test "$(j "$T/m.json" '.results[1].total_ns')" = 411000
check "cpu: the CPUs shared" test "$(j "$T/m.json" '.results[2].total_ns')" = 711000
check "cpu: the model's CPUs" test "$(j "$T/m.json" '.results[2].cpu_cap')" = 1
check "cpu: the gaps it served" test "$(j "$T/m.json" '.results[2].cpu_gaps')" = 2
# The same requests with no thread's own CPU samples, as a block-mode
# recording's (its requests are the loop device's worker's): the model
# serves no gap, the answer is the recorded queueing's, and the replay
# says so instead of passing that answer off as the model's.
grep -v '^cpu ' "$T/m.txt" | mktrace mn
cp "$T/m.trace.wakes" "$T/mn.trace.wakes"
"$B" replay "$T/mn.trace" --virtual --tier w300 --profile "$T/fixed.lua" --cpu-model --json \
	> "$T/mn.json" 2> "$T/mn.err"
check "cpu, no samples: exit 0" test $? = 0
check "cpu, no samples: the recorded queueing" test "$(j "$T/mn.json" '.results[1].total_ns')" = 811000
check "cpu, no samples: no gap served" test "$(j "$T/mn.json" '.results[1].cpu_gaps')" = 0
check "cpu, no samples: says so" grep -q "mn.trace: notice: --cpu-model served no gap (no thread's requests carry its own CPU samples" "$T/mn.err"
check "cpu, samples: no such notice" test "$("$B" replay "$T/m.trace" --virtual --tier w300 \
	--profile "$T/fixed.lua" --cpu-model 2>&1 >/dev/null | grep -c 'served no gap')" = 0
"$B" replay "$T/m.trace" --virtual --tier w300 --profile "$T/fixed.lua" --json > "$T/mq.json"
check "cpu: queueing as recorded" test "$(j "$T/mq.json" '.results[1].total_ns')" = 811000
check "cpu: no model by default" test "$(j "$T/mq.json" '.results[1].cpu_cap')" = null

"$B" replay "$T/c.trace" --virtual --tier unlimited --closed-loop --wakes "$T/c.trace.wakes" \
	> /dev/null 2> "$T/u.err"
check "--wakes with --closed-loop: usage error" test $? = 2
check "--wakes with --closed-loop: says so" grep -q -- "--wakes .*not with --no-wakes or --closed-loop" "$T/u.err"

# a broken wake file: one line naming it and its line, exit 1
sed 's/^W 1201000 1131000 10 20$/W 1201000 1131000 10 99/' "$T/c.trace.wakes" > "$T/b.wakes"
"$B" replay "$T/c.trace" --virtual --tier unlimited --wakes "$T/b.wakes" > /dev/null 2> "$T/b.err"
check "bad wake file: exit 1" test $? = 1
check "bad wake file: one line" test "$(wc -l < "$T/b.err")" = 1
check "bad wake file: names it" grep -q "b.wakes:.*99: a thread not listed" "$T/b.err"
"$B" replay "$T/c.trace" --virtual --tier unlimited --wakes "$T/none.wakes" > /dev/null 2> "$T/m.err"
check "missing wake file: exit 1" test $? = 1
check "missing wake file: names it" grep -q "none.wakes: No such file" "$T/m.err"

# record writes one: the shell waits for its child, whose exit wakes it
if [ -c /dev/fuse ] && [ "$(id -u)" = 0 ]; then
	mkdir -p "$T/data" "$T/tmp"
	head -c 200000 /dev/urandom > "$T/data/a"
	mine() { grep -c "$T/tmp" /proc/self/mounts; }
	# an instance a record that died left behind (its process is gone);
	# every mount of tracefs shows the same instances
	tfs=/sys/kernel/tracing
	if [ ! -d "$tfs/instances" ]; then
		tfs=$T/tfs
		mkdir -p "$tfs" && mount -t tracefs nodev "$tfs" 2>/dev/null || tfs=
	fi
	stale=
	if [ -n "$tfs" ]; then
		stale=tiersim-record-$(sh -c 'echo $$')
		mkdir "$tfs/instances/$stale" 2>/dev/null || stale=
	fi
	# through sh -c 'echo $$; exec', to know tiersim's pid (its instance's name)
	TMPDIR="$T/tmp" sh -c 'echo $$ > "$0"; exec "$@"' "$T/pid" "$B" record --data "$T/data" \
		--tier ssd-cloud --out "$T/r.trace" --predict nvme-local \
		-- sh -c 'cat {}/a > /dev/null & wait; sleep 0.01' > "$T/r.out" 2> "$T/r.err"
	check "record: exit 0" test $? = 0
	if grep -q "notice: no wake" "$T/r.err"; then
		echo "SKIP: this kernel gives no scheduler tracepoints: $(cat "$T/r.err")"
	else
		# nothing but, where BPF is not to be had, that it is through tracefs
		check "record: no error output" \
			test -z "$(grep -v "notice: no BPF wake capture (.*): through tracefs" "$T/r.err")"
		check "record: wake file" head -1 "$T/r.trace.wakes" | grep -qx "tiersim-wakes 1"
		root=$(awk '$1 == "T" && $4 == 0 { print $2 }' "$T/r.trace.wakes")
		check "record: a child's exit woke the shell" \
			awk -v r="$root" '$1 == "W" && $4 == r { f = 1 } END { exit !f }' "$T/r.trace.wakes"
		check "record: the reader is a thread of the tree" \
			awk '$1 == "T" { n++ } END { exit n < 2 }' "$T/r.trace.wakes"
		check "record: predicted with the wake rule" grep -q "the wake rule" "$T/r.out"
		check "record: no tracefs instance left" \
			test ! -e "/sys/kernel/tracing/instances/tiersim-record-$(cat "$T/pid")"
		[ -z "$stale" ] ||
			check "record: a dead record's instance removed" test ! -e "$tfs/instances/$stale"
		check "record: nothing of it mounted (tierfs, its own tracefs)" test "$(mine)" = 0
		check "record: its scratch directory gone" test -z "$(ls -A "$T/tmp")"
		"$B" replay "$T/r.trace" --virtual --tier ssd-cloud --json > "$T/rr.json"
		check "record: replays with it" test "$(j "$T/rr.json" '.results[1].ops')" -gt 0
	fi
	# a capture that lost events writes no wake file, and says so (tracefs:
	# BPF sends far fewer records, wake_bpf.sh). The command stops tiersim
	# (its parent, whose thread reads the buffers) while it makes its
	# events, so that they overflow the 4 KiB buffers however loaded the
	# host is: a reader left running kept up with a command the load
	# slowed (one /bin/true every few ms), lost nothing, and wrote a wake
	# file.
	TMPDIR="$T/tmp" TIERSIM_WAKE_CAPTURE=tracefs TIERSIM_WAKES_BUFFER_KB=4 "$B" record --data "$T/data" --out "$T/l.trace" \
		-- sh -c 'kill -STOP $PPID; trap "kill -CONT $PPID" EXIT
			for i in $(seq 400); do /bin/true; done' > /dev/null 2> "$T/l.err"
	check "lost events: exit 0" test $? = 0
	check "lost events: no wake file" test ! -e "$T/l.trace.wakes"
	check "lost events: said" grep -q "notice: no wake file (the kernel lost [0-9]* scheduler events" "$T/l.err"
	check "lost events: nothing left" test -z "$(ls -A "$T/tmp")"
	# --no-wakes: none written, and none left from before
	TMPDIR="$T/tmp" "$B" record --data "$T/data" --out "$T/r.trace" --no-wakes -- true \
		> /dev/null 2>&1
	check "record --no-wakes: no wake file" test ! -e "$T/r.trace.wakes"
	[ -n "$stale" ] && rmdir "$tfs/instances/$stale" 2>/dev/null
	[ "$tfs" = "$T/tfs" ] && umount "$tfs"
fi
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
exit "$fail"
