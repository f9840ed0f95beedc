#!/bin/sh
# cli.sh — the trace subcommands end to end: undump → dump is the same text,
# dump → undump the same bytes, stats --json gives the figures the small
# hand-written trace implies, and bad input gets one line naming file/line.
. "${TS_SOURCE_ROOT:?}/tests/traces/lib.sh"

check "undump small" "$B" trace undump "$S/small.txt" -o "$T/a.trace"
"$B" trace dump "$T/a.trace" > "$T/a.txt"
grep -v '^#' "$S/small.txt" > "$T/want.txt"
grep -v '^#' "$T/a.txt" > "$T/got.txt"
check "text stable" cmp "$T/want.txt" "$T/got.txt"
check "undump again" "$B" trace undump "$T/a.txt" -o "$T/b.trace"
check "binary identical" cmp "$T/a.trace" "$T/b.trace"
"$B" trace dump "$T/a.trace" | "$B" trace undump - -o "$T/c.trace"
check "stdin undump" cmp "$T/a.trace" "$T/c.trace"

"$B" trace stats --json "$T/a.trace" > "$T/s.json" || { echo "FAIL: stats" >&2; fail=1; }
q() { jq -r "$1" "$T/s.json"; }
check "reads" test "$(q .ops.read.count)" = 3
check "read bytes" test "$(q .ops.read.bytes)" = 12288
check "write bytes" test "$(q .ops.write.bytes)" = 1048576
check "fsync error" test "$(q .ops.fsync.errors)" = 1
check "seq ops" test "$(q .sequential.seq_ops)" = 3
check "rand ops" test "$(q .sequential.rand_ops)" = 1
check "threads" test "$(q '.threads|length')" = 2
check "think of tid 10" test "$(q '.threads[0].think_ns')" = 2000
check "io of tid 11" test "$(q '.threads[1].io_ns')" = 101000
check "top file" test "$(q '.files[0].path')" = /data/b
check "span" test "$(q .span_ns)" = 106000
check "not truncated" test "$(q .truncated)" = false
# per thread: opens, and the CPU clocks' growth between the least and most
# read clock (written out of time order; a clock left unread skipped)
check "undump cpu" "$B" trace undump "$S/cpu.txt" -o "$T/cpu.trace"
"$B" trace stats --json "$T/cpu.trace" > "$T/cpu.json" || { echo "FAIL: cpu stats" >&2; fail=1; }
c() { jq -r "$1" "$T/cpu.json"; }
check "cpu of tid 10" test "$(c '.threads[0].cpu_ns') $(c '.threads[0].runq_ns')" = "4000 200"
check "opens of tid 10" test "$(c '.threads[0].opens')" = 1
check "one clock, no growth" test "$(c '.threads[1].cpu_ns') $(c '.threads[1].opens')" = "0 0"
check "a first clock of zero" test "$(c '.threads[2].cpu_ns') $(c '.threads[2].runq_ns')" = "3000 30"
"$B" trace stats "$T/a.trace" > "$T/s.txt" || fail=1
check "text stats" grep -q "sequential 75.0% of ops" "$T/s.txt"

# a trace cut short: still readable, and says so
head -c $(( $(stat -c %s "$T/a.trace") - 64 - 10 )) "$T/a.trace" > "$T/cut.trace"
"$B" trace stats --json "$T/cut.trace" > "$T/cut.json" 2> "$T/cut.err"
check "cut readable" test "$(jq -r .truncated "$T/cut.json")" = true
check "cut warned" grep -q "cut short" "$T/cut.err"

# malformed text: one line naming file, line and field; exit 1
sed 's/^2000 12000 read 1 0 4096/2000 12000 read 1 zero 4096/' "$S/small.txt" > "$T/bad.txt"
"$B" trace undump "$T/bad.txt" -o "$T/bad.trace" 2> "$T/bad.err"
check "bad exit" test $? = 1
check "bad message" grep -q "bad.txt:6: field 5 (offset)" "$T/bad.err"
check "bad is one line" test "$(wc -l < "$T/bad.err")" = 1
# unknown version
printf 'header version=13\n' > "$T/v10.txt"
"$B" trace undump "$T/v10.txt" -o "$T/v10.trace" 2> "$T/v10.err"
check "v13 refused" grep -q "version 13" "$T/v10.err"
"$B" trace dump /nonexistent 2> "$T/ne.err"
check "missing file exit" test $? = 1
check "missing file named" grep -q "/nonexistent" "$T/ne.err"
"$B" trace stats --top ten "$T/a.trace" > /dev/null 2> "$T/top.err"
check "bad --top is usage" test $? = 2
check "bad --top named" grep -q -- "--top ten" "$T/top.err"
"$B" trace frobnicate 2>/dev/null
check "unknown verb is usage" test $? = 2

