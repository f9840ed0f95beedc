#!/usr/bin/env bash
# fs_fidelity.sh — tierfs's file-system rules against a real file system:
# the same workloads on the same tier model in three ways,
#   FUSE     tierfs over the dataset's directory, through tiersim record,
#            with a page-cache model of the block job's cgroup size (4 GiB:
#            cold, it is the readahead a real page cache always gives; with
#            it tierfs reads each file of 128 KiB or less through the
#            kernel's page cache for the open, kernel_cache=, fs/README.md);
#   block    the dataset in an ext4 image, tiersim disk mount (tierfs
#            serving the image under a direct-I/O loop device) and the job
#            in a memory cgroup (tiersim disk run, cache cold);
#   virtual  the FUSE recording replayed in virtual time on its own tier
#            (tiersim replay --virtual): the job's time with the replay's
#            recorded span replaced by its predicted one; and the same with
#            --kernel-fs (the recording predicted as the job on a kernel
#            file system: FUSE's round trips taken out; its files' data
#            placed as the image holds them, --fs-tree), the column that
#            predicts block mode;
# and the ratios to block mode, which is what an instance would see.
# Each ratio is taken within its repetition, so a slow block run shows as a
# low ratio there: the table also gives the kernel-fs column over the
# median of block mode's runs (kfs/blk med) and block mode's own runs over
# that median (blk/blk med), which tell a slow block run from a prediction
# that misses.
# Workloads: a PyTorch DataLoader over a JPEG folder (bench/pytorch_loader.py,
# 2 workers, batch 32, no step, 1,058 files in 106 folders: the set the
# file-system rule was fitted on, tier/tiers.lua's filesystem "ext4"), an
# LMDB cursor scan (python3-lmdb), a RecordIO file read record by record
# (MXNet's layout, python), a DLIO-style npz read (every file of an npz
# dataset loaded whole with numpy, 4 reader threads, shuffled, as DLIO's
# NPZReader does), and the held-out check: a folder loader that lists its
# folders itself (os.scandir, as torchvision's DatasetFolder) over another
# tree (3,000 files in 30 folders), 4 reader threads, shuffled.
#
# With two tiers or more, each FUSE recording then predicts every other
# tier (virtual, with the build that recorded it): its span over that
# tier's own recorded span in the same repetition, median [min-max].
#
# FS_FIDELITY_BEFORE=BUILD2 runs the FUSE and virtual columns with a second
# build too, interleaved with the first (a before/after of the rules);
# FS_FIDELITY_BEFORE_FS=capacity lays its kernel-fs replay out for the
# tier's capacity, as this bench did before it used the image's size.
# Each repetition runs every mode once per tier, FUSE first in odd
# repetitions and block first in even ones (and the two builds likewise);
# each ratio is taken within each repetition: its median, [min-max] after.
#
# Then a memory sweep in block mode: one file read twice by a job in a
# 64 MiB cgroup, the file 0.5x, 1x and 2x the limit: the share of the
# job's bytes the device did not have to serve (from the device's byte
# count) and the time, against the virtual clock's page-cache model at
# the same size (a FUSE recording of the job replayed with --mem 64MiB:
# the bytes its device read, and the same share), and at the size the job
# leaves it: the limit less the job's own memory (anonymous and kernel
# memory charged to the cgroup; "own" of tiersim disk run).
# The sweep runs each size once: what it compares is bytes (the device's
# against the model's), which the host's load does not move; its seconds
# are for the record, not a ratio.
#
# usage: bench/fs_fidelity.sh BUILD [REPS] [TIER...]
#   FS_FIDELITY_DATA=DIR keeps the datasets there between runs, and
#   FS_FIDELITY_IMAGE=FILE their ext4 image (made from them if FILE is
#   missing; remove it when the datasets change; not inside DIR).
#   REPS interleaved repetitions (default 3): each figure is the median,
#   [min-max] after it; the load is printed at the start and with the
#   table. FS_FIDELITY_SWEEP_ONLY=1 runs the memory sweep only,
#   FS_FIDELITY_NO_SWEEP=1 leaves it out (one tier per run fits a 10-minute
#   slot). FS_FIDELITY_WORKLOADS="folder ..." runs those workloads only
#   (default: folder lmdb rec npz check). FS_FIDELITY_KEEP=DIR keeps each
#   run's FUSE trace and tierfs stats there. Tiers default to ssd-cloud
#   ultra-cloud aws-gp3. FS_FIDELITY_CHRT=PRIO runs each timed job (the
#   FUSE recording, the block run) under chrt -f PRIO: with the whole bench
#   under bench/rt_job.sh PRIO (the loop worker and tierfs above it), on a
#   loaded host the jobs' reader threads then no longer wait for a CPU.
# In parts: a call over two tiers and three repetitions outlasts one
#   5-minute slot, so FS_FIDELITY_RES=DIR keeps each run's figures and FUSE
#   traces there (made if missing), FS_FIDELITY_RUN="K ..." runs those
#   repetitions only (each as it runs in the whole call, the same order),
#   and the tables are printed once DIR holds all REPS repetitions of every
#   tier and workload named: e.g. one call per repetition (and per tier,
#   FS_FIDELITY_RUN=K with one TIER), each in its own slot, then one with
#   FS_FIDELITY_RUN=none and every tier for the tables (no timed runs: it
#   needs no quiet slot). A call that leaves some out says which.
# Device requests by class: each block mount is traced (tiersim disk mount
#   --trace) and each job's window of it (CLOCK_MONOTONIC ns, from its
#   command's start in tiersim disk run, after the cold drop's remount, to
#   the run's end) classed by bench/blk_classes.py on the image:
#   superblock/descriptors/bitmaps, inode table, folder, extent tree, file
#   data, journal, other; the table after the fidelity table sets them
#   beside the kernel-fs replay's own metadata and data reads and bytes
#   (tiersim replay --json: metadata_reads, device_reads, device_read_bytes)
#   and counts the data requests the replay's rules do not send: those that
#   end at a break in a file's blocks and the second pieces of requests the
#   loop device's queue split for their segment count (its max_segments and
#   max_sectors_kb, read at each mount). FS_FIDELITY_CLASSES=0 leaves the
#   block trace and the table out (as the bench ran before).
# Needs root (loop devices, cgroups), /usr/bin/python3 with torch, numpy
# and lmdb (python3-lmdb, else liblmdb.so.0 through ctypes). Wall-clock
# figures: run on a quiet host; the ratios are what to read.
set -u
BUILD=${1:?usage: bench/fs_fidelity.sh BUILD [REPS] [TIER...]}
REPS=${2:-3}
shift $(($# >= 2 ? 2 : 1))
TIERS=("$@")
[ ${#TIERS[@]} -gt 0 ] || TIERS=(ssd-cloud ultra-cloud aws-gp3)
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
B=$(cd "$BUILD" && pwd)/cli/tiersim
export TIERSIM_TIERFS
TIERSIM_TIERFS=$(cd "$BUILD" && pwd)/fs/tierfs
PY=/usr/bin/python3
[ "$(id -u)" -eq 0 ] || { echo "fs_fidelity.sh: block mode needs root" >&2; exit 2; }
# FS_FIDELITY_CHRT=PRIO: each timed job (FUSE's record, block's disk run)
# under chrt -f PRIO, below the request path that bench/rt_job.sh raises
CLASSES=${FS_FIDELITY_CLASSES:-1}
case $CLASSES in 0 | 1) ;; *) echo "fs_fidelity.sh: FS_FIDELITY_CLASSES '$CLASSES' is not 0 or 1" >&2; exit 2 ;; esac
RT=()
if [ -n "${FS_FIDELITY_CHRT:-}" ]; then
	case $FS_FIDELITY_CHRT in '' | *[!0-9]*) echo "fs_fidelity.sh: FS_FIDELITY_CHRT '$FS_FIDELITY_CHRT' is not a priority 1-89" >&2; exit 2 ;; esac
	RT=(chrt -f "$FS_FIDELITY_CHRT")
fi

W=$(mktemp -d /tmp/fs_fidelity.XXXXXX)
export TIERSIM_DISK_STATE=$W/state
MNT=$W/mnt
RES=${FS_FIDELITY_RES:-$W/res}
mkdir -p "$MNT" "$W/img" "$RES" || { echo "fs_fidelity.sh: cannot make $RES" >&2; exit 1; }
cleanup() {
	is_mounted "$MNT" && "$B" disk umount "$MNT" >/dev/null 2>&1
	rm -rf "$W"
}
is_mounted() { awk -v m="$1" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; }
trap cleanup EXIT
trap 'exit 1' INT TERM
die() { echo "fs_fidelity.sh: $*" >&2; exit 1; }

# ---- datasets (FS_FIDELITY_DATA: made there once and reused), the image ----
DATA=${FS_FIDELITY_DATA:-$W/data}
[ -z "${FS_FIDELITY_KEEP:-}" ] || mkdir -p "$FS_FIDELITY_KEEP" || die "cannot make $FS_FIDELITY_KEEP"
echo "== datasets in $DATA ($(date -u +%T), $(bench_load))"
mk() { # KIND DIR ARGS...
	[ -e "$DATA/$2/dataset.json" ] || "$B" dataset make "$1" --out "$DATA/$2" "${@:3}" >/dev/null 2>&1 ||
		die "dataset make $1"
}
if [ "${FS_FIDELITY_SWEEP_ONLY:-0}" != 1 ]; then # the sweep makes its own files
	mk imagenet-jpeg jpeg --count 1058
	mk imagenet-lmdb lmdb --count 1000
	mk npz npz --count 48 --record-length 2MiB
	mk imagenet-rec rec --count 1000
	mk imagenet-jpeg jpeg2 --count 3000 --classes 30 --seed 2
	(cd "$DATA/jpeg" && find train -type f | sort) >"$W/jpeg.list"
	# FS_FIDELITY_IMAGE: the image made there once and reused (it is
	# mounted read-only, so a run leaves it as it was)
	IMG=${FS_FIDELITY_IMAGE:-$W/img/ds.ext4}
	case $(realpath -m "$IMG") in "$(realpath -m "$DATA")"/*) die "FS_FIDELITY_IMAGE $IMG is inside FS_FIDELITY_DATA" ;; esac
	if [ ! -s "$IMG" ]; then
		"$B" disk make "$IMG.tmp" --size 2GiB --fs ext4 --from "$DATA" && mv "$IMG.tmp" "$IMG" ||
			{ rm -f "$IMG.tmp"; die "disk make"; }
	fi
	IMG_BYTES=$(stat -c %s "$IMG")
fi
B0=
if [ -n "${FS_FIDELITY_BEFORE:-}" ]; then
	B0=$(cd "$FS_FIDELITY_BEFORE" && pwd)/cli/tiersim
	T0=$(cd "$FS_FIDELITY_BEFORE" && pwd)/fs/tierfs
fi
[ -d "$DATA" ] && du -sh "$DATA"/* | sed "s/^/  /"

cat >"$W/lmdb_cursor.py" <<'EOF'
import json, sys, time
try:
    import lmdb
except ImportError:  # liblmdb itself through ctypes: the same cursor walk
    lmdb = None
t0 = time.monotonic()
n = b = 0
if lmdb:
    env = lmdb.open(sys.argv[1], readonly=True, lock=False, readahead=True)
    t0 = time.monotonic()
    with env.begin() as txn:
        for _, v in txn.cursor():
            n += 1
            b += len(v)
else:
    import ctypes as C
    L = C.CDLL("liblmdb.so.0")
    class Val(C.Structure):
        _fields_ = [("size", C.c_size_t), ("data", C.c_void_p)]
    env, txn, cur, dbi = C.c_void_p(), C.c_void_p(), C.c_void_p(), C.c_uint()
    RDONLY, NOLOCK, NEXT = 0x20000, 0x400000, 8  # lmdb.h: MDB_RDONLY, MDB_NOLOCK, MDB_NEXT
    ok = (L.mdb_env_create(C.byref(env)) == 0 and L.mdb_env_set_mapsize(env, C.c_size_t(1 << 40)) == 0
          and L.mdb_env_open(env, sys.argv[1].encode(), RDONLY | NOLOCK, 0o644) == 0
          and L.mdb_txn_begin(env, None, RDONLY, C.byref(txn)) == 0
          and L.mdb_dbi_open(txn, None, 0, C.byref(dbi)) == 0
          and L.mdb_cursor_open(txn, dbi, C.byref(cur)) == 0)
    if not ok:
        sys.exit("lmdb_cursor.py: cannot open " + sys.argv[1])
    t0 = time.monotonic()
    k, v = Val(), Val()
    while L.mdb_cursor_get(cur, C.byref(k), C.byref(v), NEXT) == 0:
        C.string_at(v.data, v.size)  # the value's bytes, as python-lmdb copies them
        n += 1
        b += v.size
print(json.dumps({"epoch_s": time.monotonic() - t0, "samples": n, "bytes": b}), file=open(sys.argv[2], "w"))
EOF
cat >"$W/folder_scan.py" <<'EOF'
import json, os, random, sys, time
from concurrent.futures import ThreadPoolExecutor
root = sys.argv[1]
t0 = time.monotonic()
files = []
for c in sorted(e.name for e in os.scandir(root) if e.is_dir()):
    files += [os.path.join(root, c, e.name) for e in os.scandir(os.path.join(root, c)) if e.is_file()]
random.Random(1).shuffle(files)
def load(p):
    with open(p, "rb") as f:
        return len(f.read())
with ThreadPoolExecutor(4) as ex:
    b = sum(ex.map(load, files))
print(json.dumps({"epoch_s": time.monotonic() - t0, "samples": len(files), "bytes": b}), file=open(sys.argv[2], "w"))
EOF
cat >"$W/npz_reader.py" <<'EOF'
import json, os, random, sys, time
from concurrent.futures import ThreadPoolExecutor
import numpy as np
root = sys.argv[1]
files = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(root) for f in fs if f.endswith(".npz"))
random.Random(1).shuffle(files)
def load(p):
    with np.load(p) as z:
        return sum(z[k].nbytes for k in z.files)
t0 = time.monotonic()
with ThreadPoolExecutor(4) as ex:
    b = sum(ex.map(load, files))
print(json.dumps({"epoch_s": time.monotonic() - t0, "samples": len(files), "bytes": b}), file=open(sys.argv[2], "w"))
EOF

# wl_cmd WORKLOAD ROOT OUT: the command, one word an argument
wl_cmd() {
	case $1 in
	folder) echo "$PY $SRC/bench/pytorch_loader.py --root $2/jpeg --list $W/jpeg.list --mode bytes --workers 2 --batch 32 --step 0 --out $3" ;;
	lmdb) echo "$PY $W/lmdb_cursor.py $2/lmdb/train_lmdb $3" ;;
	rec) echo "$PY $SRC/bench/rec_reader.py $2/rec/train.rec $3" ;;
	npz) echo "$PY $W/npz_reader.py $2/npz $3" ;;
	check) echo "$PY $W/folder_scan.py $2/jpeg2/train $3" ;;
	esac
}
epoch() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["epoch_s"])' "$1"; }
# CLOCK_MONOTONIC in ns, as a trace's start_mono_ns counts it: a block job's window
mono_ns() { $PY -c 'import time; print(time.monotonic_ns())'; }

read -r -a WLS <<<"${FS_FIDELITY_WORKLOADS:-folder lmdb rec npz check}"
# fuse_run BUILD_TIERSIM TIERFS TIER WORKLOAD RESULT: FUSE, recorded, with
# the virtual prediction of the same tier
fuse_run() {
	# shellcheck disable=SC2046 # wl_cmd's words are the command
	TIERSIM_TIERFS=$2 "${RT[@]}" "$1" record --data "$DATA" --tier "$3" --mem 4GiB --out "$W/fuse.trace" --json --no-wakes \
		-- $(wl_cmd "$4" '{}' "$W/out.json") >"$W/rec.json" 2>"$W/rec.err" ||
		die "record $4 on $3: $(tail -1 "$W/rec.err")"
	[ -z "${FS_FIDELITY_KEEP:-}" ] || cp "$W/fuse.trace" "$FS_FIDELITY_KEEP/${5##*/}.trace"
	cp "$W/fuse.trace" "$5.trace" # for the predictions across tiers
	"$1" replay "$W/fuse.trace" --virtual --tier "$3" --json >"$W/replay.json" ||
		die "replay $4 on $3"
	# the same recording predicted as the job on ext4 (no FUSE round trips;
	# a build without --kernel-fs repeats the plain replay), its file
	# system laid out as block mode's image (its size: tiersim disk make
	# runs mkfs.ext4 with its defaults, whose geometry the block traces
	# carry, trace format 12), not for the tier's capacity
	# (FS_FIDELITY_BEFORE_FS=capacity: the before build's for the tier's
	# capacity, as this bench laid it out before)
	local fsz=(--fs-size "$IMG_BYTES")
	[ "$1" = "$B0" ] && [ "${FS_FIDELITY_BEFORE_FS:-image}" = capacity ] && fsz=()
	# and each file's data where the image holds it (--fs-tree: the
	# datasets folder tiersim disk make copied in, so a readahead window
	# over a superblock backup goes as two requests, as block mode's do;
	# a build without it lays each file out as one run)
	"$1" replay --help 2>&1 | grep -q -- --fs-tree && fsz+=(--fs-tree "$DATA")
	"$1" replay "$W/fuse.trace" --virtual --kernel-fs --tier "$3" "${fsz[@]}" --json \
		>"$W/replay-k.json" 2>/dev/null || cp "$W/replay.json" "$W/replay-k.json"
	$PY - "$W/rec.json" "$(epoch "$W/out.json")" "$W/replay.json" "$W/replay-k.json" >"$5" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
