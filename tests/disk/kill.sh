#!/usr/bin/env bash
# kill.sh — tierfs killed (SIGKILL) under a mounted, read-write disk while
# jobs read and write on it: the jobs get I/O errors rather than hang,
# nothing stays in D state, tiersim disk umount undoes the mount, and the
# image holds every file that was fsync'd before the kill.
. "$(dirname "$0")/lib.sh"

img=$TMPD/images/img.ext4
"$TIERSIM" disk make "$img" --size 128MiB --fs ext4 || fail "make failed"
"$TIERSIM" disk mount "$img" "$MNT" --tier unlimited --rw || fail "mount failed"
# Files written and fsync'd (dd conv=fsync), with their checksums.
for i in 1 2 3; do
	dd if=/dev/urandom of="$MNT/kept$i" bs=1M count=4 conv=fsync status=none || fail "write kept$i"
done
sync -f "$MNT/kept1"
(cd "$MNT" && sha256sum kept1 kept2 kept3) >"$TMPD/sums"
# Jobs on the device: a direct reader and an fsync'ing writer, in loops.
(while dd if="$MNT/kept1" of=/dev/null bs=64k iflag=direct status=none; do :; done) 2>"$TMPD/reader.err" &
reader=$!
(i=0; while dd if=/dev/zero of="$MNT/scratch" bs=256k count=8 conv=fsync status=none; do i=$((i + 1)); done) 2>"$TMPD/writer.err" &
writer=$!
sleep 1
pid=$(sed -n 's/^tierfs_pid=//p' "$TIERSIM_DISK_STATE"/*.state)
[ -n "$pid" ] && kill -0 "$pid" || fail "no tierfs pid in the state"
kill -KILL "$pid"
# The jobs end on their own with an I/O error, within 30 s.
for i in $(seq 300); do
	kill -0 $reader 2>/dev/null || kill -0 $writer 2>/dev/null || break
	sleep 0.1
done
for p in $reader $writer; do
	if kill -0 $p 2>/dev/null; then
		ps -o stat=,pid=,wchan:20=,cmd= --ppid $p -p $p >&2
		fail "a job was still running 30 s after tierfs was killed"
	fi
done
wait $reader; wait $writer
grep -q "Input/output error" "$TMPD/reader.err" || fail "the reader did not see an I/O error: $(cat "$TMPD/reader.err")"
grep -qE "Input/output error|Read-only file system" "$TMPD/writer.err" ||
	fail "the writer did not see an I/O error: $(cat "$TMPD/writer.err")"
echo "reader: $(tail -1 "$TMPD/reader.err")"
echo "writer: $(tail -1 "$TMPD/writer.err")"
d=$(ps -eo stat=,cmd= | awk -v t="$TMPD" '$1 ~ /^D/ && index($0, t)')
[ -z "$d" ] && echo "no process in D state" || fail "processes in D state: $d"
# A killed process's exit (unmapping a sanitizer's shadow memory, its
# threads) can outlast the jobs' I/O errors: give it 30 s to be gone.
for i in $(seq 300); do
	timeout 60 "$TIERSIM" disk list | grep -q "gone" && break
	sleep 0.1
done
timeout 60 "$TIERSIM" disk list | grep -q "gone" || fail "disk list does not say tierfs is gone"
timeout 60 "$TIERSIM" disk umount "$MNT" || fail "umount after the kill failed"
check_clean "umount after the kill"
# The image, mounted on its own (its journal replayed): every fsync'd file
# as it was.
mkdir -p "$TMPD/check"
mount -o loop "$img" "$TMPD/check" || fail "the image does not mount after the kill"
(cd "$TMPD/check" && sha256sum -c --quiet "$TMPD/sums") || fail "an fsync'd file changed"
umount "$TMPD/check"
e2fsck -fn "$img" >"$TMPD/fsck" 2>&1 || fail "e2fsck finds the image damaged: $(tail -5 "$TMPD/fsck")"
echo "fsync'd files intact, e2fsck clean"
exit 0
