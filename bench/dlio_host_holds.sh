#!/usr/bin/env bash
# dlio_host_holds.sh — a host profile's DLIO figures (`tiersim hosts
# measure`) from several separate holds of the machine, not one: DLIO's own
# CPU on a shared 2-vCPU guest moves from hour to hour (rounds within one
# hold ~25% apart, one hour's DLIO ~10% slower than another's), so a profile
# from one hold carries that hour. Each hold is one short exclusive call
# (bench/q bench); hold them minutes apart, then combine them:
#
#   bench/dlio_host_holds.sh prepare BUILD DIR
#       writes the sample files once into DIR/m (workloads/dlio_measure.py
#       gen, run under `q cpu`: not timed), which every hold then reads
#   bench/dlio_host_holds.sh hold BUILD DIR [ROUNDS]
#       one hold (run it under `q bench`): `tiersim hosts measure --dir DIR/m
#       --repeats ROUNDS` (default 2) with the options below; writes
#       DIR/hold-HHMMSS.lua (the profile of that hold, its rounds' median and
#       their least and most), DIR/hold-HHMMSS.log (its round lines) and
#       DIR/hold-HHMMSS.info (the UTC start and end, the load at each, the
#       command)
#   bench/dlio_host_holds.sh combine DIR [NAME]
#       every hold in DIR combined into DIR/combined.lua, a host NAME
#       (default this-machine: TIERSIM_HOST_FILE=DIR/combined.lua tiersim
#       dlio --host this-machine charges it): each measured figure the
#       median of the holds' medians, low and high the least and most round
#       of any hold (a hold's own low and high are its rounds' least and
#       most, so this is never narrower than the spread of the holds'
#       medians), labelled measured with the holds' times and loads; the
#       lines a hold carries rather than measures (from =, the daemon's
#       per-request figure of the host it is carried from, the worker
#       sample and spread constants, vcpus) as the first hold wrote them.
#       Prints a table: each figure's holds' medians, the combined figure
#       and its range, and how far the range reaches either side of it.
#
# Environment: VENV (or DLIO_VENV) the DLIO 2.0.0 virtual environment;
# TS_TIER the mount's tier (default ssd-cloud), TS_FROM the host carried
# from (default epyc-kvm-2vcpu), TS_CHAIN_READERS (default 0: each set's
# read_threads), TS_HOLD_LIMIT the seconds a hold may run (default 150).
set -u
. "$(dirname "$0")/lib.sh"
usage() {
	echo "usage: bench/dlio_host_holds.sh prepare BUILD DIR | hold BUILD DIR [ROUNDS] |" \
		"combine DIR [NAME]" >&2
	exit 2
}
[ $# -ge 2 ] || usage
verb=$1
shift
venv=${VENV:-${DLIO_VENV:-}}
tier=${TS_TIER:-ssd-cloud}
from=${TS_FROM:-epyc-kvm-2vcpu}
readers=${TS_CHAIN_READERS:-0}
case $verb in
prepare)
	[ $# -eq 2 ] || usage
	[ -x "$venv/bin/python" ] || { echo "dlio_host_holds.sh: set VENV to DLIO's virtual environment" >&2; exit 2; }
	mkdir -p "$2/m/data"
	"$venv/bin/python" "$BENCH_DIR/../workloads/dlio_measure.py" gen "$2/m/data"
	;;
hold)
	{ [ $# -ge 2 ] && [ $# -le 3 ]; } || usage
	[ -x "$venv/bin/python" ] || { echo "dlio_host_holds.sh: set VENV to DLIO's virtual environment" >&2; exit 2; }
	bench_build dlio_host_holds.sh "$1"
	dir=$2 rounds=${3:-2}
	[ -f "$dir/m/data/gen-done" ] ||
		echo "dlio_host_holds.sh: $dir/m/data not prepared: the hold writes the files itself" >&2
	t=$(date -u +%H%M%S)
	start=$(date -u +%Y-%m-%dT%H:%M:%SZ) l0=$(cut -d' ' -f1 /proc/loadavg)
	cmd=(hosts measure --venv "$venv" --dir "$dir/m" --repeats "$rounds" --tier "$tier"
		--from "$from" --chain-readers "$readers" --out "$dir/hold-$t.lua")
	timeout "${TS_HOLD_LIMIT:-150}" "$B" "${cmd[@]}" 2>"$dir/hold-$t.log"
	rc=$?
	end=$(date -u +%Y-%m-%dT%H:%M:%SZ) l1=$(cut -d' ' -f1 /proc/loadavg)
	cat "$dir/hold-$t.log"
	[ $rc -eq 0 ] || { echo "dlio_host_holds.sh: the hold failed (exit $rc)" >&2; rm -f "$dir/hold-$t.lua"; exit 1; }
	printf 'start %s\nend %s\nload %s %s\nrounds %s\ncommand tiersim hosts measure --venv VENV --repeats %s --tier %s --from %s --chain-readers %s\n' \
		"$start" "$end" "$l0" "$l1" "$rounds" "$rounds" "$tier" "$from" "$readers" >"$dir/hold-$t.info"
	echo "hold $t: $start - $end, load $l0 -> $l1 ($(bench_load))"
	;;
combine)
	{ [ $# -ge 1 ] && [ $# -le 2 ]; } || usage
	/usr/bin/python3 "$BENCH_DIR/dlio_host_holds.py" "$1" "${2:-this-machine}"
	;;
*) usage ;;
esac
