#!/bin/sh
# replay.sh — the closed-loop rule, exactly, in virtual time (the unlimited
# tier completes every request when it arrives, so the total is the think
# times and thread start offsets alone); a prediction is reproducible to the
# nanosecond; a real-time replay refuses to write without --allow-writes,
# creates the files it needs, and replays every op.
. "${TS_SOURCE_ROOT:?}/tests/traces/lib.sh"

"$B" trace undump "$S/small.txt" -o "$T/s.trace"
# small.txt: thread 10 starts at 0 (open 0-1us, read 2-12us, read 13-23us,
# read 23-33us: think 1us + 1us + 0); thread 11 starts at 5us (write, then
# fsync with no think). On a tier with no latency: total 5us, think 2us.
"$B" replay "$T/s.trace" --virtual --tier unlimited --json > "$T/u.json"
check "unlimited total" test "$(j "$T/u.json" '.results[1].total_ns')" = 5000
check "unlimited think" test "$(j "$T/u.json" '.results[1].think_ns')" = 2000
check "unlimited ops" test "$(j "$T/u.json" '.results[1].ops')" = 6
check "recorded total" test "$(j "$T/u.json" '.results[0].total_ns')" = 106000
check "recorded think" test "$(j "$T/u.json" '.results[0].think_ns')" = 2000
"$B" replay "$T/s.trace" --virtual --tier unlimited --no-think --json > "$T/n.json"
check "no-think think" test "$(j "$T/n.json" '.results[1].think_ns')" = 0
"$B" replay "$T/s.trace" --virtual --tier unlimited --speed 2 --json > "$T/h.json"
check "speed 2 total" test "$(j "$T/h.json" '.results[1].total_ns')" = 2500
check "speed 2 think" test "$(j "$T/h.json" '.results[1].think_ns')" = 1000

# the join rule: thread 1 stats a file, thread 2 reads it, thread 1 stats
# it again 1us after thread 2 ended: it waited for thread 2, so on a
# faster tier it comes sooner (5us in all, not the recorded 25us)
mktrace join <<'X'
header version=1
path 1 "/f"
0 1000 getattr 1 0 0 0 1 1 0 4
2000 12000 read 1 0 4096 4096 2 8192 0 0
13000 23000 read 1 4096 4096 4096 2 8192 0 0
24000 25000 getattr 1 0 0 0 1 1 0 4
X
"$B" replay "$T/join.trace" --virtual --tier unlimited --json > "$T/j.json"
check "join total" test "$(j "$T/j.json" '.results[1].total_ns')" = 5000
check "join think" test "$(j "$T/j.json" '.results[1].think_ns')" = 2000
check "join recorded think" test "$(j "$T/j.json" '.results[0].think_ns')" = 2000

# with CPU samples the join rule holds between related processes only:
# thread 1 (on a CPU through its gap) joins thread 2 when 2 is its child
# (5us, as above), not when the two are siblings (closed loop: 25us)
for rel in "1 0 2 1 5000" "1 9 2 9 25000"; do
	# shellcheck disable=SC2086 # the case's fields, one word each
	set -- $rel
	cat > "$T/jp.txt" <<X
header version=2
path 1 "/f"
0 1000 getattr 1 0 0 0 1 1 0 4
cpu 1 pid=$1 ppid=$2 on_ns=1000 runq_ns=0
2000 12000 read 1 0 4096 4096 2 8192 0 0
cpu 2 pid=$3 ppid=$4 on_ns=1000 runq_ns=0
13000 23000 read 1 4096 4096 4096 2 8192 0 0
cpu 2 pid=$3 ppid=$4 on_ns=2000 runq_ns=0
24000 25000 getattr 1 0 0 0 1 1 0 4
cpu 1 pid=$1 ppid=$2 on_ns=24000 runq_ns=0
end drops=0 records=4 t=25000
X
	"$B" trace undump "$T/jp.txt" -o "$T/jp.trace"
	"$B" replay "$T/jp.trace" --virtual --tier unlimited --json > "$T/jp.json"
	check "join between pid $1 (parent $2) and pid $3 (parent $4)" \
		test "$(j "$T/jp.json" '.results[1].total_ns')" = "$5"
done

# the sibling rule: a parent runs two children one after the other (a
# shell's `cat f && cat f`, the parent with no op of its own). Process 2
# reads twice, 10us each as recorded, 1us apart; process 3 (its sibling,
# parent 9) starts 1us after process 2's last read and does the same. On
# a tier with no latency process 2 ends at 1us and process 3 starts 1us
# later (the recorded distance): 3us in all, not 23us (process 3 at its
# recorded start, as before). When process 2 has a thread still running
# at process 3's start (thread 4, pid 2, reading until 30us), the two
# ran together: process 3 keeps its recorded start (23us), and so does
# a second thread of process 3 whose process had started before it.
sib_total() { # sib_total NAME: $T/NAME.trace (mktrace) replayed with no latency, total ns
	"$B" replay "$T/$1.trace" --virtual --tier unlimited --json > "$T/$1.json"
	j "$T/$1.json" '.results[1].total_ns'
}
for sib in "2 3 0 3000" "2 3 1 23000"; do
	# shellcheck disable=SC2086 # the case's fields, one word each
	set -- $sib
	{
		cat <<X
header version=2
path 1 "/f"
0 10000 read 1 0 4096 4096 2 8192 0 0
cpu 2 pid=$1 ppid=9 on_ns=1000 runq_ns=0
11000 21000 read 1 4096 4096 4096 2 8192 0 0
cpu 2 pid=$1 ppid=9 on_ns=2000 runq_ns=0
22000 32000 read 1 0 4096 4096 3 8192 0 0
cpu 3 pid=$2 ppid=9 on_ns=1000 runq_ns=0
33000 43000 read 1 4096 4096 4096 3 8192 0 0
cpu 3 pid=$2 ppid=9 on_ns=2000 runq_ns=0
X
		[ "$3" = 0 ] || cat <<X
5000 30000 read 1 0 4096 4096 4 8192 0 0
cpu 4 pid=$1 ppid=9 on_ns=1000 runq_ns=0
X
		echo "end drops=0 records=$((4 + $3)) t=43000"
	} | mktrace sib
	check "sibling rule: pid $2 after pid $1 (a thread of $1 still running: $3)" \
		test "$(sib_total sib)" = "$4"
done
# and the process's schedule starts there: process 3's second read, after
# 12us off the CPU (a wait longer than the 10us it did since it started:
# paced by what it waited for, so it wakes at its recorded moment), wakes
# 22us after process 3's replayed start (2us), not at the trace's 44us
mktrace sib3 <<'X'
header version=2
path 1 "/f"
0 10000 read 1 0 4096 4096 2 8192 0 0
cpu 2 pid=2 ppid=9 on_ns=1000 runq_ns=0
11000 21000 read 1 4096 4096 4096 2 8192 0 0
cpu 2 pid=2 ppid=9 on_ns=2000 runq_ns=0
22000 32000 read 1 0 4096 4096 3 8192 0 0
cpu 3 pid=3 ppid=9 on_ns=1000 runq_ns=0
44000 45000 read 1 4096 4096 4096 3 8192 0 0
cpu 3 pid=3 ppid=9 on_ns=1000 runq_ns=0
end drops=0 records=4 t=45000
X
check "sibling rule: the process's waits count from its start" test "$(sib_total sib3)" = 24000
# a second thread of process 3 (thread 5) whose first op comes after process
# 2 ended, while thread 3 of its own process, started before, is still in
# its read: not its process's start, so it keeps its recorded start (30us;
# 10us were it tied to process 2's end)
mktrace sib2 <<'X'
header version=2
path 1 "/f"
0 10000 read 1 0 4096 4096 2 8192 0 0
cpu 2 pid=2 ppid=9 on_ns=1000 runq_ns=0
11000 21000 read 1 4096 4096 4096 2 8192 0 0
cpu 2 pid=2 ppid=9 on_ns=2000 runq_ns=0
1000 40000 read 1 0 4096 4096 3 8192 0 0
cpu 3 pid=3 ppid=9 on_ns=1000 runq_ns=0
30000 31000 read 1 4096 4096 4096 5 8192 0 0
cpu 5 pid=3 ppid=9 on_ns=1000 runq_ns=0
end drops=0 records=4 t=40000
X
check "sibling rule: not at a process's second thread" test "$(sib_total sib2)" = 30000

# --kernel-fs: the job on a kernel file system. A FUSE recording (floor
# 10us) of open, getattr, a 4 KiB read, flush and close, 28/17/15/13us
# apart. As recorded: every gap and every op's recorded time, the read 60us
# less the floor (131us). On ext4 the metadata ops cost nothing, every gap
# loses the floor (18, 7, 5, 3us), the read pays its whole 60us: 93us.
# With --floor 20us the first gap keeps 8us. With --loop-issue=off (block
# mode charged from tierfs's receipt) the gap after the device's read keeps
# the floor (15us: the loop device's worker crossed FUSE to tierfs, the
# loop rule): 103us, think 43us (with --floor 20us 23us).
mktrace kfs <<'X'
header version=5 mem=0 model=255 floor_ns=10000
path 1 "/f"
0 2000 open 1 0 0 0 1 4096 0 4
30000 33000 getattr 1 0 0 0 1 4096 0 4
50000 60000 read 1 0 4096 4096 1 4096 0 0
75000 77000 flush 1 0 0 0 1 4096 0 4
90000 91000 close 1 0 0 0 1 4096 0 4
end drops=0 records=5 t=91000
X
cat > "$T/kfs.lua" <<'X'
tier "fixed60" { desc = "test", source = "test", latency = { read = { fixed = "60us" } } }
X
"$B" replay "$T/kfs.trace" --virtual --tier fixed60 --profile "$T/kfs.lua" --json \
	> "$T/kf0.json" 2>/dev/null
check "kernel-fs: FUSE total" test "$(j "$T/kf0.json" '.results[1].total_ns')" = 131000
"$B" replay "$T/kfs.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/kfs.lua" --json \
	> "$T/kf1.json" 2>/dev/null
check "kernel-fs: total" test "$(j "$T/kf1.json" '.results[1].total_ns')" = 93000
check "kernel-fs: think" test "$(j "$T/kf1.json" '.results[1].think_ns')" = 33000
check "kernel-fs: io" test "$(j "$T/kf1.json" '.results[1].io_wait_ns')" = 60000
"$B" replay "$T/kfs.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --floor 20us --tier fixed60 \
	--profile "$T/kfs.lua" --json > "$T/kf2.json" 2>/dev/null
check "kernel-fs: --floor's round trip" test "$(j "$T/kf2.json" '.results[1].think_ns')" = 8000
kfo() { "$B" replay "$T/kfs.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --loop-issue=off --tier fixed60 \
	--profile "$T/kfs.lua" --json "$@" 2>/dev/null |
	jq -r '.results[1] | "\(.total_ns) \(.think_ns) \(.io_wait_ns)"'; }
check "kernel-fs: --loop-issue=off, the loop rule" test "$(kfo)" = "103000 43000 60000"
check "kernel-fs: --loop-issue=off, --floor" test "$(kfo --floor 20us)" = "83000 23000 60000"
# The in-kernel rule: the same recording with the thread's CPU samples
# (on a CPU 5, 3, 2 and 9us between its requests, the rest of each gap
# queued or off the CPU: the FUSE hand-offs), the close 43us after the
# flush. On ext4 the thread never leaves its CPU in the metadata ops, so
# the gap after each is its time on a CPU, at most the gap less the floor:
# 5, 3 (after open, getattr) and 9us (after flush), none of it a wait;
# after the device's read the gap loses the floor (5us): think 22us,
# total 82us. With --keep-gaps the gaps less the floor (18, 7, 5, 33us),
# the last one's 14us off the CPU beyond the round trip a wait (the wait
# rule), which brings the close to its recorded 120us: 120us in all, as
# before the rule.
mktrace kfc <<'X'
header version=5 mem=0 model=255 floor_ns=10000
path 1 "/f"
0 2000 open 1 0 0 0 1 4096 0 4
cpu 1 pid=100 ppid=1 on_ns=1000 runq_ns=0
30000 33000 getattr 1 0 0 0 1 4096 0 4
cpu 1 pid=100 ppid=1 on_ns=6000 runq_ns=4000
50000 60000 read 1 0 4096 4096 1 4096 0 0
cpu 1 pid=100 ppid=1 on_ns=9000 runq_ns=6000
75000 77000 flush 1 0 0 0 1 4096 0 4
cpu 1 pid=100 ppid=1 on_ns=11000 runq_ns=6000
120000 121000 close 1 0 0 0 1 4096 0 4
cpu 1 pid=100 ppid=1 on_ns=20000 runq_ns=6000
end drops=0 records=5 t=121000
X
"$B" replay "$T/kfc.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/kfs.lua" --json \
	> "$T/kf4.json" 2>/dev/null
check "in-kernel: total" test "$(j "$T/kf4.json" '.results[1].total_ns')" = 82000
check "in-kernel: think" test "$(j "$T/kf4.json" '.results[1].think_ns')" = 22000
check "in-kernel: no wait" test "$(j "$T/kf4.json" '.results[1].waited_ns')" = 0
"$B" replay "$T/kfc.trace" --virtual --tier fixed60 --profile "$T/kfs.lua" --json \
	> "$T/kf5.json" 2>/dev/null
check "in-kernel: --keep-gaps keeps them" test "$("$B" replay "$T/kfc.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 \
	--keep-gaps --tier fixed60 --profile "$T/kfs.lua" --json 2>/dev/null |
	jq -r '.results[1] | "\(.total_ns) \(.waited_ns)"')" = "120000 14000"
