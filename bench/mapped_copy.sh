#!/usr/bin/env bash
# mapped_copy.sh — how the order a reader copies records out of a memory
# map in decides the kernel's readahead windows in block mode: a file of
# RECORDS records (random bytes; 196,624 bytes copied from each 200,704,
# a raw Datum in LMDB's overflow pages, as main.lua's LMDB holds them) in
# an ext4 image made by `tiersim disk make --from` (the file + 1 GiB: 4
# KiB blocks), and for each MODE of bench/mapped_copy.c (memcpy: glibc's,
# forward: page by page in order, tail: first page, last page, the rest)
# a fresh mount on TIER (nothing cached), the copy, and the device's
# reads from the mount's trace: how many, and how many a whole 128 KiB
# readahead window (of_128k). ROUNDS rounds, the modes in turn. The
# pattern does not depend on load: run it under `q cpu`. First it prints
# this host's copy order (CPUID's ERMS flag in /proc/cpuinfo and glibc's
# Fast_Rep_String from `ld.so --list-diagnostics`): a host profile's
# copy_tail_first (pipeline/hosts.lua), whose `tail` mode here is the fit
# of the page-cache model's tail-first mapped read (tier/cache.c,
# test_tier_cache's test_mapped_tail_first: 400 records on ssd-cloud).
#
# usage: bench/mapped_copy.sh BUILD [ROUNDS] [TIER] [RECORDS] [MODES]
#   Defaults: 2 ssd-cloud 400 "memcpy forward tail". Needs root.
#   MAPPED_COPY_TRACE=DIR: each run under bench/ra_trace.sh as well
#   (DIR/MODE.R.trace: readahead's decisions, folios, faults).
set -u
BUILD=${1:?usage: bench/mapped_copy.sh BUILD [ROUNDS] [TIER] [RECORDS] [MODES]}
ROUNDS=${2:-2}
TIER=${3:-ssd-cloud}
RECORDS=${4:-400}
MODES=${5:-memcpy forward tail}
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
bench_build mapped_copy.sh "$BUILD"
COPY=$(cd "$BUILD" && pwd)/bench/mapped_copy
[ -x "$COPY" ] || { echo "mapped_copy.sh: no $COPY (ninja -C $BUILD)" >&2; exit 2; }
TRACE=${MAPPED_COPY_TRACE:-}
[ -z "$TRACE" ] || mkdir -p "$TRACE" || { echo "mapped_copy.sh: cannot make $TRACE" >&2; exit 1; }
W=$(mktemp -d /tmp/mapped_copy.XXXXXX)
MNT=$W/mnt
# the disk's state beside the rest; the mount (if a run left one) undone first
export TIERSIM_DISK_STATE=$W/state
trap '{ ! mountpoint -q "$MNT" || "$B" disk umount "$MNT"; } >/dev/null 2>&1; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM
mkdir -p "$W/data" "$W/vol" "$W/state" "$MNT"
ERMS=no
grep -qw erms /proc/cpuinfo && ERMS=yes
FRS=$(ld.so --list-diagnostics 2>/dev/null | sed -n 's/^x86.cpu_features.preferred.Fast_Rep_String=//p')
echo "this host: ERMS $ERMS, glibc Fast_Rep_String ${FRS:-unknown}: copy_tail_first $([ "$ERMS" = yes ] && echo 0 || echo 1)"
head -c "$((RECORDS * 200704))" /dev/urandom >"$W/data/data.mdb"
MIB=$(((RECORDS * 200704 + 1048575) / 1048576))
"$B" disk make "$W/vol/img" --size "$((MIB + 1024))MiB" --fs ext4 --from "$W/data" >/dev/null || exit 1
for r in $(seq "$ROUNDS"); do
	for m in $MODES; do
		"$B" disk mount "$W/vol/img" "$MNT" --tier "$TIER" --trace "$W/dev.trace" 2>/dev/null >/dev/null || exit 1
		if [ -n "$TRACE" ]; then
			"$SRC/bench/ra_trace.sh" "$TRACE/$m.$r.trace" -- "$COPY" "$MNT/data.mdb" "$m" 2>"$W/err"
		else
			"$COPY" "$MNT/data.mdb" "$m" 2>"$W/err"
		fi || { cat "$W/err" >&2; exit 1; }
		"$B" disk umount "$MNT" >/dev/null || exit 1
		"$B" trace dump "$W/dev.trace" >"$W/dump" || exit 1
		printf "round %d %-8s %s  %s\n" "$r" "$m" "$(awk '$3 == "read" { n++; if ($6 == 131072) w++ } END { printf "reads=%d of_128k=%d", n, w }' "$W/dump")" \
			"$(sed -n 's/.*records of [0-9]* bytes, \([0-9.]* s\).*/\1/p' "$W/err")"
		rm -f "$W/dev.trace"
	done
done