fuse = float(sys.argv[2])
def span(f):
    p = {r["what"]: r for r in json.load(open(f))["results"]}
    pred = [r for w, r in p.items() if w != "recorded"][0]
    return (p["recorded"]["total_ns"] / 1e9, pred["total_ns"] / 1e9, pred.get("device_reads", 0),
            pred.get("metadata_reads", 0), pred.get("device_read_bytes", 0))
rec, pred, reqs, _, _ = span(sys.argv[3])
# the device's read requests the model sent on the replay of the recording
# (readahead and file-system metadata included), as the loop device's are
# and the file system's metadata reads among the kernel-fs replay's (a
# trace of version 11 numbers its paths as the image numbers them)
# (and all its device reads and their bytes, for the table by class)
krec, kpred, kreqs, kmeta, kbytes = span(sys.argv[4])
print(fuse, fuse - rec + pred, reqs, fuse - krec + kpred, rec, kmeta, kreqs, kbytes)
EOF
}
# ---- the fidelity runs, interleaved ----
RUN=${FS_FIDELITY_RUN:-$(seq -s ' ' "$REPS")}
[ "$RUN" = none ] && RUN=
for rep in $RUN; do
	case $rep in '' | *[!0-9]*) die "FS_FIDELITY_RUN: '$rep' is not a repetition 1-$REPS" ;; esac
	[ "$rep" -ge 1 ] && [ "$rep" -le "$REPS" ] || die "FS_FIDELITY_RUN: $rep is not a repetition 1-$REPS"
