#!/usr/bin/env bash
# kfs_check.sh — the kernel-fs prediction of a FUSE recording against block
# mode, with two builds' replays of the same recordings.
#
#   bench/q bench bench/kfs_check.sh DATA IMAGE BEFORE AFTER [ROUNDS [TIER [WORKLOADS]]]
#
# DATA: the datasets of bench/fs_fidelity.sh (lmdb/, rec/, jpeg/); IMAGE:
# an ext4 image of DATA (tiersim disk make IMAGE --size 2GiB --fs ext4
# --from DATA), outside DATA; BEFORE and AFTER: build folders. Each round,
# per workload (default "lmdb rec"; "folder" the PyTorch folder loader),
# in an order that alternates with the round: a FUSE recording by AFTER's
# tiersim (tierfs is the same in both) and its --kernel-fs prediction by
# each build, and the job in block mode (AFTER's tiersim disk mount, one
# mount a round, tiersim disk run --cache cold). Prints per run the epoch
# (seconds, the job's own clock), the recording's span and each build's
# predicted span (tiersim replay's total_ns), and the predicted epoch as
# bench/fs_fidelity.sh has it: the FUSE epoch less the recorded span plus
# the predicted one (the span also holds what the job does outside its
# epoch: opening the database, its exit); then per workload the ratios
# to block mode of the same round, median [min-max].
# KFS_CHECK_HOST=NAME: AFTER's replays name --host NAME (BEFORE's keep its
# default host, or name KFS_CHECK_BEFORE_HOST's); KFS_CHECK_KEEP=DIR keeps the recordings there, and
# with KFS_CHECK_BLOCK_TRACE=1 each round's block-mode device trace
# (block.TIER.ROUND.trace, every workload of the round in one mount's
# trace, in the order above). Each block-mode mount's measured floor, hop
# and 128 KiB part are printed.
# The files tierfs serves from (the workload's folder of DATA through FUSE,
# IMAGE in block mode) are read through the host's page cache before each
# mode's runs of a round (KFS_CHECK_WARM=0: not): tierfs's reads of them
# are the host's, not the tier's, and where the host's page cache did not
# hold them they waited on the host's disk, 2-69 ms a read (the folder
# loader, 2026-12-07 11:27 UTC), which the block run pays after the
# model's completion and the FUSE recording carries into its prediction
# (a device read's reply keeps the recording's syscall where it outlasts
# the model). Each run's line
# ends with the number of tierfs syscalls over 2 ms in its FUSE recording
# (slow). Each pair of rounds runs the modes in both orders, and the
# ratios are also given by order (FUSE first: odd rounds; block first:
# even rounds) and as the mean of each pair's two: an even ROUNDS weighs
# both orders alike.
set -u
[ $# -ge 4 ] || { echo "usage: kfs_check.sh DATA IMAGE BEFORE AFTER [ROUNDS [TIER [WORKLOADS]]]" >&2; exit 2; }
DATA=$(cd "$1" && pwd) IMG=$2 B0=$(cd "$3" && pwd)/cli/tiersim B=$(cd "$4" && pwd)/cli/tiersim
export TIERSIM_TIERFS
TIERSIM_TIERFS=$(cd "$4" && pwd)/fs/tierfs
ROUNDS=${5:-3} TIER=${6:-ssd-cloud}
case $ROUNDS in '' | *[!0-9]* | 0) echo "kfs_check.sh: ROUNDS '$ROUNDS': a count of 1 or more" >&2; exit 2 ;; esac
read -r -a WLS <<<"${7:-lmdb rec}"
SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
. "$SRC/bench/lib.sh"
PY=/usr/bin/python3
W=$(mktemp -d -t kfs_check.XXXXXX)
export TIERSIM_DISK_STATE=$W/state
MNT=$W/mnt
mkdir -p "$MNT"
is_mounted() { awk -v m="$1" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; }
trap 'is_mounted "$MNT" && "$B" disk umount "$MNT" >/dev/null 2>&1; rm -rf "$W"' EXIT
die() { echo "kfs_check.sh: $*" >&2; exit 1; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
cat >"$W/lmdb_cursor.py" <<'PY'
import json, sys, time, lmdb
env = lmdb.open(sys.argv[1], readonly=True, lock=False, readahead=True)
t0 = time.monotonic(); n = b = 0
with env.begin() as txn:
    for _, v in txn.cursor():
        n += 1; b += len(v)
print(json.dumps({"epoch_s": time.monotonic() - t0, "samples": n, "bytes": b}), file=open(sys.argv[2], "w"))
PY
(cd "$DATA/jpeg" && find train -type f | sort) >"$W/jpeg.list"
wl_cmd() { # WORKLOAD ROOT OUT
	case $1 in
	lmdb) echo "$PY $W/lmdb_cursor.py $2/lmdb/train_lmdb $3" ;;
	rec) echo "$PY $SRC/bench/rec_reader.py $2/rec/train.rec $3" ;;
	folder) echo "$PY $SRC/bench/pytorch_loader.py --root $2/jpeg --list $W/jpeg.list --mode bytes --workers 2 --batch 32 --step 0 --out $3" ;;
	esac
}
wl_dir() { case $1 in lmdb) echo lmdb ;; rec) echo rec ;; folder) echo jpeg ;; esac; }
warm() { # MODE WORKLOAD...: tierfs's backing files through the host's page cache (lib.sh)
	[ "${KFS_CHECK_WARM:-1}" = 1 ] || return 0
	if [ "$1" = block ]; then
		bench_warm "$IMG"
	else
		for w in "${@:2}"; do bench_warm "$DATA/$(wl_dir "$w")"; done
	fi
}
slow() { # TRACE: tierfs's syscalls over 2 ms in it
	"$B" trace dump "$1" | awk '$1 == "cpu" { for (i = 3; i <= NF; i++) if ($i ~ /^sys_ns=/) {
		split($i, a, "="); if (a[2] + 0 > 2000000) n++ } } END { print n + 0 }'
}
epoch() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["epoch_s"])' "$1"; }
span() { # BUILD TRACE [ARGS...]: recorded and predicted total_ns
	"$1" replay "$2" --virtual --kernel-fs --tier "$TIER" --json "${@:3}" | jq -r '[.results[] | .total_ns] | @tsv'
}
HOSTARG=() HOSTARG0=()
[ -z "${KFS_CHECK_HOST:-}" ] || HOSTARG=(--host "$KFS_CHECK_HOST")
[ -z "${KFS_CHECK_BEFORE_HOST:-}" ] || HOSTARG0=(--host "$KFS_CHECK_BEFORE_HOST")
echo "== kfs_check $TIER, $ROUNDS rounds, ${WLS[*]}: start $(date -u +%T), load $(load)"
[ $((ROUNDS % 2)) = 0 ] || echo "(an odd ROUNDS weighs the FUSE-first order more: see the ratios by order)"
echo "round workload fuse_epoch_s block_epoch_s rec_span_s old_span_s new_span_s old_epoch_s new_epoch_s slow"
for r in $(seq "$ROUNDS"); do
	order="fuse block"
	[ $((r % 2)) = 0 ] && order="block fuse"
	for mode in $order; do
		warm "$mode" "${WLS[@]}"
		if [ "$mode" = fuse ]; then
			for wl in "${WLS[@]}"; do
				# shellcheck disable=SC2046 # wl_cmd's words are the command
				"$B" record --data "$DATA" --tier "$TIER" --mem 4GiB --out "$W/$wl.$r.trace" --no-wakes \
					-- $(wl_cmd "$wl" '{}' "$W/out.json") >"$W/rec.out" 2>&1 || die "record $wl: $(tail -1 "$W/rec.out")"
				echo "$(epoch "$W/out.json") $(span "$B0" "$W/$wl.$r.trace" "${HOSTARG0[@]}") $(span "$B" "$W/$wl.$r.trace" "${HOSTARG[@]}" | cut -f2) $(slow "$W/$wl.$r.trace")" \
					>"$W/$wl.$r.fuse"
				[ -z "${KFS_CHECK_KEEP:-}" ] || cp "$W/$wl.$r.trace" "$KFS_CHECK_KEEP/fuse.$TIER.$wl.$r.trace"
			done
		else
			btr=()
			[ -z "${KFS_CHECK_KEEP:-}" ] || [ -z "${KFS_CHECK_BLOCK_TRACE:-}" ] ||
				btr=(--trace "$KFS_CHECK_KEEP/block.$TIER.$r.trace")
			"$B" disk mount "$IMG" "$MNT" --tier "$TIER" --mem 4GiB "${btr[@]}" >"$W/mount.out" 2>&1 ||
				die "disk mount: $(tail -1 "$W/mount.out")"
			grep -o 'FUSE round trip.*more (measured)' "$W/mount.out" | sed "s/^/mount $r: /"
			for wl in "${WLS[@]}"; do
				# shellcheck disable=SC2046
				"$B" disk run "$MNT" --cache cold -- $(wl_cmd "$wl" "$MNT" "$W/out.json") >"$W/run.out" 2>&1 ||
					die "disk run $wl: $(tail -1 "$W/run.out")"
				epoch "$W/out.json" >"$W/$wl.$r.block"
			done
			"$B" disk umount "$MNT" || die "disk umount"
		fi
	done
	for wl in "${WLS[@]}"; do
		read -r fe rs os ns sl <"$W/$wl.$r.fuse"
		be=$(cat "$W/$wl.$r.block")
		awk -v r="$r" -v w="$wl" -v fe="$fe" -v be="$be" -v rs="$rs" -v os="$os" -v ns="$ns" -v sl="$sl" 'BEGIN {
			printf "%d %s %.4f %.4f %.4f %.4f %.4f %.4f %.4f %d\n", r, w, fe, be, rs / 1e9, os / 1e9, ns / 1e9,
				fe - rs / 1e9 + os / 1e9, fe - rs / 1e9 + ns / 1e9, sl }' | tee -a "$W/all"
	done
