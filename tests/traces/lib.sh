# lib.sh — what the trace tool tests source: the tiersim program ($B), the
# test data ($S), a scratch directory ($T) removed on exit, check(), which
# records a failure and goes on so one run shows them all, and the set-up
# the replay tests share: j(), mktrace(), reads_trace(), wakes_file(),
# fixed_tiers(), two_reads(), read_pairs(), kfi_pairs().
# shellcheck shell=sh
set -u
[ -n "${V:-}" ] && set -x
B=${TS_BUILD_ROOT:?run through meson test}/cli/tiersim
# shellcheck disable=SC2034 # S: for the tests that source this
S=${TS_SOURCE_ROOT:?run through meson test}/tests/traces/data
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { # check DESCRIPTION COMMAND...
	d=$1
	shift
	if ! "$@"; then
		echo "FAIL: $d" >&2
		# shellcheck disable=SC2034 # fail: for the tests that source this
		fail=1
	fi
}
j() { # j FILE FILTER: what jq's FILTER gives of the JSON in FILE, raw
	jq -r "$2" "$1"
}
mktrace() { # mktrace NAME: the trace text on stdin as $T/NAME.txt and $T/NAME.trace
	cat > "$T/$1.txt" && "$B" trace undump "$T/$1.txt" -o "$T/$1.trace"
}
reads_trace() { # reads_trace NAME TID CPU START-END...: mktrace NAME of one thread
	# TID reading /f's 4 KiB blocks in turn (the file as long as the reads),
	# each from START to END ns after the trace's start (CLOCK_MONOTONIC
	# 1 ms, the wake files' clock); CPU "-", or PID:PPID for a CPU sample
	# after each read (1 us on a CPU more each)
	_rn=$1 _rt=$2 _rc=$3
	shift 3
	_rk=0 _re=0
	{
		echo "header version=2 start_mono_ns=1000000"
		echo 'path 1 "/f"'
		for _rr in "$@"; do
			_re=${_rr#*-}
			echo "${_rr%-*} $_re read 1 $((_rk * 4096)) 4096 4096 $_rt $(($# * 4096)) 0 0"
			_rk=$((_rk + 1))
			[ "$_rc" = - ] ||
				echo "cpu $_rt pid=${_rc%:*} ppid=${_rc#*:} on_ns=$((_rk * 1000)) runq_ns=0"
		done
		echo "end drops=0 records=$# t=$_re"
	} | mktrace "$_rn"
}
wakes_file() { # wakes_file NAME: the wake file's lines on stdin as $T/NAME.trace.wakes
	{ echo "tiersim-wakes 1" && cat; } > "$T/$1.trace.wakes"
}
fixed_tiers() { # fixed_tiers FILE: tiers fixed60 and fixed100, reads at that latency
	cat > "$1" <<'X'
tier "fixed60" { desc = "test", source = "test", latency = { read = { fixed = "60us" } } }
tier "fixed100" { desc = "test", source = "test", latency = { read = { fixed = "100us" } } }
X
}
two_reads() { # two_reads NAME FIRST_LEN FLAGS: mktrace NAME, a FUSE recording
	# (floor 10us) of two reads of /f by one thread, the first FIRST_LEN
	# bytes at 0 from 0 to 50us, the second 128 KiB from 80us to 130us
	# (30us after the first completed); FLAGS 16: read ahead by the kernel's
	# page cache, 0: direct
	mktrace "$1" <<X
header version=5 mem=0 model=255 floor_ns=10000
path 1 "/f"
0 50000 read 1 0 $2 $2 1 1048576 0 $3
80000 130000 read 1 131072 131072 131072 1 1048576 0 $3
end drops=0 records=2 t=130000
X
}
read_pairs() { # read_pairs NAME FLAGS: mktrace NAME, a FUSE recording (floor
	# 5us) of six 128 KiB reads of /f in pairs of one thread: the second of
	# a pair 100us after the first, the next pair 50us after the first of
	# the last completed (each 1ms long); FLAGS 16: read ahead by the
	# kernel's page cache, 0: direct
	mktrace "$1" <<X
header version=5 mem=0 model=255 floor_ns=5000
path 1 "/f"
0 1000000 read 1 0 131072 131072 1 786432 0 $2
100000 1100000 read 1 131072 131072 131072 1 786432 0 $2
1050000 2050000 read 1 262144 131072 131072 1 786432 0 $2
1150000 2150000 read 1 393216 131072 131072 1 786432 0 $2
2100000 3100000 read 1 524288 131072 131072 1 786432 0 $2
2200000 3200000 read 1 655360 131072 131072 1 786432 0 $2
end drops=0 records=6 t=3200000
X
}
kfi_pairs() { # kfi_pairs ARGS: total_ns of $T/pairs.trace replayed --kernel-fs on
	# fixed100 ($T/fx.lua) with the size part, the FUSE CPU, the page wake
	# and the IO path's CPU off, and ARGS
	"$B" replay "$T/pairs.trace" --virtual --kernel-fs --fuse-size 0 --fuse-cpu 0 \
		--page-wake 0 --dev-read-cpu 0 --tier fixed100 --profile "$T/fx.lua" --json "$@" |
		jq -r '.results[1].total_ns'
}