# FUSE's own CPU on the thread per request (--fuse-cpu; by default the
# host's replay_fuse_cpu_ns, pipeline/hosts.lua, which the other checks
# here set to 0): each in-kernel gap's time on a CPU less it, never below
# 0; the gap before the close keeps its 9us (a release, sent in the
# background: no round trip of the thread's, the case at the end). With
# 2us the gaps after open and getattr are 3 and 1us: 78us in all, think
# 18us; with 100us none is left of those two: 74us, think 14us (the gap
# after the device's read, which is no in-kernel gap, keeps its 5us).
kfu() { "$B" replay "$T/kfc.trace" --virtual --kernel-fs --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/kfs.lua" \
	--json "$@" 2>/dev/null | jq -r '.results[1] | "\(.total_ns) \(.think_ns)"'; }
check "in-kernel: --fuse-cpu 2us" test "$(kfu --fuse-cpu 2us)" = "78000 18000"
check "in-kernel: --fuse-cpu 100us" test "$(kfu --fuse-cpu 100us)" = "74000 14000"
check "in-kernel: --fuse-cpu 0" test "$(kfu --fuse-cpu 0)" = "82000 22000"
# by default build-host's measured figure, as --host build-host gives it
check "in-kernel: the host's FUSE CPU by default" test "$(kfu)" = "$(kfu --host build-host)"
check "in-kernel: the host's FUSE CPU is not 0" test "$(kfu)" != "82000 22000"
"$B" replay "$T/kfc.trace" --virtual --tier fixed60 --profile "$T/kfs.lua" --fuse-cpu 2us \
	> "$T/kf7.out" 2>&1
check "in-kernel: --fuse-cpu refused without --kernel-fs" test $? = 2
check "in-kernel: one line naming it" \
	test "$(grep -c -- "--fuse-cpu 2us is --kernel-fs's" "$T/kf7.out")" = 1
"$B" replay "$T/kfc.trace" --virtual --kernel-fs --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/kfs.lua" \
	--fuse-cpu 20ms > "$T/kf8.out" 2>&1
check "in-kernel: --fuse-cpu 20ms refused" test $? = 2
check "in-kernel: one line, its range" test "$(grep -c "0 to 10ms" "$T/kf8.out")" = 1
"$B" replay "$T/kfc.trace" --virtual --keep-gaps --tier fixed60 > "$T/kf6.out" 2>&1
check "in-kernel: --keep-gaps refused alone" test $? = 2
check "in-kernel: --keep-gaps one line" test "$(wc -l < "$T/kf6.out")" = 1
# without --kernel-fs the FUSE replay as before: every gap (the last one's
# 24us beyond the round trip a wait) and every op's recorded time
check "in-kernel: not without --kernel-fs" test "$(j "$T/kf5.json" '.results[1].total_ns')" = 137000
"$B" replay "$T/kfs.trace" --kernel-fs --fuse-cpu 0 --target "$T" > "$T/kf3.out" 2>&1
check "kernel-fs: refused with --target" test $? = 2
check "kernel-fs: one line" test "$(wc -l < "$T/kf3.out")" = 1

# The loop rule, block mode as `tiersim disk mount` runs it (each device
# request charged from the loop device's issue, loop_issue=on): no FUSE
# round trip follows a device read there. A FUSE recording (round trip
# 30us) of a reader of two 128 KiB files, each opened, read whole (90us at
# tierfs) and closed, 38, 40 and 39us apart (38 and 40 after the second
# open). --kernel-fs on fixed60: the opens and closes are the kernel's
# (free), each read pays the model's 60us, and every gap loses the round
# trip, the two after the reads too: 8 + 60 + 10 + 9 + 8 + 60 + 10 =
# 165us, think 45us. With --loop-issue=off (charged from tierfs's receipt)
# the gaps after the reads keep it (the loop rule): 225us, think 105us,
# which is what the default predicted before block mode timed the issue.
mktrace kfl <<'X'
header version=5 mem=0 model=255 floor_ns=30000
path 1 "/a"
path 2 "/b"
0 2000 open 1 0 0 0 1 131072 0 4
40000 130000 read 1 0 131072 131072 1 131072 0 0
170000 171000 close 1 0 0 0 1 131072 0 4
210000 212000 open 2 0 0 0 1 131072 0 4
250000 340000 read 2 0 131072 131072 1 131072 0 0
380000 381000 close 2 0 0 0 1 131072 0 4
end drops=0 records=6 t=381000
X
kfl() { "$B" replay "$T/kfl.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --fuse-size 0 --tier fixed60 --profile "$T/kfs.lua" \
	--json "$@" 2>/dev/null | jq -r '.results[1] | "\(.total_ns) \(.think_ns) \(.io_wait_ns)"'; }
check "loop rule: issue-timed block mode" test "$(kfl)" = "165000 45000 120000"
check "loop rule: --loop-issue=on" test "$(kfl --loop-issue=on)" = "165000 45000 120000"
check "loop rule: --loop-issue=off" test "$(kfl --loop-issue=off)" = "225000 105000 120000"
check "loop rule: --loop-issue=watch" test "$(kfl --loop-issue=watch)" = "225000 105000 120000"
# The same reads with tierfs's syscall (20us) and lateness (7us) in their
# CPU samples. Charged from the issue, tierfs takes its mean lateness off
# its reply as well, so the kernel completes each read at the model's
# time: 165us still. From the receipt tierfs replied that late: 7us more a
# read, 239us (the syscall ends before the model's 60us either way).
sed 's/^\(.* read .*\)$/\1\ncpu 1 pid=100 ppid=1 on_ns=0 runq_ns=0 sys_ns=20000 late_ns=7000/' \
	"$T/kfl.txt" > "$T/kfm.txt"
"$B" trace undump "$T/kfm.txt" -o "$T/kfm.trace"
kfm() { "$B" replay "$T/kfm.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --fuse-size 0 --tier fixed60 --profile "$T/kfs.lua" \
	--json "$@" 2>/dev/null | jq -r '.results[1] | "\(.total_ns) \(.think_ns) \(.io_wait_ns)"'; }
check "loop rule: no lateness from the issue" test "$(kfm)" = "165000 45000 120000"
check "loop rule: the lateness from the receipt" test "$(kfm --loop-issue=off)" = "239000 105000 134000"
"$B" replay "$T/kfl.trace" --virtual --loop-issue=off --tier fixed60 --profile "$T/kfs.lua" \
	> "$T/kfl1.out" 2>&1
check "loop rule: --loop-issue refused without --kernel-fs" test $? = 2
check "loop rule: one line naming it" test "$(grep -c -- "--loop-issue=off is --kernel-fs's" "$T/kfl1.out")" = 1
"$B" replay "$T/kfl.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --loop-issue=maybe --tier fixed60 \
	--profile "$T/kfs.lua" > "$T/kfl2.out" 2>&1
check "loop rule: an unknown --loop-issue refused" test $? = 2
check "loop rule: one line" test "$(wc -l < "$T/kfl2.out")" = 1

# carry=: tierfs took the FUSE round trip (floor) of each request whose
# reply did not wait on the model off the same thread's next reply that
# did (traces/tier_rule.h); its trace says so in mount_opts. A recording
# (floor 15us) of a reader of two 128 KiB files: getattr, open, read,
# close of /a, then open, read, close of /b; the metadata ops answered
# without the model (flag 4). On fixed60 a read waits 60 - 15 = 45us;
# the thread owes 15us for the getattr and the open (30us) before the
# first read, which tierfs replied 15us after it came, and 30us for the
# close and the open before the second: as recorded, 91us. The same trace
# without carry=true replays as before: each read 45us, 151us.
mktrace carry <<'X'
header version=5 mem=0 model=255 floor_ns=15000 mount_opts="tier=fixed60,floor=15000ns,loop_hop=0ns(off),carry=true"
path 1 "/a"
path 2 "/b"
0 2000 getattr 1 0 0 0 1 131072 0 4
10000 12000 open 1 0 0 0 1 131072 0 4
20000 35000 read 1 0 131072 131072 1 131072 0 0
45000 46000 close 1 0 0 0 1 131072 0 4
55000 57000 open 2 0 0 0 1 131072 0 4
65000 80000 read 2 0 131072 131072 1 131072 0 0
90000 91000 close 2 0 0 0 1 131072 0 4
end drops=0 records=7 t=91000
X
fixed_tiers "$T/carry.lua"
cat >> "$T/carry.lua" <<'X'
tier "fixed600" { desc = "test", source = "test", latency = { read = { fixed = "600us" } } }
X
cr() { # cr TRACE TIER [ARGS...]: the prediction's total and IO time, ns
	f=$1 t=$2
	shift 2
	"$B" replay "$f" --virtual --tier "$t" --profile "$T/carry.lua" --json "$@" 2>/dev/null |
		jq -r '.results[1] | "\(.total_ns) \(.io_wait_ns)"'
}
check "carry: the recording's own run" test "$(cr "$T/carry.trace" fixed60)" = "91000 38000"
check "carry: the recorded total" \
	test "$("$B" replay "$T/carry.trace" --virtual --tier fixed60 --profile "$T/carry.lua" \
		--json 2>/dev/null | jq '.results[0].total_ns')" = 91000
sed 's/,carry=true//' "$T/carry.txt" > "$T/nocarry.txt"
"$B" trace undump "$T/nocarry.txt" -o "$T/nocarry.trace"
check "carry: none without carry=true" test "$(cr "$T/nocarry.trace" fixed60)" = "151000 98000"
sed 's/,carry=true/,carry=false/' "$T/carry.txt" > "$T/carry0.txt"
"$B" trace undump "$T/carry0.txt" -o "$T/carry0.trace"
check "carry: none with carry=false" test "$(cr "$T/carry0.trace" fixed60)" = "151000 98000"
# on fixed100 the reads wait 85us: 55 and 55us with what the thread owes
# taken off; on fixed600 585us, 555 and 555us
check "carry: on another tier" test "$(cr "$T/carry.trace" fixed100)" = "171000 118000"
check "carry: on a slow tier" test "$(cr "$T/carry.trace" fixed600)" = "1171000 1118000"
# --kernel-fs: no round trip to carry, the same with carry=true or
# without
check "carry: not under --kernel-fs" \
	test "$(cr "$T/carry.trace" fixed60 --kernel-fs)" = "$(cr "$T/nocarry.trace" fixed60 --kernel-fs)"
# At most 8 round trips owed: ten getattrs (15us apart, 2us each) before a
# read on fixed600 (585us) take 8 x 15 = 120us off it: 465us.
{
	echo 'header version=5 mem=0 model=255 floor_ns=15000 mount_opts="tier=fixed600,carry=true"'
	echo 'path 1 "/a"'
	for i in 0 1 2 3 4 5 6 7 8 9; do echo "$((i * 15000)) $((i * 15000 + 2000)) getattr 1 0 0 0 1 131072 0 4"; done
	echo "150000 615000 read 1 0 131072 131072 1 131072 0 0"
	echo "end drops=0 records=11 t=615000"
} | mktrace carry8
check "carry: at most 8 round trips" test "$(cr "$T/carry8.trace" fixed600)" = "615000 485000"
# The syscall bounds it: the first read's CPU sample says tierfs's own
# syscall took 40us, so of the 30us owed only 5us could go: 40us, 25us
# still owed; the second read, owed 55us against its 45us, replies when
# it came: 101us in all, 48us of IO.
sed 's/^\(20000 35000 read .*\)$/\1\ncpu 1 pid=100 ppid=1 on_ns=0 runq_ns=0 sys_ns=40000 late_ns=0/' \
	"$T/carry.txt" > "$T/carrys.txt"
"$B" trace undump "$T/carrys.txt" -o "$T/carrys.trace"
check "carry: never before the syscall's end" \
	test "$(cr "$T/carrys.trace" fixed60 --closed-loop)" = "101000 48000"

# A block-mode recording (the loop device's requests to tierfs): a 10us
# FUSE round trip and a 5us loop hop (header loop_hop_ns, bit 0x100), both
# taken off the modeled latency. Two 4 KiB direct reads of the image on a
# 60us tier, each held 45us, 15us apart (the round trip and the hop). A
# plain replay drives the model as tierfs did (floor + hop): 45 + 15 + 45 =
# 105us, the recording (without the hop: 50 + 15 + 50 = 115us). With
# --kernel-fs both come off every gap, the one after the device's read too
# (no loop rule: the gap is the loop device's own path), and each read pays
# its whole 60us: 120us (without the hop and with the loop rule: 135us).
# With --floor 20us the model's floor is 20 + 5us: 35 + 15 + 35 = 85us.
mktrace blk6 <<'X'
header version=6 mem=0 model=266 floor_ns=10000 loop_hop_ns=5000
path 1 "/disk.img"
0 45000 read 1 0 4096 4096 1 268435456 0 1
60000 105000 read 1 4096 4096 4096 1 268435456 0 1
end drops=0 records=2 t=105000
X
# the same as a version 5 trace, where tierfs wrote the hop into mount_opts
mktrace blk5 <<'X'
header version=5 mem=0 model=10 floor_ns=10000 mount_opts="tier=fixed60,floor=10000ns,loop_hop=5000ns(measured)"
path 1 "/disk.img"
0 45000 read 1 0 4096 4096 1 268435456 0 1
60000 105000 read 1 4096 4096 4096 1 268435456 0 1
end drops=0 records=2 t=105000
X
for v in 6 5; do
	"$B" replay "$T/blk$v.trace" --virtual --tier fixed60 --profile "$T/kfs.lua" --json \
		> "$T/b$v.json" 2>/dev/null
	check "block v$v: as recorded" test "$(j "$T/b$v.json" '.results[1].total_ns')" = 105000
	"$B" replay "$T/blk$v.trace" --virtual --kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/kfs.lua" \
		--json > "$T/bk$v.json" 2>/dev/null
	check "block v$v: kernel-fs total" test "$(j "$T/bk$v.json" '.results[1].total_ns')" = 120000
	check "block v$v: kernel-fs think" test "$(j "$T/bk$v.json" '.results[1].think_ns')" = 0
	check "block v$v: --floor with the hop" test "$("$B" replay "$T/blk$v.trace" --virtual \
		--floor 20us --tier fixed60 --profile "$T/kfs.lua" --json 2>/dev/null |
		jq -r '.results[1].total_ns')" = 85000
done
# The same recording of a 1 GiB image (8 extents of 128 MiB, more than
# its inode holds): the image is the device, so tierfs charged its reads no
# extent leaf (fs/timing.c, the image option), and neither does a replay
# of a block-mode recording: 105us, the recording (a leaf read before the
# first would add its own time).
sed 's/ 268435456 / 1073741824 /' "$T/blk6.txt" > "$T/big6.txt"
"$B" trace undump "$T/big6.txt" -o "$T/big6.trace"
check "block: a large image pays no extent leaf" test "$("$B" replay "$T/big6.trace" --virtual \
	--tier fixed60 --profile "$T/kfs.lua" --json 2>/dev/null | jq -r '.results[1].total_ns')" = 105000
# A block-mode recording made with --loop-hop=false (tiersim disk mount
# passes image, and no hop): tierfs took no hop off and charged the image
# no extent leaf either. Trace format 8 says so with its own bit (0x400,
# model=1034: with the floor and mem): two reads of the same 1 GiB image,
# each held 50us (the 60us tier less the round trip), 60us apart, replay
# to the recording's 110us and the device's 2 reads, as tierfs charged
# them. The same trace in format 7 has no mark (the hop's bit stood for
# the image), so it replays as before: one extent leaf more, 3 reads and
# 170us (the leaf's 50us and a round trip before the first read); so does
# a format 8 trace with the hop and no image (a hop given to a mount of a
# directory), whose tierfs charged the leaf.
mktrace img8 <<'X'
header version=8 mem=0 model=1034 floor_ns=10000
path 1 "/disk.img"
0 50000 read 1 0 4096 4096 1 1073741824 0 1
60000 110000 read 1 4096 4096 4096 1 1073741824 0 1
end drops=0 records=2 t=110000
X
sed 's/^header version=8 mem=0 model=1034 /header version=7 mem=0 model=10 /' "$T/img8.txt" > "$T/img7.txt"
sed 's/^header version=8 mem=0 model=1034 /header version=8 mem=0 model=266 loop_hop_ns=0 /' \
	"$T/img8.txt" > "$T/hop8.txt"
for v in img7 hop8; do "$B" trace undump "$T/$v.txt" -o "$T/$v.trace"; done
for v in img8:110000:2 img7:170000:3 hop8:170000:3; do
	n=${v%%:*} rest=${v#*:}
	check "block $n: device reads and total" test "$("$B" replay "$T/$n.trace" --virtual \
		--tier fixed60 --profile "$T/kfs.lua" --json 2>/dev/null |
		jq -r '.results[1] | "\(.total_ns):\(.device_reads)"')" = "$rest"
done
check "block v8: the image bit dumps" test "$("$B" trace dump "$T/img8.trace" | grep -c ' model=1034 floor_ns=10000$')" = 1
check "block v7: no image bit in its dump" test "$("$B" trace dump "$T/img7.trace" | grep -c ' model=10 floor_ns=10000$')" = 1
# trace stats names the mount: the image without a hop, and a format 7
# hop's image
check "block v8: stats names the image" test "$("$B" trace stats "$T/img8.trace" | grep -c \
	"^mount: a disk image's device (block mode: .*), no loop hop taken off$")" = 1
check "block v8: stats --json image" test "$("$B" trace stats "$T/img8.trace" --json | jq -r .image)" = true
check "block v8: a hop, no image" test "$("$B" trace stats "$T/hop8.trace" --json |
	jq -r '"\(.image) \(.loop_hop_ns)"')" = "false 0"
check "block v6: stats takes the hop for the image" test "$("$B" trace stats "$T/blk6.trace" | grep -c \
	"^mount: a disk image's device (block mode: .*), loop hop taken off 5.00 us$")" = 1
printf 'header version=7 model=1024\n' > "$T/img7bit.txt"
"$B" trace undump "$T/img7bit.txt" -o "$T/img7bit.trace" > "$T/img7bit.err" 2>&1
check "block: the image bit refused in version 7" test $? != 0
check "block: one line naming it" test "$(grep -c '0x400, the disk image, version 8' "$T/img7bit.err")" = 1
# the report names the hop; a version 5 trace dumps as it was (the hop
# stays in mount_opts) and a version 6 trace with its field
"$B" replay "$T/blk6.trace" --virtual --tier fixed60 --profile "$T/kfs.lua" > "$T/b6.txt" 2>&1
check "block: the report names the hop" grep -q "loop-device hop (5.00 us)" "$T/b6.txt"
check "block v5: dump unchanged" test "$("$B" trace dump "$T/blk5.trace" | grep -c 'loop_hop_ns=')" = 0
"$B" trace dump "$T/blk6.trace" > "$T/blk6.dump"
check "block v6: dump" grep -q ' model=266 floor_ns=10000 loop_hop_ns=5000$' "$T/blk6.dump"
# a FUSE-mode mount's "(off)" is no hop: a FUSE recording, whose gap after
# the read loses the round trip (60 + 5 + 60us), and keeps it under the
# loop rule (--loop-issue=off: 60 + 15 + 60us)
sed 's/loop_hop=5000ns(measured)/loop_hop=0ns(off)/' "$T/blk5.txt" > "$T/blk0.txt"
"$B" trace undump "$T/blk0.txt" -o "$T/blk0.trace"
check "block: (off) is a FUSE recording" test "$("$B" replay "$T/blk0.trace" --virtual \
	--kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/kfs.lua" --json 2>/dev/null |
	jq -r '.results[1].total_ns')" = 125000
check "block: (off) keeps the loop rule" test "$("$B" replay "$T/blk0.trace" --virtual \
	--kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --loop-issue=off --tier fixed60 --profile "$T/kfs.lua" --json 2>/dev/null |
	jq -r '.results[1].total_ns')" = 135000
