#!/usr/bin/env bash
# dlio_png_batch.sh — DLIO 2.0.0's png reader's CPU a sample at the hold
# bench's batch (50: workloads/dlio_measure.py's png-s set, which
# bench/dlio_host_holds.sh measures through `tiersim hosts measure`) and at
# bench/dlio_peer.sh's p50 rows' batch (400), read through a tierfs mount as
# both read it (mem=0, the hold's tier), not from the page cache: the
# workers' requests are FUSE requests served by a daemon on the same cores.
#
#   VENV=... q cpu   bench/dlio_png_batch.sh prepare BUILD DIR
#       writes 3,200 pngs of 114,746 B into DIR/png-s (bench/dlio_png_split.py
#       gen: workloads/dlio_measure.py's png-s files), not timed
#   VENV=... q bench bench/dlio_png_batch.sh hold BUILD DIR [ROUNDS]
#       one exclusive hold: tierfs (BUILD's) over DIR at a fresh mount,
#       bench/dlio_png_split.py batch MOUNT ROUNDS 50,400 (default 3 rounds,
#       the sizes interleaved; each DataLoader's first pass starts its
#       workers, then two passes are counted), then the unmount; prints the
#       UTC start and end and the load at each around the script's lines
#
# Environment: VENV (or DLIO_VENV) the DLIO 2.0.0 virtual environment;
# TS_TIER the mount's tier (default ssd-cloud, as the holds and the p50 rows).
set -u
. "$(dirname "$0")/lib.sh"
usage() { echo "usage: bench/dlio_png_batch.sh prepare BUILD DIR | hold BUILD DIR [ROUNDS]" >&2; exit 2; }
[ $# -ge 3 ] || usage
verb=$1 build=$2 dir=$3
venv=${VENV:-${DLIO_VENV:-}}
[ -x "$venv/bin/python" ] || { echo "dlio_png_batch.sh: set VENV to DLIO's virtual environment" >&2; exit 2; }
tierfs=$(cd "$build" && pwd)/fs/tierfs
[ -x "$tierfs" ] || { echo "dlio_png_batch.sh: $build/fs/tierfs is not built" >&2; exit 2; }
case $verb in
prepare)
	mkdir -p "$dir"
	"$venv/bin/python" "$BENCH_DIR/dlio_png_split.py" gen "$dir" 3200
	;;
hold)
	rounds=${4:-3}
	[ -d "$dir/png-s" ] || { echo "dlio_png_batch.sh: $dir not prepared" >&2; exit 2; }
	mnt=$(mktemp -d "${TMPDIR:-/tmp}/dlio_png_batch.XXXXXX")
	trap 'fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -uz "$mnt" 2>/dev/null; rmdir "$mnt"' EXIT
	"$tierfs" -o "tier=${TS_TIER:-ssd-cloud},mem=0" "$dir" "$mnt" >/dev/null 2>&1 ||
		{ echo "dlio_png_batch.sh: tierfs failed" >&2; exit 1; }
	echo "start $(date -u +%Y-%m-%dT%H:%M:%SZ) ($(bench_load)), tier ${TS_TIER:-ssd-cloud}, mem=0"
	"$venv/bin/python" "$BENCH_DIR/dlio_png_split.py" batch "$mnt" "$rounds" 50,400
	rc=$?
	echo "end $(date -u +%Y-%m-%dT%H:%M:%SZ) ($(bench_load))"
	exit $rc
	;;
*) usage ;;
esac