done
echo "== end $(date -u +%T), load $(load)"
# the median [min-max] of x[1..n] as "%.3f [%.3f-%.3f]", "-" for none
MED_AWK='function med(x, n,   i, j, t, y) { if (!n) return "-"; for (i = 1; i <= n; i++) y[i] = x[i]
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (y[j] < y[i]) { t = y[i]; y[i] = y[j]; y[j] = t }
		return sprintf("%.3f [%.3f-%.3f]", n % 2 ? y[(n + 1) / 2] : (y[n / 2] + y[n / 2 + 1]) / 2, y[1], y[n]) }'
echo "ratios to block mode, median [min-max] over rounds: FUSE, OLD span, NEW span, OLD epoch, NEW epoch"
for wl in "${WLS[@]}"; do
	awk -v w="$wl" "$MED_AWK"'
	$2 == w { n++; a[n] = $3 / $4; b[n] = $6 / $4; c[n] = $7 / $4; d[n] = $8 / $4; e[n] = $9 / $4 }
	END { printf "%-7s fuse %s  old %s  new %s  old-epoch %s  new-epoch %s\n", w, med(a, n), med(b, n), med(c, n), med(d, n), med(e, n) }' "$W/all"
done
echo "NEW epoch over block mode by order, median [min-max]: FUSE first (odd rounds), block first (even), each pair's mean"
for wl in "${WLS[@]}"; do
	awk -v w="$wl" "$MED_AWK"'
	$2 == w { x = $9 / $4; if ($1 % 2) o[++no] = x; else e[++ne] = x; by[$1] = x }
	END { for (r = 2; (r in by) && ((r - 1) in by); r += 2) p[++np] = (by[r - 1] + by[r]) / 2
		printf "%-7s fuse-first %s  block-first %s  pairs %s\n", w, med(o, no), med(e, ne), med(p, np) }' "$W/all"
done
