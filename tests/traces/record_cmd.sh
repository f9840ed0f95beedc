#!/bin/sh
# record_cmd.sh — `tiersim record`: the command runs on the mount ({} and
# TIERSIM_MOUNT), its exit status comes back, the trace holds what it read
# with CPU samples, --predict prints a table per tier, and every way it can
# go wrong (no DIR, no such command, no mount point, Ctrl-C, a failing
# command) is one line, a non-zero exit, and nothing left mounted.
. "${TS_SOURCE_ROOT:?}/tests/traces/lib.sh"
[ -c /dev/fuse ] || { echo "SKIP: /dev/fuse is missing"; exit 77; }
mkdir -p "$T/data/sub" "$T/tmp"
head -c 300000 /dev/urandom > "$T/data/sub/a"
export TMPDIR="$T/tmp"
mounts() { grep -c "$T/tmp" /proc/self/mountinfo; }
left() { ls -A "$T/tmp"; }
one_line() { test "$(wc -l < "$1")" -eq 1; }

"$B" record --data "$T/data" --tier ssd-cloud --out "$T/r.trace" --predict nvme-local,aws-gp3 --no-wakes \
	-- sh -c 'cat {}/sub/a > "$1/copy"; test "$TIERSIM_MOUNT" = "$0"; exit 3' {} "$T" \
	> "$T/out" 2> "$T/err"
check "exit status passed through" test $? = 3
check "the command read through the mount" cmp "$T/data/sub/a" "$T/copy"
check "no error output" test ! -s "$T/err"
check "summary printed" grep -q "recorded $T/data on ssd-cloud into $T/r.trace (the command exited 3)" "$T/out"
check "predicted table" grep -q "^vs recorded .*%" "$T/out"
check "wait rule used" grep -q "work kept, waiting elastic" "$T/out"
check "nothing mounted" test "$(mounts)" = 0
check "no mount point left" test -z "$(left)"
"$B" trace dump "$T/r.trace" > "$T/r.txt"
check "reads recorded" grep -q ' read ' "$T/r.txt"
check "CPU samples recorded" grep -q '^cpu ' "$T/r.txt"

"$B" record --data "$T/data" --out "$T/j.trace" --json --predict nvme-local -- true > "$T/j.json"
check "json exit 0" test $? = 0
check "json predict" test "$(jq -r '.predict[1].what' "$T/j.json")" = nvme-local

# --repeat: the command runs N times into TRACE, TRACE.2, ...; each
# recording predicts every tier, and the band holds them all
"$B" record --data "$T/data" --tier ssd-cloud --repeat 3 --out "$T/rp.trace" --json --no-wakes \
	--predict nvme-local,ultra-cloud -- sh -c 'cat "$0"/sub/a > /dev/null' {} > "$T/rp.json" 2> "$T/rp.err"
check "repeat exit 0" test $? = 0
check "repeat traces written" test -f "$T/rp.trace.2" -a -f "$T/rp.trace.3" -a ! -e "$T/rp.trace.4"
check "repeat runs" test "$(jq -r '.repeat.runs' "$T/rp.json")" = 3
check "repeat recorded spans" test "$(jq -r '.repeat.recorded_ns | length' "$T/rp.json")" = 3
# each from its first request: the command's start before it is left out
check "repeat first run is the table's" test "$(jq -r '.repeat.predict[1].total_ns[0] == .predict[2].total_ns - (.predict[2].lead_ns // 0)' "$T/rp.json")" = true
check "repeat band holds every run" test "$(jq -r '[.repeat.predict[] | . as $p | ($p.low_ns <= $p.median_ns and $p.median_ns <= $p.high_ns and ([$p.total_ns[] | select(. < $p.low_ns or . > $p.high_ns)] | length) == 0)] | all' "$T/rp.json")" = true
check "repeat slower tier predicted slower" test "$(jq -r '.repeat.predict[1].median_ns > .repeat.predict[0].median_ns' "$T/rp.json")" = true
"$B" record --data "$T/data" --repeat 3 --out "$T/rf.trace" --no-wakes -- false > /dev/null 2> "$T/rf.err"
check "repeat stops at a failing run" test $? = 1
check "repeat failure said" grep -q "no run 2 of --repeat: the command failed" "$T/rf.err"
check "repeat failure: no second trace" test ! -e "$T/rf.trace.2"
"$B" record --data "$T/data" --repeat 0 -- true > /dev/null 2> "$T/r0.err"
check "repeat 0 refused" test $? = 2
check "repeat 0 named" grep -q -- "--repeat" "$T/r0.err"
# without --predict: the recordings' spread, and no empty prediction table
"$B" record --data "$T/data" --repeat 2 --out "$T/rs.trace" --no-wakes -- true > "$T/rs.out" 2>&1
check "repeat without predict: exit 0" test $? = 0
check "repeat without predict: the spread" grep -q "^2 recordings on unlimited, each from its first request: span median" "$T/rs.out"
check "repeat without predict: no prediction heading" test "$(grep -c "predicted over" "$T/rs.out")" = 0
check "repeat: nothing mounted" test "$(mounts)" = 0