done
[ "${FS_FIDELITY_SWEEP_ONLY:-0}" = 1 ] && REPS=0 RUN=
for rep in $RUN; do
	for t in "${TIERS[@]}"; do
		echo "== rep $rep, $t ($(date -u +%T))"
		for mode in $(bench_order $((rep - 1)) fuse block); do
			if [ "$mode" = fuse ]; then
				for wl in "${WLS[@]}"; do
					for which in $(bench_order $((rep - 1)) before after); do
						if [ "$which" = after ]; then
							fuse_run "$B" "$TIERSIM_TIERFS" "$t" "$wl" "$RES/$wl.$t.fuse.$rep"
							echo "  $wl fuse s, virtual s, model reads, kernel-fs s, recorded s, kernel-fs metadata reads, kernel-fs reads, kernel-fs read bytes: $(cat "$RES/$wl.$t.fuse.$rep")"
						elif [ -n "$B0" ]; then
							fuse_run "$B0" "$T0" "$t" "$wl" "$RES/$wl.$t.fuse0.$rep"
						fi
					done
				done
				continue
			fi
			btrace=()
			if [ "$CLASSES" = 1 ]; then
				btrace=(--trace "$W/block.trace")
				[ -z "${FS_FIDELITY_KEEP:-}" ] || btrace=(--trace "$FS_FIDELITY_KEEP/block.$t.$rep.trace")
			elif [ -n "${FS_FIDELITY_KEEP:-}" ]; then
				btrace=(--trace "$FS_FIDELITY_KEEP/block.$t.$rep.trace")
			fi
			rm -f "$W/block.trace"
			"$B" disk mount "$IMG" "$MNT" --tier "$t" --mem 4GiB "${btrace[@]}" || die "disk mount on $t"
			# the loop device's queue: the split rule's sizes (blk_classes.py)
			q=/sys/block/$(basename "$(awk -v m="$MNT" '$5 == m { print $(NF - 1) }' /proc/self/mountinfo)")/queue
			cat "$q/max_segments" "$q/max_sectors_kb" "$q/max_segment_size" 2>/dev/null | paste -sd ' ' >"$RES/queue.$t.$rep"
			jobs=()
			for wl in "${WLS[@]}"; do
				# the job's window opens as its command starts, after the
				# cold drop's remount (whose reads tiersim disk run's
				# counts leave out too): a stamp in the cgroup, then the job
				rm -f "$W/t0"
				# shellcheck disable=SC2046,SC2016
				"${RT[@]}" "$B" disk run "$MNT" --cache cold -- sh -c "$PY"' -c "import time; print(time.monotonic_ns())" >"$0" && exec "$@"' \
					"$W/t0" $(wl_cmd $wl "$MNT" "$W/out.json") >"$W/run.txt" 2>"$W/run.err" ||
					die "disk run $wl on $t: $(tail -1 "$W/run.err")"
				jobs+=(--job "$wl:$(cat "$W/t0"):$(mono_ns)")
				reads=$(sed -n 's/.*dev_reads=\([0-9]*\).*/\1/p' "$W/run.txt")
				bytes=$(sed -n 's/.*dev_read_bytes=\([0-9]*\).*/\1/p' "$W/run.txt")
				echo "$(epoch "$W/out.json") $reads $bytes" >"$RES/$wl.$t.block.$rep"
				echo "  $wl block s, device reads, device read bytes: $(cat "$RES/$wl.$t.block.$rep")"
			done
			"$B" disk umount "$MNT" || die "disk umount"
			if [ "$CLASSES" = 1 ]; then
				read -r segs maxkb _ <"$RES/queue.$t.$rep"
				$PY "$SRC/bench/blk_classes.py" "$IMG" "${btrace[1]}" --tiersim "$B" --json --files \
					--seg $((${segs:-128} * 4096)) --io-max $((${maxkb:-1024} * 1024)) "${jobs[@]}" \
					>"$RES/classes.$t.$rep.json" || die "blk_classes.py on $t's block trace"
			fi
		done
	done
