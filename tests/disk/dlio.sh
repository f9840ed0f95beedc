#!/usr/bin/env bash
# dlio.sh — tiersim dlio --fs: a DLIO run in block mode, the dataset's
# image made once beside it and reused, two epochs in a memory cgroup that
# holds the dataset (the second epoch served by the page cache: the device
# reads it once), --fs refused with --virtual; nothing left behind.
. "$(dirname "$0")/lib.sh"

run() {
	"$TIERSIM" dlio unet3d_h100 ++workload.dataset.num_files_train=12 \
		++workload.dataset.record_length_bytes=1000000 ++workload.dataset.record_length_bytes_stdev=0 \
		++workload.reader.batch_size=2 ++workload.train.computation_time=0.01 ++workload.train.epochs=2 \
		--tier unlimited --dir "$TMPD/dlio" --quiet "$@"
}
run --fs ext4 --mem 256MiB --trace "$TMPD/dlio.trace" >"$TMPD/out" 2>&1 || fail "dlio --fs: $(tail -3 "$TMPD/out")"
check_clean "dlio --fs"
ls -d "$TMPD"/dlio/*.ext4 >/dev/null || fail "no image beside the dataset"
bytes=$(trace_read_bytes "$TMPD/dlio.trace")
echo "device read $bytes bytes for 2 epochs of 12 x 1,000,000 B in 256 MiB"
[ "$bytes" -ge 12000000 ] && [ "$bytes" -lt 18000000 ] || fail "the device read $bytes bytes"
# The image is reused: a second run makes none.
before=$(stat -c %Y "$TMPD"/dlio/*.ext4/*)
run --fs ext4 >"$TMPD/out" 2>&1 || fail "second dlio --fs: $(tail -3 "$TMPD/out")"
[ "$(stat -c %Y "$TMPD"/dlio/*.ext4/*)" = "$before" ] || fail "the image was made again"
check_clean "second dlio --fs"
out=$(run --fs ext4 --virtual 2>&1 >/dev/null) && fail "--fs with --virtual ran"
case "$out" in *"not with --virtual"*) echo "ok: $out" ;; *) fail "--fs --virtual: $out" ;; esac
out=$(run --fs zfs 2>&1 >/dev/null) && fail "--fs zfs ran"
case "$out" in *"unknown file system 'zfs'"*) echo "ok: $out" ;; *) fail "--fs zfs: $out" ;; esac
exit 0
