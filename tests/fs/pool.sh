#!/usr/bin/env bash
# pool.sh — tierfs's worker pool. A request sleeping in the model holds a
# worker, so a burst of deep-queue reads grows the pool; once the burst has
# ended the idle workers end too, down to max_idle_threads (the default,
# or the one given), while -1 keeps them all (libfuse's own default);
# max_threads bounds the pool; values that cannot work are refused with one
# line. The tier's latency (2 s, fixed) is far longer than it takes to
# start the burst's readers, so they are all in flight together; counts
# are of threads, not of time.
. "$(dirname "$0")/lib.sh"

expect_error "option 'max_threads'" -o tier=ssd-cloud,max_threads=-1 "$BACKING" "$MNT"
expect_error "option 'max_threads'" -o tier=ssd-cloud,max_threads=100001 "$BACKING" "$MNT"
expect_error "option 'max_idle_threads'" -o tier=ssd-cloud,max_idle_threads=300 "$BACKING" "$MNT"
expect_error "option 'max_idle_threads'" -o tier=ssd-cloud,max_threads=4,max_idle_threads=5 "$BACKING" "$MNT"
expect_error "max_idle_threads" -o tier=ssd-cloud,max_idle_threads=some "$BACKING" "$MNT"
"$TIERFS" --help | tr -s ' \n' ' ' | grep -q "max_idle_threads=N (0 to max_threads, default 16" ||
	fail "--help does not give max_idle_threads's default"

cat >"$TMPD/slow.lua" <<'X'
tier "slow" { desc = "test", source = "test", latency = { read = { fixed = "2s" } } }
X
dd if=/dev/zero of="$BACKING/f" bs=4096 count=64 status=none || fail "dd"

threads() { # the daemon's threads now
	local t=(/proc/"$DAEMON_PID"/task/*)
	echo "${#t[@]}"
}
# burst N: N 4 KiB O_DIRECT reads at once, each its own process; waits for
# them all, sampling the daemon's threads: HIGH, the most seen.
burst() {
	local i n pids=() left
	HIGH=0
	for ((i = 0; i < $1; i++)); do
		dd if="$MNT/f" of=/dev/null bs=4096 count=1 skip="$i" iflag=direct status=none &
		pids+=($!)
	done
	while :; do
		n=$(threads)
		[ "$n" -gt "$HIGH" ] && HIGH=$n
		left=0
		for i in "${pids[@]}"; do kill -0 "$i" 2>/dev/null && left=1; done
		[ "$left" = 1 ] || break
		sleep 0.05
	done
	for i in "${pids[@]}"; do wait "$i" || fail "a read of the burst failed"; done
}
# case OPTIONS READERS IDLE: mounted with OPTIONS, READERS reads at once;
# the pool must have grown past BASE (its threads at mount) + IDLE during
# the burst, and be at most BASE + IDLE after it (IDLE "all": no fewer than
# BASE + READERS / 2 after it)
case_() {
	local base after i
	tfs_mount "tier=slow,profile=$TMPD/slow.lua${1:+,$1}"
	base=$(threads)
	burst "$2"
	# a worker ends just after its last reply, which may reach its reader
	# first: the count settles within moments (up to 5 s on a busy host)
	after=$(threads)
	if [ "$3" != all ]; then
		for ((i = 0; i < 50 && after > base + $3; i++)); do
			sleep 0.1
			after=$(threads)
		done
	fi
	echo "-o ${1:-(defaults)}: $2 reads at once: threads $base at mount, at most $HIGH during, $after after"
	if [ "$3" = all ]; then
		[ "$after" -ge $((base + $2 / 2)) ] || fail "-o $1: idle workers ended ($after threads after, $base at mount)"
	else
		[ "$HIGH" -gt $((base + $3)) ] || fail "-o ${1:-}: the burst did not grow the pool (at most $HIGH threads, $base at mount)"
		[ "$after" -le $((base + $3)) ] ||
			fail "-o ${1:-(defaults)}: $after threads after the burst, more than $base at mount + $3 idle"
	fi
	tfs_umount
	check_log
}
case_ "" 48 16
case_ max_idle_threads=2 16 2
case_ max_idle_threads=-1 16 all

# max_threads bounds the pool: 12 reads at once through 4 workers.
tfs_mount "tier=slow,profile=$TMPD/slow.lua,max_threads=4"
base=$(threads)
burst 12
echo "-o max_threads=4: 12 reads at once: threads $base at mount, at most $HIGH during"
[ "$HIGH" -le $((base + 4)) ] || fail "max_threads=4: $HIGH threads during the burst, $base at mount"
tfs_umount
check_log
exit 0