# --probe: the command runs again on the probe tier into TRACE.probe
"$B" record --data "$T/data" --tier aws-gp3 --probe nvme-local --out "$T/p.trace" \
	--predict ssd-cloud -- cat {}/sub/a > "$T/pout" 2> "$T/perr"
check "probe exit 0" test $? = 0
check "probe trace written" "$B" trace stats "$T/p.trace.probe" > /dev/null
check "probe noted" grep -q "from the probe run on nvme-local" "$T/pout"
check "probe: nothing mounted" test "$(mounts)" = 0
"$B" record --data "$T/data" --probe nvme-local -- false > /dev/null 2> "$T/pf"
check "probe skipped after a failing command" test $? = 1
check "probe skipped: said so" grep -q "no probe run: the command failed" "$T/pf"

# the timeline of a recording: a track per thread, its IO, its gaps
"$B" trace export "$T/r.trace" --format perfetto -o "$T/r.json" 2> /dev/null
check "timeline: IO slices" test "$(jq '[.traceEvents[] | select(.cat=="io")] | length' "$T/r.json")" = \
	"$("$B" trace stats --json "$T/r.trace" | jq .records)"
check "timeline: work marked" jq -e '[.traceEvents[] | select(.name=="work")] | length > 0' "$T/r.json"

# bad input: one line, non-zero, nothing mounted
"$B" record --data "$T/nope" -- true > /dev/null 2> "$T/e1"
check "missing DIR fails" test $? -ne 0
check "missing DIR one line" one_line "$T/e1"
check "missing DIR message" grep -q -- "--data $T/nope: No such file or directory" "$T/e1"
"$B" record --data "$T/data" -- no-such-command-here > /dev/null 2> "$T/e2"
check "unknown command fails" test $? -ne 0
check "unknown command one line" one_line "$T/e2"
check "unknown command message" grep -q "no-such-command-here: command not found" "$T/e2"
TMPDIR="$T/none" "$B" record --data "$T/data" -- true > /dev/null 2> "$T/e3"
check "no mount point fails" test $? -ne 0
check "no mount point one line" one_line "$T/e3"
check "no mount point message" grep -q "cannot make a mount point under $T/none" "$T/e3"
"$B" record --data "$T/data" --tier no-such-tier -- true > /dev/null 2> "$T/e4"
check "bad tier fails" test $? -ne 0
check "bad tier one line" one_line "$T/e4"
check "nothing mounted after errors" test "$(mounts)" = 0
check "nothing left after errors" test -z "$(left)"

# interrupted: SIGINT to tiersim alone reaches the command, the mount comes
# down, and the status is the command's (killed by SIGINT: 130)
"$B" record --data "$T/data" --out "$T/i.trace" -- sleep 30 > /dev/null 2>&1 &
pid=$!
i=0
while [ "$(mounts)" = 0 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
# the signal is for the command: wait until record has started it
i=0
while ! pgrep -P $pid -x sleep > /dev/null && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
kill -INT $pid
wait $pid
check "interrupted status" test $? = 130
check "nothing mounted after interrupt" test "$(mounts)" = 0
check "nothing left after interrupt" test -z "$(left)"
check "interrupted trace readable" "$B" trace stats "$T/i.trace" > /dev/null
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
exit "$fail"
