#!/bin/bash
# bench/pipeline.sh — the loader's reader against fio and a naive loop, on
# the same files, side by side in one run, from the page cache and cold.
#
#   bench/pipeline.sh [BUILD_DIR]
#   env: N=20000 files, SIZE=112k bytes each (ImageNet's mean JPEG is about
#        110 KB), QDS="1 16 64", DIR=where to put them (default a fresh
#        folder under /var/tmp, removed at the end), COLD=1 to also run cold
#        (drops the page cache: needs root), LOADER=1 to add the whole loader,
#        JPEG_DIR=a folder of JPEGs for the decode part (default: made with
#        'tiersim dataset make imagenet-jpeg --count $JPEGS', JPEGS=500),
#        DECODE=0 to skip the decode part, REPS=3 rounds, FUSE=0 to skip the
#        rows through a tierfs mount (tier=unlimited: tierfs's own cost,
#        backing folder in the page cache)
#
# Rows: fio (ioengine=io_uring, iodepth=QD, bs=SIZE: one read per file, the
# files opened by fio outside the timed reads; invalidate=0, so the cache
# state is the one this script sets), "uring" (pipeline/uring.c:
# per file one linked OPENAT+READ_FIXED+CLOSE, QD files in flight), "loader"
# (the whole loader, decode=none, a consumer that drops every batch), and
# "naive" (one thread: open, fstat, pread, close). Ratios are per row pair
# measured in this run. Timings are wall clock on a shared machine, so the
# whole set of rows is run REPS times, interleaved (each round runs every
# row once, the readers of a QD in an order rotated from round to round),
# and each row shows the median round with the slowest and the fastest
# beside it; each ratio is taken within each round (the two rows of one
# round ran minutes apart at most) and shown as the median and min..max
# over the rounds. The load average is printed before and after.
set -euo pipefail
BUILD=${1:-build}
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
JPEGS=${JPEGS:-500}
REPS=${REPS:-3}
FUSE=${FUSE:-1}
TIERFS=$BUILD/fs/tierfs
[ -x "$TIERFS" ] || FUSE=0
DECODE=${DECODE:-1}
N=${N:-20000}
SIZE=${SIZE:-112k}
QDS=${QDS:-"1 16 64"}
COLD=${COLD:-1}
LOADER=${LOADER:-1}
READER=$BUILD/bench/pipeline_reader
[ -x "$READER" ] || { echo "pipeline.sh: $READER not built; run ninja -C $BUILD" >&2; exit 1; }
command -v fio >/dev/null || { echo "pipeline.sh: fio not on PATH" >&2; exit 1; }
if [ "$COLD" = 1 ] && [ ! -w /proc/sys/vm/drop_caches ]; then
	echo "pipeline.sh: cold runs need root (drop_caches); set COLD=0" >&2
	exit 1
fi
OWN=0
if [ -z "${DIR:-}" ]; then
	DIR=$(mktemp -d /var/tmp/ts_pipebench.XXXXXX)
	OWN=1
fi
MNT=
TFS_PID=
cleanup() {
	set +e
	if [ -n "$MNT" ] && grep -q " $MNT " /proc/self/mountinfo; then
		fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT"
	fi
	[ -n "$TFS_PID" ] && { kill "$TFS_PID" 2>/dev/null; wait "$TFS_PID" 2>/dev/null; }
	[ -n "$MNT" ] && { rmdir "$MNT" 2>/dev/null; rm -f "$MNT.log"; }
	[ "$OWN" = 1 ] && rm -rf "$DIR"
	[ -n "${OWN_JPEG:-}" ] && rm -rf "$OWN_JPEG"
	return 0
}
trap cleanup EXIT
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

FIO_JOB=(--name=r --nrfiles="$N" --filesize="$SIZE" --bs="$SIZE" --rw=read
	 --file_service_type=sequential --invalidate=0)
echo "# making $N files of $SIZE in $DIR"
fio "${FIO_JOB[@]}" --directory="$DIR" --create_only=1 >/dev/null
# The loader lists a folder in sorted order: give it the same inodes under
# zero-padded names so it reads them in fio's order too.
mkdir -p "$DIR/sorted"
"$READER" link "$DIR" r.0. "$N" "$DIR/sorted"

drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
warm() { cat "$DIR"/r.0.* > /dev/null; }
ROOT=$DIR # what the rows read: the folder, or the tierfs mount of it

# Each prints "samples bytes seconds".
run_fio() {
	fio "${FIO_JOB[@]}" --directory="$ROOT" --ioengine=io_uring --iodepth="$1" --output-format=json |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["jobs"][0]["read"]; print(r["total_ios"], r["io_bytes"], r["runtime"]/1000.0)'
}
run_uring() { "$READER" uring "$ROOT" r.0. "$N" "$1" 2>/dev/null; }
run_loader() { "$READER" loader "$ROOT/sorted" "$1" 2>/dev/null; }
run_naive() { "$READER" naive "$ROOT" r.0. "$N"; }

declare -A MBS FPS
one() { # cache method qd: appends this round's rate to the row
	local out
	[ "$1" = cold ] && drop
	case $2 in
	fio) out=$(run_fio "$3") ;;
	uring) out=$(run_uring "$3") ;;
	loader) out=$(run_loader "$3") ;;
	naive) out=$(run_naive) ;;
	esac
	read -r s b t <<<"$out"
	MBS[$1,$2,$3]+="$(awk -v b="$b" -v t="$t" 'BEGIN { printf "%.0f", b / t / 1e6 }') "
	FPS[$1,$2,$3]+="$(awk -v s="$s" -v t="$t" 'BEGIN { printf "%.0f", s / t }') "
}
# "median (min..max)" of A[i] / B[i] over the rounds i: A and B are the
# space-separated figures of two rows, round by round.
rratio() { bench_ratio -f %.2f "$1" "$2"; }

