#!/bin/sh
# wake_bpf.sh WAKE_LOAD — the BPF wake capture writes the lines the tracefs
# capture writes: one command with known wakes (wake_load.c) recorded both
# ways, and the W and S lines of the two wake files compared by thread name.
# Needs /dev/fuse, root, and a build and a kernel with BPF (else SKIP).
. "${TS_SOURCE_ROOT:?}/tests/traces/lib.sh"
L=${1:?usage: wake_bpf.sh WAKE_LOAD}
if [ ! -c /dev/fuse ] || [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs /dev/fuse and root"
	exit 77
fi
mkdir -p "$T/data" "$T/tmp"
head -c 4096 /dev/urandom > "$T/data/a"
head -c 1048576 /dev/urandom > "$T/disk"

# wake_load's own threads only: under AddressSanitizer its leak check at
# exit would stop the world from a task of its own, a seventh "thread"
rec() { # rec tracefs|bpf
	XDG_CACHE_HOME="$T/cache" TMPDIR="$T/tmp" TIERSIM_WAKE_CAPTURE=$1 "$B" record --data "$T/data" --out "$T/$1.trace" \
		-- env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		"$L" "$T/disk" > /dev/null 2> "$T/$1.err"
}
# "W WAKEE WAKER", "S THREAD outside" and "P THREAD irq" per line, by
# thread name; "T NAME PARENT" per thread. The names are wake_load's threads' in the order it
# makes them (the T lines' order: the forks'); the comm the kernel gave
# each at its fork is its parent's.
lines() {
	awk 'BEGIN { split("wake_load ping pong sleeper spinner disk", names) }
	     $1 == "T" { name[$2] = names[++n]; parent[$2] = $4; tids[n] = $2 }
	     $1 == "W" { print "W", name[$4], name[$5] }
	     $1 == "S" { print "S", name[$4], ($5 in name) ? "inside" : "outside" }
	     $1 == "P" { print "P", name[$4], "irq" }
	     END { for (i = 1; i <= n; i++)
		     print "T", name[tids[i]], (parent[tids[i]] in name) ? name[parent[tids[i]]] : "-" }' \
		"$1" | sort | uniq -c | awk '{ print $2, $3, $4, $1 }'
}
count() { awk -v k="$2" -v a="$3" -v b="$4" '$1 == k && $2 == a && $3 == b { n = $4 } END { print n + 0 }' "$1"; }
# A recording's counts that depend on the host's timing (below): a
# loaded host may leave a thread no time to fall asleep before it is
# woken, or finish a read before its reader sleeps, so a recording whose
# counts fall short is made again, up to three times. The checks below are
# made on the last one, so a capture that never gets them right fails.
timely() { # timely tracefs|bpf
	lines "$T/$1.trace.wakes" > "$T/$1.lines" &&
		[ "$(count "$T/$1.lines" W pong ping)" -ge 15 ] &&
		[ "$(count "$T/$1.lines" W ping pong)" -ge 15 ] &&
		[ "$(count "$T/$1.lines" S disk outside)" -gt 0 ]
}
for try in 1 2 3; do
	rec tracefs
	rc=$?
	[ "$rc" = 0 ] && ! grep -q "notice: no wake" "$T/tracefs.err" && ! timely tracefs || break
	echo "tracefs: recording $try fell short of the timed counts, again; it had:"
	sed 's/^/  /' "$T/tracefs.lines"
done
check "tracefs: exit 0" test "$rc" = 0
if grep -q "notice: no wake" "$T/tracefs.err"; then
	echo "SKIP: no wake capture here: $(cat "$T/tracefs.err")"
	exit 77
fi
# The offsets the programs read at, kept between recordings
# (wake_bpf.c): one kept for another boot, with offsets of nothing, is
# neither used (the lines below would be wrong) nor kept; the first
# recording replaces it with this boot's, which any next one reads.
mkdir -p "$T/cache/tiersim"
echo "tiersim-wake-bpf-offsets-1 another-boot/1 4 8 12 16 20 24 28" > "$T/cache/tiersim/wake_bpf_offsets"
for try in 1 2 3; do
	rec bpf
	rc=$?
	[ "$rc" = 0 ] && [ ! -s "$T/bpf.err" ] && ! timely bpf || break
	echo "bpf: recording $try fell short of the timed counts, again; it had:"
	sed 's/^/  /' "$T/bpf.lines"
done
check "bpf: exit 0" test "$rc" = 0
check "bpf: no error output" test ! -s "$T/bpf.err"
check "bpf: no instance left" test -z "$(ls -A "$T/tmp")"
check "bpf: the offsets kept for this boot" \
	grep -q "^tiersim-wake-bpf-offsets-3 $(cat /proc/sys/kernel/random/boot_id)/[0-9]* [0-9]" \
	"$T/cache/tiersim/wake_bpf_offsets"

for m in tracefs bpf; do
	lines "$T/$m.trace.wakes" > "$T/$m.lines"
	# 20 rounds, each giving the other thread 3 ms to fall asleep first: a
	# loaded host may not, now and then, so most rounds, not all
	check "$m: ping woke pong in most of 20 rounds" test "$(count "$T/$m.lines" W pong ping)" -ge 15
	check "$m: pong woke ping in most of 20 rounds" test "$(count "$T/$m.lines" W ping pong)" -ge 15
	check "$m: the timer's interrupt woke the sleeper, not the spinner" \
		test "$(count "$T/$m.lines" W sleeper spinner)" = 0
	check "$m: no wake of the sleeper by a thread" \
		test "$(awk '$1 == "W" && $2 == "sleeper"' "$T/$m.lines")" = ""
	check "$m: the timer's interrupt ended the sleeper's sleeps: pauses" \
		test "$(count "$T/$m.lines" P sleeper irq)" -ge 15
	check "$m: the device woke the disk reader" test "$(count "$T/$m.lines" S disk outside)" -gt 0
	check "$m: every S line's waker outside the command" \
		test "$(awk '$1 == "S" && $3 != "outside"' "$T/$m.lines")" = ""
	# the threads, each with the thread that made it
	awk '$1 == "T" { print $2, $3 }' "$T/$m.lines" > "$T/$m.threads"
done
check "the same threads" cmp -s "$T/tracefs.threads" "$T/bpf.threads"
check "the threads: wake_load's six" test "$(wc -l < "$T/bpf.threads")" = 6
# the pairs that woke each other (how often a thread's exit found its
# joiner asleep depends on timing; that one did, or did not, does not)
awk '$1 == "W" { print $2, $3 }' "$T/tracefs.lines" | grep -v "^wake_load " > "$T/tracefs.pairs"
awk '$1 == "W" { print $2, $3 }' "$T/bpf.lines" | grep -v "^wake_load " > "$T/bpf.pairs"
check "the same wakes between the threads" cmp -s "$T/tracefs.pairs" "$T/bpf.pairs"
# every thread of one process: the BPF capture names it from the kernel
check "bpf: every thread in the command's process" \
	test "$(awk '$1 == "T" { print $3 }' "$T/bpf.trace.wakes" | sort -u | wc -l)" = 1
check "bpf: times on a CPU" \
	test "$(awk '$1 == "T" && $7 > 0' "$T/bpf.trace.wakes" | wc -l)" = 6
# A tree with more threads over its life than the programs hold at once
# (TS_WAKE_BPF_SLOTS + TS_WAKE_BPF_THREADS, traces/wake_bpf_rec.h): each
# thread's state is freed at its end, its totals sent then, so every one
# is kept and has its T line.
slots=$(awk '$2 == "TS_WAKE_BPF_SLOTS" { print $3 }' "$TS_SOURCE_ROOT/traces/wake_bpf_rec.h")
held=$(awk '$2 == "TS_WAKE_BPF_THREADS" { print $3 }' "$TS_SOURCE_ROOT/traces/wake_bpf_rec.h")
n=$((slots + held + 100))
XDG_CACHE_HOME="$T/cache" TMPDIR="$T/tmp" TIERSIM_WAKE_CAPTURE=bpf "$B" record --data "$T/data" \
	--out "$T/many.trace" -- env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	"$L" --threads "$n" > /dev/null 2> "$T/many.err"
check "bpf, $n threads one after another: exit 0" test "$?" = 0
check "bpf, $n threads: no error output" test ! -s "$T/many.err"
check "bpf, $n threads: a T line each, and the main thread's" \
	test "$(awk '$1 == "T"' "$T/many.trace.wakes" | wc -l)" = "$((n + 1))"
check "bpf, $n threads: each ended (its end after its start)" \
	test "$(awk '$1 == "T" && $6 >= $5' "$T/many.trace.wakes" | wc -l)" = "$((n + 1))"
# shellcheck disable=SC2154 # fail: set by lib.sh (check())
if [ "$fail" != 0 ]; then
	for m in tracefs bpf; do echo "== $m"; cat "$T/$m.lines"; done
fi
exit "$fail"