done

# the tables once RES holds every repetition (FS_FIDELITY_RUN: in parts)
missing=()
for rep in $(seq "$REPS"); do
	for t in "${TIERS[@]}"; do
		for wl in "${WLS[@]}"; do
			for m in fuse block ${B0:+fuse0}; do
				[ -s "$RES/$wl.$t.$m.$rep" ] || missing+=("$wl.$t.$m.$rep")
			done
		done
	done
done
if [ "$REPS" -gt 0 ] && [ ${#missing[@]} -gt 0 ]; then
	echo
	echo "== no tables yet: $RES lacks ${#missing[@]} runs (${missing[*]:0:4}${missing[4]:+ ...}); run those repetitions (FS_FIDELITY_RUN), then FS_FIDELITY_RUN=none with every tier"
	REPS=0
fi
[ "$REPS" -gt 0 ] && echo
[ "$REPS" -gt 0 ] && echo "== fidelity: seconds per epoch, median [min-max] of $REPS; ratios to block within each repetition, median [min-max]; device read requests (FUSE: the model's, in the virtual replay of the recording; block: the loop device's); $(bench_load)"
[ "$REPS" -gt 0 ] && $PY - "$RES" "$REPS" "${WLS[*]}" "$B0" "${TIERS[@]}" <<'EOF'
import os, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from benchstat import summary
res, reps, wls, before, tiers = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4], sys.argv[5:]
def runs(wl, t, mode, i):
    return [float(open(os.path.join(res, f"{wl}.{t}.{mode}.{r}")).read().split()[i]) for r in range(1, reps + 1)]
def col(wl, t, mode, i):
    return summary(runs(wl, t, mode, i))
def ratio(wl, t, mode, i):  # to block mode's seconds, within each repetition
    return summary([x / y for x, y in zip(runs(wl, t, mode, i), runs(wl, t, "block", 0))])
def to_med(wl, t, mode, i):  # to the median of block mode's runs
    m = summary(runs(wl, t, "block", 0))[0]
    return summary([x / m for x in runs(wl, t, mode, i)])
fmt = lambda m: f"{m[0]:6.2f} [{m[1]:.2f}-{m[2]:.2f}]"
modes = ([("fuse0", "before")] if before else []) + [("fuse", "after" if before else "")]
head = f"{'workload':8} {'tier':12} {'block s':>19}"
for _, name in modes:
    head += (f" {'FUSE s ' + name:>19} {'virtual s ' + name:>19} {'kernel-fs s ' + name:>19}"
             f" {'FUSE/blk':>17} {'virt/blk':>17} {'kfs/blk':>17} {'kfs/blk med':>17} {'FUSE req':>8}")
print(head + f" {'blk req':>8} {'blk/blk med':>17}")
for wl in wls:
    for t in tiers:
        b = col(wl, t, "block", 0)
        line = f"{wl:8} {t:12} {fmt(b):>19}"
        for m, _ in modes:
            f, v, fr, k = col(wl, t, m, 0), col(wl, t, m, 1), col(wl, t, m, 2)[0], col(wl, t, m, 3)
            line += (f" {fmt(f):>19} {fmt(v):>19} {fmt(k):>19} {fmt(ratio(wl, t, m, 0)):>17}"
                     f" {fmt(ratio(wl, t, m, 1)):>17} {fmt(ratio(wl, t, m, 3)):>17}"
                     f" {fmt(to_med(wl, t, m, 3)):>17} {fr:8.0f}")
        print(line + f" {col(wl, t, 'block', 1)[0]:8.0f} {fmt(to_med(wl, t, 'block', 0)):>17}")
EOF

# ---- device requests by class: block mode's against the kernel-fs replay's ----
if [ "$REPS" -gt 0 ] && [ "$CLASSES" = 1 ]; then
	echo
	echo "== device requests by class, median of $REPS (block: the job's reads in the mount's trace, bench/blk_classes.py on the image; replay: the FUSE recording's kernel-fs replay on its tier, tiersim replay --json; data extra = block's data requests less the replay's, of them: at break, split by the queue's segment count, rest; $(date -u +%T))"
	$PY - "$RES" "$REPS" "${WLS[*]}" "${TIERS[@]}" <<'EOF'
import json, os, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from benchstat import summary
res, reps, wls, tiers = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4:]
CL = ["sb/gdt/bitmap", "inode table", "folder", "extent tree", "journal", "other"]
med = lambda xs: summary(xs)[0] if xs else float("nan")
rng = lambda xs: "%.0f [%.0f-%.0f]" % summary(xs) if xs else "-"
queues = set()
missing = []
rows = []
for wl in wls:
    for t in tiers:
        b, r = [], []
        for i in range(1, reps + 1):
            try:
                j = json.load(open(os.path.join(res, f"classes.{t}.{i}.json")))["jobs"][wl]
                fu = open(os.path.join(res, f"{wl}.{t}.fuse.{i}")).read().split()
                blk = open(os.path.join(res, f"{wl}.{t}.block.{i}")).read().split()
                queues.add(open(os.path.join(res, f"queue.{t}.{i}")).read().strip())
            except (OSError, KeyError, ValueError):
                missing.append(f"{wl}.{t}.{i}")
                continue
            if len(fu) < 8:
                missing.append(f"{wl}.{t}.{i} (its FUSE run has no kernel-fs reads)")
                continue
            c = j["classes"]
            b.append({"cls": [c[k]["reqs"] for k in CL], "meta": sum(c[k]["reqs"] for k in CL),
                      "meta_b": sum(c[k]["bytes"] for k in CL), "data": c["data"]["reqs"],
                      "data_b": c["data"]["bytes"], "reads": j["reads"], "dev": int(blk[1]),
                      "brk": j["at_break"], "split": j["split"]})
            r.append({"meta": float(fu[5]), "data": float(fu[6]) - float(fu[5]), "bytes": float(fu[7])})
        rows.append((wl, t, b, r))
