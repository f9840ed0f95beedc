#!/usr/bin/env bash
# rt_job.sh PRIO CMD [ARG...] — run a timing bench with block mode's
# whole request path at real-time priority, so that on a host shared with
# other work the figures measure the tier model and not the wait for a CPU.
#
# A block-mode read crosses three schedulers' worth of threads: the job,
# the loop device's worker (an unbound kworker, "kworker/uN:M-loopK": the
# loop driver queues every request on its workqueue), and tierfs's threads.
# Running the job alone under chrt leaves the other two behind every
# normal task of the host (the load stalled each request on them). While
# CMD runs, every 0.2 s this sets SCHED_FIFO PRIO+10 on each unbound
# kworker (the pool is shared by all unbound workqueues and its workers
# come and go, so all of them, and new ones as they appear) and on each
# tierfs process CMD started (its environment holds RT_JOB_TAG; others'
# are left alone). CMD itself runs as it is: the bench puts its job under
# SCHED_FIFO PRIO (pytorch_replay.sh's TS_CHRT, block_study.sh's
# BLOCK_STUDY_CHRT), below the request path, so that a busy job thread
# never holds a CPU that a request's next step waits for, and the bench's
# own work (making datasets, virtual replays) stays at normal priority.
# On exit (also on INT/TERM) every kworker it raised that still exists
# goes back to SCHED_OTHER; tierfs processes end with the bench.
# PRIO: 1-89.
set -u
[ $# -ge 2 ] || { echo "usage: bench/rt_job.sh PRIO CMD [ARG...]" >&2; exit 2; }
PRIO=$1
shift
case $PRIO in '' | *[!0-9]*) echo "rt_job.sh: PRIO '$PRIO' is not a number 1-89" >&2; exit 2 ;; esac
[ "$PRIO" -ge 1 ] && [ "$PRIO" -le 89 ] || { echo "rt_job.sh: PRIO $PRIO is outside 1-89" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "rt_job.sh: raising kernel threads needs root" >&2; exit 2; }
# assumed, not measured: PRIO+10 (any value above PRIO would do, low
# PRIO+1, high 99) puts the request path strictly above the job and leaves
# room for a bench's own steps between them; PRIO <= 89 keeps it <= 99
HI=$((PRIO + 10))
RAISED=$(mktemp /tmp/rt_job.XXXXXX)
# tierfs processes CMD starts carry this in their environment; others'
# are left alone
export RT_JOB_TAG=$$.$RANDOM
TAG=$RT_JOB_TAG

# the threads to raise: unbound kworkers, the bench's tierfs's threads;
# those not yet SCHED_FIFO at HI
raise() {
	local pid tid cls rtp comm
	ps -eLo pid=,tid=,cls=,rtprio=,comm= | while read -r pid tid cls rtp comm; do
		case $comm in
		kworker/u*) ;;
		# only the bench's own: a tierfs that inherited the tag
		tierfs) { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qx "RT_JOB_TAG=$TAG" || continue ;;
		*) continue ;;
		esac
		[ "$cls" = FF ] && [ "$rtp" = "$HI" ] && continue
		chrt -f -p "$HI" "$tid" 2>/dev/null || continue
		case $comm in kworker/u*) echo "$tid" >>"$RAISED" ;; esac
	done
}
restore() {
	local tid
	# the loop ends after its current pass (killing it could leave a pass's
	# chrt running, raising a kworker after the list below is read)
	: >"$RAISED.stop"
	wait "$LOOP" 2>/dev/null
	sort -u "$RAISED" | while read -r tid; do
		# a kworker that exited may have its tid reused by an unrelated
		# thread: demote only one that is still an unbound kworker
		case $(cat "/proc/$tid/comm" 2>/dev/null) in
		kworker/u*) chrt -o -p 0 "$tid" 2>/dev/null ;;
		esac
	done
	rm -f "$RAISED" "$RAISED.stop"
}
# assumed, not measured: a 0.2 s poll (low 0.05 s, high 1 s) bounds how long
# a new kworker runs at normal priority, against a ps pass over every
# thread of a loaded host each time
(while [ ! -e "$RAISED.stop" ]; do raise; sleep 0.2; done) &
LOOP=$!
trap 'restore; exit 1' INT TERM
echo "rt_job.sh: $*; unbound kworkers and tierfs at SCHED_FIFO $HI; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$@"
rc=$?
restore
echo "rt_job.sh: done (exit $rc); load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exit $rc