# Its size and window parts (trace format 7, loop_size_ns and
# loop_window_ns, bit 0x200): tierfs also took a 128 KiB read's size part
# (12.4us) and a read's window part (3us) off each reply. Two 128 KiB reads
# on the 60us tier, each held 60 - 15 - 15.4 = 29.6us, 30.4us apart (the
# round trip, the hop and both parts). A plain replay takes them off as
# tierfs did: 29.6 + 30.4 + 29.6 = 89.6us, the recording (with the hop
# alone it would be 45 + 30.4 + 45 = 120.4us). With --kernel-fs each read
# pays its whole 60us and the gap loses all four: 120us. --floor 20us:
# 19.6 + 30.4 + 19.6 = 69.6us.
mktrace blk7 <<'X'
header version=7 mem=0 model=778 floor_ns=10000 loop_hop_ns=5000 loop_size_ns=12400 loop_window_ns=3000
path 1 "/disk.img"
0 29600 read 1 0 131072 131072 1 268435456 0 1
60000 89600 read 1 131072 131072 131072 1 268435456 0 1
end drops=0 records=2 t=89600
X
# a version 6 trace: the size part in mount_opts, no window part; each
# read held 32.6us, 27.4us apart: 92.6us replayed (117.4us without it),
# 120us with --kernel-fs
mktrace blk6s <<'X'
header version=6 mem=0 model=266 floor_ns=10000 loop_hop_ns=5000 mount_opts="tier=fixed60,floor=10000ns,loop_hop=5000ns(measured),loop_hop_128k=12400ns(measured)"
path 1 "/disk.img"
0 32600 read 1 0 131072 131072 1 268435456 0 1
60000 92600 read 1 131072 131072 131072 1 268435456 0 1
end drops=0 records=2 t=92600
X
for v in 7:89600:69600 6s:92600:72600; do
	n=${v%%:*} rec=${v#*:} fl=${rec#*:} rec=${rec%%:*}
	check "block v$n: parts as recorded" test "$("$B" replay "$T/blk$n.trace" --virtual \
		--tier fixed60 --profile "$T/kfs.lua" --json 2>/dev/null | jq -r '.results[1].total_ns')" = "$rec"
	check "block v$n: parts under --kernel-fs" test "$("$B" replay "$T/blk$n.trace" --virtual \
		--kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/kfs.lua" --json 2>/dev/null |
		jq -r '.results[1] | "\(.total_ns) \(.think_ns)"')" = "120000 0"
	check "block v$n: parts with --floor" test "$("$B" replay "$T/blk$n.trace" --virtual \
		--floor 20us --tier fixed60 --profile "$T/kfs.lua" --json 2>/dev/null |
		jq -r '.results[1].total_ns')" = "$fl"
done
"$B" replay "$T/blk7.trace" --virtual --tier fixed60 --profile "$T/kfs.lua" > "$T/b7.txt" 2>&1
check "block v7: the report names the parts" \
	grep -q "size part (12.40 us for a 128 KiB request, in proportion past 4 KiB) and window part (3.00 us a read)" "$T/b7.txt"
"$B" trace dump "$T/blk7.trace" > "$T/blk7.dump"
check "block v7: dump" grep -q ' model=778 floor_ns=10000 loop_hop_ns=5000 loop_size_ns=12400 loop_window_ns=3000$' "$T/blk7.dump"
check "block v6: the size part stays in mount_opts" test "$("$B" trace dump "$T/blk6s.trace" | grep -c 'loop_size_ns=')" = 0
printf 'header version=7 model=256 loop_size_ns=5000\n' > "$T/nopart.txt"
"$B" trace undump "$T/nopart.txt" -o "$T/nopart.trace" > "$T/nopart.err" 2>&1
check "block: size part without its bit refused" test $? != 0
check "block: one line naming the part" test "$(grep -c 'loop_size_ns without its bit (0x200)' "$T/nopart.err")" = 1
# bad input: the field without its bit, the bit in a version 5 header
printf 'header version=6 loop_hop_ns=5000\n' > "$T/nobit.txt"
"$B" trace undump "$T/nobit.txt" -o "$T/nobit.trace" > "$T/nobit.err" 2>&1
check "block: hop without its bit refused" test $? != 0
check "block: one line naming it" test "$(grep -c 'loop_hop_ns without its bit' "$T/nobit.err")" = 1
printf 'header version=5 model=256\n' > "$T/v5bit.txt"
"$B" trace undump "$T/v5bit.txt" -o "$T/v5bit.trace" > "$T/v5bit.err" 2>&1
check "block: bit 0x100 refused in version 5" grep -q "0x100" "$T/v5bit.err"

# Block mode's request clock (trace format 9, issue items): tierfs charged
# each of the two 128 KiB reads from the loop device's issue, 40 and 30us
# before it received them, and replied the recorded hop and lateness means
# (15 and 20us) before the model's completion (issue + 60us): at 55 and
# 140us, the second received 75us after the first's reply. A plain replay
# on the same tier charges them so: 5 + 75 + 10 = 90us, the recording; on a
# 100us tier 45 + 75 + 50 = 170us (from the receipt less the floor, the hop
# and its parts, without the items: 69.6 + 75 + 69.6 = 214.2us, and 134.2us
# on its own tier); on a 20us tier each reply comes at its receipt (the
# model's completion less the hop is past): 0 + 75 + 0. --kernel-fs charges
# each read its whole 60us from the issue and keeps the gap from the first
# one's modeled completion (the kernel's, which tierfs aimed at) to the
# second one's issue, 30us: 150us, the recorded issue to completion
# (without the items: 60 + 44.6 + 60).
cat >> "$T/kfs.lua" <<'X'
tier "fixed100" { desc = "test", source = "test", latency = { read = { fixed = "100us" } } }
tier "fixed20" { desc = "test", source = "test", latency = { read = { fixed = "20us" } } }
X
mktrace blk9 <<'X'
header version=9 mem=0 model=1802 floor_ns=10000 loop_hop_ns=5000 loop_size_ns=12400 loop_window_ns=3000
path 1 "/disk.img"
50000 55000 read 1 0 131072 131072 1 268435456 0 1
issue 1 issue_ns=10000 end_ns=70000 off_ns=15000
130000 140000 read 1 131072 131072 131072 1 268435456 0 1
issue 1 issue_ns=100000 end_ns=160000 off_ns=20000
end drops=0 records=2 t=140000
X
grep -v '^issue ' "$T/blk9.txt" > "$T/blk9n.txt"
"$B" trace undump "$T/blk9n.txt" -o "$T/blk9n.trace"
for v in blk9:fixed60:90000:2 blk9:fixed100:170000:2 blk9:fixed20:75000:2 \
	blk9n:fixed60:134200:null blk9n:fixed100:214200:null; do
	n=${v%%:*} rest=${v#*:} tier=${rest%%:*} want=${rest#*:}
	check "request clock: $n on $tier" test "$("$B" replay "$T/$n.trace" --virtual \
		--tier "$tier" --profile "$T/kfs.lua" --json 2>/dev/null |
		jq -r '.results[1] | "\(.total_ns):\(.from_issue)"')" = "$want"
done
check "request clock: recorded" test "$("$B" replay "$T/blk9.trace" --virtual --tier fixed60 \
	--profile "$T/kfs.lua" --json 2>/dev/null | jq -r '.results[0].total_ns')" = 90000
for v in blk9:150000 blk9n:164600; do
	check "request clock: ${v%%:*} --kernel-fs" test "$("$B" replay "$T/${v%%:*}.trace" --virtual \
		--kernel-fs --fuse-cpu 0 --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/kfs.lua" --json 2>/dev/null |
		jq -r '.results[1].total_ns')" = "${v#*:}"
done
"$B" replay "$T/blk9.trace" --virtual --tier fixed60 --profile "$T/kfs.lua" > "$T/b9.txt" 2>&1
check "request clock: the report says so" \
	grep -q "^block mode: 2 of the recording's requests were charged from the loop device's issue" "$T/b9.txt"
# the text form round-trips, and stats shows the clock
"$B" trace dump "$T/blk9.trace" > "$T/blk9b.txt"
"$B" trace undump "$T/blk9b.txt" -o "$T/blk9b.trace"
check "request clock: binary round trip" cmp -s "$T/blk9.trace" "$T/blk9b.trace"
check "request clock: stats" test "$("$B" trace stats "$T/blk9.trace" | grep -c \
	'^request clock (block mode: 2 of 2 reads and writes charged from the loop device.s issue):$')" = 1
check "request clock: stats --json" test "$("$B" trace stats "$T/blk9.trace" --json |
	jq -r '.request_clock | "\(.requests) \(.issue_to_receipt.max_ns) \(.taken_off.mean_ns)"')" = "2 40000 17500"
# bad input, one line each: an issue line in a version 8 trace, one that
# is not after a modeled read or write, one issued after the receipt, two
# for one record, one before the record's cpu line
bad() { # bad NAME WANT: $T/NAME.txt refused with WANT in one line
	"$B" trace undump "$T/$1.txt" -o "$T/$1.trace" > "$T/$1.err" 2>&1
	check "request clock: $1 refused" test $? != 0
	check "request clock: $1's line" test "$(wc -l < "$T/$1.err"):$(grep -c "$2" "$T/$1.err")" = 1:1
}
sed 's/^header version=9 mem=0 model=1802 /header version=8 mem=0 model=1802 /' "$T/blk9.txt" > "$T/i8.txt"
bad i8 "issue line in a version 8 trace (version 9's)"
sed 's/^50000 55000 read 1 0 131072 131072 1 268435456 0 1$/50000 55000 open 1 0 0 0 1 0 0 0/' \
	"$T/blk9.txt" > "$T/iop.txt"
bad iop "issue line must follow its IO line (a read or write the model charged)"
sed 's/issue_ns=10000 /issue_ns=50001 /' "$T/blk9.txt" > "$T/ilate.txt"
bad ilate "with issue_ns <= the record's submit_ns"
sed '4p' "$T/blk9.txt" > "$T/itwo.txt"
bad itwo "one per record"
sed '4a cpu 1 pid=5 ppid=2 on_ns=0 runq_ns=0' "$T/blk9.txt" > "$T/icpu.txt"
bad icpu "cpu line must follow its IO line directly (one sample per record, before its issue line)"

# the anchor rule: a request of thread id 0 (the kernel's release after a
# close) follows the workload request before it by its recorded distance
mktrace anchor <<'X'
header version=1
path 1 "/f"
0 10000 read 1 0 4096 4096 5 8192 0 0
20000 30000 read 1 4096 4096 4096 5 8192 0 0
31000 31500 close 1 0 0 0 0 0 0 4
X
"$B" replay "$T/anchor.trace" --virtual --tier unlimited --json > "$T/an.json"
check "anchor total" test "$(j "$T/an.json" '.results[1].total_ns')" = 21500
check "anchor think" test "$(j "$T/an.json" '.results[1].think_ns')" = 10000

# the wait rule: thread 5 reads (10us), then in a 90us gap is 20us on a
# CPU and 70us off it (waiting, longer than the 30us it was busy before:
# paced by what it waited for), then reads again. On unlimited (every read
# 0) it still wakes at its recorded 100us (closed loop: 90us); on a tier
# whose reads take 60us the wait absorbs the 50us, so the second read still
# issues at 100us (closed loop: at 150us).
mktrace wait <<'X'
header version=2
path 1 "/f"
0 10000 read 1 0 4096 4096 5 8192 0 0
cpu 5 pid=5 ppid=1 on_ns=1000 runq_ns=0
100000 110000 read 1 4096 4096 4096 5 8192 0 0
cpu 5 pid=5 ppid=1 on_ns=16000 runq_ns=5000
end drops=0 records=2 t=110000
X
fixed_tiers "$T/fixed.lua"
"$B" replay "$T/wait.trace" --virtual --tier unlimited --tier fixed60 --profile "$T/fixed.lua" \
	--json > "$T/w.json" 2> "$T/w.err"
check "wait: no notice with CPU samples" test ! -s "$T/w.err"
check "wait: recorded total" test "$(j "$T/w.json" '.results[0].total_ns')" = 110000
check "wait: recorded waiting" test "$(j "$T/w.json" '.results[0].waited_ns')" = 70000
check "wait: unlimited total" test "$(j "$T/w.json" '.results[1].total_ns')" = 100000
check "wait: unlimited think" test "$(j "$T/w.json" '.results[1].think_ns')" = 100000
check "wait: fixed60 total" test "$(j "$T/w.json" '.results[2].total_ns')" = 160000
check "wait: fixed60 think" test "$(j "$T/w.json" '.results[2].think_ns')" = 40000
# reads of 100us: 90us late, more than the 70us wait absorbs; the work
# (20us) still follows the first read: the second issues at 120us
"$B" replay "$T/wait.trace" --virtual --tier fixed100 --profile "$T/fixed.lua" --json > "$T/wp.json"
check "wait: partly absorbed" test "$(j "$T/wp.json" '.results[1].total_ns')" = 220000
"$B" replay "$T/wait.trace" --virtual --tier fixed60 --profile "$T/fixed.lua" --closed-loop \
	--json > "$T/wc.json"
check "wait: closed loop total" test "$(j "$T/wc.json" '.results[1].total_ns')" = 210000
check "wait: closed loop think" test "$(j "$T/wc.json" '.results[1].think_ns')" = 90000
check "wait: closed loop waiting" test "$(j "$T/wc.json" '.results[1].waited_ns')" = 0
# clocks left unread (version 4, flags=1): thread 5 reads back to back,
# 10us apart, then waits 90us. The reader fills the unread clocks: the run
# ended for its budget (flags=2) spreads its 6us of CPU over its three
# 10us gaps (3000, 5000); the last short gap gets the thread's measured
# share, 0.2 (9000), and the long gap the rest (26us on a CPU, 5us
# queued). The replay is then the same, to the nanosecond, as that of the
# trace with those clocks read; with no round trip in the header every
# gap's time off the CPU is waiting: 4 x 8us + 59us.
cat > "$T/unread.txt" <<'X'
header version=4
path 1 "/f"
0 10000 read 1 0 4096 4096 5 8192 0 0
cpu 5 pid=5 ppid=1 on_ns=1000 runq_ns=0
20000 30000 read 1 4096 4096 4096 5 8192 0 0
cpu 5 pid=5 ppid=1 on_ns=0 runq_ns=0 sys_ns=0 late_ns=0 flags=1
40000 50000 read 1 8192 4096 4096 5 8192 0 0
cpu 5 pid=5 ppid=1 on_ns=0 runq_ns=0 sys_ns=0 late_ns=0 flags=1
60000 70000 read 1 12288 4096 4096 5 8192 0 0
cpu 5 pid=5 ppid=1 on_ns=7000 runq_ns=0 sys_ns=0 late_ns=0 flags=2
80000 90000 read 1 16384 4096 4096 5 8192 0 0
cpu 5 pid=5 ppid=1 on_ns=0 runq_ns=0 sys_ns=0 late_ns=0 flags=1
180000 190000 read 1 20480 4096 4096 5 8192 0 0
cpu 5 pid=5 ppid=1 on_ns=35000 runq_ns=5000
end drops=0 records=6 t=190000
X
awk 'BEGIN { n = split("3000 5000 7000 9000", v) }
/^cpu/ && / flags=/ { sub(/on_ns=[0-9]+/, "on_ns=" v[++k]); sub(/ flags=[0-9]+/, "") } 1' \
	"$T/unread.txt" > "$T/read.txt"
for f in unread read; do
	"$B" trace undump "$T/$f.txt" -o "$T/$f.trace"
	"$B" replay "$T/$f.trace" --virtual --tier unlimited --tier fixed60 --profile "$T/fixed.lua" \
		--json | jq -c '[.results[] | [.total_ns, .think_ns, .waited_ns]]' > "$T/$f.res"
done
check "unread: the same replay as with the clocks read" cmp -s "$T/unread.res" "$T/read.res"
check "unread: the dump keeps them unread" test "$("$B" trace dump "$T/unread.trace" |
	grep -c 'on_ns=0 runq_ns=0 sys_ns=0 late_ns=0 flags=1$')" = 3
check "unread: the waits" test "$(jq -r '.[1][2]' "$T/unread.res")" = 91000
check "unread: fixed60 total" test "$(jq -r '.[2][0]' "$T/unread.res")" = 180000
# the stream rule: a kernel thread's requests (the loop device's worker in
# block mode; its parent is kthreadd, pid 2) follow the stream, not its own
# waits. Recorded on a 10us tier: read 2 issues 5us after read 1 with
# nothing completed between (a readahead split in two: the recorded
# spacing); read 3 issues 85us after read 2 completed (the reader consumed
# it, then asked for more), the worker off the CPU meanwhile. On fixed60:
# 0-60, 5-65, 150-210; on unlimited: 0, 5, 90. Read as the worker's own
# wait (the wait rule, as for a thread of the application), read 3 would
# issue at its recorded 100us on both: the slower tier absorbed.
mktrace kstream <<'X'
header version=2
path 1 "/data.ext4"
0 10000 read 1 0 4096 4096 32 4194304 0 0
cpu 32 pid=32 ppid=2 on_ns=1000 runq_ns=0
5000 15000 read 1 1048576 4096 4096 32 4194304 0 0
cpu 32 pid=32 ppid=2 on_ns=2000 runq_ns=0
100000 110000 read 1 2097152 4096 4096 32 4194304 0 0
cpu 32 pid=32 ppid=2 on_ns=3000 runq_ns=0
end drops=0 records=3 t=110000
X
"$B" replay "$T/kstream.trace" --virtual --tier unlimited --tier fixed60 --profile "$T/fixed.lua" \
	--json > "$T/ks.json"
