#!/usr/bin/env bash
# memory.sh — instance memory as a memory cgroup: a file read twice by a
# job in a cgroup smaller than the file comes from the device twice (the
# kernel's own reclaim drops what the first pass read), in a cgroup larger
# than it once (the second pass is served by the page cache). Asserted on
# the bytes the device trace records, not on time. Also: --cache warm
# keeps what the previous run left, cold (the default) drops it.
. "$(dirname "$0")/lib.sh"
if [ ! -d /sys/fs/cgroup/memory ] && ! grep -qw memory /sys/fs/cgroup/cgroup.controllers /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null; then
	echo "SKIP: no memory cgroup controller"
	exit 77
fi

mib=48
head -c $((mib << 20)) /dev/urandom >"$TMPD/data/big"
mkdir "$TMPD/data/d" && for i in 1 2 3 4 5 6 7 8; do echo "$i" >"$TMPD/data/d/f$i"; done
for i in $(seq 40); do mkdir "$TMPD/data/t$i" && echo "$i" >"$TMPD/data/t$i/f"; done
img=$TMPD/images/img.ext4
"$TIERSIM" disk make "$img" --size 128MiB --fs ext4 --from "$TMPD/data" || fail "make failed"
file=$((mib << 20))

# run_twice MEM TRACE: mount, read the file twice in one job, unmount; the
# trace's read bytes on stdout.
run_twice() {
	"$TIERSIM" disk mount "$img" "$MNT" --tier unlimited --trace "$2" || fail "mount failed"
	"$TIERSIM" disk run "$MNT" --mem "$1" -- sh -c "cat '$MNT/big' >/dev/null && cat '$MNT/big' >/dev/null" \
		>"$TMPD/run.out" || fail "the job failed in a $1 cgroup"
	"$TIERSIM" disk umount "$MNT" || fail "umount failed"
	check_clean "run_twice $1"
	trace_read_bytes "$2"
}

small=$(run_twice 16MiB "$TMPD/small.trace")
big=$(run_twice 512MiB "$TMPD/big.trace")
echo "file $file bytes; device read $small bytes with a 16 MiB cgroup, $big with 512 MiB"
# At least all but what 16 MiB can hold comes from the device again.
[ "$small" -ge $((file * 2 - (16 << 20))) ] || fail "16 MiB cgroup: the device read $small bytes, not twice the file's $file"
[ "$big" -ge "$file" ] || fail "512 MiB cgroup: the device read $big bytes, less than the file"
[ "$big" -lt $((file * 13 / 10)) ] || fail "512 MiB cgroup: the device read $big bytes, the file twice over"

# cold and warm across runs: the second run of the same job reads nothing
# from the device when warm, the whole file again when cold.
"$TIERSIM" disk mount "$img" "$MNT" --tier unlimited --mem 512MiB || fail "mount failed"
dev_bytes() { sed -n 's/.*dev_read_bytes=\([0-9]*\).*/\1/p' "$TMPD/run.out"; }
"$TIERSIM" disk run "$MNT" -- cat "$MNT/big" >/dev/null 2>&1
"$TIERSIM" disk run "$MNT" --cache warm -- md5sum "$MNT/big" >"$TMPD/run.out" || fail "warm run failed"
warm=$(dev_bytes)
"$TIERSIM" disk run "$MNT" --cache cold -- md5sum "$MNT/big" >"$TMPD/run.out" || fail "cold run failed"
cold=$(dev_bytes)
echo "second run: warm read $warm bytes from the device, cold $cold"
[ "$warm" -lt $((file / 10)) ] || fail "warm: the device read $warm bytes"
[ "$cold" -ge "$file" ] || fail "cold: the device read $cold bytes, less than the file"
# cold_run_reads_metadata: cold means the file system's metadata too, as
# on a fresh mount: a stat of a file in a folder reads its metadata
# from the device (the drop opened every file after the remount, so a job
# found every folder block and inode in memory and read none)
"$TIERSIM" disk run "$MNT" --cache cold -- stat "$MNT/d/f7" >"$TMPD/run.out" || fail "cold stat failed"
meta=$(dev_bytes)
echo "cold stat of d/f7: $meta bytes from the device"
[ -n "$meta" ] && [ "$meta" -gt 0 ] || fail "cold: a stat in a folder read $meta bytes from the device (metadata left cached)"
# cold_drop_reads_no_tree: dropping the cache reads nothing of the tree:
# across a cold run of a job that reads nothing the device serves the
# remount's own reads (superblock, group descriptors, journal, root
# folder), fewer than the image's 42 folders (the drop used to open every
# file before the unmount, reading every folder block and inode-table
# block: a walk of the whole tree in the device's trace before each job)
r0=$(tierfs_stats ops.read.count)
"$TIERSIM" disk run "$MNT" --cache cold -- true >"$TMPD/run.out" || fail "cold true failed"
r1=$(tierfs_stats ops.read.count)
echo "a cold run of true: $((r1 - r0)) device reads"
[ $((r1 - r0)) -lt 20 ] || fail "cold: the drop read $((r1 - r0)) times from the device (a walk of the tree)"
# cold_outlived: a copy of the mount in another mount namespace keeps the
# file system, and its page cache, alive across the unmount: there the
# drop still drops every file's pages (a walk, only then)
"$TIERSIM" disk run "$MNT" --cache warm -- cat "$MNT/big" >/dev/null 2>&1 || fail "warm cat failed"
unshare -m --propagation private sleep 600 &
holder=$!
for i in $(seq 200); do
	[ "$(readlink /proc/$holder/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] && break
	sleep 0.05
done
"$TIERSIM" disk run "$MNT" --cache cold -- md5sum "$MNT/big" >"$TMPD/run.out" || fail "cold run, mount held elsewhere, failed"
held=$(dev_bytes)
kill "$holder"
wait "$holder" 2>/dev/null
echo "cold, the file system held by another mount namespace: $held bytes from the device"
[ -n "$held" ] && [ "$held" -ge "$file" ] || fail "cold, the file system held elsewhere: the device read $held bytes, less than the file"
# the job's own memory: a job that holds 24 MiB for a while (more than one
# 10 ms sample) reports at least that as "own", well under the limit
"$TIERSIM" disk run "$MNT" -- /usr/bin/python3 -c 'import time; b = bytearray(24 << 20); b[::4096] = b"x" * len(b[::4096]); time.sleep(0.3)' \
	>"$TMPD/run.out" || fail "the holding job failed"
own=$(sed -n 's/.* own=\([0-9]*\).*/\1/p' "$TMPD/run.out")
echo "a job holding 24 MiB: own $own bytes"
[ -n "$own" ] && [ "$own" -ge $((24 << 20)) ] && [ "$own" -lt $((256 << 20)) ] ||
	fail "own memory $own bytes for a job holding 24 MiB"
"$TIERSIM" disk umount "$MNT" || fail "umount failed"
check_clean "cache runs"
exit 0
