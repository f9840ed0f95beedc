# lib.sh — sourced by the bash scripts of bench/: the order of a round's
# runs, and their figures over the rounds (bench/benchstat.py computes
# them; its header says what they are).
# shellcheck shell=bash
# BENCH_DIR: exported, for the scripts' inline Python to import benchstat from
export BENCH_DIR
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# bench_order ROUND ITEM...: the items, one a line, rotated by ROUND (round
# 0 as given, round 1 from the second, ...): over rounds each item runs in
# each place, and two items alternate which runs first.
bench_order() {
	local r=$1 i
	shift
	local items=("$@")
	for ((i = 0; i < ${#items[@]}; i++)); do
		echo "${items[$(((i + r) % ${#items[@]}))]}"
	done
}

# bench_stat [-r] [-f FMT] [X...]: "median (min..max)" of X (or stdin's words);
# -r: "median min max"
bench_stat() { /usr/bin/python3 "$BENCH_DIR/benchstat.py" stat "$@"; }
# bench_ratio [-r] [-f FMT] "A1 A2 .." "B1 B2 ..": of A[i] / B[i], round by round
bench_ratio() { /usr/bin/python3 "$BENCH_DIR/benchstat.py" ratio "$@"; }
# bench_diff [-r] [-f FMT] "A1 A2 .." "B1 B2 ..": of A[i] - B[i], round by round
bench_diff() { /usr/bin/python3 "$BENCH_DIR/benchstat.py" diff "$@"; }
# bench_build NAME BUILD: for a block-mode script run as root: B (BUILD's
# tiersim), TIERSIM_TIERFS (its tierfs, exported) and PY; NAME heads the
# error line when not root.
# shellcheck disable=SC2034 # B and PY: for the script that calls it
bench_build() {
	B=$(cd "$2" && pwd)/cli/tiersim
	export TIERSIM_TIERFS
	TIERSIM_TIERFS=$(cd "$2" && pwd)/fs/tierfs
	PY=/usr/bin/python3
	[ "$(id -u)" -eq 0 ] || { echo "$1: block mode needs root" >&2; exit 2; }
}
# bench_request_clock TIERSIM TRACE: "N of M", the reads and writes of a
# block-mode trace that carry the loop device's issue (format 9's request
# clock; `trace stats`), nothing where none does: tierfs then charged from
# its receipt, another model's figures
bench_request_clock() {
	"$1" trace stats "$2" | sed -n 's/^request clock (block mode: \([0-9]* of [0-9]*\) .*/\1/p'
}
# bench_loader_record TIERSIM DATA TIER FS TRACE LIST OUT LOADER_ARG...: one
# epoch of bench/pytorch_loader.py over LIST's files of DATA (--mode,
# --workers, ... in LOADER_ARG), recorded by TIERSIM record on TIER with no
# page cache of tierfs's (--mem 0: every read reaches the tier model), in
# block mode on FS (ext4, xfs; empty: through FUSE) into TRACE, its --json
# summary on stdout; the loader's own figures into OUT. Under chrt -f
# TS_CHRT where that is set (a SCHED_FIFO priority).
bench_loader_record() {
	local b=$1 data=$2 tier=$3 fs=$4 trace=$5 list=$6 out=$7
	shift 7
	${TS_CHRT:+chrt -f "$TS_CHRT"} "$b" record --data "$data" --tier "$tier" --mem 0 \
		${fs:+--fs "$fs"} --out "$trace" --json -- \
		/usr/bin/python3 "$BENCH_DIR/pytorch_loader.py" --root {} --list "$list" "$@" --out "$out"
}
# bench_warm PATH...: tierfs's backing files read through the host's page
# cache before a run (PATH a file, as a block-mode image, or a folder: every
# file under it). tierfs's reads of them are the host's, not the tier's;
# where the host's page cache did not hold them they waited on the host's
# disk inside a request, 2-69 ms a read (the folder loader through FUSE,
# 2026-12-07 11:27 UTC, kfs_check.sh), which a run then carries. Both
# kfs_check.sh and kfs_sched.sh start each mode's runs of a round so.
bench_warm() {
	local p
	for p in "$@"; do
		if [ -d "$p" ]; then
			find "$p" -type f -exec cat {} + >/dev/null
		else
			cat "$p" >/dev/null
		fi
	done
}
# bench_load: the load average now and the CPUs it is shared by
bench_load() { echo "load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"; }

# bench_mounts NAME MOUNT...: for a script that mounts tierfs several ways
# over one backing folder: WORK (a fresh folder), BACKING, a mount point
# WORK/MOUNT per MOUNT, MOUNTS (with traced-before added when TS_BEFORE
# names another build: BEFORE, whose tierfs the script mounts there), PID
# (the script sets PID[MOUNT] to each daemon), and an exit trap that
# unmounts them all, waits for their daemons and removes WORK. NAME heads
# the error lines.
bench_mounts() {
	local name=$1 m
	shift
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
	BACKING=$WORK/backing
	MOUNTS="$*"
	BEFORE=
	if [ -n "${TS_BEFORE:-}" ]; then
		BEFORE=$(cd "$TS_BEFORE" 2>/dev/null && pwd) ||
			{ echo "$name: no build directory '$TS_BEFORE'" >&2; exit 1; }
		[ -x "$BEFORE/fs/tierfs" ] || { echo "$name: $BEFORE/fs/tierfs is not built" >&2; exit 1; }
		MOUNTS+=" traced-before"
	fi
	declare -gA PID=()
	mkdir -p "$BACKING"
	for m in $MOUNTS; do mkdir -p "$WORK/$m"; done
	trap bench_unmount_all EXIT
	trap 'exit 1' INT TERM
}
# bench_trace_counts CLI TRACE: "N records, M dropped" of TRACE (from CLI's
# `trace stats --json`; its stderr apart, in WORK/stats.err: a trace that
# dropped records says so there, and the count is in the JSON), then each
# line of that stderr after "; ". Tracing must lose nothing: the scripts
# print it for each traced mount once it is unmounted.
bench_trace_counts() {
	echo "$("$1" trace stats "$2" --json 2>"$WORK/stats.err" |
		python3 -c 'import json, sys
try:
    s = json.load(sys.stdin)
    print("%s records, %s dropped" % (s.get("records"), s.get("dropped")))
except Exception as e:
    print("unreadable: %s" % e)')$(sed 's/^/; /' "$WORK/stats.err" | tr -d '\n')"
}
# bench_mounted DIR: whether DIR is a mount point
bench_mounted() { awk -v m="$1" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; }
bench_unmount_all() {
	local m
	for m in $MOUNTS; do
		if bench_mounted "$WORK/$m"; then
			fusermount3 -u "$WORK/$m" 2>/dev/null || umount -l "$WORK/$m"
		fi
		[ -n "${PID[$m]:-}" ] && wait "${PID[$m]}" 2>/dev/null
	done
	rm -rf "$WORK"
}

# A tracefs instance of a script's own (/sys/kernel/tracing/instances/NAME):
# its own buffer, events, filters and clock, apart from the main buffer and
# from any other script's instance; kept off but while bench_tracefs_on's
# window runs.
# bench_tracefs_start DIR KB [CLOCK]: make the instance DIR, off, with KB KiB
# of buffer a CPU and CLOCK's time stamps (default: tracefs's, local); fails
# where DIR cannot be made. The script then enables its events.
bench_tracefs_start() {
	mkdir "$1" || return 1
	echo 0 >"$1/tracing_on"
	[ -z "${3:-}" ] || echo "$3" >"$1/trace_clock"
	echo "$2" >"$1/buffer_size_kb"
}
# bench_tracefs_event DIR EVENT [FILTER]: EVENT (SYSTEM/NAME) recorded in DIR,
# only where FILTER holds if given; fails where tracefs refuses either
bench_tracefs_event() {
	[ -z "${3:-}" ] || echo "$3" >"$1/events/$2/filter" || return 1
	echo 1 >"$1/events/$2/enable"
}
# bench_tracefs_on DIR: DIR's buffer emptied, and recording
bench_tracefs_on() {
	echo >"$1/trace"
	echo 1 >"$1/tracing_on"
}
# bench_tracefs_off DIR OUT [OVERRUN]: recording stopped, DIR's buffer into
# OUT; with OVERRUN, each CPU's overrun lines (per_cpu/cpuN/stats: "overrun"
# and "commit overrun", events the full buffer lost) into that file
bench_tracefs_off() {
	echo 0 >"$1/tracing_on"
	cat "$1/trace" >"$2"
	[ -z "${3:-}" ] || grep -h . "$1"/per_cpu/cpu*/stats | grep overrun >"$3"
}
# bench_tracefs_stop DIR [EVENT TRIGGER]...: the instance DIR taken down if it
# is there (an exit trap calls it too): off, each TRIGGER the script set on
# EVENT removed, every event disabled, DIR removed
bench_tracefs_stop() {
	local d=$1
	[ -d "$d" ] || return 0
	shift
	echo 0 >"$d/tracing_on"
	while [ $# -ge 2 ]; do
		echo "!$2" >"$d/events/$1/trigger" 2>/dev/null
		shift 2
	done
	echo 0 >"$d/events/enable"
	rmdir "$d"
}