check "stream: recorded total" test "$(j "$T/ks.json" '.results[0].total_ns')" = 110000
check "stream: unlimited total" test "$(j "$T/ks.json" '.results[1].total_ns')" = 90000
check "stream: fixed60 total" test "$(j "$T/ks.json" '.results[2].total_ns')" = 210000
check "stream: fixed60 think" test "$(j "$T/ks.json" '.results[2].think_ns')" = 85000
# the same requests from a thread of the application: the wait rule
sed 's/pid=32 ppid=2/pid=32 ppid=1/' "$T/kstream.txt" > "$T/ustream.txt"
"$B" trace undump "$T/ustream.txt" -o "$T/ustream.trace"
"$B" replay "$T/ustream.trace" --virtual --tier fixed60 --profile "$T/fixed.lua" --json > "$T/us.json"
check "stream: an application thread's wait absorbs" \
	test "$(j "$T/us.json" '.results[1].total_ns')" = 160000
# the timeline: thread 5's track has its two reads, the 20us of work
# right after the first and the 70us wait before the second
"$B" trace export "$T/wait.trace" --format perfetto -o "$T/w.perfetto.json" 2> /dev/null
check "perfetto: valid JSON" jq -e .traceEvents "$T/w.perfetto.json" > /dev/null
check "perfetto: IO slices" test "$(jq '[.traceEvents[] | select(.cat=="io")] | length' "$T/w.perfetto.json")" = 2
check "perfetto: work slice" test "$(jq -c '[.traceEvents[] | select(.name=="work") | [.ts, .dur, .pid, .tid]]' "$T/w.perfetto.json")" = '[[10,20,5,5]]'
check "perfetto: waiting slice" test "$(jq -c '[.traceEvents[] | select(.name=="waiting") | [.ts, .dur]]' "$T/w.perfetto.json")" = '[[30,70]]'
check "perfetto: v1 gaps are think" test "$("$B" trace export "$T/join.trace" --format perfetto -o - 2> /dev/null | jq '[.traceEvents[] | select(.name=="think")] | length')" = 2
"$B" trace export "$T/wait.trace" --format nope -o "$T/x" 2> "$T/fmt.err"
check "export: unknown format is a usage error" test $? = 2

# a wait shorter than the thread was busy before it (40us off the CPU
# after a 50us read and 10us of work): paced by itself, it never grows, so
# on unlimited the second read comes at 50us, not at its recorded 100us; on
# fixed60 (10us late) the wait absorbs that: still at 100us
mktrace self <<'X'
header version=2
path 1 "/f"
0 50000 read 1 0 4096 4096 7 8192 0 0
cpu 7 pid=7 ppid=1 on_ns=1000 runq_ns=0
100000 150000 read 1 4096 4096 4096 7 8192 0 0
cpu 7 pid=7 ppid=1 on_ns=11000 runq_ns=0
end drops=0 records=2 t=150000
X
"$B" replay "$T/self.trace" --virtual --tier unlimited --tier fixed60 --profile "$T/fixed.lua" \
	--json > "$T/sp.json"
check "self-paced: unlimited" test "$(j "$T/sp.json" '.results[1].total_ns')" = 50000
check "self-paced: fixed60" test "$(j "$T/sp.json" '.results[2].total_ns')" = 160000
# tierfs replies at the later of the model's time and its own syscall's
# end, and as late behind it as it was: reads whose syscall took 40us take
# 40us on unlimited too (45us when the reply came 5us late; the 10us gap
# between them is work); without sys_ns they take no time
for sys in "90000 sys_ns=40000" "100000 sys_ns=40000 late_ns=5000" "10000"; do
	# shellcheck disable=SC2086 # the case's fields, one word each
	set -- $sys
	want=$1
	shift
	cat > "$T/sys.txt" <<X
header version=2
path 1 "/f"
0 40000 read 1 0 4096 4096 8 8192 0 0
cpu 8 pid=8 ppid=1 on_ns=1000 runq_ns=0 $*
50000 90000 read 1 4096 4096 4096 8 8192 0 0
cpu 8 pid=8 ppid=1 on_ns=11000 runq_ns=0 $*
end drops=0 records=2 t=90000
X
	"$B" trace undump "$T/sys.txt" -o "$T/sys.trace"
	"$B" replay "$T/sys.trace" --virtual --tier unlimited --json > "$T/sys.json"
	check "syscall time and lateness kept ($*)" test "$(j "$T/sys.json" '.results[1].total_ns')" = "$want"
done

# a version 1 trace (no samples) replays closed loop, and says so
"$B" replay "$T/join.trace" --virtual --tier unlimited > /dev/null 2> "$T/v1.err"
check "v1 notice" grep -q "notice: no CPU samples (trace format version 1): replaying closed loop" "$T/v1.err"

# a real tier: slower than unlimited, and exactly reproducible
"$B" replay "$T/s.trace" --virtual --tier ssd-cloud --tier unlimited --json > "$T/a.json"
"$B" replay "$T/s.trace" --virtual --tier ssd-cloud --tier unlimited --json > "$T/b.json"
check "virtual is deterministic" cmp "$T/a.json" "$T/b.json"
check "ssd-cloud slower" test "$(j "$T/a.json" '.results[1].total_ns')" -gt 5000
check "side by side" test "$(j "$T/a.json" '.results|length')" = 3
"$B" replay "$T/s.trace" --virtual --tier ssd-cloud > "$T/table.txt"
check "table" grep -q "vs recorded" "$T/table.txt"
"$B" replay "$T/s.trace" --virtual --tier no-such-tier 2> "$T/err"
check "unknown tier exit" test $? = 1
check "unknown tier named" grep -q "no-such-tier" "$T/err"
"$B" replay "$T/s.trace" --tier ssd-cloud 2>/dev/null
check "no mode is usage" test $? = 2

# real time: refuses to write without --allow-writes
mkdir "$T/dir"
"$B" replay "$T/s.trace" --target "$T/dir" 2> "$T/err"
check "refuses writes" test $? = 1
check "says --allow-writes" grep -q -- "--allow-writes" "$T/err"
check "nothing created" test -z "$(ls "$T/dir")"
"$B" replay "$T/s.trace" --target "$T/dir" --allow-writes --json > "$T/r.json" 2> "$T/err"
check "real replay" test $? = 0
check "real ops" test "$(j "$T/r.json" '.results[1].ops')" = 6
check "real bytes" test "$(j "$T/r.json" '.results[1].bytes')" = $((3 * 4096 + 1048576))
check "file created from the trace" test "$(stat -c %s "$T/dir/data/a")" = 69632
check "progress shown" grep -q "setup: created" "$T/err"

# a read-only trace replays without --allow-writes once the files exist
grep -v -e ' write ' -e ' fsync ' "$S/small.txt" | sed 's/records=6/records=4/' > "$T/ro.txt"
"$B" trace undump "$T/ro.txt" -o "$T/ro.trace"
"$B" replay "$T/ro.trace" --target "$T/dir" --json > "$T/ro.json"
check "read-only replay" test "$(j "$T/ro.json" '.results[1].ops')" = 4
check "read-only no errors" test "$(j "$T/ro.json" '.results[1].errors')" = 0
mkdir "$T/empty"
"$B" replay "$T/ro.trace" --target "$T/empty" 2> "$T/err"
check "missing file refused" grep -q "missing" "$T/err"
cp -r "$T/dir" "$T/short"
find "$T/short" -type f -exec truncate -s 1 {} +
"$B" replay "$T/ro.trace" --target "$T/short" 2> "$T/err"
check "short file refused" grep -q "too short" "$T/err"

# the FUSE round-trip note names the recording's floor, and --floor apart
sed 's/mount_opts=""/mount_opts="floor=50000ns"/' "$S/small.txt" > "$T/fl.txt"
"$B" trace undump "$T/fl.txt" -o "$T/fl.trace"
"$B" replay "$T/fl.trace" --virtual --tier ssd-cloud --floor 30us > "$T/fl.out"
check "floor note recorded" grep -q "(50.00 us, the recording's floor; virtual columns: --floor 30.00 us)" "$T/fl.out"

# --capacity changes what the tiers run with, not what the header says was recorded
"$B" replay "$T/s.trace" --virtual --tier ssd-cloud --capacity 1TiB > "$T/cap.txt"
check "recorded capacity kept" grep -q "recorded on ssd-cloud (capacity 40.00 GiB, mem none); replayed with capacity 1.00 TiB" "$T/cap.txt"

# a target that does not exist is refused, not created
"$B" replay "$T/s.trace" --target "$T/nodir" --allow-writes 2> "$T/err"
check "missing target exit" test $? = 1
check "missing target named" grep -q -- "--target $T/nodir" "$T/err"
check "missing target not created" test ! -e "$T/nodir"

# a path that climbs out of the target is refused
printf 'header version=1\npath 1 "/../escape"\n0 1 read 1 0 4096 4096 1 1 0 0\n' > "$T/esc.txt"
"$B" trace undump "$T/esc.txt" -o "$T/esc.trace"
"$B" replay "$T/esc.trace" --target "$T/dir" --allow-writes 2> "$T/err"
check "escape refused" grep -q "leaves the target" "$T/err"
check "no escape file" test ! -e "$T/escape"
# close_charged_as_metadata: ops tierfs does not charge (close, getattr,
# flush...) cost no metadata latency in a replay either, even in a trace
# that does not mark them (a fio iolog's close): they keep their recorded
# latency, as marked ones do. The open costs the file system's read
# (tier/fsmeta.h): the root folder's block, 70us (f's inode, 12, is in the
# root's inode-table window, which the mount read with the root's inode: a
# mount's block trace reads the root's table block and the 32 after it
# before any lookup); the getattr of f after it finds both in memory.
cat > "$T/meta.lua" <<'X'
tier "meta70" { desc = "test", source = "test", latency = { read = { fixed = "70us" }, meta = { fixed = "70us" } } }
X
mktrace close <<'X'
header version=1
path 1 "/f"
0 0 open 1 0 0 0 1 0 0 0
1000 1000 close 1 0 0 0 1 0 0 0
2000 2000 getattr 1 0 0 0 1 0 0 0
end drops=0 records=3 t=2000
X
"$B" replay "$T/close.trace" --virtual --tier meta70 --profile "$T/meta.lua" --closed-loop \
	--no-think --json > "$T/close.json"
check "close and getattr free" test "$(j "$T/close.json" '.results[1].total_ns')" = 70000
# unlinked_file_forgotten: an unlink walks its path (the file-system rule)
# and then drops the file from the page-cache model, as tierfs does: 64 KiB
# read twice (the second a hit), unlinked, read again from the device, with
# its readahead window (the first read of a file: 128 KiB, tier/cache.c).
cat > "$T/unl.txt" <<'X'
header version=1 mem=1048576
path 1 "/f"
0 0 read 1 0 65536 65536 1 1048576 0 0
1000 1000 read 1 0 65536 65536 1 1048576 0 0
2000 2000 unlink 1 0 0 0 1 0 0 0
3000 3000 read 1 0 65536 65536 1 1048576 0 0
end drops=0 records=4 t=3000
X
sed "s/unlink/getattr/" "$T/unl.txt" > "$T/kept.txt" # the same walk, nothing dropped
for t in unl kept; do
	"$B" trace undump "$T/$t.txt" -o "$T/$t.trace"
	"$B" replay "$T/$t.trace" --virtual --tier meta70 --profile "$T/meta.lua" --closed-loop \
		--no-think --json > "$T/$t.json"
done
check "unlink forgets the file" test \
	$(( $(j "$T/unl.json" '.results[1].device_read_bytes') - \
	    $(j "$T/kept.json" '.results[1].device_read_bytes') )) = 131072
check "the read again is one more device request" test \
	$(( $(j "$T/unl.json" '.results[1].device_reads') - \
	    $(j "$T/kept.json" '.results[1].device_reads') )) = 1
# names_made_wait_on_no_write: a create reads the folder it makes the name
# in (the root's block, 70us) and no metadata request of its own; a second
# create there reads nothing; the rename of /n and the unlink of /m find
# their inodes (12-14) in the root's inode-table window, read at mount
# with the root's inode (traces/tier_rule.h: the journal writes them at
# commit). One metadata request each would take 280us.
mktrace names <<'X'
header version=1
path 1 "/n"
path 2 "/n2"
path 3 "/m"
0 0 create 1 0 0 0 1 0 0 0
1000 1000 create 2 0 0 0 1 0 0 0
2000 2000 rename 1 0 0 0 1 0 3 0
3000 3000 unlink 3 0 0 0 1 0 0 0
end drops=0 records=4 t=3000
X
"$B" replay "$T/names.trace" --virtual --tier meta70 --profile "$T/meta.lua" --closed-loop \
	--no-think --json > "$T/names.json"
check "names made: folder reads only" test "$(j "$T/names.json" '.results[1].total_ns')" = 70000
# journal_commit_at_fsync: an fsync after names were made waits for the
# journal's commit (tier/fsmeta.h): the changed blocks written at once
# (100us), a flush (1ms), the commit block (100us), a flush (1ms), then
# the fsync's own flush (1ms); a second fsync has nothing to commit.
cat > "$T/jr.lua" <<'X'
tier "jr" { desc = "test", source = "test", latency = { read = { fixed = "70us" },
  meta = { fixed = "70us" }, write = { fixed = "100us" }, sync = { fixed = "1ms" } } }
X
cat > "$T/jc.txt" <<'X'
header version=1
path 1 "/a"
path 2 "/b"
0 0 create 1 0 0 0 1 0 0 0
1000 1000 create 2 0 0 0 1 0 0 0
end drops=0 records=2 t=1000
X
sed 's/^end.*/2000 2000 fsync 1 0 0 0 1 0 0 0\nend drops=0 records=3 t=2000/' "$T/jc.txt" > "$T/ja.txt"
sed 's/^end.*/3000 3000 fsync 1 0 0 0 1 0 0 0\nend drops=0 records=4 t=3000/' "$T/ja.txt" > "$T/jb.txt"
for t in jc ja jb; do
	"$B" trace undump "$T/$t.txt" -o "$T/$t.trace"
	"$B" replay "$T/$t.trace" --virtual --tier jr --profile "$T/jr.lua" --closed-loop \
		--no-think --json > "$T/$t.json"
done
tc=$(j "$T/jc.json" '.results[1].total_ns') ta=$(j "$T/ja.json" '.results[1].total_ns')
tb=$(j "$T/jb.json" '.results[1].total_ns')
check "an fsync waits for the journal's commit" test $((ta - tc)) = 3200000
check "a second fsync commits nothing" test $((tb - ta)) = 1000000
# trace_format_v2_still_reads: data/v2-tierfs.trace was written by tierfs
# in format version 2, the tier model's options only in its mount_opts
# (seed 7, floor 35591ns, mem 256 KiB, dirty_limit, ra_max). It replays to
# the nanosecond to the figures pinned here (those of the tiersim that
# wrote it until opens and lookups became the file system's reads,
# tier/fsmeta.h, the page-cache model's readahead Linux's windows, and a
# chunk's pages from two reads there at their own read's time, tier/cache.c:
# its IO wait fell from 29.3 to 27.2 ms, its span on ssd-cloud grew as its
# five threads' requests met the device in another order; then the device's
# normal drawn by a ziggurat, core/rng.h: the same lognormal by other draws,
# ssd-cloud 15,724,562 -> 14,343,908 ns and nvme-local 7,417,910 -> 7,387,771,
# inside what seeds 1-12 gave with the old draw: 14.18-16.32 ms and
# 7.386-7.447 ms; then the inode tables where mke2fs puts them, tier/fsmeta.h:
# the open of /d/f0 reads its inode's block (1120) as a request of its own,
# waited for, and blocks 1121-1123 as readahead sent with it, not waited
# for, where one request of 1120-1123 was charged; the one more request
# takes one more of the tier's latency draws, so every later request draws
# another: ssd-cloud 14,343,908 -> 16,709,554 ns (25 -> 26 device reads)
# and nvme-local 7,387,771 -> 7,388,937, inside what seeds 1-12 give with
# the new rule, 13.24-17.96 ms (median 16.49) and 7.385-7.410 ms; with
# the old one 14.26-17.68 ms (median 15.72); then the mount's read of the
# root's inode with its window of the table, 1120 and on, as a mount's
# block trace shows it: /d's and /d/f0's inodes are in that window, so the
# open reads only the two folders' blocks, 4 -> 2 metadata reads on
# either tier, and every later request draws another: ssd-cloud
# 16,709,554 -> 14,719,549 ns (26 -> 25 device reads: its data reads met
# the device in another order, one more) and nvme-local 7,388,937 ->
# 7,406,220 (24 -> 22), inside what seeds 1-12 give with the mount's read,
# 13.66-17.24 ms (median 14.68) and 7.389-7.418 ms; then each request's
# latency drawn from the record's identity, not from the order the device
# serves requests in, tier/device.c: ssd-cloud 14,719,549 -> 17,377,627 ns
# and nvme-local 7,406,220 -> 7,384,741, inside what seeds 1-12 give with
# keyed draws, 13.55-17.38 ms (median 15.15) and 7.385-7.442 ms), and so
# does the same trace in version 3, where they are header fields.
"$B" replay "$S/v2-tierfs.trace" --virtual --tier ssd-cloud --tier nvme-local --json > "$T/v2.json"
check "v2 trace: figures as written" \
	test "$(jq -c '[.results[].total_ns]' "$T/v2.json")" = "[15571759,17377627,7384741]"