caches="warm"
[ "$COLD" = 1 ] && caches="$caches cold"
if [ "$FUSE" = 1 ]; then
	MNT=$(mktemp -d /var/tmp/ts_pipebench_mnt.XXXXXX)
	"$TIERFS" -f -o tier=unlimited "$DIR" "$MNT" 2>"$MNT.log" &
	TFS_PID=$!
	for _ in $(seq 200); do
		grep -q '"calibrated": true' "$MNT/.tierfs/stats" 2>/dev/null && break
		sleep 0.1
	done
	grep -q '"calibrated": true' "$MNT/.tierfs/stats" || { echo "pipeline.sh: tierfs did not come up" >&2; exit 1; }
	caches="$caches fuse"
fi
methods="fio uring"
[ "$LOADER" = 1 ] && methods="$methods loader"
echo "$(bench_load) before"
for r in $(seq "$REPS"); do
	for c in $caches; do
		[ "$c" = warm ] && warm
		ROOT=$DIR
		[ "$c" = fuse ] && { warm; ROOT=$MNT; }
		one "$c" naive 1
		for qd in $QDS; do
			# shellcheck disable=SC2086 # methods: names, a word each
			for m in $(bench_order "$r" $methods); do
				one "$c" "$m" "$qd"
			done
		done
	done
done
declare -A MED
echo
echo "median of $REPS rounds (slowest-fastest)"
echo
echo "| cache | reader | QD  | files/s | MB/s | MB/s range  |"
echo "|-------|--------|-----|---------|------|-------------|"
for c in $caches; do
	for row in "naive 1" $(for qd in $QDS; do for m in $methods; do echo "$m:$qd"; done; done); do
		m=${row%[: ]*}
		q=${row#*[: ]}
		read -r mbs lo hi <<<"$(bench_stat -r -f %.0f <<<"${MBS[$c,$m,$q]}")"
		MED[$c,$m,$q]=$mbs
		printf "| %-5s | %-6s | %3s | %7s | %4s | %5s-%-5s |\n" "$c" "$m" "$q" \
			"$(bench_stat -r -f %.0f <<<"${FPS[$c,$m,$q]}" | cut -d' ' -f1)" "$mbs" "$lo" "$hi"
	done
done
echo
echo "MB/s ratios within each round: median (min..max) over $REPS rounds"
echo
echo "| cache | QD  | uring/fio         | uring/naive       | loader/fio        |"
echo "|-------|-----|-------------------|-------------------|-------------------|"
for c in $caches; do
	for qd in $QDS; do
		l=-
		[ "$LOADER" = 1 ] && l=$(rratio "${MBS[$c,loader,$qd]}" "${MBS[$c,fio,$qd]}")
		printf "| %-5s | %3s | %-17s | %-17s | %-17s |\n" "$c" "$qd" \
			"$(rratio "${MBS[$c,uring,$qd]}" "${MBS[$c,fio,$qd]}")" \
			"$(rratio "${MBS[$c,uring,$qd]}" "${MBS[$c,naive,1]}")" "$l"
	done
done
echo
echo "$(bench_load) after the reads"

[ "$DECODE" = 1 ] || exit 0

# Decode: images/s per core for generated ImageNet-like JPEGs, against the
# published libjpeg-turbo figures for ImageNet (456-857 images/s per core,
# decode only: ternaus/imread_benchmark as reported in arXiv 2501.13131).
TIERSIM=$BUILD/cli/tiersim
if [ -z "${JPEG_DIR:-}" ]; then
	if ! "$TIERSIM" dataset --help >/dev/null 2>&1; then
		echo "# decode: skipped (no JPEG_DIR, and this tiersim has no 'dataset' subcommand)"
		exit 0
	fi
	OWN_JPEG=$(mktemp -d /var/tmp/ts_pipebench_jpeg.XXXXXX)
	rmdir "$OWN_JPEG"
	echo
	echo "# making $JPEGS ImageNet-like JPEGs (tiersim dataset make imagenet-jpeg)"
	"$TIERSIM" dataset make imagenet-jpeg --count "$JPEGS" --out "$OWN_JPEG" --quiet >/dev/null
	JPEG_DIR=$OWN_JPEG/train
fi
echo
CAL=$(mktemp /var/tmp/ts_pipebench_cal.XXXXXX)
"$TIERSIM" calibrate decode --dir "$JPEG_DIR" --count "$JPEGS" --seconds 5 --out "$CAL"
rm -f "$CAL"
cat "$JPEG_DIR"/*/* > /dev/null 2>&1 || cat "$JPEG_DIR"/* > /dev/null
echo
echo "| decode workers | images/s (loader, wall) | per worker | workers busy s |"
echo "|----------------|-------------------------|------------|----------------|"
for v in 1 2; do
	# Twice over the set so start-up is a small part of the run.
	out=$("$READER" loader "$JPEG_DIR" 16 decode=real vcpus=$v batch=32 epochs=2 2>"$DIR/dec.log")
	read -r s b t <<<"$out"
	busy=$(sed -n 's/.*workers busy \([0-9.]*\) s.*/\1/p' "$DIR/dec.log")
	awk -v v="$v" -v s="$s" -v t="$t" -v busy="$busy" \
	    'BEGIN { printf "| %14d | %23.0f | %10.0f | %14s |\n", v, s / t, s / t / v, busy }'
done
