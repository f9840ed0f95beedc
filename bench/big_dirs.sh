#!/usr/bin/env bash
# big_dirs.sh — what the kernel reads to open the files of a big folder,
# against what tier/fsmeta.h's rule charges for the same opens. For one
# folder of an ext4 image (tiersim disk make IMAGE --from DATA, or a
# folder filled on a mounted image), cold, each order in turn:
#   block    the image in block mode (tiersim disk mount --trace, the
#            device's requests): every file of FOLDER opened and closed,
#            no byte read (bench/big_dirs.py), in storage order (the
#            folder's own, debugfs ls) or shuffled (seed 1); the requests
#            that read the folder's blocks (debugfs blocks) and the rest
#            (inode tables), and the opener's seconds;
#   virtual  the same opener over DATA/FOLDER recorded in FUSE mode
#            (tiersim record) and replayed in virtual time on the same tier
#            as a kernel file system (replay --virtual --kernel-fs): the
#            model's device reads and the opener's predicted seconds
#            (its recorded seconds less the replay's recorded span plus
#            the predicted one);
#   fuse     the same opener on tierfs over DATA (its folder's form the
#            backing folder's): the model's reads, their bytes and summed
#            latency;
# with DATA=- the last two left out. Order "none" opens nothing: the
# mount's own reads (superblock, group descriptors, root, journal).
# First the folder's form (debugfs stat: EXT4_INDEX_FL, 0x1000, is an
# htree folder), its blocks and how many runs of contiguous blocks they
# lie in. REPS rounds (default 1) each run both orders, in turn, block
# first in odd rounds; the seconds are wall time (run on a quiet host),
# the request counts are not.
#
# usage: bench/big_dirs.sh BUILD IMAGE FOLDER DATA [TIER] [REPS]
#   TIER defaults to ssd-cloud. BIG_DIRS_ORDERS="storage ..." runs those
#   orders only (default: none storage random). BIG_DIRS_KEEP=DIR keeps
#   each block run's trace there (block.ORDER.trace). BIG_DIRS_BEFORE=BUILD2
#   adds a fuse mode with BUILD2's tierfs (fuse-old: a before/after of
#   the rule). Needs root (loop devices, mount(2)).
set -u
BUILD=${1:?usage: bench/big_dirs.sh BUILD IMAGE FOLDER DATA [TIER] [REPS]}
IMAGE=${2:?usage}
FOLDER=${3:?usage}
DATA=${4:?usage}
TIER=${5:-ssd-cloud}
REPS=${6:-1}
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
bench_build big_dirs.sh "$BUILD"
[ -f "$IMAGE" ] || { echo "big_dirs.sh: $IMAGE: no such image" >&2; exit 2; }
W=$(mktemp -d /tmp/big_dirs.XXXXXX)
export TIERSIM_DISK_STATE=$W/state
MNT=$W/mnt
mkdir -p "$MNT"
cleanup() {
	bench_mounted "$MNT" && "$B" disk umount "$MNT" >/dev/null 2>&1
	bench_mounted "$FMNT" && fusermount3 -u "$FMNT"
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
die() { echo "big_dirs.sh: $*" >&2; exit 1; }

# the folder's form, blocks and names in storage order
debugfs -R "stat $FOLDER" "$IMAGE" 2>/dev/null >"$W/stat" || die "debugfs stat $FOLDER"
flags=$(sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p' "$W/stat")
[ -n "$flags" ] || die "$IMAGE: no folder $FOLDER"
form=linear
(((flags & 0x1000) != 0)) && form=htree
debugfs -R "blocks $FOLDER" "$IMAGE" 2>/dev/null | tr ' ' '\n' | grep . >"$W/dirblocks"
runs=$(awk 'NR == 1 || $1 != p + 1 { r++ } { p = $1 } END { print r + 0 }' "$W/dirblocks")
debugfs -R "ls -p $FOLDER" "$IMAGE" 2>/dev/null | awk -F/ 'NF >= 6 && $6 != "." && $6 != ".." { print $6 }' \
	>"$W/storage"
$PY -c 'import random, sys
n = open(sys.argv[1]).read().split("\n")[:-1]
random.Random(1).shuffle(n)
print("\n".join(n))' "$W/storage" >"$W/random"
echo "== $IMAGE $FOLDER: $form (flags $flags), $(wc -l <"$W/dirblocks") blocks in $runs runs, $(wc -l <"$W/storage") names; $TIER; $(bench_load)"

# block ORDER: the device's requests for the folder's blocks and the rest
block_run() {
	"$B" disk mount "$IMAGE" "$MNT" --tier "$TIER" --trace "$W/block.trace" 2>"$W/err" ||
		die "disk mount: $(tail -1 "$W/err")"
	s=$($PY "$SRC/bench/big_dirs.py" "$MNT$FOLDER" "$W/$1") || die "opener in block mode"
	"$B" disk umount "$MNT" || die "disk umount"
	[ -z "${BIG_DIRS_KEEP:-}" ] || cp "$W/block.trace" "$BIG_DIRS_KEEP/block.$1.trace"
	"$B" trace dump "$W/block.trace" | awk -v s="$s" -v o="$1" '
		FNR == NR { d[$1] = 1; next }
		$3 == "read" {
			dir = 0
			for (b = int($5 / 4096); b <= int(($5 + $6 - 1) / 4096); b++) if (b in d) dir = 1
			if (dir) { dn++; db += $6 } else { on++; ob += $6 }
		}
		END { printf "  block   %-7s %9.3f s  folder %6d requests %8.1f KiB  other %6d requests %8.1f KiB\n", o, s, dn, db / 1024, on, ob / 1024 }' \
		"$W/dirblocks" -
}
# virtual ORDER: the rule's reads for the same opens of DATA's folder
virtual_run() {
	"$B" record --data "$DATA" --tier "$TIER" --out "$W/fuse.trace" --no-wakes \
		-- "$PY" "$SRC/bench/big_dirs.py" "{}$FOLDER" "$W/$1" >/dev/null 2>"$W/err" ||
		die "record: $(tail -1 "$W/err")"
	"$B" replay "$W/fuse.trace" --virtual --kernel-fs --tier "$TIER" --json >"$W/replay.json" 2>"$W/err" ||
		die "replay: $(tail -1 "$W/err")"
	$PY - "$W/replay.json" "$1" <<'PYEOF'
import json, sys
p = {r["what"]: r for r in json.load(open(sys.argv[1]))["results"]}
pred = [r for w, r in p.items() if w != "recorded"][0]
print("  virtual %-7s %9.3f s  device %6d requests %8.1f KiB  (the opens' span; FUSE-recorded %.3f s)" % (
    sys.argv[2], pred["total_ns"] / 1e9, pred.get("device_reads", 0),
    pred.get("device_read_bytes", 0) / 1024, p["recorded"]["total_ns"] / 1e9))
PYEOF
}
# fuse ORDER: tierfs over DATA (the rule with the backing folder's form,
# tier/fsmeta.h), its model's reads: the opens' metadata reads, their
# count, bytes and summed latency (the opener waits for each in turn)
fuse_run() { fuse_with "$TIERSIM_TIERFS" fuse "$1"; }
fuse-before_run() { fuse_with "$BEFORE/fs/tierfs" fuse-old "$1"; }
fuse_with() { # TIERFS LABEL ORDER
	set -- "$3" "$1" "$2"
	env --default-signal=INT "$2" -f -o "tier=$TIER,mem=0" "$DATA" "$FMNT" 2>"$W/err" &
	fpid=$!
	for _ in $(seq 100); do [ -e "$FMNT/.tierfs/stats" ] && break; sleep 0.1; done
	[ -e "$FMNT/.tierfs/stats" ] || die "tierfs did not start: $(tail -1 "$W/err")"
	s=$($PY "$SRC/bench/big_dirs.py" "$FMNT$FOLDER" "$W/$1") || die "opener in FUSE mode"
	$PY - "$FMNT/.tierfs/stats" "$1" "$s" "$3" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))["model"]["ops"]["read"]
print("  %-9s%-7s %9.3f s  model  %6d requests %8.1f KiB  %.3f s of reads" % (
    sys.argv[4], sys.argv[2], float(sys.argv[3]), r["count"], r["device_bytes"] / 1024,
    r["count"] * r["lat_mean_ns"] / 1e9))
PYEOF
	fusermount3 -u "$FMNT" || die "fusermount3 -u $FMNT"
	wait "$fpid"
}
BEFORE=${BIG_DIRS_BEFORE:+$(cd "$BIG_DIRS_BEFORE" && pwd)}
FMNT=$W/fmnt
mkdir -p "$FMNT"
: >"$W/none"
for rep in $(seq "$REPS"); do
	for order in ${BIG_DIRS_ORDERS:-none storage random}; do
		for mode in $(bench_order $((rep - 1)) block virtual fuse ${BEFORE:+fuse-before}); do
			[ "$mode" != block ] && [ "$DATA" = - ] && continue
			"${mode}_run" "$order"
		done
	done
done