"$B" trace dump "$S/v2-tierfs.trace" > "$T/v2.txt"
check "v2 trace: dumped as version 2" grep -q "^header version=2 .*seed=7,floor=35591ns" "$T/v2.txt"
check "v2 trace: no model fields in its text" sh -c "! grep -q ' model=' '$T/v2.txt'"
"$B" trace undump "$T/v2.txt" -o "$T/v2back.trace"
check "v2 trace: written back byte for byte" cmp "$S/v2-tierfs.trace" "$T/v2back.trace"
sed '/^header/{s/version=2/version=3/;s/$/ model=127 seed=7 floor_ns=35591 dirty_limit=131072 ra_max=65536 mem_bps=0/;s/mount_opts="[^"]*"/mount_opts=""/}' \
	"$T/v2.txt" > "$T/v3.txt"
"$B" trace undump "$T/v3.txt" -o "$T/v3.trace"
"$B" replay "$T/v3.trace" --virtual --tier ssd-cloud --tier nvme-local --json > "$T/v3.json"
check "v3 trace: same figures from the fields" \
	test "$(jq -c '[.results[].total_ns]' "$T/v3.json")" = "[15571759,17377627,7384741]"
sed 's/version=3/version=2/;s/ model=127.*$//' "$T/v3.txt" > "$T/v2nomodel.txt"
"$B" trace undump "$T/v2nomodel.txt" -o "$T/v2nomodel.trace"
"$B" replay "$T/v2nomodel.trace" --virtual --tier ssd-cloud --json > "$T/v2n.json"
check "v2 trace without its options: another prediction" \
	test "$(jq -c '.results[1].total_ns' "$T/v2n.json")" != 17113836
# several recordings combined: three runs of one reader whose second read
# came 1, 3 and 2 us after the first ended (on a tier with no latency the
# prediction is that gap). Each is replayed; then the recordings' spans
# from the first request (3, 5, 4 us: median 4, -25.0% to +25.0%) and each
# tier's median, lowest and highest over them (2, 1 and 3 us).
for g in 1000 3000 2000; do
	printf 'header version=1\npath 1 "/f"\n0 1000 read 1 0 4096 4096 2 8192 0 0\n%d %d read 1 4096 4096 4096 2 8192 0 0\n' \
		$((1000 + g)) $((2000 + g)) > "$T/g$g.txt"
	"$B" trace undump "$T/g$g.txt" -o "$T/g$g.trace"
done
"$B" replay "$T/g1000.trace" "$T/g3000.trace" "$T/g2000.trace" --virtual --tier unlimited \
	--json > "$T/many.json" 2> /dev/null
check "several: each replayed" test "$(jq -c '[.traces[].results[1].total_ns]' "$T/many.json")" = "[1000,3000,2000]"
check "several: the recordings' spans" test "$(jq -c '.combined.recorded_ns' "$T/many.json")" = "[3000,5000,4000]"
check "several: the band" \
	test "$(jq -c '.combined.predict[0] | [.median_ns, .low_ns, .high_ns]' "$T/many.json")" = "[2000,1000,3000]"
"$B" replay "$T/g1000.trace" "$T/g3000.trace" "$T/g2000.trace" --virtual --tier unlimited \
	> "$T/many.txt" 2> /dev/null
check "several: the own deviation in the text" grep -q "4.00 us, 3.00 us to 5.00 us (-25.0% to +25.0%" "$T/many.txt"
check "several: the band in the text" grep -Eq "unlimited +2.00 us +1.00 us - 3.00 us" "$T/many.txt"
# refused DESC TEXT CMD...: CMD exits 2 with one non-empty line on stderr holding TEXT
refused() {
	what=$1 want=$2
	shift 2
	rc=0
	out=$("$@" 2>&1 >/dev/null) || rc=$?
	check "$what: exit status 2 (got $rc)" test "$rc" = 2
	check "$what: a message" test -n "$out"
	check "$what: one line" test "$(printf '%s\n' "$out" | wc -l)" = 1
	check "$what: says \"$want\"" grep -qF -e "$want" <<-EOF
	$out
	EOF
}
refused "several with --target" "virtual time only" \
	"$B" replay "$T/g1000.trace" "$T/g3000.trace" --target "$T"
refused "several with one --wakes" "its own FILE.wakes" \
	"$B" replay "$T/g1000.trace" "$T/g3000.trace" --virtual --tier unlimited --wakes "$T/w"
# one recording's band (--band N): one thread reads 11 times, each read
# served at once; the 10 intervals between them are 6, 6, 3, 3, 4, 4, 5,
# 5, 2, 2 us, 4 us on average. In 5 parts of 2 intervals the paces are
# 1.5, 0.75, 1, 1.25, 0.5; the inner three (the first and last are the
# job's start and end) have mean 1 and sd 0.25, so the mean's 95% interval
# is +-t(0.975, 2 df) 4.303 * 0.25 / sqrt(3) = +-62.1%. On a tier with no
# latency the prediction is the gaps, 40 us, and its band the gaps that
# much shorter and longer (each gap's scaling rounds down to the ns).
mktrace band <<'X'
header version=1
path 1 "/f"
0 0 read 1 0 4096 4096 2 65536 0 0
6000 6000 read 1 4096 4096 4096 2 65536 0 0
12000 12000 read 1 8192 4096 4096 2 65536 0 0
15000 15000 read 1 12288 4096 4096 2 65536 0 0
18000 18000 read 1 16384 4096 4096 2 65536 0 0
22000 22000 read 1 20480 4096 4096 2 65536 0 0
26000 26000 read 1 24576 4096 4096 2 65536 0 0
31000 31000 read 1 28672 4096 4096 2 65536 0 0
36000 36000 read 1 32768 4096 4096 2 65536 0 0
38000 38000 read 1 36864 4096 4096 2 65536 0 0
40000 40000 read 1 40960 4096 4096 2 65536 0 0
end drops=0 records=11 t=40000
X
"$B" replay "$T/band.trace" --virtual --tier unlimited --tier ssd-cloud --band 5 --json \
	> "$T/band.json" 2> /dev/null
check "band: the parts' pace" \
	test "$(jq -c '[.band.pace[] * 1000 | round]' "$T/band.json")" = "[1500,750,1000,1250,500]"
check "band: the inner parts' mean and sd" \
	test "$(jq -c '[.band.mean, .band.sd] | map(. * 1000 | round)' "$T/band.json")" = "[1000,250]"
check "band: the half width, Student's t for 2 df" \
	test "$(jq -c '.band.half * 1e6 | round' "$T/band.json")" = \
	"$(awk 'BEGIN { printf "%.0f", 1e6 * 4.303 * 0.25 / sqrt(3) }')"
check "band: the prediction kept" test "$(j "$T/band.json" '.results[1].total_ns')" = 40000
# near: |A - B| <= 10 ns (one ns of rounding per gap)
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d <= 10 && d >= -10) }'; }
h=$(awk 'BEGIN { printf "%.9f", 4.303 * 0.25 / sqrt(3) }')
check "band: low on a tier with no latency" \
	near "$(j "$T/band.json" '.results[1].band.low_ns')" "$(awk -v h="$h" 'BEGIN { print 40000 * (1 - h) }')"
check "band: high on a tier with no latency" \
	near "$(j "$T/band.json" '.results[1].band.high_ns')" "$(awk -v h="$h" 'BEGIN { print 40000 * (1 + h) }')"
check "band: none for the recording" test "$(jq -c '.results[0].band' "$T/band.json")" = null
check "band: ssd-cloud's prediction inside its band" \
	test "$(jq '.results[2] | .band.low_ns < .total_ns and .total_ns < .band.high_ns' "$T/band.json")" = true
"$B" replay "$T/band.trace" --virtual --tier unlimited --band 5 > "$T/band.txt" 2> /dev/null
check "band: the rows in the text" grep -Eq "^band low +- +15\.[0-9]+ us" "$T/band.txt"
check "band: the paces in the text" grep -q "1.500 0.750 1.000 1.250 0.500" "$T/band.txt"
check "band: the interval in the text" grep -q "interval +-62.1%" "$T/band.txt"
# With a wake file the pace is the command's own time: the same 11 reads,
# 10 us apart, by thread 10, which sleeps on a timer (a pause, a training
# step's sleep) inside each interval: 7, 7 | 8, 9 | 8, 8 | 7, 8 | 9, 9 us.
# The request intervals are all alike (the old band: none), but the
# thread's own time in the 5 parts is 6, 3, 4, 5, 2 us of 20, so the paces
# are 1.5, 0.75, 1, 1.25, 0.5 as above, and the band scales the 20 us of
# own time alone: the 80 us of pauses run as recorded, 100 us -+ 20 us * h.
mktrace bandw <<'X'
header version=2 start_mono_ns=1000000
path 1 "/f"
0 0 read 1 0 4096 4096 10 65536 0 0
10000 10000 read 1 4096 4096 4096 10 65536 0 0
20000 20000 read 1 8192 4096 4096 10 65536 0 0
30000 30000 read 1 12288 4096 4096 10 65536 0 0
40000 40000 read 1 16384 4096 4096 10 65536 0 0
50000 50000 read 1 20480 4096 4096 10 65536 0 0
60000 60000 read 1 24576 4096 4096 10 65536 0 0
70000 70000 read 1 28672 4096 4096 10 65536 0 0
80000 80000 read 1 32768 4096 4096 10 65536 0 0
90000 90000 read 1 36864 4096 4096 10 65536 0 0
100000 100000 read 1 40960 4096 4096 10 65536 0 0
end drops=0 records=11 t=100000
X
cat > "$T/bandw.trace.wakes" <<'X'
tiersim-wakes 1
span 1000000 1100000
T 10 10 1 1000000 1100000 0 0 reader
P 1007500 1000500 10
P 1017500 1010500 10
P 1028500 1020500 10
P 1039500 1030500 10
P 1048500 1040500 10
P 1058500 1050500 10
P 1067500 1060500 10
P 1078500 1070500 10
P 1089500 1080500 10
P 1099500 1090500 10
X
"$B" replay "$T/bandw.trace" --virtual --tier unlimited --band 5 --json > "$T/bandw.json" 2> /dev/null
check "band, own time: the parts' pace" \
	test "$(jq -c '[.band.pace[] * 1000 | round]' "$T/bandw.json")" = "[1500,750,1000,1250,500]"
check "band, own time: said" test "$(jq -c '.band.own_time' "$T/bandw.json")" = true
check "band, own time: the prediction kept" test "$(j "$T/bandw.json" '.results[1].total_ns')" = 100000
check "band, own time: low, the pauses kept" \
	near "$(j "$T/bandw.json" '.results[1].band.low_ns')" "$(awk -v h="$h" 'BEGIN { print 100000 - 20000 * h }')"
check "band, own time: high, the pauses kept" \
	near "$(j "$T/bandw.json" '.results[1].band.high_ns')" "$(awk -v h="$h" 'BEGIN { print 100000 + 20000 * h }')"
check "band, requests alone: no own time" test "$(jq -c '.band.own_time' "$T/band.json")" = false
"$B" replay "$T/bandw.trace" --virtual --tier unlimited --band 5 > "$T/bandw.txt" 2> /dev/null
check "band, own time: the text says so" grep -q "own time of the command's threads" "$T/bandw.txt"
check "band, own time: the pauses in the text" grep -q "pauses, a timer's sleep, as recorded" "$T/bandw.txt"
refused "--band 3" "give 4 to 64 parts" \
	"$B" replay "$T/band.trace" --virtual --tier unlimited --band 3
refused "--band with --target" "virtual time only" \
	"$B" replay "$T/band.trace" --target "$T" --band 4
refused "--band with --cpu-model" "not with --cpu-model" \
	"$B" replay "$T/band.trace" --virtual --tier unlimited --band 4 --cpu-model
refused "--band 65" "band" \
	"$B" replay "$T/band.trace" --virtual --tier unlimited --band 65
rc=0
out=$("$B" replay "$T/band.trace" --virtual --tier unlimited --band 6 2>&1 >/dev/null) || rc=$?
check "--band 6 on 11 requests: exit status 1 (got $rc)" test "$rc" = 1
check "--band 6 on 11 requests: one line naming the file" \
	test "$(printf '%s\n' "$out" | grep -c "band.trace: --band 6: the recording has 11 requests")" = 1
# The in-kernel rule's FUSE CPU, request by request (--fuse-cpu a request,
# --fuse-cpu-page a page of a direct read's buffer). A FUSE recording
# (floor 10us) of open, getattr, flush, a 16 KiB read (4 pages) and close;
# the thread on a CPU 5, 3 and 12us in the gaps before getattr, flush and
# the read (18, 9 and 19us long). The gap after getattr is shorter than
# the floor: its 3us on a CPU stay (the gap is never longer than
# recorded, nor cut to 0 because its hand-offs were quicker than the
# floor). With no FUSE CPU: 5 + 3 + 12us, the read's 60us, the 5us after
# it (15us less the floor): 85us, think 25us (the rule before: 79us, the
# gap after getattr 0 and the read's 9us, the gap less the floor).
# --fuse-cpu 4us: 1us, then 3us less 4us is 0 and the 1us it could not
# hold comes off the next gap (12 - 4 - 1 = 7us): 73us, think 13us (the
# rule before: 74us). --fuse-cpu 2us --fuse-cpu-page 1us: 3, 1 and 12 - 2
# - 4 = 6us: 75us, think 15us; 4us and 1us: 1, 0 and 12 - 8 - 1 = 3us:
# 69us, think 9us.
mktrace kfp <<'X'
header version=5 mem=0 model=255 floor_ns=10000
path 1 "/f"
0 2000 open 1 0 0 0 1 65536 0 4
cpu 1 pid=100 ppid=1 on_ns=1000 runq_ns=0
20000 21000 getattr 1 0 0 0 1 65536 0 4
cpu 1 pid=100 ppid=1 on_ns=6000 runq_ns=0
30000 31000 flush 1 0 0 0 1 65536 0 4
cpu 1 pid=100 ppid=1 on_ns=9000 runq_ns=0
50000 60000 read 1 0 16384 16384 1 65536 0 0
cpu 1 pid=100 ppid=1 on_ns=21000 runq_ns=0
75000 77000 close 1 0 0 0 1 65536 0 4
cpu 1 pid=100 ppid=1 on_ns=23000 runq_ns=0
end drops=0 records=5 t=77000
X
kfp() { "$B" replay "$T/kfp.trace" --virtual --kernel-fs --page-wake 0 --dev-read-cpu 0 --fuse-size 0 --tier fixed60 --profile "$T/kfs.lua" \
	--json "$@" 2>/dev/null | jq -r '.results[1] | "\(.total_ns) \(.think_ns)"'; }
check "in-kernel, per request: --fuse-cpu 0, a gap within the floor" test "$(kfp --fuse-cpu 0)" = "85000 25000"
check "in-kernel, per request: what a gap cannot hold, off the next" \
	test "$(kfp --fuse-cpu 4us)" = "73000 13000"
check "in-kernel, per request: a direct read's pages" \
	test "$(kfp --fuse-cpu 2us --fuse-cpu-page 1us)" = "75000 15000"
check "in-kernel, per request: pages and what a gap cannot hold" \
	test "$(kfp --fuse-cpu 4us --fuse-cpu-page 1us)" = "69000 9000"
check "in-kernel, per request: --fuse-cpu alone is the whole figure" \
	test "$(kfp --fuse-cpu 2us)" = "$(kfp --fuse-cpu 2us --fuse-cpu-page 0)"
check "in-kernel, per request: the host's figures by default" \
	test "$(kfp)" = "$(kfp --host build-host)"
refused "--fuse-cpu-page without --kernel-fs" "--fuse-cpu-page 1us is --kernel-fs's" \
	"$B" replay "$T/kfp.trace" --virtual --tier fixed60 --profile "$T/kfs.lua" --fuse-cpu-page 1us
refused "--fuse-cpu-page 2ms" "0 to 1ms" \
	"$B" replay "$T/kfp.trace" --virtual --kernel-fs --page-wake 0 --dev-read-cpu 0 --tier fixed60 --profile "$T/kfs.lua" \
	--fuse-cpu-page 2ms