if missing:
    print(f"  left out (no figures): {', '.join(missing[:6])}{' ...' if len(missing) > 6 else ''}")
print(f"  loop queue, max_segments max_sectors_kb max_segment_size: {'; '.join(sorted(queues)) or '-'}")
print(f"{'':21} | {'block':<65} {'':>36} | {'replay':<22} | {'data extra, of them':<45}")
h = "".join(f" {k:>13}" for k in CL)
print(f"{'workload':8} {'tier':12} |{h[1:]} {'meta':>6} {'data':>6} {'MiB':>8} {'reads':>6} {'disk run':>8}"
      f" | {'meta':>6} {'data':>6} {'MiB':>8} | {'extra':>14} {'at break':>8} {'split':>6} {'rest':>14}")
for wl, t, b, r in rows:
    if not b:
        continue
    cls = "".join(f" {med([x['cls'][k] for x in b]):13.0f}" for k in range(len(CL)))
    extra = [x["data"] - y["data"] for x, y in zip(b, r)]
    rest = [e - x["brk"] - x["split"] for e, x in zip(extra, b)]
    print(f"{wl:8} {t:12} |{cls[1:]} {med([x['meta'] for x in b]):6.0f} {med([x['data'] for x in b]):6.0f}"
          f" {med([(x['meta_b'] + x['data_b']) / 2**20 for x in b]):8.2f} {med([x['reads'] for x in b]):6.0f}"
          f" {med([x['dev'] for x in b]):8.0f} | {med([y['meta'] for y in r]):6.0f} {med([y['data'] for y in r]):6.0f}"
          f" {med([y['bytes'] / 2**20 for y in r]):8.2f} | {rng(extra):>14} {med([x['brk'] for x in b]):8.0f}"
          f" {med([x['split'] for x in b]):6.0f} {rng(rest):>14}")
