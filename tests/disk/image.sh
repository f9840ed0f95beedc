#!/usr/bin/env bash
# image.sh — block mode's tierfs serves the image as the device (the image
# option, fs/timing.c): the tier model sees exactly the loop device's
# reads, none for the image file's own path or extent tree (a 1 GiB image:
# 8 extents of 128 MiB, more than an inode holds, which as a file would
# cost a lookup of 2 reads at the loop device's open and an extent leaf).
# Mounted with --loop-hop=false and traced: the trace (format 8) marks the
# image with its own bit, so a virtual replay on the same tier charges
# exactly the device's reads tierfs charged, no extent leaf of the image
# either (before format 8 only the loop hop's bit marked it, and this
# recording replayed with one leaf more).
. "$(dirname "$0")/lib.sh"

command -v mkfs.ext4 >/dev/null || { echo "SKIP: mkfs.ext4 missing"; exit 77; }
head -c 3000000 /dev/urandom >"$TMPD/data/f"
img=$TMPD/images/img.ext4
"$TIERSIM" disk make "$img" --size 1GiB --fs ext4 --from "$TMPD/data" || fail "make failed"
"$TIERSIM" disk mount "$img" "$MNT" --tier ssd-cloud --loop-hop=false --trace "$TMPD/img.trace" \
	2>"$TMPD/err" ||
	fail "mount failed: $(cat "$TMPD/err")"
cmp -s "$TMPD/data/f" "$MNT/f" || fail "the file read back differs"
read -r dev model mbytes fbytes <<<"$(/usr/bin/python3 - \
	"$(sed -n 's/^fuse=//p' "$TIERSIM_DISK_STATE"/*.state)/.tierfs/stats" <<'X'
import json, sys
s = json.load(open(sys.argv[1]))
print(s["ops"]["read"]["count"], s["model"]["ops"]["read"]["count"],
      s["model"]["ops"]["read"]["device_bytes"], s["ops"]["read"]["bytes"])
X
)"
[ "$dev" -gt 0 ] || fail "the loop device read nothing through tierfs"
[ "$model" = "$dev" ] || fail "the model saw $model reads, the loop device sent $dev"
[ "$mbytes" = "$fbytes" ] || fail "the model read $mbytes bytes, the loop device $fbytes"
grep -qx 'image=true' "$(sed -n 's/^fuse=//p' "$TIERSIM_DISK_STATE"/*.state)/.tierfs/control" ||
	fail "disk mount's tierfs does not serve the image as the device (image=true)"
"$TIERSIM" disk umount "$MNT" || fail "umount failed"
check_clean "image"
got=$("$TIERSIM" replay "$TMPD/img.trace" --virtual --tier ssd-cloud --json 2>"$TMPD/err" |
	/usr/bin/python3 -c 'import json, sys; r = json.load(sys.stdin)["results"][1]
print(r.get("device_reads", 0), r.get("device_read_bytes", 0))') ||
	fail "replay failed: $(cat "$TMPD/err")"
[ "$got" = "$model $mbytes" ] ||
	fail "the replay charged the device '$got' (reads, bytes), tierfs '$model $mbytes'"
exit 0