# in flight: one thread reading 128 KiB windows with two in flight, as the
# kernel's readahead sends them through FUSE. Recorded on a tier of 1 ms a
# read: A at 0, B 100us later (nothing had completed: its spacing from A),
# then each read 50us after the completion two before it (C after A's,
# D after B's, E after C's, F after D's), while the one before it is
# still in flight: 3,200us. On a tier of 100us each follows the
# completion that released it, replayed: A 0-100, B 100-200, C 150-250,
# D 250-350, E 300-400, F 400-500us: 500us (the old rule kept each at its
# recorded distance from the previous send, the slow tier's pace:
# 2,300us). On its own tier it gives the recording's 3,200us. The same
# pattern recorded on the fast tier (reads 5us after a completion, B 10us
# after A) predicts 3,020us on the slow one (old: 1,220us). With
# --kernel-fs and a floor of 5us each gap after a completion loses the
# round trip (45us), B's spacing keeps its 100us: 490us; plain, the floor
# comes off the tier's 100us: 485us.
cat > "$T/inflight.lua" <<'X'
tier "fixed100" { desc = "test", source = "test", latency = { read = { fixed = "100us" } } }
tier "fixed1000" { desc = "test", source = "test", latency = { read = { fixed = "1000us" } } }
X
mktrace inflight <<'X'
header version=1
path 1 "/f"
0 1000000 read 1 0 131072 131072 1 786432 0 0
100000 1100000 read 1 131072 131072 131072 1 786432 0 0
1050000 2050000 read 1 262144 131072 131072 1 786432 0 0
1150000 2150000 read 1 393216 131072 131072 1 786432 0 0
2100000 3100000 read 1 524288 131072 131072 1 786432 0 0
2200000 3200000 read 1 655360 131072 131072 1 786432 0 0
X
mktrace inflightf <<'X'
header version=1
path 1 "/f"
0 100000 read 1 0 131072 131072 1 786432 0 0
10000 110000 read 1 131072 131072 131072 1 786432 0 0
105000 205000 read 1 262144 131072 131072 1 786432 0 0
115000 215000 read 1 393216 131072 131072 1 786432 0 0
210000 310000 read 1 524288 131072 131072 1 786432 0 0
220000 320000 read 1 655360 131072 131072 1 786432 0 0
X
sed 's/^header version=1$/header version=5 mem=0 model=255 floor_ns=5000/' "$T/inflight.txt" > "$T/inflightk.txt"
"$B" trace undump "$T/inflightk.txt" -o "$T/inflightk.trace"
for c in "inflight fixed100 500000" "inflight fixed1000 3200000" "inflightf fixed1000 3020000" \
	"inflightf fixed100 320000" "inflightk fixed100 485000" "inflightk fixed100 490000 --kernel-fs"; do
	# shellcheck disable=SC2086 # the case's fields, one word each
	set -- $c
	"$B" replay "$T/$1.trace" --virtual --profile "$T/inflight.lua" --tier "$2" ${4:+$4 --fuse-size 0} --json \
		> "$T/inflight.json" 2> /dev/null
	check "in flight: $1 on $2 ${4:-}" test "$(j "$T/inflight.json" '.results[1].total_ns')" = "$3"
	check "in flight: $1's own figures" test "$(j "$T/inflight.json" '.results[0].total_ns')" = \
		"$(awk 'NR == 3 { s = $1 } { e = $2 } END { print e - s }' "$T/$1.txt")"
done
# The own time of several threads, each sleep counted in every part it
# overlaps (one pass over the wake file's sorted sleeps): the reads of
# bandw, thread 10 and thread 11 (alive 15-75 us). Thread 10 waits on 11
# from 5 to 45 us (parts 0-2: 15, 20, 5 us) and pauses 50-55; thread 11
# sleeps on the device 30-32 and pauses 62-90, past its end (part 3: 18 us
# of its 15 alive, none left). Own time a part: 5 + 5, 0 + 18, 10 + 20,
# 20 + 0, 20 = 10, 18, 30, 20, 20 us of 98: paces 0.510, 0.918, 1.531,
# 1.020, 1.020.
cp "$T/bandw.trace" "$T/bandt.trace"
cat > "$T/bandt.trace.wakes" <<'X'
tiersim-wakes 1
span 1000000 1100000
T 10 10 1 1000000 1100000 0 0 reader
T 11 10 10 1015000 1075000 0 0 worker
W 1045000 1005000 10 11
S 1032000 1030000 11 0
P 1055000 1050000 10
P 1090000 1062000 11
X
"$B" replay "$T/bandt.trace" --virtual --tier unlimited --band 5 --lock-wakes 0 --json \
	> "$T/bandt.json" 2> /dev/null
check "band, own time of two threads: each sleep in every part it overlaps" \
	test "$(jq -c '[.band.pace[] * 1000 | round]' "$T/bandt.json")" = "[510,918,1531,1020,1020]"
# The phases without requests: bandw's reads and pauses 10 us later, the
# thread alive from the trace's start (10 us before the first read) to 50
# us after the last, running. Those 10 and 50 us of own time are in no
# part; each is one more part of unknown pace, +-t * sd / mean = 4.303 *
# 0.25 = 107.575% ("alone"), independent of the mean's +-62.1% (h), which
# the scaled gaps carry (from the first read 20 us of own time in the
# parts and the 50 after: 70 us * h; the whole span 80 us * h). Each end
# moves out by the two in quadrature: from the first read 150 us -+
# sqrt((70 us * h)^2 + (50 us * alone)^2), the whole 160 us -+
# sqrt((80 us * h)^2 + alone^2 * (10 us^2 + 50 us^2)).
mktrace bandh <<'X'
header version=2 start_mono_ns=1000000
path 1 "/f"
10000 10000 read 1 0 4096 4096 10 65536 0 0
20000 20000 read 1 4096 4096 4096 10 65536 0 0
30000 30000 read 1 8192 4096 4096 10 65536 0 0
40000 40000 read 1 12288 4096 4096 10 65536 0 0
50000 50000 read 1 16384 4096 4096 10 65536 0 0
60000 60000 read 1 20480 4096 4096 10 65536 0 0
70000 70000 read 1 24576 4096 4096 10 65536 0 0
80000 80000 read 1 28672 4096 4096 10 65536 0 0
90000 90000 read 1 32768 4096 4096 10 65536 0 0
100000 100000 read 1 36864 4096 4096 10 65536 0 0
110000 110000 read 1 40960 4096 4096 10 65536 0 0
end drops=0 records=11 t=110000
X
cat > "$T/bandh.trace.wakes" <<'X'
tiersim-wakes 1
span 1000000 1160000
T 10 10 1 1000000 1160000 0 0 reader
P 1017500 1010500 10
P 1027500 1020500 10
P 1038500 1030500 10
P 1049500 1040500 10
P 1058500 1050500 10
P 1068500 1060500 10
P 1077500 1070500 10
P 1088500 1080500 10
P 1099500 1090500 10
P 1109500 1100500 10
X
"$B" replay "$T/bandh.trace" --virtual --tier unlimited --band 5 --json > "$T/bandh.json" 2> /dev/null
check "band, phases without requests: the parts' pace as bandw's" \
	test "$(jq -c '[.band.pace[] * 1000 | round]' "$T/bandh.json")" = "[1500,750,1000,1250,500]"
check "band, phases without requests: own time before the first read and after the last" \
	test "$(jq -c '[.band.head_ns, .band.tail_ns]' "$T/bandh.json")" = "[10000,50000]"
check "band, phases without requests: one part's range, t * sd / mean" \
	test "$(jq -c '.band.alone * 1e5 | round' "$T/bandh.json")" = 107575
check "band, phases without requests: the prediction kept" \
	test "$(jq -c '.results[1] | [.total_ns, .lead_ns]' "$T/bandh.json")" = "[160000,10000]"
a=1.07575
e=$(awk -v h="$h" -v a="$a" 'BEGIN { printf "%.1f", sqrt((70000 * h)^2 + (50000 * a)^2) }')
check "band, phases without requests: low from the first read" \
	near "$(j "$T/bandh.json" '.results[1].band.low_first_ns')" "$(awk -v e="$e" 'BEGIN { print 150000 - e }')"
check "band, phases without requests: high from the first read" \
	near "$(j "$T/bandh.json" '.results[1].band.high_first_ns')" "$(awk -v e="$e" 'BEGIN { print 150000 + e }')"
e=$(awk -v h="$h" -v a="$a" 'BEGIN { printf "%.1f", sqrt((80000 * h)^2 + a^2 * (10000^2 + 50000^2)) }')
check "band, phases without requests: low, the whole span" \
	near "$(j "$T/bandh.json" '.results[1].band.low_ns')" "$(awk -v e="$e" 'BEGIN { print 160000 - e }')"
check "band, phases without requests: high, the whole span" \
	near "$(j "$T/bandh.json" '.results[1].band.high_ns')" "$(awk -v e="$e" 'BEGIN { print 160000 + e }')"
check "band, no phases without requests: bandw's band as before" \
	test "$(jq -c '[.band.head_ns, .band.tail_ns]' "$T/bandw.json")" = "[0,0]"
check "band, requests alone: no phases without requests known" \
	test "$(jq -c '[.band.head_ns, .band.tail_ns, .band.alone]' "$T/band.json")" = "[0,0,0]"
"$B" replay "$T/bandh.trace" --virtual --tier unlimited --band 5 > "$T/bandh.txt" 2> /dev/null
check "band, phases without requests: the text" \
	grep -q "(+-107.6%, t \* sd): the threads' own time before the first request 10.00 us, after the last 50.00 us" "$T/bandh.txt"
# --ops: each record as replayed. A worker (thread 11) reads two items,
# recorded at 1-11 and 21-31 us; its consumer (thread 10, same process)
# slept until the worker woke it at 13 us, 2 us after the first read
# completed, then stepped (pauses 13-40 and 40-60 us) and took the second
# item at 40 us without sleeping: it was ready, so no wake ties the
# consumer to the second read. On a tier of 100 us a read: the first read
# 1-101, the second 10 us after it, 111-211, the worker ends 4 us later
# (215); the consumer is woken at 103 (2 us after the first read's
# replayed completion; its own work was done at 0, so it waited 103 us)
# and ends its recorded 47 us later, at 150 us: 61 us before the item it
# took at 130 was read. That is what a recording whose consumer never
# waited for its producer predicts on a slower tier (traces/README.md,
# the wake rule's limits): the consumer runs ahead.
reads_trace opsw 11 - 1000-11000 21000-31000
wakes_file opsw <<'X'
span 1000000 1060000
T 10 10 1 1000000 1060000 0 0 consumer
T 11 10 10 1000000 1035000 0 0 worker
W 1013000 1000000 10 11
P 1040000 1013000 10
P 1060000 1040000 10
X
"$B" replay "$T/opsw.trace" --virtual --profile "$T/inflight.lua" --tier fixed100 \
	--tier fixed1000 --lock-wakes 0 --ops "$T/opsw.ops" --json > "$T/opsw.json" 2> /dev/null
ops() { # ops TIER TID WHAT: the fields after WHAT of each such line
	awk -v t="$1" -v d="$2" -v w="$3" '$1 == t && $2 == d && $4 == w {
		print $5, $6, $7, $8, $9, $10 }' "$T/opsw.ops" | tr '\n' ';'
}
check "ops: the header" test "$(head -n 1 "$T/opsw.ops")" = \
	"# tier tid record what rec_issue_ns rec_done_ns issue_ns done_ns wait_ns by"
check "ops: a line a record and tier" test "$(grep -vc '^#' "$T/opsw.ops")" = 14
check "ops: the worker's reads" test "$(ops fixed100 11 io)" = \
	"1000 11000 1000 101000 0 -;21000 31000 111000 211000 0 -;"
check "ops: the consumer's wake, 2 us after the first read" test "$(ops fixed100 10 wake)" = \
	"13000 13000 103000 103000 103000 11;"
check "ops: the threads' starts and ends" test "$(ops fixed100 10 mark)$(ops fixed100 11 mark)" = \
	"0 0 0 0 0 -;60000 60000 150000 150000 0 -;0 0 0 0 0 10;35000 35000 215000 215000 0 -;"
check "ops: the consumer ends before the second read completes" test \
	"$(j "$T/opsw.json" '[.results[1].total_ns, .results[2].total_ns] | @csv')" = "215000,2015000"
check "ops: on a 1 ms tier" test "$(ops fixed1000 10 wake)$(ops fixed1000 11 io)" = \
	"13000 13000 1003000 1003000 1003000 11;1000 11000 1000 1001000 0 -;21000 31000 1011000 2011000 0 -;"
"$B" replay "$T/opsw.trace" --virtual --profile "$T/inflight.lua" --tier fixed100 --band 4 \
	--lock-wakes 0 --ops "$T/opsw.ops" > /dev/null 2>&1
check "ops: the band's own predictions are not written" test "$(grep -vc '^#' "$T/opsw.ops")" = 7
refused "--ops in real time" "--ops $T/x.ops: one trace's ops as replayed in virtual time" \
	"$B" replay "$T/opsw.trace" --target "$T" --ops "$T/x.ops"
refused "--ops with two traces" "(--virtual, not --target, one FILE)" \
	"$B" replay "$T/opsw.trace" "$T/opsw.trace" --virtual --tier fixed100 \
	--profile "$T/inflight.lua" --ops "$T/x.ops"
# The job's start outlasting the first part: 13 reads 10 us apart (at 10
# to 130 us) by thread 10, alive 0-150 us, in 6 parts of 2 intervals (10-30,
# 30-50, ... 110-130 us). Thread 11 starts in the second part (a worker's
# thread: alive 32-48 us). Own time a part: 10 (a 10 us pause), 20 + 16,
# 18 (2 us paused), 19 (1 us), 20, 20 us of 123: paces 0.488, 1.756, 0.878,
# 0.927, 0.976, 0.976. The second part holds a thread's start, so it is
# the job's start too: the inner parts are 3-5 (K = 3; before, 2-5 with
# sd / mean 0.367 and a half width of 58.4%), mean 19/20.5 = 0.927, sd
# 1/20.5 = 0.049 (sd / mean 1/19), half 4.303 / 19 / sqrt(3) = 13.08%.
# One part's range is 4.303 / 19 = 22.6%, less than the least a phase
# without requests is given, 35.3%: the 20 us after the last read get
# +-7.06 us. From the first read the prediction is 140 us; its gaps less
# the 13 us of pauses, 107 us, and the 20 us tail scale by h, and the
# tail's own range adds in quadrature: 140 us -+ sqrt((127 us * h)^2 +
# (20 us * 0.353)^2) = 140 -+ 18.04 us.
mktrace bands <<'X'
header version=2 start_mono_ns=1000000
path 1 "/f"
10000 10000 read 1 0 4096 4096 10 65536 0 0
20000 20000 read 1 4096 4096 4096 10 65536 0 0
30000 30000 read 1 8192 4096 4096 10 65536 0 0
40000 40000 read 1 12288 4096 4096 10 65536 0 0
50000 50000 read 1 16384 4096 4096 10 65536 0 0
60000 60000 read 1 20480 4096 4096 10 65536 0 0
70000 70000 read 1 24576 4096 4096 10 65536 0 0
80000 80000 read 1 28672 4096 4096 10 65536 0 0
90000 90000 read 1 32768 4096 4096 10 65536 0 0
100000 100000 read 1 36864 4096 4096 10 65536 0 0
110000 110000 read 1 40960 4096 4096 10 65536 0 0
120000 120000 read 1 45056 4096 4096 10 65536 0 0
130000 130000 read 1 49152 4096 4096 10 65536 0 0
end drops=0 records=13 t=130000
X
cat > "$T/bands.trace.wakes" <<'X'
tiersim-wakes 1
span 1000000 1150000
T 10 10 1 1000000 1150000 0 0 reader
T 11 10 10 1032000 1048000 0 0 worker
P 1022000 1012000 10
P 1054000 1052000 10
P 1073000 1072000 10
X
"$B" replay "$T/bands.trace" --virtual --tier unlimited --band 6 --json > "$T/bands.json" 2> /dev/null
check "band, the job's start: the parts' pace" \
	test "$(jq -c '[.band.pace[] * 1000 | round]' "$T/bands.json")" = "[488,1756,878,927,976,976]"
check "band, the job's start: the second part, a thread starting in it, left out" \
	test "$(jq -c '.band.from' "$T/bands.json")" = 2
check "band, the job's start: the inner parts' mean and sd" \
	test "$(jq -c '[.band.mean, .band.sd] | map(. * 1e5 | round)' "$T/bands.json")" = "[92683,4878]"
check "band, the job's start: the half width, t for 2 df over 3 parts" \
	test "$(jq -c '.band.half * 1e6 | round' "$T/bands.json")" = \
	"$(awk 'BEGIN { printf "%.0f", 1e6 * 4.303 / 19 / sqrt(3) }')"
check "band, the job's start: the phases' range, the least" \
	test "$(jq -c '[.band.alone, .band.tail_ns, .band.head_ns]' "$T/bands.json")" = "[0.353,20000,10000]"
check "band, the job's start: the prediction kept" \
	test "$(jq -c '.results[1] | [.total_ns, .lead_ns]' "$T/bands.json")" = "[150000,10000]"