# version 10: a watched request clock (loop_issue=watch) is not counted
# as a clock the request was charged by; packed samples read back with
# their thread's process, and the text form round-trips
cat > "$T/w10.txt" <<'X'
header version=10 mem=0 model=2048 mount_opts="tier=x,loop_issue=watched"
path 1 "/f"
1000 9000 read 1 0 4096 4096 7 65536 0 0
cpu 7 pid=70 ppid=1 on_ns=500 runq_ns=0 sys_ns=100 late_ns=3
issue 7 issue_ns=900 end_ns=8000 off_ns=0 flags=1
10000 19000 read 1 4096 4096 4096 7 65536 0 32
cpu 7 pid=70 ppid=1 on_ns=0 runq_ns=0 sys_ns=120 late_ns=4 flags=1
issue 7 issue_ns=9000 end_ns=18000 off_ns=0 flags=1
20000 29000 read 1 8192 4096 4096 7 65536 0 32
cpu 7 pid=70 ppid=1 on_ns=0 runq_ns=0 sys_ns=130 late_ns=5 flags=1
pack 2
end drops=0 records=3 t=30000
X
check "v10 undump" "$B" trace undump "$T/w10.txt" -o "$T/w10.trace"
"$B" trace dump "$T/w10.trace" > "$T/w10.got"
check "v10 dump: the pack" grep -qx "pack 2" "$T/w10.got"
check "v10 dump: a packed record's sample" \
	grep -qx "cpu 7 pid=70 ppid=1 on_ns=0 runq_ns=0 sys_ns=130 late_ns=5 flags=1" "$T/w10.got"
check "v10 dump: watched" grep -qx "issue 7 issue_ns=9000 end_ns=18000 off_ns=0 flags=1" "$T/w10.got"
"$B" trace undump "$T/w10.got" -o "$T/w10b.trace"
check "v10 text round trip" cmp "$T/w10.trace" "$T/w10b.trace"
check "v10 bytes: 3 records, 1 cpu item, 2 issue items, 1 pack" \
	test "$(stat -c %s "$T/w10.trace")" = $((1024 + 64 + 8 + 64 * 8))
"$B" trace stats --json "$T/w10.trace" > "$T/w10.json"
check "watched: no request clock" test "$(jq -r .request_clock "$T/w10.json")" = null
check "watched counted apart" test "$(jq -r .request_clock_watched.requests "$T/w10.json")" = 2
sed 's/^10000 19000 read 1 4096 4096 4096 7 65536 0 32$/10000 19000 read 1 4096 4096 4096 7 65536 0 0/' \
	"$T/w10.txt" > "$T/w10bad.txt"
check "edited text: a pack line closes what is before it" \
	"$B" trace undump "$T/w10bad.txt" -o "$T/w10bad.trace"
check "edited text reads" "$B" trace stats "$T/w10bad.trace" > /dev/null
grep -v '^pack' "$T/w10.txt" > "$T/w10np.txt"
check "no pack line" "$B" trace undump "$T/w10np.txt" -o "$T/w10np.trace"
check "no pack line: the same bytes" cmp "$T/w10.trace" "$T/w10np.trace"
sed 's/^header version=10 /header version=9 /; s/ model=2048//; s/ flags=1$//; /^pack/d; s/ 32$/ 0/' \
	"$T/w10.txt" > "$T/w9.txt"
check "v9 undump" "$B" trace undump "$T/w9.txt" -o "$T/w9.trace"
"$B" trace stats --json "$T/w9.trace" > "$T/w9.json"
check "v9: the same items are clocks" test "$(jq -r .request_clock.requests "$T/w9.json")" = 2
exit "$fail"