EOF
fi

# ---- across tiers: each FUSE recording predicts the other tiers ----
if [ "$REPS" -gt 0 ] && [ ${#TIERS[@]} -gt 1 ]; then
	echo
	echo "== across tiers: a recording's prediction (virtual) over the other tier's recorded span, same repetition, median [min-max] of $REPS ($(date -u +%T))"
	$PY - "$RES" "$REPS" "${WLS[*]}" "$B0" "$B" "${TIERS[@]}" <<'EOF'
import json, os, subprocess, sys
sys.path.insert(0, os.environ["BENCH_DIR"])
from benchstat import summary
res, reps, wls, b0, b, tiers = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4], sys.argv[5], sys.argv[6:]
builds = ([("fuse0", b0, "before")] if b0 else []) + [("fuse", b, "after" if b0 else "")]
def pred(tb, f, tier):
    out = subprocess.run([tb, "replay", f, "--virtual", "--tier", tier, "--json"], capture_output=True, check=True)
    return json.loads(out.stdout)["results"][1]["total_ns"] / 1e9
fmt = lambda m: f"{m[0]:6.3f} [{m[1]:.3f}-{m[2]:.3f}]"
print(f"{'workload':8} {'recorded on':12} {'predicts':12}" + "".join(f" {'pred/real ' + n:>21}" for _, _, n in builds))
for wl in wls:
    for a in tiers:
        for t in tiers:
            if a == t:
                continue
            line = f"{wl:8} {a:12} {t:12}"
            for m, tb, _ in builds:
                r = [pred(tb, os.path.join(res, f"{wl}.{a}.{m}.{i}.trace"), t)
                     / float(open(os.path.join(res, f"{wl}.{t}.{m}.{i}")).read().split()[4])
                     for i in range(1, reps + 1)]
                line += f" {fmt(summary(r)):>21}"
            print(line)
EOF
fi

# ---- memory sweep: block mode's real page cache against the model ----
[ "${FS_FIDELITY_NO_SWEEP:-0}" = 1 ] && exit 0
LIMIT_MIB=64
TIER=${TIERS[0]}
echo
echo "== memory sweep on $TIER: a file read twice in a ${LIMIT_MIB} MiB cgroup ($(date -u +%T))"
rm -rf "$W/sweep" && mkdir -p "$W/sweep"
for mib in $((LIMIT_MIB / 2)) $LIMIT_MIB $((LIMIT_MIB * 2)); do
	head -c $((mib << 20)) /dev/urandom >"$W/sweep/f$mib"
done
"$B" disk make "$W/img/sweep.ext4" --size 512MiB --fs ext4 --from "$W/sweep" || die "sweep image"
printf '%-8s %-6s %12s %12s %10s %8s | %12s %12s %12s | %12s %12s %12s\n' "file" "x mem" "blk dev MiB" "blk hit %" "blk s" "own MiB" \
	"virt dev MiB" "virt hit %" "virt s" "-own dev MiB" "-own hit %" "-own s"
for mib in $((LIMIT_MIB / 2)) $LIMIT_MIB $((LIMIT_MIB * 2)); do
	job="cat \$R/f$mib >/dev/null && cat \$R/f$mib >/dev/null"
	"$B" disk mount "$W/img/sweep.ext4" "$MNT" --tier "$TIER" || die "sweep mount"
	"$B" disk run "$MNT" --mem ${LIMIT_MIB}MiB --cache cold -- env R="$MNT" sh -c "$job" >"$W/run.txt" 2>/dev/null ||
		die "sweep run $mib"
	"$B" disk umount "$MNT" || die "sweep umount"
	read -r wall dev own <<<"$(sed -n 's/.*wall_s=\([0-9.]*\) .*dev_read_bytes=\([0-9]*\).* own=\([0-9]*\).*/\1 \2 \3/p' "$W/run.txt")"
	# with its wake file: cat's posix_fadvise(SEQUENTIAL) is in it (the A
	# line), which doubles the replayed file's readahead max as the kernel
	# does (traces/README.md, "The reader's advice")
	rm -f "$W/sweep.trace.wakes"
	"$B" record --data "$W/sweep" --tier "$TIER" --out "$W/sweep.trace" -- env R='{}' sh -c "$job" \
		>/dev/null 2>&1 || die "sweep record $mib"
	"$B" replay "$W/sweep.trace" --virtual --tier "$TIER" --mem ${LIMIT_MIB}MiB --json >"$W/replay.json" ||
		die "sweep replay $mib"
	# the page cache a job of that size leaves: the limit less the job's
	# own memory, as tiersim disk run sampled it (disk/job.c)
	"$B" replay "$W/sweep.trace" --virtual --tier "$TIER" --mem $(((LIMIT_MIB << 20) - own)) --json \
		>"$W/replay-own.json" || die "sweep replay $mib (less the job's memory)"
	$PY - "$W/replay.json" "$W/replay-own.json" "$mib" "$LIMIT_MIB" "$wall" "$dev" "$own" <<'EOF'
import json, sys
mib, lim, wall, dev, own = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
job = 2 * mib << 20


def hit(d):
    """the job's bytes not read from the device, %: none where the device
    read the job's bytes and more (the file system's metadata)"""
    return max(0.0, 100.0 * (1 - d / job))


cols = []
for f in sys.argv[1:3]:
    r = [x for x in json.load(open(f))["results"] if x["what"] != "recorded"][0]
    vdev = r.get("device_read_bytes", 0)
    cols.append(f"{vdev / 2**20:12.1f} {hit(vdev):12.1f} {r['total_ns'] / 1e9:12.2f}")
print(f"{mib:5} MiB {mib / lim:5.1f}x {dev / 2**20:12.1f} {hit(dev):12.1f} {wall:10.2f} "
      f"{own / 2**20:8.1f} | {cols[0]} | {cols[1]}")
EOF
done