nearer() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d <= 20 && d >= -20) }'; }
e=$(awk 'BEGIN { h = 4.303 / 19 / sqrt(3); printf "%.1f", sqrt((127000 * h)^2 + (20000 * 0.353)^2) }')
check "band, the job's start: low from the first read" \
	nearer "$(j "$T/bands.json" '.results[1].band.low_first_ns')" "$(awk -v e="$e" 'BEGIN { print 140000 - e }')"
check "band, the job's start: high from the first read" \
	nearer "$(j "$T/bands.json" '.results[1].band.high_first_ns')" "$(awk -v e="$e" 'BEGIN { print 140000 + e }')"
"$B" replay "$T/bands.trace" --virtual --tier unlimited --band 6 > "$T/bands.txt" 2> /dev/null
check "band, the job's start: the text" \
	grep -q "parts 1-2 hold the job's start (its threads starting), the last its end; the inner 3: mean 0.927, sd 0.049; the mean's 95% interval +-13.1%" "$T/bands.txt"
check "band, the job's start: the least range in the text" \
	grep -q "(+-35.3%, the least, above t \* sd): the threads' own time before the first request 10.00 us, after the last 20.00 us" "$T/bands.txt"
# The page-lock wake-up (--page-wake; by default the host's
# replay_page_wake_ns, pipeline/hosts.lua). On a kernel file system a read
# the device serves is a sleep on a page in flight, and the read's
# completion wakes the thread; through FUSE tierfs's reply woke it, inside
# the round trip every gap loses. So the gap after such a read grows by
# the wake-up: kfs's read (60us on fixed60) is followed by a 5us gap (15us
# less the 10us floor); with --page-wake 7us it is 12us: 100us in all,
# think 40us (93us and 33us with 0, as without the rule). With
# --loop-issue=off the loop rule keeps the round trip there too: 110us,
# think 50us.
kpw() { "$B" replay "$T/kfs.trace" --virtual --kernel-fs --fuse-cpu 0 --dev-read-cpu 0 --tier fixed60 \
	--profile "$T/kfs.lua" --json "$@" 2>/dev/null | jq -r '.results[1] | "\(.total_ns) \(.think_ns)"'; }
check "page wake: 0, as without it" test "$(kpw --page-wake 0)" = "93000 33000"
check "page wake: 7us after the device's read" test "$(kpw --page-wake 7us)" = "100000 40000"
check "page wake: with the loop rule" test "$(kpw --page-wake 7us --loop-issue=off)" = "110000 50000"
check "page wake: the host's by default" test "$(kpw)" = "$(kpw --host build-host)"
check "page wake: the host's is not 0" test "$(kpw)" != "93000 33000"
# A read the page cache serves sleeps on no page: a file read three times,
# 4 KiB at 0, with a page cache (--mem 1MiB): the first read the device
# serves (60us), the other two memory. Gaps 20, 19us less the floor: think
# 19us, and 26us with --page-wake 7us (the first read's alone; the
# memory-served rule off, --wake-cost 0).
mktrace pw <<'X'
header version=5 mem=0 model=255 floor_ns=10000
path 1 "/f"
0 30000 read 1 0 4096 4096 1 8192 0 0
50000 51000 read 1 0 4096 4096 1 8192 0 0
70000 71000 read 1 0 4096 4096 1 8192 0 0
end drops=0 records=3 t=71000
X
kpm() { "$B" replay "$T/pw.trace" --virtual --kernel-fs --fuse-cpu 0 --dev-read-cpu 0 --wake-cost 0 --mem 1MiB \
	--tier fixed60 --profile "$T/kfs.lua" --json "$@" 2>/dev/null | jq -r '.results[1] | "\(.think_ns) \(.bound.memory)"'; }
check "page wake: none after a read from memory (0)" test "$(kpm --page-wake 0)" = "19000 2"
check "page wake: none after a read from memory (7us)" test "$(kpm --page-wake 7us)" = "26000 2"
# a block-mode recording's gaps hold block mode's wake-ups already
check "page wake: not on a loop device's recording" test "$("$B" replay "$T/blk6.trace" --virtual \
	--kernel-fs --fuse-cpu 0 --page-wake 7us --tier fixed60 --profile "$T/kfs.lua" --json 2>/dev/null |
	jq -r '.results[1].total_ns')" = 120000
"$B" replay "$T/kfs.trace" --virtual --tier fixed60 --profile "$T/kfs.lua" --page-wake 7us \
	> "$T/pw1.out" 2>&1
check "page wake: refused without --kernel-fs" test $? = 2
check "page wake: one line naming it" \
	test "$(grep -c -- "--page-wake 7us is --kernel-fs's" "$T/pw1.out")" = 1
"$B" replay "$T/kfs.trace" --virtual --kernel-fs --tier fixed60 --profile "$T/kfs.lua" \
	--page-wake 2ms > "$T/pw2.out" 2>&1
check "page wake: 2ms refused" test $? = 2
# The IO path's CPU (--dev-read-cpu; by default the host's
# replay_dev_read_cpu_ns): on a kernel file system the reading thread
# sends the device's reads itself (the readahead's pages, the request) and
# sleeps and wakes on them. kfs's read sends one device read: with 5us a
# request the gap after it is 10us, 98us in all, think 38us; with the
# page-lock wake-up of 7us too, 105us and 45us. pw's first read sends one
# (think 24us), its reads from memory none.
kdr() { "$B" replay "$T/kfs.trace" --virtual --kernel-fs --fuse-cpu 0 --tier fixed60 \
	--profile "$T/kfs.lua" --json "$@" 2>/dev/null | jq -r '.results[1] | "\(.total_ns) \(.think_ns)"'; }
check "IO path CPU: 5us a device read" test "$(kdr --page-wake 0 --dev-read-cpu 5us)" = "98000 38000"
check "IO path CPU: with the page-lock wake-up" test "$(kdr --page-wake 7us --dev-read-cpu 5us)" = "105000 45000"
check "IO path CPU: the host's by default" test "$(kdr --page-wake 0)" = "$(kdr --page-wake 0 --host build-host)"
check "IO path CPU: the host's is not 0" test "$(kdr --page-wake 0)" != "93000 33000"
check "IO path CPU: none for reads from memory" test "$("$B" replay "$T/pw.trace" --virtual --kernel-fs \
	--fuse-cpu 0 --page-wake 0 --dev-read-cpu 5us --wake-cost 0 --mem 1MiB --tier fixed60 \
	--profile "$T/kfs.lua" --json 2>/dev/null | jq -r '.results[1].think_ns')" = 24000
check "IO path CPU: not on a loop device's recording" test "$("$B" replay "$T/blk6.trace" --virtual \
	--kernel-fs --fuse-cpu 0 --dev-read-cpu 5us --tier fixed60 --profile "$T/kfs.lua" --json 2>/dev/null |
	jq -r '.results[1].total_ns')" = 120000
"$B" replay "$T/kfs.trace" --virtual --tier fixed60 --profile "$T/kfs.lua" --dev-read-cpu 5us \
	> "$T/dr1.out" 2>&1
check "IO path CPU: refused without --kernel-fs" test $? = 2
# The release: on a FUSE mount the kernel sends FUSE_RELEASE (a file's
# last close) in the background (synchronous on fuseblk mounts only), so
# the closing thread queues it and goes on: no round trip, none of
# FUSE's CPU to take off the gap before it, where a flush (a round trip)
# has it. A file opened, flushed and closed, each answered without the
# model, on a CPU 8us between the open and the flush and 6us between the
# flush and the close: with --fuse-cpu 4us the gaps are 4 and 6us, 10us
# in all (6us in all were the close a round trip); with 0, 8 and 6us.
mktrace kfr <<'X'
header version=5 mem=0 model=255 floor_ns=10000
path 1 "/f"
0 2000 open 1 0 0 0 1 4096 0 4
cpu 1 pid=100 ppid=1 on_ns=1000 runq_ns=0
30000 31000 flush 1 0 0 0 1 4096 0 4
cpu 1 pid=100 ppid=1 on_ns=9000 runq_ns=0
50000 51000 close 1 0 0 0 1 4096 0 4
cpu 1 pid=100 ppid=1 on_ns=15000 runq_ns=0
end drops=0 records=3 t=51000
X
kfr() { "$B" replay "$T/kfr.trace" --virtual --kernel-fs --page-wake 0 --dev-read-cpu 0 --tier fixed60 \
	--profile "$T/kfs.lua" --json "$@" 2>/dev/null | jq -r '.results[1] | "\(.total_ns) \(.think_ns)"'; }
check "release: no FUSE CPU before the close" test "$(kfr --fuse-cpu 4us)" = "10000 10000"
check "release: --fuse-cpu 0" test "$(kfr --fuse-cpu 0)" = "14000 14000"

# Hand-offs (H lines, traces/wakes.h): the ops: case above with the tie
# its recording lacked. The worker wrote the second item into the pipe at
# 33 us (2 us after its second read completed) and the consumer read it
# at 40 us without sleeping. On the 100 us tier the worker's second read
# completes at 211 us and its write is replayed at 213: the consumer's
# read, due at 130 on its own work, waits 83 us for it and the consumer
# ends its recorded 20 us later, at 233 us, after the worker (215): the
# run takes 233 us where without the tie it took 215 with the consumer
# done at 150. On the 1 ms tier: the write at 2013 us, the end at 2033.
reads_trace hand 11 - 1000-11000 21000-31000
{ tail -n +2 "$T/opsw.trace.wakes" && echo "H 1040000 1033000 10 11"; } | wakes_file hand
"$B" replay "$T/hand.trace" --virtual --profile "$T/inflight.lua" --tier fixed100 \
	--tier fixed1000 --lock-wakes 0 --ops "$T/hand.ops" --json > "$T/hand.json" 2> "$T/hand.err"
check "hand-off: replayed" test $? = 0
hops() { # hops TIER TID WHAT
	awk -v t="$1" -v d="$2" -v w="$3" '$1 == t && $2 == d && $4 == w {
		print $5, $6, $7, $8, $9, $10 }' "$T/hand.ops" | tr '\n' ';'
}
check "hand-off: the read waits for the write on a 100 us tier" \
	test "$(hops fixed100 10 handoff)" = "40000 40000 213000 213000 83000 11;"
check "hand-off: the consumer ends after the worker" test "$(hops fixed100 10 mark)" = \
	"0 0 0 0 0 -;60000 60000 233000 233000 0 -;"
check "hand-off: the totals on 100 us and 1 ms tiers" \
	test "$(j "$T/hand.json" '[.results[1].total_ns, .results[2].total_ns] | @csv')" = "233000,2033000"
check "hand-off: on the recording's own times, nothing moves" \
	test "$(j "$T/hand.json" '.results[0].total_ns')" = "$(j "$T/opsw.json" '.results[0].total_ns')"
# a thread's own pipe traffic is no tie; a hand-off from a thread not
# listed: the file is refused, naming its line
cp "$T/hand.trace" "$T/hself.trace"
for v in "10:wrote <= t and reader != writer" "12:hand-off to 10 from 12: a thread not listed"; do
	printf 'tiersim-wakes 1\nT 10 10 1 1000000 1060000 0 0 c\nH 1040000 1033000 10 %s\n' \
		"${v%%:*}" > "$T/hself.trace.wakes"
	"$B" replay "$T/hself.trace" --virtual --tier fixed100 --profile "$T/inflight.lua" \
		> /dev/null 2> "$T/hself.err"
	check "hand-off: writer ${v%%:*} refused" test $? = 1
	check "hand-off: writer ${v%%:*}: the line named" grep -q "hself.trace.wakes:3: .*${v#*:}" "$T/hself.err"
done

# path order: the replay numbers the trace's paths in a tree walk's order,
# "/" before any other byte, so /a's 600 files come before /a-b (inode 614,
# table block 38 of the group's) though '-' sorts before '/' in plain byte
# order (that would make it 13, block 0). The mount read the root's inode
# with its window, table blocks 0-32 (a mount's block trace: the root's
# table block and the 32 after it). One open of /a-b reads the root's
# folder block, the inode's own block and the readahead from block 33 (the
# window's aligned start on the disk, 1152 on 500 GiB, is block 32, read)
# to 38 (the last in use): 7 blocks in 3 requests. A name before /a in
# both orders (/Z, inode 13) is in block 0, read at mount: the root's
# folder block only.
po_trace() {
	{ sed -n '/^header/p' "$T/v2.txt"; echo 'path 1 "/"'; echo 'path 2 "/a"'
	  i=1; while [ $i -le 600 ]; do printf 'path %d "/a/f%03d"\n' $((i + 2)) $i; i=$((i + 1)); done
	  echo "path 603 \"$1\""; echo '1000000 1010000 open 603 0 0 0 100 0 0 8'; } > "$T/po.txt"
	"$B" trace undump "$T/po.txt" -o "$T/po.trace"
	"$B" replay "$T/po.trace" --virtual --tier nvme-local --json 2>/dev/null |
		jq -r '.results[1] | "\(.device_reads) \(.device_read_bytes)"'; }
check "path order: / sorts first" test "$(po_trace /a-b)" = "3 28672"
check "path order: a name first in both orders" test "$(po_trace /Z)" = "1 4096"
# The command's exit (trail_ns): the span's part after the command's other
# threads ended and its own last request completed, which no tier moves
# (a PyTorch loader's main thread shutting the interpreter down after its
# workers left). The hand-off case above: the consumer (the command)
# ends 20 us after taking the second item, the worker 4 us after its last
# read: recorded 60 - 35 = 25 us; on the 100 us tier 233 - 215 = 18 us, on
# the 1 ms tier 2033 - 2015 = 18 us; in the table too. Without the tie
# (ops: above) the consumer ends first on both tiers: none there. A
# command whose own read ends after its worker: from that read's
# completion (recorded 50 us, the end 60: 10 us; on the 100 us tier the
# same 10 us after the read).
check "exit: recorded and on two tiers" \
	test "$(j "$T/hand.json" '[.results[].trail_ns] | @csv')" = "25000,18000,18000"
check "exit: none where the command ends first" \
	test "$(j "$T/opsw.json" '[.results[].trail_ns] | @csv')" = "25000,,"
"$B" replay "$T/hand.trace" --virtual --profile "$T/inflight.lua" --tier fixed100 > "$T/hand.txt" 2>&1
check "exit: the table's row" grep -Eq '^after the others +25.00 us +18.00 us$' "$T/hand.txt"
mktrace own <<'X'
header version=2 start_mono_ns=1000000
path 1 "/f"
1000 11000 read 1 0 4096 4096 11 8192 0 0
40000 50000 read 1 4096 4096 4096 10 8192 0 0
end drops=0 records=2 t=50000
X
wakes_file own <<'X'
span 1000000 1060000
T 10 10 1 1000000 1060000 0 0 main
T 11 10 10 1000000 1020000 0 0 worker
X
check "exit: from the command's own last read" test "$("$B" replay "$T/own.trace" --virtual \
	--profile "$T/inflight.lua" --tier fixed100 --json | jq -r '[.results[].trail_ns] | @csv')" = "10000,10000"

# A lookup's and an open's own FUSE CPU (--fuse-cpu-lookup, --fuse-cpu-open;
# the host's replay_fuse_cpu_lookup_ns and replay_fuse_cpu_open_ns) in
# place of a read's: the in-kernel case above has one in-kernel gap before
# a getattr (a lookup) and none before an open, so a lookup's 2us takes
# 2us off (80us, think 20us) and an open's nothing; with --fuse-cpu alone
# both take its figure, as before (78us), unless named apart.
check "in-kernel: --fuse-cpu-lookup" test "$(kfu --fuse-cpu 0 --fuse-cpu-lookup 2us)" = "80000 20000"
check "in-kernel: --fuse-cpu-open" test "$(kfu --fuse-cpu 0 --fuse-cpu-open 2us)" = "82000 22000"
check "in-kernel: --fuse-cpu alone, the lookup's too" test "$(kfu --fuse-cpu 2us)" = "78000 18000"
check "in-kernel: --fuse-cpu with the lookup's apart" \
	test "$(kfu --fuse-cpu 2us --fuse-cpu-lookup 0)" = "80000 20000"
check "in-kernel: the host's lookup figure by default" test "$(kfu)" = "$(kfu --host build-host)"
"$B" replay "$T/kfc.trace" --virtual --tier fixed60 --profile "$T/kfs.lua" --fuse-cpu-lookup 2us \
	> "$T/kf9.out" 2>&1
check "in-kernel: --fuse-cpu-lookup refused without --kernel-fs" test $? = 2

# A getattr told from a lookup (--fuse-cpu-getattr; the host's
# replay_fuse_cpu_getattr_ns): both are GETATTR records, and the kernel
# sends a LOOKUP only for a name it holds no valid entry of (entry_timeout,
# 1 s), so a GETATTR of /f 48us after /f's lookup replied is a getattr (an
# fstat), one of the root is always one, and one of /f 1.1 s later is a
# lookup again. Each gap before them has 5us on a CPU: a lookup's 2us
# takes 2us off the last gap only, a getattr's 2us off the other two.
mktrace kga <<'X'
header version=5 mem=0 model=255 floor_ns=10000
path 1 "/f"
path 2 "/"
0 2000 getattr 1 0 0 0 1 4096 0 4
cpu 1 pid=100 ppid=1 on_ns=1000 runq_ns=0
30000 33000 open 1 0 0 0 1 4096 0 4
cpu 1 pid=100 ppid=1 on_ns=6000 runq_ns=4000
50000 53000 getattr 1 0 0 0 1 4096 0 4
cpu 1 pid=100 ppid=1 on_ns=11000 runq_ns=6000
70000 73000 getattr 2 0 0 0 1 0 0 4
cpu 1 pid=100 ppid=1 on_ns=16000 runq_ns=8000
1100000000 1100003000 getattr 1 0 0 0 1 4096 0 4
cpu 1 pid=100 ppid=1 on_ns=21000 runq_ns=10000
end drops=0 records=5 t=1100003000
X
kga() { "$B" replay "$T/kga.trace" --virtual --kernel-fs --page-wake 0 --dev-read-cpu 0 --tier fixed60 \
	--profile "$T/kfs.lua" --json --fuse-cpu 0 "$@" 2>/dev/null | jq -r '.results[1].total_ns'; }
kga0=$(kga)
check "in-kernel: a lookup's figure on the lookup only" \
	test "$(kga --fuse-cpu-lookup 2us --fuse-cpu-getattr 0)" = $((kga0 - 2000))
check "in-kernel: --fuse-cpu-getattr on the getattrs" \
	test "$(kga --fuse-cpu-lookup 0 --fuse-cpu-getattr 2us)" = $((kga0 - 4000))
check "in-kernel: --fuse-cpu alone, the getattr's too" \
	test "$(kga --fuse-cpu-lookup 0 --fuse-cpu-open 0)" = "$kga0"
"$B" replay "$T/kga.trace" --virtual --tier fixed60 --profile "$T/kfs.lua" --fuse-cpu-getattr 2us \
	> "$T/kga.out" 2>&1
check "in-kernel: --fuse-cpu-getattr refused without --kernel-fs" test $? = 2
# by default build-host's three measured figures (pipeline/hosts.lua)
check "in-kernel: the host's getattr figure by default" \
	test "$("$B" replay "$T/kga.trace" --virtual --kernel-fs --page-wake 0 --dev-read-cpu 0 \
	--tier fixed60 --profile "$T/kfs.lua" --json 2>/dev/null | jq -r '.results[1].total_ns')" = \
	"$(kga --fuse-cpu-lookup 1630ns --fuse-cpu-open 4820ns --fuse-cpu-getattr 5450ns)"

# Several recordings combined (replay FILE FILE...): the hand-off case
# above recorded three times, each with the same requests and hand-offs
# but its own start before them (the first request L + 1 us after the
# span's start) and its own exit (E us more after the worker ended):
# (L, E) = (0, 0), (30, 40), (10, 10) us. On the 100 us tier each predicts
# 233 + L + E us: its start (1 + L), its requests (214 us), its exit
# (18 + E). Combined, each keeps its own requests and takes the start and
# the exit as the recordings' median (11 and 28 us): 253 us each; the
# band, those two at their lowest and highest, 233 to 303 us (232 to 272
# from the first request). As recorded: 34 us of requests, start 11 us,
# exit 35 us (25, 65, 35).
comb_trace() { # comb_trace NAME L E (ns)
	L=$2 E=$3
	reads_trace "$1" 11 - $((L + 1000))-$((L + 11000)) $((L + 21000))-$((L + 31000))
	wakes_file "$1" <<-X
	span 1000000 $((1060000 + L + E))
	T 10 10 1 1000000 $((1060000 + L + E)) 0 0 consumer
	T 11 10 10 1000000 $((1035000 + L)) 0 0 worker
	W $((1013000 + L)) 1000000 10 11
	P $((1040000 + L)) $((1013000 + L)) 10
	P $((1060000 + L + E)) $((1040000 + L)) 10
	H $((1040000 + L)) $((1033000 + L)) 10 11
	X
}
comb_trace comb1 0 0
comb_trace comb2 30000 40000
comb_trace comb3 10000 10000
"$B" replay "$T/comb1.trace" "$T/comb2.trace" "$T/comb3.trace" --virtual --profile "$T/inflight.lua" \
	--tier fixed100 --json > "$T/comb.json" 2> "$T/comb.err"
check "combined: replayed" test $? = 0
check "combined: each recording alone" \
	test "$(jq -c '[.traces[].results[1] | [.total_ns, .lead_ns, .trail_ns]]' "$T/comb.json")" = \
	"[[233000,1000,18000],[303000,31000,58000],[253000,11000,28000]]"
check "combined: each from its own requests, start and exit the median" \
	test "$(jq -c '.combined.predict[0].combined.total_ns' "$T/comb.json")" = "[253000,253000,253000]"
check "combined: the prediction and its band" \
	test "$(jq -c '.combined.predict[0].combined | [.median_ns, .low_ns, .high_ns, .from_first_ns,
		.from_first_low_ns, .from_first_high_ns]' "$T/comb.json")" = \
	"[253000,233000,303000,242000,232000,272000]"
check "combined: the start and the exit on the tier" \
	test "$(jq -c '.combined.predict[0].combined | [.lead_ns[], .trail_ns[]]' "$T/comb.json")" = \
	"[11000,1000,31000,28000,18000,58000]"
check "combined: as recorded" \
	test "$(jq -c '.combined.combined | [.median_ns, .lead_ns.median_ns, .trail_ns.median_ns]' \
		"$T/comb.json")" = "[80000,11000,35000]"
check "combined: the plain band beside it, from the first request" \
	test "$(jq -c '.combined.predict[0] | [.median_ns, .low_ns, .high_ns]' "$T/comb.json")" = \
	"[242000,232000,272000]"
"$B" replay "$T/comb1.trace" "$T/comb2.trace" "$T/comb3.trace" --virtual --profile "$T/inflight.lua" \
	--tier fixed100 > "$T/comb.txt" 2> /dev/null
check "combined: the text's row" \
	grep -Eq '^  fixed100 +253.00 us +233.00 us - 303.00 us +242.00 us +232.00 us - 272.00 us$' "$T/comb.txt"
check "combined: the text's recorded start and exit" \
	grep -q "recorded: start 11.00 us, 1.00 us - 31.00 us; exit 35.00 us, 25.00 us - 65.00 us" "$T/comb.txt"
# recordings without a start or an exit (no wake file): no combination text
check "combined: none without a start or an exit" test "$(grep -c combined "$T/many.txt")" = 0
check "combined: none in the JSON either" \
	test "$(jq -c '[.combined.combined, .combined.predict[0].combined]' "$T/many.json")" = "[null,null]"

# --lock-wakes DUR: a wake between two threads of one process that ended a
# sleep shorter than DUR is not tied (a lock's hand-off, not data). The
# ops: case above: the consumer slept 13 us (0-13) until the worker, of
# its process, woke it after its first read; on the 100 us tier tied,
# woken at 103 us and ended at 150 (as there); with --lock-wakes 14us
# untied, ended at its recorded 60 us, and so by default (50us); with
# 13us (not shorter), with 0 (off) and with the worker in a process of
# its own, tied as before. The tests above that follow a tie set 0.
lkops() { # lkops TRACE OPTION...: the consumer's (10) lines on the 100 us tier
	_lt=$1
	shift
	"$B" replay "$T/$_lt.trace" --virtual --profile "$T/inflight.lua" --tier fixed100 \
		--ops "$T/lk.ops" "$@" > /dev/null 2>&1 &&
		awk '$1 == "fixed100" && $2 == 10 { printf "%s %s %s;", $4, $7, $8 }' "$T/lk.ops"
}
check "lock-wakes: tied with 0 (off)" test "$(lkops opsw --lock-wakes 0)" = \
	"mark 0 0;wake 103000 103000;mark 150000 150000;"
check "lock-wakes: untied by default (50us)" test "$(lkops opsw)" = "mark 0 0;mark 60000 60000;"
check "lock-wakes: a shorter sleep untied" test "$(lkops opsw --lock-wakes 14us)" = \
	"mark 0 0;mark 60000 60000;"
check "lock-wakes: as long a sleep tied" test "$(lkops opsw --lock-wakes 13us)" = \
	"mark 0 0;wake 103000 103000;mark 150000 150000;"
cp "$T/opsw.trace" "$T/lkp.trace"
sed 's/^T 11 10 10 /T 11 11 10 /' "$T/opsw.trace.wakes" > "$T/lkp.trace.wakes"
check "lock-wakes: another process's wake tied" test "$(lkops lkp --lock-wakes 14us)" = \
	"mark 0 0;wake 103000 103000;mark 150000 150000;"
refused "lock-wakes without the wake rule" "not with --no-wakes" \
	"$B" replay "$T/opsw.trace" --virtual --tier fixed100 --profile "$T/inflight.lua" --no-wakes \
	--lock-wakes 14us
"$B" replay "$T/opsw.trace" --virtual --tier fixed100 --profile "$T/inflight.lua" --no-wakes \
	> /dev/null 2>&1
check "lock-wakes: its default refuses no --no-wakes" test $? = 0
refused "lock-wakes over 1ms" "from 0 to 1ms" \
	"$B" replay "$T/opsw.trace" --virtual --tier fixed100 --profile "$T/inflight.lua" \
	--lock-wakes 2ms

# keyed draws: a request's device latency is drawn from its record's
# identity in the recording (tier/device.c, traces/replay/virtual.c), not
# from the order the model serves requests in. Tier lgn: reads lognormal,
# p50 1 ms, p99 2 ms, no caps, no slots: a read's time is its draw.
cat > "$T/lgn.lua" <<'X'
tier "lgn" { desc = "test", source = "test", latency = { read = { p50 = "1ms", p99 = "2ms" } } }
X
kdlat() { # kdlat OPS: "REC_ISSUE LATENCY" of each replayed op, by recorded issue
	awk '$1 == "lgn" { print $5, $8 - $7 }' "$1" | sort -n
}
kdreads() { # kdreads NAME N [GONE]: mktrace NAME, N reads of /f 3 ms apart (read GONE left out)
	awk -v n="$2" -v gone="${3:--1}" 'BEGIN {
		print "header version=3 mem=0 tier=\"lgn\" model=127 seed=7 floor_ns=0 dirty_limit=0 ra_max=0 mem_bps=0"
		print "path 1 \"/f\""
		for (i = 0; i < n; i++)
			if (i != gone)
				printf "%d %d read 1 %d 4096 4096 2 %d 0 0\n", i * 3000000, i * 3000000 + 1000000, i * 4096, n * 4096
	}' | mktrace "$1"
}
kdops() { # kdops NAME OPS [OPTION...]: replay NAME on lgn, each op's line in OPS
	_kn=$1 _ko=$2
	shift 2
	"$B" replay "$T/$_kn.trace" --virtual --profile "$T/lgn.lua" --tier lgn --ops "$T/$_ko" "$@" \
		> /dev/null 2>&1
}
# one read of 200 left out of the trace: the other 199 replay with the
# same latency (drawn in service order, every read after it took the draw
# of the read before)
kdreads kd 200
kdreads kdgone 200 100
kdops kd kd.ops && kdops kdgone kdgone.ops
kdlat "$T/kd.ops" > "$T/kd.lat"
kdlat "$T/kdgone.ops" > "$T/kdgone.lat"
check "keyed: one read left out, the other 199 keep their latencies" \
	test "$(join "$T/kd.lat" "$T/kdgone.lat" | awk '$2 == $3' | wc -l)" = 199
# a self-tier replay: the recording's 8 reads took the first 8 draws of
# tier lgn's stream at seed 7 (what tierfs at seed 7 drew serving them one
# after another); replayed on lgn with the recording's seed, none takes
# its recorded latency (in service order every one did)
kdreads kdself 8
awk 'BEGIN { split("1458179 1082423 706686 1807894 473805 1658349 1034130 973479", l) }
	$3 == "read" { $2 = $1 + l[++k] } { print }' "$T/kdself.txt" | mktrace kdrec
kdops kdrec kdrec.ops
check "keyed: a self-tier replay does not take its recording's latencies" \
	test "$(awk '$1 == "lgn" && $8 - $7 == $6 - $5' "$T/kdrec.ops" | wc -l)" = 0
check "keyed: the replay's latencies are the tier's" \
	test "$(awk '$1 == "lgn" && $8 - $7 > 0' "$T/kdrec.ops" | wc -l)" = 8
# same seed: the same replay to the nanosecond; another seed: other draws
kdops kdrec kdrec2.ops
check "keyed: same seed, same replay" cmp -s "$T/kdrec.ops" "$T/kdrec2.ops"
kdops kdrec kdrec8.ops --seed 8
check "keyed: another seed, other latencies" \
	test "$(paste "$T/kdrec.ops" "$T/kdrec8.ops" |
		awk '$1 == "lgn" && $8 - $7 == $18 - $17' | wc -l)" = 0
# and the tier's distribution at any seed: 4,000 reads at seeds 2 and 3,
# the p50 within 3% of 1 ms, the p99 within 8% of 2 ms
kdreads kdmany 4000
for s in 2 3; do
	kdops kdmany kdmany$s.ops --seed $s
	awk '$1 == "lgn" { print $8 - $7 }' "$T/kdmany$s.ops" | sort -n > "$T/kdmany$s.lat"
	p50=$(sed -n 2000p "$T/kdmany$s.lat") p99=$(sed -n 3960p "$T/kdmany$s.lat")
	check "keyed: seed $s's p50 ($p50 ns) the tier's" test "$p50" -ge 970000 -a "$p50" -le 1030000
	check "keyed: seed $s's p99 ($p99 ns) the tier's" test "$p99" -ge 1840000 -a "$p99" -le 2160000
done
check "keyed: seeds 2 and 3 draw apart" sh -c "! cmp -s '$T/kdmany2.lat' '$T/kdmany3.lat'"
# --kernel-fs: a lookup left out of the trace (/d/a's getattr: the folder
# /d's block and the inodes' table block are then read by /d/b's getattr)
# leaves every data read its latency, the ten reads of /d/a and /d/b
kdkfs() { # kdkfs NAME [gone]: mktrace NAME, a getattr then 5 reads of /d/a, of /d/b
	{
		echo 'header version=3 mem=0 tier="lgn" model=127 seed=7 floor_ns=0 dirty_limit=0 ra_max=0 mem_bps=0'
		printf 'path 1 "/d"\npath 2 "/d/a"\npath 3 "/d/b"\n'
		_kt=0
		for _kf in 2 3; do
			[ "$_kf${2:-}" = 2gone ] || echo "$_kt $((_kt + 500000)) getattr $_kf 0 0 0 2 20480 0 0"
			_kt=$((_kt + 1000000))
			for _ki in 0 1 2 3 4; do
				echo "$_kt $((_kt + 1000000)) read $_kf $((_ki * 4096)) 4096 4096 2 20480 0 0"
				_kt=$((_kt + 3000000))
			done
		done
	} | mktrace "$1"
}
kdkfs kdk
kdkfs kdkgone gone
kdops kdk kdk.ops --kernel-fs && kdops kdkgone kdkgone.ops --kernel-fs
kdreadlat() { # the replayed latencies of the reads (recorded 1 ms), in order
	awk '$1 == "lgn" && $6 - $5 == 1000000 { printf "%d ", $8 - $7 }' "$1"
}
check "keyed: kernel-fs, the lookup gone, ten reads kept their latencies" \
	test "$(kdreadlat "$T/kdk.ops" | wc -w) $(kdreadlat "$T/kdk.ops")" = \
	"10 $(kdreadlat "$T/kdkgone.ops")"
check "keyed: kernel-fs, /d/b's lookup now reads the folder" \
	test "$(awk '$1 == "lgn" && $6 - $5 == 500000 && $8 > $7' "$T/kdkgone.ops" | wc -l)" = 1
# in flight, the replay's order: A (0-2,000us) and B (100-1,100us) in
# flight together, C sent 50us after B's completion while A was still in
# flight. On a tier of 100us they complete the other way round: A 0-100,
# B 100-200 (its spacing from A). C goes out 50us after the first of the
# pair to complete in the replay, A's: 150-250us, 250us in all (tied to
# B as recorded it went out with nothing in flight: 250-350us, 350us).
mktrace inflights <<'X'
header version=1
path 1 "/f"
0 2000000 read 1 0 131072 131072 1 393216 0 0
100000 1100000 read 1 131072 131072 131072 1 393216 0 0
1150000 2150000 read 1 262144 131072 131072 1 393216 0 0
X
"$B" replay "$T/inflights.trace" --virtual --profile "$T/inflight.lua" --tier fixed100 --json \
	> "$T/inflights.json" 2> /dev/null
check "in flight, the replay's order: C after A's replayed completion" \
	test "$(j "$T/inflights.json" '.results[1].total_ns')" = 250000
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
exit "$fail"
